"""How far the probes' run-to-run noise moves the advisor's answer: a band on the predicted
throughput and on the impact, and the margin it puts around the model's domain.

Each probe level n measured k >= 2 times gives a Student t interval on its mean throughput,
``mean +- t(k - 1) sd / sqrt(k)`` (95%, two-sided): a *box* of possible true means. The fit is
linear in ``y = n^2 / BW^2`` (eqs. 11-14: ``p'_n = sum_i c_i(n) y_i`` with weights that do not
depend on the measurements), so the predicted throughput ``n / sqrt(p'_n)`` is monotone in a
linear function of the y's and the impact ``1 - sqrt(p'_1 / p'_n)`` (eq. 18) is a ratio of two
linear ones: over a box both reach their extremes at its corners, and the band is their range
over the corners.

Confidence: the probes are independent, so every interval covers its probe's true mean with
probability 0.95^L (L probe levels; 90.25% for two), and then the band covers what the model
predicts from the true means. With two probes the impact rises with the fewer-flows probe's
throughput and falls with the more-flows one's, so its upper edge comes from one corner, the
two one-sided 97.5% edges: the impact is at most the upper edge with probability >= 0.975^2 =
95.06%. That is the edge the advisor decides on. The band is about the probes' noise only, not
about the model's own error (the partial model's missing 2amn term, cross traffic that is not
Reno-like).

Why Student's t and not a bootstrap: with the 2-5 runs a probe gets, resampling them has
only 3 (k = 2) or 10 (k = 3) distinct outcomes and its percentile interval uses the spread with
divisor k and normal quantiles, so it covers the mean far less often than it says; the t
interval is exact at any k when a run's noise is normal.

Without repeats nothing measures the spread. The margin around the model's domain then uses an
assumed spread per run, :data:`ASSUMED_RUN_SPREAD`, as if each probe's interval were
``mean (1 +- 1.96 x spread)``: probes whose box reaches linear growth (``a' <= 0`` at a corner)
cannot tell a loss-limited path from a window-limited or uncongested one, and the advisor calls
them undecidable (:func:`near_linear_factor` gives the factor of linear growth this means).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from .checks import check_int, check_range
from .stats import t975
from .theory.lu import MODELS, PROBES_NEEDED, basis

__all__ = [
    "ASSUMED_RUN_SPREAD",
    "Box",
    "assumed_box",
    "admits_linear",
    "impact_band",
    "linear_share",
    "measured_box",
    "near_linear_factor",
    "repeats_needed",
    "t_quantile",
    "throughput_band",
    "upper_confidence",
]

#: the relative standard deviation of one probe run assumed when no repeats measure it
#: (iperf3 on a quiet path repeats within a few percent; a busy path needs repeats, whose
#: measured spread then replaces this)
ASSUMED_RUN_SPREAD = 0.05
#: the 95% two-sided normal quantile (the assumed spread's interval, one run per probe)
Z95 = 1.96
#: a probe's interval reaching 0 is floored at this fraction of its mean (y stays finite; the
#: impact's upper edge is then within 1e-3 of 1: the band cannot bound it)
FLOOR = 1e-6


def t_quantile(df: int) -> float:
    """The two-sided 95% quantile of Student's t with ``df`` degrees of freedom (the book's
    one: :func:`tcplab.stats.t975`)."""
    return t975(check_int("df", df, 1))


def near_linear_factor(spread: float = ASSUMED_RUN_SPREAD) -> float:
    """The share of linear growth above which two single-run probes, each taken to be within
    ``1.96 x spread`` of its mean, cannot exclude linear growth: ``(1 - 1.96 s) / (1 + 1.96 s)``
    (the fewer-flows probe at its lower edge, the more-flows one at its upper edge); 0.82 for
    the assumed 5%."""
    s = check_range("spread", spread, 0.0, 1.0 / Z95, high_open=True)
    return (1.0 - Z95 * s) / (1.0 + Z95 * s)


def linear_share(probes: Mapping[int, float]) -> float:
    """How much of linear growth the probes show: the most-flows probe's throughput over the
    fewest-flows one's times (fewest / most flows); 1 is linear growth."""
    low, high = min(probes), max(probes)
    return probes[high] / probes[low] * low / high


