"""Paper vs. book for the packet-level validation (Altman et al. 2006, Section V), and the
numbers the chapter's prose quotes.

The paper's Section V gives curves and sentences, not tables: each claim turns a sentence into
a number, or a statement that holds or not (:func:`tcplab.claims.yes_no`), that the chapter
prints beside the paper's and that tests/test_packets_chapter.py checks.
:func:`chapter_numbers` computes every other number the text quotes, from the same tables
(and the same helpers where a claim quotes it too).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

import numpy as np
import pandas as pd

from tcplab import claims
from tcplab.claims import rows, ruled, yes_no
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
    "chapter_claims",
    "QUICK_VERDICTS",
    "PLOT_RESOLUTION",
    "chapter_numbers",
    "keyed_claims",
    "red_gap",
    "UTIL_TOLERANCE",
    "LOSS_TOLERANCE",
    "MATHIS_MAX_P",
    "paper_claims",
    "signalled_claim",
    "signalled_red_claim",
    "threshold_claims",
    "loss_claims",
    "VARIANT_KEYS",
    "variant_claims",
    "variant_verdicts",
    "variant_numbers",
]

#: the experiments the claims read, in the order of :func:`keyed_claims`
CLAIM_TABLES = (
    "packets-validation",
    "packets-droptail",
    "packets-red",
    "packets-events",
    "packets-threshold",
    "packets-loss",
    "packets-signalled",
)
#: ... and those the prose quotes too, and the SACK reruns (whose claims come last)
TABLES = (
    *CLAIM_TABLES,
    "packets-hold",
    "packets-replicas",
    SACK_TABLE,
    *RERUNS.values(),
    *WHATIF_TABLES,
)
#: the paper's Figs. 7, 10 and 11 plot throughput / capacity on an axis from 0.75 to 1 with
#: ticks every 0.05 (legible in Fig. 11): a reading off them is good to half a tick. The
#: run-to-run 95% half-width of one run's throughput (packets-replicas, 6 seeds, N = 2...5) is
#: at most 0.005, below it, so the reading's resolution sets the tolerance (tolerance.plot)
PLOT_RESOLUTION = 0.025
#: at quick scale (100 s runs, a few points), the verdicts that differ from the full-scale
#: ledger's: the rate-independent threshold-dropper's median distance to Theorem 1 is then just
#: beyond the plot's resolution, and the SACK loss reruns keep one loss rate in the Mathis
#: formula's range, which has no interval
QUICK_VERDICTS = {"threshold-1": False, "sack-threshold-1": False, "sack-mathis": False}
#: ... and the what-if runs, which at quick scale are smoke tests of their code (runs of 6 to
#: 14 s, the one-connection runs still in slow start), whose statements need the full runs
QUICK_VERDICTS |= {
    "floor-closed-form": False,
    "one-flow-whatif": False,
    "why-one-flow": False,
    "why-red-above": False,
    "setup-run-length": False,
}
#: the distance from Theorem 1 the SACK comparison of the prose calls small (a display
#: threshold of the SACK section, not a claim's tolerance)
UTIL_TOLERANCE = 0.03  # packet runs: a few per cent from finite buffers and finite runs
# the band the SACK section and its tests use for the loss runs' ratios (a display band: the
# claims' tolerances are the 95% interval of the ratio over the loss rates, see loss_claims)
LOSS_TOLERANCE = 0.15
MATHIS_MAX_P = 0.01  # beyond it time-outs matter and only Padhye et al. apply


def red_gap(red_table: pd.DataFrame) -> float:
    """RED, N >= 5 and buffers of at least 10: median |throughput - Theorem 1|."""
    many = red_table[(red_table["flows"] >= 5) & (red_table["buffer"] >= 10)]
    return float((many["utilisation"] - many["theorem1"]).abs().median())


def paper_claims(
    validation_table: pd.DataFrame,
    droptail_table: pd.DataFrame,
    red_table: pd.DataFrame,
    events_table: pd.DataFrame,
    threshold_table: pd.DataFrame | None = None,
    loss_table: pd.DataFrame | None = None,
    signalled_table: pd.DataFrame | None = None,
) -> list[claims.Claim]:
    """Paper-vs-book rows: numbers, or inequalities written as 1 (true) against 1."""
    return list(
        keyed_claims(
            validation_table, droptail_table, red_table, events_table,
            threshold_table, loss_table, signalled_table,
        ).values()
    )  # fmt: skip


def chapter_claims(tables: Mapping[str, pd.DataFrame]) -> dict[str, claims.Claim]:
    """:func:`keyed_claims` of the tables of :data:`TABLES` (the uniform entry the tests use),
    the what-if rows (:func:`.whatif_claims.whatif_claims`), then the same statements with SACK
    (:func:`variant_claims`, keys ``sack-...``)."""
    out = keyed_claims(*(tables[name] for name in CLAIM_TABLES))
    out |= whatif_claims(tables, PLOT_RESOLUTION)
    if all(name in tables for name in (SACK_TABLE, *RERUNS.values())):
        for key, claim in variant_claims(tables, "sack").items():
            out[f"sack-{key}"] = claim
    return out


def keyed_claims(
    validation_table: pd.DataFrame,
    droptail_table: pd.DataFrame,
    red_table: pd.DataFrame,
    events_table: pd.DataFrame,
    threshold_table: pd.DataFrame | None = None,
    loss_table: pd.DataFrame | None = None,
    signalled_table: pd.DataFrame | None = None,
) -> dict[str, claims.Claim]:
    """:func:`paper_claims` under short keys, in reading order."""
    out: dict[str, claims.Claim] = {}
    one = validation_table.iloc[0]
    out["one-flow"] = ruled(
        "One flow, 1-packet DropTail buffer: utilisation",
        "Altman et al. 2006, Sec. I: 'attains 75% link utilization'",
        0.75,
        float(one["utilisation"]),
        tolerance.number("75%"),
    )
    small, large = min(droptail_table["buffer"]), max(droptail_table["buffer"])
    below = rows(droptail_table, buffer=small)
    share_below = float(np.mean(below["utilisation"] < below["theorem1"]))
    setup = PacketsParams()
    out["setup"] = yes_no(
        "The set-up as stated: 1000-byte packets, maximum window 20000 packets, starts "
        "uniform in [0, 4] s, RED max_p 0.1 and averaging weight 0.001, averages over 1000 s",
        "Sec. V-A and Fig. 6",
        True,
        bool(
            setup.packet_bytes == 1000
            and setup.max_window == 20_000
            and setup.start_spread == 4.0
            and setup.red_max_p == 0.1
            and setup.red_w_q == 0.001
            and setup.duration - setup.warmup == 1000.0
        ),
    )
    out["small-buffer-rtt"] = ruled(
        "Sec. I's example: L MTU / c for L = 100 packets, MTU = 1500 B, c = 100 Mb/s, in ms",
        "Sec. I: 'the condition is RTT >> 12 ms'",
        12.0,
        100 * 1500 * 8 / 100e6 * 1e3,
        tolerance.number("12 ms"),
    )
    out["droptail-small"] = yes_no(
        f"DropTail b = {small}: throughput below Theorem 1 for most N "
        f"(share of N: {share_below:.2f})",
        "Sec. V.B: 'typically, for small buffer lengths, the achieved throughput is smaller'",
        True,
        share_below > 0.5,
    )
    above = rows(droptail_table, buffer=large)
    share_above = float(np.mean(above["utilisation"] >= above["theorem1"]))
    out["droptail-large"] = yes_no(
        f"DropTail b = {large}: throughput at or above Theorem 1 for every N "
        f"(share of N: {share_above:.2f})",
        "Sec. V.B: 'if buffer length is sufficiently large, throughput is larger'",
        True,
        share_above == 1.0,
    )
    mean_by_buffer = droptail_table.groupby("buffer")["utilisation"].mean()
    out["droptail-monotone"] = claims.yes_no(
        claim="DropTail: mean throughput increases with the buffer, at every step",
        source="Sec. V.B: 'the larger the buffer is, the larger the throughput is'",
        paper=True,
        book=bool(mean_by_buffer.is_monotonic_increasing),
    )
    if "red_early_drops" in red_table:
        out["why-red"] = red_whatif(red_table, droptail_table)
    out["red-theorem1"] = ruled(
        "RED, N >= 5, b >= 10: median |throughput - Theorem 1|",
        "Sec. V.C, Fig. 10: 'reasonable conformance to Theorem 1'",
        0.0,
        red_gap(red_table),
        tolerance.plot(PLOT_RESOLUTION),
    )
    first = events_table[events_table["m"] == 1]
    drop_mean = first[first["queue"] == "droptail"]
    smallest = drop_mean[drop_mean["buffer"] == drop_mean["buffer"].min()].iloc[0]
    out["droptail-sync"] = claims.yes_no(
        claim=f"DropTail b = {int(smallest['buffer'])}, N = 10: more than 1.5 connections"
        " are signalled per congestion event, on average",
        source="Sec. V.B: TCP windows are synchronised (Figs. 8-9), so not ONE",
        paper=True,
        book=bool(smallest["mean_m"] > 1.5),
    )
    thr = first[first["queue"] == "threshold"]
    if len(thr):
        # ONE is exactly one connection per event: a closed statement, so the mean number
        # signalled is held to the 95% interval of that mean over the run's events
        signalled = thr.iloc[0]
        out["threshold-one"] = ruled(
            f"Threshold-dropper, N = 10: mean connections signalled per event "
            f"({int(signalled['events'])} events)",
            "Sec. V.D: 'threshold-dropper enforces assumption ONE'",
            1.0,
            float(signalled["mean_m"]),
            tolerance.exact(half_width=_events_interval(events_table, "threshold")),
        )
    if threshold_table is not None and len(threshold_table):
        for i, claim in enumerate(threshold_claims(threshold_table)):
            out[f"threshold-{i + 1}"] = claim
        out["why-droptail-below"] = synchronisation_whatif(droptail_table, threshold_table)
        largest_n = threshold_table[threshold_table["flows"] == threshold_table["flows"].max()]
        out["threshold-capacity"] = ruled(
            f"Threshold-dropper, N = {int(largest_n['flows'].iloc[0])}: throughput / capacity, "
            "median over policies and (Th, b)",
            "Sec. V.D: 'for sufficiently large number of connections, the throughput is "
            "essentially equal to the link capacity'",
            1.0,
            float(largest_n["utilisation"].median()),
            tolerance.plot(PLOT_RESOLUTION),
        )
    if loss_table is not None and len(loss_table):
        out["mathis"], out["padhye"] = loss_claims(loss_table)
    if signalled_table is not None and len(signalled_table):
        out["signalled-droptail"] = signalled_claim(signalled_table)
        if "red" in set(signalled_table["queue"]):
            out["signalled-red"] = signalled_red_claim(signalled_table)
    return out


def red_whatif(red_table: pd.DataFrame, droptail_table: pd.DataFrame) -> claims.Claim:
    """The chapter's explanation of RED's shortfall with small buffers, as a what-if: the
    DropTail runs are the RED runs (same seeds) without RED's early drops; with b <= 20 RED
    drops (almost) nothing early and its throughput is exactly DropTail's, so there it falls
    below Theorem 1 as DropTail does, while with b >= 50, where it drops early, it does not."""
    small = red_table[red_table["buffer"] <= 20]
    same = small.merge(droptail_table, on=["buffer", "flows"], suffixes=("_red", ""))
    early = small["red_early_drops"] / (small["red_early_drops"] + small["red_forced_drops"])
    gap = float((same["utilisation_red"] - same["utilisation"]).abs().median())
    big = red_table[(red_table["buffer"] >= 50) & (red_table["flows"] >= 2)]
    below = float((big["utilisation"] < big["theorem1"]).mean()) if len(big) else 1.0
    return yes_no(
        f"What-if: with b <= 20 RED drops almost nothing early (at most {early.max():.1%}) "
        f"and its throughput is DropTail's (median gap {gap:.3f}), below Theorem 1 as DropTail "
        f"is; with b >= 50, where it drops early, it is below Theorem 1 at {below:.0%} of N >= 2",
        "Book, on Sec. V.C: RED's thresholds are too low for small buffers",
        True,
        bool(early.max() < 0.01 and gap <= tolerance.EXACT and below == 0.0),
    )


def synchronisation_whatif(
    droptail_table: pd.DataFrame, threshold_table: pd.DataFrame
) -> claims.Claim:
    """The paper's explanation of Fig. 7 (synchronisation lowers the throughput of small
    DropTail buffers) as a what-if: the threshold-dropper (Th = 3, b = 100, rate-independent)
    removes the synchronisation; over the same N = 2...10 the shortfall below Theorem 1 must go
    from beyond the plot's resolution (DropTail, smallest buffer) to within it (median)."""
    small = min(droptail_table["buffer"])
    drop = rows(droptail_table, buffer=small)
    drop = drop[drop["flows"] >= 2]
    dropper = rows(threshold_table, threshold=3, buffer=100, select="random")
    dropper = dropper[dropper["flows"].isin(set(drop["flows"]))]
    before = float((drop["theorem1"] - drop["utilisation"]).median())
    after = float((dropper["theorem1"] - dropper["utilisation"]).abs().median())
    return yes_no(
        f"What-if: DropTail b = {small} falls below Theorem 1 by {before:.3f} (median over "
        f"N = 2…{int(drop['flows'].max())}); the threshold-dropper, which signals about one "
        f"connection per event, brings the distance to {after:.3f}, within the plot's "
        f"±{PLOT_RESOLUTION}",
        "Sec. V.B-V.D: synchronisation (Figs. 8-9) explains the shortfall of Fig. 7; "
        "the threshold-dropper enforces ONE (Figs. 11-12)",
        True,
        bool(before > PLOT_RESOLUTION and after <= PLOT_RESOLUTION and len(dropper) > 0),
    )


