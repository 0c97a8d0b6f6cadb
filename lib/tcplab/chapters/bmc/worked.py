"""The thesis's worked examples (Figs. 3.1, 3.2 and 4.1) at fixed weights in the packet model,
over several seeds, so that the packet model's Mb/s can be claimed against the thesis's with
a tolerance from the spread of the seeds.

The computation is :func:`tcplab.chapters.bmc.proportion.examples`; this module gives it
``seeds`` runs per case (the chapter's ``bmc-examples`` keeps its one run per case).
"""

from __future__ import annotations

from dataclasses import dataclass, fields

import pandas as pd

from . import proportion
from .params import BmcParams

__all__ = ["WorkedParams", "worked"]


@dataclass(frozen=True)
class WorkedParams(BmcParams):
    """:class:`BmcParams` with four packet runs per worked example."""

    seeds: int = 4

    @classmethod
    def quick(cls) -> WorkedParams:
        """The chapter's quick grid (:meth:`BmcParams.quick`): one seed, so no claims (runs
        of 30 s are too short to claim the packet model's shares)."""
        small = BmcParams.quick()
        return cls(**{f.name: getattr(small, f.name) for f in fields(BmcParams)})


def worked(params: WorkedParams, seed: int = 0) -> pd.DataFrame:
    """Figs. 3.1, 3.2 and 4.1, one row per (model, case, replica, flow)
    (:func:`proportion.examples`)."""
    return proportion.examples(params, seed)
