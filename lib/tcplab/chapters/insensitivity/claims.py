"""The insensitivity chapter's paper-vs-book claims and the numbers its prose quotes.

The paper's side of every item (its values, words and their precision) is in the chapter's
ledger.toml; :func:`chapter_claims` computes the book's side from the tables the chapter's
experiments produce: the fluid model is exact, so a run's time average is held to the
sample-path identity's bound on a finite run (:func:`tcplab.ledger.tolerance.identity_bound`)
where the table carries it, and to the 95% interval of its replicas where a random policy's
table does not.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from tcplab import ledger
from tcplab.claims import Claim, holds, one_row
from tcplab.ledger import tolerance
from tcplab.theory import altman

from .experiments import GROUPS, ONE_POLICIES, gains
from .longruns import PoliciesParams

__all__ = [
    "TABLES",
    "FIG2_PAPER",
    "GAIN_PAPER",
    "policy_spread",
    "chapter_claims",
    "chapter_numbers",
]

#: the experiments the claims and the prose read (the first five in :func:`chapter_numbers`)
TABLES = (
    "insensitivity-throughput",
    "insensitivity-example1",
    "insensitivity-multtcp",
    "insensitivity-rtt",
    "insensitivity-heterogeneous",
    "insensitivity-paths",
    "insensitivity-policies",
    "insensitivity-gain",
)

# ---- the paper's values, from the ledger (for the charts and the prose) ---------------------

_AT = ledger.chapter_entries("insensitivity")
#: Sec. I and II-B.1: "3 connections would already yield 90%", "6 sockets, almost 95%"
PAPER_N3 = next(e for e in _AT if e.key == "fig2-readings").at["n3"][0]
PAPER_N6 = next(e for e in _AT if e.key == "fig2-readings").at["n6"][0]
#: Example 1 and Sec. II-B.5: Theorem 1's eq. (5) for N = 4, β = 1/2, 12/13
PAPER_EXAMPLE1 = PAPER_RTT = float(altman.parallel_throughput(4, 0.5))
#: Sec. II-B.3, eq. (6): (1 + β)/2 c, 3/4 for TCP, for every N
PAPER_ALL = ledger.paper_value("insensitivity", "all")
#: Sec. II-B.3: the gain of ONE over ALL tends to 2/(1 + β): "this amounts to 4/3"
PAPER_GAIN_LIMIT = 2 / (1 + 0.5)
#: Sec. II-B.4: MultTCP emulating N TCP connections, 1 - 1/(4N), shown at N = 4
PAPER_MULTTCP_N = 4
PAPER_MULTTCP = 1 - 1 / (4 * PAPER_MULTTCP_N)
#: Sec. II-B.4: "less than 1.025 of the mean aggregate throughput of N TCP-like connections"
PAPER_MULTTCP_RATIO = next(e for e in _AT if e.key == "multtcp").at["multtcp-ratio"][0]
#: Fig. 2's points the paper states in words, (N, value, quote), beta = 1/2, for the chart
FIG2_PAPER = (
    (3, PAPER_N3, "β = 1/2, N = 3: '90% link utilization'"),
    (6, PAPER_N6, "β = 1/2, N = 6: 'almost 95%'"),
)
#: the limit of the gain of ONE over ALL, (value, quote), for the chart
GAIN_PAPER = (PAPER_GAIN_LIMIT, "β = 1/2: the gain tends to 4/3 as N grows")
#: the grey band of the RTT chart: 0.2% of 12/13 (a display band only, not a check's range)
TOL_EXAMPLE1 = 2e-3 * 12 / 13


def policy_spread(table: pd.DataFrame) -> pd.Series:
    """Largest minus smallest simulated aggregate across policies, per case."""
    grouped = table.groupby("case", sort=False)["simulated"]
    return grouped.max() - grouped.min()


# ---- numbers quoted in the chapter's prose -----------------------------------------------------


def chapter_numbers(tables: Mapping[str, pd.DataFrame], scale: str = "full") -> dict[str, float]:
    """Every number the chapter's text quotes, computed from the tables of :data:`TABLES`."""
    throughput_table, example1_table, multtcp_table, rtt_table, heterogeneous_table = (
        tables[name] for name in TABLES[:5]
    )
    one = throughput_table[throughput_table["policy"] == "one"]
    small = one[one["flows"] <= 20]
    synced = throughput_table[throughput_table["policy"] == "all"]
    gain_table = gains(throughput_table)
    tcp_gain = gain_table[np.isclose(gain_table["beta"], 0.5)]
    big = tcp_gain[tcp_gain["flows"] == tcp_gain["flows"].max()].iloc[0]
    classes = example1_table[example1_table["group"] != "aggregate"]
    aggregate = example1_table[example1_table["group"] == "aggregate"]
    z = (classes["simulated"] - classes["formula"]).abs() / classes["ci"]
    eighth = example1_table[np.isclose(example1_table["sigma"], 0.125)].set_index("group")
    best = multtcp_table.loc[multtcp_table["ratio_simulated"].idxmax()]
    het = heterogeneous_table.set_index(["case", "policy"])
    cases = list(dict.fromkeys(heterogeneous_table["case"]))
    spread = policy_spread(heterogeneous_table)
    numbers = {
        "n3": float(one_row(one, beta=0.5, flows=3)["simulated"]),
        "n6": float(one_row(one, beta=0.5, flows=6)["simulated"]),
        "n_betas": float(one["beta"].nunique()),
        "exact_worst": float((small["simulated"] - small["formula"]).abs().max()),
        "bound_worst": float(small["bound"].max()),
        "all_worst": float((synced["simulated"] - synced["formula"]).abs().max()),
        "gain_n": float(big["flows"]),
        "gain_simulated": float(big["simulated"]),
        "gain_formula": float(big["formula"]),
        "example1_worst_rel": float(
            ((aggregate["simulated"] - PAPER_EXAMPLE1).abs() / PAPER_EXAMPLE1).max()
        ),
        "example1_worst_z": float(z.max()),
        "example1_sigmas": float(aggregate["sigma"].nunique()),
        "multtcp_worst": float(
            (multtcp_table["multtcp_simulated"] - multtcp_table["multtcp_formula"]).abs().max()
        ),
        "multtcp_best_n": float(best["flows"]),
        "multtcp_best_ratio": float(best["ratio_simulated"]),
        "matching_worst": float(
            (multtcp_table["matching_simulated"] - multtcp_table["one_formula"]).abs().max()
        ),
        "rtt_worst": float((rtt_table["simulated"] - rtt_table["formula"]).abs().max()),
    }
    if 0.125 in set(example1_table["sigma"].round(6)):
        for key, group in (("eighth_class1", GROUPS[0]), ("eighth_class2", GROUPS[1])):
            numbers[key] = float(eighth.loc[group, "simulated"])
            numbers[f"{key}_exact"] = float(eighth.loc[group, "formula"])
    for key, case in zip(("identical", "beta", "rtt", "pair"), cases, strict=False):
        numbers[f"spread_{key}"] = float(spread[case])
        for policy in ONE_POLICIES:
            if (case, policy) in het.index:
                numbers[f"{key}_{policy.replace('-', '_')}"] = float(
                    het.loc[(case, policy), "simulated"]
                )
        numbers[f"{key}_low"] = float(het.loc[case, "low"].iloc[0])
        numbers[f"{key}_high"] = float(het.loc[case, "high"].iloc[0])
    if "identical_beatdown" in numbers:
        numbers["identical_beatdown_gap"] = PAPER_EXAMPLE1 - numbers["identical_beatdown"]
    long_runs = tables["insensitivity-policies"]
    at_one = long_runs[np.isclose(long_runs["eta"], 1.0)]
    params = PoliciesParams() if scale == "full" else PoliciesParams.quick()
    numbers["long_events"] = params.events
    numbers["long_worst"] = float((at_one["simulated"] - at_one["formula"]).abs().max())
    judged = ledger.judge("insensitivity", chapter_claims(tables))
    numbers["items_differ"] = sum(j.status == "differs" for j in judged)
    return numbers


