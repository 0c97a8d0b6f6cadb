"""Loss policies: which connections a link congestion event signals to decrease.

A policy is a small frozen object. At every link congestion time the fluid model hands it the
rates just before the event, one row per independent replica, and the policy answers with one
connection index per row (assumption ONE of Altman et al. 2006) or, for :class:`AllFlows`, a
mask that signals every connection. Randomness always comes from the ``numpy`` Generator that
the caller passes in; policies that keep memory (beatdown) keep it in a per-run state array.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from .checks import check_choice, check_int, check_range

__all__ = [
    "POLICY_NAMES",
    "LossPolicy",
    "RateIndependent",
    "RateProportional",
    "LargestRate",
    "Beatdown",
    "AllFlows",
    "make_policy",
]

PROBS_TOLERANCE = 1e-9


class LossPolicy:
    """Base class. Subclasses set ``name`` and implement :meth:`choose` (or :meth:`signal`).

    ``rates`` is always an array of shape ``(replicas, flows)`` holding the rates just before
    a congestion event; ``state`` is whatever :meth:`initial_state` returned for that run.
    """

    name: ClassVar[str] = ""
    #: exactly one connection is signalled per event (assumption ONE of the paper)
    signals_one: ClassVar[bool] = True
    #: the choice ignores the rates, so a run may draw a whole block of choices ahead
    rate_independent: ClassVar[bool] = False

    def bind(self, flows: int) -> LossPolicy:
        """Check that the policy can drive ``flows`` connections; return the policy."""
        check_int("flows", flows, 1)
        return self

    def initial_state(self, replicas: int, flows: int) -> Any:
        """Per-run memory of the policy (``None`` for memoryless policies)."""
        return None

    def choose(self, rates: np.ndarray, state: Any, rng: np.random.Generator) -> np.ndarray:
        """Index (shape ``(replicas,)``) of the connection signalled in every replica."""
        raise NotImplementedError

    def signal(self, rates: np.ndarray, state: Any, rng: np.random.Generator) -> np.ndarray:
        """Boolean mask ``(replicas, flows)`` of the connections that decrease."""
        chosen = self.choose(rates, state, rng)
        mask = np.zeros(rates.shape, dtype=bool)
        mask[np.arange(rates.shape[0]), chosen] = True
        return mask

    def draw(self, rng: np.random.Generator, shape: tuple[int, ...], flows: int) -> np.ndarray:
        """Choices for many events at once; only for ``rate_independent`` policies."""
        raise TypeError(f"policy {self.name!r} depends on the rates and cannot draw ahead")


@dataclass(frozen=True)
class RateIndependent(LossPolicy):
    """Signal connection i with a fixed probability ``probs[i]`` (uniform when ``None``).

    This is the policy of Baccelli and Hong restricted to one connection per event, and of the
    paper's Example 1. ``probs`` is checked against the number of connections by :meth:`bind`.
    """

    probs: tuple[float, ...] | None = None
    name: ClassVar[str] = "rate-independent"
    rate_independent: ClassVar[bool] = True

    def __post_init__(self) -> None:
        if self.probs is None:
            return
        try:
            values = np.asarray(self.probs, dtype=float)
        except (TypeError, ValueError):
            values = np.empty(0)
        if values.ndim != 1 or values.size == 0:
            raise ValueError(f"probs={self.probs!r} must be a non-empty 1-D list of probabilities")
        for i, p in enumerate(values):
            check_range(f"probs[{i}]", p, 0.0, 1.0)
        total = float(values.sum())
        if abs(total - 1.0) > PROBS_TOLERANCE:
            raise ValueError(
                f"probs={values.tolist()!r} sums to {total!r}; it must sum to 1 "
                f"(tolerance {PROBS_TOLERANCE:g})"
            )
        object.__setattr__(self, "probs", tuple(float(p) for p in values))

    def bind(self, flows: int) -> RateIndependent:
        flows = check_int("flows", flows, 1)
        if self.probs is not None and len(self.probs) != flows:
            raise ValueError(
                f"probs has length {len(self.probs)} but flows={flows}; "
                "give one probability per connection"
            )
        return self

    def draw(self, rng: np.random.Generator, shape: tuple[int, ...], flows: int) -> np.ndarray:
        if self.probs is None:
            return rng.integers(0, flows, size=shape, dtype=np.intp)
        cumulative = np.cumsum(self.probs)
        cumulative /= cumulative[-1]
        picks = np.searchsorted(cumulative, rng.random(shape), side="right")
        return np.minimum(picks, flows - 1).astype(np.intp, copy=False)

    def choose(self, rates: np.ndarray, state: Any, rng: np.random.Generator) -> np.ndarray:
        return self.draw(rng, (rates.shape[0],), rates.shape[1])


@dataclass(frozen=True)
class RateProportional(LossPolicy):
    """Signal connection i with probability x_i / sum_j x_j (rates just before the event).

    A randomised version of :class:`LargestRate`; at a congestion time ``sum_j x_j = c``.
    """

    name: ClassVar[str] = "rate-proportional"

    def choose(self, rates: np.ndarray, state: Any, rng: np.random.Generator) -> np.ndarray:
        flows = rates.shape[1]
        level = rng.random(rates.shape[0]) * rates.sum(axis=1)
        running = rates[:, 0].copy()
        picks = (running <= level).astype(np.intp)
        for j in range(1, flows - 1):  # column loops: fast for the fluid model's layout
            running += rates[:, j]
            picks += running <= level
        return picks


@dataclass(frozen=True)
class LargestRate(LossPolicy):
    """Signal the connection with the largest rate (the lowest index among ties)."""

    name: ClassVar[str] = "largest-rate"

    def choose(self, rates: np.ndarray, state: Any, rng: np.random.Generator) -> np.ndarray:
        return _argmax_rows(rates)


@dataclass(frozen=True)
class Beatdown(LossPolicy):
    """Keep signalling one tagged connection until its rate is below ``threshold * c``.

    Section IV-B of the paper: the tagged connection is "chosen as long as permitted by link
    capacity", so its rate is beaten down towards zero while congestion times accumulate
    (infinitely many in finite time in the limit). A fluid simulation cannot run infinitely many
    events, so the tag is released once the tagged connection's rate at a congestion time is
    below ``threshold`` (a fraction of the capacity c, default 1e-3); at that event a new
    connection is tagged and signalled. The paper's stationary point (``y_1 = 2c/N``, the tagged
    connection being ``y~_1``, the largest) says the new tag is the connection with the largest
    rate: ``pick="largest"``. ``pick="random"`` tags one of the other connections uniformly;
    Theorem 3 says the mean aggregate rate is the same for any such rule. Each beatdown lasts
    about ``log(threshold) / log(beta + (1 - beta)/N)`` events for identical connections. The
    beaten connection still halves (for beta = 1/2) at each event, so for N = 2 its E[X^2]/c^2
    tends to 28/111 ~ 0.252 as the threshold vanishes, not the 1/3 of the paper's Theorem 2.
    """

    threshold: float = 1e-3
    pick: str = "largest"
    name: ClassVar[str] = "beatdown"

    def __post_init__(self) -> None:
        check_range("threshold", self.threshold, 0.0, 1.0, low_open=True, high_open=True)
        check_choice("pick", self.pick, ("largest", "random"))

    def initial_state(self, replicas: int, flows: int) -> np.ndarray:
        """Tagged connection per replica; -1 means nobody is tagged yet."""
        return np.full(replicas, -1, dtype=np.intp)

    def choose(self, rates: np.ndarray, state: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        replicas, flows = rates.shape
        rows = np.arange(replicas)
        tagged = state
        capacity = rates.sum(axis=1)  # equals c at a congestion time
        current = rates[rows, np.maximum(tagged, 0)]
        retag = (tagged < 0) | (current < self.threshold * capacity)
        if retag.any():
            if self.pick == "largest" or flows == 1:
                tagged[retag] = _argmax_rows(rates[retag])
            else:
                old = tagged[retag]
                fresh = np.where(
                    old < 0,
                    rng.integers(0, flows, size=old.size),
                    rng.integers(0, flows - 1, size=old.size),
                )
                fresh += (old >= 0) & (fresh >= old)  # skip the connection just released
                tagged[retag] = fresh
        return tagged.copy()


@dataclass(frozen=True)
class AllFlows(LossPolicy):
    """Synchronised losses: every connection decreases at every congestion event (ALL)."""

    name: ClassVar[str] = "all"
    signals_one: ClassVar[bool] = False

    def signal(self, rates: np.ndarray, state: Any, rng: np.random.Generator) -> np.ndarray:
        return np.ones(rates.shape, dtype=bool)

    def choose(self, rates: np.ndarray, state: Any, rng: np.random.Generator) -> np.ndarray:
        raise TypeError("policy 'all' signals every connection; use signal()")


def _argmax_rows(rates: np.ndarray) -> np.ndarray:
    """Row-wise argmax (first maximum) by a loop over columns, fast for few columns."""
    best = rates[:, 0].copy()
    picks = np.zeros(rates.shape[0], dtype=np.intp)
    for j in range(1, rates.shape[1]):
        column = rates[:, j]
        larger = column > best
        picks[larger] = j
        np.maximum(best, column, out=best)
    return picks


_FACTORIES: dict[str, type[LossPolicy]] = {
    cls.name: cls for cls in (RateIndependent, RateProportional, LargestRate, Beatdown, AllFlows)
}
POLICY_NAMES: tuple[str, ...] = tuple(_FACTORIES)


def make_policy(
    name: str, flows: int, probs: Sequence[float] | np.ndarray | None = None
) -> LossPolicy:
    """Build the policy called ``name`` for ``flows`` connections.

    ``probs`` (selection probabilities, summing to 1) is only accepted for
    ``"rate-independent"``, which is uniform without it. Beatdown uses its default threshold.
    """
    if not isinstance(name, str):
        raise ValueError(f"policy={name!r} is not one of: {', '.join(POLICY_NAMES)}")
    check_choice("policy", name, POLICY_NAMES)
    flows = check_int("flows", flows, 1)
    if probs is not None and name != "rate-independent":
        raise ValueError(f"probs is only used by policy 'rate-independent', not policy={name!r}")
    if name == "rate-independent":
        policy: LossPolicy = RateIndependent(None if probs is None else probs)  # type: ignore[arg-type]  # checked by RateIndependent
    else:
        policy = _FACTORIES[name]()
    return policy.bind(flows)
