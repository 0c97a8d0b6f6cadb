"""Closed forms of Honda's BMC (tcplab.theory.bmc), checked against the thesis's own printed
values, hand computations and, for the random-loss constant, an exact simulation of the AIMD
process it describes."""

from __future__ import annotations

import math

import numpy as np
import pytest

from tcplab.theory import bmc

from stat_tools import t_half_width


def test_eq_3_3_is_eq_3_2_for_tcp() -> None:
    # eq. (3.3): T = sqrt(3 / (2 p)) / R, by hand at R = 0.1 s, p = 0.01: 122.47 packets/s
    assert bmc.tcp_throughput(0.1, 0.01) == pytest.approx(math.sqrt(150.0) * 10.0)
    assert bmc.aimd_throughput(1.0, 0.5, 0.1, 0.01) == bmc.tcp_throughput(0.1, 0.01)


@pytest.mark.parametrize(
    ("a", "b", "weight"),
    [
        (1.0, 0.5, 1.0),  # TCP
        (0.5, 0.8, 0.5),  # Sec. 3.1: "AIMD(1/2, 4/5) receives half the throughput"
        (0.75, 8 / 13, 0.75),  # "AIMD(3/4, 8/13) receives 3/4"
        (16 / 25, 0.5, 0.8),  # Fig. 5.2's AIMD(16/25, 1/2), weight 4/5
        (4 / 9, 0.5, 2 / 3),  # Sec. 3.1's example: D = 2/3 follows AIMD(4/9, 1/2)
        (1 / 9, 0.5, 1 / 3),
    ],
)
def test_every_pair_the_thesis_prints_has_its_weight(a: float, b: float, weight: float) -> None:
    """The pairs are in the thesis's convention (cut to (1 - b) W): their throughput over
    TCP's by eq. (3.2) is the weight it names, and eq. (3.6) gives a back from D and b."""
    assert bmc.weight_of(a, b) == pytest.approx(weight)
    assert bmc.increase_for(weight, b) == pytest.approx(a)
    ratio = bmc.aimd_throughput(a, b, 0.05, 0.002) / bmc.tcp_throughput(0.05, 0.002)
    assert ratio == pytest.approx(weight)


def test_the_pairs_are_not_in_the_packet_models_convention() -> None:
    # read as "multiply by b" (beta = b), AIMD(1/2, 4/5) would be the weight of (1/2, 1/5)
    assert bmc.weight_of(0.5, 1 - 0.8) != pytest.approx(0.5, abs=0.1)


def test_random_loss_factor_is_mathis_constant_for_tcp() -> None:
    """Ott, Kemperman and Mathis (1996), and Mathis et al. (1997)'s measurement: 1.31."""
    assert bmc.random_loss_factor(0.5) == pytest.approx(1.31, abs=0.005)
    # by hand: sqrt(2/pi) * (3/4)/(1/2) * (15/16)/(7/8) * (63/64)/(31/32) * ... = 1.3098
    assert bmc.random_loss_factor(0.5) == pytest.approx(1.30983, abs=1e-5)


def test_weights_under_random_loss() -> None:
    # b = 1/2 for both: the ratio is sqrt(a) = D exactly, as under eq. (3.2)
    assert bmc.random_loss_weight(0.25, 0.5) == pytest.approx(0.5, rel=1e-12)
    # the thesis's other pairs: by hand, 0.5204 and 0.7622
    assert bmc.random_loss_weight(0.5, 0.8) == pytest.approx(0.5204, abs=1e-4)
    assert bmc.random_loss_weight(0.75, 8 / 13) == pytest.approx(0.7622, abs=1e-4)


def _aimd_mean_window(a: float, b: float, p: float, losses: int, seed: int) -> float:
    """Exact simulation of the window process: W grows at rate a (per RTT, R = 1), and is
    cut to (1 - b) W at the jumps of a Poisson process of rate p W (each packet lost with
    probability p). Between jumps the integrated rate is p (W0 t + a t^2 / 2), so the time
    to the next loss solves a quadratic exactly. Returns the time-average of W."""
    rng = np.random.default_rng(seed)
    w, area, span = 1.0 / math.sqrt(p), 0.0, 0.0
    for e in rng.exponential(size=losses):
        t = (-w + math.sqrt(w * w + 2.0 * a * e / p)) / a
        area += w * t + a * t * t / 2.0
        span += t
        w = (1.0 - b) * (w + a * t)
    return area / span


@pytest.mark.parametrize(("a", "b"), [(1.0, 0.5), (0.5, 0.8), (0.04, 0.5), (2.0, 0.2)])
def test_random_loss_factor_against_an_exact_simulation(a: float, b: float) -> None:
    """Ten independent runs of 20 000 losses each: the closed form lies in the 99.9%
    confidence interval of their mean (one false alarm in a thousand per case)."""
    p = 0.001
    means = [_aimd_mean_window(a, b, p, 20_000, seed) for seed in range(10)]
    mean, half = t_half_width(means, 0.001)
    expected = bmc.random_loss_factor(b) * math.sqrt(a / p)
    assert abs(mean - expected) <= half, (mean, half, expected)


