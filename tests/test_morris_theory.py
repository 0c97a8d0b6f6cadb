"""Morris's closed forms (tcplab.theory.morris) and the chapter's measures on hand-made logs.

The theory's expectations are the paper's own numbers (Sections 3, 4, 7 and 8) and its
lemmas; the measures' expectations are computed by hand from small logs written here.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from tcplab.chapters.morris import analysis
from tcplab.theory import morris


def test_the_storage_numbers_of_sections_3_and_7() -> None:
    # "A 10 megabit link can forward 2170 576-byte packets per second"
    assert morris.packet_rate(10.0, 576) == pytest.approx(2170.14, abs=0.01)
    # "A sender must keep a window of 217 packets in flight"
    assert morris.link_storage(10.0, 0.1, 576) == pytest.approx(217.0, abs=0.02)
    # "The storage in the simulated network totals 434 packets"
    assert morris.network_storage(217) == pytest.approx(434.0, abs=0.02)
    # "a TCP must send at least a packet of 576 bytes every 0.2 seconds, or 23,040 bits per
    # second. This is one 434th of the bottleneck capacity."
    assert morris.one_packet_rate_bps(0.2, 576) == pytest.approx(23_040.0)
    assert 10e6 / morris.one_packet_rate_bps(0.2, 576) == pytest.approx(434.0, rel=0.001)


def test_fast_retransmit_thresholds() -> None:
    # Section 7.2: N much less than the total buffering (434) divided by four
    assert morris.fast_retransmit_flows(434.0) == pytest.approx(108.5)
    # Fig. 10: 500 flows need 2000 packets of storage for windows of four; 217 are on links
    assert morris.fast_retransmit_buffer(500) == pytest.approx(2000 - 217.0, abs=0.02)


def test_section_4_estimate_for_30_flows() -> None:
    """Queue 81, windows 298/30 = 9.93 sawing between 6.62 and 13.24, 13.24 round trips of
    0.1 + 81/2170.14 s per cycle, 30 drops per cycle: by hand 0.0076 (the paper rounds the
    windows to 7 and 13 and the cycle to 12 round trips and gets 0.8%)."""
    rate = 10e6 / 4608.0  # packets per second
    rtt = 0.1 + 81.0 / rate
    cycle = (2.0 / 3.0 * (0.1 * rate + 81.0) / 30.0) / 0.5 * rtt
    by_hand = 30.0 / (cycle * rate)
    assert morris.sawtooth_loss(30) == pytest.approx(by_hand, rel=1e-12)
    assert by_hand == pytest.approx(0.0076, abs=5e-5)
    paper_rounding = 30.0 / (12 * 0.137 * 2170.0)  # "every 12 x 0.137 or 1.7 seconds"
    assert paper_rounding == pytest.approx(0.008, abs=5e-4)
    assert morris.sawtooth_loss(30) == pytest.approx(paper_rounding, rel=0.1)


def test_sawtooth_loss_grows_as_n_squared() -> None:
    n = np.array([5.0, 10.0, 20.0, 40.0])
    loss = morris.sawtooth_loss(n)
    assert loss[1:] / loss[:-1] == pytest.approx([4.0, 4.0, 4.0])


def test_backoff_lemma() -> None:
    """Lemma 3: n_i = (2p)^i n_0; TCP's 64 s ceiling makes the last stage absorbing."""
    got = morris.backoff_occupancy(100.0, 0.25, stages=4, cap=False)
    assert got == pytest.approx([100.0, 50.0, 25.0, 12.5])
    capped = morris.backoff_occupancy(100.0, 0.25, stages=4)
    assert capped[-1] == pytest.approx(12.5 / 0.75)
    assert morris.backoff_occupancy(10.0, 0.2, stages=3, factor=4.0, cap=False) == pytest.approx(
        [10.0, 8.0, 6.4]
    )


def test_lemma_4_diverges_at_one_half() -> None:
    assert morris.timeout_population(0.25, stages=None) == pytest.approx(2.0)
    assert morris.timeout_population(0.5, stages=None) == math.inf
    assert morris.timeout_population(0.3, stages=None, factor=4.0) == math.inf
    # with the ceiling the sum is finite at any p < 1
    assert math.isfinite(morris.timeout_population(0.6, stages=7))
    assert morris.timeout_population(0.25, stages=3) == pytest.approx(1 + 0.5 + 0.25 / 0.75)
    assert morris.lemma_bound() == 0.5 and morris.lemma_bound(4.0) == 0.25


def test_theory_checks_its_arguments() -> None:
    with pytest.raises(ValueError, match="p=1"):
        morris.backoff_occupancy(1.0, 1.0)
    with pytest.raises(ValueError, match="flows"):
        morris.sawtooth_loss(0)
    with pytest.raises(ValueError, match="factor"):
        morris.lemma_bound(1.0)


