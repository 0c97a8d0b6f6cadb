"""ns-3 vs. the book: the appendix's comparison table, its claims and the numbers it quotes.

Here "the paper" is ns-3: each claim sets ns-3's mean over its seeds (data/ns3-dumbbell.csv)
beside the packet model's (the ``ns3-tcplab`` experiment) for one scenario and one quantity.
The tolerance is the book's rule for two simulators, each with its runs
(:func:`difference_estimate`): the 95% interval of the difference of the two means, whose
half-width combines each side's (Student's t over its runs) as sqrt(h_ns3^2 + h_tcplab^2).
With three runs each this is Welch's interval with the smaller sample's degrees of freedom
(conservative). At quick scale the packet model has one short run, whose variance is taken as
ns-3's scaled by the ratio of measured times (a run's variance falls as one over its length).
With normal errors a check of two simulators that agree fails at most 5% of the time. The
ledger (``ledger.toml``) groups the checks by scenario and judges them;
:func:`mechanism_claims` are the what-ifs behind the explanations the appendix gives.

The quantities are rates, so that runs of different lengths compare: goodput in Mb/s of whole
1500-byte packets (ns-3 counts the 1460 payload bytes: scaled by 1500/1460), the drop rate at
the bottleneck, time-outs and fast retransmits per second (ns-3: RTO expiries, counted as the
RTO's doublings, and entries into fast recovery), RED's forced drops per second (with the
drops of a full buffer, which ns-3 counts apart and tcplab among the forced ones), Jain's
index, the mean queue, and the
share of the packets that crossed the bottleneck which the receiver already had (the cost of
needless retransmissions).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from tcplab import claims
from tcplab.ledger import tolerance
from tcplab.stats import t975

from .grid import DELAYED_ACK_MS, LARGE, MATCHED, PROBE_MIN_RTO_MS, SMALL

__all__ = [
    "TABLES",
    "KEYS",
    "METRICS",
    "chapter_claims",
    "chapter_numbers",
    "comparison",
    "difference_estimate",
    "mechanism_claims",
    "normalise",
]

#: the experiment the claims read (ns-3's table is read by :func:`ns3_of`)
TABLES = ("ns3-tcplab",)
KEYS = ["queue", "buffer", "flows", "tcp", "delayed_ack_ms", "min_rto_ms"]
FLOOR = float(MATCHED["min_rto_ms"])  # the matched RTO floor (ms); the probe raises it
DELACK = (DELAYED_ACK_MS, FLOOR)  # delayed ACKs at the matched floor
PROBE = (DELAYED_ACK_MS, PROBE_MIN_RTO_MS)  # delayed ACKs at the probe's floor
PLAIN = (0.0, FLOOR)  # no delayed ACKs, the matched floor
#: compared quantities: column -> what it is
METRICS = {
    "goodput_mbps": "goodput (Mb/s of packets)",
    "drop_rate": "drop rate",
    "timeouts_per_s": "time-outs per second",
    "fast_retransmits_per_s": "fast retransmits per second",
    "jain_index": "Jain's index",
    "mean_queue": "mean queue (packets)",
    "duplicate_share": "share of packets delivered twice",
}


def normalise(table: pd.DataFrame, simulator: str) -> pd.DataFrame:
    """One simulator's runs as comparable rates (see the module docstring)."""
    t = table.copy()
    span = t["duration"] - t["warmup"]
    if simulator == "ns-3":
        t["goodput_mbps"] = t["goodput_mbps"] * t["packet_bytes"] / (t["packet_bytes"] - 40)
        t["timer"] = "ns-3"
        expiries = t["rto_doublings"]
    else:
        expiries = t["timeouts"]
    unique = t["goodput_mbps"] * 1e6 * span / (8.0 * t["packet_bytes"])
    carried = (t["arrivals_after_warmup"] - t["drops_after_warmup"]).clip(lower=1)
    t["duplicate_share"] = (1.0 - unique / carried).clip(lower=0.0)
    t["timeouts_per_s"] = expiries / span
    t["fast_retransmits_per_s"] = t["fast_retransmits"] / span
    if "red_forced_drops" in t:
        forced = t["red_forced_drops"]
        if simulator == "ns-3":  # ns-3 counts a full buffer's drops apart; tcplab as forced
            forced = t["drops_after_warmup"] - t["red_early_drops"]
        t["red_forced_per_s"] = forced / span
    t["span"] = span
    t["delayed_ack_ms"] = t["delayed_ack_ms"].astype(float).fillna(0.0)
    t["min_rto_ms"] = t["min_rto_ms"].astype(float)
    return t


