"""One repetition of Lee et al.'s measurement with the knobs the shipped path models lack.

:func:`run_rig` is :func:`tcplab.chapters.lee.transfer.run_repetition` (same network, same
random streams: with the default :class:`Knobs` it gives the same transfers, checked by
``tests/test_lee_rig.py``) plus:

* the sender's ``initial_window`` (packets; Linux used 3, RFC 3390, then 10 from 2.6.39) and
  the receivers' ``delayed_ack_ms`` (Linux acknowledges every second packet, at the latest
  after 40 ms);
* ``sliver_mbps``: one shaper that all the transfers cross together before the bottleneck
  (PlanetLab limits a slice's traffic, all of a sliver's connections at once, not each
  connection), with ``sliver_buffer`` packets of DropTail;
* per-repetition path draws, as a real path changes between repetitions five minutes apart:
  ``greedy_mean``, the mean of a Poisson number of greedy cross connections (no receiver
  window) besides the path's own cross traffic, and ``rtt_spread_ms``, the base RTT drawn
  uniformly within that many milliseconds of the nominal one;
* what it measures besides: each transfer's time in its initial slow start
  (``slowstart_s``: from its start to its first loss response, or to the moment its window
  reaches the receiver's window, or to its completion if neither came first) and the drops at
  the transfers' own shapers (``shaper_drops``, the repetition's total).

The extra draws come from a fourth random stream of the repetition's seed, so the three
streams of :func:`~tcplab.chapters.lee.transfer.run_repetition` are untouched.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from tcplab.checks import check_range
from tcplab.packet import DropTail, Network, TcpConfig, TcpSender
from tcplab.packet.sack import SackSender
from tcplab.packet.sched import Call, call_at

from .transfer import PACKET_BYTES, Repetition, TransferSender, delivered_bytes, transfer_config

__all__ = ["Knobs", "run_rig", "SlowStartSender", "SlowStartSackSender"]


@dataclass(frozen=True)
class Knobs:
    """What a repetition changes beyond its :class:`~tcplab.chapters.lee.transfer.PathModel`
    (the defaults change nothing)."""

    initial_window: int = 1
    delayed_ack_ms: float | None = None
    sliver_mbps: float | None = None
    sliver_buffer: int = 400
    greedy_mean: float = 0.0
    rtt_spread_ms: float = 0.0

    def __post_init__(self) -> None:
        check_range("initial_window", self.initial_window, 1.0)
        if self.delayed_ack_ms is not None:
            check_range("delayed_ack_ms", self.delayed_ack_ms, 0.0, low_open=True)
        if self.sliver_mbps is not None:
            check_range("sliver_mbps", self.sliver_mbps, 0.0, low_open=True)
        check_range("sliver_buffer", self.sliver_buffer, 1.0)
        check_range("greedy_mean", self.greedy_mean, 0.0)
        check_range("rtt_spread_ms", self.rtt_spread_ms, 0.0)


class _SlowStartClock:
    """Records ``slowstart_end``: the first loss response (``_cut``) or the first time the
    window reaches the receiver's window, whichever comes first."""

    env: Any
    cwnd: float
    config: TcpConfig
    slowstart_end: float | None = None
    started_at: float | None = None

    def start(self) -> None:
        self.started_at = self.env.now
        super().start()  # type: ignore[misc]

    def _cut(self) -> None:
        if self.slowstart_end is None:
            self.slowstart_end = self.env.now
        super()._cut()  # type: ignore[misc]

    def on_ack(self, event: Call) -> None:
        super().on_ack(event)  # type: ignore[misc]
        if self.slowstart_end is None and self.cwnd >= self.config.max_window:
            self.slowstart_end = self.env.now


class SlowStartSender(_SlowStartClock, TransferSender):
    """A NewReno-family transfer that records the end of its initial slow start."""


class SlowStartSackSender(_SlowStartClock, SackSender):
    """A SACK transfer that records the end of its initial slow start."""


