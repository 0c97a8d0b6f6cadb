"""Paper vs. book for the packet-level validation (Altman et al. 2006, Section V), and the
numbers the chapter's prose quotes.

The paper's Section V gives curves and sentences, not tables. The paper's side of each item
(its words, the figure a value is read off and that figure's resolution) is in the chapter's
ledger.toml; the checks below compute the book's side point by point, each point a mean over
its runs with its 95% interval: the shipped sweeps (seed 0) with their reruns on seeds 1-3
(:mod:`.seeds`), the threshold-dropper's replicas, the congestion events' own spread. A
point run once has no interval (its verdict can only be undecided). :func:`chapter_numbers`
computes every other number the text quotes, from the same tables.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np
import pandas as pd

from tcplab import claims, ledger
from tcplab.claims import Claim, holds
from tcplab.ledger import tolerance
from tcplab.packet.queues import SELECTION_NAMES

from .experiments import PacketsParams, policy_gap
from .variants import (
    RERUNS,
    SACK_TABLE,
    VARIANT_NAMES,
    loss_pairs,
    paired,
    points,
    signalled_pairs,
    variant_table,
)
from .whatif_claims import WHATIF_TABLES, whatif_claims, whatif_numbers

__all__ = [
    "TABLES",
    "SEED_TABLES",
    "chapter_claims",
    "chapter_numbers",
    "red_gap",
    "UTIL_TOLERANCE",
    "LOSS_TOLERANCE",
    "MATHIS_MAX_P",
    "REPLICA_FLOWS",
    "sweep_runs",
    "point_estimates",
    "signalled_claims",
    "loss_claims",
    "threshold_claims",
    "events_claim",
    "hold_claim",
    "VARIANT_KEYS",
    "variant_claims",
    "variant_verdicts",
    "variant_numbers",
]

#: the reruns of the sweeps on more seeds (:mod:`.seeds`), by the sweep they repeat
SEED_TABLES = {
    "packets-droptail": "packets-droptail-seeds",
    "packets-red": "packets-red-seeds",
    "packets-threshold": "packets-threshold-seeds",
}
#: the experiments the claims and the prose read
TABLES = (
    "packets-validation",
    "packets-droptail",
    "packets-red",
    "packets-events",
    "packets-threshold",
    "packets-loss",
    "packets-signalled",
    "packets-hold",
    "packets-replicas",
    SACK_TABLE,
    *RERUNS.values(),
    *WHATIF_TABLES,
    *SEED_TABLES.values(),
)
#: the distance from Theorem 1 the SACK comparison of the prose calls small (a display
#: threshold of the SACK section; the ledger's margin is the plots' resolution)
UTIL_TOLERANCE = 0.03
#: the band the SACK section and its tests use for the loss runs' ratios (a display band)
LOSS_TOLERANCE = 0.15
MATHIS_MAX_P = 0.01  # beyond it time-outs matter and only Padhye et al. apply
#: the N the threshold-dropper's statements are checked at: the replicas' (packets-replicas,
#: six seeds each), where the paper's "good conformance" is meant (N = 1 is the buffer floor,
#: N >= 8 the saturated regime the paper excuses)
REPLICA_FLOWS = (2, 3, 4, 5)


def red_gap(red_table: pd.DataFrame) -> float:
    """RED, N >= 5 and buffers of at least 10: median |throughput - Theorem 1| (the prose's
    summary; the check is point by point)."""
    many = red_table[(red_table["flows"] >= 5) & (red_table["buffer"] >= 10)]
    return float((many["utilisation"] - many["theorem1"]).abs().median())


def sweep_runs(tables: Mapping[str, pd.DataFrame], name: str) -> pd.DataFrame:
    """A sweep's runs: the shipped table (seed 0) and its reruns on more seeds, if given."""
    shipped = tables[name].assign(seed=0)
    more = tables.get(SEED_TABLES.get(name, ""))
    if more is None or not len(more):
        return shipped
    return pd.concat([shipped, more[shipped.columns]], ignore_index=True)


def point_estimates(runs: pd.DataFrame, keys: list[str], value: str) -> pd.DataFrame:
    """Per point (``keys``): the runs of ``value``, as a list, and Theorem 1 there."""
    grouped = runs.groupby(keys, sort=True)
    return grouped.agg(values=(value, list), theorem1=("theorem1", "first")).reset_index()


def _runs(values: list[float], offset: float = 0.0) -> tolerance.Estimate:
    """The mean of a point's runs minus ``offset`` (one run: no interval)."""
    return tolerance.runs([v - offset for v in values], "runs")


#: how the checks' words name a sweep's parameters
_SYMBOL = {"threshold": "Th", "buffer": "b", "flows": "N", "select": "policy"}


