"""Finite transfers on the packet model: N connections that each carry a given number of bytes
and close, started together over one path, as in Lee et al.'s measurements (their Fig. 1).

A transfer of ``n`` bytes is ``ceil(n / packet_bytes)`` packets (the last one carries the
remainder); its sender (:class:`TransferSender`, a :class:`~tcplab.packet.TcpSender` with
``TcpConfig.packets`` set) starts in slow start from the initial window, sends no new data once
the last packet is out, and records ``completed_at``, the time the last packet is acknowledged.
A receiver window is ``TcpConfig.max_window`` (at most that many packets in flight); a
per-connection shaper is a rate-limited access link of the connection's own. The transfers'
TCP is NewReno unless the path says ``tcp="sack"`` (RFC 2018/6675 selective acknowledgements,
:mod:`tcplab.packet.sack`; such transfers record no progress trace).

The path (:class:`PathModel`): every transfer crosses its own access link (the shaper, or a
pure delay line), then one shared bottleneck (rate, DropTail buffer, one-way delay of half the
RTT; ACKs return over an uncongested line; a what-if may give it another discipline). Cross
traffic is fresh in every repetition: a random number of connections, each with a random extra
RTT and a random start in the warm-up before the transfers begin; they are greedy, or
window-limited when the path gives them a receiver window. :func:`run_repetition` runs one
repetition until the last transfer completes (or a time limit: a transfer still running then
is *failed*, as the paper's failed runs).

What the shipped path models lack, a repetition can add (:class:`Knobs`, the defaults change
nothing): the sender's ``initial_window`` (packets; Linux used 3, RFC 3390, then 10 from
2.6.39) and the receivers' ``delayed_ack_ms`` (Linux acknowledges every second packet, at the
latest after 40 ms); ``sliver_mbps``, one shaper that all the transfers cross together before
the bottleneck (PlanetLab limits a slice's traffic, all of a sliver's connections at once),
with ``sliver_buffer`` packets of DropTail; per-repetition path draws, as a real path changes
between repetitions five minutes apart: ``greedy_mean``, the mean of a Poisson number of greedy
cross connections besides the path's own cross traffic, and ``rtt_spread_ms``, the base RTT
drawn uniformly within that many milliseconds of the nominal one. With knobs a repetition also
measures each transfer's time in its initial slow start (``slowstart_s``: from its start to
its first loss response, or to the moment its window reaches the receiver's window, or to its
completion if neither came first) and the drops at the transfers' own shapers
(``shaper_drops``). The knobs' draws come from a fourth random stream of the repetition's
seed, so the three streams of the shipped repetition are untouched. A what-if may also give
the bottleneck another discipline (``bottleneck``, :mod:`tcplab.chapters.lee.fair`).
"""

from __future__ import annotations

import math
from array import array
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from tcplab.checks import check_choice, check_int, check_range
from tcplab.packet import VARIANTS, DropTail, Network, TcpConfig, TcpSender
from tcplab.packet.sack import SackSender
from tcplab.packet.sched import Call, call_at

__all__ = [
    "PATHS",
    "Knobs",
    "PathModel",
    "Repetition",
    "SlowStartSackSender",
    "SlowStartSender",
    "TransferSender",
    "packets_for",
    "run_repetition",
    "transfer_config",
]

PACKET_BYTES = 1500  # bytes per packet on the wire, all of it counted as data