def _events_interval(events_table: pd.DataFrame, queue: str) -> float:
    """95% half-width of the mean number of connections signalled per event (N = 10), from
    the distribution of M in ``events_table`` (rows m, share: the CCDF of Fig. 15 as
    P(M >= m)) and the number of events."""
    part = events_table[events_table["queue"] == queue]
    part = part[part["buffer"] == part["buffer"].min()] if "buffer" in part else part
    ccdf = part.set_index("m")[_ccdf_column(part)].sort_index()
    pmf = ccdf - ccdf.shift(-1, fill_value=0.0)
    m = pmf.index.to_numpy(dtype=float)
    mean = float((m * pmf).sum())
    variance = float(((m - mean) ** 2 * pmf).sum())
    n = int(part["events"].iloc[0])
    return 1.96 * (variance / max(n, 1)) ** 0.5


def _ccdf_column(part: pd.DataFrame) -> str:
    for name in ("ccdf", "share", "fraction", "probability"):
        if name in part:
            return name
    raise KeyError(f"no CCDF column in {list(part.columns)}")


def threshold_claims(threshold_table: pd.DataFrame) -> list[claims.Claim]:
    """Fig. 11: each policy near Theorem 1, and the two policies near each other."""
    out = []
    for select, figure in (("random", "left"), ("largest", "right")):
        part = threshold_table[threshold_table["select"] == select]
        if not len(part):
            continue
        gap = float((part["utilisation"] - part["theorem1"]).abs().median())
        out.append(
            ruled(
                f"Threshold-dropper, {SELECTION_NAMES[select]}: median |throughput -"
                " Theorem 1| over N and (Th, b)",
                f"Sec. V.D, Fig. 11 {figure}: 'good qualitative conformance'",
                0.0,
                gap,
                tolerance.plot(PLOT_RESOLUTION),
            )
        )
    keys = ["flows", "threshold", "buffer"]
    by_select = threshold_table.pivot_table(index=keys, columns="select", values="utilisation")
    if {"random", "largest"} <= set(by_select.columns):
        diff = (by_select["random"] - by_select["largest"]).abs().median()
        out.append(
            ruled(
                "Threshold-dropper: median |rate-independent - largest-rate| throughput",
                "Sec. V.D, Fig. 11: 'rate-independent and largest-rate policy match well'",
                0.0,
                float(diff),
                tolerance.plot(PLOT_RESOLUTION),
            )
        )
    return out


