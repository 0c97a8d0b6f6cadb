"""The chapter's explanations, each checked on the what-if run that removes its cause.

* The one-connection deficit of scenarios 2 and 3 (``lu-trace``, ``lu-transient``, the NewReno
  rows of ``lu-variants``): :func:`trace_facts` reads the window trace, :func:`late_facts`
  the run measured after the start-up transient.
* The scenario 6 lock-out at 10 cross flows, and RED outside scenario 1 (the RED rows of
  ``lu-variants``); Tahoe in scenario 1 (its Tahoe rows).

:func:`mechanism_claims` turns them into rows of the chapter's ledger, :func:`mechanism_numbers`
into the numbers its text quotes; both leave out what the tables at hand do not have.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np
import pandas as pd

from tcplab.claims import Claim, holds
from tcplab.ledger import tolerance

from . import analysis as an
from .analysis import PARALLEL

__all__ = [
    "late_facts",
    "mechanism_claims",
    "mechanism_numbers",
    "trace_facts",
    "window_facts",
]

PACKET = 1000.0  # bytes: the chapter's packet


def trace_facts(trace: pd.DataFrame, scenario: int, tcp: str = "reno") -> dict[str, float]:
    """From one connection's window trace: the largest window of the first two seconds (the
    slow-start overshoot, fast-recovery inflation included) and its time, the first time-out
    after it (cwnd back to 1), the smallest slow-start threshold of those two seconds (where
    the linear climb starts), the largest window of the run, and the window at the last
    reading."""
    run = trace[(trace["scenario"] == scenario) & (trace["tcp"] == tcp)].sort_values("time")
    start = float(run["time"].iloc[0])
    first = run[run["time"] < start + 2.0]
    top = first["cwnd"].idxmax()
    after = run[(run["time"] > run.loc[top, "time"]) & (run["cwnd"] <= 1.0)]
    out = {
        "peak": float(run.loc[top, "cwnd"]),
        "peak_time": float(run.loc[top, "time"]),
        "ssthresh_after": float(first["ssthresh"].min()),
        "end_cwnd": float(run["cwnd"].iloc[-1]),
        "end_time": float(run["time"].iloc[-1]),
        "max_cwnd": float(run["cwnd"].max()),
        "throughput": float(run[PARALLEL].iloc[0]),
        "timeouts": float(run["timeouts"].iloc[0]),
        "fast_retransmits": float(run["fast_retransmits"].iloc[0]),
    }
    if len(after):
        out["timeout_time"] = float(after["time"].iloc[0])
    return out


def late_facts(late: pd.DataFrame, scenario: int) -> dict[str, float]:
    """One connection alone, measured after the transient: its throughput over the link's
    capacity, and eq. 4's time-out factor c1 = BW / (MSS sqrt(3/2) / (RTT sqrt(p)))."""
    row = late[(late["scenario"] == scenario) & (late["flows"] == 1)].iloc[0]
    p, rtt = float(row["loss_rate"]), float(row["rtt_s"])
    mathis = math.sqrt(1.5) / (rtt * math.sqrt(p)) * PACKET if p > 0 else math.inf
    return {
        "throughput": float(row[PARALLEL]),
        "share": float(row[PARALLEL] / row["capacity_bytes_per_s"]),
        "c1": float(row[PARALLEL] / mathis),
        "loss": p,
        "from": float(row["measure_from_s"]),
        "to": float(row["duration_s"]),
    }


#: the 60 KB TCP buffer of scenarios 5 and 6, in bytes (60 packets of 1000 bytes)
WINDOW_BYTES = 60 * PACKET


