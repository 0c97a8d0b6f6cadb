"""What-if: a beatdown that holds the aggregate at c, the assumption behind the paper's 1/3.

Under the real beatdown (:class:`tcplab.policies.Beatdown`) every congestion event multiplies
the tagged rate by beta: the aggregate dips below c, everybody climbs back, and the tagged rate
follows a geometric sawtooth *below* c minus the others, down to 0. Theorem 2's 1/3 for two
connections is E[X^2]/c^2 of a rate uniform on [0, c]; the book's explanation is that it needs
the tagged rate to be exactly ``c - (the others)`` during a beatdown, so that the aggregate
stays at c. This module runs that variant, and nothing else changes: between two tagging times
every untagged rate climbs at eta_i, the tagged rate is c minus their sum (a straight line down),
the beatdown ends when it reaches 0 (after ``y_M / sum_{j != M} eta_j``, eq. (11) of the paper),
and the largest rate is tagged next. The rates at the tagging times therefore obey the same
eqs. (10)-(11) as the real beatdown; only the tagged rate's path between them differs. Every
rate is piecewise linear, so the integrals are exact (no time step): a segment from a to b of
length D contributes ``D (a + b)/2`` to the integral of x and ``D (a^2 + a b + b^2)/3`` to that
of x^2. :func:`held_beatdown` sets it beside the real beatdown of the fluid model.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from tcplab import fluid, policies
from tcplab.checks import check_int, check_per_flow, check_range
from tcplab.theory import altman
from tcplab.theory import moments as theory_moments

__all__ = ["HeldPath", "HeldParams", "held_path", "held_moments", "held_beatdown", "VARIANTS"]

#: the two variants of the what-if table: the cause present, and removed
VARIANTS = ("AIMD beatdown (fluid model)", "aggregate held at c (what-if)")


@dataclass(frozen=True, eq=False)
class HeldPath:
    """Rates at the tagging times of the held beatdown, and the exact integrals between them.

    ``times[k]`` is the k-th tagging time, ``rates[k]`` the rates then (they sum to c),
    ``tagged[k]`` the connection tagged at ``times[k]`` (k < K); ``first[k]`` and ``second[k]``
    hold each connection's integrals of x and x^2 from ``times[k]`` to ``times[k + 1]``.
    """

    times: np.ndarray
    rates: np.ndarray
    tagged: np.ndarray
    first: np.ndarray
    second: np.ndarray
    capacity: float


def held_path(
    flows: int,
    beatdowns: int,
    *,
    start: ArrayLike,
    capacity: float = 1.0,
    eta: float | ArrayLike = 1.0,
) -> HeldPath:
    """The held beatdown over ``beatdowns`` tagging intervals from the rates ``start`` (they
    must sum to ``capacity``, to 1e-9 relative: a tagging time is a congestion time)."""
    n = check_int("flows", flows, 2)
    k_max = check_int("beatdowns", beatdowns, 1, 10_000_000)
    c = check_range("capacity", capacity, 0.0, low_open=True)
    slope = check_per_flow("eta", eta, n, 0.0, low_open=True)
    y = check_per_flow("start", start, n, 0.0, c).astype(float)
    if abs(y.sum() - c) > 1e-9 * c:
        raise ValueError(f"start={y.tolist()!r} sums to {y.sum():g}; it must sum to capacity={c:g}")
    times = np.zeros(k_max + 1)
    rates = np.empty((k_max + 1, n))
    tagged = np.empty(k_max, dtype=np.intp)
    first, second = np.empty((k_max, n)), np.empty((k_max, n))
    rates[0] = y
    for k in range(k_max):
        m = int(np.argmax(y))  # the paper's stationary point tags the largest rate
        climbing = np.arange(n) != m
        span = y[m] / slope[climbing].sum()  # eq. (11): the others take up what the tag held
        end = np.where(climbing, y + slope * span, 0.0)
        end[m] = c - end[climbing].sum()  # 0 up to rounding: the tagged rate is c - others
        first[k] = span * (y + end) / 2.0
        second[k] = span * (y * y + y * end + end * end) / 3.0
        tagged[k], times[k + 1] = m, times[k] + span
        y = np.where(climbing, end, 0.0)
        rates[k + 1] = y
    return HeldPath(times, rates, tagged, first, second, c)


def held_moments(path: HeldPath, skip: int = 0) -> tuple[np.ndarray, np.ndarray, float]:
    """Time-stationary (E[X_i]/c, E[X_i^2]/c^2, E[sum X_i]/c) after the first ``skip``
    tagging intervals."""
    skip = check_int("skip", skip, 0, len(path.tagged) - 1)
    time = path.times[-1] - path.times[skip]
    c = path.capacity
    mean = path.first[skip:].sum(axis=0) / (time * c)
    second = path.second[skip:].sum(axis=0) / (time * c * c)
    return mean, second, float(mean.sum())


@dataclass(frozen=True)
class HeldParams:
    """Identical TCP-like connections (beta = 1/2): the held what-if against the real beatdown."""

    flows: tuple[int, ...] = (2, 3, 4, 5, 6)
    beta: float = 0.5
    warmup_beatdowns: int = 600  # a multiple of every N: whole cycles of N beatdowns
    beatdowns: int = 6_000
    events: int = 40_000  # the real beatdown (fluid model), as in moments-table
    replicas: int = 64
    threshold: float = 1e-7  # the real beatdown releases its tag below threshold * c

    @classmethod
    def quick(cls) -> HeldParams:
        return cls(flows=(2, 3), beatdowns=1_200, events=5_000, replicas=4)


def held_beatdown(params: HeldParams, seed: int = 0) -> pd.DataFrame:
    """E[X^2]/c^2 and the mean aggregate per N: the real beatdown (fluid model, 95% interval
    over replicas) and the held what-if (deterministic, from a seeded random start), each with
    its closed form, the paper's 1/3 (N = 2) and Theorem 1's mean aggregate."""
    rows = []
    for n in params.flows:
        result = fluid.simulate(
            n,
            policies.Beatdown(threshold=params.threshold),
            beta=params.beta,
            events=params.events,
            replicas=params.replicas,
            seed=seed,
        )
        rng = np.random.default_rng(np.random.SeedSequence([seed, n]))
        shares = rng.exponential(size=n)
        path = held_path(n, params.warmup_beatdowns + params.beatdowns, start=shares / shares.sum())
        _, second, aggregate = held_moments(path, params.warmup_beatdowns)
        common = {
            "flows": n,
            "beta": params.beta,
            "paper": theory_moments.PAPER_THEOREM2["beatdown"] if n == 2 else np.nan,
            "theorem1": float(altman.parallel_throughput(n, beta=params.beta)),
        }
        rows.append(
            {
                "variant": VARIANTS[0],
                **common,
                "second_moment": float(np.mean(result.second_moment)),
                "second_moment_ci": float(np.max(result.second_moment_ci)),
                "closed_form": theory_moments.beatdown_second_moment(n, params.beta),
                "aggregate": result.aggregate,
                "spread": float(np.ptp(result.second_moment)),
            }
        )
        rows.append(
            {
                "variant": VARIANTS[1],
                **common,
                "second_moment": float(second.mean()),
                "second_moment_ci": 0.0,  # deterministic
                "closed_form": theory_moments.beatdown_pinned_second_moment(n),
                "aggregate": aggregate,
                "spread": float(np.ptp(second)),
            }
        )
    return pd.DataFrame(rows)