def _gap_claims(
    points_table: pd.DataFrame, prefix: str, what: str, offset: bool = True
) -> dict[str, Claim]:
    """Per point: throughput minus Theorem 1 (``offset``), else throughput, one check each."""
    out = {}
    keys = list(points_table.columns[:-2])
    for row in points_table.itertuples():
        where = ", ".join(f"{_SYMBOL.get(k, k)} = {getattr(row, k)}" for k in keys)
        name = "-".join(str(getattr(row, k)) for k in keys)
        minus = row.theorem1 if offset else 0.0
        out[f"{prefix}-{name}"] = Claim(f"{what}, {where}", _runs(row.values, minus))
    return out


def _droptail_claims(runs: pd.DataFrame) -> dict[str, Claim]:
    """Fig. 7, point by point: the smallest buffer below Theorem 1 (N >= 2), the largest
    above it, and each step up in buffer raising the throughput where it is not saturated."""
    at = point_estimates(runs, ["buffer", "flows"], "utilisation")
    small, large = at["buffer"].min(), at["buffer"].max()
    out = _gap_claims(
        at[(at["buffer"] == small) & (at["flows"] >= 2)],
        "droptail-small",
        "DropTail: throughput minus Theorem 1",
    )
    out |= _gap_claims(
        at[at["buffer"] == large], "droptail-large", "DropTail: throughput minus Theorem 1"
    )
    buffers = sorted(at["buffer"].unique())
    for n, part in at.groupby("flows"):
        part = part.set_index("buffer")
        for low, high in zip(buffers[:-1], buffers[1:], strict=True):
            a, b = np.asarray(part.loc[low, "values"]), np.asarray(part.loc[high, "values"])
            if a.mean() >= 1 - _resolution("Fig. 7"):  # saturated: nothing left to grow
                continue
            key = f"droptail-monotone-{n}-{low}-{high}"
            words = f"DropTail, N = {n}: throughput with b = {high} minus b = {low}"
            if len(a) < 2 or len(b) < 2:
                out[key] = Claim(words, tolerance.single(float(b.mean() - a.mean())))
                continue
            half = tolerance.difference(tolerance.interval(a), tolerance.interval(b))
            out[key] = Claim(
                words,
                tolerance.mean(float(b.mean() - a.mean()), half, "the difference of two means"),
            )
    return out


def _resolution(figure: str) -> float:
    """The resolution the ledger states for a figure of the paper."""
    return ledger.chapter_plots("packets")[figure][0]


def _events_interval(events_table: pd.DataFrame, queue: str) -> tuple[float, float, int]:
    """The mean number of connections signalled per event (N = 10, the smallest buffer),
    its 95% half-width from the distribution of M (rows m, ccdf: P(M >= m)) over the run's
    events (normal, the events taken as independent), and the number of events."""
    part = events_table[events_table["queue"] == queue]
    part = part[part["buffer"] == part["buffer"].min()] if "buffer" in part else part
    ccdf = part.set_index("m")["ccdf"].sort_index()
    pmf = ccdf - ccdf.shift(-1, fill_value=0.0)
    m = pmf.index.to_numpy(dtype=float)
    mean = float((m * pmf).sum())
    variance = float(((m - mean) ** 2 * pmf).sum())
    n = int(part["events"].iloc[0])
    return mean, 1.96 * math.sqrt(variance / max(n, 1)), n


def events_claim(events_table: pd.DataFrame, queue: str, what: str) -> Claim:
    """The mean number of connections signalled per congestion event, with its interval."""
    mean, half, n = _events_interval(events_table, queue)
    b = int(events_table[events_table["queue"] == queue]["buffer"].min())
    return Claim(
        f"{what} b = {b}, N = 10: connections signalled per congestion event, mean over {n} events",
        tolerance.mean(mean, half, f"{n} congestion events"),
    )


def threshold_claims(replicas: pd.DataFrame) -> dict[str, Claim]:
    """Fig. 11 at N = 2-5 (Th = 3, b = 100, six seeds): each policy's throughput minus
    Theorem 1, and largest-rate minus rate-independent (Welch's interval)."""
    out = {}
    part = replicas[replicas["flows"].isin(REPLICA_FLOWS)]
    for number, select in ((1, "random"), (2, "largest")):
        mine = part[part["select"] == select]
        for n, runs in mine.groupby("flows"):
            out[f"threshold-{number}-{n}"] = Claim(
                f"Threshold-dropper, {SELECTION_NAMES[select]}, Th = 3, b = 100, N = {n}: "
                "throughput minus Theorem 1",
                tolerance.runs(runs["utilisation"] - runs["theorem1"], "seeds"),
            )
    for row in policy_gap(part).itertuples():
        out[f"threshold-3-{row.flows}"] = Claim(
            f"Threshold-dropper, Th = 3, b = 100, N = {row.flows}: largest-rate minus "
            "rate-independent throughput",
            tolerance.mean(row.difference, row.half_width, f"{row.replicas} seeds a policy"),
        )
    return out


