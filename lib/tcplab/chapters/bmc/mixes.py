"""Figs. 5.12-5.18 (Honda 2009, Sec. 5.2): N TCP flows against N weighted flows whose weights
cycle through a mix summing to 1, on a grid of its own.

The computation is :func:`tcplab.chapters.bmc.experiments.mixes`; this module gives it the
thesis's grid (its four pairs of Figs. 5.12-5.15 for N = 2 to 64 and the quadruples of
Figs. 5.16 and 5.17 for N = 4 to 64), so that the chapter's other experiments keep theirs.
The thesis's Fig. 5.16 text lists the weights 3/18, 4/18, 5/18 and 5/18, which sum to
17/18; weights must sum to 1 (eq. 3.1), so we take 3/18, 4/18, 5/18, 6/18.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

import pandas as pd

from . import experiments
from .params import BmcParams

__all__ = ["MixesParams", "mixes", "mix_ratios"]


@dataclass(frozen=True)
class MixesParams(BmcParams):
    """:class:`BmcParams` with the thesis's grid of Figs. 5.12-5.17 (its defaults: four
    pairs for N = 2 to 64, two quadruples for N = 4 to 64)."""

    @classmethod
    def quick(cls) -> MixesParams:
        """The chapter's quick grid (:meth:`BmcParams.quick`)."""
        small = BmcParams.quick()
        return cls(**{f.name: getattr(small, f.name) for f in fields(BmcParams)})


def mixes(params: MixesParams, seed: int = 0) -> pd.DataFrame:
    """Figs. 5.12-5.17, one row per flow (:func:`experiments.mixes`)."""
    return experiments.mixes(params, seed)


def mix_ratios(table: pd.DataFrame) -> pd.DataFrame:
    """Fig. 5.18 and the per-weight ratios: per (mix, N), the weighted flows' mean over the
    TCP flows' mean (ideal: 1 / the mix's size) and, per weight of the mix, that weight's
    mean over TCP's (ideal: the weight); loss events behind each, for the tolerances."""
    rows = []
    for (mix, size, n), part in table.groupby(["mix", "size", "flows"], sort=False):
        tcp = part[part["kind"] == "tcp"]
        aimd = part[part["kind"] == "aimd"]
        base = {"mix": mix, "size": int(size), "flows": int(n)}
        tcp_mean = float(tcp["goodput_mbps"].mean())
        tcp_events = float(tcp["loss_events"].sum())
        groups = [("all", 1.0 / size, aimd)]
        groups += [
            (experiments.label(d), float(d), f) for d, f in aimd.groupby("weight", sort=False)
        ]
        for name, d, flows in groups:
            rows.append(
                {
                    **base,
                    "weight": name,
                    "D": d,
                    "ratio": float(flows["goodput_mbps"].mean()) / tcp_mean,
                    "events": float(flows["loss_events"].sum()),
                    "tcp_events": tcp_events,
                }
            )
    return pd.DataFrame(rows)
