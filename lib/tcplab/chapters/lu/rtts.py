"""The paper's different-RTT test (Sec. V.B): Qiu's topology with the cross traffic's access
delay apart from the parallel connections'.

:func:`tcplab.packet.qiu.simulate_qiu` gives both groups one access delay (L1 and L2 alike).
:func:`simulate_two_rtts` builds the same network in the same order with the same random
streams, but L1 (the cross traffic's access link) with ``cross_access_ms`` and L2 (the parallel
connections') with ``parallel_access_ms``; with both at the topology's ``access_delay_ms`` its
numbers are ``simulate_qiu``'s, to the bit (``tests/test_lu_whatif.py`` checks it). The shared
model module is not touched: this file is the chapter's own.

The experiment :func:`two_rtts` runs scenario 1 (1.5 Mb/s, the cheap one) under DropTail, the
paper's "RED is not used", with the cross traffic's propagation round trip twice the parallel
connections' and half of it, at the book's numbers of parallel connections, seeded as
``lu-scenarios`` seeds the same (scenario, queue, cross) curve; and the same runs under RED,
the what-if (the paper: with RED every connection sees the same loss rate).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from tcplab.packet import PacketSetup
from tcplab.packet.network import Network
from tcplab.packet.qiu import RTT_READ_S, GroupCounter, QiuTopology
from tcplab.packet.queues import DropTail
from tcplab.packet.sched import NORMAL, Call, call_at
from tcplab.packet.setup import streams
from tcplab.tasks import run_tasks

from .experiments import BOOK_FLOWS
from .runs import ROW_NUMBERS
from .scenarios import SCENARIOS, scenario_seed, scenario_setup

__all__ = ["RTT_VARIANTS", "RttParams", "simulate_two_rtts", "two_rtts"]

#: the access delays (ms) of the cross traffic's link L1 and the parallel connections' L2:
#: scenario 1's propagation RTT is 2 (4 + 20 + 5) = 58 ms; 33 ms on L1 makes the cross
#: traffic's 116 ms, 33 ms on L2 the parallel connections'
RTT_VARIANTS: dict[str, tuple[float, float]] = {
    "cross RTT x2": (33.0, 4.0),
    "parallel RTT x2": (4.0, 33.0),
}


def simulate_two_rtts(
    setup: PacketSetup, cross_access_ms: float, parallel_access_ms: float
) -> dict[str, float | int]:
    """One run of ``setup`` (a :class:`QiuTopology`) with L1 at ``cross_access_ms`` and L2 at
    ``parallel_access_ms``: the row numbers of ``QiuResult.summary`` (``rtt_s`` the parallel
    connections' mean smoothed RTT) and ``cross_rtt_s``, the cross traffic's."""
    top = setup.topology
    if not isinstance(top, QiuTopology):
        raise ValueError(f"topology={type(top).__name__} is not a QiuTopology")
    for name, value in (("cross_access_ms", cross_access_ms), ("parallel_access_ms",
                                                                parallel_access_ms)):  # fmt: skip
        if not (math.isfinite(value) and value >= 0):
            raise ValueError(f"{name}={value!r} must be a finite delay >= 0 ms")
    config, duration, warmup = setup.tcp, setup.length.duration, setup.length.warmup
    rng = streams(setup.seed)
    net = Network(seed=setup.seed)
    packet_time = config.packet_bytes * 8.0 / (top.rate_mbps * 1e6)
    counter = GroupCounter(setup.queue.build(rng.queue, rng.loss, packet_time), first=top.cross)
    links = (
        ("L1", top.access_mbps, cross_access_ms, top.overhead_ms),
        ("L2", top.access_mbps, parallel_access_ms, top.overhead_ms),
        ("L4", top.egress_mbps, top.egress_delay_ms, 0.0),
        ("L5", top.egress_mbps, top.egress_delay_ms, 0.0),
    )
    net.add_link("L3", top.rate_mbps, top.delay_ms, counter)
    for name, rate, delay, extra in links:
        net.add_link(name, rate, delay, DropTail(top.node_buffer), jitter_ms=extra)
    starts = rng.start.uniform(0.0, top.cross_start, top.cross)
    cross = [
        net.add_connection([["L1", "L3", "L4"]], config, name=f"cross{i}", start=float(s))
        for i, s in enumerate(starts)
    ]
    parallel = [
        net.add_connection(
            [["L2", "L3", "L5"]], config, name=f"parallel{i}", start=top.parallel_start
        )
        for i in range(top.flows)
    ]
    call_at(net.env, warmup, counter.reset, None)
    reads: dict[str, list[float]] = {"parallel": [], "cross": []}
    senders = {"parallel": [c.senders[0] for c in parallel], "cross": [c.senders[0] for c in cross]}

    def read_rtt(_event: Call) -> None:
        for group, group_senders in senders.items():
            samples = [s.srtt for s in group_senders if s.srtt is not None]
            if samples:
                reads[group].append(sum(samples) / len(samples))
        if net.env.now + RTT_READ_S < duration:
            net.env.schedule(Call(read_rtt, None), NORMAL, RTT_READ_S)

    call_at(net.env, warmup + RTT_READ_S, read_rtt, None)
    out = net.run(duration, warmup)
    table = out.connections.copy()
    is_parallel = table["connection"].str.startswith("parallel")
    table["group"] = np.where(is_parallel, "parallel", "cross")
    table["bytes_per_s"] = table["goodput_mbps"] * 1e6 / 8.0
    totals = table.groupby("group")["bytes_per_s"].sum()  # summed as simulate_qiu sums
    row: dict[str, float | int] = {
        "parallel_bytes_per_s": float(totals.get("parallel", 0.0)),
        "cross_bytes_per_s": float(totals.get("cross", 0.0)),
        "loss_rate": counter.loss_rate(1),
        "cross_loss_rate": counter.loss_rate(0),
        "rtt_s": float(np.mean(reads["parallel"])) if reads["parallel"] else math.nan,
        "timeouts": int(table.loc[is_parallel, "timeouts"].sum()),
        "fast_retransmits": int(table.loc[is_parallel, "fast_retransmits"].sum()),
        "packets": int(net.links["L3"].arrivals),
    }
    assert set(row) == set(ROW_NUMBERS)
    row["cross_rtt_s"] = float(np.mean(reads["cross"])) if reads["cross"] else math.nan
    return row


@dataclass(frozen=True)
class RttParams:
    """Scenario 1: every variant of :data:`RTT_VARIANTS` at each cross level and queue."""

    variants: tuple[str, ...] = tuple(RTT_VARIANTS)
    queues: tuple[str, ...] = ("droptail", "red")
    cross: tuple[int, ...] = (10, 20)
    flows: tuple[int, ...] = BOOK_FLOWS
    workers: int = 2

    @classmethod
    def quick(cls) -> RttParams:
        """Both variants and both queues, 10 cross flows, the probes and n = 2."""
        return cls(tuple(RTT_VARIANTS), ("droptail", "red"), (10,), (1, 2, 10), workers=1)


def _one(job: tuple[tuple[tuple[str, object], ...], PacketSetup, float, float]) -> dict:
    labels, setup, cross_ms, parallel_ms = job
    return {**dict(labels), **simulate_two_rtts(setup, cross_ms, parallel_ms)}


def two_rtts(params: RttParams, seed: int = 0) -> pd.DataFrame:
    """Rows (scenario, variant, queue, cross, replica, flows, capacity_bytes_per_s, the row
    numbers, cross_rtt_s), one per run."""
    jobs = []
    capacity = SCENARIOS[1].capacity_bytes_per_s
    for variant in params.variants:
        cross_ms, parallel_ms = RTT_VARIANTS[variant]
        for queue in params.queues:
            for m in params.cross:
                run_seed = scenario_seed(seed, 1, queue, m, 0)
                for n in params.flows:
                    labels = (
                        ("scenario", 1), ("variant", variant), ("queue", queue), ("cross", m),
                        ("replica", 0), ("flows", n), ("capacity_bytes_per_s", capacity),
                    )  # fmt: skip
                    setup = scenario_setup(1, n, m, queue, run_seed)
                    jobs.append((labels, setup, cross_ms, parallel_ms))
    return pd.DataFrame(run_tasks(_one, jobs, workers=params.workers, desc="lu rtts"))
