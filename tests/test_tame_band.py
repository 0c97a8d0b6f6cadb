"""The impact band (issue 56): its edges by hand, its corners, its confidence, the recorded
scenario 1 RED probes, the repeats it asks for, and the decision on its upper edge.

Expectations: eq. 18 of Lu et al. by hand in the chapter's weights, 1 - sqrt(y1 / ((1 - w) y1 +
w y2)) with y = n^2 / BW^2 and w = (n^2 - n1^2) / (n2^2 - n1^2); Student's t from tables; the
simulated impact of the recorded runs (data/lu-scenarios.csv, the cross traffic's throughput
against the run with one connection).
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tcplab.advisor import advise
from tcplab.cli import main
from tcplab.impact_band import (
    assumed_box,
    impact_band,
    measured_box,
    near_linear_factor,
    repeats_needed,
    upper_confidence,
)

DATA = Path(__file__).resolve().parents[1] / "data"
SAMPLES = {1: [100.0, 110.0, 90.0], 10: [600.0, 650.0, 560.0]}  # the referee's repeats (D.1)


def _impact(n: int, bw1: float, bw10: float) -> float:
    """Eq. 18 at n from probes (1, bw1), (10, bw10), by hand."""
    y1, y2 = 1 / bw1**2, 100 / bw10**2
    w = (n * n - 1) / 99
    return 1 - math.sqrt(y1 / ((1 - w) * y1 + w * y2))


def _half(values: list[float]) -> float:
    k = len(values)
    return {2: 12.706, 3: 4.303, 4: 3.182}[k] * float(np.std(values, ddof=1)) / math.sqrt(k)


def test_the_edges_are_eq_18_at_the_two_corners_by_hand() -> None:
    box = measured_box(SAMPLES)
    assert box is not None and box.measured
    m1, m10 = 100.0, float(np.mean(SAMPLES[10]))
    h1, h10 = _half(SAMPLES[1]), _half(SAMPLES[10])
    band = impact_band(box, "partial2", [1, 5, 31])
    assert band[1] == (0.0, 0.0)
    for n in (5, 31):  # upper: fewer-flows probe high, more-flows low; lower: the other way
        assert band[n][1] == pytest.approx(_impact(n, m1 + h1, m10 - h10), rel=1e-12)
        assert band[n][0] == pytest.approx(_impact(n, m1 - h1, m10 + h10), rel=1e-12)
        assert band[n][0] < _impact(n, m1, m10) < band[n][1]
    assert upper_confidence(2) == pytest.approx(0.950625) and upper_confidence(3) == 0.95**3


@settings(max_examples=60, deadline=None)
@given(
    st.floats(0.0, 1.0), st.floats(0.0, 1.0), st.floats(0.0, 1.0),
    st.integers(2, 40), st.sampled_from([(1, 10), (2, 12), (1, 4, 16)]),
)  # fmt: skip
def test_every_point_of_the_box_lies_inside_the_band(u1, u2, u3, n, levels) -> None:
    """The band's claim that the extremes are at corners, checked at points inside the box
    (the model evaluated directly, by least squares for three probes)."""
    from tcplab.theory.lu import fit_probes

    means = {k: k / math.sqrt(2e-4 * k * k + 1e-2) for k in levels}  # a known curve
    box = assumed_box(means, 0.04)
    band = impact_band(box, "partial2", [n])[n]
    point = {k: lo + u * (hi - lo) for (k, (lo, hi)), u in
             zip(sorted(box.edges.items()), (u1, u2, u3), strict=False)}  # fmt: skip
    inside = float(fit_probes(point).impact(n))
    assert band[0] - 1e-12 <= max(inside, 0.0) <= band[1] + 1e-12


def test_the_upper_edge_covers_the_true_impact_at_least_as_often_as_it_says() -> None:
    """Normal run-to-run noise (sd 8% at 1 flow, 4% at 10) around a known curve, 3 runs per
    probe, 2000 seeded replications: the upper edge is at or above the model's impact from the
    true means in at least 95.06% of them. False alarm: the test fails if the count is below
    the one-sided 99.95% binomial bound (z = 3.29) of 0.950625, so at most 1 in 2000 runs of a
    correct band."""
    rng = np.random.default_rng(20261202)
    a, b = 1.8e-6, 9.8e-5
    true = {n: n / math.sqrt(a * n * n + b) for n in (1, 10)}
    truth = _impact(7, true[1], true[10])
    replications, covered = 2000, 0
    for _ in range(replications):
        samples = {n: list(true[n] * (1 + sd * rng.standard_normal(3)))
                   for n, sd in ((1, 0.08), (10, 0.04))}  # fmt: skip
        box = measured_box(samples)
        assert box is not None
        covered += impact_band(box, "partial2", [7])[7][1] >= truth
    p = 0.950625
    floor = p - 3.29 * math.sqrt(p * (1 - p) / replications)
    assert covered / replications >= floor, covered


def test_the_recorded_scenario1_red_probes_band_contains_the_simulated_impact() -> None:
    """The issue's done-when: the two replicas of each scenario 1 RED curve as the repeats of
    the probes at 1 and 10 flows; at every recorded n the band contains the simulated impact
    (the replicas' mean cross-traffic throughput against the mean at one connection)."""
    runs = pd.read_csv(DATA / "lu-scenarios.csv")
    red = runs[(runs["scenario"] == 1) & (runs["queue"] == "red") & (runs["cross"] > 0)]
    checked = 0
    for cross, curve in red.groupby("cross"):
        by_n = curve.groupby("flows")
        samples = {n: list(by_n.get_group(n)["parallel_bytes_per_s"]) for n in (1, 10)}
        assert all(len(v) == 2 for v in samples.values()), cross
        box = measured_box(samples)
        assert box is not None
        cross_mean = by_n["cross_bytes_per_s"].mean()
        simulated = 1 - cross_mean / cross_mean.loc[1]
        band = impact_band(box, "partial2", list(simulated.index))
        for n, value in simulated.items():
            low, high = band[n]
            assert low <= value <= high, (cross, n, low, value, high)
            checked += 1
    assert checked == 6 * 10  # six cross-traffic levels, ten numbers of flows


def test_repeats_needed_is_the_first_k_whose_upper_edge_is_within_the_limit() -> None:
    """By hand: with each probe's mean and sd kept, k runs give half-widths t(k-1) sd / sqrt(k);
    the answer is the k where the upper edge at n = 5 first drops to 20%."""
    m1, m10 = 100.0, float(np.mean(SAMPLES[10]))
    s1, s10 = float(np.std(SAMPLES[1], ddof=1)), float(np.std(SAMPLES[10], ddof=1))
    table = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201,
             2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086]  # fmt: skip

    def upper(k: int) -> float:
        t = table[k - 2]
        return _impact(5, m1 + t * s1 / math.sqrt(k), m10 - t * s10 / math.sqrt(k))

    want = next(k for k in range(2, 22) if upper(k) <= 0.2)
    assert upper(want - 1) > 0.2
    assert repeats_needed(SAMPLES, "partial2", 5, 0.2) == want
    point = {n: float(np.mean(v)) for n, v in SAMPLES.items()}
    at_limit = _impact(5, point[1], point[10])
    assert repeats_needed(SAMPLES, "partial2", 5, at_limit * (1 - 1e-9)) is None


