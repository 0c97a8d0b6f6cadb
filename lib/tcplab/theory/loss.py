"""One TCP connection under random loss: the square-root law and its refinement with time-outs.

One TCP connection losing each packet with probability p has the square-root law of Mathis et
al. (1997) and, with time-outs, the approximation of Padhye et al. (1998). Pure functions of
numbers and numpy arrays; the packet model's chapter checks them, and Lu et al.'s predictions
build on them.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike

from ..checks import check_range

__all__ = ["mathis_rate", "padhye_rate"]


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