class TransferSender(TcpSender):
    """A finite-transfer sender that also records when it started and, with ``trace=True``,
    its progress: the time and the packets acknowledged at every ACK that acknowledges new
    data."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if self.config.packets is None:
            raise ValueError("TransferSender needs TcpConfig.packets (a finite transfer)")
        self.started_at: float | None = None
        self.progress_time = array("d")
        self.progress_packets = array("q")

    def start(self) -> None:
        self.started_at = self.env.now
        if self.trace:
            self.progress_time.append(self.env.now)
            self.progress_packets.append(0)
        super().start()

    def on_ack(self, event: Call) -> None:
        before = self.snd_una
        super().on_ack(event)
        if self.trace and self.snd_una > before:
            self.progress_time.append(self.env.now)
            self.progress_packets.append(self.snd_una)


def packets_for(nbytes: float, packet_bytes: int = PACKET_BYTES) -> int:
    """The packets of a transfer of ``nbytes`` bytes: ``ceil(nbytes / packet_bytes)``."""
    nbytes = check_range("bytes", nbytes, 1.0)
    if nbytes != int(nbytes):
        raise ValueError(f"bytes={nbytes!r} must be a whole number of bytes")
    return math.ceil(int(nbytes) / check_int("packet_bytes", packet_bytes, 1))


def delivered_bytes(packets: int, nbytes: int, packet_bytes: int = PACKET_BYTES) -> int:
    """Bytes in the first ``packets`` packets of a transfer of ``nbytes`` (the last packet of
    a transfer carries only the remainder)."""
    return min(packets * packet_bytes, nbytes)


def transfer_config(
    nbytes: float,
    *,
    max_window: int = 20_000,
    initial_window: int = 1,
    variant: str = "newreno",
    packet_bytes: int = PACKET_BYTES,
) -> TcpConfig:
    """The TcpConfig of one transfer of ``nbytes`` bytes with receiver window ``max_window``
    packets."""
    return TcpConfig(
        variant,
        packet_bytes=packet_bytes,
        max_window=max_window,
        initial_window=initial_window,
        packets=packets_for(nbytes, packet_bytes),
    )


@dataclass(frozen=True)
class PathModel:
    """An emulated path: the bottleneck (``bottleneck_mbps``, ``buffer`` packets of
    DropTail), each transfer's receiver window ``max_window`` (packets) and shaper
    ``shaper_mbps`` (None: none), and the cross traffic: ``cross`` = (fewest, most)
    connections, each adding an RTT uniform in ``cross_extra_ms`` to the path's, with receiver
    window ``cross_window`` packets, started uniformly in the ``warmup`` seconds before the
    transfers. ``tcp`` is the transfers' TCP variant (the cross traffic's is NewReno)."""

    name: str
    bottleneck_mbps: float
    buffer: int
    max_window: int = 20_000
    shaper_mbps: float | None = None
    shaper_buffer: int = 50
    cross: tuple[int, int] = (0, 0)
    cross_extra_ms: tuple[float, float] = (0.0, 60.0)
    cross_window: int = 20_000
    warmup: float = 2.0
    start_jitter_ms: float = 1.0
    tcp: str = "newreno"

    def __post_init__(self) -> None:
        check_range("bottleneck_mbps", self.bottleneck_mbps, 0.0, low_open=True)
        check_int("buffer", self.buffer, 1)
        check_int("max_window", self.max_window, 1)
        if self.shaper_mbps is not None:
            check_range("shaper_mbps", self.shaper_mbps, 0.0, low_open=True)
        check_int("shaper_buffer", self.shaper_buffer, 1)
        check_int("cross[0]", self.cross[0], 0)
        check_int("cross[1]", self.cross[1], self.cross[0])
        check_range("cross_extra_ms[0]", self.cross_extra_ms[0], 0.0)
        check_range("cross_extra_ms[1]", self.cross_extra_ms[1], self.cross_extra_ms[0])
        check_int("cross_window", self.cross_window, 1)
        check_range("warmup", self.warmup, 0.0)
        check_range("start_jitter_ms", self.start_jitter_ms, 0.0)
        check_choice("tcp", self.tcp, VARIANTS)

    @property
    def capacity_bytes_per_s(self) -> float:
        return self.bottleneck_mbps * 1e6 / 8.0


#: the chapter's three path models (see the chapter for why these numbers)
PATHS: dict[str, PathModel] = {
    # (a) a shared bottleneck with greedy cross traffic: the aggregate saturates early
    "shared": PathModel("shared", 100.0, 200, cross=(2, 8)),
    # (b) each transfer limited by a 24 KB receiver window (16 packets): linear growth
    "window": PathModel("window", 200.0, 400, max_window=16, cross=(0, 10), cross_window=16),
    # (c) each transfer behind its own 5 Mb/s shaper: linear growth, then the bottleneck
    "shaped": PathModel("shaped", 200.0, 400, shaper_mbps=5.0, cross=(0, 10), cross_window=16),
}


def path_model(name: str, **changes: Any) -> PathModel:
    """The chapter's path model ``name`` (shared, window or shaped), with ``changes``."""
    check_choice("path", name, PATHS)
    return replace(PATHS[name], **changes) if changes else PATHS[name]


@dataclass(frozen=True)
class Repetition:
    """One repetition: ``flows`` transfers of ``nbytes`` over ``path`` at ``rtt_ms``."""

    path: PathModel
    flows: int
    nbytes: int
    rtt_ms: float
    seed: int
    time_limit: float = 120.0
    trace: bool = False

    def __post_init__(self) -> None:
        check_int("flows", self.flows, 1)
        packets_for(self.nbytes)
        check_range("rtt_ms", self.rtt_ms, 0.0, low_open=True)
        check_int("seed", self.seed, 0)
        check_range("time_limit", self.time_limit, 0.0, low_open=True)
        if self.trace and self.path.tcp == "sack":
            raise ValueError("trace=True needs a NewReno-family transfer, not tcp='sack'")


@dataclass(frozen=True)
class Knobs:
    """What a repetition changes beyond its :class:`PathModel` (the defaults change
    nothing; see the module's docstring)."""

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