def test_the_choice_is_made_on_the_upper_edge_and_the_undecided_ns_are_named() -> None:
    upper = advise(SAMPLES, 0.2)
    point = advise(SAMPLES, 0.2, decide="point")
    m1, m10 = 100.0, float(np.mean(SAMPLES[10]))
    h1, h10 = _half(SAMPLES[1]), _half(SAMPLES[10])
    by_point = max(n for n in range(1, 32) if _impact(n, m1, m10) <= 0.2)
    by_upper = max(n for n in range(1, 32) if _impact(n, m1 + h1, m10 - h10) <= 0.2)
    assert (point.result.flows, upper.result.flows) == (by_point, by_upper) == (5, 3)
    assert upper.result.decided_on == "upper" and point.result.decided_on == "point"
    assert upper.undecided == point.undecided == (4, 5)
    assert upper.repeats_needed == repeats_needed(SAMPLES, "partial2", 5, 0.2)
    assert upper.upper_impact == pytest.approx(_impact(3, m1 + h1, m10 - h10))
    summary = upper.summary()
    assert summary["impact_band"]["3"][1] == pytest.approx(summary["predicted_impact_upper"])
    assert summary["impact_upper_confidence"] == pytest.approx(0.950625)


def test_the_command_prints_and_returns_the_band(capsys) -> None:
    argv = ["tame", "--max-impact", "0.2", *(f"--probe=1:{v:g}" for v in SAMPLES[1]),
            *(f"--probe=10:{v:g}" for v in SAMPLES[10])]  # fmt: skip
    assert main([*argv, "--json"]) == 0
    got = json.loads(capsys.readouterr().out)
    assert got["flows"] == 3 and got["point_flows"] == 5 and got["decided_on"] == "upper"
    assert got["undecided"] == [4, 5] and got["repeats_needed"] >= 4
    assert got["impact_band"]["1"] == [0.0, 0.0] and len(got["impact_band"]) == 31
    assert main([*argv, "--decide", "point", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["flows"] == 5
    assert main(argv) == 0
    text = capsys.readouterr().out
    assert "open 3 connections" in text and "upper edge" in text
    assert "too wide to decide n = 4-5" in text and "runs per probe would decide 5" in text
    assert main(["tame", "--max-impact", "0.2", "--probe", "1:100", "--probe", "10:600"]) == 0
    text = capsys.readouterr().out
    assert "no band: one run per probe" in text and "point estimate" in text


def test_the_near_linear_factor_is_the_corner_of_the_assumed_spread() -> None:
    # (1 - 1.96 x 0.05) / (1 + 1.96 x 0.05) by hand
    assert near_linear_factor(0.05) == pytest.approx(0.902 / 1.098, rel=1e-12)
    assert near_linear_factor(0.0) == 1.0
    with pytest.raises(ValueError, match="spread"):
        near_linear_factor(0.6)
