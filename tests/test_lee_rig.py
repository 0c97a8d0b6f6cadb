"""The knobs of a repetition (tcplab.chapters.lee.transfer.Knobs): the shipped repetition
unchanged by default, and each knob against a hand calculation."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest

from tcplab.chapters.lee.spread import dz_path
from tcplab.chapters.lee.transfer import Knobs, Repetition, path_model, run_repetition


def run_rig(rep: Repetition, knobs: Knobs | None = None) -> dict:
    """A repetition with knobs (the defaults when None), as the what-if runs make it."""
    return run_repetition(rep, knobs or Knobs())


pytestmark = pytest.mark.timeout(300)


@pytest.mark.parametrize(("name", "rtt"), [("shared", 49.0), ("shaped", 38.0)])
def test_default_knobs_give_the_shipped_repetition(name: str, rtt: float) -> None:
    rep = Repetition(path_model(name), 6, 200_000, rtt, 11)
    shipped, rig = run_repetition(rep), run_rig(rep)
    assert np.array_equal(shipped["completion_s"], rig["completion_s"])
    assert shipped["drops"] == rig["drops"] and shipped["cross"] == rig["cross"]
    assert rig["greedy"] == 0 and rig["rtt_drawn_ms"] == rtt


def _alone(**knobs: float) -> dict:
    """One transfer of 300 packets, window 16, on an idle 200 Mb/s path at 38 ms."""
    path = path_model("window", cross=(0, 0))
    return run_rig(Repetition(path, 1, 450_000, 38.0, 3), Knobs(**knobs))  # type: ignore[arg-type]


def test_slow_start_from_one_packet_takes_four_round_trips_to_a_window_of_16() -> None:
    # 1 + 2 + 4 + 8 packets acknowledged at the ends of rounds 1-4: the window is 16 after
    # 4 round trips (plus the serialisation of a few packets at 200 Mb/s, 60 us each)
    ss = float(_alone()["slowstart_s"][0])
    assert 4 * 0.038 <= ss <= 4 * 0.038 + 0.003


def test_an_initial_window_of_10_reaches_16_in_one_round_trip() -> None:
    ss = float(_alone(initial_window=10)["slowstart_s"][0])
    assert 0.038 <= ss <= 0.038 + 0.003


def test_a_transfer_that_ends_in_slow_start_spends_its_whole_life_there() -> None:
    path = path_model("window", cross=(0, 0), max_window=20_000)
    out = run_rig(Repetition(path, 1, 15_000, 38.0, 3))  # 10 packets: 1 + 2 + 4 + 3
    assert out["slowstart_s"][0] == pytest.approx(out["completion_s"][0] - out["start_s"][0])


def test_a_sliver_shaper_caps_the_aggregate() -> None:
    # 10 greedy transfers of 1 MB behind one 20 Mb/s shaper: at most 2.5 MB/s together
    path = path_model("window", cross=(0, 0), max_window=20_000)
    out = run_rig(Repetition(path, 10, 1_000_000, 38.0, 5), Knobs(sliver_mbps=20.0))
    aggregate = 10e6 / np.nanmax(out["completion_s"])
    assert 0.7 * 2.5e6 <= aggregate <= 2.5e6


def test_the_draws_are_seeded_and_greedy_traffic_slows_the_transfers() -> None:
    template, knobs = dz_path(greedy_mean=3.0)
    rep = replace(template, flows=5, nbytes=500_000, seed=8)
    a, b = run_rig(rep, knobs), run_rig(rep, knobs)
    assert np.array_equal(a["completion_s"], b["completion_s"]) and a["greedy"] == b["greedy"]
    assert abs(a["rtt_drawn_ms"] - 38.0) <= 2.0
    calm = run_rig(rep, replace(knobs, greedy_mean=0.0))
    assert a["greedy"] > 0 and calm["greedy"] == 0
    assert np.nanmax(a["completion_s"]) > np.nanmax(calm["completion_s"])


def test_a_bad_knob_names_itself() -> None:
    with pytest.raises(ValueError, match="greedy_mean"):
        Knobs(greedy_mean=-1.0)
    with pytest.raises(ValueError, match="sliver_mbps"):
        Knobs(sliver_mbps=0.0)
    assert math.isfinite(Knobs().sliver_buffer)