def _capacity_claims(runs: pd.DataFrame) -> dict[str, Claim]:
    """The threshold-dropper at the largest N: throughput per (policy, Th, b)."""
    large = runs[runs["flows"] == runs["flows"].max()]
    at = point_estimates(large, ["select", "threshold", "buffer", "flows"], "utilisation")
    return {
        f"threshold-capacity-{row.select}-{row.threshold}-{row.buffer}": Claim(
            f"Threshold-dropper, {SELECTION_NAMES[row.select]}, Th = {row.threshold}, "
            f"b = {row.buffer}, N = {row.flows}: throughput / capacity",
            _runs(row.values),
        )
        for row in at.itertuples()
    }


def _rho(signalled_table: pd.DataFrame, queue: str, min_samples: int) -> pd.DataFrame:
    """Per buffer of ``queue``: the rank correlation of z(w) with w and the number of window
    bins it is over (those with at least ``min_samples`` samples)."""
    table = signalled_table[signalled_table["queue"] == queue]
    kept = table[table["samples"] >= min_samples]
    return pd.DataFrame(
        {
            "rho": table.groupby("buffer")["rho"].first(),
            "bins": kept.groupby("buffer")["window"].count(),
        }
    ).fillna({"bins": 0})


def _rho_estimate(rho: float, bins: int, widen: float = 1.0) -> tolerance.Estimate:
    """A rank correlation over ``bins`` points with its 95% interval: Fisher's z with the
    standard error sqrt(1.06 / (bins - 3)) of Spearman's coefficient (Fieller, Hartley and
    Pearson 1957), widened by ``widen``."""
    if bins < 4 or not math.isfinite(rho):
        return tolerance.single(float(rho) if math.isfinite(rho) else 0.0, "too few window bins")
    z, se = math.atanh(max(min(rho, 0.999999), -0.999999)), math.sqrt(1.06 / (bins - 3))
    low, high = math.tanh(z - 1.96 * widen * se), math.tanh(z + 1.96 * widen * se)
    return tolerance.ranged(float(rho), low, high, f"Fisher's z over {bins} window bins")


def signalled_claims(
    signalled_table: pd.DataFrame, min_samples: int, prefix: str = ""
) -> dict[str, Claim]:
    """Fig. 13: with DropTail, z(w) rises with w at every buffer (its rank correlation above
    0); Fig. 14: with RED, at some buffer (the best of them, its interval widened for how
    many it is the best of)."""
    out = {}
    for b, row in _rho(signalled_table, "droptail", min_samples).iterrows():
        out[f"{prefix}signalled-droptail-{b}"] = Claim(
            f"DropTail b = {b}, N = 10: rank correlation of P(signalled | w) with w",
            _rho_estimate(row["rho"], int(row["bins"])),
        )
    red = _rho(signalled_table, "red", min_samples)
    if len(red):
        widen = tolerance.widen(len(red))
        lows = {b: _rho_estimate(r["rho"], int(r["bins"]), widen).low for b, r in red.iterrows()}
        best = max(lows, key=lows.__getitem__)
        row = red.loc[best]
        out[f"{prefix}signalled-red"] = Claim(
            f"RED, N = 10, the buffer of {len(red)} with the clearest rise (b = {best}): rank "
            "correlation of P(signalled | w) with w",
            _rho_estimate(row["rho"], int(row["bins"]), widen),
        )
    return out


def loss_claims(loss_table: pd.DataFrame, prefix: str = "") -> dict[str, Claim]:
    """One flow under random loss: goodput over the Mathis formula for small p, over Padhye's
    for every p; under the formula the ratio is the same at every p, so the loss rates are
    replicas of it (one run each)."""
    small = loss_table[loss_table["p"] <= MATHIS_MAX_P]
    return {
        f"{prefix}mathis": Claim(
            f"One flow, random loss p <= {MATHIS_MAX_P}: goodput / Mathis formula, mean over "
            f"{len(small)} loss rates",
            tolerance.runs(small["vs_mathis"], "loss rates"),
        ),
        f"{prefix}padhye": Claim(
            f"One flow, random loss, every p: goodput / Padhye formula (T0 = 0.2 s), mean over "
            f"{len(loss_table)} loss rates",
            tolerance.runs(loss_table["vs_padhye"], "loss rates"),
        ),
    }


