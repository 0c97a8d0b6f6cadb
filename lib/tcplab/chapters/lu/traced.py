"""One run on Qiu's topology, as :func:`tcplab.packet.qiu.simulate_qiu` makes it, with two
knobs the chapter's what-if runs need: a later start of the measurement, and a trace of one
parallel sender's window and slow-start threshold.

``simulate_qiu`` measures from the parallel connections' start (the paper's "lifetime"); to
ask what a connection does *after* its start-up transient, :func:`simulate_traced` measures
goodput, loss rates and RTT from ``measure_from`` on instead. It builds the network exactly as
``simulate_qiu`` does (the same links, connections, order and random streams; the trace and
the later measurement only read the state), so with ``measure_from`` at the parallel start its
numbers are ``simulate_qiu``'s, to the bit (``tests/test_lu_whatif.py`` checks it). The
shared model module is not touched: this file is the chapter's own.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from tcplab.packet import PacketSetup, TcpConfig
from tcplab.packet.network import Network
from tcplab.packet.qiu import RTT_READ_S, GroupCounter, QiuTopology
from tcplab.packet.queues import DropTail
from tcplab.packet.sched import NORMAL, Call, call_at
from tcplab.packet.setup import streams

__all__ = ["Traced", "simulate_traced"]


@dataclass(frozen=True, eq=False)
class Traced:
    """What :func:`simulate_traced` measured over ``[measure_from, duration]`` (the names of
    :class:`~tcplab.packet.qiu.QiuResult`), and ``trace``: the first parallel sender's
    ``cwnd`` and ``ssthresh`` (NaN before its first loss) at the ``times`` asked for."""

    parallel_bytes_per_s: float
    cross_bytes_per_s: float
    loss_rate: float
    cross_loss_rate: float
    rtt_s: float
    timeouts: int
    fast_retransmits: int
    packets: int
    trace: pd.DataFrame

    def summary(self) -> dict[str, float | int]:
        """The numbers of a table row (those of ``QiuResult.summary`` but the wall time)."""
        names = ("parallel_bytes_per_s", "cross_bytes_per_s", "loss_rate", "cross_loss_rate",
                 "rtt_s", "timeouts", "fast_retransmits", "packets")  # fmt: skip
        return {name: getattr(self, name) for name in names}


def simulate_traced(
    setup: PacketSetup,
    measure_from: float | None = None,
    times: Sequence[float] = (),
) -> Traced:
    """Run ``setup`` (a :class:`~tcplab.packet.qiu.QiuTopology` set-up, as
    ``simulate_qiu`` takes it) and measure from ``measure_from`` seconds (default: the
    parallel connections' start) to the end; read the first parallel sender's window at each
    of ``times`` (seconds, after the parallel start)."""
    top = setup.topology
    if not isinstance(top, QiuTopology):
        raise ValueError(f"topology={type(top).__name__} is not a QiuTopology")
    if not isinstance(setup.tcp, TcpConfig):
        raise ValueError("tcp must be one TcpConfig for Qiu's topology (both groups use it)")
    duration = setup.length.duration
    start = top.parallel_start if measure_from is None else float(measure_from)
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
    links = (
        ("L1", top.access_mbps, top.access_delay_ms, jitter),
        ("L2", top.access_mbps, top.access_delay_ms, jitter),
        ("L4", top.egress_mbps, top.egress_delay_ms, 0.0),
        ("L5", top.egress_mbps, top.egress_delay_ms, 0.0),
    )
    net.add_link("L3", top.rate_mbps, top.delay_ms, counter)
    for name, rate, delay, extra in links:
        net.add_link(name, rate, delay, DropTail(top.node_buffer), jitter_ms=extra)
    starts = rng.start.uniform(0.0, top.cross_start, top.cross)
    for i, begin in enumerate(starts):
        net.add_connection([["L1", "L3", "L4"]], config, name=f"cross{i}", start=float(begin))
    parallel = [
        net.add_connection(
            [["L2", "L3", "L5"]], config, name=f"parallel{i}", start=top.parallel_start
        )
        for i in range(top.flows)
    ]
    call_at(net.env, start, counter.reset, None)
    rtt_reads: list[float] = []
    senders = [c.senders[0] for c in parallel]

    def read_rtt(_event: Call) -> None:
        samples = [s.srtt for s in senders if s.srtt is not None]
        if samples:
            rtt_reads.append(sum(samples) / len(samples))
        if net.env.now + RTT_READ_S < duration:
            net.env.schedule(Call(read_rtt, None), NORMAL, RTT_READ_S)

    call_at(net.env, start + RTT_READ_S, read_rtt, None)
    rows: list[tuple[float, float, float]] = []
    first = senders[0]

    def read_window(_event: Call) -> None:
        threshold = first.ssthresh if math.isfinite(first.ssthresh) else math.nan
        rows.append((net.env.now, float(first.cwnd), float(threshold)))

    for t in wanted:
        call_at(net.env, t, read_window, None)
    out = net.run(duration, start)
    table = out.connections.copy()
    table["group"] = np.where(table["connection"].str.startswith("parallel"), "parallel", "cross")
    table["bytes_per_s"] = table["goodput_mbps"] * 1e6 / 8.0
    totals = table.groupby("group")["bytes_per_s"].sum()
    mine = table[table["group"] == "parallel"]
    return Traced(
        parallel_bytes_per_s=float(totals.get("parallel", 0.0)),
        cross_bytes_per_s=float(totals.get("cross", 0.0)),
        loss_rate=counter.loss_rate(1),
        cross_loss_rate=counter.loss_rate(0),
        rtt_s=float(np.mean(rtt_reads)) if rtt_reads else math.nan,
        timeouts=int(mine["timeouts"].sum()),
        fast_retransmits=int(mine["fast_retransmits"].sum()),
        packets=net.links["L3"].arrivals,
        trace=pd.DataFrame(rows, columns=["time", "cwnd", "ssthresh"]),
    )
