"""A general topology: named links, and connections that send over one or more paths.

A path is a list of link names crossed in order. Each path of a connection is a *subflow*:
its own :class:`~tcplab.packet.tcp.TcpSender` and Receiver, its own sequence space and its
own global flow id; its ACKs come back over an uncongested delay line as long as the path's
propagation delay. Subflows are independent (uncoupled) controllers, each with its own
:class:`TcpConfig` (Honda's weight D is AIMD(D^2, 1/2)); a coupled scheme reads and adjusts
``Connection.senders``. Every link forwards a packet to the next hop of the packet's flow:
the network keeps, per link, the handler of each flow crossing it and sets ``Link.dst`` to
that table indexed by flow id (or to the handler itself when there is only one), so a hop
stays one scheduled event and at most one list lookup.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
import simpy

from ..checks import check_int, check_range
from .link import Handler, Link
from .queues import ThresholdDropper
from .sack import endpoints
from .sched import Call, call_at
from .tcp import Receiver, TcpConfig, TcpSender

__all__ = ["Connection", "Network", "NetworkResult", "Subflow"]

_COUNTERS = ("delivered", "sent", "retransmits", "timeouts", "fast_retransmits")


@dataclass(frozen=True, eq=False)
class Subflow:
    """One path of a connection: a sender and a receiver sharing one sequence space."""

    connection: str
    index: int  # position among the connection's subflows
    flow: int  # global flow id: how every link on the path finds the packet's next hop
    path: tuple[str, ...]
    sender: TcpSender
    receiver: Receiver
    ack_path: Link


class Connection:
    """One or more subflows started together; goodput is the sum over subflows."""

    def __init__(self, env: simpy.Environment, name: str, subflows: list[Subflow]) -> None:
        self.env, self.name, self.subflows = env, name, subflows

    @property
    def senders(self) -> list[TcpSender]:
        return [s.sender for s in self.subflows]

    @property
    def receivers(self) -> list[Receiver]:
        return [s.receiver for s in self.subflows]

    @property
    def paths(self) -> list[tuple[str, ...]]:
        return [s.path for s in self.subflows]

    def start(self, at: float) -> None:
        """Start every subflow at simulated time ``at`` (not in the past)."""
        senders = self.senders

        def start_all(_event: Call) -> None:
            for sender in senders:
                sender.start()

        call_at(self.env, check_range("start", at, self.env.now), start_all, None)

    def goodput_packets(self) -> int:
        """Distinct packets received so far, summed over subflows."""
        return sum(r.unique for r in self.receivers)


@dataclass(frozen=True, eq=False)
class NetworkResult:
    """Outcome of :meth:`Network.run`; counters are differences from a snapshot at the
    warm-up time, goodput counts distinct packets received after it (Mb/s). ``intervals``
    has one row per (interval, subflow) when the run sampled them (else it is empty)."""

    until: float
    warmup: float
    wall_s: float
    subflows: pd.DataFrame  # one row per subflow
    connections: pd.DataFrame  # one row per connection: sums over its subflows
    links: pd.DataFrame  # one row per named link
    intervals: pd.DataFrame = field(default_factory=pd.DataFrame)


class Network:
    """Named links and multipath connections on one simpy clock.

    Build the whole topology first (links, then connections over them), then :meth:`run`.
    ``seed`` feeds the only randomness the network adds itself: the jitter of links made
    by :meth:`add_link`.
    """

    def __init__(self, seed: int = 0) -> None:
        self.seed = check_int("seed", seed, 0)
        self._seeds = np.random.SeedSequence(self.seed)
        self.env = simpy.Environment()
        self.links: dict[str, Link] = {}
        self.connections: list[Connection] = []
        self._names: set[str] = set()  # connection names, for a constant-time duplicate check
        self._shared: dict[str, Handler | None] = {}  # link -> the one next hop of all its flows
        self._tables: dict[str, list[Handler | None]] = {}  # link -> the demultiplexer it got
        self.subflows: list[Subflow] = []  # indexed by global flow id
        self._hops: dict[str, dict[int, Handler]] = {}  # link -> flow -> next hop
        self._ran = False
        self._ticks: np.ndarray = np.zeros(0)  # sampling times of the goodput per interval, if any
        self._counts: list[list[int]] = []  # distinct packets per subflow at each tick

    def _check_open(self, name: str, value: str) -> None:
        if self._ran or self.env.now > 0:
            raise ValueError(
                f"{name}={value!r} cannot be added: the network has started running "
                f"(t={self.env.now:g} s); build the whole topology first"
            )

    # -- building -----------------------------------------------------------------------------
    def add_link(
        self,
        name: str,
        rate_mbps: float | None,
        delay_ms: float,
        queue: Any = None,
        *,
        jitter_ms: float = 0.0,
        trace: bool = False,
    ) -> Link:
        """Add link ``name``: ``rate_mbps`` (None: a pure delay line), one-way ``delay_ms``,
        ``queue`` a discipline object (None: unlimited buffer); ``jitter_ms`` adds
        ``U(0, jitter_ms)`` to each transmission (see ``Link.jitter``)."""
        rate = None
        if rate_mbps is not None:
            rate = check_range("rate_mbps", rate_mbps, 0.0, low_open=True) * 1e6
        delay = check_range("delay_ms", delay_ms, 0.0) / 1e3
        jitter = check_range("jitter_ms", jitter_ms, 0.0) / 1e3
        rng = np.random.default_rng(self._seeds.spawn(1)[0]) if jitter else None
        link = Link(self.env, rate, delay, queue, name=name, trace=trace, jitter=jitter, rng=rng)
        return self.attach(link)

    def attach(self, link: Link) -> Link:
        """Add a :class:`Link` built by hand on ``self.env`` (SI units, its own rng), under
        ``link.name``. A ThresholdDropper (possibly inside RandomLoss) without ``rates`` gets
        the rates of the flows crossing this link (see :meth:`rates_on`)."""
        name = link.name
        if not isinstance(name, str) or not name:
            raise ValueError(f"name={name!r} must be a non-empty string")
        self._check_open("name", name)
        if name in self.links:
            raise ValueError(f"name={name!r} is already a link of this network")
        if link.env is not self.env:
            raise ValueError(f"name={name!r}: the link runs on another clock (use Network.env)")
        queue = link.queue
        if queue is not None:
            if not callable(getattr(queue, "admit", None)):
                raise ValueError(f"queue={queue!r} is not a queue discipline (no admit())")
            for other in self.links.values():
                if other.queue is queue:
                    kind = type(queue).__name__
                    raise ValueError(f"queue={kind}(...) is already used by link {other.name!r}")
        self.links[name] = link
        self._hops[name] = {}
        discipline = getattr(queue, "inner", queue)  # see through RandomLoss
        if isinstance(discipline, ThresholdDropper) and discipline.rates is None:
            discipline.rates = self.rates_on(name)
        return link

    def add_connection(
        self,
        paths: Sequence[Sequence[str]],
        config: TcpConfig | Sequence[TcpConfig] = TcpConfig(),  # noqa: B008 (frozen)
        *,
        name: str | None = None,
        start: float | None = 0.0,
        delayed_ack: float | None = None,
        trace: bool = False,
        sender: type[TcpSender] = TcpSender,
    ) -> Connection:
        """Add a connection with one subflow per path (a list of link names), each with its
        own ``config`` if a sequence is given. It starts at ``start`` seconds (None: call
        ``Connection.start`` yourself); ``delayed_ack`` (seconds) and ``trace`` (record
        windows) apply to every subflow; ``sender`` is the subflows' sender class (a
        subclass of TcpSender, e.g. a coupled multipath increase; for variant "sack" a
        subclass of SackSender)."""
        name = f"conn{len(self.connections)}" if name is None else name
        if not isinstance(name, str) or not name:
            raise ValueError(f"name={name!r} must be a non-empty string")
        self._check_open("name", name)
        if name in self._names:
            raise ValueError(f"name={name!r} is already a connection of this network")
        routes = self._routes(paths)
        single = isinstance(config, TcpConfig | str) or not isinstance(config, Sequence)
        configs: list[Any] = [config] * len(routes) if single else list(config)  # type: ignore[arg-type]
        if len(configs) != len(routes):
            raise ValueError(f"config has {len(configs)} values, expected one per path")
        for c in configs:
            if not isinstance(c, TcpConfig):
                raise ValueError(f"config={c!r} is not a TcpConfig")
        if start is not None:
            start = check_range("start", start, 0.0)
        if delayed_ack is not None:
            check_range("delayed_ack", delayed_ack, 0.0, low_open=True)
        if not (isinstance(sender, type) and issubclass(sender, TcpSender)):
            raise ValueError(f"sender={sender!r} is not a TcpSender class")
        env, subflows = self.env, []
        for index, (route, cfg) in enumerate(zip(routes, configs, strict=True)):
            flow = len(self.subflows) + index
            links = [self.links[n] for n in route]
            ack_path = Link(env, None, sum(link.delay for link in links), name=f"{name}.ack{index}")
            sender_type, receiver_type = endpoints(cfg.variant)
            if sender is not TcpSender:  # a custom sender class (e.g. coupled increases)
                if not issubclass(sender, sender_type):
                    raise ValueError(
                        f"sender={sender.__name__} cannot run variant {cfg.variant!r}: "
                        f"it must be a subclass of {sender_type.__name__}"
                    )
                sender_type = sender
            tx = sender_type(env, flow, cfg, links[0].send, trace=trace)
            ack_path.dst = tx.on_ack
            receiver = receiver_type(env, flow, ack_path.send, delayed_ack=delayed_ack)
            subflows.append(Subflow(name, index, flow, route, tx, receiver, ack_path))
        for sub in subflows:  # wire: each link of the path forwards the flow to the next hop
            hops = [self.links[n].on_arrival for n in sub.path[1:]] + [sub.receiver.on_packet]
            for link_name, hop in zip(sub.path, hops, strict=True):
                self._hops[link_name][sub.flow] = hop
        for link_name in dict.fromkeys(n for route in routes for n in route):
            self._wire(link_name, [sub.flow for sub in subflows if link_name in sub.path])
        self.subflows.extend(subflows)
        connection = Connection(env, name, subflows)
        self.connections.append(connection)
        self._names.add(name)
        if start is not None:
            connection.start(start)
        return connection

    def _routes(self, paths: Sequence[Sequence[str]]) -> list[tuple[str, ...]]:
        if isinstance(paths, str) or not isinstance(paths, Sequence) or not paths:
            raise ValueError(f"paths={paths!r} must be a non-empty list of paths (link names)")
        routes = []
        for i, path in enumerate(paths):
            if isinstance(path, str) or not isinstance(path, Sequence):
                raise ValueError(f"paths[{i}]={path!r} must be a list of link names")
            route = tuple(path)
            if not route:
                raise ValueError(f"paths[{i}]=[] is empty: a path crosses at least one link")
            for n in route:
                if n not in self.links:
                    known = ", ".join(map(repr, self.links)) or "none yet"
                    raise ValueError(f"paths[{i}] names an unknown link {n!r} (links: {known})")
                if route.count(n) > 1:
                    raise ValueError(f"paths[{i}]={list(route)!r} crosses link {n!r} twice")
            routes.append(route)
        return routes

    def _wire(self, name: str, flows: list[int]) -> None:
        """Point link ``name`` at the next hops of its flows after ``flows`` were added: the
        one handler they all share (an access link: no lookup at all), else a demultiplexer
        indexed by flow id (None for flows not crossing the link). Work is done per added
        flow, so wiring N connections through one bottleneck costs O(N), not O(N^2)."""
        hops, link = self._hops[name], self.links[name]
        shared = self._shared.get(name, hops[flows[0]])
        for flow in flows:
            if shared is not None and hops[flow] != shared:
                shared = None
        self._shared[name] = shared
        if shared is not None:
            link.dst = shared
            return
        table = self._tables.get(name)
        if table is None or link._demux is not table:  # first demultiplexer, or replaced
            link.dst = [hops.get(flow) for flow in range(max(hops) + 1)]
            self._tables[name] = link._demux
            return
        top = max(flows)
        if top >= len(table):
            table.extend([None] * (top + 1 - len(table)))
        for flow in flows:
            table[flow] = hops[flow]

    # -- state ----------------------------------------------------------------------------------
    @property
    def senders(self) -> list[TcpSender]:
        """Every subflow's sender, indexed by global flow id."""
        return [s.sender for s in self.subflows]

    def rates(self) -> list[float]:
        """Every sender's current send rate (packets/s), indexed by global flow id."""
        return [s.sender.rate for s in self.subflows]

    def rates_on(self, name: str) -> Callable[[], list[float]]:
        """A callable giving :meth:`rates` with ``-inf`` for flows that do not cross link
        ``name`` (so a largest-rate selection never picks them)."""
        hops, subflows = self._hops[name], self.subflows

        def rates() -> list[float]:
            return [s.sender.rate if s.flow in hops else -math.inf for s in subflows]

        return rates

    def stop(self) -> None:
        """Stop every sender (no new packets, timers ignored); packets in flight continue."""
        for sub in self.subflows:
            sub.sender.stopped = True

    def drain(self) -> None:
        """Stop the senders and run until every packet and ACK has arrived."""
        self.stop()
        self.env.run()

    def counts(self) -> dict[str, int]:
        """Packets sent by senders, received by receivers, dropped on any link."""
        return {
            "sent": sum(s.sender.sent for s in self.subflows),
            "received": sum(s.receiver.received for s in self.subflows),
            "dropped": sum(link.drops for link in self.links.values()),
        }

    # -- running --------------------------------------------------------------------------------
    def run(
        self, until: float, warmup: float = 0.0, sample_interval: float | None = None
    ) -> NetworkResult:
        """Run to simulated time ``until`` (once); count from ``warmup`` on. With
        ``sample_interval`` (seconds), also count each subflow's goodput in consecutive
        intervals of that length from the warm-up (one read-only event per interval)."""
        if self._ran:
            raise ValueError(f"until={until!r}: this network has already run (it runs once)")
        now = self.env.now
        until = check_range("until", until, now, low_open=True)
        warmup = check_range("warmup", warmup, now, until, high_open=True)
        if sample_interval is not None:
            check_range("sample_interval", sample_interval, 0.0, until - warmup, low_open=True)
            self._sample(warmup, until, sample_interval)
        before: dict[str, np.ndarray] = {}

        def snapshot(_event: Call | None = None) -> None:
            before["flows"] = self._flow_counters()
            before["links"] = self._link_counters()

        if warmup > now:
            call_at(self.env, warmup, snapshot, None)
        else:
            snapshot()
        self._ran = True
        began = time.perf_counter()
        self.env.run(until=until)
        wall = time.perf_counter() - began
        if sample_interval is not None and len(self._counts) < len(self._ticks):
            self._read()  # the last tick is ``until`` itself
        return self._result(before, until, warmup, wall)

    def _sample(self, start: float, until: float, step: float) -> None:
        """Read every receiver's distinct-packet count at ``start + k * step`` up to
        ``until`` (rounded times, so that float steps do not drift)."""
        ticks = start + step * np.arange(int(math.floor((until - start) / step + 1e-9)) + 1)
        self._ticks, self._counts = ticks, []
        for t in ticks:
            if t >= until:  # simpy stops before events at ``until``: read after the run
                break
            if t > self.env.now:
                call_at(self.env, float(t), self._read, None)
            else:
                self._read()

    def _read(self, _event: Call | None = None) -> None:
        self._counts.append([s.receiver.unique for s in self.subflows])

    def _intervals(self) -> pd.DataFrame:
        counts = np.array(self._counts, dtype=np.int64)
        if len(counts) < 2:
            return pd.DataFrame()
        ticks = self._ticks[: len(counts)]
        packets = np.diff(counts, axis=0)  # (intervals, subflows)
        size = np.array([s.sender.config.packet_bytes for s in self.subflows], dtype=float)
        span = np.diff(ticks)[:, None]
        k, f = packets.shape
        return pd.DataFrame(
            {
                "start": np.repeat(ticks[:-1], f),
                "end": np.repeat(ticks[1:], f),
                "connection": np.tile([s.connection for s in self.subflows], k),
                "subflow": np.tile([s.index for s in self.subflows], k),
                "flow": np.tile(np.arange(f), k),
                "packets": packets.ravel(),
                "goodput_mbps": (packets * size * 8.0 / span / 1e6).ravel(),
            }
        )

    def _flow_counters(self) -> np.ndarray:
        counts = [
            (s.receiver.unique, s.sender.sent, s.sender.retransmits, s.sender.timeouts,
             s.sender.fast_retransmits)
            for s in self.subflows
        ]  # fmt: skip
        return np.array(counts, dtype=np.int64).reshape(-1, len(_COUNTERS))

    def _link_counters(self) -> np.ndarray:
        counts = [(link.arrivals, link.drops) for link in self.links.values()]
        return np.array(counts, dtype=np.int64).reshape(-1, 2)

    def _result(self, before: dict, until: float, warmup: float, wall: float) -> NetworkResult:
        span = until - warmup
        flows = self._flow_counters() - before["flows"]
        size = np.array([s.sender.config.packet_bytes for s in self.subflows], dtype=float)
        goodput = flows[:, 0] * size * 8.0 / span / 1e6
        sub = pd.DataFrame(
            {
                "connection": [s.connection for s in self.subflows],
                "subflow": [s.index for s in self.subflows],
                "flow": [s.flow for s in self.subflows],
                "path": [">".join(s.path) for s in self.subflows],
                **{k: flows[:, i] for i, k in enumerate(_COUNTERS)},
                "goodput_mbps": goodput,
            }
        )
        sums = {k: (k, "sum") for k in (*_COUNTERS, "goodput_mbps")}
        conn = sub.groupby("connection", sort=False).agg(subflows=("flow", "size"), **sums)
        links = self._link_counters() - before["links"]
        carried = [sum(goodput[f] for f in self._hops[n]) for n in self.links]
        rate = np.array([link.rate_bps or math.nan for link in self.links.values()]) / 1e6
        link_table = pd.DataFrame(
            {
                "link": list(self.links),
                "rate_mbps": rate,
                "delay_ms": [link.delay * 1e3 for link in self.links.values()],
                "flows": [len(self._hops[n]) for n in self.links],
                "arrivals": links[:, 0],
                "drops": links[:, 1],
                "drop_rate": links[:, 1] / np.maximum(links[:, 0], 1),
                "goodput_mbps": np.array(carried, dtype=float),
                "utilisation": np.array(carried, dtype=float) / rate,
            }
        )
        return NetworkResult(
            until, warmup, wall, sub, conn.reset_index(), link_table, self._intervals()
        )
