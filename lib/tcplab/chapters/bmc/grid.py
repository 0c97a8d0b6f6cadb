"""Figs. 5.2-5.11 (Honda 2009, Sec. 5.1) on the thesis's whole grid: N in {1, 2, 4, 8, 16,
32, 48, 64} TCP flows against as many AIMD(D^2, 1/2) flows, for the seven weights D.

The computation is :func:`tcplab.chapters.bmc.experiments.weighted`; this module gives it
the thesis's grid (:data:`~tcplab.chapters.bmc.params.THESIS_FLOWS` x
:data:`~tcplab.chapters.bmc.params.THESIS_WEIGHTS`, 56 runs of up to 128 flows), so that the
chapter's other experiments keep their parameters (and their data stays fresh).
"""

from __future__ import annotations

from dataclasses import dataclass, fields

import pandas as pd

from . import experiments
from .params import THESIS_FLOWS, THESIS_WEIGHTS, BmcParams

__all__ = ["WeightedParams", "weighted"]


@dataclass(frozen=True)
class WeightedParams(BmcParams):
    """:class:`BmcParams` with the thesis's grid of Figs. 5.2-5.11."""

    flows: tuple[int, ...] = THESIS_FLOWS
    weights: tuple[float, ...] = THESIS_WEIGHTS

    @classmethod
    def quick(cls) -> WeightedParams:
        """The chapter's quick grid (:meth:`BmcParams.quick`)."""
        small = BmcParams.quick()
        return cls(**{f.name: getattr(small, f.name) for f in fields(BmcParams)})


def weighted(params: WeightedParams, seed: int = 0) -> pd.DataFrame:
    """Figs. 5.2-5.11, one row per flow (:func:`experiments.weighted`)."""
    return experiments.weighted(params, seed)
