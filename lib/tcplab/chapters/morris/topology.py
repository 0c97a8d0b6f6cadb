"""Morris's set-up (his Figures 1 and 2) on the packet model, and what one run records.

N greedy senders, each behind its own access link L_i of (10/N) x 10 Mb/s and a one-way delay
drawn uniformly in [0, 50] ms, share router A's queue into link L (10 Mb/s, 25 ms) towards N
receivers, which acknowledge every other packet. The receivers hang directly off L (the paper
gives no receiver-side links; its average one-way delay of 50 ms leaves none), unless
``receiver_links`` gives each one a link like its sender's with no delay. Five telnet-like
sessions (:class:`~tcplab.packet.interactive.InteractiveSender`: one packet written at
exponential gaps of mean ``telnet_gap_s``) share the queue, each on its own access link like
the others. Sender i starts at a uniform time in the first ``start_fraction`` of the run.

:class:`MorrisTopology` is a topology for :class:`~tcplab.packet.PacketSetup` (it has
``flows`` and ``run(setup)``); the senders log every loss response
(:mod:`tcplab.packet.probes`), and a :class:`~tcplab.packet.remedies.RemedyConfig` brings
Morris's remedies (:mod:`tcplab.packet.remedies`).
A run returns a :class:`MorrisRun`: counters, every drop and every loss response, and each
flow's delivered packets, window and smoothed RTT read once a second from t = 0.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from tcplab.checks import check_int, check_range
from tcplab.packet import Network, PacketSetup, TcpConfig, TcpSender
from tcplab.packet.interactive import InteractiveSender
from tcplab.packet.link import Link
from tcplab.packet.probes import DropLog, LossRecorder
from tcplab.packet.queues import RED
from tcplab.packet.remedies import RemedySender
from tcplab.packet.sack import SackSender
from tcplab.packet.sched import Call, call_at

from .queue import capped

__all__ = [
    "MorrisSender",
    "RemedyMorrisSender",
    "SackMorrisSender",
    "SackInteractiveSender",
    "sender_class",
    "MorrisTopology",
    "MorrisRun",
    "run_morris",
    "STREAMS",
]

#: the run's random streams, in the order ``SeedSequence(seed).spawn`` makes them
STREAMS = ("start", "delay", "queue", "overhead", "telnet", "loss")


class MorrisSender(LossRecorder, TcpSender):
    """A standard sender that logs every loss response."""


class RemedyMorrisSender(LossRecorder, RemedySender):
    """A sender with Morris's remedies (its config is a RemedyConfig) that logs every loss
    response."""


class SackMorrisSender(LossRecorder, SackSender):
    """A SACK sender (RFC 6675 recovery) that logs every loss response."""


class SackInteractiveSender(InteractiveSender, SackSender):
    """A telnet-like session whose TCP is SACK, for runs whose greedy flows use SACK."""


def sender_class(config: TcpConfig) -> type[TcpSender]:
    """:class:`RemedyMorrisSender` when ``config`` switches a remedy on,
    :class:`SackMorrisSender` for variant "sack", else :class:`MorrisSender` (which pays
    nothing for the remedies' hooks)."""
    if getattr(config, "remedies", ()):
        return RemedyMorrisSender
    return SackMorrisSender if config.variant == "sack" else MorrisSender


@dataclass(frozen=True)
class MorrisTopology:
    """Morris's dumbbell (see the module docstring). ``access_ratio`` is the access links'
    total capacity over the bottleneck's (10: each L_i has ten fair shares); access delays
    are uniform on [0, ``access_delay_ms``]; ``overhead_ms`` adds U(0, x) to each packet's
    transmission on its access link (ns-2's ``overhead_``; 0 = none, as in the paper);
    ``red_forced=False`` swaps RED for :class:`~tcplab.chapters.morris.queue.CappedRED`
    (a what-if: no forced drops above RED's maximum threshold)."""

    flows: int = 30
    rate_mbps: float = 10.0
    delay_ms: float = 25.0
    access_ratio: float = 10.0
    access_delay_ms: float = 50.0
    start_fraction: float = 0.05
    telnet: int = 5
    telnet_gap_s: float = 1.0
    overhead_ms: float = 0.0
    receiver_links: bool = False
    red_forced: bool = True
    sample_s: float = 1.0

    def __post_init__(self) -> None:
        checked = {
            "flows": check_int("flows", self.flows, 1, 100_000),
            "rate_mbps": check_range("rate_mbps", self.rate_mbps, 0.0, low_open=True),
            "delay_ms": check_range("delay_ms", self.delay_ms, 0.0),
            "access_ratio": check_range("access_ratio", self.access_ratio, 0.0, low_open=True),
            "access_delay_ms": check_range("access_delay_ms", self.access_delay_ms, 0.0),
            "start_fraction": check_range("start_fraction", self.start_fraction, 0.0, 1.0),
            "telnet": check_int("telnet", self.telnet, 0, 1000),
            "telnet_gap_s": check_range("telnet_gap_s", self.telnet_gap_s, 0.0, low_open=True),
            "overhead_ms": check_range("overhead_ms", self.overhead_ms, 0.0),
            "sample_s": check_range("sample_s", self.sample_s, 0.0, low_open=True),
        }
        for name, value in checked.items():
            object.__setattr__(self, name, value)

    @property
    def access_mbps(self) -> float:
        """Each access link's rate: ``access_ratio`` fair shares of the bottleneck."""
        return self.access_ratio * self.rate_mbps / self.flows

    def run(self, setup: PacketSetup) -> MorrisRun:
        return _simulate(self, setup)


def run_morris(setup: PacketSetup) -> MorrisRun:
    """Run a set-up whose topology is a :class:`MorrisTopology`."""
    top: Any = setup.topology  # PacketSetup names the dumbbell; any topology runs (setup.py)
    if not isinstance(top, MorrisTopology):
        raise ValueError(f"topology={type(top).__name__} is not a MorrisTopology")
    return top.run(setup)


@dataclass(frozen=True, eq=False)
class MorrisRun:
    """One run of :class:`MorrisTopology`, flows 0..N-1 greedy, N.. the telnet sessions.

    ``arrivals``/``drops`` are the bottleneck's after the warm-up, ``packets`` all its
    arrivals; ``flow_table`` has each connection's counters after the warm-up (``delivered``
    distinct packets, ``sent``, ``retransmits``, ``timeouts``, ``fast_retransmits``);
    ``ticks`` are the sampling times (0, 1, 2, ... s) and ``unique``, ``cwnd``, ``srtt``
    (ticks x N) each greedy flow's distinct packets received so far, window and smoothed RTT
    (NaN before its first sample) at each tick; ``drop_time``/``drop_flow`` every drop and
    ``losses`` every loss response of the greedy flows (:class:`MorrisSender`'s log, with a
    ``flow`` column), warm-up included.
    """

    setup: PacketSetup
    arrivals: int
    drops: int
    packets: int
    wall_s: float
    flow_table: pd.DataFrame
    ticks: np.ndarray
    unique: np.ndarray
    cwnd: np.ndarray
    srtt: np.ndarray
    drop_time: np.ndarray
    drop_flow: np.ndarray
    losses: pd.DataFrame
    access_delay_s: np.ndarray
    queue_counters: dict[str, int] = field(default_factory=dict)

    @property
    def topology(self) -> MorrisTopology:
        top: Any = self.setup.topology
        assert isinstance(top, MorrisTopology)
        return top

    @property
    def flows(self) -> int:
        return self.topology.flows


class _Sampler:
    """Reads every greedy flow's delivered packets, window and smoothed RTT at each tick."""

    def __init__(self, net: Network, flows: int, ticks: np.ndarray) -> None:
        self.senders = [s.sender for s in net.subflows[:flows]]
        self.receivers = [s.receiver for s in net.subflows[:flows]]
        self.unique: list[list[int]] = []
        self.cwnd: list[list[float]] = []
        self.srtt: list[list[float]] = []
        for t in ticks:
            call_at(net.env, float(t), self.read, None)

    def read(self, _event: Call | None = None) -> None:
        self.unique.append([r.unique for r in self.receivers])
        self.cwnd.append([s.cwnd for s in self.senders])
        self.srtt.append([np.nan if s.srtt is None else s.srtt for s in self.senders])


def _streams(seed: int) -> dict[str, np.random.Generator]:
    children = np.random.SeedSequence(seed).spawn(len(STREAMS))
    return {name: np.random.default_rng(s) for name, s in zip(STREAMS, children, strict=True)}


def _telnet_config(config: TcpConfig) -> TcpConfig:
    """The sessions' TCP: the greedy flows' variant and timers, none of the remedies."""
    return TcpConfig(
        variant=config.variant,
        packet_bytes=config.packet_bytes,
        max_window=config.max_window,
        granularity=config.granularity,
        min_rto=config.min_rto,
        max_rto=config.max_rto,
        initial_rto=config.initial_rto,
    )


def _simulate(top: MorrisTopology, setup: PacketSetup) -> MorrisRun:
    n, sessions = top.flows, top.telnet
    configs = setup.configs()
    if len(configs) != n:
        raise ValueError(f"tcp has {len(configs)} configurations, expected {n}")
    rng = _streams(setup.seed)
    duration, warmup = setup.length.duration, setup.length.warmup
    total = n + sessions
    delays = rng["delay"].uniform(0.0, top.access_delay_ms / 1e3, total)
    starts = rng["start"].uniform(0.0, top.start_fraction * duration, total)
    queue = setup.queue.build(rng["queue"], rng["loss"], setup.mean_packet_time)
    if not top.red_forced:
        if not isinstance(queue, RED):
            raise ValueError(f"red_forced=False needs a RED queue, not {setup.queue.kind!r}")
        queue = capped(queue)
    discipline = DropLog(queue)
    net = Network()
    env = net.env
    net.attach(Link(env, top.rate_mbps * 1e6, top.delay_ms / 1e3, discipline, name="bottleneck"))
    access = top.access_mbps * 1e6
    overhead = top.overhead_ms / 1e3
    for i in range(total):
        net.attach(
            Link(env, access, float(delays[i]), None, name=f"access{i}", jitter=overhead,
                 rng=rng["overhead"] if overhead else None)
        )  # fmt: skip
        if top.receiver_links:
            net.attach(Link(env, access, 0.0, None, name=f"receiver{i}"))
    telnet_config = _telnet_config(configs[0])
    session_class = SackInteractiveSender if telnet_config.variant == "sack" else InteractiveSender
    delack = setup.delayed_ack
    for i in range(total):
        path = [f"access{i}", "bottleneck"] + ([f"receiver{i}"] if top.receiver_links else [])
        greedy = i < n
        net.add_connection(
            [path], configs[i] if greedy else telnet_config,
            name=f"flow{i}" if greedy else f"telnet{i - n}", start=float(starts[i]),
            delayed_ack=delack,
            sender=sender_class(configs[i]) if greedy else session_class,
        )  # fmt: skip
    for j in range(sessions):
        session = net.subflows[n + j].sender
        assert isinstance(session, InteractiveSender)
        session.type_at(float(starts[n + j]), top.telnet_gap_s, rng["telnet"])
    ticks = np.arange(0.0, duration + 1e-9, top.sample_s)
    sampler = _Sampler(net, n, ticks[ticks < duration])
    out = net.run(duration, warmup)
    sampler.read()  # the last tick, at the end of the run (simpy stops before it)
    return _collect(top, setup, net, out, sampler, ticks, discipline, delays[:n])


def _collect(
    top: MorrisTopology,
    setup: PacketSetup,
    net: Network,
    out: Any,
    sampler: _Sampler,
    ticks: np.ndarray,
    discipline: DropLog,
    delays: np.ndarray,
) -> MorrisRun:
    from tcplab.packet.dumbbell import queue_counters

    n = top.flows
    link = out.links.set_index("link").loc["bottleneck"]
    logs = []
    for sub in net.subflows[:n]:
        sender = sub.sender
        assert isinstance(sender, LossRecorder)
        logs.append(sender.losses())
    sizes = [len(log["time"]) for log in logs]
    losses = pd.DataFrame(
        {
            "flow": np.repeat(np.arange(n), sizes),
            **{key: np.concatenate([log[key] for log in logs]) for key in logs[0]},
        }
    )
    drops = discipline.drops()
    table = out.subflows[["connection", "flow", "delivered", "sent", "retransmits", "timeouts",
                          "fast_retransmits"]]  # fmt: skip
    return MorrisRun(
        setup=setup,
        arrivals=int(link["arrivals"]),
        drops=int(link["drops"]),
        packets=net.links["bottleneck"].arrivals,
        wall_s=out.wall_s,
        flow_table=table.reset_index(drop=True),
        ticks=ticks[: len(sampler.unique)],
        unique=np.array(sampler.unique, dtype=np.int64).reshape(-1, n),
        cwnd=np.array(sampler.cwnd, dtype=float).reshape(-1, n),
        srtt=np.array(sampler.srtt, dtype=float).reshape(-1, n),
        drop_time=drops["time"],
        drop_flow=drops["flow"],
        losses=losses,
        access_delay_s=np.asarray(delays, dtype=float),
        queue_counters=queue_counters(discipline),
    )
