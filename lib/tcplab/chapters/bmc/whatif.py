"""The referee round's what-if runs as claims: each explanation of a difference, tested.

* ``bmc-wide``: Fig. 3.2's point at the thesis's disjoint links (4 and 12 Mb/s) and at twice
  them (8 and 24): the BMC connection's share and each subflow against its weight; MPTCP's
  linked increases against RFC 6356's goal (one TCP flow on the best path);
* ``bmc-pair``: Fig. 4.1's s2 excess: the pooling case, the same pair alone, over a long run,
  and many pairs;
* ``bmc-law``: when the weight law holds: the ratio under RED, random loss and DropTail with
  equal RTTs, against D (equal loss per packet) and D^2 (synchronised drops), and the Twr of
  two subflows at unequal RTTs;
* ``bmc-red`` + ``bmc-red-seeds`` (+ ``bmc-red-seeds-more`` for DropTail at N = 2) and
  ``bmc-compare`` + ``bmc-compare-seeds``: the one-run tables with more seeds;
* ``bmc-mixes`` + ``bmc-mix-seeds``: Sec. 5.2's "approximately 25 % higher" at N = 4 over
  twenty seeds.

Every tolerance is the 95% interval of the runs (Student's t over the seeds) around a closed
form (:func:`tcplab.ledger.tolerance.exact`), or a yes/no statement.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np
import pandas as pd

from tcplab import ledger
from tcplab import multipath as mp
from tcplab.claims import Claim, holds
from tcplab.ledger import tolerance

from .experiments import label
from .mixes import mix_ratios
from .seeds import RedSeedsParams

__all__ = [
    "WHATIF_TABLES",
    "whatif_claims",
    "wide_runs",
    "pair_runs",
    "law_runs",
    "rtt_runs",
    "red_runs",
    "compare_runs",
    "mix4_runs",
    "best_path_mbps",
    "summary",
    "whatif_numbers",
    "law_verdict",
    "pair_verdict",
]

#: the tables these claims read (beside the chapter's own)
WHATIF_TABLES = (
    "bmc-weighted-35", "bmc-wide", "bmc-pair", "bmc-law", "bmc-red-seeds", "bmc-compare-seeds",
    "bmc-red-seeds-more", "bmc-mix-seeds",
)  # fmt: skip


# -- Fig. 3.2 with wider disjoint links, and LIA's goal --------------------------------------
def wide_runs(table: pd.DataFrame) -> pd.DataFrame:
    """Per (disjoint rates, case, replica): each subflow's and the TCP flow's Mb/s, the
    connection's share of what both sources get, each subflow over the TCP flow, and the drop
    rate at each disjoint link."""
    rows = []
    for (s1, s2, case, r), part in table.groupby(["spare1", "spare2", "case", "replica"],
                                                 sort=False):  # fmt: skip
        tcp = float(part[part["source"] == "tcp"]["mbps"].sum())
        mine = part[part["source"] == "bmc"].sort_values("subflow")
        sub = mine["mbps"].to_numpy(dtype=float)
        drops = mine["own_link_drop_rate"].to_numpy(dtype=float)
        rows.append({
            "spares": f"{s1:g}, {s2:g}", "spare1": s1, "spare2": s2, "case": case, "replica": r,
            "tcp": tcp, "sub1": sub[0], "sub2": sub[1], "bundle": float(sub.sum()),
            "share": float(sub.sum() / (sub.sum() + tcp)), "sub1_vs_tcp": sub[0] / tcp,
            "sub2_vs_tcp": sub[1] / tcp, "drop1": drops[0], "drop2": drops[1],
            "shared_drop": float(part["shared_drop_rate"].iloc[0]),
        })  # fmt: skip
    return pd.DataFrame(rows)


def best_path_mbps(spare: tuple[float, float], capacity: float = 30.0) -> float:
    """RFC 6356's goal for the connection of Figs. 3.1-3.2: what one TCP flow would get on
    its best path, alone beside the other TCP flow (fluid, weighted max-min with weights 1)."""
    best = 0.0
    for i in range(2):
        # links: the disjoint link of path i, the shared link; flows: the probe, the TCP flow
        routes = np.array([[True, True], [False, True]])
        rates = mp.weighted_maxmin([spare[i], capacity], routes, [1.0, 1.0])
        best = max(best, float(rates[0]))
    return best


def _wide(table: pd.DataFrame) -> dict[str, Claim]:
    out: dict[str, Claim] = {}
    runs = wide_runs(table)
    for (s1, s2), part in runs.groupby(["spare1", "spare2"], sort=False):
        tag = f"{s1:g}_{s2:g}"
        fixed = part[part["case"] == "D = 1/4, 3/4"]
        if len(fixed) > 1:
            share = fixed["share"].to_numpy()
            out[f"wide_share_{tag}"] = Claim(
                f"Fig. 3.2 at disjoint links of {s1:g} and {s2:g} Mb/s: the connection's share "
                f"of what it and the TCP flow get ({len(share)} runs)",
                tolerance.of_runs(float(share.mean()), share, "runs"),
                paper=0.5,
            )
            for i, d in ((1, 0.25), (2, 0.75)):
                values = fixed[f"sub{i}_vs_tcp"].to_numpy()
                out[f"wide_sub{i}_{tag}"] = Claim(
                    f"... subflow {i} (weight {label(d)}) over the TCP flow",
                    tolerance.of_runs(float(values.mean()), values, "runs"),
                    paper=d,
                )
        lia = part[part["case"] == "lia"]
        if len(lia) > 1:
            values = lia["bundle"].to_numpy()
            goal = best_path_mbps((float(s1), float(s2)))
            out[f"lia_goal_{tag}"] = Claim(
                f"MPTCP LIA at disjoint links of {s1:g} and {s2:g} Mb/s: the connection's Mb/s "
                f"against RFC 6356's goal, one TCP flow on the best path ({goal:g} Mb/s)",
                tolerance.of_runs(float(values.mean()), values, "runs"),
                paper=goal,
            )
    return out


# -- Fig. 4.1's s2 excess -------------------------------------------------------------------
def pair_runs(table: pd.DataFrame) -> pd.DataFrame:
    """Per (case, replica): the weighted flows' mean Mb/s over the TCP flows'."""
    rows = []
    for (case, r), part in table.groupby(["case", "replica"], sort=False):
        aimd = part[part["kind"] == "aimd"]["mbps"].mean()
        tcp = part[part["kind"] == "tcp"]["mbps"].mean()
        rows.append({"case": case, "replica": r, "ratio": float(aimd / tcp)})
    return pd.DataFrame(rows)


#: what each case of ``bmc-pair`` is
PAIR_CASES = {
    "pooling": "Fig. 4.1 at 1/3, 2/3: s2's subflow on the 8 Mb/s link over s1",
    "alone": "the same pair (TCP, AIMD(1/9, 1/2)) alone on an 8 Mb/s link",
    "long": "... over a run five times longer, measured after 200 s",
    "many": "... four such pairs on a link four times faster",
}


def _pair(table: pd.DataFrame) -> dict[str, Claim]:
    out: dict[str, Claim] = {}
    runs = pair_runs(table)
    for case, part in runs.groupby("case", sort=False):
        values = part["ratio"].to_numpy()
        if len(values) < 2:
            continue
        out[f"pair_{case}"] = Claim(
            f"{PAIR_CASES[str(case)]}: weighted/TCP ({len(values)} runs)",
            tolerance.of_runs(float(values.mean()), values, "runs"),
            paper=1 / 3,
        )
    pool = runs[runs["case"] == "pooling"]["ratio"].to_numpy()
    alone = runs[runs["case"] == "alone"]["ratio"].to_numpy()
    if len(pool) > 1 and len(alone) > 1:
        half = float(np.hypot(tolerance.interval(pool), tolerance.interval(alone)))
        out["pair_same_excess"] = Claim(
            "Fig. 4.1's excess is the pair's own: pooling minus alone (weighted/TCP)",
            tolerance.mean(float(pool.mean() - alone.mean()), half, "the runs"),
            paper=0.0,
        )
    return out


# -- when the weight law holds ----------------------------------------------------------------
def law_runs(table: pd.DataFrame) -> pd.DataFrame:
    """``bmc-law``'s ``equal`` experiment per (queue, D, N, replica): the weighted flows' mean
    over TCP's, beside the two predictions (D: equal loss per packet; D^2: synchronised)."""
    equal = table[table["experiment"] == "equal"]
    rows = []
    for (q, d, n, r), part in equal.groupby(["queue", "D", "flows", "replica"], sort=False):
        aimd = part[part["kind"] == "aimd"]["mbps"].mean()
        tcp = part[part["kind"] == "tcp"]["mbps"].mean()
        events = part.groupby("kind")["loss_events"].mean()
        rows.append(
            {"queue": q, "D": d, "flows": n, "replica": r, "ratio": float(aimd / tcp),
             "aimd_events": float(events["aimd"]), "tcp_events": float(events["tcp"])}
        )  # fmt: skip
    found = pd.DataFrame(rows)
    if len(found):
        found["equal_loss"] = found["D"]
        found["synchronised"] = found["D"] ** 2
    return found


