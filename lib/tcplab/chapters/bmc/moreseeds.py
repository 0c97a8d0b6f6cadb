"""Enough seeds to decide two verdicts that three runs (or one) could not.

* ``bmc-red-seeds-more``: Fig. 5.1's DropTail cells at N = 2 (D = 1/2 and 1/5), the same
  computation as ``bmc-red`` (:func:`tcplab.chapters.bmc.experiments.red`) with the seeds
  ``seed + first_replica``, ..., ``seed + replicas - 1``: replicas 0 (``bmc-red``) and 1, 2
  (``bmc-red-seeds``) are shipped already and not run again. Three seeds gave an interval
  holding both D (equal loss per packet) and D^2 (synchronised drops).
* ``bmc-mix-seeds``: Fig. 5.18's 2/3 + 1/3 mix at N = 4 (Sec. 5.2's "approximately 25 %
  higher"), the computation of ``bmc-mixes`` (:func:`tcplab.chapters.bmc.experiments.mixes`)
  for that one cell with the seeds ``seed + 1``, ...; replica 0 is ``bmc-mixes``'s run.

Each replica is the shipped set-up exactly (queue, link, RTTs, 100 s, measured as the thesis
measures); only the seed changes.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

import pandas as pd

from tcplab.checks import check_int

from . import experiments
from .mixes import MixesParams
from .sensitivity import RedParams
from .sensitivity import red as red_one

__all__ = ["RedMoreParams", "MixSeedsParams", "red_seeds_more", "mix_seeds"]


@dataclass(frozen=True)
class RedMoreParams(RedParams):
    """:class:`RedParams` on the DropTail cells at N = 2, replicas ``first_replica`` to
    ``replicas - 1`` (``replicas`` in all with the shipped ones)."""

    red_variants: tuple[str, ...] = ("droptail",)
    red_flows: tuple[int, ...] = (2,)
    first_replica: int = 3
    replicas: int = 20

    @classmethod
    def quick(cls) -> RedMoreParams:
        """The quick grid's cell (N = 4 on 10 Mb/s, D = 1/2) under DropTail, two runs."""
        small = RedParams.quick()
        values = {f.name: getattr(small, f.name) for f in fields(RedParams)}
        values["red_variants"] = ("droptail",)
        return cls(**values, first_replica=0, replicas=2)


@dataclass(frozen=True)
class MixSeedsParams(MixesParams):
    """:class:`MixesParams` on the one cell of Sec. 5.2's sentence: 2/3 + 1/3 at N = 4,
    ``replicas`` runs in all (``bmc-mixes``'s included)."""

    pairs: tuple[tuple[float, ...], ...] = ((2 / 3, 1 / 3),)
    pair_flows: tuple[int, ...] = (4,)
    quads: tuple[tuple[float, ...], ...] = ()
    quad_flows: tuple[int, ...] = ()
    replicas: int = 20

    @classmethod
    def quick(cls) -> MixSeedsParams:
        """The quick grid's cell (N = 4 on 10 Mb/s, 40 s), one more run."""
        small = MixesParams.quick()
        values = {f.name: getattr(small, f.name) for f in fields(MixesParams)}
        values.update(pairs=((2 / 3, 1 / 3),), pair_flows=(4,), quads=(), quad_flows=())
        return cls(**values, replicas=2)


def _joined(frames: list[pd.DataFrame]) -> pd.DataFrame:
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()


def red_seeds_more(params: RedMoreParams, seed: int = 0) -> pd.DataFrame:
    """``bmc-red``'s cells of ``params`` with the seeds ``seed + first_replica`` ...
    (column ``replica``)."""
    replicas = check_int("replicas", params.replicas, 2)
    first = check_int("first_replica", params.first_replica, 0, replicas - 1)
    frames = [red_one(params, seed + r).assign(replica=r) for r in range(first, replicas)]
    return _joined(frames)


def mix_seeds(params: MixSeedsParams, seed: int = 0) -> pd.DataFrame:
    """``bmc-mixes``'s cells of ``params`` with the seeds ``seed + 1`` ... (column
    ``replica``), one row per flow."""
    replicas = check_int("replicas", params.replicas, 2)
    frames = [experiments.mixes(params, seed + r).assign(replica=r) for r in range(1, replicas)]
    return _joined(frames)
