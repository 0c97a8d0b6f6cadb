"""Lee et al. (2012) beside the packet model: every item of the paper the book computes, each
checked on the path model meant to produce it (the chapter's ledger, ``ledger.toml``, lists
them all with their status), under both readings of the paper's undefined aggregate where
they differ; the what-if runs that test the book's explanations (``lee-whatif``); the (delta,
zeta) model with per-repetition draws (``lee-spread``), whose range is set beside the paper's
printed minima (19033.7 and 24022.0 KB/s aggregate, 475.8 and 480.4 KB/s per flow at 40 and
50 flows); and one model check (the receiver-window bound), which is not a claim of the paper.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import pandas as pd

from tcplab.claims import Claim, holds
from tcplab.ledger import tolerance
from tcplab.theory import altman

from .analysis import (
    DEFINITIONS,
    aggregates,
    clusters,
    drops_per_transfer,
    fairness,
    growth,
    meeting,
    per_flow,
    quantiles,
    saturation_curves,
    slow_start,
    spread,
    theorem1_corrected,
    with_variants,
)
from .experiments import FLOWS, NBYTES, PATH_RTTS, REPETITIONS
from .saturation import BDP_PACKETS
from .spread import MODEL, NAME
from .transfer import PACKET_BYTES, PATHS, packets_for

__all__ = [
    "TABLES",
    "chapter_claims",
    "chapter_numbers",
    "saturation_numbers",
]

TABLES = ("lee-transfers", "lee-saturation", "lee-whatif", "lee-spread", "lee-fair")
#: how the prose names the shared path and its variants (lee-saturation)
VARIANT_KEYS = {
    "shared": "shipped",
    "no cross traffic": "nocross",
    "BDP buffer": "bdp",
    "SACK": "sack",
    "SACK, no cross traffic": "sacknocross",
}
SOURCE = "Lee et al. 2012"

#: the paper's printed numbers: the (delta, zeta) minima at 40 and 50 flows (Sec. 4.1, 4.2)
PAPER_MIN_AGGREGATE = {40: "19033.7", 50: "24022.0"}
PAPER_MIN_PER_FLOW = {40: "475.8", 50: "480.4"}


def _medians(
    table: pd.DataFrame, column: str = "aggregate_bytes_per_s"
) -> tuple[pd.Series, pd.Series]:
    agg = aggregates(table).groupby(["path", "flows"])[column].median()
    pf = per_flow(table).groupby(["path", "flows"])["bytes_per_s"].median()
    return agg, pf


def _definition_rows(table: pd.DataFrame) -> dict[str, Claim]:
    """The paper's saturation statements under both readings of its aggregate."""
    low, top = int(table["flows"].min()), int(table["flows"].max())
    rows = {}
    for suffix, column in (("", DEFINITIONS["last completion"]),
                           (" (sum of rates)", DEFINITIONS["sum of rates"])):  # fmt: skip
        agg, _ = _medians(table, column)
        reading = "sum of the transfers' rates" if suffix else "bytes / last completion"
        rows[f"after 10{suffix}"] = holds(
            f"shared path, aggregate = {reading}: saturated after about {low} flows "
            f"(median at {top} < 1.2 x at {low})",
            bool(agg["shared", top] < 1.2 * agg["shared", low]),
            "the book's runs",
        )
        rows[f"saturation{suffix}"] = holds(
            f"shared path, aggregate = {reading}: the aggregate saturates "
            f"(median at {top} flows < 1.2 x at 30)",
            bool(agg["shared", top] < 1.2 * agg["shared", 30]),
            "the book's runs",
        )
        if 20 in agg["shared"].index:
            rows[f"after 20{suffix}"] = holds(
                f"shared path, aggregate = {reading}: saturated after 20 flows "
                f"(median at {top} < 1.2 x at 20)",
                bool(agg["shared", top] < 1.2 * agg["shared", 20]),
                "the book's runs",
            )
    return rows


def _per_flow_mean_rows() -> dict[str, Claim]:
    """The paper's own numbers tell its per-flow mean: its minimum per flow is its minimum
    aggregate over N (Sec. 4.2, 'these values corresponded with the minimum values of
    aggregate throughput')."""
    return {
        f"mean is aggregate over N, {n}": Claim(
            f"the paper's minimum per flow at {n} flows = its minimum aggregate / {n} "
            f"({PAPER_MIN_AGGREGATE[n]} / {n} KB/s)",
            tolerance.computed(float(PAPER_MIN_AGGREGATE[n]) / n),
        )
        for n in (40, 50)
    }


