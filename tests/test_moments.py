"""Second moments (Altman et al. 2006, Sections III-IV): closed forms, experiments, claims.

Every item of the chapter's paper-vs-book table is judged by the ledger's rules, at quick
scale and on the shipped full-scale data; the items where the book shows the paper is wrong
(beatdown in Theorem 2, the printed beatdown stationary point) must differ.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from tcplab import claims, fluid, ledger, registry
from tcplab.chapters.moments import charts
from tcplab.chapters.moments import claims as mc
from tcplab.chapters.moments import experiments as moments
from tcplab.chapters.moments import held as held_what_if
from tcplab.ledger import tolerance
from tcplab.theory import altman
from tcplab.theory import moments as theory_moments

from stat_tools import widen

NAMES = (
    "moments-table",
    "moments-distributions",
    "moments-largest-rate",
    "moments-beatdown-path",
    "moments-beatdown-tags",
    "moments-theorem3",
)
#: the what-if that holds the aggregate at c during a beatdown (its own module)
HELD = "moments-beatdown-held"


def _results(scale: str) -> dict[str, pd.DataFrame]:
    if scale == "full":
        return ledger.full_tables("moments")
    return {name: registry.run(name, scale="quick") for name in (*NAMES, HELD)}


@pytest.fixture(scope="module", params=["quick", "full"])
def results(request: pytest.FixtureRequest) -> dict[str, pd.DataFrame]:
    return _results(request.param)


def _claims(results: dict[str, pd.DataFrame]) -> dict[str, claims.Claim]:
    return mc.chapter_claims(results)


def _status(results: dict[str, pd.DataFrame]) -> dict[str, str]:
    """Each check's verdict and each item's status, by key."""
    found = ledger.judge("moments", _claims(results))
    return {j.entry.key: j.status for j in found} | {
        c.key: c.status for j in found for c in j.checks
    }


# ---- closed forms -------------------------------------------------------------------------------


def test_theorem2_closed_forms() -> None:
    assert theory_moments.rate_independent_moments(2)[1] == pytest.approx([5 / 24] * 2, abs=1e-12)
    assert theory_moments.largest_rate_second_moment(2) == pytest.approx(4 / 21, abs=1e-15)
    assert theory_moments.beatdown_second_moment(2) == pytest.approx(28 / 111, abs=1e-15)
    assert theory_moments.beatdown_pinned_second_moment(2) == pytest.approx(1 / 3)


@pytest.mark.parametrize("n", [2, 3, 4, 5, 6])
@pytest.mark.parametrize("beta", [0.3, 0.5, 0.8])
def test_beatdown_and_largest_rate_means_are_theorem1(n: int, beta: float) -> None:
    """Theorem 3: the beatdown cycle's mean is Theorem 1; so is largest-rate's fixed point."""
    want = altman.parallel_throughput(n, beta)
    assert n * theory_moments.beatdown_mean(n, beta) == pytest.approx(want, rel=1e-12)
    x1 = theory_moments.largest_rate_fixed_point(n, beta)[0]
    assert n * x1 * (1 + beta) / 2 == pytest.approx(want, rel=1e-12)
    assert theory_moments.largest_rate_fixed_point(n, beta).sum() == pytest.approx(1.0)
    assert theory_moments.beatdown_tag_point(n).sum() == pytest.approx(1.0)


def test_printed_beatdown_summary_does_not_sum_to_one() -> None:
    assert theory_moments.beatdown_tag_point_printed(2).sum() == pytest.approx(1.0)
    for n in (3, 4, 5):
        assert theory_moments.beatdown_tag_point_printed(n).sum() < 1.0 - 1e-3


def test_rate_independent_moments_match_throughput_and_simulation() -> None:
    mean, second = theory_moments.rate_independent_moments(3, beta=0.5)
    assert mean.sum() == pytest.approx(altman.parallel_throughput(3), rel=1e-10)
    result = fluid.simulate(2, "rate-independent", beta=[0.5, 0.8], events=2000, replicas=1024)
    _, exact = theory_moments.rate_independent_moments(2, beta=[0.5, 0.8])
    # both connections within their 99.95% intervals: 0.1% false alarms for the test
    band = widen(result.second_moment_ci, 1023, 1e-3 / 2)
    assert np.all(np.abs(result.second_moment - exact) < band)
    assert np.all(band < 0.01 * exact)  # and a 1% error would show


@pytest.mark.parametrize(
    ("call", "name"),
    [
        (lambda: theory_moments.largest_rate_fixed_point(0), "flows"),
        (lambda: theory_moments.largest_rate_second_moment(2, 1.0), "beta"),
        (lambda: theory_moments.beatdown_second_moment(1), "flows"),
        (lambda: theory_moments.beatdown_tag_point(1.5), "flows"),
        (lambda: theory_moments.rate_independent_moments(2, probs=[0.5, 0.6]), "probs"),
        (lambda: theory_moments.rate_independent_moments(2, beta=[0.5, 0.0]), "beta"),
        (lambda: theory_moments.rate_independent_moments(2, eta=-1.0), "eta"),
        (lambda: theory_moments.rate_independent_moments(7), "flows"),
    ],
)
def test_bad_input_names_the_parameter(call, name: str) -> None:
    with pytest.raises(ValueError, match=name):
        call()


# ---- the paper-vs-book table --------------------------------------------------------------------


def test_every_item_has_the_status_the_paper_earns(results: dict[str, pd.DataFrame]) -> None:
    found = _status(results)
    assert {f"theorem2-{p}" for p in moments.POLICIES} <= set(found)
    differs = {"theorem2-beatdown", "tags-summary"}  # the paper's slips, named in the chapter
    for key in ("theorem2", "order", "largest-rate", "fig5", "tags", "theorem3"):
        assert found[key] == "reproduced", key
    for key in differs:
        assert found[key] == "differs", key


def test_theorem2_is_held_to_the_runs_interval(results: dict[str, pd.DataFrame]) -> None:
    """Theorem 2's fractions are exact: each simulated value holds the closed form inside its
    own 95% interval (the random policies), or to floating point (largest-rate's periodic
    path), by the ledger's rules."""
    table = results["moments-table"]
    item = {j.entry.key: j for j in ledger.judge("moments", _claims(results))}["theorem2"]
    rules = {c.key: c.verdict.rule for c in item.checks}
    assert rules == {
        "theorem2-rate-independent": "interval",
        "theorem2-rate-proportional": "interval",
        "theorem2-largest-rate": "exact",
    }
    for check in item.checks[:2]:
        policy = check.key.removeprefix("theorem2-")
        row = table[(table["flows"] == 2) & table["identical"] & (table["policy"] == policy)]
        half = float(row[row["flow"] == 1]["second_moment_ci"].iloc[0])
        assert check.book.half_width == pytest.approx(half)