def rtt_runs(table: pd.DataFrame) -> pd.DataFrame:
    """``bmc-law``'s ``rtt`` experiment per (queue, replica): the two subflows' Mb/s and RTTs,
    their Twr (eq. 3.7, D = 1/2 each) and the ratio of the long-RTT subflow's Twr to the
    short one's (1 with equal loss per packet, R1/R2 with synchronised drops)."""
    rtt = table[table["experiment"] == "rtt"]
    rows = []
    for (q, r), part in rtt.groupby(["queue", "replica"], sort=False):
        tcp = part[part["kind"] == "tcp"].iloc[0]
        sub = part[part["kind"] == "aimd"].sort_values("n")
        t1, t2 = (float(x) for x in sub["mbps"])
        r1, r2 = (float(x) for x in sub["rtt_s"])
        rows.append({
            "queue": q, "replica": r, "tcp": float(tcp["mbps"]), "sub1": t1, "sub2": t2,
            "rtt1_ms": 1e3 * r1, "rtt2_ms": 1e3 * r2,
            "twr1": r1 * t1 / 0.5, "twr2": r2 * t2 / 0.5,
            "twr_tcp": float(tcp["rtt_s"] * tcp["mbps"]),
            "twr_ratio": (r2 * t2) / (r1 * t1), "rate_ratio": t2 / t1,
        })  # fmt: skip
    return pd.DataFrame(rows)