# -- measures on hand-made logs ---------------------------------------------------------------
def test_stage_occupancy_counts_each_wait_for_its_overlap() -> None:
    """Time-outs fired at 5 s (waited 1 s, stage 0), 8 s (2 s, stage 1) and 12 s (4 s,
    stage 2) over the window [4, 10]: stage 0 holds a flow 1 s of 6, stage 1 2 s, stage 2
    (from 8 to 12) 2 s."""
    got = analysis.stage_occupancy([5.0, 8.0, 12.0], [1.0, 2.0, 4.0], [0, 1, 2], 4.0, 10.0, 4)
    assert got == pytest.approx([1 / 6, 2 / 6, 2 / 6, 0.0])
    # stages beyond the last count in it
    assert analysis.stage_occupancy([5.0], [1.0], [9], 4.0, 10.0, 3)[-1] == pytest.approx(1 / 6)
    # waits wholly before or after the window add nothing (no negative overlaps)
    outside = analysis.stage_occupancy([2.0, 20.0], [1.0, 4.0], [0, 0], 4.0, 10.0, 2)
    assert outside.tolist() == [0.0, 0.0]
    with pytest.raises(ValueError, match="stop"):
        analysis.stage_occupancy([], [], [], 5.0, 5.0)


def test_stage_loss_reads_each_flows_next_timeout() -> None:
    """Flow 0: stage 0, then stage 1 without progress (its retransmission was lost), then
    stage 2 after progress (it resumed, then lost again: not a lost retransmission).
    Flow 1: stage 0 and nothing after. Stage 0: 1 lost of 2; stage 1: 0 of 1."""
    shares, counts = analysis.stage_loss(
        flow=[1, 0, 0, 0], fired=[3.0, 1.0, 2.0, 6.0], stage=[0, 0, 1, 2],
        progress=[True, True, False, True], stop=10.0, stages=3,
    )  # fmt: skip
    assert counts.tolist() == [2, 1, 1]
    assert shares[:2] == pytest.approx([0.5, 0.0])
    _, late = analysis.stage_loss([0, 0], [1.0, 2.0], [0, 1], [True, False], stop=1.5, stages=3)
    assert late.tolist() == [1, 0, 0]  # time-outs after stop are not counted


def test_episodes_and_their_statistics() -> None:
    """Drops at 0, 0.05, 0.1 (flows 1, 2, 1) and 1.0, 1.02 (flows 3, 3), gap 0.2: two
    episodes, of 3 and 2 drops, 2 and 1 flows; drops per (episode, flow): 5 / 3."""
    time, flow = [0.0, 0.05, 0.1, 1.0, 1.02], [1, 2, 1, 3, 3]
    assert analysis.episodes(time, 0.2).tolist() == [0, 0, 0, 1, 1]
    stats = analysis.episode_stats(time, flow, 0.2, span=10.0)
    assert stats["episodes"] == 2 and stats["episodes_per_s"] == pytest.approx(0.2)
    assert stats["drops_per_episode"] == pytest.approx(2.5)
    assert stats["flows_per_episode"] == pytest.approx(1.5)
    assert stats["drops_per_flow_episode"] == pytest.approx(5 / 3)
    assert analysis.episode_stats([], [], 0.2, 10.0)["episodes"] == 0
    with pytest.raises(ValueError, match="sorted"):
        analysis.episodes([1.0, 0.5], 0.2)


def test_per_second_measures() -> None:
    unique = np.array([[0, 0], [0, 5], [10, 5], [10, 7], [30, 9]])  # ticks 0..4, two flows
    ticks = np.arange(5.0)
    packets = analysis.per_second(unique, ticks, 1.0)
    assert packets.tolist() == [[10, 0], [0, 2], [20, 2]]
    share = analysis.shares(packets, fair_pps=10.0)
    assert analysis.zero_fraction(packets) == pytest.approx(2 / 6)
    assert analysis.under_fraction(share, 0.05) == pytest.approx(2 / 6)
    assert analysis.under_fraction(share, 0.25) == pytest.approx(4 / 6)
    hist = analysis.share_histogram(share)
    assert hist.sum() == pytest.approx(1.0)
    assert hist[0] == pytest.approx(4 / 6)  # [0, 0.25): two zeros and two of 0.2
    assert hist[4] == pytest.approx(1 / 6)  # [1, 1.25): one of 1.0
    assert hist[-1] == pytest.approx(0.0) and hist[8] == pytest.approx(1 / 6)  # share 2.0


def test_loglog_slope_and_its_interval() -> None:
    x = np.array([5.0, 10.0, 20.0, 40.0])
    slope, half, n = analysis.loglog_slope(x, 3.0 * x**2)
    assert slope == pytest.approx(2.0) and half == pytest.approx(0.0, abs=1e-9) and n == 4
    # log-normal noise of sd 0.1: the 95% interval covers the true slope 2 in about 95% of
    # 400 samples (binomial: 380 expected, sd 4.4; fewer than 360 is a 1-in-10^5 false alarm)
    rng = np.random.default_rng(11)
    xs = np.repeat(x, 3)
    covered = 0
    for _ in range(400):
        s, h, _ = analysis.loglog_slope(xs, xs**2 * np.exp(rng.normal(0.0, 0.1, xs.size)))
        covered += abs(s - 2.0) <= h
    assert covered >= 360
    with pytest.raises(ValueError, match="3 points"):
        analysis.loglog_slope([1.0, 2.0], [1.0, 4.0])


def test_the_sawtooth_fits_under_the_maximum_window_from_four_flows() -> None:
    """By hand: W = (217.01 + 81) / N peaks at 4W/3, under 113 packets (64 KB / 576 B) from
    N = 4 x 298.01 / 339 = 3.516 on."""
    assert morris.sawtooth_min_flows() == pytest.approx(4 * 298.014 / (3 * 113), abs=1e-3)
    assert morris.sawtooth_min_flows(max_window=226) == pytest.approx(3.516 / 2, abs=1e-3)