def chapter_claims(tables: Mapping[str, pd.DataFrame]) -> dict[str, Claim]:
    table = tables["lee-transfers"]
    agg, pf = _medians(table)
    top = int(table["flows"].max())
    rtt = dict(PATH_RTTS)["window"] / 1e3
    window = PATHS["window"].max_window
    bound = window * PACKET_BYTES / rtt
    packets = packets_for(NBYTES)
    # slow start from one packet: 1 + 2 + 4 + 8 packets, then a full window per round trip;
    # one more round trip for the serialisation and the start jitter the hand count ignores
    doublings = int(math.log2(window))
    rounds = doublings + math.ceil((packets - (2**doublings - 1)) / window)
    low_bound = NBYTES / ((rounds + 1) * rtt)
    c50 = clusters(table, top).set_index("path").loc["shaped"]
    sp = spread(table).set_index(["path", "flows"])
    reps = per_flow(table)
    shared_top = reps[(reps["path"] == "shared") & (reps["flows"] == top)]
    rep_medians = shared_top.groupby("repetition")["bytes_per_s"].median() / 1e3
    shaped = agg["shaped"]
    rows = {
        "method": holds(
            "the paper's method: 10-50 simultaneous 2 MB transfers, 100 repetitions per point, "
            "failed repetitions left out",
            bool(
                tuple(sorted(table["flows"].unique())) == FLOWS
                and table["repetition"].nunique() == REPETITIONS
                and int(table["bytes"].max()) == NBYTES
            ),
            "the book's runs",
        ),
        **_definition_rows(table),
        **_per_flow_mean_rows(),
        "per flow falls": holds(
            "shared path: the mean per flow falls as N grows (median at each N below the one "
            "before)",
            bool(all(pf["shared"].diff().dropna() < 0)),
            "the book's runs",
        ),
        "growth": holds(
            "window path: the aggregate grows up to 30 flows (median at 30 > 2.5 x at 10)",
            bool(agg["window", 30] > 2.5 * agg["window", 10]),
            "the book's runs",
        ),
        "flat per flow": holds(
            "window path: per-flow throughput flat up to 30 flows (median within 5%)",
            bool(abs(pf["window", 30] / pf["window", 10] - 1.0) < 0.05),
            "the book's runs",
        ),
        "wide at 10": holds(
            "shared path: the transfers' rates spread wider at 10 flows than at 50 "
            "(q90 / q10 of every transfer's rate)",
            bool(sp.loc[("shared", 10), "ratio"] > sp.loc[("shared", top), "ratio"]),
            "the book's runs",
        ),
        "around 200": Claim(
            f"shared path, {top} flows: the transfers' rates concentrate around 200 KB/s "
            "(median over repetitions of each repetition's median rate, KB/s)",
            tolerance.of_runs(float(rep_medians.mean()), rep_medians.to_numpy()),
        ),
        "clusters": holds(
            "shaped path, 50 flows: fast and slow clusters (slow = had a time-out, "
            "median < 0.6 x the others)",
            bool(c50["median_with_timeout"] < 0.6 * c50["median_without"]),
            "the book's runs",
        ),
        "window bound": holds(
            "model check, not a paper claim: the window path's median per-flow rate at 10 "
            f"flows lies between the hand count with slow start ({rounds} + 1 round trips: "
            f"{low_bound / 1e3:.0f} KB/s) and the window bound ({window} x "
            f"{PACKET_BYTES} B / {rtt * 1e3:.0f} ms = {bound / 1e3:.0f} KB/s)",
            bool(low_bound <= pf["window", 10] <= bound),
            "the book's runs",
        ),
    }
    if 40 in shaped.index:  # the quick grid has no 40
        rows["too many flows"] = holds(
            "shaped path: more flows lower the aggregate (median at 40 flows below the one at 30)",
            bool(shaped[40] < shaped[30]),
            "the book's runs",
        )
    rows.update(_theorem_rows(tables["lee-saturation"]))
    rows.update(_whatif_rows(tables["lee-whatif"]))
    rows.update(_spread_rows(tables["lee-spread"], table))
    rows.update(_a_few_row(table))
    rows.update(_two_causes_row(table, tables["lee-saturation"]))
    rows.update(_fair_rows(tables["lee-fair"]))
    return rows