#: the prediction each queue makes for the ratio at weight D, by the book's argument
PREDICTION = {"red": "equal_loss", "random": "equal_loss", "droptail": "synchronised"}


def _law(table: pd.DataFrame) -> dict[str, Claim]:
    out: dict[str, Claim] = {}
    found = law_runs(table)
    for (q, d, n), part in found.groupby(["queue", "D", "flows"], sort=False):
        values = part["ratio"].to_numpy()
        if len(values) < 2:
            continue
        which = PREDICTION[str(q)]
        predicted = float(part[which].iloc[0])
        word = "D (equal loss per packet)" if which == "equal_loss" else "D^2 (synchronised)"
        out[f"law_{q}_D{label(d)}_N{n}"] = Claim(
            f"Equal RTTs, {q}, D = {label(d)}, N = {n}: weighted/TCP against {word}",
            tolerance.of_runs(float(values.mean()), values, "runs"),
            paper=predicted,
        )
        if which == "synchronised":
            out[f"law_{q}_D{label(d)}_N{n}_vs_D"] = Claim(
                "... the same runs against D (the thesis's weight law)",
                tolerance.of_runs(float(values.mean()), values, "runs"),
                paper=float(d),
            )
    runs = rtt_runs(table)
    for q, part in runs.groupby("queue", sort=False) if len(runs) else ():
        values = part["twr_ratio"].to_numpy()
        if len(values) < 2:
            continue
        r1, r2 = float(part["rtt1_ms"].iloc[0]), float(part["rtt2_ms"].iloc[0])
        sync = PREDICTION[str(q)] == "synchronised"
        predicted = r1 / r2 if sync else 1.0
        out[f"rtt_{q}_twr"] = Claim(
            f"Subflows at {r1:.0f} and {r2:.0f} ms, {q}: Twr of the long one over the short "
            f"one's, eq. (3.7), against {'R1/R2 (synchronised)' if sync else '1 (equal loss)'}",
            tolerance.of_runs(float(values.mean()), values, "runs"),
            paper=predicted,
        )
    return out