def _rho(signalled_table: pd.DataFrame, queue: str) -> pd.Series:
    """Each buffer's rank correlation of z(w) with w, for one queue."""
    table = signalled_table[signalled_table["queue"] == queue]
    return table.groupby("buffer")["rho"].first()


def signalled_red_claim(signalled_table: pd.DataFrame) -> claims.Claim:
    """Fig. 14: with RED too, z(w) rises with w for some buffers (the paper: 'some')."""
    rho = _rho(signalled_table, "red")
    buffers = ", ".join(str(b) for b in rho.index)
    return claims.yes_no(
        claim=f"RED b = {buffers}, N = 10: for some buffer, P(signalled | w) rises with w",
        source="Sec. V.D.1, Fig. 14: 'some of the results suggest the larger ... the more likely'",
        paper=True,
        book=bool(np.any(rho.to_numpy() > 0)),
    )


def signalled_claim(signalled_table: pd.DataFrame) -> claims.Claim:
    """Fig. 13: z(w) increases with w (rank correlation > 0) for every DropTail buffer."""
    rho = _rho(signalled_table, "droptail")
    buffers = ", ".join(str(b) for b in rho.index)
    return yes_no(
        f"DropTail b = {buffers}, N = 10: P(signalled | w) rises with w for every buffer"
        " (Spearman rank correlation > 0)",
        "Sec. V.D.1, Fig. 13: 'the larger the congestion window ... the more likely'",
        True,
        bool(np.all(rho.to_numpy() > 0)),
    )