#: the chapter's yardstick of a material change in an aggregate (as in the saturation rows):
#: a fifth
MATERIAL = 1.2
#: Jain's index of the flows' rates: "fair" at or above FAIR (within 1% of equal shares),
#: "unfair" below UNFAIR
FAIR, UNFAIR = 0.99, 0.95
READINGS = (
    ("", DEFINITIONS["last completion"], "A, bytes / last completion"),
    (" (sum of rates)", DEFINITIONS["sum of rates"], "B, the sum of the rates"),
)


def relative_range(table: pd.DataFrame, column: str) -> pd.Series:
    """The run-to-run fluctuation of the aggregate ``column`` per (path, flows): (q90 - q10)
    / median over the repetitions."""
    g = aggregates(table).groupby(["path", "flows"])[column]
    return (g.quantile(0.9) - g.quantile(0.1)) / g.median()


def _a_few_row(table: pd.DataFrame) -> dict[str, Claim]:
    """Sec. 4.3: at 50 flows only a few transfers are like those at 10 (shared path)."""
    rates = per_flow(table)
    shared = rates[rates["path"] == "shared"]
    top = int(shared["flows"].max())
    at10 = shared.loc[shared["flows"] == 10, "bytes_per_s"]
    at_top = shared.loc[shared["flows"] == top, "bytes_per_s"]
    low, high = float(at10.quantile(0.1)), float(at10.quantile(0.9))
    share = float(((at_top >= low) & (at_top <= high)).mean())
    return {
        "a few like 10": holds(
            f"shared path: at {top} flows only a few transfers (some, and fewer than one in "
            "ten) have a rate like those at 10 flows (within the 10-flow transfers' 10-90% "
            "range)",
            bool(0.0 < share < 0.1),
            "the book's runs",
        )
    }


def _two_causes_row(table: pd.DataFrame, variants: pd.DataFrame) -> dict[str, Claim]:
    """Sec. 4.3's two causes, each seen in the shared path's what-if without cross traffic
    (lee-saturation): the congestion, and the number of flows."""
    calm = variants[variants["path"] == "no cross traffic"]
    both = pd.concat([table[table["path"] == "shared"], calm], ignore_index=True)
    flows = sorted(set(calm["flows"]) & set(table["flows"]))
    if calm.empty or len(flows) < 2:
        return {}
    congestion = True
    for _, column, _ in READINGS:
        rel = relative_range(both, column)
        congestion &= all(rel["no cross traffic", n] < 0.1 * rel["shared", n] for n in flows)
    medians = aggregates(calm).groupby("flows")[DEFINITIONS["last completion"]].median()
    best_before = medians.cummax().shift(1)
    number = bool((medians * MATERIAL < best_before).any())
    return {
        "two causes": holds(
            "what-if, shared path without its cross traffic: (1) the congestion: the "
            "aggregate's run-to-run fluctuation ((q90 - q10) / median, both readings) falls "
            "below a tenth of the one with it at every N; (2) the number of flows: with nothing "
            "left to vary between runs, some N gives an aggregate (reading A) a fifth or more "
            "below the one at fewer flows",
            bool(congestion and number),
            "the book's runs",
        )
    }


def _fair_rows(table: pd.DataFrame) -> dict[str, Claim]:
    """The unfairness and the slow cluster taken away (lee-fair): the shaped path with its
    FIFO bottleneck against a per-flow fair share of the same buffer, same seeds."""
    fifo, fair = "shaped", "shaped, fair share"
    flows = sorted(table["flows"].unique())
    low, top = int(flows[0]), int(flows[-1])
    jain = fairness(table).set_index(["path", "flows"])["jain"]
    unfair = bool(jain[fifo, top] < UNFAIR and jain[fifo, low] >= FAIR)
    removed = bool(jain[fair, top] >= FAIR)
    split = has_clusters(table, fifo, top) and not has_clusters(table, fair, top)
    rows: dict[str, Claim] = {}
    for suffix, column, reading in READINGS:
        rel = relative_range(table, column)
        medians = aggregates(table).groupby(["path", "flows"])[column].median()
        rows[f"unfairness at 50{suffix}"] = holds(
            f"what-if, shaped path: its flows unfair at {top} flows, fair at {low} (median "
            f"Jain index < {UNFAIR} and >= {FAIR}), and a per-flow fair share of the "
            f"bottleneck's buffer, which takes the unfairness away (>= {FAIR}), takes away at "
            f"least half of the aggregate's run-to-run fluctuation (reading {reading}; "
            "(q90 - q10) / median)",
            bool(unfair and removed and rel[fair, top] <= 0.5 * rel[fifo, top]),
            "the book's runs",
        )
        rows[f"slow flows lower the aggregate{suffix}"] = holds(
            f"what-if, shaped path at {top} flows: fast and slow clusters with the FIFO "
            "bottleneck, none with the per-flow fair share, and without the slow cluster the "
            f"median aggregate (reading {reading}) is a fifth or more higher",
            bool(split and medians[fair, top] >= MATERIAL * medians[fifo, top]),
            "the book's runs",
        )
    return rows


