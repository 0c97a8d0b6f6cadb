"""Qiu, Zhang and Keshav's topology: parallel TCP and cross traffic through one bottleneck.

Lu et al. (2005, Fig. 1) simulate on the topology of Qiu et al. (1999): cross traffic goes
from N1 to N5 over links L1, L3, L4 and the parallel connections from N2 to N6 over L2, L3,
L5; L3 (N3 to N4) is the shared bottleneck. Each group shares its access link (L1 or L2) and
its egress link (L4 or L5); the two access links have one delay, as in the paper, or one per
group (the paper's different-RTT test, Sec. V.B). Cross connections start at times drawn
uniformly in ``[0, cross_start)`` seconds, the parallel ones all at ``parallel_start``; the run
is measured from ``parallel_start`` on, over the parallel connections' lifetime, as the paper
measures, or from a later time (after the start-up transient), and can read the first
parallel sender's window at chosen times; neither changes what the network does.

:class:`QiuTopology` is a topology for :class:`~tcplab.packet.setup.PacketSetup`: its
``flows`` is the number of *parallel* connections (the book's one name for it), ``cross``
the number of cross-traffic connections. The set-up's queue is the bottleneck's; every other
link has a DropTail buffer of ``node_buffer`` packets. Each run also counts, per group, the
bottleneck arrivals and drops (:class:`GroupCounter`) and reads the parallel senders'
smoothed RTT every ``RTT_READ_S`` seconds, for the loss rate and RTT that Lu et al.'s model
is written in.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from ..checks import check_int, check_range
from .network import Network
from .queues import DropTail
from .sched import NORMAL, Call, call_at
from .tcp import TcpConfig

if TYPE_CHECKING:
    from .setup import PacketSetup

__all__ = ["GroupCounter", "QiuResult", "QiuTopology", "simulate_qiu", "RTT_READ_S"]

RTT_READ_S = 0.1  # the parallel senders' smoothed RTT is read this often (seconds)


class GroupCounter:
    """A queue discipline wrapper that counts arrivals and drops for two groups of flows:
    flow ids below ``first`` (the cross traffic) and from ``first`` on (the parallel
    connections). ``reset()`` starts the counts again (at the end of the warm-up)."""

    def __init__(self, inner: Any, first: int) -> None:
        self.inner = inner
        self.first = first
        self.reset()

    @property
    def buffer(self) -> int:
        return int(self.inner.buffer)

    def reset(self, _event: Call | None = None) -> None:
        self.arrivals = [0, 0]  # [cross, parallel]
        self.drops = [0, 0]

    def admit(self, waiting: int, now: float, idle_since: float, flow: int = -1) -> bool:
        group = 1 if flow >= self.first else 0
        self.arrivals[group] += 1
        if self.inner.admit(waiting, now, idle_since, flow):
            return True
        self.drops[group] += 1
        return False

    def loss_rate(self, group: int) -> float:
        """Drops over arrivals of one group since the last reset (NaN without arrivals)."""
        arrivals = self.arrivals[group]
        return self.drops[group] / arrivals if arrivals else math.nan


@dataclass(frozen=True)
class QiuTopology:
    """Lu et al.'s Fig. 1: ``flows`` parallel and ``cross`` cross-traffic connections.

    L3 (the bottleneck) has ``rate_mbps`` and one-way ``delay_ms``; the access links L1, L2
    have ``access_mbps`` and ``access_delay_ms``; the egress links L4, L5 ``egress_mbps`` and
    ``egress_delay_ms``. The defaults are the paper's fixed values (4 ms, 5 ms) and its
    scenario 2. ``overhead_ms`` adds ``U(0, overhead_ms)`` to every transmission on the access
    links (ns-2's ``overhead_``, off by default as in ns-2). ``cross_access_delay_ms`` and
    ``parallel_access_delay_ms`` give L1 (the cross traffic's) and L2 (the parallel
    connections') delays of their own (None: ``access_delay_ms``).
    """

    flows: int = 1
    cross: int = 0
    rate_mbps: float = 100.0
    delay_ms: float = 20.0
    access_mbps: float = 1000.0
    access_delay_ms: float = 4.0
    egress_mbps: float = 1000.0
    egress_delay_ms: float = 5.0
    node_buffer: int = 25
    cross_start: float = 8.0
    parallel_start: float = 10.0
    overhead_ms: float = 0.0
    cross_access_delay_ms: float | None = None
    parallel_access_delay_ms: float | None = None

    def __post_init__(self) -> None:
        checked: dict[str, float] = {
            "flows": check_int("flows", self.flows, 1),
            "cross": check_int("cross", self.cross, 0),
            "node_buffer": check_int("node_buffer", self.node_buffer, 1),
        }
        for name in ("rate_mbps", "access_mbps", "egress_mbps"):
            checked[name] = check_range(name, getattr(self, name), 0.0, low_open=True)
        for name in ("delay_ms", "access_delay_ms", "egress_delay_ms", "overhead_ms"):
            checked[name] = check_range(name, getattr(self, name), 0.0)
        checked["cross_start"] = check_range("cross_start", self.cross_start, 0.0)
        start = check_range("parallel_start", self.parallel_start, self.cross_start)
        checked["parallel_start"] = start
        for name in ("cross_access_delay_ms", "parallel_access_delay_ms"):
            if getattr(self, name) is not None:
                checked[name] = check_range(name, getattr(self, name), 0.0)
        for name, value in checked.items():
            object.__setattr__(self, name, value)

    @property
    def connections(self) -> int:
        """Every connection of the run: cross traffic and parallel."""
        return self.flows + self.cross

    def access_delays(self) -> tuple[float, float]:
        """The one-way delays (ms) of L1 (the cross traffic's access link) and L2 (the
        parallel connections')."""
        cross, parallel = self.cross_access_delay_ms, self.parallel_access_delay_ms
        return (
            self.access_delay_ms if cross is None else cross,
            self.access_delay_ms if parallel is None else parallel,
        )

    def propagation_rtt(self) -> float:
        """The round-trip propagation delay of a parallel connection, seconds."""
        return 2e-3 * (self.access_delays()[1] + self.delay_ms + self.egress_delay_ms)

    def run(self, setup: PacketSetup) -> QiuResult:
        return simulate_qiu(setup)


@dataclass(frozen=True, eq=False)
class QiuResult:
    """One run on Qiu's topology, measured from the parallel connections' start.

    Throughputs are goodput (distinct packets received, ``packet_bytes`` each) in bytes per
    second, summed over each group. ``loss_rate`` is the parallel connections' share of their
    bottleneck arrivals that were dropped, ``cross_loss_rate`` the cross traffic's; ``rtt_s``
    the parallel senders' smoothed RTT averaged over the measured span, ``cross_rtt_s`` the
    cross traffic's. ``packets`` counts every bottleneck arrival of the run (the speed
    measure). ``trace`` holds the first parallel sender's ``cwnd`` and ``ssthresh`` (NaN
    before its first loss) at the times asked for (columns time, cwnd, ssthresh).
    """

    parallel_bytes_per_s: float
    cross_bytes_per_s: float
    loss_rate: float
    cross_loss_rate: float
    rtt_s: float
    timeouts: int
    fast_retransmits: int
    packets: int
    wall_s: float
    connections: pd.DataFrame  # one row per connection: group, goodput and loss counters
    links: pd.DataFrame  # one row per link: arrivals, drops, goodput carried
    setup: PacketSetup | None = field(default=None, repr=False)
    cross_rtt_s: float = math.nan
    trace: pd.DataFrame | None = field(default=None, repr=False)

    def summary(self) -> dict[str, Any]:
        """The numbers of the ``tcplab lu`` command."""
        return {
            "parallel_bytes_per_s": self.parallel_bytes_per_s,
            "cross_bytes_per_s": self.cross_bytes_per_s,
            "loss_rate": self.loss_rate,
            "cross_loss_rate": self.cross_loss_rate,
            "rtt_s": self.rtt_s,
            "timeouts": self.timeouts,
            "fast_retransmits": self.fast_retransmits,
            "packets": self.packets,
            "wall_s": self.wall_s,
        }


def simulate_qiu(
    setup: PacketSetup, measure_from: float | None = None, times: Sequence[float] = ()
) -> QiuResult:
    """Run ``setup`` (its topology a :class:`QiuTopology`) to ``setup.length.duration``.

    The measured span starts at the parallel connections' start; ``setup.length.warmup``
    must equal it, so that the set-up says once what is measured. ``measure_from`` (seconds,
    in ``[parallel_start, duration)``) measures goodput, loss rates and RTTs from that later
    time instead; ``times`` (seconds, in the same range) are when the first parallel sender's
    window is read into ``trace``. Randomness: the cross traffic's start times from the
    set-up's ``start`` stream, the bottleneck discipline's from its ``queue`` and ``loss``
    streams, the access jitter from ``overhead``.
    """
    from .setup import streams

    top = setup.topology
    if not isinstance(top, QiuTopology):
        raise ValueError(f"topology={type(top).__name__} is not a QiuTopology")
    if not isinstance(setup.tcp, TcpConfig):
        raise ValueError("tcp must be one TcpConfig for Qiu's topology (both groups use it)")
    duration, warmup = setup.length.duration, setup.length.warmup
    if not math.isclose(warmup, top.parallel_start):
        raise ValueError(
            f"warmup={warmup:g} must equal parallel_start={top.parallel_start:g}: the run is "
            "measured over the parallel connections' lifetime"
        )
    start = warmup if measure_from is None else float(measure_from)
    if not top.parallel_start <= start < duration:
        raise ValueError(
            f"measure_from={measure_from!r} must be in [{top.parallel_start:g}, {duration:g})"
        )
    wanted = sorted(float(t) for t in times)
    if wanted and not (top.parallel_start <= wanted[0] and wanted[-1] < duration):
        raise ValueError(f"times must lie in [{top.parallel_start:g}, {duration:g})")
    config = setup.tcp
    rng = streams(setup.seed)
    net = Network(seed=setup.seed)
    packet_time = config.packet_bytes * 8.0 / (top.rate_mbps * 1e6)
    inner = setup.queue.build(rng.queue, rng.loss, packet_time)
    counter = GroupCounter(inner, first=top.cross)
    jitter = top.overhead_ms
    cross_access, parallel_access = top.access_delays()
    links = (
        ("L1", top.access_mbps, cross_access, jitter),
        ("L2", top.access_mbps, parallel_access, jitter),
        ("L4", top.egress_mbps, top.egress_delay_ms, 0.0),
        ("L5", top.egress_mbps, top.egress_delay_ms, 0.0),
    )
    net.add_link("L3", top.rate_mbps, top.delay_ms, counter)
    for name, rate, delay, extra in links:
        net.add_link(name, rate, delay, DropTail(top.node_buffer), jitter_ms=extra)
    starts = rng.start.uniform(0.0, top.cross_start, top.cross)
    cross = [
        net.add_connection([["L1", "L3", "L4"]], config, name=f"cross{i}", start=float(begin))
        for i, begin in enumerate(starts)
    ]
    parallel = [
        net.add_connection(
            [["L2", "L3", "L5"]], config, name=f"parallel{i}", start=top.parallel_start
        )
        for i in range(top.flows)
    ]
    call_at(net.env, start, counter.reset, None)
    reads: dict[str, list[float]] = {"parallel": [], "cross": []}
    senders = {"parallel": [c.senders[0] for c in parallel], "cross": [c.senders[0] for c in cross]}

    def read_rtt(_event: Call) -> None:
        for group, group_senders in senders.items():
            samples = [s.srtt for s in group_senders if s.srtt is not None]
            if samples:
                reads[group].append(sum(samples) / len(samples))
        if net.env.now + RTT_READ_S < duration:
            net.env.schedule(Call(read_rtt, None), NORMAL, RTT_READ_S)

    call_at(net.env, start + RTT_READ_S, read_rtt, None)
    windows: list[tuple[float, float, float]] = []
    first = senders["parallel"][0]

    def read_window(_event: Call) -> None:
        threshold = first.ssthresh if math.isfinite(first.ssthresh) else math.nan
        windows.append((net.env.now, float(first.cwnd), float(threshold)))

    for t in wanted:
        call_at(net.env, t, read_window, None)
    out = net.run(duration, start)
    table = out.connections.copy()
    table["group"] = np.where(table["connection"].str.startswith("parallel"), "parallel", "cross")
    table["bytes_per_s"] = table["goodput_mbps"] * 1e6 / 8.0
    by_group = table.groupby("group")
    totals = by_group["bytes_per_s"].sum()
    mine = table[table["group"] == "parallel"]
    return QiuResult(
        parallel_bytes_per_s=float(totals.get("parallel", 0.0)),
        cross_bytes_per_s=float(totals.get("cross", 0.0)),
        loss_rate=counter.loss_rate(1),
        cross_loss_rate=counter.loss_rate(0),
        rtt_s=float(np.mean(reads["parallel"])) if reads["parallel"] else math.nan,
        timeouts=int(mine["timeouts"].sum()),
        fast_retransmits=int(mine["fast_retransmits"].sum()),
        packets=net.links["L3"].arrivals,
        wall_s=out.wall_s,
        connections=table,
        links=out.links,
        setup=setup,
        cross_rtt_s=float(np.mean(reads["cross"])) if reads["cross"] else math.nan,
        trace=pd.DataFrame(windows, columns=["time", "cwnd", "ssthresh"]),
    )