# ---- paper vs. book: the book's side of every check --------------------------------------------


def _bounded(row: pd.Series) -> tolerance.Estimate:
    return tolerance.identity_bound(float(row["simulated"]), float(row["bound"]))


def _signalled_once(paths: pd.DataFrame, beta: float = 0.5, eta: float = 1.0) -> tuple[bool, float]:
    """Eqs. (2)-(4) and assumption ONE on the exact sample paths of Fig. 4 (rates in units of
    c): at every time some rate drops, exactly one connection drops, to ``beta`` times its
    rate, and the rates just before add up to c (eq. 4), each rate just before a drop being
    its last breakpoint plus ``eta`` times the time since (eq. 2). Returns whether all hold
    (to the table's six decimals) and the largest |aggregate just before a drop - c|."""
    ok, worst = True, 0.0
    for _, path in paths.groupby("sigma"):
        path = path.reset_index(drop=True)
        flows = {flow: part for flow, part in path.groupby("flow")}
        drops = path[path.duplicated(["time", "flow"], keep=False)]
        for time, at in drops.groupby("time"):
            ok &= at["flow"].nunique() == 1
            before, after = float(at["rate"].iloc[0]), float(at["rate"].iloc[-1])
            ok &= abs(after - beta * before) <= 2e-6
            total = 0.0
            for part in flows.values():
                now = part[part["time"] == time]
                if len(now):
                    total += float(now["rate"].iloc[0])
                    continue
                last = part[part["time"] < time].iloc[-1]
                total += float(last["rate"]) + eta * (time - float(last["time"]))
            worst = max(worst, abs(total - 1.0))
    return bool(ok and worst <= 1e-5), worst