def _worst(ratios: pd.Series) -> float:
    """The ratio farthest from 1."""
    values = ratios.to_numpy()
    return float(values[np.argmax(np.abs(values - 1.0))])


def loss_claims(loss_table: pd.DataFrame) -> list[claims.Claim]:
    """One flow under random loss: ours / Mathis for small p, ours / Padhye for every p."""
    small = loss_table[loss_table["p"] <= MATHIS_MAX_P]
    return [
        # under the formula the ratio is the same at every p: the loss rates are replicas of
        # it, and their mean is held to its 95% interval (one run per p)
        ruled(
            f"One flow, random loss p <= {MATHIS_MAX_P}: goodput / Mathis formula, mean over "
            f"{len(small)} loss rates (worst {_worst(small['vs_mathis']):.3f})",
            "Sec. I: the sawtooth 'is the underlying model of a particular TCP square-root "
            "loss-throughput formula' (Mathis et al. 1997: sqrt(3/2) / (RTT sqrt(p)))",
            1.0,
            float(small["vs_mathis"].mean()),
            tolerance.exact(values=small["vs_mathis"].to_numpy()),
        ),
        ruled(
            f"One flow, random loss, every p: goodput / Padhye formula, mean over "
            f"{len(loss_table)} loss rates (worst {_worst(loss_table['vs_padhye']):.3f})",
            "Padhye et al. 1998, eq. (31), with time-outs (T0 = 0.2 s)",
            1.0,
            float(loss_table["vs_padhye"].mean()),
            tolerance.exact(values=loss_table["vs_padhye"].to_numpy()),
        ),
    ]


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


