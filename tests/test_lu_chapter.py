"""The Lu et al. chapter's analysis, claims, charts and panel.

The analysis is checked on curves made from the model itself (throughput n / sqrt(a n^2 + b),
cross traffic falling as eq. 18 says), where every prediction must be exact, and by hand on
small tables; the claims must read the tables (a changed table changes a verdict).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from tcplab import ledger, registry
from tcplab.chapters.lu import analysis as an
from tcplab.chapters.lu import charts, claims, mechanisms, panel
from tcplab.charts import to_svg
from tcplab.ledger import tolerance

A, B, BASE = 2e-11, 4e-10, 150_000.0  # the exact model's a, b (s^2/B^2) and X_cross(1)
FLOWS = (1, 2, 5, 8, 10, 15, 20, 31)


def _exact(scenario: int = 2, cross: int = 10) -> pd.DataFrame:
    n = np.array(FLOWS, dtype=float)
    parallel = n / np.sqrt(A * n * n + B)
    crossing = BASE * np.sqrt((A + B) / (A * n * n + B))
    return pd.DataFrame(
        {
            "scenario": scenario, "queue": "droptail", "cross": cross, "replica": 0,
            "flows": FLOWS, "capacity_bytes_per_s": 1.25e7,
            "parallel_bytes_per_s": parallel, "cross_bytes_per_s": crossing,
            "loss_rate": 1e-3 * (A * n * n + B) / (A + B), "rtt_s": 0.06,
        }
    )  # fmt: skip


def test_predictions_of_an_exact_curve_are_exact() -> None:
    pred = an.predictions(_exact())
    assert set(pred["probes"]) == {"(1, 8)", "(1, 10)", "(1, 15)", "(1, 2)"}
    assert np.abs(pred["error"]).max() < 1e-9
    main = pred[pred["probes"] == "(1, 10)"]
    assert list(main.loc[main["probe"], "flows"]) == [1, 10]
    assert main["a"].iloc[0] == pytest.approx(A, rel=1e-9)


def test_errors_are_eq15_and_leave_the_probes_out() -> None:
    table = _exact()
    table.loc[table["flows"] == 20, "parallel_bytes_per_s"] *= 1.25  # measured 25% more
    pred = an.predictions(table, pairs=[(1, 10)])
    at20 = pred[pred["flows"] == 20]["error"].item()
    assert at20 == pytest.approx(1 / 1.25 - 1, rel=1e-9)  # (p - 1.25 p) / (1.25 p)
    summary = an.probe_pairs(pred).set_index("probes")
    away = len(FLOWS) - 2
    assert summary.loc["(1, 10)", "points"] == away
    assert summary.loc["(1, 10)", "mean_abs"] == pytest.approx(0.2 / away, rel=1e-6)
    by_n = an.error_by_flows(pred).set_index("flows")
    assert 10 not in by_n.index and by_n.loc[20, "mean"] == pytest.approx(-0.2, rel=1e-6)


def test_impacts_of_an_exact_curve_match_the_simulation() -> None:
    imp = an.impacts(_exact())
    assert np.abs(imp["error"]).max() < 1e-9
    assert imp["predicted_impact"].to_numpy() == pytest.approx(
        imp["simulated_impact"].to_numpy(), abs=1e-9
    )
    assert imp.loc[imp["flows"] == 1, "simulated_impact"].item() == 0.0
    assert an.impacts(_exact(cross=0)).empty  # no cross traffic, no impact


def test_the_advisor_finds_brute_forces_answer_on_an_exact_curve() -> None:
    adv = an.advisor(_exact(), max_impacts=(0.1, 0.3, 0.6), min_gain=0.0)
    assert list(adv["advisor_flows"]) == list(adv["brute_flows"])
    assert adv["within"].all() and (adv["throughput_ratio"] == 1.0).all()
    # the largest n of the grid with 1 - sqrt((a + b) / (a n^2 + b)) <= 0.3, by hand
    n_star = math.sqrt(((A + B) / 0.7**2 - B) / A)
    assert adv.loc[adv["max_impact"] == 0.3, "advisor_flows"].item() == max(
        n for n in FLOWS if n <= n_star
    )


def test_model_check_gives_c1_by_hand() -> None:
    check = an.model_check(_exact()).set_index("flows")
    p, rtt = 1e-3, 0.06
    mathis = math.sqrt(1.5) / (rtt * math.sqrt(p))  # packets/s of one flow
    assert check.loc[1, "c1"] == pytest.approx(1 / math.sqrt(A + B) / (1000 * mathis))
    assert check.loc[1, "profile"] == pytest.approx(p * rtt**2)


def test_the_scenario_statistics_by_hand() -> None:
    table = pd.concat([_exact(1, 5), _exact(1, 5).assign(replica=1)])
    c = claims.curve(table, 1, 5)
    first, last = c.iloc[0], c.iloc[-1]
    share = -(last["cross"] - first["cross"]) / (last["parallel"] - first["parallel"])
    assert claims.stolen_share(table, 1, 5) == pytest.approx(share)
    assert claims.gain(table, 1, 5) == pytest.approx(last["parallel"] / first["parallel"])
    assert claims.linearity(table, 1, 5) == pytest.approx(
        last["parallel"] / (31 * first["parallel"])
    )
    red = table.assign(queue="red", parallel_bytes_per_s=table["parallel_bytes_per_s"] * 1.1)
    both = pd.concat([table.assign(cross=15), red.assign(cross=15)])
    assert claims.droptail_below_red(both) == 1.0
    assert (
        claims.droptail_below_red(
            pd.concat(
                [
                    table.assign(cross=15),
                    table.assign(
                        cross=15,
                        queue="red",
                        parallel_bytes_per_s=0.9 * table["parallel_bytes_per_s"],
                    ),
                ]
            )
        )
        == 0.0
    )


def test_the_paper_paths_are_figure_10() -> None:
    assert len(claims.PAPER_PATHS) == 41
    assert claims.PAPER_PATHS["std"].max() == pytest.approx(0.5193)
    assert claims.PAPER_PATHS["mean"].min() == pytest.approx(-0.2750)


@pytest.fixture(scope="module")
def quick() -> dict[str, pd.DataFrame]:
    return registry.run_all(claims.TABLES, scale="quick")


def test_the_claims_fail_when_the_data_says_otherwise(quick) -> None:
    before = claims.chapter_claims(quick)
    table = quick["lu-scenarios"]
    # the cross traffic keeps what it had: nothing stolen
    kept = table.copy()
    base = kept.groupby(["queue", "cross", "replica"])["cross_bytes_per_s"].transform("first")
    kept["cross_bytes_per_s"] = base
    after = claims.chapter_claims({**quick, "lu-scenarios": kept})
    assert ledger.check_statuses("lu", before)["s1-stolen"] == "reproduced"
    assert ledger.check_statuses("lu", after)["s1-stolen"] == "differs"
    # estimates of a cross traffic that never changes are off by the whole predicted impact
    assert after["cross-90"].value < before["cross-90"].value


def test_every_chart_renders(quick) -> None:
    table, sens, paths = claims.scenario_table(quick), quick["lu-sensitivity"], quick["lu-paths"]
    pred, imp = an.predictions(table), an.impacts(table)
    by_flows = an.error_by_flows(pred[pred["probes"] == "(1, 10)"])
    path_pred = an.path_predictions(paths)
    built = [
        charts.scenarios_chart(table, 5),
        charts.prediction_chart(pred, 5),
        charts.elasticity_chart(),
        charts.error_chart(pred, by_flows, an.pearson(by_flows["flows"], by_flows["mean"])),
        charts.impact_chart(imp, table, 5),
        charts.impact_cdf_chart(imp),
        charts.advisor_chart(an.advisor(table)),
        charts.paths_chart(an.path_summary(path_pred, paths), claims.PAPER_PATHS),
        charts.sensitivity_chart(sens),
        charts.model_check_chart(an.model_check(table), pred, 5),
    ]
    for chart in built:
        assert "<svg" in to_svg(chart)


def test_the_panels_advice_is_the_advisors(quick) -> None:
    table = quick["lu-scenarios"]
    curve, numbers = panel.advise(table, 1, 5, 0.3)
    row = an.advisor(table, max_impacts=(0.3,))
    mine = row[(row["queue"] == "droptail") & (row["cross"] == 5)]
    assert numbers["flows"] == mine["advisor_flows"].item()
    assert numbers["simulated"] == mine["simulated"].item()
    assert list(curve["flows"]) == list(range(1, 32))
    with pytest.raises(ValueError, match="only scenario 1"):
        panel.advise(table, 2, 10, 0.3, source="simulate")
    with pytest.raises(ValueError, match="cross=7 is not recorded"):
        panel.advise(table, 1, 7, 0.3)
    assert "<svg" in to_svg(panel.advice_chart(curve, numbers))


def test_median_interval_is_the_sign_test_interval() -> None:
    # by hand: with three values P(Bin(3, 1/2) = 0) = 1/8 each side, so [min, max] covers 3/4
    assert an.median_interval([3.0, 1.0, 2.0]) == (1.0, 3.0, 0.75)
    # the sign-test table (e.g. Conover, Practical Nonparametric Statistics, Table A3):
    # 16 values -> ranks 4 and 13 (97.9%), 41 values -> ranks 14 and 28 (97.2%)
    low, high, cover = an.median_interval(range(1, 17))
    assert (low, high) == (4.0, 13.0) and cover == pytest.approx(0.9787, abs=1e-4)
    low, high, cover = an.median_interval(range(1, 42))
    assert (low, high) == (14.0, 28.0) and cover == pytest.approx(0.9725, abs=1e-4)
    with pytest.raises(ValueError, match="values"):
        an.median_interval([])


def test_a_median_check_is_the_difference_of_two_medians() -> None:
    """Three paths each: the medians' distribution-free intervals are [min, max]; ours minus
    the paper's with their half-widths combined, sqrt(0.02^2 + 0.08^2) = 0.0825, must hold 0."""
    paper = pd.Series([0.10, 0.12, 0.14])  # median 0.12, interval [0.10, 0.14]
    near = claims._median_claim("t", "s", paper, pd.Series([0.10, 0.18, 0.26]))
    far = claims._median_claim("t", "s", paper, pd.Series([0.30, 0.40, 0.50]))
    assert near.book.value == pytest.approx(0.06)
    assert near.book.half_width == pytest.approx(math.hypot(0.02, 0.08))
    zero = tolerance.paper_side(0.0, "exact")
    assert tolerance.judge(zero, near.book).status == "reproduced"
    assert tolerance.judge(zero, far.book).status == "differs"


