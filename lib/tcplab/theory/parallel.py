"""Closed forms for N parallel AIMD connections (Altman et al. 2006, Section II-B).

Rates are in units of the link capacity c unless a ``capacity`` is given. ``rho`` below is
``(1 + beta)/(1 - beta)``, so Theorem 1 reads ``1 - 1/(1 + N rho)``
(:func:`tcplab.theory.altman.parallel_throughput`). Everything here is derived in the chapter
*Parallel TCP throughput and its insensitivity to the loss policy* and checked against the
exact fluid model in ``tests/test_insensitivity.py``:

* ALL (synchronised losses): every connection decreases at every event, so the aggregate is a
  sawtooth between ``beta c`` and ``c``: ``(1 + beta)/2`` for every N (paper, eq. (6)).
* The gain of ONE over ALL, ``(1 - 1/(1 + N rho)) / ((1 + beta)/2)``, tends to ``2/(1 + beta)``.
* MultTCP: one AIMD connection with increase ``N eta`` and decrease ``1 - (1 - beta)/N``
  (the paper's design rationale; its printed "1 - N/2" is a typo), so by (6) its throughput
  is ``1 - (1 - beta)/(2N)``, ``1 - 1/(4N)`` for TCP. Its ratio to Theorem 1 is largest at
  N = 2 for every beta, where it is ``(3 + beta)**2 / (8 (1 + beta))`` (49/48 for TCP).
* A single AIMD connection matches Theorem 1 exactly with decrease ``1 - 2/(1 + N rho)``.
* Connections that differ: for any ONE policy the mean aggregate is ``K/(1 + K)`` with
  ``K = eta_total * sum_k rho_k d_k**2 / eta_k / sum_k d_k**2`` over the congestion events k
  (d_k the drop of the aggregate, rho_k and eta_k those of the connection signalled). The
  policy chooses the weights, so K, and the throughput, depend on it; K lies between
  ``eta_total * min(rho_i/eta_i)`` and ``eta_total * max(rho_i/eta_i)``
  (:func:`one_policy_range`). For identical connections both are ``N rho``: Theorem 1.
* Rate-independent policy (connection i signalled with fixed probability p_i), any per-flow
  beta_i and eta_i: the rates at congestion times follow a random *linear* recursion, so their
  stationary second moments solve a linear system; Palm inversion turns them into exact
  time-average throughputs per connection (:func:`rate_independent_throughputs`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from numpy.typing import ArrayLike

from ..checks import check_int, check_per_flow, check_range
from .altman import parallel_throughput

__all__ = [
    "PROBS_TOLERANCE",
    "synchronised_throughput",
    "gain_one_over_all",
    "gain_limit",
    "multtcp_decrease",
    "multtcp_throughput",
    "multtcp_ratio",
    "multtcp_max_ratio",
    "matching_decrease",
    "two_class_probs",
    "example1_probs",
    "rate_independent_throughputs",
    "one_policy_range",
]

PROBS_TOLERANCE = 1e-9


def _beta(beta: float) -> float:
    return check_range("beta", beta, 0.0, 1.0, low_open=True, high_open=True)


def _n(flows: ArrayLike) -> np.ndarray:
    values = np.asarray(flows, dtype=float)
    for value in np.atleast_1d(values):
        check_range("flows", value, 1.0)
    return values


def _out(values: np.ndarray) -> np.ndarray | float:
    return float(values) if np.ndim(values) == 0 else values


def synchronised_throughput(flows: ArrayLike, beta: float = 0.5) -> np.ndarray | float:
    """Mean aggregate rate / c under ALL (every connection signalled at every event), eq. (6).

    Identical decrease factors: just after an event the aggregate is ``beta c`` whatever N and
    the increase rates are, and it climbs linearly back to ``c``: mean ``(1 + beta)/2``.
    """
    beta = _beta(beta)
    n = _n(flows)
    return _out(np.full_like(n, (1.0 + beta) / 2.0))


def gain_one_over_all(flows: ArrayLike, beta: float = 0.5) -> np.ndarray | float:
    """Throughput under any ONE policy (Theorem 1) divided by that under ALL (eq. (6))."""
    beta = _beta(beta)
    n = _n(flows)
    return _out(np.asarray(parallel_throughput(n, beta)) / ((1.0 + beta) / 2.0))


def gain_limit(beta: float = 0.5) -> float:
    """The limit of :func:`gain_one_over_all` as N grows: ``2/(1 + beta)`` (4/3 for TCP)."""
    return 2.0 / (1.0 + _beta(beta))


def multtcp_decrease(flows: ArrayLike, beta: float = 0.5) -> np.ndarray | float:
    """MultTCP's multiplicative-decrease factor ``1 - (1 - beta)/N`` (``1 - 1/(2N)`` for TCP).

    One of N virtual connections, holding the even share x/N, halves: the total drops by
    ``(1 - beta) x / N``.
    """
    beta = _beta(beta)
    return _out(1.0 - (1.0 - beta) / _n(flows))


def multtcp_throughput(flows: ArrayLike, beta: float = 0.5) -> np.ndarray | float:
    """Mean rate / c of one MultTCP connection emulating N: ``1 - (1 - beta)/(2N)``.

    It is a single AIMD connection, so eq. (6) applies with its decrease factor
    ``b = 1 - (1 - beta)/N``: ``(1 + b)/2``. For TCP (beta = 1/2) this is ``1 - 1/(4N)``.
    """
    beta = _beta(beta)
    return _out(1.0 - (1.0 - beta) / (2.0 * _n(flows)))


def multtcp_ratio(flows: ArrayLike, beta: float = 0.5) -> np.ndarray | float:
    """MultTCP's throughput over that of N connections under ONE (Theorem 1).

    For TCP it is ``(4N - 1)(3N + 1)/(12 N**2) = 1 + (N - 1)/(12 N**2)``.
    """
    beta = _beta(beta)
    n = _n(flows)
    return _out(np.asarray(multtcp_throughput(n, beta)) / np.asarray(parallel_throughput(n, beta)))


def multtcp_max_ratio(beta: float = 0.5) -> tuple[int, float]:
    """Where MultTCP overshoots N connections most, and by how much: ``(2, (3+b)^2/(8(1+b)))``.

    With u = 1/N the ratio is a concave quadratic in u, maximal at u = 1/2 for every beta.
    """
    beta = _beta(beta)
    return 2, (3.0 + beta) ** 2 / (8.0 * (1.0 + beta))


def matching_decrease(flows: ArrayLike, beta: float = 0.5) -> np.ndarray | float:
    """Decrease factor that makes ONE AIMD connection exactly as fast as N under ONE.

    Solve ``(1 + b)/2 = 1 - 1/(1 + N rho)``: ``b = 1 - 2/(1 + N rho)``, in (0, 1) for every
    N >= 1 (``1 - 2/(1 + 3N)`` for TCP; ``beta`` itself for N = 1).
    """
    beta = _beta(beta)
    rho = (1.0 + beta) / (1.0 - beta)
    return _out(1.0 - 2.0 / (1.0 + _n(flows) * rho))


def two_class_probs(sigma: float, flows: int = 4) -> tuple[float, ...]:
    """Example 1 for any even N: the first N/2 connections (class 1) share probability sigma,
    the other N/2 (class 2) share 1 - sigma, evenly within each class."""
    sigma = check_range("sigma", sigma, 0.0, 1.0, low_open=True, high_open=True)
    n = check_int("flows", flows, 2)
    if n % 2:
        raise ValueError(f"flows={n} must be even: two classes of N/2 connections")
    half = n // 2
    return (sigma / half,) * half + ((1 - sigma) / half,) * half


def example1_probs(sigma: float) -> tuple[float, ...]:
    """Selection probabilities of the paper's Example 1: ``(s, s, 1 - s, 1 - s)/2``."""
    return two_class_probs(sigma, 4)