def _theorem_rows(variants: pd.DataFrame) -> dict[str, Claim]:
    """Theorem 1 on the fair test: the shared path without cross traffic, SACK senders."""
    name = "SACK, no cross traffic"
    agg = aggregates(variants)
    part = agg[agg["path"] == name]
    if part.empty:
        return {}
    top = int(part["flows"].max())
    shares = part.loc[part["flows"] == top, "aggregate_bytes_per_s"].to_numpy()
    shares = shares / PATHS["shared"].capacity_bytes_per_s
    theorem = float(altman.parallel_throughput(float(top)))
    return {
        "theorem 1 no cross": Claim(
            f"shared path without cross traffic, SACK, {top} flows: the aggregate (reading A) "
            "as a share of the bottleneck against Theorem 1, 1 - 1/(1 + 3N)",
            tolerance.of_runs(float(shares.mean()), shares),
            paper=theorem,
        )
    }


def has_clusters(table: pd.DataFrame, path: str, flows: int) -> bool:
    """Fast and slow clusters: at least a tenth of the transfers had a time-out and their
    median rate is below 0.6 x the others' (the test of the row 'clusters')."""
    c = clusters(table, flows).set_index("path")
    if path not in c.index:
        raise KeyError(f"path={path!r} has no transfers at {flows} flows")
    row = c.loc[path]
    return bool(
        row["share_with_timeout"] >= 0.1
        and row["median_with_timeout"] < 0.6 * row["median_without"]
    )


def _has(table: pd.DataFrame, path: str, *flows: int) -> bool:
    there = set(table.loc[table["path"] == path, "flows"].unique())
    return set(flows) <= there


def _whatif_rows(table: pd.DataFrame) -> dict[str, Claim]:
    """The causes, each taken away in a what-if run (lee-whatif)."""
    rows: dict[str, Claim] = {}
    agg, _ = _medians(table)
    base, wide, bare = "shaped", "shaped, 400 Mb/s bottleneck", "shaped, no shapers"
    if _has(table, base, 50) and _has(table, wide, 50):
        rows["overload makes the clusters"] = holds(
            "what-if, shaped path at 50 flows: clusters with the 200 Mb/s bottleneck that 50 x "
            "5 Mb/s overloads, none when a 400 Mb/s bottleneck takes the overload away",
            has_clusters(table, base, 50) and not has_clusters(table, wide, 50),
            "the book's runs",
        )
    if _has(table, bare, 50):
        rows["clusters without shapers"] = holds(
            "what-if, shaped path at 50 flows with the per-connection shapers taken away: "
            "the clusters remain (the shapers are not their cause)",
            has_clusters(table, bare, 50),
            "the book's runs",
        )
    if _has(table, base, 30, 40) and _has(table, wide, 30, 40):
        rows["overload makes the fall"] = holds(
            "what-if, shaped path: the aggregate falls from 30 to 40 flows with the 200 Mb/s "
            "bottleneck (40 x 5 Mb/s fill it), not with 400 Mb/s",
            bool(agg[base, 40] < agg[base, 30] and agg[wide, 40] >= agg[wide, 30]),
            "the book's runs",
        )
    sliver = "sliver shaper"
    if _has(table, sliver, 10, 50):
        low, top = agg[sliver, 10], agg[sliver, 50]
        rows["a sliver shaper is flat"] = holds(
            "what-if, one 100 Mb/s shaper for all the transfers of a sliver (PlanetLab's "
            "way): the aggregate does not grow with N (median at 50 flows < 1.2 x at 10), "
            "unlike (d,z)'s",
            bool(top < 1.2 * low),
            "the book's runs",
        )
    ss = slow_start(table).set_index(["path", "flows"])
    if ("shared", 10) in ss.index:
        top = int(ss.loc["shared"].index.max())
        rows["2 MB reaches congestion avoidance"] = holds(
            "shared path: nine transfers in ten leave their initial slow start (a loss or a "
            f"full window) before they end, at 10 and at {top} flows",
            bool(ss.loc[("shared", 10), "left"] >= 0.9 and ss.loc[("shared", top), "left"] >= 0.9),
            "the book's runs",
        )
        rows["mostly slow start"] = holds(
            "the chapter's former claim: 2 MB transfers on the shared path spend most of "
            f"their lives in slow start (median share > 1/2 at {top} flows)",
            bool(ss.loc[("shared", top), "share"] > 0.5),
            "the book's runs",
        )
    linux = "shared, Linux-like"
    if _has(table, linux, 10, 50):
        rows["not the sender"] = holds(
            "what-if, the shared path with Linux-like senders (SACK, initial window 10, delayed "
            "ACKs): the aggregate still grows past 10 flows (median at 50 > 1.2 x at 10)",
            bool(agg[linux, 50] > 1.2 * agg[linux, 10]),
            "the book's runs",
        )
    return rows