def _theorem1(one: pd.DataFrame) -> dict[str, Claim]:
    """Theorem 1 and Fig. 2 on the rate-independent runs, each mean within its bound."""
    small = one[one["flows"] <= 20]
    ratio = (small["simulated"] - small["formula"]).abs() / small["bound"]
    worst = small.iloc[int(np.argmax(ratio.to_numpy()))]
    out = {
        "theorem1": Claim(
            "The point of the grid N = 1…20, "
            f"β = {one['beta'].min():g}…{one['beta'].max():g} nearest its bound "
            f"(N = {int(worst['flows'])}, β = {worst['beta']:g}): mean aggregate / c",
            _bounded(worst),
            paper=float(worst["formula"]),
        )
    }
    for n in (3, 6):
        row = one_row(one, beta=0.5, flows=n)
        out[f"n{n}"] = Claim(f"Fig. 2: N = {n}, β = 1/2: mean aggregate / c", _bounded(row))
    # the steps the runs can resolve: N = 1...20, where eq. (5) rises by more than the two
    # runs' bounds (chosen from the formula and the bounds, not from the simulated values)
    steps, unresolved = [], 0
    for beta, part in small.groupby("beta"):
        part = part.sort_values("flows")
        for a, b in zip(part.iloc[:-1].itertuples(), part.iloc[1:].itertuples(), strict=True):
            if b.formula - a.formula <= a.bound + b.bound:
                unresolved += 1
                continue
            steps.append((b.simulated - a.simulated - (a.bound + b.bound), beta, a, b))
    low, beta, a, b = min(steps, key=lambda step: step[0])
    out["monotone"] = Claim(
        f"Fig. 2, N = 1…20: of the {len(steps)} steps eq. (5) rises by more than the runs' "
        f"bounds ({unresolved} smaller ones left out), the one nearest 0: β = {beta:g}, "
        f"N = {a.flows} → {b.flows}, the rise of the mean aggregate",
        tolerance.bounded(b.simulated - a.simulated, a.bound + b.bound, "the two identity bounds"),
    )
    return out


def _example1(example1_table: pd.DataFrame) -> dict[str, Claim]:
    """Example 1: the aggregate at each σ, each class's steps in σ, and Fig. 4's two σ."""
    out = {}
    aggregate = example1_table[example1_table["group"] == "aggregate"].sort_values("sigma")
    for row in aggregate.itertuples():
        out[f"example1-{row.sigma:g}"] = Claim(
            f"Example 1, σ = {row.sigma:g}: aggregate of 4 connections / c",
            tolerance.mean(row.simulated, row.ci, "the replicas"),
            paper=PAPER_EXAMPLE1,
        )
    for number, group, sign in ((1, GROUPS[0], -1.0), (2, GROUPS[1], 1.0)):
        part = example1_table[example1_table["group"] == group].sort_values("sigma")
        for a, b in zip(part.iloc[:-1].itertuples(), part.iloc[1:].itertuples(), strict=True):
            moved = "fall" if sign < 0 else "rise"
            out[f"classes-{number}-{b.sigma:g}"] = Claim(
                f"Class {number}'s {moved} from σ = {a.sigma:g} to {b.sigma:g}",
                tolerance.mean(
                    sign * (b.simulated - a.simulated),
                    tolerance.difference(a.ci, b.ci),
                    "the difference of two means",
                ),
            )
    rows = example1_table.set_index(["sigma", "group"])
    for sigma, key in ((0.125, "fig4-eighth"), (0.5, "fig4-half")):
        if (sigma, GROUPS[0]) not in rows.index:
            continue
        one, two = rows.loc[(sigma, GROUPS[0])], rows.loc[(sigma, GROUPS[1])]
        out[key] = Claim(
            f"Fig. 4, σ = {sigma:g}: class 1 minus class 2 (throughput / c)",
            tolerance.mean(
                float(one["simulated"] - two["simulated"]),
                tolerance.difference(float(one["ci"]), float(two["ci"])),
                "the difference of two means",
            ),
        )
    return out