def _stats(group: pd.DataFrame) -> pd.Series:
    out: dict[str, Any] = {"runs": len(group), "span": float(group["span"].mean())}
    for column in METRICS:
        values = group[column].to_numpy(dtype=float)
        out[column] = float(values.mean())
        out[f"{column}_var"] = float(values.var(ddof=1)) if len(values) > 1 else np.nan
    for column in ("red_forced_per_s", "packets_per_wall_s", "wall_s"):
        if column in group:
            out[column] = float(group[column].mean())
    return pd.Series(out)


def _half_width(var: float, runs: int, df: int) -> float:
    """The 95% half-width of a mean of ``runs`` runs with variance ``var`` (Student's t)."""
    return float(t975(max(df, 1)) * np.sqrt(var / runs))


def difference_estimate(
    tcplab: float, h_ns3: float, h_tcplab: float, runs: tuple[int, int]
) -> tolerance.Estimate:
    """The rule for two simulators: tcplab's mean with the 95% interval of the difference of
    the two means, sqrt(h_ns3^2 + h_tcplab^2), each h the 95% half-width of one side's mean
    over its runs (``runs``: ns-3's, tcplab's), so that ns-3's mean inside it agrees."""
    half = tolerance.difference(h_tcplab, h_ns3)
    n3, ours = runs
    mine = (
        f"tcplab's one run with ns-3's spread at its length ±{h_tcplab:.3g}"
        if ours < 2
        else f"tcplab's {ours} runs ±{h_tcplab:.3g}"
    )
    return tolerance.mean(
        tcplab,
        half,
        f"the difference of two simulators' means (ns-3's {n3} runs ±{h_ns3:.3g}, {mine})",
    )


def comparison(tcplab: pd.DataFrame, ns3: pd.DataFrame) -> pd.DataFrame:
    """One row per scenario and packet-model timer: each quantity's mean in both simulators
    (``<metric>_ns3``, ``<metric>_tcplab``), the 95% half-width of each mean
    (``<metric>_half_ns3``, ``<metric>_half_tcplab``) and of their difference
    (``<metric>_tolerance``, the two combined as sqrt(h_ns3^2 + h_tcplab^2))."""
    ours = normalise(tcplab, "tcplab").groupby([*KEYS, "timer"]).apply(_stats, include_groups=False)
    theirs = normalise(ns3, "ns-3").groupby(KEYS).apply(_stats, include_groups=False)
    rows = []
    for key, mine in ours.iterrows():
        scenario = key[:-1]
        if scenario not in theirs.index:
            continue
        other = theirs.loc[scenario]
        row: dict[str, Any] = dict(zip([*KEYS, "timer"], key, strict=True))
        row["runs_ns3"], row["runs_tcplab"] = other["runs"], mine["runs"]
        for column in METRICS:
            var_ns3 = other[f"{column}_var"]
            var_ours = mine[f"{column}_var"]
            n3, ours_n = int(other["runs"]), int(mine["runs"])
            h_ns3 = _half_width(var_ns3, n3, n3 - 1)
            if np.isfinite(var_ours):
                h_ours = _half_width(var_ours, ours_n, ours_n - 1)
            else:  # one run: ns-3's variance at our run's length, ns-3's degrees of freedom
                h_ours = _half_width(var_ns3 * other["span"] / mine["span"], ours_n, n3 - 1)
            row[f"{column}_ns3"], row[f"{column}_tcplab"] = other[column], mine[column]
            row[f"{column}_half_ns3"], row[f"{column}_half_tcplab"] = h_ns3, h_ours
            row[f"{column}_tolerance"] = float(np.hypot(h_ns3, h_ours))
        for column in ("red_forced_per_s", "packets_per_wall_s"):
            if column in other and column in mine and np.isfinite(other[column]):
                row[f"{column}_ns3"], row[f"{column}_tcplab"] = other[column], mine[column]
        rows.append(row)
    return pd.DataFrame(rows)


