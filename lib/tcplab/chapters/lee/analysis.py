"""From the transfers table to Lee et al.'s quantities, with the paper's definitions.

Per-flow throughput is a transfer's bytes over its completion time (from the common start to
its last byte acknowledged); the aggregate of a repetition is its total bytes over the time to
its last completion. A repetition with a failed transfer (not complete by the time limit) is
left out, as the paper leaves out its failed experiments. :func:`meeting` sets a path's median
aggregate, as a share of the bottleneck, beside Altman et al.'s Theorem 1 and Lu et al.'s
two-probe prediction; :func:`saturation_curves` and :func:`growth` set the shared path beside
its variants (:mod:`tcplab.chapters.lee.saturation`).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from tcplab.theory import altman
from tcplab.theory.lu import fit_probes

__all__ = [
    "DEFINITIONS",
    "aggregates",
    "per_flow",
    "spread",
    "slow_start",
    "fairness",
    "quantiles",
    "theorem1_corrected",
    "meeting",
    "clusters",
    "saturation_curves",
    "growth",
    "with_variants",
]


def _complete(table: pd.DataFrame) -> pd.DataFrame:
    """The rows of the repetitions whose every transfer completed."""
    keys = [table[key] for key in ("path", "flows", "repetition")]
    failed = table["completion_s"].isna().groupby(keys).transform("any")
    return table[~failed.astype(bool)]


def per_flow(table: pd.DataFrame) -> pd.DataFrame:
    """One row per transfer of a complete repetition, with ``bytes_per_s``."""
    done = _complete(table)
    return done.assign(bytes_per_s=done["bytes"] / done["completion_s"])


def aggregates(table: pd.DataFrame) -> pd.DataFrame:
    """One row per complete repetition, the aggregate by both readings of the paper:
    ``aggregate_bytes_per_s`` (reading A, the book's: total bytes / the last completion, one
    huge transfer that ends when its last byte does) and ``sum_of_rates_bytes_per_s``
    (reading B, Hacker's "total of each flow's actual throughput": the sum of the transfers'
    own rates, bytes / own completion), and ``mean_per_flow_bytes_per_s`` (reading A over the
    number of flows, the quantity of the paper's Fig. 3) with ``mean_rate_bytes_per_s``
    (reading B over the number of flows, the mean of the transfers' own rates)."""
    done = _complete(table)
    done = done.assign(rate=done["bytes"] / done["completion_s"])
    g = done.groupby(["path", "flows", "repetition"], sort=True)
    out = (g["bytes"].sum() / g["completion_s"].max()).rename("aggregate_bytes_per_s")
    out = pd.concat([out, g["rate"].sum().rename("sum_of_rates_bytes_per_s")], axis=1)
    out = out.reset_index()
    out["mean_per_flow_bytes_per_s"] = out["aggregate_bytes_per_s"] / out["flows"]
    out["mean_rate_bytes_per_s"] = out["sum_of_rates_bytes_per_s"] / out["flows"]
    return out


#: the two readings of the paper's aggregate (columns of :func:`aggregates`)
DEFINITIONS = {
    "last completion": "aggregate_bytes_per_s",
    "sum of rates": "sum_of_rates_bytes_per_s",
}


def spread(table: pd.DataFrame, quantiles: tuple[float, ...] = (0.1, 0.9)) -> pd.DataFrame:
    """Per path and number of flows: quantiles of the transfers' own rates (``q10``, ``q90``
    for the defaults) and ``ratio``, the top quantile over the bottom one (1: every transfer
    alike; the paper's "widely fluctuated" against "nearly concentrated")."""
    pf = per_flow(table)
    q = pf.groupby(["path", "flows"])["bytes_per_s"].quantile(list(quantiles)).unstack()
    q.columns = [f"q{round(100 * x)}" for x in quantiles]
    q["ratio"] = q.iloc[:, -1] / q.iloc[:, 0]
    return q.reset_index()


def meeting(
    table: pd.DataFrame,
    path: str,
    capacity_bytes_per_s: float,
    probes: tuple[int, int] | None = None,
) -> pd.DataFrame:
    """Per number of flows: the median measured aggregate / capacity, Theorem 1's
    ``1 - 1/(1 + 3N)`` and the partial2 fit of Lu et al. to the medians at ``probes``
    (default: the two smallest numbers of flows, 10 and 20 in the full data)."""
    agg = aggregates(table)
    med = agg[agg["path"] == path].groupby("flows")["aggregate_bytes_per_s"].median()
    levels = probes or (int(med.index[0]), int(med.index[1]))
    fit = fit_probes({n: float(med[n]) for n in levels})
    flows = np.asarray(med.index, dtype=float)
    return pd.DataFrame(
        {
            "flows": med.index,
            "measured": med.to_numpy() / capacity_bytes_per_s,
            "altman": np.asarray(altman.parallel_throughput(flows)),
            "lu": np.asarray(fit.throughput(flows)) / capacity_bytes_per_s,
        }
    )


def clusters(table: pd.DataFrame, flows: int) -> pd.DataFrame:
    """Per path at ``flows``: the median per-flow throughput of transfers that had a
    time-out and of those that had none, and the share with one (the slow cluster)."""
    pf = per_flow(table)
    pf = pf[pf["flows"] == flows]
    rows = []
    for path, part in pf.groupby("path", sort=False):
        hit = part["timeouts"] > 0
        rows.append(
            {
                "path": path,
                "share_with_timeout": float(hit.mean()),
                "median_with_timeout": float(part.loc[hit, "bytes_per_s"].median()),
                "median_without": float(part.loc[~hit, "bytes_per_s"].median()),
            }
        )
    return pd.DataFrame(rows)


def saturation_curves(table: pd.DataFrame, capacity_bytes_per_s: float) -> pd.DataFrame:
    """Per path (or variant) and number of flows: ``share``, the median aggregate over the
    capacity; ``with_timeout``, the share of transfers that had a time-out; ``straggle``, the
    median over repetitions of the last completion over the median one (how long the
    aggregate waits for its slowest transfer)."""
    done = _complete(table)
    keys = ["path", "flows", "repetition"]
    ends = done.groupby(keys, sort=False)["completion_s"]
    per_rep = pd.DataFrame({"straggle": ends.max() / ends.median()}).reset_index()
    agg = aggregates(table).merge(per_rep, on=keys)
    hit = done.assign(hit=done["timeouts"] > 0).groupby(["path", "flows"], sort=False)["hit"]
    out = agg.groupby(["path", "flows"], sort=False).agg(
        share=("aggregate_bytes_per_s", "median"), straggle=("straggle", "median")
    )
    out["share"] /= capacity_bytes_per_s
    out["with_timeout"] = hit.mean()
    return out.reset_index()


def growth(curves: pd.DataFrame, low: int = 10) -> pd.DataFrame:
    """Per path: the share at ``low`` flows and at the most flows, and their ratio (1: the
    aggregate saturated by ``low`` flows; the paper's pairs: "after about 10")."""
    rows = []
    for path, part in curves.groupby("path", sort=False):
        share = part.set_index("flows")["share"]
        top = int(share.index.max())
        rows.append(
            {
                "path": path,
                "share_low": float(share[low]),
                "share_top": float(share[top]),
                "top": top,
                "growth": float(share[top] / share[low]),
            }
        )
    return pd.DataFrame(rows)


def with_variants(transfers: pd.DataFrame, variants: pd.DataFrame) -> pd.DataFrame:
    """The shared path's rows of ``lee-transfers`` followed by ``lee-saturation``'s variants
    of it (same columns; the variant's name in ``path``)."""
    shared = transfers[transfers["path"] == "shared"]
    return pd.concat([shared, variants], ignore_index=True)


def drops_per_transfer(table: pd.DataFrame) -> pd.Series:
    """Per path and number of flows: the median over repetitions of the bottleneck's drops
    (cross traffic's included) per transfer."""
    runs = table.groupby(["path", "flows", "repetition"], sort=False)["drops"].first()
    per = runs / runs.index.get_level_values("flows")
    return per.groupby(level=["path", "flows"], sort=False).median()


def slow_start(table: pd.DataFrame) -> pd.DataFrame:
    """Per path and number of flows, from a table with ``slowstart_s`` (``lee-whatif``,
    ``lee-spread``): the median time of a transfer in its initial slow start, the median
    transfer time (its completion less its start), the median share of its life spent in
    slow start, and ``left``, the share of transfers that left slow start before they ended
    (a loss response or a full receiver window: the paper's "up to congestion avoidance")."""
    done = _complete(table)
    life = done["completion_s"] - done["start_s"] if "start_s" in done else done["completion_s"]
    done = done.assign(life=life, share=done["slowstart_s"] / life)
    done = done.assign(left=done["slowstart_s"] < done["life"] - 1e-9)
    out = done.groupby(["path", "flows"], sort=False).agg(
        slowstart_s=("slowstart_s", "median"),
        life_s=("life", "median"),
        share=("share", "median"),
        left=("left", "mean"),
    )
    return out.reset_index()


def fairness(table: pd.DataFrame) -> pd.DataFrame:
    """Per path and number of flows: the median over repetitions of Jain's fairness index of
    the transfers' rates, (sum x)^2 / (N sum x^2): 1 when every transfer gets the same, 1/N
    when one gets everything."""
    pf = per_flow(table)
    g = pf.groupby(["path", "flows", "repetition"], sort=False)["bytes_per_s"]
    jain = g.sum() ** 2 / (g.count() * g.apply(lambda x: float((x**2).sum())))
    return jain.groupby(level=["path", "flows"], sort=False).median().rename("jain").reset_index()


def quantiles(
    table: pd.DataFrame, column: str, levels: tuple[float, ...] = (0.0, 0.1, 0.5, 0.9, 1.0)
) -> pd.DataFrame:
    """Per path and number of flows: quantiles over repetitions of ``column`` of
    :func:`aggregates` (``q0`` the minimum, ``q100`` the maximum)."""
    agg = aggregates(table)
    q = agg.groupby(["path", "flows"])[column].quantile(list(levels)).unstack()
    q.columns = [f"q{round(100 * x)}" for x in levels]
    return q.reset_index()


def theorem1_corrected(table: pd.DataFrame, path: str, capacity_bytes_per_s: float) -> pd.DataFrame:
    """Per number of flows on ``path``: Theorem 1's share ``1 - 1/(1 + 3N)`` of the link for N
    connections alone; the share N long-lived connections would get beside the repetition's
    k cross connections, ``N/(N + k) (1 - 1/(1 + 3(N + k)))`` (median over repetitions); and
    the measured median shares by both readings of the aggregate."""
    agg = aggregates(table)
    agg = agg[agg["path"] == path]
    k = table.groupby(["path", "flows", "repetition"])["cross"].first().rename("k").reset_index()
    agg = agg.merge(k, on=["path", "flows", "repetition"])
    n, kk = agg["flows"].astype(float), agg["k"].astype(float)
    agg = agg.assign(
        fair=n / (n + kk) * np.asarray(altman.parallel_throughput((n + kk).to_numpy())),
        last=agg["aggregate_bytes_per_s"] / capacity_bytes_per_s,
        rates=agg["sum_of_rates_bytes_per_s"] / capacity_bytes_per_s,
    )
    out = agg.groupby("flows").agg(
        corrected=("fair", "median"), last=("last", "median"), rates=("rates", "median"),
        cross=("k", "median"),
    )  # fmt: skip
    out.insert(0, "altman", np.asarray(altman.parallel_throughput(out.index.to_numpy(float))))
    return out.reset_index()