def test_the_gigabit_runs_join_the_scenarios_once() -> None:
    """The book's scale: lu-gigabit adds scenarios 4 and 5; the paper's scale: lu-scenarios
    has them already and lu-gigabit (empty, or not) adds nothing twice."""
    book = pd.DataFrame({"scenario": [1, 2, 3, 6], "flows": [1, 1, 1, 1]})
    paper = pd.DataFrame({"scenario": [1, 2, 3, 4, 5, 6], "flows": [1] * 6})
    gigabit = pd.DataFrame({"scenario": [4, 5], "flows": [1, 1]})
    joined = claims.scenario_table({"lu-scenarios": book, "lu-gigabit": gigabit})
    assert sorted(joined["scenario"]) == [1, 2, 3, 4, 5, 6]
    again = claims.scenario_table({"lu-scenarios": paper, "lu-gigabit": gigabit})
    assert sorted(again["scenario"]) == [1, 2, 3, 4, 5, 6]
    empty = claims.scenario_table({"lu-scenarios": paper, "lu-gigabit": pd.DataFrame()})
    assert len(empty) == 6


def test_the_tolerances_come_from_the_tests_they_stand_for() -> None:
    """Hand computations: with 8 pairs a one-sided 5% sign test needs 7 one way
    (P(X >= 7) = 9/256 = 0.035, P(X >= 6) = 37/256 = 0.145); 4 pairs can never reject
    (P(X >= 4) = 1/16 = 0.0625); 0.9 over 100 outcomes: 1.96 x 0.3 / 10 = 0.0588."""
    assert claims.sign_test_share(8) == 7 / 8
    assert claims.sign_test_share(4) == float("inf")
    assert claims.binomial_half(0.9, 100) == pytest.approx(0.0588)