def window_facts(table: pd.DataFrame) -> dict[str, float]:
    """The 60 KB buffer of scenarios 5 and 6 against scenario 2 (the same path as 6, its
    buffer at least the bandwidth-delay product): over every run of scenarios 5 and 6 whose
    windows, the parallel connections' and the cross traffic's, all fit the link at once (n + m
    windows per round trip at most the capacity), the largest relative miss of the parallel
    throughput from n windows per round trip; scenario 6's and scenario 2's gain of the most
    connections over one without cross traffic. Empty when the table lacks scenario 2 or 6
    without cross traffic."""
    alone = {}
    for k in (2, 6):
        runs = table[(table["scenario"] == k) & (table["cross"] == 0)]
        if runs.empty:
            return {}
        alone[k] = runs.groupby("flows")[PARALLEL].mean()
    capped = table[table["scenario"].isin((5, 6))]
    windows = capped["flows"] * WINDOW_BYTES / capped["rtt_s"]
    fits = (capped["flows"] + capped["cross"]) * WINDOW_BYTES / capped["rtt_s"]
    fits = fits <= capped["capacity_bytes_per_s"]
    miss = (capped[PARALLEL] / windows - 1.0).abs()[fits]
    if len(miss) < 2:
        return {}
    by_scenario = miss.groupby(capped.loc[fits, "scenario"]).max()

    def gain(c: pd.Series) -> float:
        return float(c.iloc[-1] / c.iloc[0])

    out = {
        "window_miss": float(miss.max()),
        "window_points": int(fits.sum()),
        "one_capped": float(alone[6].iloc[0]),
        "one_free": float(alone[2].iloc[0]),
        "gain_capped": gain(alone[6]),
        "gain_free": gain(alone[2]),
    }
    for k, value in by_scenario.items():
        out[f"window_miss_s{k}"] = float(value)
    return out


def _variant(variants: pd.DataFrame, scenario: int, name: str) -> pd.DataFrame:
    return variants[(variants["scenario"] == scenario) & (variants["variant"] == name)]


def _paired(variants: pd.DataFrame, table: pd.DataFrame, scenario: int, name: str) -> pd.DataFrame:
    """The what-if runs of ``name`` beside the book's own runs of the same (cross, flows) and
    seed (DropTail, Reno, replica 0): columns what_if, book."""
    mine = _variant(variants, scenario, name).set_index(["cross", "flows"])[PARALLEL]
    base = table[
        (table["scenario"] == scenario) & (table["queue"] == "droptail") & (table["replica"] == 0)
    ].set_index(["cross", "flows"])[PARALLEL]
    both = pd.concat({"what_if": mine, "book": base}, axis=1, join="inner")
    return both.dropna()


def mechanism_claims(tables: Mapping[str, pd.DataFrame], table: pd.DataFrame) -> dict[str, Claim]:
    """The ledger's mechanism rows and the what-if comparisons, from the tables at hand."""
    out: dict[str, Claim] = {}
    late, variants = tables.get("lu-transient"), tables.get("lu-variants")
    capacity = 12.5e6  # scenarios 2, 3, 6: 100 Mb/s
    if late is not None and len(late) and (late["scenario"] == 3).any():
        facts = late_facts(late, 3)
        out["s3-hacker"] = holds(
            f"Scenario 3 alone, measured from {facts['from']:.0f} to {facts['to']:.0f} s (after "
            "the one connection's window has climbed to the pipe): one connection moves at "
            "least 2/3 of the link, so the 100 s run's gain of 31 connections over one "
            "(3.4) is a start-up transient",
            facts["share"] >= 2.0 / 3.0,
            "the book's runs",
        )
        out["c1-constant"] = holds(
            "Scenario 3, one connection after the transient: eq. 4's c1 lies in (0, 1], "
            "where the 100 s run's exceeds 1",
            0.0 < facts["c1"] <= 1.0,
            "the book's runs",
        )
    window = window_facts(table)
    if window:
        out["s5-s6-window"] = holds(
            "Scenarios 5 and 6 (a 60-packet TCP buffer): wherever every window fits the link, "
            "n connections move n windows per round trip (within 10%); and without cross "
            "traffic, the gain of 31 connections over one in scenario 6 is more than twice "
            "that of scenario 2, the same path with the buffer at least the "
            "bandwidth-delay product (the what-if)",
            window["window_miss"] <= 0.1 and window["gain_capped"] > 2.0 * window["gain_free"],
            "the book's runs",
        )
    if variants is not None and len(variants):
        newreno = _variant(variants, 3, "NewReno")
        if len(newreno):
            one = float(newreno[newreno["flows"] == 1][PARALLEL].iloc[0])
            out["s3-timeout"] = holds(
                "Scenario 3 alone, NewReno (no chain of halvings, no time-out after the "
                "first slow start): one connection moves at least half the link over the "
                "100 s run, i.e. the time-out is what holds it back",
                one >= 0.5 * capacity,
                "the book's runs",
            )
        red6 = _variant(variants, 6, "RED").set_index("flows").sort_index()
        if {2, 15} <= set(red6.index):
            out["s6-lockout"] = holds(
                "Scenario 6, 10 cross flows, RED instead of DropTail: the cross traffic loses "
                "packets and the parallel flows' throughput grows by more than half from 2 "
                "to 15 flows (the DropTail lock-out at 2.0 MB/s goes away)",
                bool((red6["cross_loss_rate"] > 0).all())
                and bool(red6.loc[15, PARALLEL] > 1.5 * red6.loc[2, PARALLEL]),
                "the book's runs",
            )
        for k in (2, 6):
            pairs = _paired(_variant(variants, k, "RED"), table, k, "RED")
            if len(pairs) >= 2:
                logs = np.log(pairs["what_if"] / pairs["book"]).to_numpy()
                out[f"red-s{k}"] = Claim(
                    f"Scenario {k}, 10 cross flows: mean over n of ln(parallel throughput "
                    "under RED / under DropTail); 0 when the queues perform alike",
                    tolerance.of_runs(float(logs.mean()), logs, "numbers of flows"),
                    paper=0.0,
                )
        tahoe = _paired(variants, table, 1, "Tahoe")
        if len(tahoe) >= 2:
            logs = np.log(tahoe["what_if"] / tahoe["book"]).to_numpy()
            out["tahoe"] = Claim(
                "Scenario 1: mean over (cross, n) of ln(parallel throughput with Tahoe / with "
                "Reno), same seeds; 0 when the results are alike",
                tolerance.of_runs(float(logs.mean()), logs, "points"),
                paper=0.0,
            )
    return out