def ns3_of(tables: Mapping[str, pd.DataFrame]) -> pd.DataFrame:
    """ns-3's table: given with the tables (tests), else the one shipped in data/."""
    if "ns3-dumbbell" in tables:
        return tables["ns3-dumbbell"]
    from .experiments import ns3_table

    return ns3_table()[0]


#: (claim key, scenario, timer, quantity, text)
CLAIMED = (
    ("dt10-sack-goodput", ("droptail", LARGE, 10, "sack", *PLAIN), "rfc6298", "goodput_mbps",
     "DropTail, 10 flows, SACK: goodput"),
    ("dt10-sack-drops", ("droptail", LARGE, 10, "sack", *PLAIN), "rfc6298", "drop_rate",
     "DropTail, 10 flows, SACK: drop rate"),
    ("dt10-sack-jain", ("droptail", LARGE, 10, "sack", *PLAIN), "rfc6298", "jain_index",
     "DropTail, 10 flows, SACK: Jain's index"),
    ("dt10-sack-queue", ("droptail", LARGE, 10, "sack", *PLAIN), "rfc6298", "mean_queue",
     "DropTail, 10 flows, SACK: mean queue"),
    ("dt30-sack-timeouts-bsd", ("droptail", LARGE, 30, "sack", *PLAIN), "bsd", "timeouts_per_s",
     "DropTail, 30 flows, SACK: time-outs/s, timer restarted at fast retransmit"),
    ("dt30-sack-timeouts-rfc", ("droptail", LARGE, 30, "sack", *PLAIN), "rfc6298",
     "timeouts_per_s", "DropTail, 30 flows, SACK: time-outs/s, RFC 6298 timer (ns-3's)"),
    ("dt30-sack-drops", ("droptail", LARGE, 30, "sack", *PLAIN), "rfc6298", "drop_rate",
     "DropTail, 30 flows, SACK: drop rate"),
    ("dt100-sack-drops", ("droptail", LARGE, 100, "sack", *PLAIN), "rfc6298", "drop_rate",
     "DropTail, 100 flows, SACK: drop rate"),
    ("dt100-sack-timeouts", ("droptail", LARGE, 100, "sack", *PLAIN), "rfc6298", "timeouts_per_s",
     "DropTail, 100 flows, SACK: time-outs/s"),
    ("small30-sack-drops", ("droptail", SMALL, 30, "sack", *PLAIN), "rfc6298", "drop_rate",
     "DropTail, 25-packet buffer, 30 flows, SACK: drop rate"),
    ("red100-sack-drops", ("red", LARGE, 100, "sack", *PLAIN), "rfc6298", "drop_rate",
     "RED, 100 flows, SACK: drop rate"),
    ("red30-sack-drops", ("red", LARGE, 30, "sack", *PLAIN), "rfc6298", "drop_rate",
     "RED, 30 flows, SACK: drop rate"),
    ("delack30-sack-drops", ("droptail", LARGE, 30, "sack", *DELACK), "rfc6298", "drop_rate",
     "Delayed ACKs, 30 flows, SACK: drop rate"),
    ("delack30-sack-timeouts", ("droptail", LARGE, 30, "sack", *DELACK), "rfc6298",
     "timeouts_per_s", "Delayed ACKs, 30 flows, SACK: time-outs/s"),
    ("delack30-sack-jain", ("droptail", LARGE, 30, "sack", *DELACK), "rfc6298", "jain_index",
     "Delayed ACKs, 30 flows, SACK: Jain's index"),
    ("probe30-sack-drops", ("droptail", LARGE, 30, "sack", *PROBE), "rfc6298", "drop_rate",
     f"Delayed ACKs, 30 flows, SACK, RTO floor {PROBE_MIN_RTO_MS:.0f} ms: drop rate"),
    ("probe30-sack-timeouts", ("droptail", LARGE, 30, "sack", *PROBE), "rfc6298",
     "timeouts_per_s",
     f"Delayed ACKs, 30 flows, SACK, RTO floor {PROBE_MIN_RTO_MS:.0f} ms: time-outs/s"),
    ("probe30-sack-jain", ("droptail", LARGE, 30, "sack", *PROBE), "rfc6298", "jain_index",
     f"Delayed ACKs, 30 flows, SACK, RTO floor {PROBE_MIN_RTO_MS:.0f} ms: Jain's index"),
)  # fmt: skip


