"""The Morris chapter's evidence helpers and what-if pieces, on hand-made inputs.

Every expectation is computed by hand in the comments (Student's t, Little's law, the capped
back-off sum, a queue seen by four arrivals), never from the code under test.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from tcplab.chapters.morris import evidence
from tcplab.chapters.morris.meter import MeteredQueue, QueueMeter
from tcplab.chapters.morris.whatifs import FLOOR_FLOWS, scaled_options
from tcplab.packet.queues import DropTail


def _sweep(points: dict[int, tuple[float, ...]], key: str = "flows") -> pd.DataFrame:
    return pd.DataFrame([{key: k, "y": v} for k, runs in points.items() for v in runs])


def test_a_rise_beyond_noise_is_found_and_a_small_one_is_not() -> None:
    # 3 runs, s = 0.01: half-width 4.303 * 0.01 / sqrt(3) = 0.0248.
    # 1750: [0.175, 0.225] above 1500's [0.075, 0.125]: a rise; 2000: [0.165, 0.215] overlaps
    table = _sweep({1500: (0.09, 0.10, 0.11), 1750: (0.19, 0.20, 0.21),
                    2000: (0.18, 0.19, 0.20)}, "buffer")  # fmt: skip
    assert evidence.rises(table, "y", "buffer") == [1750]
    assert evidence.falls(table, "y", "buffer") == []
    assert evidence.steps(table, "y", "buffer") == [(1, 1750)]


def test_lemma_ratio_uses_the_column_it_is_given() -> None:
    # n1 = 30, n0 = 100: with p = 0.3, 30 / (2 * 0.3 * 100) = 0.5; with q0 = 0.15, 1.0
    table = pd.DataFrame({"flows": [10, 10], "n0": [100.0, 100.0], "n1": [30.0, 30.0],
                          "loss_rate": [0.3, 0.3], "q0": [0.15, 0.15]})  # fmt: skip
    assert evidence.lemma_ratio(table, 10) == pytest.approx(0.5)
    assert evidence.lemma_ratio(table, 10, "q0") == pytest.approx(1.0)
    assert list(evidence.lemma_ratios(table, 10, "q0")) == pytest.approx([1.0, 1.0])
    with pytest.raises(evidence.Missing):
        evidence.lemma_ratio(table, 20)


def test_stage_ratios_apply_little_stage_by_stage() -> None:
    # n0 = 100, q0 = 0.1 -> n1 = 2 * 0.1 * 100 = 20; q1 = 0.25 -> n2 = 2 * 0.25 * 20 = 10
    table = pd.DataFrame({"flows": [5], "n0": [100.0], "n1": [20.0], "n2": [10.0],
                          "q0": [0.1], "q1": [0.25]})  # fmt: skip
    assert list(evidence.stage_ratios(table, 5, 2)) == pytest.approx([1.0, 1.0])


def test_the_capped_sum_is_inverted() -> None:
    # p = 0.6: sum_{i<6} 1.2^i = (1.2^6 - 1) / 0.2 = 9.92992; 1.2^6 / 0.4 = 7.46496; total
    # 17.39488 per flow in stage 0. With n0 = 100 that holds 1739.488 flows.
    held = 100 * ((1.2**6 - 1) / 0.2 + 1.2**6 / 0.4)
    assert held == pytest.approx(1739.488)
    assert evidence.capped_sum_p(held, 100) == pytest.approx(0.6, abs=1e-9)
    with pytest.raises(ValueError, match="held"):
        evidence.capped_sum_p(50, 100)


def test_high_share_counts_bins_from_twice_the_fair_share() -> None:
    # bins of 1/4: h08 is [2, 2.25), so h08 + h09 = 0.3 of the flow-seconds are >= 2
    table = pd.DataFrame({"h00": [0.5], "h07": [0.2], "h08": [0.1], "h09": [0.2]})
    assert float(evidence.high_share(table).iloc[0]) == pytest.approx(0.3)


def test_the_onset_is_the_first_n_above_the_level() -> None:
    table = pd.DataFrame({"flows": [30, 60, 100, 200], "under_5pct": [0.01, 0.03, 0.1, 0.2]})
    assert evidence.onset(table) == 100


def test_the_meter_averages_what_arrivals_find_after_the_warmup() -> None:
    # arrivals at t = 1, 3, 4, 5 finding 9, 2, 4, 6 waiting; warm-up 2 s: (2 + 4 + 6) / 3 = 4;
    # a buffer of 5 refuses the one that finds 6 (and counts it as finding the buffer full)
    meter = QueueMeter(DropTail(5), warmup=2.0)
    admitted = [meter.admit(w, t, 0.0) for t, w in ((1.0, 9), (3.0, 2), (4.0, 4), (5.0, 6))]
    assert admitted == [False, True, True, False]
    assert meter.mean_queue == pytest.approx(4.0)
    assert meter.full == 1 and meter.seen == 3


def test_a_metered_queue_builds_the_same_discipline() -> None:
    setup = MeteredQueue("red", 217, min_th=54.0, max_th=108.0, max_p=0.002, warmup=20.0)
    built = setup.build(np.random.default_rng(0), np.random.default_rng(0), 1e-3)
    assert built is setup.meters[-1] and built.buffer == 217
    assert type(built.inner).__name__ == "RED"
    capped = MeteredQueue("red", 217, forced=False).build(
        np.random.default_rng(0), np.random.default_rng(0), 1e-3
    )
    assert type(capped.inner).__name__ == "CappedRED"
    with pytest.raises(ValueError, match="forced=False"):
        MeteredQueue("droptail", 217, forced=False)


def test_the_fixed_share_keeps_rate_and_buffer_per_flow() -> None:
    # N = 60 is twice 30: 20 Mb/s and 434 packets; N = 10: 10/3 Mb/s and 72 packets
    assert scaled_options(60) == {"rate_mbps": 20.0, "buffer": 434}
    low = scaled_options(10)
    assert low["buffer"] == 72 and math.isclose(low["rate_mbps"], 10.0 / 3.0)
    assert FLOOR_FLOWS == 1500


def test_pooled_buffers_keep_the_common_columns() -> None:
    many = pd.DataFrame({"buffer": [1500], "replica": [0], "under_5pct": [0.1], "only": [1]})
    more = pd.DataFrame({"buffer": [1500], "replica": [2], "under_5pct": [0.2], "mean_queue": [9]})
    pooled = evidence.pooled_buffers(many, more)
    assert list(pooled.columns) == ["buffer", "replica", "under_5pct"]
    assert list(pooled["replica"]) == [0, 2]


def test_the_panel_counts_flows_in_each_stage_second_by_second() -> None:
    # flow A: stage 0 over [1, 2) (fired at 2 after 1 s), then stage 1 over [2, 4);
    # flow B: stage 0 over [1.5, 2.5). At t = 2: B in stage 0, A in stage 1; at t = 3: A only
    from types import SimpleNamespace

    from tcplab.chapters.morris.panel import stage_series
    from tcplab.packet.probes import TIMEOUT

    losses = pd.DataFrame({"kind": [TIMEOUT] * 3, "time": [2.0, 4.0, 2.5],
                           "wait": [1.0, 2.0, 1.0], "stage": [0, 1, 0]})  # fmt: skip
    run = SimpleNamespace(
        losses=losses, setup=SimpleNamespace(length=SimpleNamespace(duration=5.0))
    )
    table = stage_series(run).pivot(index="second", columns="stage", values="flows")  # type: ignore[arg-type]
    assert list(table[0]) == [0, 1, 1, 0, 0, 0]
    assert list(table[1]) == [0, 0, 1, 1, 0, 0]
