"""The paper's Fig. 7a level: scenario 5 (1 Gb/s, 60 KB buffers) without cross traffic.

The 1 Gb/s runs without cross traffic were withdrawn with scenario 4's (a 31-connection
scenario-4 run simulates some 11 million bottleneck packets), but scenario 5's connections
are window-limited: 31 of them move some 15 MB/s, about 1.4 million bottleneck packets in a
100 s run, a cheap run. This experiment runs scenario 5 alone with one and 31 parallel
connections, DropTail, seeded exactly as
:func:`~tcplab.chapters.lu.experiments.scenarios` seeds them, for the level the paper's
Fig. 7a shows at 31 connections. It is kept apart from ``lu-scenarios`` and ``lu-gigabit`` so
that no other curve of the chapter moves.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from .experiments import Grid, LuParams, scenarios

__all__ = ["AloneParams", "alone"]


@dataclass(frozen=True)
class AloneParams:
    """One :class:`~tcplab.chapters.lu.experiments.Grid`: scenario 5, no cross traffic."""

    grids: tuple[Grid, ...] = (Grid(5, (1, 31), (0,)),)
    workers: int = 2

    @classmethod
    def quick(cls) -> AloneParams:
        """One connection only."""
        return cls(grids=(Grid(5, (1,), (0,)),), workers=1)


def alone(params: AloneParams, seed: int = 0) -> pd.DataFrame:
    """Rows as :func:`~tcplab.chapters.lu.experiments.scenarios` makes."""
    return scenarios(LuParams(grids=params.grids, workers=params.workers), seed)