# -- more seeds -----------------------------------------------------------------------------
RED_COLUMNS = ["queue", "D", "flows", "replica", "ratio", "steady_ratio", "utilisation",
               "tcp_loss_events", "aimd_loss_events"]  # fmt: skip


def red_runs(one: pd.DataFrame, *more: pd.DataFrame | None) -> pd.DataFrame:
    """``bmc-red`` (replica 0) and the tables of more seeds (``bmc-red-seeds``,
    ``bmc-red-seeds-more``) together: per (queue, D, N, replica)."""
    first = one.assign(replica=0)
    frames = [first[RED_COLUMNS]] + [m[RED_COLUMNS] for m in more if m is not None and len(m)]
    return pd.concat(frames, ignore_index=True)


def _red(one: pd.DataFrame, *more: pd.DataFrame | None) -> dict[str, Claim]:
    out: dict[str, Claim] = {}
    runs = red_runs(one, *more)
    for (q, d, n), part in runs.groupby(["queue", "D", "flows"], sort=False):
        values = part["ratio"].to_numpy()
        # the queues the seeds' runs cover at full scale (the quick grid runs every queue,
        # so that the restamp canary takes each one's path: its extra cells make no check)
        if len(values) < 2 or q not in RedSeedsParams.red_variants:
            continue
        sync = q == "droptail"
        out[f"red_{q}_D{label(d)}_N{n}"] = Claim(
            f"Queue {q}, D = {label(d)}, N = {n}: weighted/TCP against D ({len(values)} seeds)",
            tolerance.of_runs(float(values.mean()), values, "runs"),
            paper=float(d),
        )
        if sync:
            out[f"red_{q}_D{label(d)}_N{n}_sync"] = Claim(
                "... the same runs against D^2, the synchronised-drop prediction",
                tolerance.of_runs(float(values.mean()), values, "runs"),
                paper=float(d) ** 2,
            )
            # D^2's premise: every flow loses at every congestion event, so a weighted flow
            # counts as many loss events as a TCP flow (with equal loss per packet: about D)
            events = (part["aimd_loss_events"] / part["tcp_loss_events"]).to_numpy()
            out[f"red_{q}_D{label(d)}_N{n}_events"] = Claim(
                "... their premise: loss events per weighted flow over per TCP flow, against "
                "1 (every flow loses at every congestion event)",
                tolerance.of_runs(float(events.mean()), events, "runs"),
                paper=1.0,
            )
    return out


def compare_runs(one: pd.DataFrame, more: pd.DataFrame) -> pd.DataFrame:
    """``bmc-compare``'s packet runs and ``bmc-compare-seeds``'s: per (scenario, controller,
    replica, source) the Mb/s."""
    first = one[one["model"] == "packet"]
    frames = [first] + ([more] if len(more) else [])
    return pd.concat(frames, ignore_index=True)


def _compare(one: pd.DataFrame, more: pd.DataFrame) -> dict[str, Claim]:
    out: dict[str, Claim] = {}
    runs = compare_runs(one, more)
    shared = runs[runs["scenario"] == "shared"]
    by = shared.pivot_table(index=["controller", "replica"], columns="source", values="mbps")
    if "lia" in by.index.get_level_values(0):
        lia = by.loc["lia"]["bmc"].to_numpy()
        if len(lia) > 1:
            goal = best_path_mbps((4.0, 12.0))
            out["lia_goal_compare"] = Claim(
                f"MPTCP LIA in Figs. 3.1-3.2 (bmc-compare, {len(lia)} seeds): the connection's "
                f"Mb/s against RFC 6356's goal, one TCP flow on the best path ({goal:g})",
                tolerance.of_runs(float(lia.mean()), lia, "runs"),
                paper=goal,
            )
    if "uncoupled" in by.index.get_level_values(0):
        part = by.loc["uncoupled"]
        if len(part) > 1:
            out["compare_uncoupled_above_tcp"] = holds(
                f"Uncoupled subflows take more than the TCP flow in Figs. 3.1-3.2 in every one "
                f"of {len(part)} seeds",
                bool((part["bmc"] > part["tcp"]).all()),
                "the book's runs",
            )
    return out