def _setup_claim() -> Claim:
    setup = PacketsParams()
    return holds(
        "The set-up as the paper states it: 1000-byte packets, maximum window 20000 packets, "
        "starts uniform in [0, 4] s, RED max_p 0.1 and averaging weight 0.001, averages over "
        "1000 s",
        bool(
            setup.packet_bytes == 1000
            and setup.max_window == 20_000
            and setup.start_spread == 4.0
            and setup.red_max_p == 0.1
            and setup.red_w_q == 0.001
            and setup.duration - setup.warmup == 1000.0
        ),
        "the chapter's parameters (PacketsParams)",
    )


def synchronisation_whatif(droptail_runs: pd.DataFrame) -> dict[str, Claim]:
    """The paper's explanation of Fig. 7 (synchronisation lowers small DropTail buffers'
    throughput), first half: at N = 2-5 DropTail with the smallest buffer falls below
    Theorem 1 by more than a reading of the plot (the dropper, which removes the
    synchronisation, brings it within one: the items on Fig. 11)."""
    at = point_estimates(droptail_runs, ["buffer", "flows"], "utilisation")
    small = at[(at["buffer"] == at["buffer"].min()) & at["flows"].isin(REPLICA_FLOWS)]
    return {
        f"why-below-{row.flows}": Claim(
            f"DropTail b = {row.buffer}, N = {row.flows}: Theorem 1 minus throughput",
            tolerance.runs([row.theorem1 - v for v in row.values], "runs"),
        )
        for row in small.itertuples()
    }


def red_whatif(red_runs: pd.DataFrame, droptail_runs: pd.DataFrame) -> Claim:
    """The chapter's explanation of RED's shortfall with small buffers: the DropTail runs are
    the RED runs (same seeds) without RED's early drops; with b <= 20 RED drops (almost)
    nothing early and its throughput is exactly DropTail's, while with b >= 50, where it
    drops early, it is not below Theorem 1."""
    small = red_runs[red_runs["buffer"] <= 20]
    same = small.merge(droptail_runs, on=["buffer", "flows", "seed"], suffixes=("_red", ""))
    early = small["red_early_drops"] / (small["red_early_drops"] + small["red_forced_drops"])
    gap = float((same["utilisation_red"] - same["utilisation"]).abs().median())
    big = red_runs[(red_runs["buffer"] >= 50) & (red_runs["flows"] >= 2)]
    below = float((big["utilisation"] < big["theorem1"]).mean()) if len(big) else 1.0
    return holds(
        f"What-if: with b <= 20 RED drops almost nothing early (at most {early.max():.1%}) "
        f"and its throughput is DropTail's on the same seeds (median gap {gap:.3f}); with "
        f"b >= 50, where it drops early, it is below Theorem 1 in {below:.0%} of the runs "
        "with N >= 2",
        bool(early.max() < 0.01 and gap <= tolerance.EXACT and below == 0.0),
        "every run of the RED and DropTail sweeps (the same seeds)",
    )


def hold_claim(hold_table: pd.DataFrame) -> Claim:
    """The dropper's hold: with one RTT, largest-rate signals the connection it just cut
    again (time-outs, more than five times as many as with the chapter's hold, and lower
    throughput), at the fewest connections swept."""
    n = int(hold_table["flows"].min())
    chosen = PacketsParams().hold_rtts
    table = hold_table.set_index(["flows", "select", "hold_rtts"])
    short, long = table.loc[(n, "largest", 1.0)], table.loc[(n, "largest", chosen)]
    return holds(
        f"Largest-rate dropper, N = {n}: a hold of 1 RTT gives {int(short['timeouts'])} "
        f"time-outs and {float(short['utilisation']):.3f} of the link, {chosen:g} RTT gives "
        f"{int(long['timeouts'])} and {float(long['utilisation']):.3f}",
        bool(
            short["timeouts"] > 5 * max(long["timeouts"], 1)
            and short["utilisation"] < long["utilisation"]
        ),
        "one run per hold (data/packets-hold.csv)",
    )