def _spread_rows(spread_table: pd.DataFrame, transfers: pd.DataFrame) -> dict[str, Claim]:
    """(delta, zeta) as one path with per-repetition draws (lee-spread)."""
    rows: dict[str, Claim] = {}
    dz = spread_table[spread_table["path"] == NAME]
    if dz.empty:
        return rows
    agg, pf = _medians(dz)
    flows = sorted(dz["flows"].unique())
    low, top = int(flows[0]), int(flows[-1])
    if 30 in flows:
        rows["growth (d,z)"] = holds(
            "(d,z) model: the aggregate grows up to 30 flows (median at 30 > 2.5 x at 10)",
            bool(agg[NAME, 30] > 2.5 * agg[NAME, low]),
            "the book's runs",
        )
        rows["flat per flow (d,z)"] = holds(
            "(d,z) model: the mean per flow flat up to 30 flows (median within 5%)",
            bool(abs(pf[NAME, 30] / pf[NAME, low] - 1.0) < 0.05),
            "the book's runs",
        )
    rows["clusters (d,z)"] = holds(
        f"(d,z) model, {top} flows: fast and slow clusters (a tenth or more had a time-out, "
        "their median < 0.6 x the others')",
        has_clusters(dz, NAME, top),
        "the book's runs",
    )
    both = pd.concat([transfers[transfers["path"] == "shared"], dz], ignore_index=True)
    sp = spread(both).set_index(["path", "flows"])
    rows["d-z stable at 10"] = holds(
        f"(d,z) model at {low} flows: a smaller gap among the flows than on the shared path "
        "(q90 / q10 of every transfer's rate)",
        bool(sp.loc[(NAME, low), "ratio"] < sp.loc[("shared", low), "ratio"]),
        "the book's runs",
    )
    q = quantiles(both, "aggregate_bytes_per_s").set_index(["path", "flows"])
    rel = (q["q90"] - q["q10"]) / q["q50"]
    rows["range differs"] = holds(
        f"(d,z) model: the aggregate's range (q10-q90 over the median) at {low} flows differs "
        "from the shared path's: narrower",
        bool(rel[NAME, low] < rel["shared", low]),
        "the book's runs",
    )
    qa = quantiles(dz, "aggregate_bytes_per_s").set_index("flows")
    qp = quantiles(dz, "mean_per_flow_bytes_per_s").set_index("flows")
    for n in (40, 50):
        if n not in qa.index:
            continue
        for key, printed, qq, unit in (
            (f"minimum {n}", PAPER_MIN_AGGREGATE[n], qa, "aggregate"),
            (f"per-flow minimum {n}", PAPER_MIN_PER_FLOW[n], qp, "mean per flow"),
        ):
            value = float(printed) * 1e3
            # the worst of the paper's ~100 runs: were its runs distributed as the model's,
            # it would lie below the model's 10% quantile but for a chance of 0.9^100 < 1e-4
            rows[key] = holds(
                f"(d,z) model, {n} flows: the paper's minimum {unit}, {printed} KB/s (the worst "
                "of about 100 runs), lies within the book's range and below its 10% quantile",
                bool(qq.loc[n, "q0"] <= value <= qq.loc[n, "q10"]),
                "the book's runs",
            )
    return rows


