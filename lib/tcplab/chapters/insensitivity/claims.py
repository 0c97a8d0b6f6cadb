"""The insensitivity chapter's paper-vs-book claims and the numbers its prose quotes.

The paper's values are quoted here once, each with the section it comes from, beside the
tolerance the book claims for it; :func:`keyed_claims` sets them against the tables the
chapter's experiments produce. Tests check every claim with the same tolerance the chapter
prints.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from statistics import NormalDist

import numpy as np
import pandas as pd

from tcplab import claims
from tcplab.claims import one_row, ruled, yes_no
from tcplab.ledger import tolerance

from .experiments import GROUPS, ONE_POLICIES, gains

__all__ = [
    "TABLES",
    "QUICK_VERDICTS",
    "FIG2_PAPER",
    "GAIN_PAPER",
    "policy_spread",
    "chapter_claims",
    "chapter_numbers",
    "keyed_claims",
    "paper_claims",
]

#: the experiments the claims and the prose read, in the order of :func:`keyed_claims`
TABLES = (
    "insensitivity-throughput",
    "insensitivity-example1",
    "insensitivity-multtcp",
    "insensitivity-rtt",
    "insensitivity-heterogeneous",
    "insensitivity-paths",
)

# ---- the paper's numbers, quoted --------------------------------------------------------------

#: Sec. I and II-B.1: "opening as few as 3 connections would already yield 90% link utilization"
PAPER_N3 = 0.90
#: Sec. I and II-B.1: "6 sockets, almost 95% link utilization"
PAPER_N6 = 0.95
#: Example 1 (Sec. II-B.2, Fig. 3): the aggregate is insensitive, on Theorem 1's line for N = 4,
#: beta = 1/2: 1 - 1/13 = 12/13 ("dots aligned with the analytical prediction")
PAPER_EXAMPLE1 = 12 / 13
#: Sec. II-B.3, eq. (6): under ALL the throughput is (1 + beta)/2 c, 3/4 for TCP, for every N
PAPER_ALL = 0.75
#: Sec. II-B.3: the gain of ONE over ALL tends to 2/(1 + beta): "this amounts to 4/3"
PAPER_GAIN_LIMIT = 4 / 3
#: Sec. II-B.4: MultTCP emulating N TCP connections has mean throughput 1 - 1/(4N) (here N = 4)
PAPER_MULTTCP_N = 4
PAPER_MULTTCP = 1 - 1 / (4 * PAPER_MULTTCP_N)
#: Sec. II-B.4: "the mean throughput of a MultTCP connection is less than 1.025 of the mean
#: aggregate throughput of N TCP-like connections under a loss policy in ONE"
PAPER_MULTTCP_RATIO = 1.025
#: Sec. II-B.2 and Theorem 1: the mean aggregate is the same whichever connection is signalled,
#: i.e. the spread of the aggregate across loss policies is zero
PAPER_POLICY_SPREAD = 0.0
#: Sec. II-B.5: "(5) does not depend on eta_1": for N = 4, beta = 1/2, 12/13 for every eta
PAPER_RTT = 12 / 13
#: Fig. 2's points the paper states in words, (N, value, quote), beta = 1/2, for the chart
FIG2_PAPER = (
    (3, PAPER_N3, "β = 1/2, N = 3: '90% link utilization'"),
    (6, PAPER_N6, "β = 1/2, N = 6: 'almost 95%'"),
)
#: the limit of the gain of ONE over ALL, (value, quote), for the chart
GAIN_PAPER = (PAPER_GAIN_LIMIT, "β = 1/2: the gain tends to 4/3 as N grows")

# ---- tolerances, by the book's rules (tcplab.ledger.tolerance) --------------------------------

#: the paper's whole percentages as printed: "90%" is [89.5%, 90.5%), "almost 95%" a full point
PRINTED_N3 = "90%"
PRINTED_N6 = "almost 95%"
#: the grey band of the RTT chart: 0.2% of 12/13 (a display band only, not a claim's tolerance)
TOL_EXAMPLE1 = 2e-3 * 12 / 13


#: at quick scale (short runs), the verdicts that differ from the full-scale ledger's: the
#: finite-run bias of the beatdown mean (see the ledger's spread-identical) is then smaller
#: than the wider interval of the short runs, and the farthest RTT point's bias (same boundary
#: term) is larger than its interval
QUICK_VERDICTS = {"spread-identical": True, "rtt": False}


def identity_bound(bound: float) -> tolerance.Tolerance:
    """Theorem 1 against the exact fluid model: a finite run's time average is off by at most
    the sample-path identity's boundary term ``bound`` (chapter, "Why the policy does not
    matter"), a worst-case bound, so every run is within it (not 95% of them)."""
    return tolerance.Tolerance(
        max(float(bound), tolerance.EXACT),
        f"exact: closed form against the exact fluid model; a finite run is off by at most "
        f"the sample-path identity's boundary term ±{bound:.2g}",
    )