def chapter_claims(tables: Mapping[str, pd.DataFrame]) -> dict[str, claims.Claim]:
    """Every check of the chapter, keyed (the ledger's checks), from the tables of
    :data:`TABLES`."""
    params_min = PacketsParams().signal_min_samples
    droptail = sweep_runs(tables, "packets-droptail")
    red = sweep_runs(tables, "packets-red")
    threshold = sweep_runs(tables, "packets-threshold")
    floor = tables["packets-floor"]
    small_pipe = floor[floor["pipe_packets"] == floor["pipe_packets"].min()]
    out: dict[str, Claim] = {
        "setup": _setup_claim(),
        "small-buffer-rtt": Claim(
            "Sec. I's example: L MTU / c for L = 100 packets, MTU = 1500 B, c = 100 Mb/s, in ms",
            tolerance.computed(100 * 1500 * 8 / 100e6 * 1e3),
        ),
        "one-flow": Claim(
            f"One flow, 1-packet DropTail buffer: utilisation, mean of {len(small_pipe)} seeds",
            tolerance.runs(small_pipe["utilisation"], "seeds"),
        ),
    }
    out |= _droptail_claims(droptail)
    out["droptail-sync"] = events_claim(tables["packets-events"], "droptail", "DropTail")
    out |= synchronisation_whatif(droptail)
    red_at = point_estimates(red, ["buffer", "flows"], "utilisation")
    out |= _gap_claims(
        red_at[(red_at["flows"] >= 5) & (red_at["buffer"] >= 10)],
        "red-theorem1",
        "RED: throughput minus Theorem 1",
    )
    out["why-red"] = red_whatif(red, droptail)
    out["hold-choice"] = hold_claim(tables["packets-hold"])
    out["threshold-one"] = events_claim(tables["packets-events"], "threshold", "Threshold-dropper")
    out |= threshold_claims(tables["packets-replicas"])
    out |= _capacity_claims(threshold)
    out |= signalled_claims(tables["packets-signalled"], params_min)
    out |= loss_claims(tables["packets-loss"])
    out |= whatif_claims(tables)
    out |= variant_claims(tables)
    return out


def _flows(keys: list[str]) -> str:
    """ "N = 4, 5" from check keys ending in the number of connections."""
    found = sorted({int(k.rsplit("-", 1)[1]) for k in keys})
    return "N = " + ", ".join(str(n) for n in found) if found else "none"


def verdict_words(tables: Mapping[str, pd.DataFrame]) -> dict[str, str | int]:
    """What the prose says of the ledger's verdicts on this chapter's items: each item's
    status, and where its checks differ (``_off``) or cannot decide (``_open``)."""
    judged = {j.entry.key: j for j in ledger.judge("packets", chapter_claims(tables))}
    out: dict[str, str | int] = {}
    for key in ("threshold-1", "threshold-2", "threshold-3"):  # what a quick grid may lack
        name = "v_" + key.replace("-", "_")
        out |= {name: "not computed", f"{name}_off": "none", f"{name}_open": "none"}
    out["v_droptail_monotone_off"] = "none"
    for key, j in judged.items():
        off = [c.key for c in j.checks if c.status == "differs"]
        open_ = [c.key for c in j.checks if c.status == "undecided"]
        name = "v_" + key.replace("-", "_")
        out[name] = j.status
        out[f"{name}_checks"] = len(j.checks)
        out[f"{name}_differs"] = len(off)
        out[f"{name}_undecided"] = len(open_)
        if key.startswith("threshold-") and key[-1].isdigit():
            out[f"{name}_off"], out[f"{name}_open"] = _flows(off), _flows(open_)
    monotone = judged.get("droptail-monotone")
    if monotone is not None:
        falls = [c.key.split("-")[2:] for c in monotone.checks if c.status == "differs"]
        pairs = sorted({(int(low), int(high)) for _, low, high in falls})
        out["v_droptail_monotone_off"] = (
            "; ".join(
                f"N = {', '.join(str(int(n)) for n, a, b in falls if (int(a), int(b)) == pair)}"
                f" from b = {pair[0]} to {pair[1]}"
                for pair in pairs
            )
            or "none"
        )
    return out