def upper_confidence(levels: int) -> float:
    """The confidence that the impact is at most the band's upper edge: 0.975^2 for two probes
    (one corner, two one-sided 97.5% edges), 0.95^L for L > 2 (the whole box)."""
    return 0.975**2 if levels == 2 else 0.95**levels


@dataclass(frozen=True)
class Box:
    """Per probe level n the (low, high) edges of its mean throughput: from repeats
    (``measured``, 95% t intervals) or from the assumed spread of one run; ``floored`` lists
    the levels whose interval reached 0 (floored at FLOOR x mean)."""

    means: dict[int, float]
    edges: dict[int, tuple[float, float]]
    measured: bool
    floored: tuple[int, ...] = ()

    def corners(self) -> list[dict[int, float]]:
        """Every corner of the box, {n: throughput}."""
        levels = sorted(self.edges)
        return [dict(zip(levels, pick, strict=True))
                for pick in itertools.product(*(self.edges[n] for n in levels))]  # fmt: skip


def _box(means: dict[int, float], halves: dict[int, float], measured: bool) -> Box:
    edges, floored = {}, []
    for n in sorted(means):
        mean, half = means[n], halves[n]
        low = mean - half
        if low <= FLOOR * mean:
            low = FLOOR * mean
            floored.append(n)
        edges[n] = (low, mean + half)
    return Box(means, edges, measured, tuple(floored))


def measured_box(samples: Mapping[int, Sequence[float]]) -> Box | None:
    """The box of the probes' 95% t intervals; None unless every level has k >= 2 runs. A
    level whose runs are all equal gets the assumed spread's interval instead."""
    if any(len(values) < 2 for values in samples.values()):
        return None
    means = {n: float(np.mean(v)) for n, v in samples.items()}
    halves = {}
    for n, values in samples.items():
        sd = float(np.std(values, ddof=1))
        # runs that agree exactly measure no spread (a copy, or a rounded value): that probe
        # keeps the assumed one, or a typed-in repeat would remove the margin
        halves[n] = (
            t_quantile(len(values) - 1) * sd / math.sqrt(len(values))
            if sd > 0
            else Z95 * ASSUMED_RUN_SPREAD * means[n]
        )
    return _box(means, halves, measured=True)


def assumed_box(means: Mapping[int, float], spread: float = ASSUMED_RUN_SPREAD) -> Box:
    """The box one run per probe would have with relative spread ``spread``: mean (1 +- 1.96
    spread)."""
    check_range("spread", spread, 0.0, 1.0 / Z95, high_open=True)
    values = {int(n): float(v) for n, v in means.items()}
    return _box(values, {n: Z95 * spread * v for n, v in values.items()}, measured=False)


def _weights(model: str, levels: Sequence[int], flows: Sequence[int]) -> np.ndarray:
    """C with p'(flows) = C @ y for probes at ``levels`` (eqs. 11-14; least squares beyond
    the model's number of parameters). Two partial2 probes: the chapter's exact weights
    (1 - w, w), w = (n^2 - n1^2) / (n2^2 - n1^2)."""
    if model not in MODELS or len(levels) < PROBES_NEEDED[model]:
        raise ValueError(f"model={model!r} needs {PROBES_NEEDED.get(model, '?')} probe levels")
    n = np.asarray(flows, dtype=float)[:, None]
    if model == "partial2" and len(levels) == 2:
        n1, n2 = (float(v) for v in levels)
        w = (n**2 - n1**2) / (n2**2 - n1**2)
        return np.hstack([1.0 - w, w])
    return basis(model, n[:, 0]) @ np.linalg.pinv(basis(model, levels))


