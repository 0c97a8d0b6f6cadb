"""The quantities the Morris chapter's claims and prose read off its tables.

Each function takes tidy tables (one row per run) and returns plain numbers, with the runs they
rest on where a tolerance needs them (:mod:`tcplab.ledger.tolerance` makes a 95% interval of
independent replicas). Nothing here is typed from the paper: its numbers live in
:mod:`~tcplab.chapters.morris.claims`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pandas as pd

from tcplab.stats import t975
from tcplab.theory import morris as theory

from .analysis import loglog_slope

__all__ = [
    "SMALL_N",
    "SAWTOOTH_N",
    "Missing",
    "values",
    "by_flows",
    "by_key",
    "falls",
    "rises",
    "steps",
    "slope",
    "lemma_ratio",
    "lemma_ratios",
    "stage_ratios",
    "irregularity",
    "timeout_shares",
    "timeout_share",
    "onset",
    "high_share",
    "pooled_buffers",
    "capped_sum_p",
]

#: Fig. 8's range: "with fewer than 60 flows the loss rate seems to increase more than linearly",
#: from the fewest flows whose sawtooth is not capped by the 64 KB window (Section 4's model)
SMALL_N = 60
SAWTOOTH_N = math.ceil(theory.sawtooth_min_flows())


class Missing(LookupError):
    """A table has no runs where a claim needs them (a quick grid, a what-if not run)."""


def values(table: pd.DataFrame, column: str, **where: float | str) -> np.ndarray:
    """``column`` of the runs where every column of ``where`` has its value (numbers compared
    with ``np.isclose``); :class:`Missing` when there is none (or the column is absent)."""
    if column not in table:
        raise Missing(f"no column {column!r}")
    mask = np.ones(len(table), dtype=bool)
    for name, value in where.items():
        if name not in table:
            raise Missing(f"no column {name!r}")
        if isinstance(value, str):
            mask &= (table[name] == value).to_numpy()
        else:
            mask &= np.isclose(table[name].to_numpy(dtype=float), value)
    found = table.loc[mask, column].to_numpy(dtype=float)
    found = found[np.isfinite(found)]
    if not found.size:
        raise Missing(f"no runs with {column!r} where {where}")
    return found


def by_key(table: pd.DataFrame, key: str, column: str) -> pd.DataFrame:
    """Mean, 95% confidence half-width (Student's t over the runs) and runs of ``column`` at
    each value of ``key``."""
    grouped = table.groupby(key)[column]
    out = grouped.agg(["mean", "std", "count"]).reset_index()
    df = np.maximum(out["count"].to_numpy() - 1, 1)
    half = np.array([t975(int(d)) for d in df]) * out["std"].fillna(0.0) / np.sqrt(out["count"])
    out["half"] = np.where(out["count"] > 1, half, np.nan)
    return out.drop(columns="std")


def by_flows(table: pd.DataFrame, column: str) -> pd.DataFrame:
    """:func:`by_key` over N (``flows``)."""
    return by_key(table, "flows", column)


def steps(table: pd.DataFrame, column: str, key: str = "flows") -> list[tuple[int, int]]:
    """The steps of a sweep over ``key`` whose two 95% intervals (Student's t over the runs)
    do not overlap, as (sign, value of ``key`` after the step): -1 a fall, +1 a rise; a test
    at well under the 5% level per step. A point with one run has no interval (width 0)."""
    per = by_key(table, key, column)
    half = per["half"].fillna(0.0).to_numpy()
    mean, at = per["mean"].to_numpy(), per[key].to_numpy()
    out = []
    for k in range(len(per) - 1):
        if mean[k + 1] + half[k + 1] < mean[k] - half[k]:
            out.append((-1, int(at[k + 1])))
        elif mean[k + 1] - half[k + 1] > mean[k] + half[k]:
            out.append((1, int(at[k + 1])))
    return out


def falls(table: pd.DataFrame, column: str, key: str = "flows") -> list[int]:
    """The values of ``key`` at which the mean of ``column`` falls from the previous one by
    more than noise (:func:`steps`); a step whose intervals overlap is not a fall."""
    return [at for sign, at in steps(table, column, key) if sign < 0]


def rises(table: pd.DataFrame, column: str, key: str = "flows") -> list[int]:
    """As :func:`falls`, for rises."""
    return [at for sign, at in steps(table, column, key) if sign > 0]


def slope(
    table: pd.DataFrame, column: str = "loss_rate", top: int = SMALL_N, low: int = SAWTOOTH_N
) -> tuple[float, float, int]:
    """Fig. 8: the log-log slope of ``column`` against N over every run with
    ``low`` <= N <= ``top`` (slope, 95% half-width, points)."""
    small = table[(table["flows"] >= low) & (table["flows"] <= top)]
    return loglog_slope(small["flows"], small[column])


def lemma_ratios(table: pd.DataFrame, flows: int, p: str = "loss_rate") -> np.ndarray:
    """Lemma 2's n_1 / (2 p n_0), run by run, at ``flows`` flows; ``p`` the column that is the
    lemma's p: ``loss_rate`` (every packet) or ``q0`` (the stage-0 retransmissions, the
    lemma's own definition)."""
    runs = table[table["flows"] == flows]
    if runs.empty or p not in runs:
        raise Missing(f"no runs at N = {flows}")
    ratio = (runs["n1"] / (2.0 * runs[p] * runs["n0"])).to_numpy(dtype=float)
    ratio = ratio[np.isfinite(ratio)]
    if not ratio.size:
        raise Missing(f"no finite ratio at N = {flows}")
    return ratio


def stage_ratios(table: pd.DataFrame, flows: int, stages: int) -> np.ndarray:
    """Lemma 2 stage by stage, n_(i+1) / (2 q_i n_i) for i < ``stages``, run by run, at
    ``flows`` flows (q_i: the loss of stage i's retransmissions); the finite ones."""
    runs = table[table["flows"] == flows]
    if runs.empty:
        raise Missing(f"no runs at N = {flows}")
    found = [
        (runs[f"n{i + 1}"] / (2.0 * runs[f"q{i}"] * runs[f"n{i}"])).to_numpy(dtype=float)
        for i in range(stages)
    ]
    ratio = np.concatenate(found)
    ratio = ratio[np.isfinite(ratio)]
    if not ratio.size:
        raise Missing(f"no finite ratio at N = {flows}")
    return ratio


def lemma_ratio(table: pd.DataFrame, flows: int, p: str = "loss_rate") -> float:
    """n_1 / (2 p n_0) from the means of the runs at ``flows`` flows (Lemma 2 says 1)."""
    runs = table[table["flows"] == flows]
    if runs.empty:
        raise Missing(f"no runs at N = {flows}")
    return float(runs["n1"].mean() / (2.0 * runs[p].mean() * runs["n0"].mean()))


def irregularity(many: pd.DataFrame) -> tuple[int, int, float, float]:
    """Fig. 10's 'irregularity between 1500 and 2000 packets': of the steps from one buffer to
    the next within [1500, 2000], the one where the share of seconds under 5% of the fair
    share falls least (or rises): (buffer before, buffer after, share before, share after)."""
    per = many.groupby("buffer")["under_5pct"].mean().sort_index()
    inside = per[(per.index >= 1500) & (per.index <= 2000)]
    if len(inside) < 2:
        raise Missing("Fig. 10's sweep needs two buffers in [1500, 2000]")
    rise = inside.diff().iloc[1:]
    after = int(rise.idxmax())
    before = int(inside.index[list(inside.index).index(after) - 1])
    return before, after, float(inside[before]), float(inside[after])


def timeout_share(runs: pd.DataFrame) -> float:
    """The share of the runs' loss responses that were time-outs (NaN with none)."""
    responses = float((runs["timeouts"] + runs["fast_retransmits"]).sum())
    return float(runs["timeouts"].sum()) / responses if responses else float("nan")


def timeout_shares(remedies: pd.DataFrame, senders: Sequence[str], flows: int) -> dict:
    """For each of ``senders`` with RED at ``flows``: the share of its loss responses that
    were time-outs (``<sender>_timeout_share``; NaN when not run)."""
    out = {}
    for sender in senders:
        runs = remedies[(remedies["sender"] == sender) & (remedies["queue"] == "red")
                        & (remedies["flows"] == flows)]  # fmt: skip
        out[f"{sender}_timeout_share"] = timeout_share(runs)
    return out


def onset(table: pd.DataFrame, column: str = "under_5pct", level: float = 0.05) -> int:
    """The first N of the sweep at which the mean of ``column`` exceeds ``level``."""
    per = table.groupby("flows")[column].mean()
    above = per[per > level]
    if above.empty:
        raise Missing(f"{column} never exceeds {level}")
    return int(above.index.min())


def high_share(table: pd.DataFrame, at_least: float = 2.0) -> pd.Series:
    """Per run, the flow-seconds at ``at_least`` fair shares or more (histogram columns
    ``h00``.. are bins of a quarter of a fair share)."""
    first = round(at_least / 0.25)
    names = [c for c in table.columns if c.startswith("h") and c[1:].isdigit()]
    high = [c for c in names if int(c[1:]) >= first]
    if not high:
        raise Missing("no histogram columns")
    return table[high].sum(axis=1)


def pooled_buffers(many: pd.DataFrame, more: pd.DataFrame | None) -> pd.DataFrame:
    """Fig. 10's runs: morris-buffers-many and the more runs of morris-buffers-more (same set-up
    and run length, other replicas or buffers)."""
    if more is None or more.empty:
        return many
    keep = [c for c in many.columns if c in more.columns]
    return pd.concat([many[keep], more[keep]], ignore_index=True)


def capped_sum_p(held: float, n0: float, stages: int = 7) -> float:
    """The p at which Lemma 3 with TCP's 64 s ceiling (``stages`` stages, the last absorbing:
    :func:`tcplab.theory.morris.timeout_population`) holds ``held`` flows in time-out with
    ``n0`` in the first stage (bisection on p in [0, 1))."""
    target = held / n0
    if target < 1.0:
        raise ValueError(f"held={held} must be at least n0={n0}")
    low, high = 0.0, 1.0 - 1e-12
    for _ in range(200):
        mid = 0.5 * (low + high)
        if theory.timeout_population(mid, stages) < target:
            low = mid
        else:
            high = mid
    return 0.5 * (low + high)
