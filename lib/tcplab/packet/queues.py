"""Queue disciplines: which arriving packets a bottleneck admits.

A discipline sees each arrival with the number of packets already waiting (the packet in
transmission is not counted, as in ns-2) and the arrival's flow, and returns whether to admit
it. DropTail admits while the buffer has room; RED (Floyd and Jacobson 1993) drops early with
a probability that grows with an exponentially averaged queue; the threshold-dropper of
Altman et al. selects one connection when the queue passes a threshold, drops one of its
packets and then spares everyone for a hold time, so each congestion event signals exactly
one connection. :class:`RandomLoss` wraps any of them and first drops each arrival
independently with probability p (a lossy link, as in the square-root law).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..checks import check_choice, check_int, check_range

__all__ = [
    "DropTail",
    "RED",
    "red_base_probability",
    "red_drop_probability",
    "ThresholdDropper",
    "RandomLoss",
    "QUEUES",
    "SELECTIONS",
    "SELECTION_NAMES",
    "make_queue",
]

QUEUES = ("droptail", "red", "threshold")
#: how the threshold-dropper picks the connection to signal (see :class:`ThresholdDropper`)
SELECTIONS = ("first", "random", "largest")
#: the loss policy each selection implements, in the paper's words
SELECTION_NAMES = {
    "first": "first arrival",
    "random": "rate-independent",
    "largest": "largest-rate",
}
_UNIFORM_BLOCK = 4096


@dataclass(eq=False)
class DropTail:
    """Admit while fewer than ``buffer`` packets wait."""

    buffer: int

    def __post_init__(self) -> None:
        self.buffer = check_int("buffer", self.buffer, 1)

    def admit(self, waiting: int, now: float, idle_since: float, flow: int = -1) -> bool:
        return waiting < self.buffer


@dataclass(eq=False)
class RED:
    """Random Early Detection (Floyd and Jacobson 1993), packet mode, as in ns-2.

    ``min_th``/``max_th`` default to 0.6 and 0.8 of the buffer (the ns-2 set-up of Altman et
    al.); ``w_q`` is the averaging weight, ``max_p`` the drop probability at ``max_th``.
    ``wait=True`` spaces drops more evenly (ns-2 ``wait_``: no drop until ``count * p_b >= 1``),
    ``gentle=True`` ramps the probability from ``max_p`` to 1 between ``max_th`` and twice it;
    :func:`red_base_probability` and :func:`red_drop_probability` are the two formulas.
    ``mean_pkt_time`` (seconds) ages the average across idle periods.
    """

    buffer: int
    min_th: float | None = None
    max_th: float | None = None
    max_p: float = 0.1
    w_q: float = 0.002
    wait: bool = True
    gentle: bool = False
    mean_pkt_time: float = 1e-3
    rng: np.random.Generator = field(default_factory=lambda: np.random.default_rng(0))

    def __post_init__(self) -> None:
        self.buffer = check_int("buffer", self.buffer, 1)
        if self.min_th is None:
            self.min_th = 0.6 * self.buffer
        if self.max_th is None:
            self.max_th = 0.8 * self.buffer
        self.min_th = check_range("min_th", self.min_th, 0.0, self.buffer, low_open=True)
        self.max_th = check_range("max_th", self.max_th, self.min_th, self.buffer, low_open=True)
        self.max_p = check_range("max_p", self.max_p, 0.0, 1.0, low_open=True)
        self.w_q = check_range("w_q", self.w_q, 0.0, 1.0, low_open=True)
        self.mean_pkt_time = check_range("mean_pkt_time", self.mean_pkt_time, 0.0, low_open=True)
        self.avg = 0.0
        self.count = 0
        self._uniforms = np.empty(0)
        self._next = 0
        self.early_drops = 0
        self.forced_drops = 0

    def _uniform(self) -> float:
        if self._next >= len(self._uniforms):
            self._uniforms = self.rng.random(_UNIFORM_BLOCK)
            self._next = 0
        u = self._uniforms[self._next]
        self._next += 1
        return float(u)

    def admit(self, waiting: int, now: float, idle_since: float, flow: int = -1) -> bool:
        if idle_since >= 0.0:  # the link is empty: age the average over the idle time
            self.avg *= (1.0 - self.w_q) ** ((now - idle_since) / self.mean_pkt_time)
        else:
            self.avg += self.w_q * (waiting - self.avg)
        return not self._decide(waiting)

    def _decide(self, waiting: int) -> bool:
        if waiting >= self.buffer:
            self.forced_drops += 1
            self.count = 0
            return True
        avg = self.avg
        min_th: float = self.min_th  # type: ignore[assignment]  # set in __post_init__
        max_th: float = self.max_th  # type: ignore[assignment]
        if avg < min_th:
            self.count = 0
            return False
        if avg >= (2.0 * max_th if self.gentle else max_th):  # where red_base_probability is 1
            self.forced_drops += 1
            self.count = 0
            return True
        self.count += 1
        p_b = red_base_probability(avg, min_th, max_th, self.max_p, self.gentle)
        if self._uniform() < red_drop_probability(p_b, self.count, self.wait):
            self.early_drops += 1
            self.count = 0
            return True
        return False


def red_base_probability(
    avg: float, min_th: float, max_th: float, max_p: float, gentle: bool = False
) -> float:
    """RED's p_b at average queue ``avg`` (Floyd and Jacobson 1993): 0 below ``min_th``, then
    rising linearly to ``max_p`` at ``max_th``; from ``max_th`` on every arrival is dropped
    (1, a "forced" drop), except that with ``gentle`` (Floyd's gentle_ variant) p_b goes on
    rising linearly from ``max_p`` to 1 at ``2 max_th``."""
    if avg < min_th:
        return 0.0
    if avg < max_th:
        return max_p * (avg - min_th) / (max_th - min_th)
    if gentle and avg < 2.0 * max_th:
        return max_p + (1.0 - max_p) * (avg - max_th) / max_th
    return 1.0


def red_drop_probability(p_b: float, count: int, wait: bool = False) -> float:
    """RED's p_a: the probability of dropping an arrival that is the ``count``-th since the
    last drop (itself included, as ns-2 and the paper's pseudo-code count), given p_b.

    Without ``wait`` it is ``p_b / (1 - count p_b)`` (1 once ``count p_b >= 1``), which makes
    the number of arrivals between drops uniform, on {1, ..., 1/p_b - 1} with this count (the
    paper's Section 7 counts the arrivals *before* this one and gets {1, ..., 1/p_b}). With
    ``wait`` (ns-2's ``wait_``) nothing is dropped until ``count p_b`` reaches 1, then
    ``p_b / (2 - count p_b)``: the gap is uniform on {1/p_b, ..., 2/p_b - 1}.
    """
    scaled = count * p_b
    if wait:
        return 0.0 if scaled < 1.0 else (p_b / (2.0 - scaled) if scaled < 2.0 else 1.0)
    return p_b / (1.0 - scaled) if scaled < 1.0 else 1.0


@dataclass(eq=False)
class ThresholdDropper:
    """Altman et al.'s threshold-dropper (Section V-D): one connection signalled per event.

    When an arrival finds ``threshold`` packets waiting and no connection is held, a
    congestion event begins: one connection is *selected*, one of its packets is dropped and
    for ``hold`` seconds (a fraction of the RTT) nothing else is dropped. ``select`` decides
    which connection:

    * ``"first"``: the flow of the arrival that crossed the threshold, dropped at once (the
      paper's wording; a flow is hit in proportion to its share of arrivals, so this is close
      to rate-proportional);
    * ``"random"``: a flow drawn uniformly (rate-independent, Fig. 11 left);
    * ``"largest"``: the flow with the largest send rate (largest-rate, Fig. 11 right),
      ties broken at random.

    For ``random`` and ``largest`` the selected flow's next arrival within the hold is
    dropped (if it sends none, the event passes without a drop: counted in ``lapsed``).
    ``rates`` returns every flow's current send rate, indexed by flow, ``-inf`` for a flow
    that does not cross this link; the :class:`~tcplab.packet.network.Network` that owns the
    senders sets it. ``buffer`` is
    only a safety cap (the paper's "virtually infinite" buffer).
    """

    buffer: int
    threshold: int = 3
    hold: float = 0.1
    select: str = "first"
    rng: np.random.Generator = field(default_factory=lambda: np.random.default_rng(0))
    rates: Callable[[], Sequence[float]] | None = None

    def __post_init__(self) -> None:
        self.buffer = check_int("buffer", self.buffer, 1)
        self.threshold = check_int("threshold", self.threshold, 1, self.buffer)
        self.hold = check_range("hold", self.hold, 0.0)
        check_choice("select", self.select, SELECTIONS)
        self._until = -1.0
        self._victim: int | None = None  # selected flow whose next arrival is dropped
        self.events = 0
        self.lapsed = 0
        self.selected: list[int] = []  # the flow selected at each congestion event

    def admit(self, waiting: int, now: float, idle_since: float, flow: int = -1) -> bool:
        if waiting >= self.buffer:
            return False
        if now < self._until:
            if flow == self._victim:
                self._victim = None
                return False
            return True
        if self._victim is not None:  # the hold ended before the selected flow sent anything
            self._victim = None
            self.lapsed += 1
        if waiting < self.threshold:
            return True
        self._until = now + self.hold
        self.events += 1
        victim = flow if self.select == "first" else self._choose()
        self.selected.append(victim)
        if victim == flow:
            return False
        self._victim = victim
        return True

    def _choose(self) -> int:
        if self.rates is None:
            raise ValueError(
                f"select={self.select!r} needs the flows' rates: set ThresholdDropper.rates"
            )
        rates = np.asarray(self.rates(), dtype=float)
        if self.select == "random":  # among the flows that cross this link (finite rates)
            here = np.flatnonzero(np.isfinite(rates))
            return int(here[self.rng.integers(len(here))])
        best = np.flatnonzero(rates == rates.max())
        return int(best[0] if len(best) == 1 else self.rng.choice(best))


@dataclass(eq=False)
class RandomLoss:
    """Drop each arrival independently with probability ``loss_rate``, then ask ``inner``.

    The random drop comes first and does not depend on the queue, so the inner discipline
    never sees the arrivals lost this way (RED's average does not count them). ``loss_rate``
    is in [0, 1); the uniforms come from ``rng`` in blocks.
    """

    inner: DropTail | RED | ThresholdDropper
    loss_rate: float
    rng: np.random.Generator = field(default_factory=lambda: np.random.default_rng(0))

    def __post_init__(self) -> None:
        self.loss_rate = check_range("loss_rate", self.loss_rate, 0.0, 1.0, high_open=True)
        self._uniforms = np.empty(0)
        self._next = 0
        self.random_drops = 0

    @property
    def buffer(self) -> int:
        return self.inner.buffer

    def admit(self, waiting: int, now: float, idle_since: float, flow: int = -1) -> bool:
        if self._next >= len(self._uniforms):
            self._uniforms = self.rng.random(_UNIFORM_BLOCK)
            self._next = 0
        u = self._uniforms[self._next]
        self._next += 1
        if u < self.loss_rate:
            self.random_drops += 1
            return False
        return self.inner.admit(waiting, now, idle_since, flow)


def make_queue(
    kind: str, buffer: int, rng: np.random.Generator | None = None, **options: Any
) -> DropTail | RED | ThresholdDropper:
    """Build a discipline by name (``droptail``, ``red``, ``threshold``); ``rng`` feeds RED's
    early drops and the threshold-dropper's random selection."""
    check_choice("queue", kind, QUEUES)
    if kind == "droptail":
        if options:
            raise ValueError(f"queue='droptail' takes no options, got {sorted(options)}")
        return DropTail(buffer)
    if rng is not None:
        options["rng"] = rng
    if kind == "red":
        return RED(buffer, **options)
    return ThresholdDropper(buffer, **options)