# -- Sec. 5.2's +25% at N = 4 ---------------------------------------------------------------
#: Sec. 5.2: "when the weight parameters are 2/3 and 1/3, and the number of flows is 4 ...,
#: average throughput of the weighted AIMD flows is approximately 25 % higher" than the ideal
MIX4 = ("2/3 + 1/3", 4)


def mix4_runs(one: pd.DataFrame, more: pd.DataFrame) -> pd.DataFrame:
    """Per replica (``bmc-mixes``'s run is replica 0, ``bmc-mix-seeds`` the others): the
    2/3 + 1/3 mix at N = 4, the weighted flows' mean over TCP's, that over the ideal 1/2
    (``excess``), and the loss events of each kind."""
    frames = [one.assign(replica=0)] + ([more] if len(more) else [])
    rows = []
    for frame in frames:
        cell = frame[(frame["mix"] == MIX4[0]) & (frame["flows"] == MIX4[1])]
        for r, part in cell.groupby("replica", sort=True):
            found = mix_ratios(part.drop(columns="replica"))
            whole = found[found["weight"] == "all"].iloc[0]
            rows.append({
                "replica": int(r), "ratio": float(whole["ratio"]),
                "excess": float(whole["ratio"] / whole["D"]),
                "aimd_events": float(whole["events"]), "tcp_events": float(whole["tcp_events"]),
            })  # fmt: skip
    return pd.DataFrame(rows)


def _mix4(one: pd.DataFrame, more: pd.DataFrame) -> dict[str, Claim]:
    runs = mix4_runs(one, more)
    if len(runs) < 2:
        return {}
    values = runs["excess"].to_numpy()
    mean = float(values.mean())
    return {
        "fig518_n4_two_thirds": Claim(
f"Fig. 5.18, 2/3 + 1/3 at N = 4: weighted/TCP over the ideal ({len(values)} runs)",
tolerance.of_runs(mean, values),
),
        "fig518_n4_ideal": Claim(
"... the same runs against the ideal 1 (no excess)",
tolerance.of_runs(mean, values, "runs"),
paper=1.0,
),
    }  # fmt: skip


def whatif_claims(tables: Mapping[str, pd.DataFrame]) -> dict[str, Claim]:
    """The claims of the what-if tables that ``tables`` holds."""
    out: dict[str, Claim] = {}
    if "bmc-wide" in tables:
        out.update(_wide(tables["bmc-wide"]))
    if "bmc-pair" in tables:
        out.update(_pair(tables["bmc-pair"]))
    if "bmc-law" in tables:
        out.update(_law(tables["bmc-law"]))
    if "bmc-red" in tables and "bmc-red-seeds" in tables:
        out.update(_red(tables["bmc-red"], tables["bmc-red-seeds"],
                        tables.get("bmc-red-seeds-more")))  # fmt: skip
    if "bmc-compare" in tables and "bmc-compare-seeds" in tables:
        out.update(_compare(tables["bmc-compare"], tables["bmc-compare-seeds"]))
    if "bmc-mixes" in tables and "bmc-mix-seeds" in tables:
        out.update(_mix4(tables["bmc-mixes"], tables["bmc-mix-seeds"]))
    return out


def summary(runs: pd.DataFrame, by: list[str], columns: dict[str, str]) -> pd.DataFrame:
    """Per group of ``by``: the number of runs and, for each column of ``columns`` (name to
    heading), its mean and the 95% half-width over the runs (Student's t; 0 for one run)."""
    rows = []
    for key, part in runs.groupby(by, sort=False):
        row: dict[str, object] = dict(zip(by, key if isinstance(key, tuple) else (key,),
                                          strict=True))  # fmt: skip
        row["runs"] = len(part)
        for column, heading in columns.items():
            values = part[column].to_numpy(dtype=float)
            row[heading] = float(values.mean())
            row[f"{heading} ±95%"] = tolerance.interval(values)
        rows.append(row)
    return pd.DataFrame(rows)