def test_lemma1_map_by_hand() -> None:
    # N = 2, beta = 1/2: a = 3/4, b = 1/4; eq. (9)'s fixed point (4/7, 3/7) maps to itself,
    # and (0.6, 0.4) to (max(0.45, 0.55), min(0.45, 0.55)) = (0.55, 0.45)
    assert mc.lemma1_map(np.array([4 / 7, 3 / 7]), 0.5) == pytest.approx([4 / 7, 3 / 7])
    assert mc.lemma1_map(np.array([0.6, 0.4]), 0.5) == pytest.approx([0.55, 0.45])


def test_a_broken_beatdown_path_fails_the_fig5_row(results: dict[str, pd.DataFrame]) -> None:
    path = results["moments-beatdown-path"].copy()
    assert _status(results)["fig5"] == "reproduced"
    broken = dict(results, **{"moments-beatdown-path": path.assign(time=np.sqrt(path["time"]))})
    assert _status(broken)["fig5"] == "differs"


def test_beatdown_is_the_corrected_value(results: dict[str, pd.DataFrame]) -> None:
    table = results["moments-table"]
    row = table[(table["flows"] == 2) & table["identical"] & (table["policy"] == "beatdown")]
    assert row["second_moment"].to_numpy() == pytest.approx(28 / 111, rel=mc.THEOREM2_TOLERANCE)
    assert abs(row["second_moment"].iloc[0] - 1 / 3) > 0.05


