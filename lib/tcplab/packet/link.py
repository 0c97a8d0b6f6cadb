"""Links: a FIFO transmitter of a given rate feeding a propagation delay.

A link never needs an event of its own: with deterministic service the departure time of an
admitted packet is ``max(now, busy_until) + size / rate``, and the number waiting at an arrival
is the number of earlier departures still in the future. The only event per packet is its
arrival at the next hop, ``departure + delay`` later. ``rate_bps=None`` makes a pure delay line
(used for the uncongested ACK path).
"""

from __future__ import annotations

from array import array
from collections import deque
from collections.abc import Callable, Sequence
from typing import Any, Protocol

import numpy as np
import simpy

from ..checks import check_range
from .sched import NORMAL, Call

__all__ = ["Link", "QueueDiscipline", "Handler"]

Handler = Callable[[Call], Any]


class QueueDiscipline(Protocol):
    buffer: int

    def admit(self, waiting: int, now: float, idle_since: float, flow: int = -1) -> bool: ...


class Link:
    """One direction of a link: ``send(packet)`` at the current time, delivered to ``dst``.

    A packet is a tuple ``(flow, seq, nbytes)``. ``dst`` is the handler of the next hop, or a
    sequence of handlers indexed by flow (a demultiplexer, as after a dumbbell bottleneck).
    ``queue=None`` means an unlimited buffer. ``jitter`` (seconds) adds a random
    ``U(0, jitter)`` to each packet's transmission time, drawn from ``rng``: like ns-2's TCP
    ``overhead_`` it breaks the phase effects of fully deterministic DropTail simulations
    (Floyd and Jacobson 1992) while keeping FIFO order. With ``trace=True`` the link records,
    at every arrival, the time, the flow, the number waiting after the admission decision and
    whether it was dropped, and the departure time of every admitted packet.
    """

    def __init__(
        self,
        env: simpy.Environment,
        rate_bps: float | None,
        delay: float,
        queue: QueueDiscipline | None = None,
        dst: Handler | Sequence[Handler | None] | None = None,
        *,
        name: str = "link",
        trace: bool = False,
        jitter: float = 0.0,
        rng: np.random.Generator | None = None,
    ) -> None:
        self.env = env
        self.name = name
        rate = None if rate_bps is None else check_range("rate", rate_bps, 0.0, low_open=True)
        self.rate_bps = rate
        self.delay = check_range("delay", delay, 0.0)
        self._sec_per_byte = 0.0 if rate is None else 8.0 / rate
        self.jitter = check_range("jitter", jitter, 0.0)
        if self.jitter and rng is None:
            raise ValueError("jitter needs an rng (a numpy Generator)")
        self._rng = rng
        self._uniforms = np.empty(0)
        self._next_uniform = 0
        self.queue = queue
        self._dst: Any = None  # the next hop's handler, or None with a demultiplexer
        self._demux: Any = None  # handlers by flow id (None: a flow not crossing the link)
        self.dst = dst
        self.busy_until = 0.0
        self._departures: deque[float] = deque()
        self.arrivals = 0
        self.drops = 0
        self.trace = trace
        self.trace_time = array("d")
        self.trace_flow = array("l")
        self.trace_waiting = array("l")
        self.trace_dropped = array("b")
        self.trace_departure = array("d")

    @property
    def dst(self) -> Handler | Sequence[Handler | None] | None:
        return self._dst if self._demux is None else self._demux

    @dst.setter
    def dst(self, dst: Handler | Sequence[Handler | None] | None) -> None:
        if dst is None or callable(dst):
            self._dst, self._demux = dst, None
        else:
            self._dst, self._demux = None, list(dst)

    def on_arrival(self, event: Call) -> None:
        """Handler form of :meth:`send`, for a previous hop to schedule."""
        self.send(event._value)

    def send(self, packet: tuple[int, int, int]) -> bool:
        """Offer ``packet`` now; return whether it was admitted."""
        env = self.env
        now = env._now
        self.arrivals += 1
        queue = self.queue
        if queue is not None:
            deps = self._departures
            while deps and deps[0] <= now:
                deps.popleft()
            waiting = len(deps) - 1 if deps else 0
            idle_since = -1.0 if deps else self.busy_until
            if not queue.admit(waiting, now, idle_since, packet[0]):
                self.drops += 1
                if self.trace:
                    self._record(now, packet[0], waiting, 1)
                return False
        start = self.busy_until if self.busy_until > now else now
        departure = start + packet[2] * self._sec_per_byte
        if self.jitter:
            departure += self.jitter * self._uniform()
        self.busy_until = departure
        if queue is not None:
            deps.append(departure)
            if self.trace:
                self._record(now, packet[0], len(deps) - 1, 0)
                self.trace_departure.append(departure)
        handler = self._dst if self._demux is None else self._demux[packet[0]]
        env.schedule(Call(handler, packet), NORMAL, departure + self.delay - now)
        return True

    def _uniform(self) -> float:
        if self._next_uniform >= len(self._uniforms):
            assert self._rng is not None  # jitter needs an rng: checked in __init__
            self._uniforms = self._rng.random(4096)
            self._next_uniform = 0
        self._next_uniform += 1
        return float(self._uniforms[self._next_uniform - 1])

    def _record(self, now: float, flow: int, waiting: int, dropped: int) -> None:
        self.trace_time.append(now)
        self.trace_flow.append(flow)
        self.trace_waiting.append(waiting)
        self.trace_dropped.append(dropped)

    def in_system(self) -> int:
        """Packets admitted and not yet fully transmitted (waiting plus in service)."""
        now = self.env.now
        return sum(1 for d in self._departures if d > now)

    def traces(self) -> dict[str, np.ndarray]:
        """The recorded arrival trace as numpy arrays (empty unless ``trace=True``)."""
        return {
            "time": np.array(self.trace_time, dtype=float),
            "flow": np.array(self.trace_flow, dtype=np.int64),
            "waiting": np.array(self.trace_waiting, dtype=np.int64),
            "dropped": np.array(self.trace_dropped, dtype=bool),
            "departure": np.array(self.trace_departure, dtype=float),
        }
