"""More seeds for two one-run tables: ``bmc-red`` (the queue sensitivity) and ``bmc-compare``
(BMC, uncoupled subflows and LIA). Each verdict that rested on one run gets replicas: the
same computation (:func:`tcplab.chapters.bmc.experiments.red`,
:func:`tcplab.chapters.bmc.proportion.compare`) with the seeds ``seed + 1``, ...,
``seed + replicas - 1``; replica 0 is the shipped table (seed ``seed``), not run again.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

import pandas as pd

from tcplab.checks import check_int

from . import proportion
from .compare import CompareParams
from .sensitivity import RedParams
from .sensitivity import red as red_one

__all__ = ["RedSeedsParams", "CompareSeedsParams", "red_seeds", "compare_seeds"]


@dataclass(frozen=True)
class RedSeedsParams(RedParams):
    """:class:`RedParams` with ``replicas`` runs per cell in all (the shipped one included),
    on the cells the chapter's prose rests on: N = 2 under ns-2's RED, the deep RED and
    DropTail (the whole grid again would take about an hour per seed on two shared cores)."""

    red_variants: tuple[str, ...] = ("ns2", "deep", "droptail")
    red_flows: tuple[int, ...] = (2,)
    replicas: int = 3

    @classmethod
    def quick(cls) -> RedSeedsParams:
        small = RedParams.quick()
        return cls(**{f.name: getattr(small, f.name) for f in fields(RedParams)}, replicas=2)


@dataclass(frozen=True)
class CompareSeedsParams(CompareParams):
    """:class:`CompareParams` with ``replicas`` runs per case in all (the shipped one
    included)."""

    replicas: int = 4

    @classmethod
    def quick(cls) -> CompareSeedsParams:
        small = CompareParams.quick()
        values = {f.name: getattr(small, f.name) for f in fields(CompareParams)}
        return cls(**values, replicas=2)


def _more(frames: list[pd.DataFrame]) -> pd.DataFrame:
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()


def red_seeds(params: RedSeedsParams, seed: int = 0) -> pd.DataFrame:
    """``bmc-red`` again with the seeds ``seed + 1`` ... (column ``replica``)."""
    replicas = check_int("replicas", params.replicas, 2)
    frames = [red_one(params, seed + r).assign(replica=r) for r in range(1, replicas)]
    return _more(frames)


def compare_seeds(params: CompareSeedsParams, seed: int = 0) -> pd.DataFrame:
    """``bmc-compare``'s packet runs again with the seeds ``seed + 1`` ... (its column
    ``replica`` renumbered; the fluid rows are exact and left out)."""
    replicas = check_int("replicas", params.replicas, 2)
    frames = []
    for r in range(1, replicas):
        table = proportion.compare(params, seed + r)
        frames.append(table[table["model"] == "packet"].assign(replica=r))
    return _more(frames)