def grid_interval(half_widths: Sequence[float] | np.ndarray, points: int) -> float:
    """The 95% half-width for the farthest of ``points`` simulated points from a closed
    form: each point's 95% half-width (``half_widths``), the largest, widened from 1.96 to
    the normal quantile of 1 - 2.5%/points (Bonferroni), so that the farthest point of a grid
    that agrees raises a false alarm one time in twenty, not ``points`` times more often."""
    widen = NormalDist().inv_cdf(1 - 0.025 / max(points, 1)) / NormalDist().inv_cdf(0.975)
    return float(np.max(np.asarray(half_widths, dtype=float))) * widen


def policy_spread(table: pd.DataFrame) -> pd.Series:
    """Largest minus smallest simulated aggregate across policies, per case."""
    grouped = table.groupby("case", sort=False)["simulated"]
    return grouped.max() - grouped.min()


# ---- numbers quoted in the chapter's prose -----------------------------------------------------


def chapter_numbers(tables: Mapping[str, pd.DataFrame], scale: str = "full") -> dict[str, float]:
    """Every number the chapter's text quotes, computed from the five tables of :data:`TABLES`."""
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
    return numbers


# ---- paper vs. book ---------------------------------------------------------------------------
# Every row is an entry of the chapter's ledger (ledger.toml), which declares its status; the
# tolerances come from the rules of tcplab.ledger.tolerance, never chosen per row.


def _farthest(values: pd.Series, target: float) -> float:
    values = values.astype(float)
    return float(values.iloc[int(np.argmax(np.abs(values.to_numpy() - target)))])


def _farthest_row(table: pd.DataFrame, target: float) -> pd.Series:
    return table.iloc[int(np.argmax(np.abs(table["simulated"].to_numpy(dtype=float) - target)))]


def _spread_interval(table: pd.DataFrame) -> float:
    """95% half-width of max - min of a case's policy means: the two extreme means' half-widths
    added (a conservative bound on the half-width of their difference)."""
    ordered = table.sort_values("simulated")
    return float(ordered["ci"].iloc[0] + ordered["ci"].iloc[-1])


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


def _fig4(example1_table: pd.DataFrame) -> bool:
    """Class 1 above class 2 at sigma = 1/8, and equal to class 2 within the two 95%
    half-widths at sigma = 1/2 (False where the grid lacks either sigma)."""
    rows = example1_table.set_index(["sigma", "group"])
    try:
        eighth = (
            rows.loc[(0.125, GROUPS[0]), "simulated"] > rows.loc[(0.125, GROUPS[1]), "simulated"]
        )
        one, two = rows.loc[(0.5, GROUPS[0])], rows.loc[(0.5, GROUPS[1])]
    except KeyError:
        return False
    return bool(eighth) and bool(abs(one["simulated"] - two["simulated"]) <= one["ci"] + two["ci"])