def run_rig(rep: Repetition, knobs: Knobs = Knobs()) -> dict[str, Any]:  # noqa: B008 (frozen)
    """Run one repetition with ``knobs``. Returns what
    :func:`~tcplab.chapters.lee.transfer.run_repetition` returns (without progress traces)
    and ``slowstart_s`` (per transfer), ``shaper_drops``, ``greedy`` (the greedy cross
    connections drawn) and ``rtt_ms`` (the base RTT drawn)."""
    path = rep.path
    starts, extra, cross, drawn = np.random.SeedSequence(rep.seed).spawn(4)
    rng_cross = np.random.default_rng(cross)
    rng_drawn = np.random.default_rng(drawn)
    rtt_ms = rep.rtt_ms
    if knobs.rtt_spread_ms > 0:
        rtt_ms = float(
            rng_drawn.uniform(rtt_ms - knobs.rtt_spread_ms, rtt_ms + knobs.rtt_spread_ms)
        )
    n_greedy = int(rng_drawn.poisson(knobs.greedy_mean)) if knobs.greedy_mean > 0 else 0
    net = Network(seed=rep.seed)
    net.add_link("bottleneck", path.bottleneck_mbps, rtt_ms / 2.0, DropTail(path.buffer))
    first = ["bottleneck"]
    if knobs.sliver_mbps is not None:
        net.add_link("sliver", knobs.sliver_mbps, 0.0, DropTail(knobs.sliver_buffer))
        first = ["sliver", "bottleneck"]
    config = transfer_config(
        rep.nbytes, max_window=path.max_window, variant=path.tcp,
        initial_window=min(knobs.initial_window, path.max_window),
    )  # fmt: skip
    kind: type[TcpSender] = SlowStartSackSender if path.tcp == "sack" else SlowStartSender
    delack = None if knobs.delayed_ack_ms is None else knobs.delayed_ack_ms / 1e3
    begin = path.warmup
    jitter = np.random.default_rng(starts).uniform(0.0, path.start_jitter_ms / 1e3, rep.flows)
    senders: list[Any] = []
    receivers = []
    for i in range(rep.flows):
        queue = DropTail(path.shaper_buffer) if path.shaper_mbps is not None else None
        net.add_link(f"up{i}", path.shaper_mbps, 0.0, queue)
        conn = net.add_connection(
            [[f"up{i}", *first]], config, name=f"t{i}", start=begin + float(jitter[i]),
            sender=kind, delayed_ack=delack,
        )  # fmt: skip
        senders.append(conn.senders[0])
        receivers.append(conn.receivers[0])
    n_cross = int(rng_cross.integers(path.cross[0], path.cross[1] + 1))
    cross_rtt = np.random.default_rng(extra).uniform(*path.cross_extra_ms, n_cross)
    cross_start = rng_cross.uniform(0.0, max(begin, 1e-9), n_cross)
    windowed = TcpConfig("newreno", packet_bytes=PACKET_BYTES, max_window=path.cross_window)
    for j in range(n_cross):
        net.add_link(f"x{j}", None, float(cross_rtt[j]) / 2.0)
        net.add_connection(
            [[f"x{j}", "bottleneck"]], windowed, name=f"x{j}", start=float(cross_start[j])
        )
    greedy = TcpConfig("newreno", packet_bytes=PACKET_BYTES)
    greedy_rtt = rng_drawn.uniform(*path.cross_extra_ms, n_greedy)
    greedy_start = rng_drawn.uniform(0.0, max(begin, 1e-9), n_greedy)
    for j in range(n_greedy):
        net.add_link(f"g{j}", None, float(greedy_rtt[j]) / 2.0)
        net.add_connection(
            [[f"g{j}", "bottleneck"]], greedy, name=f"g{j}", start=float(greedy_start[j])
        )
    env = net.env
    done = env.event()
    left = [rep.flows]

    def finished(_sender: TcpSender) -> None:
        left[0] -= 1
        if left[0] == 0 and not done.triggered:
            done.succeed()

    def give_up(_event: Call) -> None:
        if not done.triggered:
            done.succeed()

    for sender in senders:
        sender.on_complete = finished
    call_at(env, begin + rep.time_limit, give_up, None)
    env.run(until=done)
    completion = np.array(
        [math.nan if s.completed_at is None else s.completed_at - begin for s in senders]
    )
    started = np.array([float(s.started_at) for s in senders])
    ends = [s.slowstart_end if s.slowstart_end is not None else s.completed_at for s in senders]
    slowstart = np.array(
        [math.nan if e is None else e - s for e, s in zip(ends, started, strict=True)]
    )
    shaper_drops = sum(net.links[f"up{i}"].drops for i in range(rep.flows))
    if knobs.sliver_mbps is not None:
        shaper_drops += net.links["sliver"].drops
    return {
        "completion_s": completion,
        "bytes": np.array([delivered_bytes(r.delivered, rep.nbytes) for r in receivers]),
        "timeouts": np.array([s.timeouts for s in senders]),
        "fast_retransmits": np.array([s.fast_retransmits for s in senders]),
        "start_s": started - begin,
        "slowstart_s": slowstart,
        "cross": n_cross,
        "greedy": n_greedy,
        "rtt_drawn_ms": rtt_ms,
        "drops": net.links["bottleneck"].drops,
        "shaper_drops": shaper_drops,
        "end_s": env.now - begin,
    }
