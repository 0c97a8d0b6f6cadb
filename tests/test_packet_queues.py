"""Queue disciplines in isolation: DropTail, RED (average, thresholds, wait, gentle) and the
threshold-dropper, driven with hand-made arrival sequences; the random-loss wrapper."""

from __future__ import annotations

import numpy as np
import pytest

from tcplab.packet import (
    RED,
    DropTail,
    Dumbbell,
    TcpConfig,
    ThresholdDropper,
    make_queue,
    run_dumbbell,
)
from tcplab.packet.queues import RandomLoss

from stat_tools import binomial_region, normal_quantile, proportion_bound

BUSY = -1.0  # idle_since value meaning "the link is transmitting"


def test_droptail_admits_while_there_is_room():
    q = DropTail(3)
    assert [q.admit(n, 0.0, BUSY) for n in range(5)] == [True, True, True, False, False]


def test_red_defaults_are_fractions_of_the_buffer():
    q = RED(100)
    assert (q.min_th, q.max_th, q.max_p) == (60.0, 80.0, 0.1)


def test_red_never_drops_below_min_threshold_and_always_above_max():
    q = RED(100, w_q=1.0)  # average == instantaneous queue
    assert all(q.admit(n, 0.0, BUSY) for n in range(60))
    assert not any(q.admit(n, 0.0, BUSY) for n in range(80, 100))
    assert q.forced_drops == 20 and q.early_drops == 0


def test_red_drop_probability_between_thresholds():
    # at avg = 70 (halfway) p_b = max_p / 2 = 0.05, N = 1/p_b = 20. Without `wait`, counting the
    # arrival being decided (ns-2, the RED paper's pseudo-code; tests/test_red.py), the gaps
    # between drops are uniform on 1..N-1: mean N/2, variance ((N-1)^2 - 1)/12. The number of
    # drops in n arrivals is a renewal count, about normal with mean n/mu and variance
    # n sigma^2 / mu^3; its 99.9% band (z = 3.29) is the tolerance.
    n, big_n = 20_000, 20
    mu, var = big_n / 2, ((big_n - 1) ** 2 - 1) / 12
    q = RED(100, w_q=1.0, wait=False, rng=np.random.default_rng(1))
    decisions = [q.admit(70, 0.0, BUSY) for _ in range(n)]
    drops = n - sum(decisions)
    assert abs(drops - n / mu) <= 3.29 * np.sqrt(n * var / mu**3)
    # with `wait` no drop comes sooner than 1/p_b = 20 packets after the previous one
    q = RED(100, w_q=1.0, wait=True, rng=np.random.default_rng(1))
    drops = np.flatnonzero([not q.admit(70, 0.0, BUSY) for _ in range(20_000)])
    assert np.diff(drops).min() >= 20


def test_red_gentle_ramps_instead_of_forcing():
    harsh = RED(200, min_th=20, max_th=40, w_q=1.0)
    gentle = RED(200, min_th=20, max_th=40, w_q=1.0, gentle=True, rng=np.random.default_rng(2))
    assert not harsh.admit(50, 0.0, BUSY)
    admitted = [gentle.admit(50, 0.0, BUSY) for _ in range(1000)]
    assert 0 < sum(admitted) < 1000
    assert not gentle.admit(80, 0.0, BUSY)  # beyond 2 max_th: forced


def test_red_average_decays_over_idle_time():
    q = RED(100, w_q=0.5, mean_pkt_time=0.01)
    for _ in range(20):
        q.admit(50, 0.0, BUSY)
    assert q.avg == pytest.approx(50, rel=1e-3)
    q.admit(0, 1.0, 0.9)  # idle for 0.1 s = 10 packet times
    assert q.avg == pytest.approx(50 * 0.5**10, rel=1e-2)


def test_threshold_dropper_drops_one_then_holds():
    q = ThresholdDropper(1000, threshold=3, hold=0.5)
    assert q.admit(2, 0.0, BUSY)
    assert not q.admit(3, 0.1, BUSY)  # first arrival above the threshold
    assert q.admit(10, 0.2, BUSY) and q.admit(10, 0.59, BUSY)  # held: nobody else dropped
    assert not q.admit(4, 0.7, BUSY)
    assert not q.admit(1000, 0.8, BUSY)  # the buffer is still a hard cap


