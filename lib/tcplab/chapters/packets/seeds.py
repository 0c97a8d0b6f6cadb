"""More seeds for the packet sweeps whose verdicts one run per point cannot carry.

Figs. 7, 10 and 11 are swept with one run per point (``packets-droptail``, ``-red``,
``-threshold``, seed 0). A verdict on one run cannot tell a gap from noise, so these reruns
repeat the same sweeps with other seeds (1, 2, 3: each job's stream a child of its own
``SeedSequence``, independent of the shipped runs'); with the shipped run they give four runs
per point and a 95% interval per point: DropTail and RED over every N and buffer, and the
threshold-dropper at the large N where the paper says it reaches the link's capacity.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import pandas as pd

from . import experiments
from .experiments import PacketsParams

__all__ = ["SeedsParams", "droptail_seeds", "red_seeds", "threshold_seeds"]


@dataclass(frozen=True)
class SeedsParams:
    """The chapter's set-up (``packets``) rerun with each of ``seeds``; the threshold-dropper
    at ``large_flows`` only."""

    packets: PacketsParams = field(default_factory=PacketsParams)
    seeds: tuple[int, ...] = (1, 2, 3)
    large_flows: tuple[int, ...] = (15,)

    @classmethod
    def quick(cls) -> SeedsParams:
        return cls(packets=PacketsParams.quick(), seeds=(1,), large_flows=(10,))


def _reruns(params: SeedsParams, seed: int, sweep) -> pd.DataFrame:  # noqa: ANN001
    frames = [sweep(seed + s).assign(seed=seed + s) for s in params.seeds]
    return pd.concat(frames, ignore_index=True)


def droptail_seeds(params: SeedsParams, seed: int = 0) -> pd.DataFrame:
    """Fig. 7's DropTail sweep, once per seed of ``params.seeds`` (column ``seed``)."""
    return _reruns(params, seed, lambda s: experiments.droptail(params.packets, s))


def red_seeds(params: SeedsParams, seed: int = 0) -> pd.DataFrame:
    """Fig. 10's RED sweep, once per seed of ``params.seeds`` (column ``seed``)."""
    return _reruns(params, seed, lambda s: experiments.red(params.packets, s))


def threshold_seeds(params: SeedsParams, seed: int = 0) -> pd.DataFrame:
    """Fig. 11's threshold-dropper sweep at ``params.large_flows``, once per seed."""
    large = replace(params.packets, threshold_flows=params.large_flows)
    return _reruns(params, seed, lambda s: experiments.threshold(large, s))