def chapter_numbers(
    tables: Mapping[str, pd.DataFrame], scale: str = "full"
) -> dict[str, float | int | str]:
    """Every number the chapter's text quotes, computed from its tables (all of them, by
    experiment name) and the parameters of ``scale``."""
    params = PacketsParams() if scale == "full" else PacketsParams.quick()
    validation, loss, red = (tables[f"packets-{n}"] for n in ("validation", "loss", "red"))
    events, threshold = tables["packets-events"], tables["packets-threshold"]
    hold, signalled = tables["packets-hold"], tables["packets-signalled"]
    one, fair = validation.iloc[0], validation.iloc[1]
    small_p = loss[loss["p"] <= MATHIS_MAX_P]
    early = red["red_early_drops"] / (red["red_early_drops"] + red["red_forced_drops"])
    per_event = events[(events["m"] == 1) & (events["queue"] == "droptail")]
    tight = per_event.sort_values("buffer").iloc[0]
    first_thr = events[(events["m"] == 1) & (events["queue"] == "threshold")].iloc[0]
    by_policy = threshold.pivot_table(
        index=["flows", "threshold", "buffer"], columns="select", values="utilisation"
    )
    policies = (by_policy["random"] - by_policy["largest"]).abs()
    few = threshold[(threshold["flows"] <= 5) & (threshold["flows"] >= 2)]
    gap = policy_gap(tables["packets-replicas"])
    h2 = hold[hold["flows"] == hold["flows"].min()].set_index(["select", "hold_rtts"])
    rho = signalled.groupby(["queue", "buffer"])["rho"].first()
    red_runs = signalled[signalled["queue"] == "red"].groupby("buffer")["early_drops"].first()
    sack = variant_numbers(tables) if all(name in tables for name in RERUNS.values()) else {}
    sack |= whatif_numbers(tables)
    sack |= verdict_words(tables)
    return sack | {
        "one_util": float(one["utilisation"]),
        "fair_flows": int(fair["flows"]),
        "fair_jain": float(fair["jain"]),
        "fair_util": float(fair["utilisation"]),
        "mathis_max_p": MATHIS_MAX_P,
        "mathis_lo": float(small_p["vs_mathis"].min()),
        "mathis_hi": float(small_p["vs_mathis"].max()),
        "padhye_worst": float(loss["vs_padhye"].min()),
        "padhye_at_max": float(loss["vs_padhye"].iloc[-1]),
        "loss_p_max": float(loss["p"].max()),
        "mathis_at_max": float(loss["vs_mathis"].iloc[-1]),
        "loss_tol": LOSS_TOLERANCE,
        "red_gap": red_gap(red),
        "red_early_small": float(early[red["buffer"] <= 20].max()),
        "red_early_large": float(early[red["buffer"] >= 50].mean()),
        "ev_b": int(tight["buffer"]),
        "ev_signals": float(tight["mean_m"]),
        "ev_signal_events": int(tight["events"]),
        "ev_drops": float(tight["mean_m_drops"]),
        "ev_drop_events": int(tight["events_drops"]),
        "ev_drops_max": float(per_event["mean_m_drops"].max()),
        "ev_signals_max": float(per_event["mean_m"].max()),
        "thr_signals": float(first_thr["mean_m"]),
        "thr_drops": float(first_thr["mean_m_drops"]),
        "thr_largest_gap": float(
            (
                threshold[threshold["select"] == "largest"]["utilisation"]
                - threshold[threshold["select"] == "largest"]["theorem1"]
            )
            .abs()
            .median()
        ),  # fmt: skip
        "thr_policy_gap": float(policies.median()),
        "thr_policy_max": float(policies.max()),
        "thr_first_gap": float((by_policy["random"] - by_policy["first"]).abs().median()),
        "thr_few_gap": float((few["utilisation"] - few["theorem1"]).abs().median()),
        "thr_full_from": int(threshold[threshold["utilisation"] >= 0.985]["flows"].min()),
        "rep_n": int(gap["replicas"].min()),
        "rep_half_max": float(gap["half_width"].max()),
        "rep_gap_min": float(gap["difference"].min()),
        "rep_gap_at": int(gap.loc[gap["difference"].idxmin(), "flows"]),
        "rep_significant": int((gap["difference"].abs() > gap["half_width"]).sum()),
        "rep_points": len(gap),
        "hold_n": int(hold["flows"].min()),
        "hold_largest_1": float(h2.loc[("largest", 1.0), "utilisation"]),
        "hold_largest_1_to": int(h2.loc[("largest", 1.0), "timeouts"]),
        "hold_largest_15": float(h2.loc[("largest", params.hold_rtts), "utilisation"]),
        "hold_largest_15_to": int(h2.loc[("largest", params.hold_rtts), "timeouts"]),
        "hold_choice": params.hold_rtts,
        "sig_min": params.signal_min_samples,
        "sig_duration": params.signal_duration,
        "sig_rho_min": float(rho["droptail"].min()),
        "sig_rho_max": float(rho["droptail"].max()),
        "sig_red_min": float(rho["red"].min()),
        "sig_red_max": float(rho["red"].max()),
        "sig_red_early": int(red_runs.sum()),
        "sig_red_runs": len(red_runs),
    }


#: the statements of the shipped sweeps that ``packets-sack`` reran at some points with SACK,
#: one run per point (the SACK section's table), by the item whose paper side judges them
VARIANT_KEYS = (
    "droptail-small",
    "droptail-large",
    "droptail-monotone",
    "red-theorem1",
    "threshold-1",
    "threshold-2",
)