def rate_independent_throughputs(
    probs: Sequence[float],
    beta: float | ArrayLike = 0.5,
    eta: float | ArrayLike = 1.0,
    capacity: float = 1.0,
) -> np.ndarray:
    """Exact mean rate of each connection under the rate-independent policy ``probs``.

    Connection i has decrease factor ``beta_i`` and increase rate ``eta_i`` (scalars are
    shared). Let x be the rates just before a congestion event and M the connection signalled
    (independent of x, ``P(M = m) = p_m``). The next event comes after
    ``S = (1 - beta_M) x_M / eta_total`` and the rates there are ``A_M x`` with
    ``A_m = I + (1 - beta_m) (eta/eta_total - e_m) e_m^T``. So the stationary second moment
    ``Q = E[x x^T]`` solves ``Q = sum_m p_m A_m Q A_m^T`` with ``1^T Q 1 = c**2``, and the
    time-stationary mean of x_i is ``E[integral of x_i over one interval] / E[S]``, both
    linear in Q. Every ``p_i`` must be positive: a connection never signalled takes the whole
    link and congestion events pile up in finite time.
    """
    try:
        p = np.asarray(probs, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"probs={probs!r} must be a list of probabilities") from None
    if p.ndim != 1 or p.size == 0:
        raise ValueError(f"probs={probs!r} must be a non-empty 1-D list of probabilities")
    n = check_int("flows", p.size, 1, 40)
    for i, value in enumerate(p):
        check_range(f"probs[{i}]", value, 0.0, 1.0, low_open=True)
    if abs(p.sum() - 1.0) > PROBS_TOLERANCE:
        raise ValueError(f"probs={p.tolist()!r} sums to {p.sum()!r}; it must sum to 1")
    b = check_per_flow("beta", beta, n, 0.0, 1.0, low_open=True, high_open=True)
    e = check_per_flow("eta", eta, n, 0.0, math.inf, low_open=True)
    c = check_range("capacity", capacity, 0.0, low_open=True)
    total = e.sum()
    share = e / total
    eye = np.eye(n)
    kron = np.zeros((n * n, n * n))
    for m in range(n):
        a = eye + (1.0 - b[m]) * np.outer(share - eye[m], eye[m])
        kron += p[m] * np.kron(a, a)
    system = np.vstack([kron - np.eye(n * n), np.ones((1, n * n))])
    rhs = np.zeros(n * n + 1)
    rhs[-1] = c * c
    q = np.linalg.lstsq(system, rhs, rcond=None)[0].reshape(n, n)
    q = (q + q.T) / 2.0
    mean_x = q.sum(axis=1) / c  # E[x_m] = E[x_m sum_j x_j] / c
    drop = (1.0 - b) / total  # S = drop[m] * x_m
    mean_s = float(np.sum(p * drop * mean_x))
    diag = np.diag(q)
    integral = np.zeros(n)
    for m in range(n):
        after = q[:, m] - (1.0 - b[m]) * diag[m] * eye[m]  # E[x_i^+ x_m]
        integral += p[m] * drop[m] * (after + e * drop[m] * diag[m] / 2.0)
    return integral / mean_s


def one_policy_range(
    flows: int, beta: float | ArrayLike = 0.5, eta: float | ArrayLike = 1.0
) -> tuple[float, float]:
    """The range of mean aggregate rate / c that ONE policies can give unequal connections.

    From the sample-path identity, the mean aggregate is ``K/(1 + K)`` with K a weighted
    average of ``eta_total * rho_i / eta_i`` over the connections signalled, the weights set by
    the policy. So it lies between the values at the smallest and the largest
    ``eta_total * rho_i / eta_i``; for identical connections the range is the single point of
    Theorem 1. ``beta`` and ``eta`` are numbers (shared) or one value per connection.
    """
    n = check_int("flows", flows, 1)
    b = check_per_flow("beta", beta, n, 0.0, 1.0, low_open=True, high_open=True)
    e = check_per_flow("eta", eta, n, 0.0, math.inf, low_open=True)
    k = e.sum() * (1.0 + b) / (1.0 - b) / e
    low, high = float(k.min()), float(k.max())
    return low / (1.0 + low), high / (1.0 + high)
