"""The integrals a run of the fluid model measures (:mod:`tcplab.fluid`), one linear piece at
a time: of each connection's rate x_i, of x_i**2 and of the aggregate's square A**2.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from .fluid import _Run as Run

__all__ = ["Tally"]


class Tally:
    """Integrals of x_i, x_i**2 and A**2 over the measured events, one linear piece at a time.

    Between two of its drops a connection's rate rises linearly from ``a`` to ``b`` over
    ``dt``, so the piece's integrals are ``dt (a + b) / 2`` and ``dt (a**2 + a b + b**2) / 3``
    with ``a = b - eta dt``: sums of non-negative terms, exact to rounding however little the
    rate grows (the difference of squares ``(b**2 - a**2) / (2 eta)`` loses every digit then).
    The aggregate rises from ``1 - d`` to 1 after a drop d: ``(1 - (1 - d)**3) / (3 eta_total)``.
    Times are the run's own (from its origin), so the pieces tile the measured time.
    """

    def __init__(self, run: Run) -> None:
        self.t0 = run.origin.copy()
        self.last = np.zeros(run.y.size)  # per (flow, replica): its last drop, or the start
        self.first = np.zeros(run.y.size)  # per (flow, replica): integral of x so far
        self.second = np.zeros(run.y.size)
        # the aggregate from the start (just after the last warm-up event) to the first event
        self.cubes = _cube_gap(run.t * run.model.rate_total)
        self.pending = np.zeros(run.y.shape[1])  # the piece after the latest event
        run.tally = self

    def add_one(
        self, flat: np.ndarray, xs: np.ndarray, dts: np.ndarray, eta_k: Any, beta_k: Any
    ) -> None:
        """Events where connection ``flat // R`` of replica ``flat % R`` dropped from ``xs``,
        ``dts`` after its previous drop."""
        size = self.first.size
        start = np.maximum(xs - eta_k * dts, 0.0)
        first, second = _pieces(start, xs, dts)
        self.first += np.bincount(flat.ravel(), weights=first.ravel(), minlength=size)
        self.second += np.bincount(flat.ravel(), weights=second.ravel(), minlength=size)
        aggregate = _cube_gap(xs * (1.0 - beta_k))
        self.cubes += self.pending + aggregate[:-1].sum(axis=0)
        self.pending = aggregate[-1]

    def add_mask(
        self,
        mask: np.ndarray,
        rates: np.ndarray,
        total_drop: np.ndarray,
        t_event: np.ndarray,
        eta_col: np.ndarray,
    ) -> None:
        """One event at ``t_event`` where the connections in ``mask`` (N, R) dropped from
        ``rates`` (each growing at ``eta_col``)."""
        last = self.last.reshape(mask.shape)
        dt = t_event - last
        first, second = _pieces(np.maximum(rates - eta_col * dt, 0.0), rates, dt)
        if mask.all():  # ALL: every connection's piece ends here
            self.first += first.reshape(-1)
            self.second += second.reshape(-1)
            last[:] = t_event
        else:
            self.first += np.where(mask, first, 0.0).reshape(-1)
            self.second += np.where(mask, second, 0.0).reshape(-1)
            np.copyto(last, np.broadcast_to(t_event, mask.shape), where=mask)
        self.cubes += self.pending
        self.pending = _cube_gap(total_drop)

    def integrals(self, run: Run) -> tuple[np.ndarray, ...]:
        """Per replica: elapsed time, integrals of x_i and x_i**2 (R, N), integral of A**2
        (the piece after the last event lies outside the measured time)."""
        shape = run.y.shape
        dt = -self.last.reshape(shape)  # from each connection's last drop to the end
        end = run.y
        first, second = _pieces(np.maximum(end - run.eta_col * dt, 0.0), end, dt)
        first += self.first.reshape(shape)
        second += self.second.reshape(shape)
        agg_second = self.cubes / (3.0 * run.model.rate_total)
        return run.origin - self.t0, first.T, second.T, agg_second


def _pieces(a: np.ndarray, b: np.ndarray, dt: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Integrals of x and x**2 over pieces where x rises linearly from ``a`` to ``b`` in ``dt``."""
    total = a + b
    return total * dt * 0.5, (total * total - a * b) * dt * (1.0 / 3.0)


def _cube_gap(drop: np.ndarray) -> np.ndarray:
    """1 - (1 - drop)**3 without cancellation (rates in units of c)."""
    return drop * (3.0 - 3.0 * drop + drop * drop)
