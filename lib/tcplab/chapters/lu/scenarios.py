"""Lu et al.'s six simulation scenarios (their Fig. 2) on Qiu's topology, as packet set-ups.

The paper states the bottleneck L3's rate and one-way delay, the access and egress rates,
the TCP buffer (at least the bandwidth-delay product, or 60 KB), the fixed delays (4 ms on
L1 and L2, 5 ms on L4 and L5), a 25-packet buffer on every node, TCP Reno for every
connection, 100 s runs, cross traffic starting at random in the first 8 s and the parallel
connections all at 10 s. What it leaves out, we choose (and the chapter shows the
sensitivity): ns-2's default packet of 1000 bytes, a window cap of 20 000 packets where the
buffer is "at least the bandwidth-delay product" (more than every scenario's), 60 packets for
60 KB, uniform cross-traffic start times, the packet model's RFC 6298 timer (10 ms tick,
200 ms floor) and, for RED, ns-2's parameter defaults before its 2004 switch to automatic
configuration (thresholds 5 and 15 packets, weight 0.002, ``max_p`` 0.1, ``wait`` and
``gentle`` on).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from tcplab.checks import check_choice, check_int
from tcplab.packet import PacketSetup, Probes, QueueSetup, RunLength, TcpConfig
from tcplab.packet.qiu import QiuResult, QiuTopology, simulate_qiu

__all__ = [
    "QUEUES",
    "SCENARIOS",
    "Scenario",
    "Variant",
    "check_scenario",
    "run_scenario",
    "scenario_setup",
    "scenario_seed",
]

PACKET_BYTES = 1000  # ns-2's default packetSize_
LARGE_WINDOW = 20_000  # packets: "TCP buffer >= bandwidth * RTT" in every scenario
SMALL_WINDOW_BYTES = 60_000  # "60 KB": 60 packets of 1000 bytes
NODE_BUFFER = 25  # packets, every node (Fig. 2's caption)
DURATION = 100.0
CROSS_START = 8.0
PARALLEL_START = 10.0
QUEUES = ("droptail", "red")
RED_OPTIONS: dict[str, Any] = {
    "min_th": 5.0,
    "max_th": 15.0,
    "w_q": 0.002,
    "max_p": 0.1,
    "wait": True,
    "gentle": True,
}


@dataclass(frozen=True)
class Scenario:
    """One row of the paper's Fig. 2 (rates in Mb/s, delays in ms, window in bytes or None
    for "at least the bandwidth-delay product")."""

    number: int
    rate_mbps: float
    delay_ms: float
    access_mbps: float
    window_bytes: int | None
    label: str

    @property
    def capacity_bytes_per_s(self) -> float:
        return self.rate_mbps * 1e6 / 8.0

    @property
    def rtt_s(self) -> float:
        """Round-trip propagation delay: 2 (4 + L3 + 5) ms."""
        return 2e-3 * (4.0 + self.delay_ms + 5.0)


SCENARIOS: dict[int, Scenario] = {
    1: Scenario(1, 1.5, 20.0, 10.0, None, "a slow connection (cable, DSL)"),
    2: Scenario(2, 100.0, 20.0, 1000.0, None, "coast to coast, fast"),
    3: Scenario(3, 100.0, 50.0, 1000.0, None, "global scale, fast"),
    4: Scenario(4, 1000.0, 50.0, 10_000.0, None, "global scale, next generation"),
    5: Scenario(5, 1000.0, 50.0, 10_000.0, SMALL_WINDOW_BYTES, "as 4, 60 KB TCP buffer"),
    6: Scenario(6, 100.0, 20.0, 1000.0, SMALL_WINDOW_BYTES, "as 2, 60 KB TCP buffer"),
}


@dataclass(frozen=True)
class Variant:
    """A departure from the chapter's choices, for the sensitivity runs: the packet size, the
    timer's tick, ns-2's random send jitter on the access links, the node buffer."""

    packet_bytes: int = PACKET_BYTES
    granularity: float = 0.01
    overhead_ms: float = 0.0
    node_buffer: int = NODE_BUFFER


def check_scenario(scenario: int) -> int:
    """``scenario`` if it is one of the paper's six, else a ValueError naming it."""
    if isinstance(scenario, bool) or scenario not in SCENARIOS:
        known = ", ".join(str(k) for k in SCENARIOS)
        raise ValueError(f"scenario={scenario!r} is not one of the paper's scenarios: {known}")
    return int(scenario)


def scenario_setup(
    scenario: int,
    flows: int,
    cross: int,
    queue: str = "droptail",
    seed: int = 0,
    variant: Variant = Variant(),  # noqa: B008 (frozen)
    duration: float = DURATION,
) -> PacketSetup:
    """The packet set-up of scenario ``scenario`` with ``flows`` parallel connections and
    ``cross`` cross-traffic connections; ``queue`` is the bottleneck's discipline."""
    s = SCENARIOS[check_scenario(scenario)]
    check_choice("queue", queue, QUEUES)
    size = variant.packet_bytes
    window = LARGE_WINDOW if s.window_bytes is None else max(s.window_bytes // size, 1)
    topology = QiuTopology(
        flows=flows,
        cross=cross,
        rate_mbps=s.rate_mbps,
        delay_ms=s.delay_ms,
        access_mbps=s.access_mbps,
        egress_mbps=s.access_mbps,
        node_buffer=variant.node_buffer,
        cross_start=CROSS_START,
        parallel_start=PARALLEL_START,
        overhead_ms=variant.overhead_ms,
    )
    options = RED_OPTIONS if queue == "red" else {}
    return PacketSetup(
        topology=topology,  # type: ignore[arg-type]  # any Topology; the field names the usual
        queue=QueueSetup(queue, NODE_BUFFER, **options),
        tcp=TcpConfig(
            "reno", packet_bytes=size, max_window=window, granularity=variant.granularity
        ),
        length=RunLength(duration, PARALLEL_START),
        probes=Probes(trace=False),
        seed=seed,
    )


def scenario_seed(seed: int, scenario: int, queue: str, cross: int, replica: int = 0) -> int:
    """The seed of one run: the same for every number of parallel connections at one
    (scenario, queue, cross traffic, replica), so the cross traffic starts at the same times
    along a curve (common random numbers)."""
    check_int("seed", seed, 0)
    words = [seed, scenario, QUEUES.index(queue), cross, replica]
    return int(np.random.SeedSequence(words).generate_state(1)[0])


def run_scenario(
    scenario: int,
    flows: int,
    cross: int,
    queue: str = "droptail",
    seed: int = 0,
    variant: Variant = Variant(),  # noqa: B008 (frozen)
    replica: int = 0,
) -> QiuResult:
    """One 100 s run of scenario ``scenario``, seeded by :func:`scenario_seed`."""
    run_seed = scenario_seed(seed, scenario, queue, cross, replica)
    return simulate_qiu(scenario_setup(scenario, flows, cross, queue, run_seed, variant))