def variant_claims(tables: Mapping[str, pd.DataFrame]) -> dict[str, Claim]:
    """The checks the SACK reruns carry: the congestion events, Figs. 13-14 and the
    random-loss runs, rerun whole (keys ``sack-...``, each a check of the paper's item), and
    the book's item: SACK minus NewReno throughput, per queue, over the rerun points (the
    mean of the paired differences, same set-up and seed)."""
    events = variant_table(tables, "packets-events", "sack")
    out = {
        "sack-droptail-sync": events_claim(events, "droptail", "SACK, DropTail"),
        "sack-threshold-one": events_claim(events, "threshold", "SACK, threshold-dropper"),
    }
    min_samples = PacketsParams().signal_min_samples
    out |= signalled_claims(
        variant_table(tables, "packets-signalled", "sack"), min_samples, "sack-"
    )
    out |= loss_claims(variant_table(tables, "packets-loss", "sack"), "sack-")
    pairs = paired(tables)
    for queue, part in pairs.groupby("queue", sort=False):
        out[f"sack-{queue}"] = Claim(
            f"SACK minus NewReno throughput, {queue}, mean over {len(part)} points (same set-up "
            "and seed)",
            tolerance.runs(part["gain"], "paired points"),
        )
    drop = events[events["queue"] == "droptail"]
    drop = drop[drop["buffer"] == drop["buffer"].min()]
    everyone = drop[drop["m"] == drop["m"].max()]
    n_events = int(drop["events"].iloc[0])
    share = float(everyone["ccdf"].iloc[0]) if int(drop["m"].max()) == 10 else 0.0
    out["partial-sync-sack"] = Claim(
        f"SACK, DropTail b = {int(drop['buffer'].iloc[0])}, N = 10: share of the {n_events} "
        "congestion events that signal all 10 connections",
        tolerance.mean(
            share, 1.96 * math.sqrt(share * (1 - share) / max(n_events, 1)), f"{n_events} events"
        ),
    )
    return out


def _sweep_checks(tables: Mapping[str, pd.DataFrame], variant: str) -> dict[str, dict]:
    """The sweep statements on the points SACK reran, with ``variant``'s runs there (one run
    a point), by statement."""
    sweeps = points(tables, variant)
    found = _droptail_claims(sweeps["droptail"].assign(seed=0))
    red_at = point_estimates(sweeps["red"], ["buffer", "flows"], "utilisation")
    found |= _gap_claims(red_at, "red-theorem1", "RED: throughput minus Theorem 1")
    thr = sweeps["threshold"]
    for number, select in ((1, "random"), (2, "largest")):
        at = point_estimates(thr[thr["select"] == select], ["threshold", "buffer", "flows"],
                             "utilisation")  # fmt: skip
        found |= _gap_claims(at, f"threshold-{number}", "Threshold-dropper")
    return {
        key: {k: c for k, c in found.items() if k.startswith(key + "-")} for key in VARIANT_KEYS
    }


def variant_verdicts(tables: Mapping[str, pd.DataFrame]) -> pd.DataFrame:
    """Per sweep statement, on the points SACK reran (one run a point): the number of
    checks, and each variant's status under the item's paper side
    (:func:`tcplab.ledger.verdicts.judge_with`)."""
    entries = {e.key: e for e in ledger.chapter_entries("packets")}
    newreno, sack = _sweep_checks(tables, "newreno"), _sweep_checks(tables, "sack")
    out = []
    for key in VARIANT_KEYS:
        a = ledger.judge_with(entries[key], newreno[key])
        b = ledger.judge_with(entries[key], sack[key])
        out.append(
            {
                "statement": entries[key].ref,
                "checks": len(newreno[key]),
                "newreno": a.status if a else "",
                "sack": b.status if b else "",
            }
        )
    return pd.DataFrame(out)


