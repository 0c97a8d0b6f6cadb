"""Router A's queue as its arrivals see it: a metered queue set-up for the what-if runs.

The chapter's first tables record the loss and the smoothed RTT but not the queue. A
:class:`MeteredQueue` builds the same discipline as :class:`~tcplab.packet.QueueSetup` (RED,
DropTail; optionally RED without forced drops, :class:`~tcplab.chapters.morris.queue.CappedRED`)
wrapped in a :class:`QueueMeter`, which adds up the packets waiting at every arrival after the
warm-up: their mean is the queue an arriving packet finds (the time-average queue when arrivals
see time averages). The meter keeps nothing else and decides nothing: a run with it drops the
same packets as a run without it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from tcplab.packet import QueueSetup
from tcplab.packet.queues import RED

from .queue import capped

__all__ = ["QueueMeter", "MeteredQueue"]


class QueueMeter:
    """A discipline that asks ``inner`` and counts, after ``warmup`` seconds, the arrivals and
    the packets each one finds waiting. ``inner``'s drop counters stay readable."""

    def __init__(self, inner: Any, warmup: float) -> None:
        self.inner = inner
        self.buffer: int = int(inner.buffer)
        self.warmup = float(warmup)
        self.seen = 0
        self.waiting_sum = 0
        self.full = 0  # arrivals that found the buffer full

    def admit(self, waiting: int, now: float, idle_since: float, flow: int = -1) -> bool:
        if now >= self.warmup:
            self.seen += 1
            self.waiting_sum += waiting
            self.full += waiting >= self.buffer
        return bool(self.inner.admit(waiting, now, idle_since, flow))

    @property
    def mean_queue(self) -> float:
        """The mean number of packets an arrival found waiting (NaN before any arrival)."""
        return self.waiting_sum / self.seen if self.seen else float("nan")

    @property
    def early_drops(self) -> int:
        return int(self.inner.early_drops)

    @property
    def forced_drops(self) -> int:
        return int(self.inner.forced_drops)


@dataclass(frozen=True)
class MeteredQueue(QueueSetup):
    """A :class:`~tcplab.packet.QueueSetup` whose discipline is metered after ``warmup``
    seconds; ``forced=False`` (RED only) drops no arrival above ``max_th`` that the buffer has
    room for. Each :meth:`build` appends its meter to ``meters`` (the last one is the run's)."""

    warmup: float = 0.0
    forced: bool = True
    meters: list[QueueMeter] = field(default_factory=list, compare=False, repr=False)

    def build(
        self, rng: np.random.Generator, loss_rng: np.random.Generator, mean_pkt_time: float
    ) -> QueueMeter:
        discipline: Any = super().build(rng, loss_rng, mean_pkt_time)
        if not self.forced:
            if not isinstance(discipline, RED):
                raise ValueError(f"forced=False needs queue='red', not {self.kind!r}")
            discipline = capped(discipline)
        meter = QueueMeter(discipline, self.warmup)
        self.meters.append(meter)
        return meter