def test_eq_3_8_examples_printed_in_the_thesis() -> None:
    # "when D = 1/2 and K = 1, D_new is 1/4. When D = 4/5 and K = 1, D_new is 16/25"
    assert bmc.reduced_weight(0.5, 1.0) == pytest.approx(0.25)
    assert bmc.reduced_weight(0.8, 1.0) == pytest.approx(16 / 25)


def test_eq_3_8_makes_weights_negative_inside_the_thesiss_range_of_k() -> None:
    # 0 < K < 4 per the thesis; D = 1/4, K = 2 by hand: 1/4 - (1/4 - 1/16) 2 = -1/8
    assert bmc.reduced_weight(0.25, 2.0) == pytest.approx(-0.125)
    assert bmc.k_limit(0.25) == pytest.approx(4 / 3)
    # every K <= 1 keeps every weight in (0, 1): D_new >= D^2
    d = np.linspace(0.001, 0.999, 999)
    for k in (0.1, 0.5, 1.0):
        assert np.all(np.asarray(bmc.reduced_weight(d, k)) >= d * d - 1e-15)


def test_fig_3_3_reduction_peaks_at_one_half() -> None:
    d = np.linspace(0.01, 0.99, 99)
    for k in (0.5, 1.0, 2.0):
        red = np.asarray(bmc.weight_reduction(d, k))
        assert d[np.argmax(red)] == pytest.approx(0.5)
        assert red.max() == pytest.approx(k / 4)


def test_proportion_step_moves_from_smallest_to_largest_twr() -> None:
    new = bmc.proportion_step([0.2, 0.3, 0.5], [5.0, 9.0, 7.0], 1.0)
    # the first loses (0.2 - 0.04) = 0.16, the second gains it
    assert new == pytest.approx([0.04, 0.46, 0.5])
    assert new.sum() == pytest.approx(1.0)


def test_proportion_step_with_equal_twr_moves_nothing() -> None:
    assert list(bmc.proportion_step([0.25, 0.75], [15.0, 15.0 * (1 + 1e-12)], 0.5)) == [
        0.25,
        0.75,
    ]


def test_sec_4_1_worked_example_twr() -> None:
    """Fig. 4.1 with D1 = 1/4, D2 = 3/4, R = 1: s2 gets 8 D1 / (1 + D1) and 10 D2 / (1 + D2),
    Twr 6.4 and 5.71 as printed, 5.89 Mb/s in all; with D = 1/2 each the thesis prints Twr
    3/4 and 3/5, but the same arithmetic gives 16/3 and 20/3."""
    t = [8 * 0.25 / 1.25, 10 * 0.75 / 1.75]
    assert bmc.twr(t, [0.25, 0.75], 1.0) == pytest.approx([6.4, 5.714], abs=1e-3)
    assert sum(t) == pytest.approx(5.886, abs=1e-3)
    half = bmc.twr([8 / 3, 10 / 3], [0.5, 0.5], 1.0)
    assert half == pytest.approx([16 / 3, 20 / 3])
    assert not np.allclose(half, [3 / 4, 3 / 5])


def test_fixed_points_of_the_worked_examples() -> None:
    assert bmc.pooling_fixed_point((8.0, 10.0)) == pytest.approx(1 / 3)
    low, high = bmc.shared_fixed_interval(30.0, (4.0, 12.0))
    assert (low, high) == pytest.approx((0.2, 4 / 15))
    assert low <= 0.25 <= high  # Fig. 3.2's weights 1/4, 3/4 are inside
    with pytest.raises(ValueError, match="capacities"):
        bmc.pooling_fixed_point((4.0, 10.0))
    with pytest.raises(ValueError, match="spare"):
        bmc.shared_fixed_interval(30.0, (4.0, 5.0))


def test_congestion_epoch() -> None:
    # TCP peaking at 20 packets: 10 RTTs of climb and one for the loss
    assert bmc.congestion_epoch_rtts(20.0, 1.0, 0.5) == 11.0
    # weight 1/5: AIMD(1/25, 1/2) takes 25 times longer
    assert bmc.congestion_epoch_rtts(20.0, 0.04, 0.5) == pytest.approx(251.0)


@pytest.mark.parametrize(
    ("call", "name"),
    [
        (lambda: bmc.aimd_throughput(0.0, 0.5, 0.1, 0.01), "a=0"),
        (lambda: bmc.aimd_throughput(1.0, 1.0, 0.1, 0.01), "b=1"),
        (lambda: bmc.tcp_throughput(0.1, 0.0), "p=0"),
        (lambda: bmc.increase_for(-0.5), "weight=-0.5"),
        (lambda: bmc.proportion_step([0.5, 0.5], [1.0, 2.0], 2.0), "k=2"),
        (lambda: bmc.proportion_step([0.5, 0.5], [1.0, 2.0], 0.0), "k=0"),
        (lambda: bmc.proportion_step([1.0, 0.0], [1.0, 2.0], 0.5), "weights[0]=1"),
    ],
)
def test_bad_input_names_the_parameter(call, name: str) -> None:  # noqa: ANN001
    with pytest.raises(ValueError, match=name.replace("[", r"\[").replace("]", r"\]")):
        call()