def pair_verdict(rows: Mapping[str, Claim]) -> str:
    """In words, what ``bmc-pair``'s rows say about Fig. 4.1's excess."""
    if "pair_same_excess" not in rows:
        return "One seed per case at this scale: no verdict."
    ok = {k: v == "reproduced" for k, v in ledger.check_statuses("bmc", rows).items()}
    same = ok["pair_same_excess"]
    words = [
        "The pair alone shows the same excess as in the pooling scenario (the difference is "
        "within the 95% interval of the seeds): the excess is the pair's own, not the "
        "multipath scenario's."
        if same
        else "The pair alone does not show the pooling scenario's excess (the difference is "
        "outside the 95% interval of the seeds): the multipath scenario adds to it."
    ]
    for case, name in (("long", "the long run"), ("many", "four pairs")):
        if f"pair_{case}" in rows:
            words.append(
                f"With {name} the ratio is {'at' if ok[f'pair_{case}'] else 'not at'} 1/3 "
                "within its interval."
            )
    return " ".join(words)


def law_verdict(rows: Mapping[str, Claim]) -> str:
    """In words, how many of ``bmc-law``'s rows agree with their queue's prediction."""
    parts = []
    ok = {k: v == "reproduced" for k, v in ledger.check_statuses("bmc", rows).items()}
    for q, name in (("red", "RED"), ("random", "random loss"), ("droptail", "DropTail")):
        mine = {k: ok[k] for k in rows if k.startswith(f"law_{q}_")}
        main = [c for k, c in mine.items() if not k.endswith("_vs_D")]
        if not main:
            continue
        target = "D^2" if q == "droptail" else "D"
        said = f"{name}: {sum(main)} of {len(main)} rows at {target}"
        versus = [c for k, c in mine.items() if k.endswith("_vs_D")]
        if versus:
            said += f" ({sum(versus)} at D)"
        parts.append(said)
    return "; ".join(parts) if parts else "not claimed at this scale (one seed per row)"


def _droptail_numbers(runs: pd.DataFrame) -> dict[str, float]:
    """DropTail at the smallest N with every seed: per D (``half``, ``fifth``) the mean
    ratio, its 95% half-width, and the weighted flows' loss events over TCP's (1 when every
    flow loses at every congestion event, about D when each packet is equally likely lost)."""
    drop = runs[runs["queue"] == "droptail"]
    if not len(drop):
        return {}
    drop = drop[drop["flows"] == drop["flows"].min()]
    out = {"droptail_seeds": float(drop.groupby("D")["replica"].nunique().min())}
    for d, part in drop.groupby("D", sort=False):
        name = {0.5: "half", 0.2: "fifth"}.get(round(float(d), 6))
        if name is None:
            continue
        values = part["ratio"].to_numpy(dtype=float)
        events = (part["aimd_loss_events"] / part["tcp_loss_events"]).to_numpy(dtype=float)
        out[f"droptail_{name}"] = float(values.mean())
        out[f"droptail_{name}_pm"] = tolerance.interval(values)
        out[f"droptail_{name}_events"] = float(events.mean())
        out[f"droptail_{name}_events_pm"] = tolerance.interval(events)
        away = float(abs(values.mean() - float(d) ** 2) / max(tolerance.interval(values), 1e-12))
        out["droptail_d2_halfwidths"] = min(out.get("droptail_d2_halfwidths", math.inf), away)
    return out


#: ``bmc-wide``'s cases as the prose's keys name them
CASE_TAGS = {"lia": "lia", "uncoupled": "uncoupled", "D = 1/4, 3/4": "fixed"}