def _claim(row: pd.Series, metric: str, text: str) -> claims.Claim:
    """One quantity of one scenario: tcplab's mean, by the two-simulator rule, beside ns-3's
    (the "paper's" value of this appendix, its mean over its seeds)."""
    book = difference_estimate(
        float(row[f"{metric}_tcplab"]),
        float(row[f"{metric}_half_ns3"]),
        float(row[f"{metric}_half_tcplab"]),
        (int(row["runs_ns3"]), int(row["runs_tcplab"])),
    )
    return claims.Claim(text, book, paper=float(row[f"{metric}_ns3"]))


def compared_claims(table: pd.DataFrame) -> dict[str, claims.Claim]:
    """The rows of :data:`CLAIMED` that ``table`` (:func:`comparison`) has."""
    index = table.set_index([*KEYS, "timer"])
    out = {}
    for key, scenario, timer, metric, text in CLAIMED:
        if (*scenario, timer) in index.index:
            out[key] = _claim(index.loc[(*scenario, timer)], metric, text)
    return out


def _gap(row: pd.Series, metric: str) -> float:
    return abs(float(row[f"{metric}_tcplab"]) - float(row[f"{metric}_ns3"]))


def _agrees(row: pd.Series, metric: str) -> bool:
    return _gap(row, metric) <= float(row[f"{metric}_tolerance"])


def mechanism_claims(table: pd.DataFrame, ns3: pd.DataFrame) -> dict[str, claims.Claim]:
    """The what-ifs behind the appendix's explanations, each a statement computed from the
    runs that remove the cause (the rows of ``table`` they need; absent rows, no claim):

    * the timer restart at a fast retransmit: tcplab with RFC 6298's rule (ns-3's) beside
      tcplab with its own, at 100 and at 30 SACK flows;
    * ns-3's spurious time-outs with delayed ACKs: both simulators with the RTO floor raised
      from 200 to 400 ms, above the longest wait for an ACK that was not lost.
    """
    index = table.set_index([*KEYS, "timer"])
    out: dict[str, claims.Claim] = {}
    source = "the what-if: tcplab with RFC 6298's timer rule, beside its own (ns3-tcplab)"
    dt = ("droptail", LARGE)
    keys = {t: (*dt, 100, "sack", *PLAIN, t) for t in ("bsd", "rfc6298")}
    if all(k in index.index for k in keys.values()):
        own, rfc = index.loc[keys["bsd"]], index.loc[keys["rfc6298"]]
        out["timer-restart-100"] = claims.holds(
            "100 SACK flows: with the timer restarted at a fast retransmit tcplab's time-outs "
            "per second lie outside the interval of ns-3's; without (RFC 6298, as ns-3) within",
            not _agrees(own, "timeouts_per_s") and _agrees(rfc, "timeouts_per_s"),
            source,
        )
    keys = {t: (*dt, 30, "sack", *PLAIN, t) for t in ("bsd", "rfc6298")}
    if all(k in index.index for k in keys.values()):
        own, rfc = index.loc[keys["bsd"]], index.loc[keys["rfc6298"]]
        closer = all(_gap(rfc, m) < _gap(own, m) for m in ("timeouts_per_s", "drop_rate"))
        out["timer-restart-30"] = claims.holds(
            "30 SACK flows: without the timer restart at a fast retransmit (RFC 6298, as ns-3) "
            "tcplab's time-outs per second and drop rate come closer to ns-3's than with it",
            closer,
            source,
        )
    low = (*dt, 30, "sack", *DELACK, "rfc6298")
    high = (*dt, 30, "sack", *PROBE, "rfc6298")
    if low in index.index and high in index.index:
        per_drop = {}
        for tag, (delack, floor) in (("low", DELACK), ("high", PROBE)):
            runs = ns3[
                (ns3["queue"] == "droptail") & (ns3["buffer"] == LARGE) & (ns3["flows"] == 30)
                & (ns3["tcp"] == "sack") & (ns3["delayed_ack_ms"] == delack)
                & (ns3["min_rto_ms"] == floor)
            ]  # fmt: skip
            per_drop[tag] = float(runs["rto_doublings"].sum() / runs["drops_after_warmup"].sum())
        metrics = ("drop_rate", "jain_index")
        before = not any(_agrees(index.loc[low], m) for m in metrics)
        after = all(_agrees(index.loc[high], m) for m in metrics)
        out["delack-spurious-timeouts"] = claims.holds(
            f"Delayed ACKs, 30 SACK flows: with the RTO floor raised from {FLOOR:.0f} to "
            f"{PROBE_MIN_RTO_MS:.0f} ms ns-3's time-outs fall from more than one per dropped "
            "packet to fewer, and tcplab's drop rate and Jain's index come within the interval "
            "of ns-3's, where at the lower floor neither is",
            per_drop["low"] > 1 > per_drop["high"] and before and after,
            "the what-if: both simulators with the higher RTO floor (ns3-tcplab, ns3-dumbbell)",
        )
    return out