def mechanism_numbers(
    tables: Mapping[str, pd.DataFrame], table: pd.DataFrame
) -> dict[str, float | int | str]:
    """The numbers the chapter's mechanism sections quote."""
    out: dict[str, float | int | str] = {}
    trace = tables.get("lu-trace")
    if trace is not None and len(trace):
        for k in sorted(int(s) for s in trace["scenario"].unique()):
            facts = trace_facts(trace, k)
            for name, value in facts.items():
                out[f"trace_s{k}_{name}"] = value
            out[f"trace_s{k}_throughput_mb"] = facts["throughput"] / 1e6
    late = tables.get("lu-transient")
    if late is not None and len(late) and (late["scenario"] == 3).any():
        for name, value in late_facts(late, 3).items():
            out[f"late_s3_{name}"] = value
    for name, value in window_facts(table).items():
        out[f"buffer_{name}"] = value
    variants = tables.get("lu-variants")
    if variants is not None and len(variants):
        newreno = _variant(variants, 3, "NewReno")
        if len(newreno):
            one = float(newreno[newreno["flows"] == 1][PARALLEL].iloc[0])
            out["newreno_s3_one"], out["newreno_s3_one_mb"] = one, one / 1e6
        red6 = _variant(variants, 6, "RED").set_index("flows").sort_index()
        if len(red6):
            for n in red6.index:
                out[f"red6_par_{n}"] = float(red6.loc[n, PARALLEL])
                out[f"red6_par_{n}_mb"] = float(red6.loc[n, PARALLEL]) / 1e6
                out[f"red6_crossloss_{n}"] = float(red6.loc[n, "cross_loss_rate"])
            imp = an.impacts(red6.reset_index().assign(replica=0))
            if len(imp):
                away = imp[~imp["probe"]]
                out["red6_within"] = float((away["error"].abs() <= 0.25).mean())
        for k in (2, 6):
            pairs = _paired(_variant(variants, k, "RED"), table, k, "RED")
            if len(pairs):
                change = np.exp(np.log(pairs["what_if"] / pairs["book"]).mean()) - 1.0
                out[f"red_s{k}_change"] = float(change)
        tahoe = _paired(variants, table, 1, "Tahoe")
        if len(tahoe):
            ratio = tahoe["what_if"] / tahoe["book"]
            out["tahoe_ratio_median"] = float(ratio.median())
            out["tahoe_ratio_low"] = float(ratio.quantile(0.1))
            out["tahoe_ratio_high"] = float(ratio.quantile(0.9))
            runs = _variant(variants, 1, "Tahoe").assign(replica=0)
            pred = an.predictions(runs, pairs=[(1, 10)])
            if len(pred):
                out["tahoe_pair_10"] = float(an.probe_pairs(pred)["mean_abs"].iloc[0])
    return out