def test_a_wrong_value_fails_the_checker(results: dict[str, pd.DataFrame]) -> None:
    assert _status(results)["theorem2-rate-independent"] == "reproduced"
    table = results["moments-table"].copy()
    mine = (table["policy"] == "rate-independent") & (table["flows"] == 2) & table["identical"]
    table.loc[mine, "second_moment"] *= 1 + 2 * mc.THEOREM2_TOLERANCE
    assert _status({**results, "moments-table": table})["theorem2-rate-independent"] == "differs"
    table.loc[mine, "second_moment"] = 5 / 23
    assert _status({**results, "moments-table": table})["theorem2"] == "differs"


def test_closed_forms_match_the_simulations(results: dict[str, pd.DataFrame]) -> None:
    exact = moments.with_exact(results["moments-table"])
    known = exact[exact["exact"].notna()]
    assert len(known) >= 10
    error = (known["second_moment"] / known["exact"] - 1).abs()
    assert error.max() < mc.THEOREM2_TOLERANCE


def test_theorem2_ci_is_tight_enough(results: dict[str, pd.DataFrame]) -> None:
    table = results["moments-table"]
    two = table[(table["flows"] == 2) & table["identical"]]
    assert (two["second_moment_ci"] / two["second_moment"]).max() < mc.THEOREM2_TOLERANCE / 2


def test_distributions_are_exact_and_consistent(results: dict[str, pd.DataFrame]) -> None:
    dist = results["moments-distributions"]
    table = results["moments-table"]
    for policy, group in dist.groupby("policy"):
        assert group["cdf"].iloc[-1] == pytest.approx(1.0, abs=1e-9)
        assert np.all(np.diff(group["cdf"]) >= -1e-12)
        mid = (group["lower"] + group["upper"]) / 2
        width = group["upper"] - group["lower"]
        binned = float((mid**2 * group["density"] * width).sum())
        assert binned == pytest.approx(group["second_moment"].iloc[0], abs=2e-3)
        row = table[(table["flows"] == 2) & table["identical"] & (table["policy"] == policy)]
        assert group["second_moment"].iloc[0] == pytest.approx(
            row["second_moment"].iloc[0], rel=0.02
        )
    largest = dist[dist["policy"] == "largest-rate"]
    inside = (largest["lower"] >= 2 / 7) & (largest["upper"] <= 4 / 7)
    assert largest.loc[inside, "density"].to_numpy() == pytest.approx(3.5, rel=1e-6)


def test_largest_rate_round_robin(results: dict[str, pd.DataFrame]) -> None:
    largest = results["moments-largest-rate"]
    assert largest["round_robin"].all()
    assert (largest["simulated"] - largest["formula"]).abs().max() < tolerance.EXACT


def test_segment_histogram_by_hand() -> None:
    path = fluid.sample_path(1, "all", beta=0.5, events=4, start=[0.5])
    mass = moments.segment_histogram(path, np.array([0.0, 0.5, 0.75, 1.0]))
    assert mass[:, 0] == pytest.approx([0.0, 1.0, 1.0])  # 4 climbs of 0.5 at eta = 1


