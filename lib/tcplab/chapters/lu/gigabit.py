"""The paper's 1 Gb/s scenarios 4 and 5 at the book's scale, apart from ``lu-scenarios``.

They cost more than the rest of the book's Lu grid together (a scenario-4 run with 31 parallel
connections simulates some 8 million bottleneck packets, about 100 s of one core), so they
are their own experiment: the probe levels and 31 connections (:data:`FAST_FLOWS`) with 10
cross-traffic connections, one replica, DropTail, as the 100 Mb/s scenarios of the book's grid.
The runs are seeded exactly as :func:`~tcplab.chapters.lu.experiments.scenarios` seeds them,
so a row here is the row ``lu-scenarios`` would have for the same grid. At the paper's scale
``lu-scenarios`` runs both scenarios itself and this experiment runs nothing
(:func:`tcplab.chapters.lu.claims.scenario_table` joins the two tables).
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from .experiments import FAST_CROSS, FAST_FLOWS, Grid, LuParams, scenarios

__all__ = ["GigabitParams", "gigabit"]


@dataclass(frozen=True)
class GigabitParams:
    """One :class:`~tcplab.chapters.lu.experiments.Grid` per 1 Gb/s scenario."""

    grids: tuple[Grid, ...] = tuple(Grid(k, FAST_FLOWS, FAST_CROSS) for k in (4, 5))
    workers: int = 2

    @classmethod
    def quick(cls) -> GigabitParams:
        """Scenario 5 (window-limited, the cheap one) with one and two connections."""
        return cls(grids=(Grid(5, (1, 2), FAST_CROSS),), workers=1)

    @classmethod
    def paper(cls) -> GigabitParams:
        """Nothing: the paper's grid of ``lu-scenarios`` has both scenarios."""
        return cls(grids=())


def gigabit(params: GigabitParams, seed: int = 0) -> pd.DataFrame:
    """Scenarios 4 and 5: rows as :func:`~tcplab.chapters.lu.experiments.scenarios` makes."""
    return scenarios(LuParams(grids=params.grids, workers=params.workers), seed)
