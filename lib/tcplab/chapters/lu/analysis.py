"""From the chapter's raw runs to what it shows: predictions from two probes and their errors,
the impact on cross traffic, the advisor against brute force, and the model's assumption.

Every function takes a table of :mod:`tcplab.chapters.lu.experiments` (one row per run) and
returns a tidy table. A *curve* is the runs of one (scenario, queue, cross traffic, replica)
at every number of parallel connections; the probes are two of its runs (the paper's
simulations measured the probes and the curve in the same runs), so the relative error at a
probe level is zero by construction and is left out of every error statistic (``probe``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from math import comb

import numpy as np
import pandas as pd

from tcplab.advisor import OutOfModel, advise
from tcplab.theory import lu as theory

__all__ = [
    "CURVE",
    "MAIN_PROBES",
    "PROBE_PAIRS",
    "advisor",
    "error_by_flows",
    "impacts",
    "median_interval",
    "MODEL_PROBES",
    "model_check",
    "models",
    "path_predictions",
    "path_summary",
    "pearson",
    "predictions",
    "probe_pairs",
    "probe_spread",
    "SPREAD_SETS",
]

CURVE = ["scenario", "queue", "cross", "replica"]
MAIN_PROBES = (1, 10)  # the paper's Figs. 9, 10, 13, 14
PROBE_PAIRS = ((1, 8), (1, 10), (1, 15), (1, 2))  # Fig. 11, and the pair it warns against
PARALLEL = "parallel_bytes_per_s"
CROSS = "cross_bytes_per_s"


def _label(pair: Sequence[int]) -> str:
    return f"({', '.join(str(n) for n in pair)})"


def predictions(
    table: pd.DataFrame,
    pairs: Sequence[Sequence[int]] = PROBE_PAIRS,
    model: str = "partial2",
    keys: Sequence[str] = CURVE,
) -> pd.DataFrame:
    """Each curve predicted from each probe pair (eqs. 10, 13-14): rows (keys, probes,
    flows, measured, predicted, error, probe), ``error`` the relative error of eq. 15."""
    frames = []
    for key, curve in table.groupby(list(keys), sort=True):
        measured = dict(zip(curve["flows"].astype(int), curve[PARALLEL], strict=True))
        for pair in pairs:
            if not all(n in measured for n in pair):
                continue
            fit = theory.fit_probes({n: measured[n] for n in pair}, model)
            flows = np.array(sorted(measured))
            values = np.array([measured[n] for n in flows])
            predicted = np.asarray(fit.throughput(flows), dtype=float)
            frame = pd.DataFrame(
                {
                    "probes": _label(pair),
                    "flows": flows,
                    "measured": values,
                    "predicted": predicted,
                    "error": (predicted - values) / values,
                    "probe": np.isin(flows, pair),
                }
            )
            for name, value in zip(keys, key, strict=True):
                frame.insert(len(frame.columns) - 6, name, value)
            frames.append(frame.assign(a=fit.a, b=fit.b))
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()


#: each model of p_n RTT_n^2 with the probes it is fitted to (eq. 6 needs a third)
MODEL_PROBES = {"partial2": (1, 10), "linear": (1, 10), "full2": (1, 8, 15)}


def models(table: pd.DataFrame, keys: Sequence[str] = CURVE) -> pd.DataFrame:
    """Eqs. 6, 7 and 8 side by side: :func:`predictions` of each model from its probes
    (:data:`MODEL_PROBES`), with a ``model`` column."""
    frames = [
        predictions(table, [probes], model, keys).assign(model=model)
        for model, probes in MODEL_PROBES.items()
    ]
    return pd.concat([f for f in frames if len(f)], ignore_index=True)


#: the probe sets of each model from the same levels 1, 8, 10, 15: Fig. 11's pairs for eq. 7,
#: every triple of those levels with 1 for eq. 6 (the sensitivity to the choice of probes)
SPREAD_SETS = {
    "partial2": ((1, 8), (1, 10), (1, 15)),
    "full2": ((1, 8, 10), (1, 8, 15), (1, 10, 15)),
}


def probe_spread(
    table: pd.DataFrame,
    sets: Mapping[str, Sequence[Sequence[int]]] = SPREAD_SETS,
    keys: Sequence[str] = CURVE,
) -> pd.DataFrame:
    """How far each model's prediction moves when its probes change: per curve and number of
    flows away from every probe level of ``sets``, ``(largest - smallest prediction over the
    model's probe sets) / measured``, one column per model, and ``undefined_<model>``, how
    many of the model's probe sets predict nothing there (a profile <= 0). The spread is NaN
    where a prediction is undefined."""
    levels = {n for model_sets in sets.values() for pair in model_sets for n in pair}
    frames = []
    for model, model_sets in sets.items():
        pred = predictions(table, model_sets, model, keys)
        if pred.empty:
            return pd.DataFrame()
        pred = pred[~pred["flows"].isin(levels)]
        wide = pred.set_index([*keys, "flows", "probes"])["predicted"].unstack("probes")
        measured = pred.groupby([*keys, "flows"])["measured"].first()
        spread = (wide.max(axis=1, skipna=False) - wide.min(axis=1, skipna=False)) / measured
        frames.append(pd.DataFrame({model: spread, f"undefined_{model}": wide.isna().sum(axis=1)}))
    return pd.concat(frames, axis=1).reset_index()


def probe_pairs(pred: pd.DataFrame, by: Sequence[str] = ("probes",)) -> pd.DataFrame:
    """Per probe pair (and ``by``): the mean, median and 90th percentile of the absolute
    relative error away from the probes, and the share of undefined predictions."""
    rows = pred[~pred["probe"]]
    grouped = rows.groupby(list(by), sort=False)["error"]
    out = grouped.agg(
        mean_abs=lambda e: float(np.nanmean(np.abs(e))),
        median_abs=lambda e: float(np.nanmedian(np.abs(e))),
        p90_abs=lambda e: float(np.nanpercentile(np.abs(e), 90)),
        mean=lambda e: float(np.nanmean(e)),
        undefined=lambda e: float(np.mean(~np.isfinite(e))),
        points="size",
    )
    return out.reset_index()


def pearson(x: Sequence[float], y: Sequence[float]) -> float:
    """Pearson's correlation coefficient (NaN for fewer than three points or no spread)."""
    a, b = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    keep = np.isfinite(a) & np.isfinite(b)
    a, b = a[keep], b[keep]
    if len(a) < 3 or a.std() == 0 or b.std() == 0:
        return float("nan")
    return float(np.corrcoef(a, b)[0, 1])


def median_interval(
    values: Sequence[float], confidence: float = 0.95
) -> tuple[float, float, float]:
    """A distribution-free confidence interval of the median of ``values``: the order
    statistics ``x_(r)`` and ``x_(k+1-r)`` with the largest rank ``r`` whose coverage
    ``1 - 2 P(Bin(k, 1/2) < r)`` is at least ``confidence`` (the sign-test interval). With too
    few values for ``confidence`` (three give at most 75%), the interval is [min, max]. Returns
    (low, high, the interval's exact coverage)."""
    x = np.sort(np.asarray(values, dtype=float))
    k = len(x)
    if k == 0:
        raise ValueError("values is empty: a median interval needs at least one value")

    def below(r: int) -> float:  # P(Bin(k, 1/2) < r)
        return sum(comb(k, i) for i in range(r)) / 2.0**k

    r = 1
    while r + 1 <= (k + 1) // 2 and 1.0 - 2.0 * below(r + 1) >= confidence:
        r += 1
    return float(x[r - 1]), float(x[k - r]), 1.0 - 2.0 * below(r)


def error_by_flows(pred: pd.DataFrame) -> pd.DataFrame:
    """Fig. 12: the mean relative error (and mean absolute error) at each number of flows,
    over every curve, away from the probes."""
    rows = pred[~pred["probe"] & np.isfinite(pred["error"])]
    out = rows.groupby("flows")["error"].agg(
        mean="mean", mean_abs=lambda e: float(np.mean(np.abs(e))), curves="size"
    )
    return out.reset_index()


def impacts(
    table: pd.DataFrame,
    probes: Sequence[int] = MAIN_PROBES,
    keys: Sequence[str] = CURVE,
    model: str = "partial2",
) -> pd.DataFrame:
    """Eqs. 16-18 against the simulation, per curve with cross traffic: the simulated impact
    ``1 - X_cross(n) / X_cross(1)`` beside the predicted one (from the probes), and the cross
    traffic's throughput predicted as ``X_cross(1) (1 - predicted impact)`` with its relative
    error (eq. 15; negative = more impact predicted than simulated, the paper's
    "conservative"). ``model`` is the loss profile fitted to the probes (eq. 7 by default;
    ``"full2"``, eq. 6, needs three probes)."""
    frames = []
    for key, curve in table[table["cross"] > 0].groupby(list(keys), sort=True):
        by_n = curve.set_index(curve["flows"].astype(int))
        if 1 not in by_n.index or not all(n in by_n.index for n in probes):
            continue
        fit = theory.fit_probes({n: by_n.loc[n, PARALLEL] for n in probes}, model)
        flows = by_n.index.to_numpy()
        base = float(by_n.loc[1, CROSS])
        measured = by_n[CROSS].to_numpy(dtype=float)
        predicted_impact = np.asarray(fit.impact(flows), dtype=float)
        predicted = base * (1.0 - predicted_impact)
        frame = pd.DataFrame(
            {
                "flows": flows,
                "cross_measured": measured,
                "cross_base": base,
                "simulated_impact": 1.0 - measured / base,
                "predicted_impact": predicted_impact,
                "cross_predicted": predicted,
                "error": (predicted - measured) / measured,
                "probe": np.isin(flows, (1, *probes)),
            }
        )
        for name, value in zip(keys, key, strict=True):
            frame.insert(len(frame.columns) - 8, name, value)
        frames.append(frame)
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()


def advisor(
    table: pd.DataFrame,
    max_impacts: Sequence[float] = (0.1, 0.2, 0.3),
    probes: Sequence[int] = MAIN_PROBES,
    min_gain: float = 0.01,
    keys: Sequence[str] = CURVE,
    refused: bool = False,
) -> pd.DataFrame:
    """TameParallelTCP on each recorded curve with cross traffic, as ``tcplab tame --probe``
    answers it (:func:`tcplab.advisor.advise`, its guards on; its probes read from the table,
    its choice among the table's numbers of flows), beside brute force: the number of flows
    with the largest simulated throughput among those whose simulated impact is at most the
    limit. The command refuses probes outside the model's domain or its margin: those curves
    are left out, or with ``refused`` kept as rows whose ``refused`` column holds the
    refusal (their advisor columns NaN)."""
    rows = []
    for key, curve in table[table["cross"] > 0].groupby(list(keys), sort=True):
        by_n = curve.set_index(curve["flows"].astype(int)).sort_index()
        if 1 not in by_n.index or not all(n in by_n.index for n in probes):
            continue
        impact = 1.0 - by_n[CROSS] / by_n.loc[1, CROSS]
        measured = {int(n): float(by_n.loc[n, PARALLEL]) for n in probes}
        for limit in max_impacts:
            allowed = by_n[impact <= limit]
            best = int(allowed[PARALLEL].idxmax())
            row = {
                **dict(zip(keys, key, strict=True)),
                "max_impact": limit,
                "brute_flows": best,
                "brute_simulated": float(by_n.loc[best, PARALLEL]),
                "brute_impact": float(impact.loc[best]),
            }
            try:
                advice = advise(
                    measured, limit, probes=probes, min_gain=min_gain,
                    candidates=list(by_n.index),
                ).result  # fmt: skip
            except OutOfModel as refusal:
                if refused:
                    rows.append({**row, "refused": str(refusal)})
                continue
            n = advice.flows
            rows.append(
                {
                    **row,
                    "advisor_flows": n,
                    "predicted": advice.throughput,
                    "simulated": float(by_n.loc[n, PARALLEL]),
                    "predicted_impact": advice.impact,
                    "simulated_impact": float(impact.loc[n]),
                    "stopped_by": advice.stopped_by,
                    "refused": None,
                }
            )
    order = [*keys, "max_impact", "advisor_flows", "predicted", "simulated", "predicted_impact",
             "simulated_impact", "stopped_by", "brute_flows", "brute_simulated", "brute_impact",
             "refused"]  # fmt: skip
    out = pd.DataFrame(rows, columns=order)
    if len(out):
        within = out["simulated_impact"] <= out["max_impact"]
        out["within"] = within.where(out["refused"].isna()) if refused else within
        out["throughput_ratio"] = out["simulated"] / out["brute_simulated"]
    return out


def model_check(table: pd.DataFrame, keys: Sequence[str] = CURVE) -> pd.DataFrame:
    """The model's ingredients measured: ``profile = p_n RTT_n^2`` (eq. 7's left side) and
    the time-out factor ``c1 = BW_n / (n MSS x Mathis rate(p_n, RTT_n))`` of eq. 4, which the
    model needs constant in n. Rows (keys, flows, loss_rate, rtt_s, profile, c1); runs
    without loss have no profile."""
    rows = table[table["loss_rate"] > 0].copy()
    rows["profile"] = rows["loss_rate"] * rows["rtt_s"] ** 2
    packet = 1000.0
    mathis = np.sqrt(1.5) / (rows["rtt_s"] * np.sqrt(rows["loss_rate"]))
    rows["c1"] = rows[PARALLEL] / (rows["flows"] * packet * mathis)
    return rows[[*keys, "flows", "loss_rate", "rtt_s", "profile", "c1"]].reset_index(drop=True)


def path_predictions(paths: pd.DataFrame, probes: Sequence[int] = MAIN_PROBES) -> pd.DataFrame:
    """The emulated paths: each path's curve predicted from its own probe runs (other runs
    than the curve's, as on PlanetLab), rows (path, flows, measured, predicted, error)."""
    frames = []
    for path, runs in paths.groupby("path", sort=True):
        probe_runs = runs[runs["role"] == "probe"].set_index("flows")
        fit = theory.fit_probes({n: probe_runs.loc[n, PARALLEL] for n in probes})
        curve = runs[runs["role"] == "measure"].sort_values("flows")
        predicted = np.asarray(fit.throughput(curve["flows"].to_numpy()), dtype=float)
        measured = curve[PARALLEL].to_numpy(dtype=float)
        frames.append(
            pd.DataFrame(
                {
                    "path": path,
                    "flows": curve["flows"].to_numpy(),
                    "measured": measured,
                    "predicted": predicted,
                    "error": (predicted - measured) / measured,
                }
            )
        )
    return pd.concat(frames, ignore_index=True)


def path_summary(pred: pd.DataFrame, paths: pd.DataFrame) -> pd.DataFrame:
    """Fig. 10: per path, the mean and standard deviation of the relative errors over the
    numbers of flows, with the path's set-up; sorted by the standard deviation."""
    stats = pred.groupby("path")["error"].agg(mean="mean", std="std").reset_index()
    setup = ["path", "rate_mbps", "delay_ms", "buffer", "path_cross", "path_queue", "window"]
    described = paths.drop_duplicates("path")[setup]
    return stats.merge(described, on="path").sort_values("std").reset_index(drop=True)