def _synchronised(throughput_table: pd.DataFrame, gain_table: pd.DataFrame) -> dict[str, Claim]:
    """Eq. (6), ONE against ALL, and the gain's limit."""
    one = throughput_table[throughput_table["policy"] == "one"]
    synced = throughput_table[throughput_table["policy"] == "all"]
    tcp_all = synced[np.isclose(synced["beta"], 0.5)]
    far = tcp_all.iloc[int(np.argmax(np.abs(tcp_all["simulated"].to_numpy() - PAPER_ALL)))]
    merged = one[one["flows"] <= 20].merge(synced, on=["beta", "flows"], suffixes=("_one", "_all"))
    gap = merged["simulated_one"] - merged["simulated_all"]
    many = merged[merged["flows"] > 1]
    low = (gap - merged["bound_one"])[merged["flows"] > 1]
    near = many.loc[low.idxmin()]
    single = merged[merged["flows"] == 1]
    far1 = single.loc[(gap[merged["flows"] == 1] / single["bound_one"]).abs().idxmax()]
    gain = gain_table.iloc[0]
    return {
        "all": Claim(
            f"ALL, β = 1/2: the mean aggregate farthest from 3/4 over N = 1…"
            f"{int(tcp_all['flows'].max())} (N = {int(far['flows'])})",
            tolerance.computed(float(far["simulated"])),
        ),
        "one-above-all": Claim(
            f"ONE minus ALL, N = 2…20, nearest 0 for its bound (N = {int(near['flows'])}, "
            f"β = {near['beta']:g})",
            tolerance.identity_bound(
                float(near["simulated_one"] - near["simulated_all"]), float(near["bound_one"])
            ),
        ),
        "one-equals-all": Claim(
            f"ONE minus ALL at N = 1, farthest from 0 for its bound (β = {far1['beta']:g})",
            tolerance.identity_bound(
                float(far1["simulated_one"] - far1["simulated_all"]), float(far1["bound_one"])
            ),
        ),
        "gain": Claim(
            f"Gain of ONE over ALL at N = {int(gain['flows'])}, β = {gain['beta']:g} (eqs. "
            f"(5)/(6) there: {float(gain['gain_formula']):.6f})",
            tolerance.bounded(
                float(gain["gain_simulated"]),
                float(gain["gain_bound"]),
                "the sample-path identity's bound on ONE, over ALL's exact mean",
            ),
            paper=PAPER_GAIN_LIMIT,
        ),
    }