def test_largest_rate_dropper_signals_the_fastest_flow_at_its_next_arrival():
    rates = [1.0, 5.0, 3.0]
    q = ThresholdDropper(1000, threshold=3, hold=0.5, select="largest", rates=lambda: rates)
    assert q.admit(3, 0.0, BUSY, flow=0)  # the event starts; flow 1 is selected, not flow 0
    assert q.selected == [1]
    assert q.admit(9, 0.1, BUSY, flow=2)  # others pass during the hold
    assert not q.admit(9, 0.2, BUSY, flow=1)  # the selected flow's next arrival is dropped
    assert q.admit(9, 0.3, BUSY, flow=1)  # only one of its packets
    assert q.admit(9, 0.45, BUSY, flow=0)
    rates[:] = [7.0, 1.0, 1.0]
    assert not q.admit(4, 0.6, BUSY, flow=0)  # next event: flow 0 is now the largest
    assert q.selected == [1, 0] and q.events == 2 and q.lapsed == 0


def test_selected_flow_that_sends_nothing_during_the_hold_lapses():
    q = ThresholdDropper(1000, threshold=3, hold=0.5, select="largest", rates=lambda: [0.0, 2.0])
    assert q.admit(5, 0.0, BUSY, flow=0)
    assert q.admit(5, 0.4, BUSY, flow=0)
    assert not q.admit(5, 0.6, BUSY, flow=1)  # hold over: a new event, flow 1 arrives first
    assert q.lapsed == 1 and q.events == 2


def test_rate_independent_dropper_picks_uniformly_among_flows():
    q = ThresholdDropper(
        10**6, threshold=1, hold=0.0, select="random", rates=lambda: [9.0, 1.0, 1.0, 1.0],
        rng=np.random.default_rng(3),
    )  # fmt: skip
    for k in range(8000):
        q.admit(5, float(k), BUSY, flow=-1)
    counts = np.bincount(q.selected, minlength=4)
    # each count is Binomial(8000, 1/4) (sd 39): its band at 0.1% / 4 false alarms is 148,
    # so a selection probability 7.5% off (150 selections) would fail
    band = proportion_bound(8000, 1 / 4, 1e-3 / 4) * 8000
    assert band < 150 and np.all(np.abs(counts - 2000) <= band), counts


def test_rate_independent_dropper_only_picks_flows_that_cross_the_link():
    rates = [-np.inf, 1.0, -np.inf, 2.0]  # flows 0 and 2 use other links
    q = ThresholdDropper(10**6, threshold=1, hold=0.0, select="random", rates=lambda: rates)
    for k in range(400):
        q.admit(5, float(k), BUSY, flow=-1)
    assert set(q.selected) == {1, 3}


def test_largest_rate_ties_are_broken_at_random():
    q = ThresholdDropper(
        10**6, threshold=1, hold=0.0, select="largest", rates=lambda: [2.0, 2.0, 1.0],
        rng=np.random.default_rng(5),
    )  # fmt: skip
    for k in range(2000):
        q.admit(5, float(k), BUSY, flow=-1)
    counts = np.bincount(q.selected, minlength=3)
    low, high = binomial_region(2000, 1 / 2, 1e-3)  # a fair coin, 0.1% false alarms
    assert counts[2] == 0 and low <= counts[0] <= high, counts


def test_dropper_without_rates_says_what_it_needs():
    q = ThresholdDropper(100, threshold=2, select="random")
    with pytest.raises(ValueError, match="select='random'.*rates"):
        q.admit(5, 0.0, BUSY, flow=0)
    with pytest.raises(ValueError, match="select='fastest'"):
        ThresholdDropper(100, select="fastest")