def _corner_profiles(box: Box, model: str, flows: Sequence[int]) -> np.ndarray:
    """p'_n at every corner (rows) and n (columns)."""
    levels = sorted(box.edges)
    weights = _weights(model, levels, flows)
    y = np.array([[n * n / corner[n] ** 2 for n in levels] for corner in box.corners()])
    return y @ weights.T


def admits_linear(box: Box, model: str = "partial2") -> bool:
    """Does some corner of the box grow at least linearly (the n^2 coefficient a' <= 0)?"""
    levels = sorted(box.edges)
    first = np.linalg.pinv(basis(model, levels))[0]  # a' as weights on the y's
    y = np.array([[n * n / corner[n] ** 2 for n in levels] for corner in box.corners()])
    return bool(np.any(y @ first <= 0))


def impact_band(
    box: Box, model: str, flows: Sequence[int], base: int = 1
) -> dict[int, tuple[float, float]]:
    """The impact's range over the box's corners at each n: (lower, upper). The lower edge
    is clipped at 0 (eq. 18 goes negative only outside the model's domain); where a corner
    leaves the domain (p'_n <= 0) the upper edge is 1, the trivial bound."""
    levels = [int(n) for n in flows]
    profiles = _corner_profiles(box, model, [base, *levels])
    at_base, at_n = profiles[:, :1], profiles[:, 1:]
    valid = (at_base > 0) & (at_n > 0)
    with np.errstate(invalid="ignore", divide="ignore"):
        impact = 1.0 - np.sqrt(np.where(valid, at_base / np.where(valid, at_n, 1.0), np.nan))
    upper = np.max(np.where(valid, impact, 1.0), axis=0)
    lower = np.clip(np.min(np.where(valid, impact, 0.0), axis=0), 0.0, None)
    band = {}
    for n, lo, hi in zip(levels, lower, upper, strict=True):
        band[n] = (0.0, 0.0) if n == base else (float(min(lo, hi)), float(min(hi, 1.0)))
    return band


def throughput_band(box: Box, model: str, flows: Sequence[int]) -> dict[int, tuple[float, float]]:
    """The predicted throughput's range over the box's corners at each n; (-inf, inf) where a
    corner leaves the model's domain (p'_n <= 0: no finite prediction)."""
    levels = [int(n) for n in flows]
    profiles = _corner_profiles(box, model, levels)
    n = np.asarray(levels, dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        curves = np.where(profiles > 0, n / np.sqrt(np.where(profiles > 0, profiles, 1.0)), np.nan)
    low = np.min(np.where(np.isfinite(curves), curves, -np.inf), axis=0)
    high = np.max(np.where(np.isfinite(curves), curves, np.inf), axis=0)
    return {k: (float(lo), float(hi)) for k, lo, hi in zip(levels, low, high, strict=True)}


def repeats_needed(
    samples: Mapping[int, Sequence[float]],
    model: str,
    flows: int,
    limit: float,
    base: int = 1,
    most: int = 1_000_000,
) -> int | None:
    """The fewest runs per probe for which the impact's upper edge at ``flows`` is within
    ``limit``, assuming every probe's mean and run-to-run standard deviation stay as measured
    (so each half-width shrinks as t(k - 1) / sqrt(k)); None if even ``most`` runs would not
    do (the point estimate sits at the limit)."""
    means = {n: float(np.mean(v)) for n, v in samples.items()}
    sds = {n: float(np.std(v, ddof=1)) if len(v) > 1 else 0.0 for n, v in samples.items()}

    def upper(k: int) -> float:
        halves = {n: t_quantile(k - 1) * sds[n] / math.sqrt(k) for n in means}
        return impact_band(_box(means, halves, True), model, [flows], base)[flows][1]

    if upper(most) > limit:
        return None
    low, high = 2, most  # upper(high) <= limit; the edge shrinks as k grows
    while low < high:
        mid = (low + high) // 2
        if upper(mid) <= limit:
            high = mid
        else:
            low = mid + 1
    return low