def keyed_claims(
    throughput_table: pd.DataFrame,
    example1_table: pd.DataFrame,
    multtcp_table: pd.DataFrame,
    rtt_table: pd.DataFrame,
    heterogeneous_table: pd.DataFrame,
    paths_table: pd.DataFrame | None = None,
) -> dict[str, claims.Claim]:
    """Every claim of the chapter under a short key (the ledger's keys, ledger.toml)."""
    one = throughput_table[throughput_table["policy"] == "one"]
    synced = throughput_table[throughput_table["policy"] == "all"]
    small = one[one["flows"] <= 20]
    ratio = (small["simulated"] - small["formula"]).abs() / small["bound"]
    worst = small.iloc[int(np.argmax(ratio.to_numpy()))]
    tcp_all = synced[np.isclose(synced["beta"], 0.5)]
    gain_table = gains(throughput_table)
    largest = gain_table[np.isclose(gain_table["beta"], 0.5)]
    largest = largest[largest["flows"] == largest["flows"].max()].iloc[0]
    big_one = one_row(one, beta=0.5, flows=int(largest["flows"]))
    aggregate = example1_table[example1_table["group"] == "aggregate"]
    far1 = _farthest_row(aggregate, PAPER_EXAMPLE1)
    far_rtt = _farthest_row(rtt_table, PAPER_RTT)
    spread = policy_spread(heterogeneous_table)
    cases = list(spread.index)
    by_case = {case: part for case, part in heterogeneous_table.groupby("case", sort=False)}
    spread_tol = {case: tolerance.exact(half_width=_spread_interval(part))
                  for case, part in by_case.items()}  # fmt: skip
    n_max = int(multtcp_table["flows"].max())
    at_n = one_row(multtcp_table, flows=PAPER_MULTTCP_N)
    increasing = all(
        bool(part.sort_values("flows")["simulated"].diff().dropna().gt(0).all())
        for _, part in one.groupby("beta")
    )
    merged = one.merge(synced, on=["beta", "flows"], suffixes=("_one", "_all"))
    above = merged["simulated_one"] - merged["simulated_all"] >= -merged["bound_one"]
    single = merged[merged["flows"] == 1]
    equal_at_1 = bool(
        ((single["simulated_one"] - single["simulated_all"]).abs() <= single["bound_one"]).all()
    )
    gains_above = bool((merged[merged["flows"] > 1]["simulated_one"]
                        > merged[merged["flows"] > 1]["simulated_all"]).all())  # fmt: skip
    classes = example1_table[example1_table["group"] != "aggregate"].sort_values("sigma")
    class1 = classes[classes["group"] == GROUPS[0]]
    class2 = classes[classes["group"] == GROUPS[1]]
    moves = bool(
        class1["simulated"].diff().dropna().lt(0).all()
        and class2["simulated"].diff().dropna().gt(0).all()
    )
    multtcp_more = multtcp_table[multtcp_table["flows"] > 1]
    matching_gap = (multtcp_table["matching_simulated"] - multtcp_table["one_formula"]).abs()
    matching_ok = bool((matching_gap <= tolerance.EXACT).all()) and bool(
        ((multtcp_table["matching_beta"] > 0) & (multtcp_table["matching_beta"] < 1)).all()
    )
    out = {
        "n3": ruled(
            "Fig. 2: N = 3 connections, β = 1/2: mean aggregate rate / c",
            "Sec. I and II-B.1: '3 connections would already yield 90% link utilization'",
            PAPER_N3,
            float(one_row(one, beta=0.5, flows=3)["simulated"]),
            tolerance.number(PRINTED_N3),
        ),
        "n6": ruled(
            "Fig. 2: N = 6 connections, β = 1/2: mean aggregate rate / c",
            "Sec. I and II-B.1: '6 sockets, almost 95% link utilization'",
            PAPER_N6,
            float(one_row(one, beta=0.5, flows=6)["simulated"]),
            tolerance.number(PRINTED_N6),
        ),
        "exact": ruled(
            "Theorem 1 is exact: simulated − eq. (5) over N = 1…20 and "
            f"β = {one['beta'].min():g}…{one['beta'].max():g}, the point nearest its bound "
            f"(N = {int(worst['flows'])}, β = {worst['beta']:g})",
            "Sec. II-A, Theorem 1: eq. (5) is the exact time-stationary mean",
            0.0,
            float(worst["simulated"] - worst["formula"]),
            identity_bound(float(worst["bound"])),
        ),
        "monotone": yes_no(
            "Fig. 2: the mean aggregate rate rises with N at every step, for every β of the grid",
            "Sec. I and II-B.1: 'monotonically increases from (1 + β1)/2 c for N = 1 to 1'",
            True,
            increasing,
        ),
        "example1": ruled(
            "Example 1 (Fig. 3): aggregate of 4 connections, farthest from 12/13 over "
            f"σ = {aggregate['sigma'].min():g}…{aggregate['sigma'].max():g} "
            f"(at σ = {far1['sigma']:g})",
            "Sec. II-B.2, Example 1: the aggregate is insensitive to σ (Theorem 1: 12/13)",
            PAPER_EXAMPLE1,
            float(far1["simulated"]),
            tolerance.exact(half_width=grid_interval(aggregate["ci"], len(aggregate))),
        ),
        "example1-classes": yes_no(
            "Example 1 (Fig. 3): as σ grows, class 1's throughput falls and class 2's rises, "
            "at every step of the grid",
            "Sec. II-B.2: 'connections 1 and 2 (resp. 3 and 4) will receive equal throughput "
            "that will decrease (resp. increase) with σ'",
            True,
            moves,
        ),
        "fig4": yes_no(
            "Fig. 4: at σ = 1/8 the two connections signalled less often (class 1) hold more "
            "of the link than the other two; at σ = 1/2 the classes are equal within their "
            "intervals",
            "Sec. II-B.2, Fig. 4: 'σ = 1/8 so that two connections are selected more often "
            "than the other two'",
            True,
            _fig4(example1_table),
        ),
        "all": ruled(
            "ALL (synchronised), β = 1/2: mean aggregate farthest from 3/4 over "
            f"N = 1…{int(tcp_all['flows'].max())}",
            "Sec. II-B.3, eq. (6): (1 + β)/2 for every N",
            PAPER_ALL,
            _farthest(tcp_all["simulated"], PAPER_ALL),
            tolerance.exact(),
        ),
        "one-vs-all": yes_no(
            "ONE is never below ALL, for every β and N of the grid, and equal only at N = 1 "
            "(within the identity's bound)",
            "Sec. II-B.3: 'IE(X_ONE(0)) ≥ IE(X_ALL(0)) with equality only if N = 1'",
            True,
            bool(above.all()) and equal_at_1 and gains_above,
        ),
        "gain": ruled(
            f"Gain of ONE over ALL as N grows, β = 1/2 (simulated at N = "
            f"{int(largest['flows'])}, where eqs. (5)/(6) give {float(largest['formula']):.5f})",
            "Sec. II-B.3: the gain tends to 2/(1 + β): 'this amounts to 4/3'",
            PAPER_GAIN_LIMIT,
            float(largest["simulated"]),
            identity_bound(float(big_one["bound"]) / PAPER_ALL),
        ),
        "multtcp": ruled(
            f"MultTCP emulating N = {PAPER_MULTTCP_N} TCPs: mean rate / c",
            "Sec. II-B.4: 'E(X_MultTCP)/c = 1 − 1/(4N)'",
            PAPER_MULTTCP,
            float(at_n["multtcp_simulated"]),
            tolerance.exact(),
        ),
        "multtcp-beta": ruled(
            f"MultTCP's decrease factor at N = {PAPER_MULTTCP_N}: as printed, 1 − N/2, against "
            "the factor 1 − (1 − β)/N that gives the paper's 1 − 1/(4N)",
            "Sec. II-B.4: 'multiplicative-decrease parameter 1 − N/2'",
            1 - PAPER_MULTTCP_N / 2,
            float(at_n["multtcp_beta"]),
            tolerance.exact(),
        ),
        "multtcp-above": yes_no(
            f"MultTCP above N TCP-like connections under ONE for N = 2…{n_max}, equal at N = 1",
            "Sec. II-B.4: 'IE(X_MultTCP(0)) ≥ IE(X_ONE(0)), for all N ≥ 1, with equality "
            "only if N = 1'",
            True,
            bool((multtcp_more["multtcp_simulated"] > multtcp_more["one_simulated"]).all())
            and bool(abs(multtcp_table.iloc[0]["ratio_simulated"] - 1.0) <= tolerance.EXACT),
        ),
        "multtcp-ratio": yes_no(
            f"MultTCP over N TCP-like connections under ONE: the largest ratio over "
            f"N = 1…{n_max} is below 1.025 "
            f"({float(multtcp_table['ratio_simulated'].max()):.5f} at N = "
            f"{int(multtcp_table.loc[multtcp_table['ratio_simulated'].idxmax(), 'flows'])})",
            "Sec. II-B.4: 'less than 1.025 of the mean aggregate throughput'",
            True,
            bool(multtcp_table["ratio_simulated"].max() < PAPER_MULTTCP_RATIO),
        ),
        "multtcp-no-beta": yes_no(
            "Some decrease factor b_N in (0, 1), a function of N alone, makes one AIMD "
            f"connection match eq. (5) for N = 1…{n_max}",
            "Sec. II-B.4: 'redefining only β1 to a function of N provides no solution, except "
            "for the trivial case N = 1'",
            False,
            matching_ok,
        ),
        "spread-identical": ruled(
            f"Insensitivity, {cases[0]}: spread of the aggregate over four policies",
            "Sec. I and II-B.2: 'no matter which connection is signaled ... the same'",
            PAPER_POLICY_SPREAD,
            float(spread.iloc[0]),
            spread_tol[cases[0]],
        ),
        "rtt": ruled(
            "Common η (RTT), N = 4, β = 1/2: aggregate farthest from 12/13 over "
            f"η = {rtt_table['eta'].min():g}…{rtt_table['eta'].max():g} and four policies",
            "Sec. II-B.5: '(5) does not depend on η1'",
            PAPER_RTT,
            float(far_rtt["simulated"]),
            tolerance.exact(half_width=grid_interval(rtt_table["ci"], len(rtt_table))),
        ),
        "spread-beta": ruled(
            f"Beyond the paper, {cases[1]}: spread of the aggregate over four policies",
            "Theorem 1 assumes identical connections; insensitivity does not carry over",
            PAPER_POLICY_SPREAD,
            float(spread.iloc[1]),
            spread_tol[cases[1]],
        ),
        "spread-rtt": ruled(
            f"Beyond the paper, {cases[2]}: spread of the aggregate over four policies",
            "Sec. II-B.5 read for different RTTs: insensitivity does not carry over",
            PAPER_POLICY_SPREAD,
            float(spread.iloc[2]),
            spread_tol[cases[2]],
        ),
        "why-heterogeneous": yes_no(
            "What-if: make the connections identical (the cause removed) and the spread over "
            "policies falls below the noise of the unequal cases' spreads (their 95% "
            "intervals); with unequal β or RTTs the spread is outside its interval",
            "The book's explanation: the identity weights each signalled connection's ρ_i/η_i",
            True,
            bool(abs(spread.iloc[0]) < min(spread_tol[c].value for c in cases[1:3]))
            and all(abs(spread[c]) > spread_tol[c].value for c in cases[1:3]),
        ),
    }
    if paths_table is not None and len(paths_table):
        holds, _ = _signalled_once(paths_table)
        out["model"] = yes_no(
            "Figs. 1 and 4: on the exact sample paths, rates rise at η between events, the "
            "aggregate just before each event is c, and exactly one connection is cut to β "
            "times its rate",
            "Sec. I (ONE, Fig. 1) and Sec. II-A, eqs. (2)-(4)",
            True,
            holds,
        )
    return out


def paper_claims(
    throughput_table: pd.DataFrame,
    example1_table: pd.DataFrame,
    multtcp_table: pd.DataFrame,
    rtt_table: pd.DataFrame,
    heterogeneous_table: pd.DataFrame,
) -> list[claims.Claim]:
    """The chapter's paper-vs-book table, in reading order."""
    return list(
        keyed_claims(
            throughput_table, example1_table, multtcp_table, rtt_table, heterogeneous_table
        ).values()
    )


def chapter_claims(tables: Mapping[str, pd.DataFrame]) -> dict[str, claims.Claim]:
    """:func:`keyed_claims` of the tables of :data:`TABLES` (the uniform entry the tests use)."""
    return keyed_claims(*(tables[name] for name in TABLES))