def chapter_numbers(tables: Mapping[str, pd.DataFrame], scale: str) -> dict[str, float]:
    agg, pf = _medians(tables["lee-transfers"])
    numbers: dict[str, float] = {}
    for (path, flows), value in agg.items():
        numbers[f"agg_{path}_{flows}_kBps"] = float(value) / 1e3
    for (path, flows), value in pf.items():
        numbers[f"pf_{path}_{flows}_kBps"] = float(value) / 1e3
    table = tables["lee-transfers"]
    top = int(table["flows"].max())
    numbers["top_flows"] = float(top)
    shared = agg["shared"]
    numbers["shared_gain_30_top"] = float(shared[top] / shared[30] - 1.0)
    before = int(shared.index[-2])  # the next-largest number of flows (40 in the full data)
    numbers["shared_before_top"] = float(before)
    numbers["shared_gain_before_top"] = float(shared[top] / shared[before] - 1.0)
    numbers["repetitions"] = float(table["repetition"].nunique())
    runs = table.groupby(["path", "flows", "repetition"])["completion_s"]
    numbers["all_repetitions"] = float(runs.ngroups)
    numbers["failed_repetitions"] = float(runs.apply(lambda s: s.isna().any()).sum())
    c = clusters(table, top).set_index("path").loc["shaped"]
    numbers["shaped_timeout_share"] = float(c["share_with_timeout"])
    numbers["shaped_slow_kBps"] = float(c["median_with_timeout"]) / 1e3
    numbers["shaped_fast_kBps"] = float(c["median_without"]) / 1e3
    numbers.update(saturation_numbers(tables))
    for path in ("shared", "window"):
        meet = meeting(table, path, PATHS[path].capacity_bytes_per_s).set_index("flows")
        for column in ("measured", "altman", "lu"):
            numbers[f"meet_{path}_{column}"] = float(meet.loc[top, column])
    numbers.update(definition_numbers(table))
    numbers.update(whatif_numbers(tables["lee-whatif"]))
    numbers.update(spread_numbers(tables["lee-spread"]))
    numbers.update(cause_numbers(table, tables["lee-saturation"]))
    numbers.update(fair_numbers(tables["lee-fair"]))
    return numbers


def cause_numbers(table: pd.DataFrame, variants: pd.DataFrame) -> dict[str, float]:
    """Sec. 4.3's causes on the shared path: the aggregate's run-to-run fluctuation with and
    without cross traffic (both readings, at the most flows), the fall without cross traffic
    at the flows where it is deepest, and the 50-flow transfers like the 10-flow ones."""
    numbers: dict[str, float] = {}
    calm = variants[variants["path"] == "no cross traffic"]
    both = pd.concat([table[table["path"] == "shared"], calm], ignore_index=True)
    top = int(calm["flows"].max())
    for suffix, column, _ in READINGS:
        key = "b" if suffix else "a"
        rel = relative_range(both, column)
        numbers[f"cause_rel_{key}_cross"] = float(rel["shared", top])
        numbers[f"cause_rel_{key}_calm"] = float(rel["no cross traffic", top])
        numbers[f"cause_rel_{key}_cross_min"] = float(rel["shared"].min())
        medians = aggregates(calm).groupby("flows")[column].median()
        fall = 1.0 - medians / medians.cummax().shift(1)
        worst = int(fall.idxmax())
        numbers[f"cause_fall_{key}"] = float(fall[worst])
        numbers[f"cause_fall_{key}_flows"] = float(worst)
    runs = aggregates(calm).groupby("flows")[[column for _, column, _ in READINGS]]
    numbers["cause_calm_apart"] = float((runs.max() / runs.min() - 1.0).to_numpy().max())
    a_medians = aggregates(calm).groupby("flows")[DEFINITIONS["last completion"]].median()
    numbers["cause_before_flows"] = float(
        a_medians.loc[: numbers["cause_fall_a_flows"] - 1].idxmax()
    )
    rates = per_flow(table)
    shared = rates[rates["path"] == "shared"]
    at10 = shared.loc[shared["flows"] == 10, "bytes_per_s"]
    at_top = shared.loc[shared["flows"] == shared["flows"].max(), "bytes_per_s"]
    low, high = float(at10.quantile(0.1)), float(at10.quantile(0.9))
    like = (at_top >= low) & (at_top <= high)
    numbers["few_low_kBps"], numbers["few_high_kBps"] = low / 1e3, high / 1e3
    numbers["few_share"] = float(like.mean())
    numbers["few_count"] = float(like.sum())
    numbers["few_all"] = float(len(at_top))
    return numbers


