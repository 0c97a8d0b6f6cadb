"""Where the fluid model's arithmetic holds: its input ranges, derived from float64, and the
check of every result.

**Units.** The model runs in units of the capacity: rates ``x_i / c`` in [0, 1] and increases
``k_i = eta_i / c`` (capacities per unit time); time keeps its unit. So c itself never meets
an overflow (``c**3`` would at 5.6e102, ``c**2`` underflow below 1.5e-154); it only sets k.

**Time scale.** Every time the model forms is a multiple of ``1 / sum(k)``: congestion gaps
``(1 - beta) x / sum(k)``, the measured time (at most events x replicas of them) and the
integrals of rates in [0, 1] over it. With every k_i in :data:`RATE_RANGE`, [1e-200, 1e200],
the largest of them stays below 1e220 (events x replicas below 1e20), far from float64's
1.8e308, and a gap stays a normal number (above 2.2e-308) for
every rate above 1e-80 c (for 1 - beta down to 1e-16 and up to 1e6 connections): about 80
decades of margin on each side. Rates below 1e-80 c add less than 1e-80 to any mean.

**Precision.** Each connection's integrals are summed one linear piece (between two of its
drops) at a time, as trapezoids of non-negative terms (:class:`tcplab.fluid_tally.Tally`), so a
mean is a weighted average of rates in [0, c] with the run's own time pieces as weights: exact
to rounding (about eps = 2.2e-16 per piece), whatever the connections' spread of eta or beta's
nearness to 1. (The difference of squares ``(b**2 - a**2) / (2 eta_i)`` these integrals used to
be lost every digit when a rate grew little between its drops, by the factor
``sum(eta) / min(eta) / (1 - beta)``: eta = (1e-50, 1) printed -282 c for a utilisation.)

**Results.** Every mean is checked after the run: finite, and in [0, 1] (units of c, or c**2
for second moments) up to :data:`RESULT_SLACK`, far above the rounding of sums of at most 1e9
pieces; a value within the slack is set on the interval's end, a value beyond it raises
:class:`ResultOutOfRange`. So does a run whose measured events take no time at all (the link
never leaves its capacity, as when every event signals a connection whose rate has fallen to
0): there is nothing to average over.
"""

from __future__ import annotations

import math

import numpy as np

__all__ = [
    "RATE_RANGE",
    "RESULT_SLACK",
    "ResultOutOfRange",
    "check_rates",
    "in_unit_interval",
]

#: the allowed range of every eta_i / capacity (capacities per unit time)
RATE_RANGE = (1e-200, 1e200)
#: how far rounding may carry a mean out of [0, 1] (it does by about 1e-15)
RESULT_SLACK = 1e-9


class ResultOutOfRange(ValueError):
    """A run whose result is impossible (outside [0, 1], or not finite): never shown."""


def _decades(value: float) -> float:
    return abs(math.log10(value)) if 0.0 < value < math.inf else math.inf


def _shown(values: np.ndarray) -> str:
    return f"{float(values[0]):g}" if np.all(values == values[0]) else str(values.tolist())


def check_rates(capacity: float, eta: np.ndarray) -> np.ndarray:
    """``eta / capacity``, each in :data:`RATE_RANGE`; else a ValueError that blames the one
    of the two farther from 1 and gives its allowed range for the other."""
    low, high = RATE_RANGE
    with np.errstate(over="ignore", under="ignore"):
        rates = eta / capacity
    bad = np.flatnonzero(~((rates >= low) & (rates <= high)))
    if bad.size == 0:
        return rates
    why = (
        f"the time capacity/eta in which a rate grows by the capacity must lie in "
        f"[{1 / high:g}, {1 / low:g}]"
    )
    i = int(bad[0])
    if _decades(capacity) >= _decades(float(eta[i])):
        with np.errstate(over="ignore", under="ignore"):
            allowed = (float(eta.max()) / high, float(eta.min()) / low)
        raise ValueError(
            f"capacity={capacity!r} is outside the allowed range [{allowed[0]:g}, "
            f"{allowed[1]:g}] for eta={_shown(eta)}: {why}"
        )
    label = "eta" if np.all(eta == eta[0]) else f"eta[{i}]"
    with np.errstate(over="ignore", under="ignore"):
        allowed = (capacity * low, capacity * high)
    raise ValueError(
        f"{label}={float(eta[i])!r} is outside the allowed range [{allowed[0]:g}, "
        f"{allowed[1]:g}] for capacity={capacity:g}: {why}"
    )


def in_unit_interval(name: str, values: np.ndarray | float) -> np.ndarray:
    """``values`` (a mean in units of c, or c**2) set on [0, 1] when rounding carried them
    out by at most :data:`RESULT_SLACK`; :class:`ResultOutOfRange` when they are further out
    or not finite."""
    array = np.array(values, dtype=float)
    outside = ~((array >= -RESULT_SLACK) & (array <= 1.0 + RESULT_SLACK))
    if outside.any():
        found = float(array[outside].flat[0])
        raise ResultOutOfRange(
            f"the fluid model computed {name} = {found!r}, outside [0, 1] beyond its "
            f"rounding bound {RESULT_SLACK:g}: these inputs are outside what its arithmetic "
            f"holds for (see tcplab.fluid_domain); nothing is shown"
        )
    return np.clip(array, 0.0, 1.0)
