"""RED's parameters are not in the thesis: Fig. 5.10's ratio under other bottleneck queues,
on a grid of its own.

The computation is :func:`tcplab.chapters.bmc.experiments.red`; this module gives it the
grid the book ships (four queues, D = 1/2 and 1/5, N = 2 and 8), so that the chapter's other
experiments keep their parameters.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

import pandas as pd

from . import experiments
from .params import BmcParams

__all__ = ["RedParams", "red", "red_table"]


@dataclass(frozen=True)
class RedParams(BmcParams):
    """:class:`BmcParams` with the shipped grid of queues."""

    red_variants: tuple[str, ...] = ("ns2", "classic", "deep", "droptail")
    red_flows: tuple[int, ...] = (2, 8)
    red_weights: tuple[float, ...] = (1 / 2, 1 / 5)

    @classmethod
    def quick(cls) -> RedParams:
        """The chapter's quick grid (:meth:`BmcParams.quick`), with every queue of the full
        grid (the restamp canary takes each one's code path)."""
        small = BmcParams.quick()
        values = {f.name: getattr(small, f.name) for f in fields(BmcParams)}
        return cls(**{**values, "red_variants": cls.red_variants})


def red(params: RedParams, seed: int = 0) -> pd.DataFrame:
    """Fig. 5.10's ratio per queue, D and N (:func:`experiments.red`)."""
    return experiments.red(params, seed)


def red_table(table: pd.DataFrame) -> pd.DataFrame:
    """Per queue, D and N: the ratio (whole run and steady) beside the ideal D, the
    utilisation, the loss-event rate and time-outs per flow."""
    out = table[["queue", "D", "flows", "ratio", "steady_ratio", "utilisation", "loss_event_rate",
                 "tcp_timeouts", "aimd_timeouts"]].copy()  # fmt: skip
    out.insert(2, "D (ideal)", out.pop("D").map(experiments.label))
    return out.rename(columns={"ratio": "ratio (ours)", "steady_ratio": "steady ratio (ours)"})