def test_charts_build_and_stay_small(results: dict[str, pd.DataFrame]) -> None:
    exact = moments.with_exact(results["moments-table"])
    specs = [
        charts.second_moment_chart(exact, moments.POLICIES),
        charts.distribution_chart(results["moments-distributions"], moments.POLICIES),
        charts.largest_rate_chart(results["moments-largest-rate"]),
        charts.beatdown_chart(results["moments-beatdown-path"], results["moments-beatdown-tags"]),
    ]
    total = sum(len(str(spec.to_dict())) for spec in specs)
    assert total < 500_000
    params = specs[1].to_dict()["params"]
    assert params[0]["bind"]["input"] == "radio"


def test_registered_with_their_modules() -> None:
    for name in NAMES:
        experiment = registry.REGISTRY[name]
        modules = experiment.modules()
        assert moments.__name__ in modules and theory_moments.__name__ in modules
        assert math.isfinite(len(experiment.description))


# ---- the what-if: a beatdown that holds the aggregate at c ------------------------------------


def test_held_path_by_hand() -> None:
    # N = 2, c = 1, rates (3/4, 1/4) at a tagging time: the larger is tagged and falls in a
    # straight line to 0 while the other climbs to 1, in 3/4 time units (eq. 11). Integrals of
    # x: 3/4 * (3/4 + 0)/2 and 3/4 * (1/4 + 1)/2; of x^2: 3/4 * (3/4)^2/3 and
    # 3/4 * (1/16 + 1/4 + 1)/3
    path = held_what_if.held_path(2, 2, start=[0.75, 0.25])
    assert path.times[1] == pytest.approx(0.75) and path.tagged[0] == 0
    assert path.rates[1] == pytest.approx([0.0, 1.0])
    assert path.first[0] == pytest.approx([0.28125, 0.46875])
    assert path.second[0] == pytest.approx([0.140625, 0.328125])
    # then the other is tagged at c and falls to 0 in one time unit while the first climbs
    assert path.tagged[1] == 1 and path.times[2] == pytest.approx(1.75)
    assert path.second[1] == pytest.approx([1 / 3, 1 / 3])


def test_held_what_if_is_the_uniform_law(results: dict[str, pd.DataFrame]) -> None:
    """Held at c, every rate sweeps [0, 2c/N] in straight lines: E[X^2]/c^2 = (2/N)^2/3 by
    hand (1/3 for N = 2), and the mean aggregate is c; the real beatdown stays at its own
    closed form, far from it."""
    table = results[HELD]
    what_if = table[table["variant"] == held_what_if.VARIANTS[1]]
    real = table[table["variant"] == held_what_if.VARIANTS[0]]
    assert len(what_if) >= 2 and 2 in set(what_if["flows"])
    for row in what_if.itertuples():
        assert row.second_moment == pytest.approx((2 / row.flows) ** 2 / 3, abs=1e-9)
        assert row.aggregate == pytest.approx(1.0, abs=1e-9)
    for row in real.itertuples():
        assert row.second_moment == pytest.approx(
            theory_moments.beatdown_second_moment(row.flows), rel=mc.THEOREM2_TOLERANCE
        )
        assert row.second_moment < 0.95 * (2 / row.flows) ** 2 / 3
        assert abs(row.aggregate - altman.parallel_throughput(row.flows)) < 1e-3


def test_a_broken_what_if_fails_its_row(results: dict[str, pd.DataFrame]) -> None:
    assert _status(results)["beatdown-why"] == "reproduced"
    assert ledger.paper_value("moments", "beatdown-why") == pytest.approx(1 / 3)
    table = results[HELD]
    # the what-if rows replaced by the real beatdown's values: the cause is back
    real = table[table["variant"] == held_what_if.VARIANTS[0]]
    broken = dict(results, **{HELD: real.assign(variant=held_what_if.VARIANTS[1])})
    assert _status(broken)["beatdown-why"] == "differs"


def test_held_path_bad_input_names_the_parameter() -> None:
    with pytest.raises(ValueError, match="start"):
        held_what_if.held_path(2, 3, start=[0.5, 0.2])
    with pytest.raises(ValueError, match="flows"):
        held_what_if.held_path(1, 3, start=[1.0])