def chapter_claims(tables: Mapping[str, pd.DataFrame]) -> dict[str, claims.Claim]:
    """The appendix's ns-3-vs-book table, keyed (see :data:`CLAIMED`), and the what-ifs
    behind its explanations (:func:`mechanism_claims`)."""
    ns3 = ns3_of(tables)
    table = comparison(tables["ns3-tcplab"], ns3)
    return {**compared_claims(table), **mechanism_claims(table, ns3)}


def ratio(table: pd.DataFrame, scenario: tuple, timer: str, metric: str) -> float:
    """tcplab's mean over ns-3's for one scenario and quantity."""
    row = table.set_index([*KEYS, "timer"]).loc[(*scenario, timer)]
    return float(row[f"{metric}_tcplab"] / row[f"{metric}_ns3"])


def chapter_numbers(tables: Mapping[str, pd.DataFrame], scale: str) -> dict[str, Any]:
    """Every number the appendix's prose quotes."""
    table = comparison(tables["ns3-tcplab"], ns3_of(tables))
    dt = ("droptail", LARGE)
    numbers: dict[str, Any] = {"scale": scale}
    numbers["measured_s"] = MATCHED["duration"] - MATCHED["warmup"]
    for timer in ("bsd", "rfc6298"):
        for n in (30, 100, 300):
            for metric in ("drop_rate", "timeouts_per_s"):
                name = f"{metric}_{n}_{timer}"
                numbers[name] = round(ratio(table, (*dt, n, "sack", *PLAIN), timer, metric), 2)
        numbers[f"delack_drops_{timer}"] = round(
            ratio(table, (*dt, 30, "sack", *DELACK), timer, "drop_rate"), 2
        )
        numbers[f"red_forced_{timer}"] = round(
            ratio(table, ("red", LARGE, 100, "sack", *PLAIN), timer, "red_forced_per_s"), 2
        )
    speed = table[table["timer"] == "bsd"]
    speedup = speed["packets_per_wall_s_tcplab"] / speed["packets_per_wall_s_ns3"]
    numbers["speedup_min"] = round(float(speedup.min()), 1)
    numbers["speedup_median"] = round(float(speedup.median()), 1)
    numbers["speedup_max"] = round(float(speedup.max()), 1)
    light = (*dt, 10, "sack", *PLAIN)
    for name, metric in (("goodput", "goodput_mbps"), ("drops", "drop_rate"),
                         ("queue", "mean_queue")):  # fmt: skip
        numbers[f"agree_{name}"] = ratio(table, light, "rfc6298", metric)
    numbers["agree_goodput_bsd"] = ratio(table, light, "bsd", "goodput_mbps")
    numbers["ns3_version"] = str(ns3_of(tables)["ns3_version"].iloc[0])
    index = table.set_index([*KEYS, "timer"])
    for timer in ("bsd", "rfc6298"):
        row = index.loc[(*dt, 30, "sack", *DELACK, timer)]
        numbers[f"delack_timeouts_tcplab_{timer}"] = float(row["timeouts_per_s_tcplab"])
        numbers[f"delack_jain_tcplab_{timer}"] = float(row["jain_index_tcplab"])
    row = index.loc[(*dt, 30, "sack", *PLAIN, "rfc6298")]
    numbers["ns3_30_timeouts_per_flow"] = float(row["timeouts_per_s_ns3"]) / 30
    numbers["ns3_30_fast_per_flow"] = float(row["fast_retransmits_per_s_ns3"]) / 30
    numbers["ns3_30_jain"] = float(row["jain_index_ns3"])
    numbers["tcplab_30_jain"] = float(row["jain_index_tcplab"])
    row = index.loc[(*dt, 30, "sack", *DELACK, "rfc6298")]
    numbers["delack_timeouts_ns3"] = float(row["timeouts_per_s_ns3"])
    numbers["delack_jain_ns3"] = float(row["jain_index_ns3"])
    row = index.loc[(*dt, 300, "sack", *PLAIN, "rfc6298")]
    numbers["jain_300_ns3"] = float(row["jain_index_ns3"])
    numbers["jain_300_tcplab"] = float(row["jain_index_tcplab"])
    numbers.update(_probe_numbers(index))
    numbers["probe_floor_ms"] = PROBE_MIN_RTO_MS
    ns3 = ns3_of(tables)
    for tag, (delack, floor) in (("delack", DELACK), ("probe", PROBE)):
        runs = ns3[
            (ns3["queue"] == "droptail") & (ns3["buffer"] == LARGE) & (ns3["flows"] == 30)
            & (ns3["tcp"] == "sack") & (ns3["delayed_ack_ms"] == delack)
            & (ns3["min_rto_ms"] == floor)
        ]  # fmt: skip
        numbers[f"{tag}_ns3_timeouts_per_drop"] = float(
            runs["rto_doublings"].sum() / runs["drops_after_warmup"].sum()
        )
    for tcp in ("newreno", "sack"):
        for n in (1, 10):
            row = index.loc[(*dt, n, tcp, *PLAIN, "bsd")]
            numbers[f"ns3_{tcp}_dup_{n}"] = float(row["duplicate_share_ns3"])
            numbers[f"ns3_{tcp}_goodput_{n}"] = float(row["goodput_mbps_ns3"])
    return numbers


