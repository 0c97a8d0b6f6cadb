"""Closed forms only: the formulas the simulations are checked against.

The AIMD sawtooth of one connection has mean utilisation (1 + beta)/2 of the link; Altman et
al. (2006, Theorem 1) extend it to N connections signalled one at a time:
``c (1 - 1/(1 + N (1 + beta)/(1 - beta)))``. Pure functions of numbers and numpy arrays.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from .checks import check_range

__all__ = ["sawtooth_utilisation", "sawtooth_period", "parallel_throughput"]


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


def parallel_throughput(n_flows: ArrayLike, beta: float = 0.5) -> np.ndarray | float:
    """Altman et al. Theorem 1: mean aggregate rate / capacity of N AIMD connections.

    Valid when one connection is signalled per link congestion event, whichever it is:
    ``1 - 1/(1 + N (1 + beta)/(1 - beta))``. For N = 1 it is the sawtooth's (1 + beta)/2.
    """
    beta = float(_check_beta(beta))
    n = np.asarray(n_flows, dtype=float)
    for value in np.atleast_1d(n):
        check_range("n_flows", value, 1.0)
    result = 1.0 - 1.0 / (1.0 + n * (1.0 + beta) / (1.0 - beta))
    return float(result) if result.ndim == 0 else result