def fair_numbers(table: pd.DataFrame) -> dict[str, float]:
    """The fair-share what-if (lee-fair): per discipline and number of flows the median Jain
    index, the share of transfers with a time-out, both readings' median aggregate and their
    run-to-run fluctuation."""
    numbers: dict[str, float] = {"fair_repetitions": float(table["repetition"].nunique())}
    jain = fairness(table).set_index(["path", "flows"])["jain"]
    hit = table.assign(hit=table["timeouts"] > 0).groupby(["path", "flows"])["hit"].mean()
    agg = aggregates(table).groupby(["path", "flows"])
    for (path, flows), value in jain.items():
        key = f"fair_{'fq' if path == 'shaped, fair share' else 'fifo'}_{flows}"
        numbers[f"{key}_jain"] = float(value)
        numbers[f"{key}_timeouts"] = float(hit[path, flows])
        for suffix, column, _ in READINGS:
            reading = "b" if suffix else "a"
            numbers[f"{key}_{reading}_kBps"] = float(agg[column].median()[path, flows]) / 1e3
            numbers[f"{key}_{reading}_rel"] = float(relative_range(table, column)[path, flows])
    return numbers


def definition_numbers(table: pd.DataFrame) -> dict[str, float]:
    """Both readings of the aggregate, the mean per flow (aggregate / N), Theorem 1 beside the
    cross traffic, the fall of the shaped path after 30 flows and Fig. 4's concentration."""
    numbers: dict[str, float] = {}
    agg = aggregates(table).groupby(["path", "flows"])
    for column, prefix in (("sum_of_rates_bytes_per_s", "sum"),
                           ("mean_per_flow_bytes_per_s", "mpf")):  # fmt: skip
        for (path, flows), value in agg[column].median().items():
            numbers[f"{prefix}_{path}_{flows}_kBps"] = float(value) / 1e3
    top = int(table["flows"].max())
    last = agg["aggregate_bytes_per_s"].median()["shared"]
    rates = agg["sum_of_rates_bytes_per_s"].median()["shared"]
    numbers["shared_gain_30_top_last"] = float(last[top] / last[30])
    numbers["shared_gain_30_top_sum"] = float(rates[top] / rates[30])
    t1 = theorem1_corrected(table, "shared", PATHS["shared"].capacity_bytes_per_s)
    t1 = t1.set_index("flows")
    for column in ("altman", "corrected", "last", "rates", "cross"):
        numbers[f"t1_{column}"] = float(t1.loc[top, column])
    shaped = agg["aggregate_bytes_per_s"].median()["shaped"]
    if 40 in shaped.index:
        numbers["shaped_fall_30_40"] = float(1.0 - shaped[40] / shaped[30])
    pf = per_flow(table)
    for n in (int(table["flows"].min()), top):
        part = pf[(pf["path"] == "shared") & (pf["flows"] == n)]["bytes_per_s"] / 1e3
        numbers[f"conc_shared_{n}_q10"] = float(part.quantile(0.1))
        numbers[f"conc_shared_{n}_q90"] = float(part.quantile(0.9))
        numbers[f"conc_shared_{n}_median"] = float(part.median())
    return numbers


#: how the prose names the what-if variants (lee-whatif)
WHATIF_KEYS = {
    "shaped": "shaped",
    "shaped, 400 Mb/s bottleneck": "wide",
    "shaped, no shapers": "bare",
    "sliver shaper": "sliver",
    "shared": "shared",
    "shared, IW 3": "iw3",
    "shared, IW 10": "iw10",
    "shared, Linux-like": "linux",
}


def whatif_numbers(table: pd.DataFrame) -> dict[str, float]:
    """Per what-if variant and number of flows: the median aggregate, the share of transfers
    with a time-out, the median bottleneck and shaper drops per repetition, and slow start."""
    numbers: dict[str, float] = {"wi_repetitions": float(table["repetition"].nunique())}
    agg = aggregates(table).groupby(["path", "flows"])["aggregate_bytes_per_s"].median()
    done = table.assign(hit=table["timeouts"] > 0)
    hit = done.groupby(["path", "flows"])["hit"].mean()
    runs = table.groupby(["path", "flows", "repetition"])[["drops", "shaper_drops"]].first()
    drops = runs.groupby(level=["path", "flows"]).median()
    ss = slow_start(table).set_index(["path", "flows"])
    for (path, flows), value in agg.items():
        key = f"wi_{WHATIF_KEYS[path]}_{flows}"
        numbers[f"{key}_agg_kBps"] = float(value) / 1e3
        numbers[f"{key}_timeouts"] = float(hit[path, flows])
        numbers[f"{key}_drops"] = float(drops.loc[(path, flows), "drops"])
        numbers[f"{key}_shaper_drops"] = float(drops.loc[(path, flows), "shaper_drops"])
        for column in ("slowstart_s", "life_s", "share", "left"):
            numbers[f"{key}_ss_{column}"] = float(ss.loc[(path, flows), column])
    return numbers