def probe_frame(table: pd.DataFrame) -> pd.DataFrame:
    """The delayed-ACK probe (30 SACK flows with delayed ACKs) at the matched RTO floor and
    at the probe's: one row per floor and simulator (ns-3, tcplab with each timer) with the
    drop rate, time-outs per second and Jain's index (means over the seeds)."""
    index = table.set_index([*KEYS, "timer"])
    rows = []
    for delack, floor in (DELACK, PROBE):
        ns3_done = False
        for timer in ("bsd", "rfc6298"):
            key = ("droptail", LARGE, 30, "sack", delack, floor, timer)
            if key not in index.index:
                continue
            row = index.loc[key]
            for simulator in ("ns3", "tcplab"):
                if simulator == "ns3" and ns3_done:
                    continue
                ns3_done = ns3_done or simulator == "ns3"
                rows.append({
                    "floor_ms": floor,
                    "simulator": "ns-3" if simulator == "ns3" else f"tcplab, {timer}",
                    "drop_rate": row[f"drop_rate_{simulator}"],
                    "timeouts_per_s": row[f"timeouts_per_s_{simulator}"],
                    "jain_index": row[f"jain_index_{simulator}"],
                })  # fmt: skip
    return pd.DataFrame(rows)


def _probe_numbers(index: pd.DataFrame) -> dict[str, float]:
    """The delayed-ACK probe's numbers (30 SACK flows with delayed ACKs, at the matched RTO
    floor and at the probe's): each simulator's drop rate, time-outs per second and Jain's
    index, and tcplab over ns-3 (``*_ratio``), with either of tcplab's timers."""
    out: dict[str, float] = {}
    for tag, (delack, floor) in (("delack", DELACK), ("probe", PROBE)):
        for timer in ("bsd", "rfc6298"):
            row = index.loc[("droptail", LARGE, 30, "sack", delack, floor, timer)]
            for name, metric in (("drops", "drop_rate"), ("timeouts", "timeouts_per_s"),
                                 ("jain", "jain_index")):  # fmt: skip
                ours, theirs = float(row[f"{metric}_tcplab"]), float(row[f"{metric}_ns3"])
                out[f"{tag}_{name}_tcplab_{timer}_abs"] = ours
                out[f"{tag}_{name}_ns3_abs"] = theirs
                out[f"{tag}_{name}_{timer}_ratio"] = ours / theirs
    for timer in ("bsd", "rfc6298"):  # ns-3's time-outs over tcplab's
        out[f"delack_timeouts_ns3_over_{timer}"] = 1.0 / out[f"delack_timeouts_{timer}_ratio"]
    # how far the higher floor moves each simulator (probe over the matched floor)
    for simulator in ("ns3", "tcplab_rfc6298", "tcplab_bsd"):
        for name in ("drops", "timeouts"):
            out[f"floor_{name}_{simulator}"] = (
                out[f"probe_{name}_{simulator}_abs"] / out[f"delack_{name}_{simulator}_abs"]
            )
    return out


