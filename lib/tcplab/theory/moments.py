"""Closed forms for the second moments of parallel AIMD rates (Altman et al. 2006, III-IV).

Rates are in units of the link capacity c and time in units of c / eta. Everything here is
derived in the chapter *Second moments are not insensitive* and checked against the exact fluid
model in ``tests/test_moments.py``:

* Largest-rate (Proposition 1, eq. (9)): the rates just before congestion events converge to
  ``x_i = x_1 (1 - (1 - beta)(i - 1)/N)`` with ``x_1 = 2/((1 + beta) N + 1 - beta)``, signalled
  round robin. Each connection then climbs linearly from ``beta x_1`` to ``x_1`` and drops: it is
  uniform on that interval in time, so ``E[X^2] = x_1**2 (1 + beta + beta**2)/3`` (4/21 for
  N = 2, TCP).
* Beatdown (Section IV-B) with the largest connection tagged: at tagging times the sorted rates
  are ``y_k = 2 (N - k)/(N (N - 1))`` (the paper's printed summary is half of this for
  1 < k < N). During one beatdown the tagged rate is a *geometric* sawtooth: before the j-th
  event it is ``r**j y_1`` with ``r = beta + (1 - beta)/N``, and it climbs from ``beta r**j y_1``
  to ``r**(j+1) y_1`` between events. Untagged, a connection climbs linearly from 0 to ``y_1``
  over N - 1 beatdowns. Hence ``E[X^2] = 4 (N - 1)/(3 N**3) (1 - beta**3)/(1 - r**3)``: 28/111
  for N = 2, not the paper's 1/3. The paper's 1/3 is what one gets if the tagged rate followed
  ``c - (others)`` with the aggregate pinned at c (:func:`beatdown_pinned_second_moment`), which
  would make the mean aggregate c and contradict Theorem 3.
* Rate-independent (connection i signalled with probability p_i, any beta_i, eta_i): the rates
  at congestion times follow a random *linear* recursion ``x -> A_M x``, so their Palm moment
  tensors of every order solve linear systems; the time-stationary moments follow by Palm
  inversion (:func:`rate_independent_moments`). 5/24 for N = 2, TCP.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import ArrayLike

from ..checks import check_int, check_per_flow, check_range

__all__ = [
    "PAPER_THEOREM2",
    "largest_rate_fixed_point",
    "largest_rate_second_moment",
    "beatdown_ratio",
    "beatdown_tag_point",
    "beatdown_tag_point_printed",
    "beatdown_second_moment",
    "beatdown_mean",
    "beatdown_pinned_second_moment",
    "rate_independent_moments",
]

#: Altman et al. 2006, Theorem 2: E[X_1^2]/c^2 for two identical connections, beta = 1/2
PAPER_THEOREM2 = {
    "beatdown": 1 / 3,
    "rate-independent": 5 / 24,
    "rate-proportional": 679 / 3396,
    "largest-rate": 4 / 21,
}


def _beta(beta: float) -> float:
    return check_range("beta", beta, 0.0, 1.0, low_open=True, high_open=True)


def largest_rate_fixed_point(flows: int, beta: float = 0.5) -> np.ndarray:
    """Eq. (9): the sorted rates / c just before a congestion event under largest-rate."""
    n = check_int("flows", flows, 1)
    beta = _beta(beta)
    x1 = 2.0 / ((1.0 + beta) * n + (1.0 - beta))
    return x1 * (1.0 - (1.0 - beta) / n * np.arange(n))


def largest_rate_second_moment(flows: int, beta: float = 0.5) -> float:
    """Time-stationary E[X_i^2]/c^2 under largest-rate: uniform on [beta x_1, x_1]."""
    beta = _beta(beta)
    x1 = float(largest_rate_fixed_point(flows, beta)[0])
    return x1 * x1 * (1.0 + beta + beta * beta) / 3.0


def beatdown_ratio(flows: int, beta: float = 0.5) -> float:
    """Factor r = beta + (1 - beta)/N by which the tagged rate shrinks from event to event."""
    n = check_int("flows", flows, 2)
    return _beta(beta) + (1.0 - beta) / n


def beatdown_tag_point(flows: int) -> np.ndarray:
    """Sorted rates / c at tagging times: ``2 (N - k)/(N (N - 1))``, k = 1..N (corrected)."""
    n = check_int("flows", flows, 2)
    k = np.arange(1, n + 1)
    return 2.0 * (n - k) / (n * (n - 1.0))


def beatdown_tag_point_printed(flows: int) -> np.ndarray:
    """The paper's printed summary: ``2/N``, then ``(1 - i/N)/(N - 1)``, then 0."""
    n = check_int("flows", flows, 2)
    i = np.arange(1, n + 1)
    values = (1.0 - i / n) / (n - 1.0)
    values[0] = 2.0 / n
    return values


