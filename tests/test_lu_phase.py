"""Scenario 1's DropTail starvation as a phase effect (tcplab.chapters.lu.phase, .starved), and
the sign test that replaces the loss ratio where the cross traffic lost nothing.

Expectations come from outside the model: the fair share is 1 when every connection gets the
same (Mathis: one round trip, one loss rate), which RED's random drops give (the paper's
Sec. V.A); the sign test's threshold is the binomial tail; bottleneck packet times are
arithmetic."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from tcplab.chapters.lu import claims, phase, starved

DATA = Path(__file__).resolve().parents[1] / "data"


def test_fair_share_by_hand() -> None:
    one = pd.Series([1.0])
    # 3 of 10 connections moving 30% of the bytes: their fair share exactly
    assert phase.fair_share(30 * one, 70 * one, 3 * one, 7 * one).iloc[0] == pytest.approx(1.0)
    # half of it
    assert phase.fair_share(15 * one, 85 * one, 3 * one, 7 * one).iloc[0] == pytest.approx(0.5)


def test_the_offsets_stay_within_half_a_bottleneck_packet_time() -> None:
    # 1000 bytes at 1.5 Mb/s: 8000 / 1500 ms
    assert phase.packet_time_ms() == pytest.approx(8000 / 1500)
    offsets = phase.PhaseParams().offsets_ms()
    assert len(offsets) == 9 and offsets[0] == 0.0
    assert offsets.max() < 8000 / 1500 / 2


def test_starved_share_counts_points_below_half_their_share() -> None:
    rows = [  # scenario 1, DropTail, 20 cross flows: n = 5 at 0.4 of its share, n = 10 at 1
        (1, "droptail", 20, 5, 0.4 * 5 / 25 * 100, 100 - 0.4 * 5 / 25 * 100),
        (1, "droptail", 20, 10, 10 / 30 * 100, 100 - 10 / 30 * 100),
        (1, "droptail", 5, 10, 1.0, 99.0),  # not more than 10 cross flows: left out
        (1, "red", 20, 5, 1.0, 99.0),  # RED: left out
    ]
    cols = ["scenario", "queue", "cross", "flows", "parallel_bytes_per_s", "cross_bytes_per_s"]
    assert starved.starved_share(pd.DataFrame(rows, columns=cols)) == pytest.approx(0.5)


def test_the_sign_test_needs_all_of_six_runs() -> None:
    # P(6 of 6) = 1/64 <= 5% < P(>= 5 of 6) = 7/64
    assert claims.sign_test_share(6) == 1.0
    runs = pd.DataFrame(
        {"loss_rate": [0.1, 0.2, 0.0, 0.3], "cross_loss_rate": [0.0, 0.1, 0.0, 0.4]}
    )
    assert claims.loss_sign(runs) == (2, 3)  # the tie (both 0) is left out


def test_red_removes_the_phase_swing_on_the_shipped_data() -> None:
    """The mechanism row s1-phase: under DropTail the share leaves [1/2, 2] at some offset at
    most points; under RED, where every connection sees the same loss rate, it stays around
    the fair share 1 at every offset; at offset 0 the runs are the curves' own."""
    runs = pd.read_csv(DATA / "lu-phase.csv")
    bands = starved.phase_bands(runs)
    droptail = bands[bands["variant"] == "DropTail"]
    red = bands[bands["variant"] == "RED"]
    assert len(droptail) == len(red) == 8
    assert droptail["outside"].mean() > 0.5
    assert not red["outside"].any()
    curves = pd.read_csv(DATA / "lu-scenarios.csv")
    keys = ["scenario", "queue", "cross", "flows"]
    zero = runs[(runs["delta_ms"] == 0) & (runs["jitter_ms"] == 0)]
    both = zero.merge(curves[curves["replica"] == 0], on=keys, suffixes=("", "_curve"))
    assert len(both) == len(zero) == 16
    for name in ("parallel_bytes_per_s", "cross_bytes_per_s", "loss_rate", "packets"):
        assert (both[name] == both[f"{name}_curve"]).all(), name
