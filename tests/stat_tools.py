"""Exact reference statistics for the tests, computed independently of tcplab.stats.

Student's t distribution function for integer degrees of freedom is a finite trigonometric
sum (Abramowitz and Stegun 26.7.3-26.7.4), so its quantiles follow by bisection with no
table and no series; binomial tails are summed exactly. The statistical tests take their
tolerances from these, each with the false-alarm rate it accepts written beside it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from statistics import NormalDist

import numpy as np
from numpy.typing import ArrayLike

__all__ = [
    "t_cdf",
    "t_quantile",
    "normal_quantile",
    "binomial_region",
    "t_half_width",
    "widen",
    "proportion_bound",
]


def t_cdf(t: float, df: int) -> float:
    """P(T <= t) for Student's t with ``df`` >= 1 degrees of freedom (A&S 26.7.3/26.7.4)."""
    if df < 1 or int(df) != df:
        raise ValueError(f"df={df} must be an integer >= 1")
    theta = math.atan(t / math.sqrt(df))
    s, c = math.sin(theta), math.cos(theta)
    if df % 2:  # odd: A = (2/pi) (theta + sin cos (1 + 2/3 cos^2 + 2.4/(3.5) cos^4 + ...))
        total, term = 0.0, c
        for k in range(1, (df - 1) // 2 + 1):
            total += term
            term *= c * c * (2 * k) / (2 * k + 1)
        a = 2 / math.pi * (theta + s * total) if df > 1 else 2 / math.pi * theta
    else:  # even: A = sin (1 + 1/2 cos^2 + 1.3/(2.4) cos^4 + ...)
        total, term = 0.0, 1.0
        for k in range(1, df // 2 + 1):
            total += term
            term *= c * c * (2 * k - 1) / (2 * k)
        a = s * total
    return 0.5 + a / 2


def t_quantile(q: float, df: int) -> float:
    """The q-quantile of Student's t with ``df`` degrees of freedom, to about 1e-12."""
    if not 0.0 < q < 1.0:
        raise ValueError(f"q={q} must be in (0, 1)")
    if q < 0.5:
        return -t_quantile(1.0 - q, df)
    low, high = 0.0, 1.0
    while t_cdf(high, df) < q:
        high *= 2.0
    for _ in range(200):
        mid = (low + high) / 2
        if t_cdf(mid, df) < q:
            low = mid
        else:
            high = mid
        if high - low < 1e-13 * high:
            break
    return (low + high) / 2


def normal_quantile(q: float) -> float:
    """The q-quantile of the standard normal distribution."""
    return NormalDist().inv_cdf(q)


def binomial_region(n: int, p: float, false_alarm: float) -> tuple[int, int]:
    """Counts [low, high] that Binomial(n, p), 0 < p < 1, leaves with probability at most
    ``false_alarm``, at most half of it in each tail."""
    log_pmf = [
        math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1)
        + k * math.log(p) + (n - k) * math.log1p(-p)
        for k in range(n + 1)
    ]  # fmt: skip
    pmf = [math.exp(v) for v in log_pmf]
    low, tail = 0, 0.0
    while tail + pmf[low] <= false_alarm / 2:
        tail += pmf[low]
        low += 1
    high, tail = n, 0.0
    while tail + pmf[high] <= false_alarm / 2:
        tail += pmf[high]
        high -= 1
    return low, high


def t_half_width(values: Sequence[float], false_alarm: float) -> tuple[float, float]:
    """Mean of independent normal-ish ``values`` and the half-width of its two-sided
    Student-t interval that misses the true mean with probability ``false_alarm``."""
    n = len(values)
    if n < 2:
        raise ValueError("a t interval needs at least two values")
    mean = math.fsum(values) / n
    sd = math.sqrt(math.fsum((v - mean) ** 2 for v in values) / (n - 1))
    return mean, t_quantile(1 - false_alarm / 2, n - 1) * sd / math.sqrt(n)


def widen(half_width_95: ArrayLike, df: int, false_alarm: float) -> np.ndarray:
    """Turn a 95% Student-t half-width with ``df`` degrees of freedom into the half-width of
    the interval that misses with probability ``false_alarm`` (two-sided)."""
    ratio = t_quantile(1 - false_alarm / 2, df) / t_quantile(0.975, df)
    return np.asarray(half_width_95) * ratio


def proportion_bound(n: int, p: float | ArrayLike, false_alarm: float) -> np.ndarray:
    """Half-width around p that a proportion of n Bernoulli(p) draws leaves with probability
    ``false_alarm`` (normal approximation: use it with n p (1 - p) in the hundreds or more)."""
    p = np.asarray(p, dtype=float)
    return normal_quantile(1 - false_alarm / 2) * np.sqrt(p * (1 - p) / n)
