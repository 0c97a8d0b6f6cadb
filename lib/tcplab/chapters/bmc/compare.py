"""BMC beside uncoupled subflows and MPTCP's linked increases (RFC 6356), beyond the thesis,
on a grid of its own.

The computation is :func:`tcplab.chapters.bmc.proportion.compare`; this module gives it the
controllers and run length the book ships, so that the chapter's other experiments keep
their parameters.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

import pandas as pd

from . import proportion
from .params import BmcParams

__all__ = ["CompareParams", "compare", "compare_table"]


@dataclass(frozen=True)
class CompareParams(BmcParams):
    """:class:`BmcParams` with every controller compared over 200 s runs."""

    compared: tuple[str, ...] = ("uncoupled", "fixed", "bmc", "lia")
    examples_duration: float = 200.0

    @classmethod
    def quick(cls) -> CompareParams:
        """The chapter's quick grid (:meth:`BmcParams.quick`), every controller compared (the
        restamp canary takes each one's code path)."""
        small = BmcParams.quick()
        values = {f.name: getattr(small, f.name) for f in fields(BmcParams)}
        return cls(**{**values, "compared": cls.compared})


def compare(params: CompareParams, seed: int = 0) -> pd.DataFrame:
    """Each source's Mb/s per scenario and controller (:func:`proportion.compare`)."""
    return proportion.compare(params, seed)


#: the controllers as the chapter names them
NAMES = {
    "uncoupled": "uncoupled (TCP on each subflow)",
    "fixed": "BMC, weights held at 1/2, 1/2",
    "bmc": "BMC with the proportion manager",
    "lia": "MPTCP linked increases (RFC 6356)",
}


def compare_table(table: pd.DataFrame) -> pd.DataFrame:
    """Per scenario and controller, each source's Mb/s: the fluid model's (where it has one)
    beside the packet model's (mean over runs)."""
    found = (
        table.groupby(["scenario", "controller", "model", "source"], sort=False)["mbps"]
        .mean()
        .unstack("model")
        .reset_index()
    )
    found["controller"] = found["controller"].map(NAMES)
    return found.rename(columns={"fluid": "fluid (ours)", "packet": "packet (ours)"})
