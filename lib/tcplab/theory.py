"""Closed forms only: the formulas the simulations are checked against.

The AIMD sawtooth of one connection has mean utilisation (1 + beta)/2 of the link; Altman et
al. (2006, Theorem 1) extend it to N connections signalled one at a time:
``c (1 - 1/(1 + N (1 + beta)/(1 - beta)))``. One TCP connection under random loss with
probability p has the square-root law of Mathis et al. (1997) and, with time-outs, the
approximation of Padhye et al. (1998). Pure functions of numbers and numpy arrays.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike

from .checks import check_range

__all__ = [
    "sawtooth_utilisation",
    "sawtooth_period",
    "parallel_throughput",
    "mathis_rate",
    "padhye_rate",
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


def _check_loss(p: ArrayLike) -> np.ndarray:
    values = np.asarray(p, dtype=float)
    for value in np.atleast_1d(values):
        check_range("p", value, 0.0, 1.0, low_open=True)
    return values


def mathis_rate(p: ArrayLike, rtt: float, acked: float = 1.0) -> np.ndarray | float:
    """Mathis et al. (1997): packets per second of one TCP connection losing a fraction p.

    ``sqrt(3 / (2 acked)) / (rtt sqrt(p))``, with ``acked`` packets per ACK (1 without
    delayed ACKs): the periodic-loss sawtooth, whose window saws between W/2 and W with one
    loss per cycle of 3W^2/8 packets. Time-outs and the receiver window are ignored.
    """
    values = _check_loss(p)
    rtt = check_range("rtt", rtt, 0.0, low_open=True)
    acked = check_range("acked", acked, 1.0)
    result = np.sqrt(3.0 / (2.0 * acked)) / (rtt * np.sqrt(values))
    return float(result) if result.ndim == 0 else result


def padhye_rate(
    p: ArrayLike,
    rtt: float,
    rto: float,
    acked: float = 1.0,
    max_window: float = math.inf,
) -> np.ndarray | float:
    """Padhye et al. (1998), eq. (31): packets per second of one Reno connection with
    time-outs, loss-event probability p, first time-out ``rto`` seconds, ``acked`` packets
    per ACK and a receiver window of ``max_window`` packets::

        min(Wmax / rtt, 1 / (rtt sqrt(2 b p / 3) + rto min(1, 3 sqrt(3 b p / 8)) p (1 + 32 p^2)))

    For small p it tends to :func:`mathis_rate`.
    """
    values = _check_loss(p)
    rtt = check_range("rtt", rtt, 0.0, low_open=True)
    rto = check_range("rto", rto, 0.0, low_open=True)
    b = check_range("acked", acked, 1.0)
    w_max = math.inf if max_window == math.inf else check_range("max_window", max_window, 1.0)
    timeouts = rto * np.minimum(1.0, 3.0 * np.sqrt(3.0 * b * values / 8.0))
    denominator = rtt * np.sqrt(2.0 * b * values / 3.0) + timeouts * values * (
        1.0 + 32.0 * values**2
    )
    result = np.minimum(w_max / rtt, 1.0 / denominator)
    return float(result) if result.ndim == 0 else result
