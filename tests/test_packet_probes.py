"""Probes of the packet model: per-flow goodput per interval, and who was dropped when."""

from __future__ import annotations

import numpy as np
import pytest

from tcplab.packet import run_dumbbell

COMMON = {"flows": 3, "rate_mbps": 5.0, "duration": 30.0, "trace": True, "seed": 4}


def test_intervals_add_up_to_the_goodput_and_do_not_change_the_run():
    sampled = run_dumbbell(**COMMON, warmup=10.0, sample_interval=2.0)
    plain = run_dumbbell(**COMMON, warmup=10.0)
    table = sampled.intervals()
    assert len(table) == 10 * 3  # (30 - 10) / 2 intervals, one row per flow
    assert table["start"].min() == 10.0 and table["end"].max() == 30.0
    per_flow = table.groupby("flow")["packets"].sum().to_numpy()
    np.testing.assert_array_equal(per_flow, sampled.delivered)
    np.testing.assert_array_equal(sampled.delivered, plain.delivered)
    bits = table["packets"] * 1500 * 8.0
    np.testing.assert_allclose(table["goodput_mbps"], bits / 2.0 / 1e6)
    assert table["goodput_mbps"].groupby(table["start"]).sum().max() <= 5.0 * 1.001


def test_an_interval_that_does_not_fit_is_left_out():
    table = run_dumbbell(**COMMON, warmup=10.0, sample_interval=3.0).intervals()
    assert table["end"].max() == pytest.approx(28.0) and len(table) == 6 * 3


def test_without_sampling_there_are_no_intervals():
    assert run_dumbbell(**COMMON).intervals().empty


def test_every_bottleneck_drop_is_logged_with_its_flow():
    run = run_dumbbell(**COMMON, buffer=10, warmup=0.0)
    dropped = run.dropped()
    assert len(dropped) == run.summary()["drops_after_warmup"] > 0
    assert set(dropped["flow"]) <= {0, 1, 2}
    queue = run.queue()
    assert list(queue.columns) == ["time", "flow", "waiting", "dropped"]
    assert np.bincount(queue["flow"], minlength=3).sum() == run.packets


@pytest.mark.parametrize("interval", [0.0, -1.0, 25.0])
def test_bad_sample_interval_is_named(interval):
    with pytest.raises(ValueError, match="sample_interval"):
        run_dumbbell(**COMMON, warmup=10.0, sample_interval=interval)