#: the heavy-loss cases issue 14 measured before SACK and the timer option, and the
#: delayed-ACK probe with its higher RTO floor: (name, (queue, buffer, flows, delayed ACK
#: and RTO floor in ms))
HEAVY = (
    ("DropTail, 100 flows", ("droptail", LARGE, 100, *PLAIN)),
    ("delayed ACKs, 30 flows", ("droptail", LARGE, 30, *DELACK)),
    (
        f"delayed ACKs, 30 flows, RTO floor {PROBE_MIN_RTO_MS:.0f} ms",
        ("droptail", LARGE, 30, *PROBE),
    ),
    ("RED, 100 flows", ("red", LARGE, 100, *PLAIN)),
)


def heavy_cases(table: pd.DataFrame) -> pd.DataFrame:
    """The heavy-loss cases, each TCP and timer: tcplab over ns-3 for drops, time-outs and
    RED's forced drops, and both simulators' Jain index."""
    index = table.set_index([*KEYS, "timer"])
    rows = []
    for name, (queue, buffer, flows, delack, floor) in HEAVY:
        for tcp in ("newreno", "sack"):
            for timer in ("bsd", "rfc6298"):
                key = (queue, buffer, flows, tcp, delack, floor, timer)
                if key not in index.index:
                    continue
                row = index.loc[key]
                forced = (
                    row["red_forced_per_s_tcplab"] / row["red_forced_per_s_ns3"]
                    if queue == "red" else np.nan
                )  # fmt: skip
                rows.append({
                    "case": name, "tcp": tcp, "tcplab timer": timer,
                    "drops tcplab/ns-3": row["drop_rate_tcplab"] / row["drop_rate_ns3"],
                    "time-outs tcplab/ns-3":
                        row["timeouts_per_s_tcplab"] / row["timeouts_per_s_ns3"],
                    "forced drops tcplab/ns-3": forced,
                    "Jain tcplab": row["jain_index_tcplab"], "Jain ns-3": row["jain_index_ns3"],
                })  # fmt: skip
    return pd.DataFrame(rows)


def keyed_frame(tables: Mapping[str, pd.DataFrame]) -> pd.DataFrame:
    """The comparison table, as the appendix shows it."""
    return comparison(tables["ns3-tcplab"], ns3_of(tables))


__all__ += [
    "compared_claims",
    "HEAVY",
    "heavy_cases",
    "keyed_frame",
    "ns3_of",
    "probe_frame",
    "ratio",
]