def run_repetition(
    rep: Repetition,
    knobs: Knobs | None = None,
    bottleneck: Callable[[int], Any] = DropTail,
) -> dict[str, Any]:
    """Run one repetition. Returns per-transfer arrays (``completion_s``: seconds from the
    common start to the last ACK, NaN for a failed transfer; ``bytes``: bytes delivered in
    order; ``timeouts``, ``fast_retransmits``, ``start_s``), the ``cross`` connections drawn,
    the bottleneck ``drops``, the run's ``end_s`` and, with ``trace``, each transfer's
    progress. With ``knobs`` (:class:`Knobs`), also ``slowstart_s`` (per transfer),
    ``shaper_drops``, ``greedy`` (the greedy cross connections drawn) and ``rtt_drawn_ms``.

    ``bottleneck`` makes the bottleneck's discipline from the path's buffer (default
    DropTail); a discipline with a ``link`` attribute is given the link it guards."""
    path, k = rep.path, knobs or Knobs()
    starts, extra, cross, drawn = np.random.SeedSequence(rep.seed).spawn(4)
    rng_cross = np.random.default_rng(cross)
    rng_drawn = np.random.default_rng(drawn)
    rtt_ms = rep.rtt_ms
    if k.rtt_spread_ms > 0:
        rtt_ms = float(rng_drawn.uniform(rtt_ms - k.rtt_spread_ms, rtt_ms + k.rtt_spread_ms))
    n_greedy = int(rng_drawn.poisson(k.greedy_mean)) if k.greedy_mean > 0 else 0
    net = Network(seed=rep.seed)
    queue = bottleneck(path.buffer)
    link = net.add_link("bottleneck", path.bottleneck_mbps, rtt_ms / 2.0, queue)
    if hasattr(queue, "link"):
        queue.link = link
    first = ["bottleneck"]
    if k.sliver_mbps is not None:
        net.add_link("sliver", k.sliver_mbps, 0.0, DropTail(k.sliver_buffer))
        first = ["sliver", "bottleneck"]
    config = transfer_config(
        rep.nbytes, max_window=path.max_window, variant=path.tcp,
        initial_window=min(k.initial_window, path.max_window),
    )  # fmt: skip
    # the network gives a SACK connection its own endpoints: a custom class must be a SACK one
    kind: type[TcpSender] = TcpSender if path.tcp == "sack" else TransferSender
    if knobs is not None:  # the senders that also clock their initial slow start
        kind = SlowStartSackSender if path.tcp == "sack" else SlowStartSender
    delack = None if k.delayed_ack_ms is None else k.delayed_ack_ms / 1e3
    begin = path.warmup
    jitter = np.random.default_rng(starts).uniform(0.0, path.start_jitter_ms / 1e3, rep.flows)
    senders: list[Any] = []
    receivers = []
    for i in range(rep.flows):
        shaper = DropTail(path.shaper_buffer) if path.shaper_mbps is not None else None
        net.add_link(f"up{i}", path.shaper_mbps, 0.0, shaper)
        conn = net.add_connection(
            [[f"up{i}", *first]], config, name=f"t{i}", start=begin + float(jitter[i]),
            trace=rep.trace, sender=kind, delayed_ack=delack,
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
    started = np.array([  # a plain SACK sender does not record its start: the scheduled one
        float(s.started_at or 0.0) if isinstance(s, TransferSender | _SlowStartClock)
        else begin + float(jitter[i])
        for i, s in enumerate(senders)
    ])  # fmt: skip
    row: dict[str, Any] = {
        "completion_s": completion,
        "bytes": np.array([delivered_bytes(r.delivered, rep.nbytes) for r in receivers]),
        "timeouts": np.array([s.timeouts for s in senders]),
        "fast_retransmits": np.array([s.fast_retransmits for s in senders]),
        "start_s": started - begin,
        "cross": n_cross,
        "drops": link.drops,
        "end_s": env.now - begin,
    }
    if knobs is not None:
        ends = [s.slowstart_end if s.slowstart_end is not None else s.completed_at for s in senders]
        row["slowstart_s"] = np.array(
            [math.nan if e is None else e - s for e, s in zip(ends, started, strict=True)]
        )
        shaper_drops = sum(net.links[f"up{i}"].drops for i in range(rep.flows))
        if k.sliver_mbps is not None:
            shaper_drops += net.links["sliver"].drops
        row.update(greedy=n_greedy, rtt_drawn_ms=rtt_ms, shaper_drops=shaper_drops)
    if rep.trace:
        row["progress"] = [
            (np.asarray(s.progress_time) - begin, np.asarray(s.progress_packets))
            for s in senders
            if isinstance(s, TransferSender)
        ]
    return row
