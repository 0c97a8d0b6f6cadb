"""The two heaviest what-ifs at the size the shared machine allowed this round.

Fig. 10's extra runs (:func:`~tcplab.chapters.morris.whatifs.buffers_more`) and the access-link
floor (:func:`~tcplab.chapters.morris.whatifs.access`) with one more run where the paper sees
Fig. 10's irregularity (a third per buffer, with morris-buffers-many's two), one run at twenty
buffers per TCP, and one pair of runs (as built, floor) at N = 3000. The larger grids of
:class:`~tcplab.chapters.morris.whatifs.WhatIfParams` are the same code with more replicas.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from . import whatifs

__all__ = ["ExtraParams", "buffers_more", "access"]


@dataclass(frozen=True)
class ExtraParams(whatifs.WhatIfParams):
    """:class:`~tcplab.chapters.morris.whatifs.WhatIfParams` with fewer runs."""

    bump_replicas: tuple[int, ...] = (2,)
    wide_buffers: tuple[int, ...] = (10000,)
    wide_replicas: tuple[int, ...] = (0,)
    access_replicas: int = 1


def buffers_more(params: ExtraParams, seed: int = 0) -> pd.DataFrame:
    """Fig. 10, more runs (:func:`~tcplab.chapters.morris.whatifs.buffers_more`)."""
    return whatifs.buffers_more(params, seed)


def access(params: ExtraParams, seed: int = 0) -> pd.DataFrame:
    """The access-link floor beside as built (:func:`~tcplab.chapters.morris.whatifs.access`)."""
    return whatifs.access(params, seed)