def test_probe_spread_is_zero_where_a_model_is_exact() -> None:
    """A profile a n^2 + B: both models fit it exactly from any probes, so neither moves.
    With a linear term (a (m + n)^2, eq. 5) only the full model (6) stays exact."""
    exact = an.probe_spread(_exact())
    assert list(exact["flows"]) == [2, 5, 20, 31]  # every level but the probes' 1, 8, 10, 15
    assert exact[["partial2", "full2"]].abs().max().max() < 1e-9
    n = np.array(FLOWS, dtype=float)
    linear = _exact().assign(parallel_bytes_per_s=n / np.sqrt(A * (5 + n) ** 2))
    spread = an.probe_spread(linear).set_index("flows")
    assert spread["full2"].abs().max() < 1e-9
    assert (spread["partial2"] > 1e-3).all()
    assert (spread[["undefined_partial2", "undefined_full2"]] == 0).all().all()
    # per curve: full minus partial, so negative here
    assert claims.spread_difference(linear) == pytest.approx([-spread["partial2"].mean()])


def test_window_facts_by_hand() -> None:
    """Scenario 6 exactly n windows of 60 000 B per 60 ms round trip (1 MB/s each) up to the
    12.5 MB/s link; scenario 2 (no cap) 8 MB/s with one connection, 10 MB/s with 31."""
    flows = [1, 10, 31]
    six = pd.DataFrame({"scenario": 6, "cross": 0, "flows": flows, "rtt_s": 0.06,
                        "capacity_bytes_per_s": 1.25e7,
                        "parallel_bytes_per_s": [1e6, 1e7, 1.25e7]})  # fmt: skip
    two = six.assign(scenario=2, parallel_bytes_per_s=[8e6, 9e6, 1e7])
    facts = mechanisms.window_facts(pd.concat([six, two], ignore_index=True))
    assert facts["window_points"] == 2  # 31 windows do not fit 12.5 MB/s
    assert facts["window_miss"] == pytest.approx(0.0, abs=1e-12)
    assert facts["gain_capped"] == pytest.approx(12.5)
    assert facts["gain_free"] == pytest.approx(1.25)
    assert mechanisms.window_facts(six) == {}  # no scenario 2: no what-if


def test_the_rtt_trend_is_right_on_an_exact_curve_and_wrong_when_growth_is_superlinear() -> None:
    exact = _exact(scenario=1).assign(variant="v")
    trends = claims.rtt_trends({"lu-rtt": exact})
    assert trends["right"].tolist() == [True]
    n = exact["flows"].to_numpy(dtype=float)
    faster = exact.assign(parallel_bytes_per_s=1e3 * n**1.2)  # faster than n: a' < 0
    assert claims.rtt_trends({"lu-rtt": faster})["right"].tolist() == [False]
    assert claims.rtt_trends({}).empty
