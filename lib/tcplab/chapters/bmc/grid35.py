"""The weight the thesis's text leaves out: Fig. 5.5, D = 3/5 (AIMD(9/25, 1/2)).

Sec. 5.1 lists seven weights (4/5, 3/4, 2/3, 1/2, 1/3, 1/4, 1/5) but Figs. 5.2-5.9 are eight,
and Fig. 5.5's caption is AIMD(9/25, 1/2), weight 3/5. ``bmc-weighted`` runs the text's
seven; this module runs the eighth on the same N (a table of its own, so that the seven
already computed stay as they are). The computation is
:func:`tcplab.chapters.bmc.experiments.weighted`.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

import pandas as pd

from . import experiments
from .params import THESIS_FLOWS, BmcParams

__all__ = ["FIG55_WEIGHT", "Fig55Params", "weighted35"]

#: Fig. 5.5's caption, AIMD(9/25, 1/2): the weight sqrt(9/25)
FIG55_WEIGHT = 3 / 5


@dataclass(frozen=True)
class Fig55Params(BmcParams):
    """:class:`BmcParams` with Fig. 5.5's weight on the thesis's N."""

    flows: tuple[int, ...] = THESIS_FLOWS
    weights: tuple[float, ...] = (FIG55_WEIGHT,)

    @classmethod
    def quick(cls) -> Fig55Params:
        """The chapter's quick grid (:meth:`BmcParams.quick`) at weight 3/5."""
        small = BmcParams.quick()
        values = {f.name: getattr(small, f.name) for f in fields(BmcParams)}
        return cls(**{**values, "weights": (FIG55_WEIGHT,)})


def weighted35(params: Fig55Params, seed: int = 0) -> pd.DataFrame:
    """Fig. 5.5 (D = 3/5), one row per flow, as ``bmc-weighted`` (:func:`experiments.weighted`)."""
    return experiments.weighted(params, seed)