def _multtcp(multtcp_table: pd.DataFrame) -> dict[str, Claim]:
    """MultTCP: its value, above N connections, below 1.025 of them, the printed factor, and
    the paper's "no solution"."""
    at_n = one_row(multtcp_table, flows=PAPER_MULTTCP_N)
    n_max = int(multtcp_table["flows"].max())
    more = multtcp_table[multtcp_table["flows"] > 1]
    above = (more["multtcp_simulated"] - more["one_formula"]).min()
    ratio = multtcp_table["multtcp_simulated"] / multtcp_table["one_formula"]
    best = multtcp_table.loc[ratio.idxmax()]
    matching_gap = (multtcp_table["matching_simulated"] - multtcp_table["one_formula"]).abs()
    matching_ok = bool((matching_gap <= tolerance.EXACT).all()) and bool(
        ((multtcp_table["matching_beta"] > 0) & (multtcp_table["matching_beta"] < 1)).all()
    )
    return {
        "multtcp": Claim(
            f"MultTCP emulating N = {PAPER_MULTTCP_N} TCPs: mean rate / c",
            tolerance.computed(float(at_n["multtcp_simulated"])),
            paper=PAPER_MULTTCP,
        ),
        "multtcp-above": Claim(
            f"MultTCP minus N TCP-like connections (eq. (5)), the least over N = 2…{n_max}",
            tolerance.computed(float(above)),
        ),
        "multtcp-ratio": Claim(
            f"MultTCP over N TCP-like connections (eq. (5)), the largest over N = 1…{n_max} "
            f"(N = {int(best['flows'])})",
            tolerance.computed(float(ratio.max())),
        ),
        "multtcp-beta": Claim(
            f"MultTCP's decrease factor at N = {PAPER_MULTTCP_N} that gives 1 − 1/(4N), "
            "1 − (1 − β)/N, against the printed 1 − N/2",
            tolerance.computed(float(at_n["multtcp_beta"])),
            paper=1 - PAPER_MULTTCP_N / 2,
        ),
        "multtcp-no-beta": holds(
            "No decrease factor b_N in (0, 1), a function of N alone, makes one AIMD "
            f"connection match eq. (5), for N = 1…{n_max}",
            not matching_ok,
            "the exact one-connection runs with b_N = 1 − 2/(1 + Nρ)",
        ),
    }


def _policies(policy_table: pd.DataFrame) -> dict[str, Claim]:
    """The four ONE policies at each common η, against eq. (5), within their bounds."""
    out = {}
    for row in policy_table.itertuples():
        key = "insensitive" if np.isclose(row.eta, 1.0) else f"rtt-{row.eta:g}"
        out[f"{key}-{row.policy}"] = Claim(
            f"{row.policy}, N = {row.flows}, η = {row.eta:g}: mean aggregate / c",
            tolerance.identity_bound(float(row.simulated), float(row.bound)),
            paper=float(row.formula),
        )
    return out


def _heterogeneous(heterogeneous_table: pd.DataFrame) -> dict[str, Claim]:
    """Beyond the paper: the spread over the policies of unequal connections, and the what-if
    that makes them identical."""
    spread = policy_spread(heterogeneous_table)
    cases = list(spread.index)
    by_case = {case: part for case, part in heterogeneous_table.groupby("case", sort=False)}

    def width(case: str) -> float:
        ordered = by_case[case].sort_values("simulated")
        return tolerance.difference(float(ordered["ci"].iloc[0]), float(ordered["ci"].iloc[-1]))

    out = {
        key: Claim(
            f"{case}: spread of the mean aggregate over the four policies",
            tolerance.mean(float(spread[case]), width(case), "the two extreme means"),
        )
        for key, case in (("spread-beta", cases[1]), ("spread-rtt", cases[2]))
    }
    out["why-heterogeneous"] = holds(
        "What-if: identical connections (the cause removed) spread over the policies by less "
        "than the 95% interval of either unequal case's spread, and each unequal case's "
        "spread lies outside its interval",
        bool(abs(spread.iloc[0]) < min(width(c) for c in cases[1:3]))
        and all(abs(spread[c]) > width(c) for c in cases[1:3]),
        "the 16-replica runs of data/insensitivity-heterogeneous.csv",
    )
    return out


def chapter_claims(tables: Mapping[str, pd.DataFrame]) -> dict[str, Claim]:
    """Every check of the chapter, keyed (the ledger's checks), from the tables of
    :data:`TABLES` (the model row only where the sample paths are given)."""
    throughput = tables["insensitivity-throughput"]
    one = throughput[throughput["policy"] == "one"]
    out = _theorem1(one)
    out |= _example1(tables["insensitivity-example1"])
    out |= _synchronised(throughput, tables["insensitivity-gain"])
    out |= _multtcp(tables["insensitivity-multtcp"])
    out |= _policies(tables["insensitivity-policies"])
    out |= _heterogeneous(tables["insensitivity-heterogeneous"])
    paths = tables.get("insensitivity-paths")
    if paths is not None and len(paths):
        out["model"] = holds(
            "Figs. 1 and 4: rates rise at η between events, the aggregate just before each "
            "event is c, and exactly one connection is cut to β times its rate",
            _signalled_once(paths)[0],
            "the exact sample paths of Fig. 4",
        )
    return out