def beatdown_second_moment(flows: int, beta: float = 0.5) -> float:
    """Time-stationary E[X_i^2]/c^2 under beatdown (largest tagged, beaten down to zero)."""
    n = check_int("flows", flows, 2)
    r = beatdown_ratio(n, beta)
    return 4.0 * (n - 1) / (3.0 * n**3) * (1.0 - beta**3) / (1.0 - r**3)


def beatdown_mean(flows: int, beta: float = 0.5) -> float:
    """Time-stationary E[X_i]/c under beatdown: ``(N - 1)(1 - beta**2)/(N**2 (1 - r**2))``.

    It equals Theorem 1 divided by N, as Theorem 3 says it must.
    """
    n = check_int("flows", flows, 2)
    r = beatdown_ratio(n, beta)
    return (n - 1) * (1.0 - beta**2) / (n * n * (1.0 - r * r))


def beatdown_pinned_second_moment(flows: int) -> float:
    """E[X^2]/c^2 if the aggregate stayed at c during a beatdown: X uniform on [0, 2c/N].

    For N = 2 this is the paper's 1/3. It is not what the AIMD dynamics give.
    """
    n = check_int("flows", flows, 2)
    return 4.0 / (3.0 * n * n)


def rate_independent_moments(
    flows: int,
    probs: Sequence[float] | None = None,
    beta: float | ArrayLike = 0.5,
    eta: float | ArrayLike = 1.0,
) -> tuple[np.ndarray, np.ndarray]:
    """Exact time-stationary (E[X_i]/c, E[X_i^2]/c^2) under a rate-independent policy.

    Just before congestion events the rates x (summing to 1) follow ``x' = A_M x`` with
    ``A_M = I + (1 - beta_M)(eta/eta_total - e_M) e_M^T`` and M = i with probability p_i. The
    k-th Palm moment tensor m_k = E0[x^(k)] is the fixed point of ``sum_i p_i A_i^(k) m_k``
    whose contraction with the ones vector is m_(k-1). Over the interval after an event a
    connection climbs with slope eta_i, so (Palm inversion)
    ``E[X_i^2] = p_i (1 - beta_i^3) E0[x_i^3] / (3 eta_i E0[T])`` with
    ``E0[T] = sum_j p_j (1 - beta_j) E0[x_j] / eta_total``, and likewise for E[X_i].
    """
    n = check_int("flows", flows, 1, 6)
    p = (
        np.full(n, 1.0 / n)
        if probs is None
        else check_per_flow("probs", probs, n, 0.0, 1.0, low_open=True, high_open=True)
    )
    if abs(p.sum() - 1.0) > 1e-9:
        raise ValueError(f"probs={p.tolist()!r} must sum to 1")
    b = check_per_flow("beta", beta, n, 0.0, 1.0, low_open=True, high_open=True)
    e = check_per_flow("eta", eta, n, 0.0, np.inf, low_open=True)
    share = e / e.sum()
    mats = []
    for i in range(n):
        a = np.eye(n)
        a[:, i] += (1.0 - b[i]) * (share - np.eye(n)[i])
        mats.append(a)
    ones = np.ones(n)
    moments: list[np.ndarray] = [np.ones(1)]
    for k in (1, 2, 3):
        size = n**k
        step = np.zeros((size, size))
        for i in range(n):
            power: np.ndarray = mats[i]
            for _ in range(k - 1):
                power = np.kron(power, mats[i])
            step += p[i] * power
        contract = np.kron(ones, np.eye(n ** (k - 1)))
        system = np.vstack((np.eye(size) - step, contract))
        rhs = np.concatenate((np.zeros(size), moments[-1]))
        solution, *_ = np.linalg.lstsq(system, rhs, rcond=None)
        moments.append(solution)
    m1 = moments[1]
    m2 = moments[2].reshape(n, n).diagonal()
    m3 = moments[3].reshape(n, n, n)[np.arange(n), np.arange(n), np.arange(n)]
    cycle = float((p * (1.0 - b) * m1).sum() / e.sum())
    mean = p * (1.0 - b**2) * m2 / (2.0 * e * cycle)
    second = p * (1.0 - b**3) * m3 / (3.0 * e * cycle)
    return mean, second
