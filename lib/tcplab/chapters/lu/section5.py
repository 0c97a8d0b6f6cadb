"""Section V's assumption tested, and the paper's plot readings beside the book's curves.

The cross-traffic estimate (eqs. 16-18) assumes that every connection, cross traffic
included, sees the parallel connections' loss rate (Sec. V.A: similar RTTs, or RED). Every run
of the chapter records both groups' loss rates at the bottleneck, so the assumption can be
read off the tables: :func:`loss_ratios` per run, :func:`loss_ratio_summary` per scenario
and queue, :func:`zero_cross_loss` where the cross traffic loses nothing at all (a finding:
eq. 16's Mathis relation then does not describe it). :func:`within_by_scenario` is the
paper's Fig. 14 statistic per scenario. :data:`PAPER_LEVELS` holds readings of the paper's
Figs. 3-8 (a) with their resolution, for the levels comparison.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from .analysis import CROSS, PARALLEL

__all__ = [
    "PAPER_LEVELS",
    "Reading",
    "book_level",
    "loss_ratio_summary",
    "loss_ratios",
    "within_by_scenario",
    "zero_cross_loss",
]


def loss_ratios(table: pd.DataFrame) -> pd.DataFrame:
    """Every run with cross traffic: the parallel connections' loss rate over the cross
    traffic's (``ratio``; NaN where the cross traffic lost nothing)."""
    runs = table[table["cross"] > 0].copy()
    cross = runs["cross_loss_rate"].where(runs["cross_loss_rate"] > 0)
    runs["ratio"] = runs["loss_rate"] / cross
    return runs


def loss_ratio_summary(table: pd.DataFrame) -> pd.DataFrame:
    """Per scenario and queue: runs with cross traffic, how many of them the cross traffic
    lost nothing in, and the median, geometric mean and largest parallel/cross loss ratio
    over the others."""
    rows = []
    for (k, queue), runs in loss_ratios(table).groupby(["scenario", "queue"], sort=True):
        ratio = runs["ratio"].dropna()
        rows.append(
            {
                "scenario": int(k),
                "queue": queue,
                "runs": len(runs),
                "no_cross_loss": int((runs["cross_loss_rate"] == 0).sum()),
                "median": float(ratio.median()) if len(ratio) else np.nan,
                "geometric_mean": float(np.exp(np.log(ratio).mean())) if len(ratio) else np.nan,
                "max": float(ratio.max()) if len(ratio) else np.nan,
            }
        )
    return pd.DataFrame(rows)


def zero_cross_loss(table: pd.DataFrame) -> pd.DataFrame:
    """The runs with cross traffic in which the cross traffic lost no packet: rows
    (scenario, queue, cross, flows)."""
    runs = table[(table["cross"] > 0) & (table["cross_loss_rate"] == 0)]
    keys = ["scenario", "queue", "cross", "flows"]
    return runs[keys].drop_duplicates().sort_values(keys).reset_index(drop=True)


def within_by_scenario(imp: pd.DataFrame, limit: float = 0.25) -> pd.DataFrame:
    """Fig. 14's statistic per scenario: estimates away from the probes, the share within
    ``limit``, and the mean relative error."""
    away = imp[~imp["probe"]]
    grouped = away.groupby("scenario")["error"]
    out = grouped.agg(
        estimates="size",
        within=lambda e: float(np.mean(np.abs(e) <= limit)),
        mean_error="mean",
    )
    return out.reset_index()


@dataclass(frozen=True)
class Reading:
    """A value read off one of the paper's plots: the aggregate parallel throughput (bytes/s)
    of ``scenario`` without cross traffic at ``flows`` (``"peak"``: the curve's maximum),
    read to ``resolution`` (a quarter of the plot's tick spacing, or half the range the
    reader gives, the larger)."""

    scenario: int
    flows: int | str
    value: float
    resolution: float
    figure: str


#: readings of the paper's Figs. 3a-8a (no cross traffic), as a reviewer read them off the
#: plots (referee report bmc-lu-2026-11-27, B.3; the book has only the text of the paper, in
#: which the plots' tick labels survive: the resolutions are from those)
PAPER_LEVELS: tuple[Reading, ...] = (
    Reading(1, 1, 1.85e5, 5e3, "Fig. 3a (ticks 20 000 B/s; flat from n = 1)"),
    Reading(1, 31, 1.85e5, 5e3, "Fig. 3a (ticks 20 000 B/s)"),
    Reading(2, 1, 8.0e6, 0.5e6, "Fig. 4a (ticks 2e6 B/s)"),
    Reading(2, 31, 9.7e6, 0.5e6, "Fig. 4a (ticks 2e6 B/s; read 9.4e6-10e6)"),
    Reading(3, 1, 3.3e6, 0.5e6, "Fig. 5a (ticks 2e6 B/s)"),
    Reading(3, 31, 9.2e6, 0.7e6, "Fig. 5a (ticks 2e6 B/s; read 8.5e6-9.9e6 from n = 8)"),
    Reading(4, 31, 44e6, 1.25e6, "Fig. 6a (ticks 5e6 B/s)"),
    Reading(5, 31, 15.2e6, 0.5e6, "Fig. 7a (ticks 2e6 B/s)"),
    Reading(6, "peak", 11.4e6, 0.5e6, "Fig. 8a (ticks 2e6 B/s; peak at n = 11)"),
)


def book_level(table: pd.DataFrame, reading: Reading) -> float | None:
    """The book's value for ``reading`` (no cross traffic, DropTail, replica mean), or None
    where the tables have no such run."""
    runs = table[
        (table["scenario"] == reading.scenario)
        & (table["cross"] == 0)
        & (table["queue"] == "droptail")
    ]
    if runs.empty:
        return None
    by_n = runs.groupby("flows")[PARALLEL].mean()
    if reading.flows == "peak":
        return float(by_n.max())
    if reading.flows not in by_n.index:
        return None
    return float(by_n.loc[reading.flows])


def curve_totals(table: pd.DataFrame, scenario: int, cross: int) -> pd.DataFrame:
    """Parallel, cross and total throughput of one curve by flows (DropTail, replica mean)."""
    runs = table[
        (table["scenario"] == scenario) & (table["cross"] == cross) & (table["queue"] == "droptail")
    ]
    mean = runs.groupby("flows")[[PARALLEL, CROSS]].mean()
    return mean.assign(total=mean[PARALLEL] + mean[CROSS])
