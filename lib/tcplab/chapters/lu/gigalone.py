"""The paper's Fig. 6a: scenario 4 (1 Gb/s, TCP buffers at least the bandwidth-delay product)
without cross traffic, reduced to what fits the book's budget.

A 31-connection scenario-4 run alone simulates some 6.7 million bottleneck packets (545 s of
one shared core, niced, at a load of 4 to 7), so the book runs only the two numbers of
connections its ledger items need: one (the reference of "the benefits ... are very clear")
and 31 (the level read off Fig. 6a), one seed, DropTail, seeded exactly as
:func:`~tcplab.chapters.lu.experiments.scenarios` seeds them. The 5-cross-flow runs of
Fig. 13a are not run (see the chapter's ledger). The table is kept apart from
``lu-scenarios`` and ``lu-gigabit`` so that no other curve of the chapter moves.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from .experiments import Grid, LuParams, scenarios

__all__ = ["S4AloneParams", "s4_alone"]


@dataclass(frozen=True)
class S4AloneParams:
    """One :class:`~tcplab.chapters.lu.experiments.Grid`: scenario 4, no cross traffic."""

    grids: tuple[Grid, ...] = (Grid(4, (1, 31), (0,)),)
    workers: int = 2

    @classmethod
    def quick(cls) -> S4AloneParams:
        """One connection only."""
        return cls(grids=(Grid(4, (1,), (0,)),), workers=1)


def s4_alone(params: S4AloneParams, seed: int = 0) -> pd.DataFrame:
    """Rows as :func:`~tcplab.chapters.lu.experiments.scenarios` makes."""
    return scenarios(LuParams(grids=params.grids, workers=params.workers), seed)
