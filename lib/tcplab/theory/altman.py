"""Altman et al. (2006): the AIMD sawtooth and Theorem 1, the formulas the fluid model meets.

The AIMD sawtooth of one connection has mean utilisation (1 + beta)/2 of the link; Theorem 1
extends it to N connections signalled one at a time: ``c (1 - 1/(1 + N (1 + beta)/(1 - beta)))``.
A finite simulation meets Theorem 1 only up to the boundary term of a sample-path identity,
:func:`theorem1_bound`. Pure functions of numbers and numpy arrays.
"""

from __future__ import annotations

from typing import Protocol

import numpy as np
from numpy.typing import ArrayLike

from ..checks import check_range

__all__ = [
    "sawtooth_utilisation",
    "sawtooth_period",
    "parallel_throughput",
    "theorem1_bound",
]


def _check_beta(beta: ArrayLike) -> np.ndarray:
    values = np.asarray(beta, dtype=float)
    for value in np.atleast_1d(values):
        check_range("beta", value, 0.0, 1.0, low_open=True, high_open=True)
    return values


def sawtooth_utilisation(beta: ArrayLike) -> np.ndarray | float:
    """Mean rate / capacity of one AIMD connection alone on a link: (1 + beta)/2.

    The rate climbs linearly from beta*c to c and drops back, so its time average is the
    midpoint of the two. TCP's beta = 1/2 gives the classic 75%.
    """
    values = _check_beta(beta)
    result = (1.0 + values) / 2.0
    return float(result) if result.ndim == 0 else result


def sawtooth_period(beta: float, eta: float, capacity: float = 1.0) -> float:
    """Time between congestion events of one AIMD connection: (1 - beta) c / eta."""
    beta = float(_check_beta(beta))
    eta = check_range("eta", eta, 0.0, low_open=True)
    capacity = check_range("capacity", capacity, 0.0, low_open=True)
    return (1.0 - beta) * capacity / eta


def parallel_throughput(flows: ArrayLike, beta: float = 0.5) -> np.ndarray | float:
    """Altman et al. Theorem 1: mean aggregate rate / capacity of N AIMD connections.

    Valid when one connection is signalled per link congestion event, whichever it is:
    ``1 - 1/(1 + N (1 + beta)/(1 - beta))``. For N = 1 it is the sawtooth's (1 + beta)/2.
    """
    beta = float(_check_beta(beta))
    n = np.asarray(flows, dtype=float)
    for value in np.atleast_1d(n):
        check_range("flows", value, 1.0)
    result = 1.0 - 1.0 / (1.0 + n * (1.0 + beta) / (1.0 - beta))
    return float(result) if result.ndim == 0 else result


class Measured(Protocol):
    """What :func:`theorem1_bound` reads from a run of the fluid model (a FluidResult)."""

    @property
    def flows(self) -> int: ...
    @property
    def beta(self) -> tuple[float, ...]: ...
    @property
    def eta(self) -> tuple[float, ...]: ...
    @property
    def capacity(self) -> float: ...
    @property
    def replicas(self) -> int: ...
    @property
    def simulated_time(self) -> float: ...


def theorem1_bound(run: Measured) -> float:
    """Largest possible |mean aggregate - Theorem 1| of a run of identical connections.

    For any policy signalling one connection per event the fluid model obeys a sample-path
    identity (d/dt sum x_i^2 = 2 eta A, and the drop at each event): the time average of A over
    a window of length T differs from Theorem 1 only by a boundary term, at most
    ``(1 + rho) c / (2 eta (1 + N rho) T)`` with rho = (1 + beta)/(1 - beta); pooled over
    replicas, ``replicas`` times that over the total simulated time.
    """
    beta, eta, n, c = run.beta[0], run.eta[0], run.flows, run.capacity
    rho = (1 + beta) / (1 - beta)
    return run.replicas * (1 + rho) * c / (2 * eta * (1 + n * rho) * run.simulated_time)
