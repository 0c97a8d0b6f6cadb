"""The packet model against theory: the one-flow AIMD sawtooth and fair sharing under RED.

One long flow through a one-packet buffer: with pipe P = C * RTT packets and buffer B the
window saws between W/2 and W = P + B, growing one packet per RTT. In the fluid picture the
link is idle part of the time while w < P (rate w / RTT) and full while w > P (where the RTT
stretches to w / C), which gives the utilisation ``sawtooth_utilisation`` below: exactly 3/4
for B = 0. The packet model differs from it only by discrete effects of order 1/W (the window
overshoots by about one packet before the loss is seen, fast recovery stalls for about half
an RTT), about 2% at W = 52, hence the tolerance.
"""

from __future__ import annotations

import pytest

from tcplab.packet import jain_index, run_dumbbell
from tcplab.theory import loss


def sawtooth_utilisation(pipe: float, buffer: float) -> float:
    """Fluid-model utilisation of one AIMD(1, 1/2) flow sawing between W/2 and W = P + B."""
    top = pipe + buffer
    low = top / 2
    below_time = pipe - low  # RTTs spent below the pipe (one packet per RTT)
    below_work = (pipe**2 - low**2) / (2 * pipe)  # in units of C * RTT
    above_time = (top**2 - pipe**2) / (2 * pipe)  # RTT stretches to w / C above the pipe
    return (below_work + above_time) / (below_time + above_time)


def test_sawtooth_formula():
    assert sawtooth_utilisation(50, 0) == pytest.approx(0.75)
    assert sawtooth_utilisation(50, 50) == pytest.approx(1.0)


def test_one_long_flow_with_a_tiny_buffer_uses_three_quarters_of_the_link():
    rate, delay, size = 4e6, 0.05, 1000
    pipe = rate * (2 * delay + size * 8 / rate) / (size * 8)  # 51 packets
    result = run_dumbbell(
        1, buffer=1, rate_mbps=4, delay_ms=50, access_mbps=1000, packet_bytes=size,
        duration=300, warmup=30, trace=False,
    )  # fmt: skip
    s = result.summary()
    assert s["timeouts"] == 0 and s["fast_retransmits"] > 50  # many sawtooth cycles
    predicted = sawtooth_utilisation(pipe, 1)
    assert predicted == pytest.approx(0.764, abs=1e-3)
    assert s["utilisation"] == pytest.approx(predicted, abs=0.02)
    assert s["utilisation"] == pytest.approx(0.75, abs=0.03)


def test_red_shares_a_link_fairly_among_identical_flows():
    s = run_dumbbell(
        5, queue="red", buffer=50, rate_mbps=10, delay_ms=25, duration=80, warmup=20, seed=1,
        trace=False,
    ).summary()  # fmt: skip
    assert s["jain_index"] > 0.98
    assert s["utilisation"] > 0.95
    assert 0.0 < s["drop_rate"] < 0.05


def test_jain_index():
    assert jain_index([1, 1, 1, 1]) == pytest.approx(1.0)
    assert jain_index([1, 0, 0, 0]) == pytest.approx(0.25)


def test_weighted_aimd_shares_in_proportion_to_the_increase_rate():
    # AIMD(a, b) with the same b and RTT: the long-run rates scale as sqrt(a) (x ~ sqrt(a/p))
    # under random early drops; a 4:1 ratio in a gives about 2:1 in rate.
    s = run_dumbbell(
        2, queue="red", buffer=60, rate_mbps=10, delay_ms=25, duration=150, warmup=30,
        tcp="aimd", a=[4.0, 1.0], trace=False,
    ).summary()  # fmt: skip
    ratio = s["per_flow_mbps"][0] / s["per_flow_mbps"][1]
    assert 1.5 < ratio < 3.0


def test_access_overhead_breaks_droptail_phase_effects_in_morris_setting():
    # Morris (1997): 30 Tahoe flows, 576 B packets, 217 buffers, 0-50 ms access delays, 0.5 s
    # timer. Fully deterministic DropTail can lock one flow into a phase where it is never
    # dropped; ns-2-style random overhead (about one bottleneck packet time) removes that.
    s = run_dumbbell(
        30, buffer=217, rate_mbps=10, delay_ms=25, access_mbps=10 * 10 / 30,
        access_jitter_ms=50, packet_bytes=576, tcp="tahoe", granularity=0.5, min_rto=1.0,
        max_window=113, duration=100, warmup=20, overhead_ms=0.5, trace=False,
    ).summary()  # fmt: skip
    fair = 10 / 30
    assert s["jain_index"] > 0.9
    assert max(s["per_flow_mbps"]) < 2 * fair
    assert s["utilisation"] > 0.95 and s["drop_rate"] > 0


def test_one_flow_under_random_loss_follows_the_square_root_law():
    # Mathis et al. (1997): sqrt(3/2) / (RTT sqrt(p)) packets/s. Fast links and a large buffer
    # so only the random loss limits the window; RTT = 100 ms plus two 0.08 ms transmissions.
    p, size, rate = 0.005, 1000, 100.0
    rtt = 0.1 + 2 * size * 8 / (rate * 1e6)
    result = run_dumbbell(
        1, buffer=1000, rate_mbps=rate, access_mbps=rate, delay_ms=50, packet_bytes=size,
        duration=600, warmup=50, loss_rate=p, start_spread=0.0, trace=False, seed=2,
    )  # fmt: skip
    s = result.summary()
    assert s["drop_rate"] == pytest.approx(p, rel=0.1)
    pps = result.delivered[0] / (600 - 50)
    assert pps == pytest.approx(loss.mathis_rate(p, rtt), rel=0.15)
    assert pps == pytest.approx(loss.padhye_rate(p, rtt, 0.2), rel=0.15)
    # below p = 0.01 the rate falls as 1/sqrt(p): a quarter of the loss, about twice the rate
    less = run_dumbbell(
        1, buffer=1000, rate_mbps=rate, access_mbps=rate, delay_ms=50, packet_bytes=size,
        duration=600, warmup=50, loss_rate=p / 4, start_spread=0.0, trace=False, seed=2,
    )  # fmt: skip
    assert less.delivered[0] / result.delivered[0] == pytest.approx(2.0, rel=0.15)


def test_zero_loss_rate_changes_nothing():
    runs = [
        run_dumbbell(3, buffer=10, duration=20, warmup=5, trace=False, seed=4, **extra).summary()
        for extra in ({}, {"loss_rate": 0.0})
    ]
    assert runs[0]["per_flow_mbps"] == runs[1]["per_flow_mbps"]
