"""Honda's Fig. 5.1: weighted AIMD flows against TCP flows on one 60 Mb/s RED bottleneck.

The thesis's set-up (Sec. 5.1): every sender on a 100 Mb/s, 2 ms link into a 60 Mb/s, 20 ms
RED bottleneck; every receiver behind a 100 Mb/s link of ``n/3`` ms for the n-th TCP flow and
the n-th AIMD flow; Reno; 100 s. The receiver links are folded into the access links: a link
that never queues (100 Mb/s fed by 60 Mb/s) is a constant delay, and in a loop with one
bottleneck only the sum of the constant delays before and after it matters (the ACK path is
as long as the forward path's propagation delays), so flow n's access link gets
``2 + n/3`` ms plus half a 100 Mb/s packet transmission (the delay folded in counts twice in
the loop, the transmission once), and the run is a
:class:`~tcplab.packet.setup.PacketSetup` on the standard dumbbell.
``tests/test_bmc_packet.py`` checks that the folded run is the literal three-link run,
counter for counter.

RED's parameters are not given. :func:`ns2_red` sets them as ns-2 did by default at the time
(automatic RED: ``min_th = max(5, C * 5 ms / 2)``, ``max_th = 3 min_th``,
``w_q = 1 - exp(-1 / C)`` for a link of C packets/s, ``max_p = 0.1``, gentle, wait).
:func:`run_weighted` counts everything over the whole run, as the thesis measures, and also
from the set-up's warm-up on (the ``steady_*`` columns).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

import numpy as np
import pandas as pd

from ..checks import check_int, check_range
from ..theory import bmc
from .dumbbell import Dumbbell, queue_counters
from .sched import Call, call_at
from .setup import DumbbellTopology, PacketSetup, Probes, QueueSetup, RunLength, streams
from .tcp import TcpConfig

__all__ = [
    "KINDS",
    "ns2_red",
    "red_buffer",
    "mixed_setup",
    "weighted_setup",
    "WeightedRun",
    "run_weighted",
]

KINDS = ("tcp", "aimd")
#: the thesis's Fig. 5.1 (Sec. 5.1)
RATE_MBPS, DELAY_MS, ACCESS_MBPS, ACCESS_DELAY_MS = 60.0, 20.0, 100.0, 2.0
RECEIVER_MBPS, RECEIVER_STEP_MS = 100.0, 1.0 / 3.0
PACKET_BYTES = 1000  # ns-2's default TCP packet size (the thesis does not give one)


def ns2_red(
    rate_mbps: float,
    buffer: int,
    packet_bytes: int = PACKET_BYTES,
    target_delay_s: float = 0.005,
) -> QueueSetup:
    """RED as ns-2 (2.31-2.33) configures it by default, in packets of ``packet_bytes``:
    ``min_th = max(5, C target_delay / 2)``, ``max_th = 3 min_th`` (capped at the buffer),
    ``w_q = 1 - exp(-1 / C)``, ``max_p = 0.1``, gentle and wait on (Floyd, Gummadi and
    Shenker's automatic settings; C is the link's rate in packets/s)."""
    rate = check_range("rate_mbps", rate_mbps, 0.0, low_open=True)
    buffer = check_int("buffer", buffer, 1)
    c = rate * 1e6 / (8.0 * check_int("packet_bytes", packet_bytes, 1))
    min_th = min(max(5.0, c * target_delay_s / 2.0), buffer / 3.0)
    max_th = min(3.0 * min_th, float(buffer))
    w_q = 1.0 - math.exp(-1.0 / c)
    return QueueSetup(
        "red", buffer, min_th=min_th, max_th=max_th, max_p=0.1, w_q=w_q, wait=True, gentle=True
    )


def red_buffer(rate_mbps: float, one_way_ms: float, packet_bytes: int = PACKET_BYTES) -> int:
    """One bandwidth-delay product of ``rate_mbps`` over a round trip of twice
    ``one_way_ms``, in packets, and at least twice :func:`ns2_red`'s ``max_th`` (gentle
    RED ramps up to it)."""
    rate = check_range("rate_mbps", rate_mbps, 0.0, low_open=True)
    c = rate * 1e6 / (8.0 * check_int("packet_bytes", packet_bytes, 1))
    bdp = c * 2.0 * check_range("one_way_ms", one_way_ms, 0.0) / 1e3
    return max(round(bdp), math.ceil(2.0 * 3.0 * max(5.0, c * 0.005 / 2.0)))


def mixed_setup(
    aimd: Sequence[tuple[float, float]],
    tcp_flows: int,
    *,
    rate_mbps: float = RATE_MBPS,
    queue: QueueSetup | None = None,
    duration: float = 100.0,
    warmup: float = 20.0,
    variant: str = "reno",
    packet_bytes: int = PACKET_BYTES,
    start_spread: float = 1.0,
    sample_interval: float | None = None,
    loss_rate: float = 0.0,
    seed: int = 0,
) -> PacketSetup:
    """Fig. 5.1 with ``tcp_flows`` TCP flows (first) and one AIMD flow per ``(a, beta)`` of
    ``aimd``; the n-th flow of each kind has ``n/3`` ms on its receiver link. ``queue``
    defaults to :func:`ns2_red` with a buffer of one bandwidth-delay product (at the
    shortest RTT)."""
    tcp_flows = check_int("tcp_flows", tcp_flows, 0)
    flows = check_int("flows", tcp_flows + len(aimd), 1)
    receiver_tx_ms = packet_bytes * 8.0 / (RECEIVER_MBPS * 1e6) * 1e3
    delays = tuple(
        ACCESS_DELAY_MS + n * RECEIVER_STEP_MS + receiver_tx_ms / 2.0
        for n in [*range(1, tcp_flows + 1), *range(1, len(aimd) + 1)]
    )
    if queue is None:
        buffer = red_buffer(rate_mbps, DELAY_MS + ACCESS_DELAY_MS, packet_bytes)
        queue = ns2_red(rate_mbps, buffer, packet_bytes)
    if loss_rate:
        queue = replace(queue, loss_rate=loss_rate)
    base = TcpConfig(variant=variant, packet_bytes=packet_bytes)
    configs = [base] * tcp_flows + [
        TcpConfig(variant=variant, a=a, beta=beta, packet_bytes=packet_bytes) for a, beta in aimd
    ]
    return PacketSetup(
        topology=DumbbellTopology(
            flows, rate_mbps, DELAY_MS, ACCESS_MBPS, delays, start_spread=start_spread
        ),
        queue=queue,
        tcp=tuple(configs),
        length=RunLength(duration, warmup),
        probes=Probes(trace=False, sample_interval=sample_interval),
        seed=seed,
    )


def weighted_setup(
    weights: Sequence[float], tcp_flows: int | None = None, **options: object
) -> PacketSetup:
    """Fig. 5.1 with one AIMD(D^2, 1/2) flow per weight D (eq. 3.6) and as many TCP flows
    (or ``tcp_flows``); ``options`` as :func:`mixed_setup`."""
    pairs = [(bmc.increase_for(check_range("weight", d, 0.0, low_open=True)), 0.5) for d in weights]
    n = len(pairs) if tcp_flows is None else tcp_flows
    return mixed_setup(pairs, n, **options)  # type: ignore[arg-type]


@dataclass(frozen=True, eq=False)
class WeightedRun:
    """One run of Fig. 5.1: ``flows`` has one row per flow (kind, n, a, beta, weight D of
    eq. 3.5, propagation RTT; goodput, packets sent, fast retransmits and time-outs over the
    whole run, and ``steady_*`` from the warm-up on); ``bottleneck`` the queue's counters
    (whole run and steady); ``intervals`` the goodput per ``sample_interval``, if any."""

    setup: PacketSetup
    flows: pd.DataFrame
    bottleneck: dict[str, float]
    wall_s: float
    intervals: pd.DataFrame = field(default_factory=pd.DataFrame)

    def summary(self) -> dict[str, float]:
        """The mean goodput of each kind, their ratio (AIMD over TCP), the loss-event rate
        (window reductions per packet sent, all flows), time-outs, over the whole run."""
        f = self.flows
        tcp, aimd = f[f["kind"] == "tcp"], f[f["kind"] == "aimd"]
        events = f["fast_retransmits"].sum() + f["timeouts"].sum()
        tcp_mbps = float(tcp["goodput_mbps"].mean()) if len(tcp) else math.nan
        aimd_mbps = float(aimd["goodput_mbps"].mean()) if len(aimd) else math.nan
        return {
            "ratio": aimd_mbps / tcp_mbps if tcp_mbps > 0 else math.nan,
            "aimd_mbps": aimd_mbps,
            "tcp_mbps": tcp_mbps,
            "loss_event_rate": float(events / max(f["sent"].sum(), 1)),
            "drop_rate": self.bottleneck["drop_rate"],
            "timeouts": int(f["timeouts"].sum()),
            "aimd_timeouts": int(aimd["timeouts"].sum()),
            "tcp_timeouts": int(tcp["timeouts"].sum()),
            "utilisation": float(f["goodput_mbps"].sum() / self.bottleneck["rate_mbps"]),
        }


_COUNTS = ("unique", "sent", "fast_retransmits", "timeouts")


def run_weighted(setup: PacketSetup, tcp_flows: int) -> WeightedRun:
    """Run a :func:`mixed_setup` (``tcp_flows`` TCP flows first, the rest AIMD)."""
    top, length = setup.topology, setup.length
    configs = setup.configs()
    flows = top.flows
    tcp_flows = check_int("tcp_flows", tcp_flows, 0, flows)
    rng = streams(setup.seed)
    discipline = setup.queue.build(rng.queue, rng.loss, setup.mean_packet_time)
    delays = [d / 1e3 for d in top.access_delays_ms()]
    net = Dumbbell(
        configs, discipline, top.rate_mbps * 1e6, top.delay_ms / 1e3, top.access_mbps * 1e6,
        delays, trace=False, rng=rng.overhead,
    )  # fmt: skip
    net.start(rng.start.uniform(0.0, top.start_spread, flows))
    steady: dict[str, np.ndarray] = {}

    def snapshot(_event: Call | None = None) -> None:
        steady["flows"] = _counters(net)
        steady["link"] = np.array([net.bottleneck.arrivals, net.bottleneck.drops])

    if length.warmup > 0:
        call_at(net.env, length.warmup, snapshot, None)
    else:
        snapshot()
    out = net.network.run(length.duration, 0.0, setup.probes.sample_interval)
    whole = _counters(net)
    after = whole - steady["flows"]
    bits = np.array([c.packet_bytes * 8.0 for c in configs])
    n = [*range(1, tcp_flows + 1), *range(1, flows - tcp_flows + 1)]
    table = pd.DataFrame(
        {
            "flow": np.arange(flows),
            "kind": ["tcp"] * tcp_flows + ["aimd"] * (flows - tcp_flows),
            "n": n,
            "a": [c.a for c in configs],
            "beta": [c.beta for c in configs],
            "weight": [bmc.weight_of(c.a, 1.0 - c.beta) for c in configs],
            "rtt_prop_s": [2.0 * (top.delay_ms / 1e3 + d) for d in delays],
            "goodput_mbps": whole[:, 0] * bits / length.duration / 1e6,
            "sent": whole[:, 1],
            "fast_retransmits": whole[:, 2],
            "timeouts": whole[:, 3],
            "steady_goodput_mbps": after[:, 0] * bits / (length.duration - length.warmup) / 1e6,
            "steady_sent": after[:, 1],
            "steady_fast_retransmits": after[:, 2],
            "steady_timeouts": after[:, 3],
        }
    )
    link = np.array([net.bottleneck.arrivals, net.bottleneck.drops])
    link_after = link - steady["link"]
    bottleneck = {
        "rate_mbps": top.rate_mbps,
        "arrivals": float(link[0]),
        "drops": float(link[1]),
        "drop_rate": float(link[1] / max(link[0], 1)),
        "steady_drop_rate": float(link_after[1] / max(link_after[0], 1)),
        **{k: float(v) for k, v in queue_counters(discipline).items()},
    }
    return WeightedRun(setup, table, bottleneck, out.wall_s, out.intervals)


def _counters(net: Dumbbell) -> np.ndarray:
    rows = [
        (s.receiver.unique, s.sender.sent, s.sender.fast_retransmits, s.sender.timeouts)
        for s in net.network.subflows
    ]
    return np.array(rows, dtype=np.int64).reshape(-1, len(_COUNTS))