#: the paper's statements on the DropTail, RED and threshold-dropper sweeps (which
#: ``packets-sack`` reruns with SACK at some points), on Fig. 15, on Figs. 13-14 and on one
#: flow under random loss (``packets-sack-events``, ``-signalled``, ``-loss``: whole reruns)
VARIANT_KEYS = (
    "droptail-small",
    "droptail-large",
    "droptail-monotone",
    "red-theorem1",
    "droptail-sync",
    "threshold-one",
    "threshold-1",
    "threshold-2",
    "threshold-3",
    "signalled-droptail",
    "signalled-red",
    "mathis",
    "padhye",
)


def variant_claims(tables: Mapping[str, pd.DataFrame], variant: str) -> dict[str, claims.Claim]:
    """The claims of :data:`VARIANT_KEYS` on the points SACK was run at, with ``variant``'s
    rows (``newreno``: the chapter's own, the sweeps cut to those points; ``sack``: the
    reruns), at the chapter's tolerances; the claim's text names the variant and the
    sub-grid."""
    sweeps = points(tables, variant)
    whole = {name: variant_table(tables, name, variant) for name in RERUNS}
    found = keyed_claims(
        tables["packets-validation"],
        sweeps["droptail"],
        sweeps["red"],
        whole["packets-events"],
        sweeps["threshold"],
        whole["packets-loss"],
        whole["packets-signalled"],
    )
    name = VARIANT_NAMES[variant]
    flows = ", ".join(str(n) for n in sorted(set(sweeps["droptail"]["flows"])))
    buffers = ", ".join(str(b) for b in sorted(set(sweeps["droptail"]["buffer"])))
    where = {
        "droptail-monotone": f" (b = {buffers})",
        "droptail-small": f" (N = {flows})",
        "droptail-large": f" (N = {flows})",
    }
    return {
        key: replace(found[key], claim=f"{name}: {found[key].claim}{where.get(key, '')}")
        for key in VARIANT_KEYS
    }


def variant_verdicts(tables: Mapping[str, pd.DataFrame]) -> pd.DataFrame:
    """Per statement: the paper's value, the tolerance, and the book's value and verdict with
    NewReno and with SACK on the same points (rows in the order of :data:`VARIANT_KEYS`)."""
    newreno, sack = variant_claims(tables, "newreno"), variant_claims(tables, "sack")
    rows = []
    for key in VARIANT_KEYS:
        a, b = newreno[key], sack[key]
        rows.append(
            {
                "claim": a.claim.removeprefix("NewReno: "),
                "source": a.source,
                "paper": a.paper,
                "tolerance": a.tolerance,
                "newreno": a.book,
                "newreno_agrees": "yes" if a.within else "no",
                "sack": b.book,
                "sack_agrees": "yes" if b.within else "no",
            }
        )
    return pd.DataFrame(rows)


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
        "sack_agree_newreno": int((verdicts["newreno_agrees"] == "yes").sum()),
        "sack_agree_sack": int((verdicts["sack_agrees"] == "yes").sum()),
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