def variant_numbers(tables: Mapping[str, pd.DataFrame]) -> dict[str, float | int | str]:
    """The numbers the chapter's SACK section quotes."""
    pairs = paired(tables)
    gain = pairs["gain"]
    red = pairs[pairs["queue"] == "red"]
    # the fewest connections under RED (one, at full scale), by buffer
    one = red[red["flows"] == red["flows"].min()].sort_values("gain")
    verdicts = variant_verdicts(tables)
    by_queue = pairs.groupby("queue")
    out: dict[str, float | int | str] = {
        "sack_points": len(pairs),
        "sack_red1_n": int(red["flows"].min()),
        "sack_red1_lo": float(one["gain"].iloc[0]),
        "sack_red1_lo_b": int(one["buffer"].iloc[0]),
        "sack_red1_hi": float(one["gain"].iloc[-1]),
        "sack_red1_hi_b": int(one["buffer"].iloc[-1]),
        "sack_rest_max": float(gain[~gain.index.isin(one.index)].abs().max()),
        "sack_gain_median": float(gain.median()),
        "sack_gain_min": float(gain.min()),
        "sack_gain_max": float(gain.max()),
        "sack_abs_gain_median": float(gain.abs().median()),
        "sack_same": int((verdicts["newreno"] == verdicts["sack"]).sum()),
        "sack_statements": len(verdicts),
        "sack_util_tol": UTIL_TOLERANCE,
        "sack_to_newreno": int(pairs["timeouts_newreno"].sum()),
        "sack_to_sack": int(pairs["timeouts_sack"].sum()),
    }
    for variant in VARIANT_NAMES:
        events = variant_table(tables, "packets-events", variant)
        first = events[events["m"] == 1]
        drop = first[first["queue"] == "droptail"].sort_values("buffer")
        out[f"sack_ev_{variant}"] = float(drop["mean_m"].iloc[0])
        out[f"sack_ev_drops_{variant}"] = float(drop["mean_m_drops"].iloc[0])
        out[f"sack_ev_max_{variant}"] = float(drop["mean_m"].max())
        dropper = first[first["queue"] == "threshold"]
        out[f"sack_ev_thr_{variant}"] = float(dropper["mean_m"].iloc[0])
        out |= _rerun_numbers(tables, variant)
    loss = loss_pairs(tables)
    ratio = loss["rate_pps_sack"] / loss["rate_pps_newreno"]
    signalled = signalled_pairs(tables)
    out |= {
        "sack_loss_points": len(loss),
        "sack_loss_ratio_lo": float(ratio.min()),
        "sack_loss_ratio_hi": float(ratio.max()),
        "sack_loss_to_more": int((loss["timeouts_sack"] > loss["timeouts_newreno"]).sum()),
        "sack_loss_p_min": float(loss["p"].min()),
        "sack_loss_p_max": float(loss["p"].max()),
        "sack_sig_runs": len(signalled),
        "sack_sig_higher": int((signalled["rho_sack"] > signalled["rho_newreno"]).sum()),
    }
    rise = signalled.assign(gap=signalled["rho_sack"] - signalled["rho_newreno"])
    widest = rise.loc[rise["gap"].idxmax()]
    out |= {
        "sack_sig_gap": float(widest["gap"]),
        "sack_sig_gap_queue": "DropTail" if widest["queue"] == "droptail" else "RED",
        "sack_sig_gap_b": int(widest["buffer"]),
        "sack_sig_gap_newreno": float(widest["rho_newreno"]),
        "sack_sig_gap_sack": float(widest["rho_sack"]),
    }
    for queue, part in by_queue:
        out[f"sack_gain_{queue}"] = float(part["gain"].median())
        out[f"sack_to_newreno_{queue}"] = int(part["timeouts_newreno"].sum())
        out[f"sack_to_sack_{queue}"] = int(part["timeouts_sack"].sum())
    return out


def _rerun_numbers(tables: Mapping[str, pd.DataFrame], variant: str) -> dict[str, float | int]:
    """Figs. 13-14 and the random-loss runs with ``variant``: what the SACK section quotes."""
    signalled = variant_table(tables, "packets-signalled", variant)
    loss = variant_table(tables, "packets-loss", variant)
    rho = signalled.groupby(["queue", "buffer"])["rho"].first()
    mean_z = signalled.groupby(["queue", "buffer"])["mean_z"].first()
    small = loss[loss["p"] <= MATHIS_MAX_P]
    red = signalled[signalled["queue"] == "red"].groupby("buffer")["early_drops"].first()
    return {
        f"sack_sig_rho_min_{variant}": float(rho["droptail"].min()),
        f"sack_sig_rho_max_{variant}": float(rho["droptail"].max()),
        f"sack_sig_red_min_{variant}": float(rho["red"].min()),
        f"sack_sig_red_max_{variant}": float(rho["red"].max()),
        f"sack_sig_z_min_{variant}": float(mean_z.min()),
        f"sack_sig_z_max_{variant}": float(mean_z.max()),
        f"sack_sig_events_{variant}": int(
            signalled.groupby(["queue", "buffer"])["events"].first().sum()
        ),
        f"sack_sig_red_early_{variant}": int(red.sum()),
        f"sack_mathis_lo_{variant}": float(small["vs_mathis"].min()),
        f"sack_mathis_hi_{variant}": float(small["vs_mathis"].max()),
        f"sack_padhye_lo_{variant}": float(loss["vs_padhye"].min()),
        f"sack_padhye_hi_{variant}": float(loss["vs_padhye"].max()),
        f"sack_loss_to_{variant}": int(loss["timeouts"].sum()),
        f"sack_loss_to_high_{variant}": int(loss["timeouts"].iloc[-1]),
        f"sack_loss_at_high_{variant}": float(loss["vs_padhye"].iloc[-1]),
    }