def whatif_numbers(tables: Mapping[str, pd.DataFrame]) -> dict[str, float | str]:
    """The numbers the prose quotes from the what-if tables (means over the runs), keyed so
    that both scales have them: ``wide_<spare1>_<field>``, ``pair_<case>``,
    ``law_<queue>_half`` (D = 1/2, mean over N), ``rtt_<queue>_<field>``, ``lia_mean``."""
    out: dict[str, float | str] = {}
    if "bmc-wide" in tables:
        runs = wide_runs(tables["bmc-wide"])
        for (s1, case), part in runs.groupby(["spare1", "case"], sort=False):
            tag = f"wide_{s1:g}_{CASE_TAGS.get(str(case), 'fixed')}"
            for field in ("share", "sub1_vs_tcp", "sub2_vs_tcp", "bundle", "tcp", "sub1", "sub2"):
                out[f"{tag}_{field}"] = float(part[field].mean())
            out[f"{tag}_drop1"] = 100 * float(part["drop1"].mean())
            out[f"{tag}_drop2"] = 100 * float(part["drop2"].mean())
            out[f"{tag}_goal"] = best_path_mbps((float(s1), float(part["spare2"].iloc[0])))
    if "bmc-pair" in tables:
        for case, part in pair_runs(tables["bmc-pair"]).groupby("case", sort=False):
            out[f"pair_{case}"] = float(part["ratio"].mean())
            out[f"pair_{case}_runs"] = float(len(part))
        out["pair_verdict"] = pair_verdict(_pair(tables["bmc-pair"]))
    if "bmc-law" in tables:
        found = law_runs(tables["bmc-law"])
        half = found[np.isclose(found["D"], 0.5)]
        for q, part in half.groupby("queue", sort=False):
            out[f"law_{q}_half"] = float(part["ratio"].mean())
        out["law_verdict"] = law_verdict(_law(tables["bmc-law"]))
        rtt = rtt_runs(tables["bmc-law"])
        for q, part in rtt.groupby("queue", sort=False) if len(rtt) else ():
            for field in ("twr_ratio", "rate_ratio", "sub1", "sub2", "tcp"):
                out[f"rtt_{q}_{field}"] = float(part[field].mean())
    if "bmc-red" in tables and "bmc-red-seeds" in tables:
        runs = red_runs(tables["bmc-red"], tables["bmc-red-seeds"])
        smallest = runs[runs["flows"] == runs["flows"].min()]
        out["red_seeds"] = float(smallest.groupby(["queue", "D"])["replica"].nunique().max())
        for (q, d), part in smallest.groupby(["queue", "D"], sort=False):
            name = {0.5: "half", 0.2: "fifth"}.get(round(float(d), 6))
            if name:
                out[f"red_{q}_{name}_{int(part['flows'].iloc[0])}"] = float(part["ratio"].mean())
                first = part[part["replica"] == part["replica"].min()]["ratio"]
                out[f"red_{q}_{name}_{int(part['flows'].iloc[0])}_first"] = float(first.iloc[0])
        out.update(_droptail_numbers(red_runs(tables["bmc-red"], tables["bmc-red-seeds"],
                                              tables.get("bmc-red-seeds-more"))))  # fmt: skip
    if "bmc-mixes" in tables and "bmc-mix-seeds" in tables:
        runs = mix4_runs(tables["bmc-mixes"], tables["bmc-mix-seeds"])
        values = runs["excess"].to_numpy()
        out["mix_n4_two_thirds"] = float(values.mean())
        out["mix_n4_pm"] = tolerance.interval(values)
        out["mix_n4_runs"] = float(len(values))
        out["mix_n4_low"] = float(values.min())
        out["mix_n4_high"] = float(values.max())
    if "bmc-compare" in tables and "bmc-compare-seeds" in tables:
        runs = compare_runs(tables["bmc-compare"], tables["bmc-compare-seeds"])
        lia = runs[(runs["scenario"] == "shared") & (runs["controller"] == "lia")]
        out["lia_mean"] = float(lia[lia["source"] == "bmc"]["mbps"].mean())
        out["lia_seeds"] = float(lia["replica"].nunique())
        out["lia_goal"] = best_path_mbps((4.0, 12.0))
    return out