def spread_numbers(table: pd.DataFrame) -> dict[str, float]:
    """The (delta, zeta) model: quantiles of the aggregate and the mean per flow per number of
    flows, its clusters at the most flows, and the sensitivity variants' minima and medians."""
    numbers: dict[str, float] = {
        "dz_repetitions": float(table.loc[table["path"] == NAME, "repetition"].nunique()),
        "dz_capacity": float(MODEL["capacity_mbps"]),
        "dz_greedy_mean": float(MODEL["greedy_mean"]),
    }
    for column, prefix in (("aggregate_bytes_per_s", "agg"),
                           ("mean_per_flow_bytes_per_s", "mpf")):  # fmt: skip
        q = quantiles(table, column)
        for _, row in q.iterrows():
            key = "dz" if row["path"] == NAME else "dz_" + str(row["path"]).split(", ")[1]
            key = key.replace(" ", "_").replace("/", "")
            for level in ("q0", "q10", "q50", "q90", "q100"):
                numbers[f"{key}_{prefix}_{row['flows']}_{level}_kBps"] = float(row[level]) / 1e3
    dz = table[table["path"] == NAME]
    top = int(dz["flows"].max())
    c = clusters(dz, top).set_index("path").loc[NAME]
    numbers["dz_top"] = float(top)
    numbers["dz_timeout_share"] = float(c["share_with_timeout"])
    numbers["dz_fast_kBps"] = float(c["median_without"]) / 1e3
    if c["share_with_timeout"] > 0:  # the quick grid may have no time-out at all
        numbers["dz_slow_kBps"] = float(c["median_with_timeout"]) / 1e3
    greedy = dz.groupby(["flows", "repetition"])["greedy"].first()
    numbers["dz_calm_share"] = float((greedy == 0).mean())
    return numbers


def saturation_numbers(tables: Mapping[str, pd.DataFrame]) -> dict[str, float]:
    """The shared path beside its variants: per variant (``VARIANT_KEYS``) the median
    aggregate's share of the bottleneck at the fewest, the second-fewest and the most flows,
    the growth from the fewest and from the second-fewest to the most, the share of transfers
    with a time-out and the straggle (last / median completion) at the fewest flows."""
    both = with_variants(tables["lee-transfers"], tables["lee-saturation"])
    curves = saturation_curves(both, PATHS["shared"].capacity_bytes_per_s)
    low = int(curves["flows"].min())
    at_low = curves[curves["flows"] == low].set_index("path")
    second = int(sorted(curves["flows"].unique())[1])
    numbers: dict[str, float] = {"sat_low_flows": float(low), "sat_second_flows": float(second)}
    numbers["sat_repetitions"] = float(tables["lee-saturation"]["repetition"].nunique())
    numbers["sat_bdp_packets"] = float(BDP_PACKETS)
    shares = curves.set_index(["path", "flows"])["share"]
    drops = drops_per_transfer(both)
    for _, row in growth(curves, low).iterrows():
        key = VARIANT_KEYS[row["path"]]
        numbers[f"sat_{key}_low"] = row["share_low"]
        numbers[f"sat_{key}_top"] = row["share_top"]
        numbers[f"sat_{key}_growth"] = row["growth"]
        numbers[f"sat_{key}_second"] = float(shares[row["path"], second])
        numbers[f"sat_{key}_gain_second"] = float(
            row["share_top"] / shares[row["path"], second] - 1
        )
        lowest = shares[row["path"]].idxmin()
        numbers[f"sat_{key}_min"] = float(shares[row["path"], lowest])
        numbers[f"sat_{key}_min_flows"] = float(lowest)
        for at, n in (("low", low), ("min", lowest), ("top", row["top"])):
            numbers[f"sat_{key}_drops_{at}"] = float(drops[row["path"], n])
        curve = curves.set_index(["path", "flows"]).loc[row["path"]]
        numbers[f"sat_{key}_timeout_min"] = float(curve.loc[lowest, "with_timeout"])
        numbers[f"sat_{key}_straggle_min"] = float(curve.loc[lowest, "straggle"])
        numbers[f"sat_{key}_timeout_low"] = float(at_low.loc[row["path"], "with_timeout"])
        numbers[f"sat_{key}_straggle_low"] = float(at_low.loc[row["path"], "straggle"])
    return numbers