def test_largest_rate_signals_the_aggressive_flow_in_a_dumbbell():
    """Flow 0 adds 4 packets per RTT, flows 1 and 2 one; equal RTTs, 200 s.

    Rate-independent: the dropper draws the flow uniformly, so its selections are
    Multinomial(K, 1/3) whatever the flows do: each count within its binomial band (0.1%
    false alarms for the three). Largest-rate: over a long run each flow's additive increase
    is undone by its halvings, n_i * E[w_i at a signal] / 2 = a_i * (RTTs elapsed), so
    n_0 / n_i = 4 E[w_i | signal] / E[w_0 | signal]; a largest-rate signal hits the largest
    window, which is between S / 3 and S (S the windows' sum, about pipe + threshold at every
    event), so n_0 / n_i >= 4/3 (up to the few halvings of the start-up and time-outs)."""
    counts = {}
    for select in ("largest", "random"):
        dropper = ThresholdDropper(
            200, threshold=3, hold=0.15, select=select, rng=np.random.default_rng(0)
        )
        configs = [TcpConfig(a=a, packet_bytes=1000) for a in (4.0, 1.0, 1.0)]
        net = Dumbbell(configs, dropper, 5e6, 0.03, 100e6, [0.0] * 3, trace=False)
        net.start([0.0, 0.3, 0.6])
        net.env.run(until=200.0)
        counts[select] = np.bincount(dropper.selected, minlength=3)
        halvings = np.array([s.fast_retransmits + s.timeouts for s in net.senders])
        if select == "largest":
            assert halvings[0] >= 4 / 3 * halvings[1:].max() > 100, halvings
    selected = counts["random"]
    events = selected.sum()
    band = proportion_bound(events, 1 / 3, 1e-3 / 3) * events
    assert np.all(np.abs(selected - events / 3) <= band), (selected, band)
    assert band < 0.15 * events / 3  # (the unit test above, with 8000 draws, resolves 7.5%)


def test_make_queue_by_name():
    assert isinstance(make_queue("droptail", 5), DropTail)
    assert isinstance(make_queue("red", 5, np.random.default_rng(0), max_p=0.2), RED)
    assert isinstance(make_queue("threshold", 50, threshold=4), ThresholdDropper)


def test_random_loss_drops_a_fraction_p_independently_of_the_queue():
    inner = DropTail(5)
    q = RandomLoss(inner, 0.1, np.random.default_rng(3))
    assert q.buffer == 5
    admitted = np.array([q.admit(0, 0.0, BUSY) for _ in range(50_000)])
    # three checks, each at 0.1% / 3 false alarms (normal bands; thousands of events each)
    assert abs(1 - admitted.mean() - 0.1) <= proportion_bound(50_000, 0.1, 1e-3 / 3)
    assert q.random_drops == int((~admitted).sum())
    # the gaps between drops are geometric: mean 1/p = 10, sd sqrt(1 - p)/p, P(gap = 1) = p
    gaps = np.diff(np.flatnonzero(~admitted))
    z = normal_quantile(1 - 1e-3 / 6)
    assert abs(gaps.mean() - 10.0) <= z * np.sqrt(0.9) / 0.1 / np.sqrt(gaps.size)
    assert abs(np.mean(gaps == 1) - 0.1) <= proportion_bound(gaps.size, 0.1, 1e-3 / 3)
    assert not any(q.admit(5, 0.0, BUSY) for _ in range(100))  # a full buffer still drops
    assert all(RandomLoss(DropTail(3), 0.0).admit(n, 0.0, BUSY) for n in range(3))


def test_random_loss_is_seeded_and_validated():
    a = RandomLoss(DropTail(5), 0.3, np.random.default_rng(7))
    b = RandomLoss(DropTail(5), 0.3, np.random.default_rng(7))
    assert [a.admit(0, 0.0, BUSY) for _ in range(200)] == [
        b.admit(0, 0.0, BUSY) for _ in range(200)
    ]
    for bad in (1.0, -0.1, 2.0):
        with pytest.raises(
            ValueError, match=rf"loss_rate={bad!r} is outside the allowed range \[0, 1\)"
        ):
            RandomLoss(DropTail(5), bad)
    with pytest.raises(ValueError, match="loss_rate=1"):
        run_dumbbell(1, loss_rate=1.0, duration=1.0, warmup=0.0)


def test_summary_reports_the_disciplines_counters_and_they_add_up():
    common = {"rate_mbps": 5.0, "duration": 60.0, "warmup": 0.0, "trace": False}
    red = run_dumbbell(10, queue="red", buffer=60, **common).summary()
    assert red["red_early_drops"] > 0
    assert red["red_early_drops"] + red["red_forced_drops"] == red["drops_after_warmup"]
    held = run_dumbbell(
        4, queue="threshold", buffer=10_000, **common,
        queue_options={"threshold": 3, "hold": 0.2, "select": "largest"},
    ).summary()  # fmt: skip
    # one drop per congestion event, except the events whose selected flow sent nothing
    assert held["dropper_events"] - held["dropper_lapsed"] == held["drops_after_warmup"] > 0
    assert "red_early_drops" not in run_dumbbell(2, **common).summary()
