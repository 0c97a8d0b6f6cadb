"""Scenario 1's DropTail "starvation" (Sec. III.A): the claims and numbers of the what-if
``lu-phase`` (:mod:`tcplab.chapters.lu.phase`) and of the book's own scenario-1 runs.

The parallel connections' *share* is their part of the throughput over their fair part
n / (n + m): 1 when every connection gets the same, as Mathis's formula says connections with
the same round trip and the same loss rate do. The paper's "starves" is read here as "less than
half their fair share"; :data:`BAND` is the band [1/2, 2] around 1 outside which a share counts
as starved (below) or dominating (above).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from tcplab.claims import Claim, holds
from tcplab.tables import Table, show

from .phase import fair_share

__all__ = [
    "BAND",
    "phase_bands",
    "phase_claims",
    "phase_numbers",
    "phase_table",
    "starved_share",
]

BAND = (0.5, 2.0)


def starved_share(table: pd.DataFrame, above: int = 10) -> float:
    """Scenario 1 under DropTail with more than ``above`` cross flows: the share of
    (cross, n) points at which the parallel connections get less than half their fair share
    (replica means of the throughputs)."""
    runs = table[(table["scenario"] == 1) & (table["cross"] > above)]
    runs = runs[runs["queue"] == "droptail"]
    if runs.empty:
        return float("nan")
    cols = ["parallel_bytes_per_s", "cross_bytes_per_s"]
    mean = runs.groupby(["cross", "flows"])[cols].mean().reset_index()
    share = fair_share(mean[cols[0]], mean[cols[1]], mean["flows"], mean["cross"])
    return float(np.mean(share < BAND[0]))


def phase_bands(phase: pd.DataFrame) -> pd.DataFrame:
    """Per (variant, cross, flows): the smallest, median and largest share over the offsets,
    and whether some offset puts it outside :data:`BAND`."""
    g = phase.groupby(["variant", "cross", "flows"])["share"]
    out = g.agg(["min", "median", "max"]).reset_index()
    out["outside"] = (out["min"] < BAND[0]) | (out["max"] > BAND[1])
    return out


def phase_table(phase: pd.DataFrame) -> Table:
    """:func:`phase_bands` as a book table."""
    headers = {
        "variant": "bottleneck", "cross": "cross flows", "flows": "parallel flows",
        "min": "share, smallest", "median": "median", "max": "largest",
    }  # fmt: skip
    return show(phase_bands(phase), headers, {"min": 2, "median": 2, "max": 2})


def _outside(bands: pd.DataFrame, variant: str) -> float:
    rows = bands[bands["variant"] == variant]
    return float(rows["outside"].mean()) if len(rows) else float("nan")


def phase_claims(tables: Mapping[str, pd.DataFrame]) -> dict[str, Claim]:
    """The mechanism row ``s1-phase``: DropTail's share swings with the phase, RED's does not."""
    phase = tables.get("lu-phase")
    if phase is None or phase.empty or not {"DropTail", "RED"} <= set(phase["variant"]):
        return {}
    bands = phase_bands(phase)
    droptail, red = _outside(bands, "DropTail"), _outside(bands, "RED")
    return {
        "s1-phase": holds(
            "Scenario 1, same round trips, more than 10 cross flows: under DropTail, moving "
            "the parallel connections' access delay by less than half a bottleneck packet "
            "time (2.7 ms) puts their share outside [1/2, 2] times their fair share at some "
            "offset at more than half of the (cross, n) points; under RED (random drops, the "
            "what-if) at none",
            droptail > 0.5 and red == 0.0,
            "the book's runs",
        )
    }


def phase_numbers(tables: Mapping[str, pd.DataFrame]) -> dict[str, float]:
    """The numbers the chapter's section on DropTail quotes."""
    out: dict[str, float] = {}
    phase = tables.get("lu-phase")
    if phase is None or phase.empty:
        return out
    bands = phase_bands(phase)
    slug = {"DropTail": "dt", "DropTail, send jitter": "jitter", "RED": "red"}
    for variant, rows in phase.groupby("variant"):
        key = slug[str(variant)]
        out[f"phase_{key}_min"] = float(rows["share"].min())
        out[f"phase_{key}_max"] = float(rows["share"].max())
        out[f"phase_{key}_outside"] = _outside(bands, str(variant))
        out[f"phase_{key}_points"] = float((bands["variant"] == variant).sum())
        for m in sorted(int(c) for c in rows["cross"].unique()):
            few = rows[(rows["cross"] == m) & (rows["flows"] <= 10)]
            out[f"phase_{key}_{m}_few_median"] = float(few["share"].median())
    out["phase_offset_max_ms"] = float(phase["delta_ms"].max())
    out["phase_runs"] = float(len(phase))
    return out
