"""The 1 Gb/s scenarios 4 and 5 without cross traffic and with 5 cross-traffic connections.

``lu-gigabit`` runs both at 10 cross-traffic connections only (the paper's Figs. 6b and 7b).
The paper's Figs. 6a and 7a are without cross traffic, and its Fig. 13a (the cross-traffic
estimate it calls accurate) is scenario 4 with 5 cross-traffic connections; this experiment
runs those levels, at the same numbers of parallel connections (:data:`FAST_FLOWS`), one
replica, DropTail, seeded exactly as :func:`~tcplab.chapters.lu.experiments.scenarios` seeds
them (a row here is the row ``lu-scenarios`` would have for the same grid).
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from .experiments import FAST_FLOWS, Grid, LuParams, scenarios

__all__ = ["NoCrossParams", "nocross"]


@dataclass(frozen=True)
class NoCrossParams:
    """One :class:`~tcplab.chapters.lu.experiments.Grid` per 1 Gb/s scenario, at 0 and 5
    cross-traffic connections."""

    grids: tuple[Grid, ...] = tuple(Grid(k, FAST_FLOWS, (0, 5)) for k in (4, 5))
    workers: int = 2

    @classmethod
    def quick(cls) -> NoCrossParams:
        """Scenario 5 (window-limited, the cheap one) alone, with one and two connections."""
        return cls(grids=(Grid(5, (1, 2), (0,)),), workers=1)

    @classmethod
    def paper(cls) -> NoCrossParams:
        """Nothing: the paper's grid of ``lu-scenarios`` has both scenarios at every level."""
        return cls(grids=())


def nocross(params: NoCrossParams, seed: int = 0) -> pd.DataFrame:
    """Scenarios 4 and 5 at 0 and 5 cross flows: rows as
    :func:`~tcplab.chapters.lu.experiments.scenarios` makes."""
    return scenarios(LuParams(grids=params.grids, workers=params.workers), seed)
