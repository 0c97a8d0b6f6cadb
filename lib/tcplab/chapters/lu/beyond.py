"""The paper's Fig. 13 to n = 50: scenario 6 with 15 cross flows beyond the book's 31.

Fig. 13 of the paper draws the cross traffic's estimate to 50 parallel connections; the
book's grid stops at the 31 of Sec. III. This experiment runs the one Fig. 13 case the book
can afford at 100 Mb/s, scenario 6 (its Fig. 13b) with 15 cross-traffic connections, at 40
and 50 parallel connections, DropTail, one replica. The runs are seeded exactly as
:func:`~tcplab.chapters.lu.experiments.scenarios` seeds them, so a row here is the row
``lu-scenarios`` would have at those numbers of connections, and the probes (1 and 10
connections) and the base (one connection) of ``lu-scenarios`` apply to it unchanged. It is
kept apart from ``lu-scenarios`` so that no other curve of the chapter moves.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from .experiments import Grid, LuParams, scenarios

__all__ = ["BeyondParams", "beyond"]

#: the numbers of parallel connections beyond the book's 31, to the paper's Fig. 13 axis
BEYOND_FLOWS = (40, 50)


@dataclass(frozen=True)
class BeyondParams:
    """One :class:`~tcplab.chapters.lu.experiments.Grid`: scenario 6, 15 cross flows."""

    grids: tuple[Grid, ...] = (Grid(6, BEYOND_FLOWS, (15,)),)
    workers: int = 2

    @classmethod
    def quick(cls) -> BeyondParams:
        """Scenario 1 (1.5 Mb/s, the cheap one) at 20 connections, 15 cross flows."""
        return cls(grids=(Grid(1, (20,), (15,)),), workers=1)


def beyond(params: BeyondParams, seed: int = 0) -> pd.DataFrame:
    """Rows as :func:`~tcplab.chapters.lu.experiments.scenarios` makes."""
    return scenarios(LuParams(grids=params.grids, workers=params.workers), seed)
