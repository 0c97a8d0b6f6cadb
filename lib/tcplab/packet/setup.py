"""A packet-level run described once: topology, queue, TCP, run length and probes.

A :class:`PacketSetup` is a frozen value, checked when it is made: every bad number fails there
with a message naming it, not deep inside a run. The command line, the chapters' experiments
and the live panels build one and pass it as it is (to :func:`run`, or across a process pool),
and ``dataclasses.replace`` varies one part of it. Randomness comes only from ``seed``, split
into named streams (:func:`streams`).

The topology is the part a chapter may bring: :class:`DumbbellTopology` is N connections on
their own access links into one bottleneck. Another topology (Morris's access links with
random delays, BMC's multipath connections, cross traffic starting later) is a frozen
dataclass with the same two members: ``flows``, the number of connections, and
``run(setup)``, which wires a :class:`~tcplab.packet.network.Network` from the set-up and runs
it (see :class:`Topology`).
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol

import numpy as np

from ..checks import check_choice, check_int, check_per_flow, check_range
from .queues import QUEUES, RandomLoss, make_queue
from .tcp import TcpConfig

if TYPE_CHECKING:
    from .dumbbell import DumbbellResult

__all__ = [
    "DumbbellTopology",
    "MisplacedOptions",
    "PacketSetup",
    "Probes",
    "QueueSetup",
    "RunLength",
    "Streams",
    "Topology",
    "run",
    "streams",
]

#: the options each discipline takes; any other discipline refuses them
QUEUE_OPTIONS = {
    "red": ("min_th", "max_th", "max_p", "w_q", "wait", "gentle"),
    "threshold": ("threshold", "hold", "select"),
}


class MisplacedOptions(ValueError):
    """Options given to a discipline that does not take them (``names``, owned by ``owner``)."""

    def __init__(self, names: list[str], owner: str, kind: str) -> None:
        self.names, self.owner, self.kind = names, owner, kind
        super().__init__(f"options {names} only apply to queue={owner!r}, not {kind!r}")


@dataclass(frozen=True)
class QueueSetup:
    """The bottleneck's discipline and its options, checked here and nowhere else.

    ``kind`` is ``droptail``, ``red`` or ``threshold``; an option left ``None`` takes the
    discipline's default (RED: thresholds at 0.6 and 0.8 of the buffer, ``max_p`` 0.1,
    ``w_q`` 0.002, ``wait`` on; threshold-dropper: ``threshold`` 3, ``hold`` 0.1 s, ``select``
    first). ``loss_rate = p > 0`` drops each arrival with probability p before the discipline
    sees it (:class:`~tcplab.packet.queues.RandomLoss`).
    """

    kind: str = "droptail"
    buffer: int = 100
    min_th: float | None = None
    max_th: float | None = None
    max_p: float | None = None
    w_q: float | None = None
    wait: bool | None = None
    gentle: bool | None = None
    threshold: int | None = None
    hold: float | None = None  # seconds
    select: str | None = None
    loss_rate: float = 0.0

    def __post_init__(self) -> None:
        check_choice("queue", self.kind, QUEUES)
        object.__setattr__(self, "buffer", check_int("buffer", self.buffer, 1))
        rate = check_range("loss_rate", self.loss_rate, 0.0, 1.0, high_open=True)
        object.__setattr__(self, "loss_rate", rate)
        for owner, names in QUEUE_OPTIONS.items():
            given = [name for name in names if getattr(self, name) is not None]
            if given and owner != self.kind:
                raise MisplacedOptions(given, owner, self.kind)
        self.build(np.random.default_rng(0), np.random.default_rng(0), 1e-3)  # the values

    @classmethod
    def of(cls, kind: str, buffer: int, options: dict[str, Any] | None = None) -> QueueSetup:
        """From a discipline's keyword options (``run_dumbbell``'s ``queue_options``)."""
        known = {f.name for f in fields(cls)} - {"kind", "buffer", "loss_rate"}
        unknown = sorted(set(options or {}) - known)
        if unknown:
            raise ValueError(f"queue_options {unknown} are not options of any queue: {known}")
        return cls(kind, buffer, **(options or {}))

    def options(self) -> dict[str, Any]:
        """The options given (not left to the discipline's defaults)."""
        names = QUEUE_OPTIONS.get(self.kind, ())
        return {name: getattr(self, name) for name in names if getattr(self, name) is not None}

    def build(
        self, rng: np.random.Generator, loss_rng: np.random.Generator, mean_pkt_time: float
    ) -> Any:
        """A fresh discipline: ``rng`` feeds RED's early drops and the dropper's choice,
        ``loss_rng`` the random loss; ``mean_pkt_time`` (s) ages RED's average when idle."""
        options = self.options()
        if self.kind == "red":
            options["mean_pkt_time"] = mean_pkt_time
        discipline: Any = make_queue(self.kind, self.buffer, rng, **options)
        if self.loss_rate > 0:
            discipline = RandomLoss(discipline, self.loss_rate, loss_rng)
        return discipline


@dataclass(frozen=True)
class RunLength:
    """Simulated seconds, and how many of them are not measured (the warm-up)."""

    duration: float = 60.0
    warmup: float = 10.0

    def __post_init__(self) -> None:
        duration = check_range("duration", self.duration, 0.0, low_open=True)
        warmup = check_range("warmup", self.warmup, 0.0, duration, high_open=True)
        object.__setattr__(self, "duration", duration)
        object.__setattr__(self, "warmup", warmup)


@dataclass(frozen=True)
class Probes:
    """What a run records beyond its counters: window and queue traces (``trace``) and each
    connection's goodput per ``sample_interval`` seconds after the warm-up."""

    trace: bool = True
    sample_interval: float | None = None


class Streams(NamedTuple):
    """The random streams of one run, in the order ``SeedSequence(seed).spawn`` makes them."""

    start: np.random.Generator
    delay: np.random.Generator
    queue: np.random.Generator
    overhead: np.random.Generator
    loss: np.random.Generator


def streams(seed: int) -> Streams:
    """One independent stream per random choice of a run (adding a stream at the end keeps
    the earlier ones, so runs that do not use it are unchanged)."""
    return Streams(*(np.random.default_rng(s) for s in np.random.SeedSequence(seed).spawn(5)))


class Topology(Protocol):
    """What a set-up needs of its topology: its number of connections, and a run."""

    @property
    def flows(self) -> int: ...

    def run(self, setup: PacketSetup) -> Any: ...


@dataclass(frozen=True)
class DumbbellTopology:
    """N greedy connections, each on its own access link, into one bottleneck.

    The bottleneck has ``rate_mbps`` and one-way ``delay_ms``; access link i has
    ``access_mbps`` and delay ``access_delay_ms[i] + U(0, access_jitter_ms)`` (one number for
    all, or one per connection); each packet waits ``U(0, overhead_ms)`` more on its access
    link (ns-2's ``overhead_``). Connection i starts at ``U(0, start_spread)`` seconds.
    """

    flows: int = 10
    rate_mbps: float = 10.0
    delay_ms: float = 25.0
    access_mbps: float = 100.0
    access_delay_ms: float | tuple[float, ...] = 0.0
    access_jitter_ms: float = 0.0
    overhead_ms: float = 0.0
    start_spread: float = 1.0

    def __post_init__(self) -> None:
        flows = check_int("flows", self.flows, 1)
        checked = {
            "flows": flows,
            "rate_mbps": check_range("rate_mbps", self.rate_mbps, 0.0, low_open=True),
            "delay_ms": check_range("delay_ms", self.delay_ms, 0.0),
            "access_mbps": check_range("access_mbps", self.access_mbps, 0.0, low_open=True),
            "access_delay_ms": self._delays(flows),
            "access_jitter_ms": check_range("access_jitter_ms", self.access_jitter_ms, 0.0),
            "overhead_ms": check_range("overhead_ms", self.overhead_ms, 0.0),
            "start_spread": check_range("start_spread", self.start_spread, 0.0),
        }
        for name, value in checked.items():
            object.__setattr__(self, name, value)

    def _delays(self, flows: int) -> float | tuple[float, ...]:
        delays = check_per_flow("access_delay_ms", self.access_delay_ms, flows, 0.0)
        if isinstance(self.access_delay_ms, int | float):
            return float(delays[0])
        return tuple(delays.tolist())

    def access_delays_ms(self) -> list[float]:
        """The base delay of each access link (before the jitter)."""
        value = self.access_delay_ms
        return [float(value)] * self.flows if isinstance(value, float) else list(value)

    def run(self, setup: PacketSetup) -> DumbbellResult:
        from .dumbbell import simulate

        return simulate(setup)


@dataclass(frozen=True)
class PacketSetup:
    """Everything one packet-level run depends on; :func:`run` runs it.

    ``tcp`` is the senders' configuration, one for all or one per connection;
    ``delayed_ack_ms`` makes the receivers ACK every second packet, at most that late (None:
    every packet).
    """

    topology: DumbbellTopology = field(default_factory=DumbbellTopology)
    queue: QueueSetup = field(default_factory=QueueSetup)
    tcp: TcpConfig | tuple[TcpConfig, ...] = field(default_factory=TcpConfig)
    length: RunLength = field(default_factory=RunLength)
    probes: Probes = field(default_factory=Probes)
    delayed_ack_ms: float | None = None
    seed: int = 0

    def __post_init__(self) -> None:
        object.__setattr__(self, "seed", check_int("seed", self.seed, 0))
        if self.delayed_ack_ms is not None:
            delay = check_range("delayed_ack_ms", self.delayed_ack_ms, 0.0, low_open=True)
            object.__setattr__(self, "delayed_ack_ms", delay)
        if not isinstance(self.tcp, TcpConfig) and len(self.tcp) != self.topology.flows:
            raise ValueError(
                f"tcp has {len(self.tcp)} configurations, expected one per flow "
                f"({self.topology.flows})"
            )

    def configs(self) -> list[TcpConfig]:
        """One sender configuration per connection."""
        if isinstance(self.tcp, TcpConfig):
            return [self.tcp] * self.topology.flows
        return list(self.tcp)

    @property
    def delayed_ack(self) -> float | None:
        """The receivers' delayed-ACK timer in seconds (None: no delayed ACKs)."""
        return None if self.delayed_ack_ms is None else self.delayed_ack_ms / 1e3

    @property
    def mean_packet_time(self) -> float:
        """Seconds to send one packet of the first connection at the topology's rate."""
        return self.configs()[0].packet_bytes * 8.0 / (self.topology.rate_mbps * 1e6)


def run(setup: PacketSetup) -> Any:
    """Run ``setup`` on its topology (a :class:`~tcplab.packet.dumbbell.DumbbellResult`
    for the dumbbell)."""
    return setup.topology.run(setup)
