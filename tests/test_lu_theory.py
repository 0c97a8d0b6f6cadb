"""Lu et al.'s closed forms (eqs. 1-18 of the full version), checked by hand and by exact data.

Each expectation is a hand computation from the paper's formulas or the defining property of
a fit (it passes through its probes; data made from a known profile gives that profile back).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from tcplab.theory import lu


def test_eq1_and_eq4_by_hand() -> None:
    # eq. 1: MSS / (RTT sqrt(2bp/3)); eq. 4: n c1 times it
    one = 1000 / (0.1 * math.sqrt(2 * 0.01 / 3))
    assert lu.mathis_rate(0.01, 0.1) * 1000 == pytest.approx(one, rel=1e-12)
    assert lu.parallel_throughput(3, 0.01, 0.1, mss=1000) == pytest.approx(3 * one, rel=1e-12)
    assert lu.parallel_throughput(3, 0.01, 0.1, mss=1000, c1=0.5) == pytest.approx(1.5 * one)
    # two packets per ACK (b = 2): sqrt(2) less
    assert lu.parallel_throughput(1, 0.01, 0.1, acked=2) == pytest.approx(one / 1000 / 2**0.5)


def test_eq2_is_padhye_and_tends_to_eq1_for_small_losses() -> None:
    p, rtt, t0 = 1e-6, 0.1, 1.0
    assert lu.padhye_rate(p, rtt, t0) == pytest.approx(lu.mathis_rate(p, rtt), rel=2e-3)
    by_hand = 1 / (rtt * math.sqrt(2 * 0.05 / 3) + t0 * 3 * math.sqrt(3 * 0.05 / 8) * 0.05 * 1.08)
    assert lu.padhye_rate(0.05, rtt, t0) == pytest.approx(by_hand, rel=1e-12)


def test_eq3_hackers_bound_by_hand() -> None:
    assert lu.hacker_bound([0.01, 0.04], rtt=0.1) == pytest.approx((10 + 5) / 0.1)
    assert lu.hacker_bound([0.01] * 4, rtt=0.1, mss=1500) == pytest.approx(4 * 10 * 1500 / 0.1)
    with pytest.raises(ValueError, match=r"losses\[1\]=0"):
        lu.hacker_bound([0.01, 0.0], rtt=0.1)


def test_eqs_13_14_by_hand_and_through_the_probes() -> None:
    a, b = lu.partial_fit(1, 30_000.0, 10, 120_000.0)
    assert a == pytest.approx((100 / 120_000**2 - 1 / 30_000**2) / 99, rel=1e-12)
    assert b == pytest.approx(1 / 30_000**2 - a, rel=1e-12)
    fit = lu.fit_probes({1: 30_000.0, 10: 120_000.0})
    assert fit.params == pytest.approx((a, b), rel=1e-12)
    assert fit.throughput([1, 10]) == pytest.approx([30_000.0, 120_000.0], rel=1e-12)
    assert fit.predict([1, 10]) == pytest.approx({1: 30_000.0, 10: 120_000.0}, rel=1e-12)


@pytest.mark.parametrize(
    ("model", "params", "probes"),
    [
        ("partial2", (2e-4, 3e-2), (1, 10)),
        ("partial2", (1e-3, 0.0), (3, 17)),
        ("linear", (5e-3, 1e-2), (1, 8)),
        ("full2", (1e-4, 2e-3, 5e-2), (1, 5, 15)),
    ],
)
def test_data_from_a_known_profile_gives_it_back(model: str, params, probes) -> None:
    """Eqs. 6-10: throughput n / sqrt(p'_n) from a known p'_n; any probes recover p'_n."""
    n = np.arange(1, 32, dtype=float)
    columns = {"partial2": [n**2, 1], "linear": [n, 1], "full2": [n**2, n, 1]}[model]
    profile = sum(p * c for p, c in zip(params, columns, strict=True))
    throughput = n / np.sqrt(profile)
    fit = lu.fit_probes({k: throughput[k - 1] for k in probes}, model)
    assert fit.params == pytest.approx(params, rel=1e-9, abs=1e-15)
    assert fit.throughput(n) == pytest.approx(throughput, rel=1e-9)
    more = lu.fit_probes({k: throughput[k - 1] for k in (1, 4, 9, 16, 25)}, model)
    assert more.params == pytest.approx(params, rel=1e-8, abs=1e-15)  # least squares, exact


@given(
    a=st.floats(1e-8, 1e-2),
    b=st.floats(1e-8, 1e-1),
    n1=st.integers(1, 20),
    gap=st.integers(1, 20),
)
def test_two_exact_probes_recover_any_partial_profile(a, b, n1, gap) -> None:
    n2 = n1 + gap
    bw = {n: n / math.sqrt(a * n * n + b) for n in (n1, n2)}
    fit = lu.fit_probes(bw)
    scale = a * n2 * n2 + b
    assert abs(fit.a - a) * n2 * n2 <= 1e-7 * scale
    assert abs(fit.b - b) <= 1e-7 * scale


def test_eq18_is_eq17_when_loss_follows_the_profile() -> None:
    # p'_n = n^2 + 3: from 1 to 3 connections the loss triples (4 -> 12)
    fit = lu.Fit("partial2", (1.0, 3.0), ((1, 0.5), (3, 3 / 12**0.5)))
    assert fit.impact(3) == pytest.approx(1 - math.sqrt(4 / 12), rel=1e-12)
    assert lu.impact_from_loss(0.004, 0.012) == pytest.approx(1 - math.sqrt(1 / 3), rel=1e-12)
    assert fit.impact(1) == 0.0
    # eq. 16 keeps the RTTs: a doubled RTT halves the rate at the same loss
    assert lu.impact_from_rates(0.01, 0.1, 0.01, 0.2) == pytest.approx(0.5)
    assert lu.impact_from_rates(0.004, 0.1, 0.012, 0.1) == pytest.approx(1 - (1 / 3) ** 0.5)


def test_eq15_by_hand() -> None:
    assert lu.relative_error(110.0, 100.0) == pytest.approx(0.1)
    assert lu.relative_error([90.0, 100.0], [100.0, 80.0]) == pytest.approx([-0.1, 0.25])
    with pytest.raises(ValueError, match="measurement=0"):
        lu.relative_error(1.0, 0.0)


def test_a_profile_that_turns_negative_predicts_nothing() -> None:
    # per-flow throughput rising from 10 (n = 1) to 15 (n = 2): a < 0, p'_n <= 0 from n = 3
    fit = lu.fit_probes({1: 10.0, 2: 30.0})
    assert fit.a < 0
    assert np.isfinite(fit.throughput(2)) and np.isnan(fit.throughput(3))
    assert np.isnan(fit.impact(5)) and fit.impact(2) < 0


def test_the_elasticity_is_the_derivative_of_the_prediction() -> None:
    probes = {1: 3.0e4, 10: 1.2e5}
    fit = lu.fit_probes(probes)
    n = np.array([2.0, 5.0, 20.0, 31.0])
    e1, e2 = lu.probe_elasticity(fit, n)
    h = 1e-6
    for index, level in enumerate((1, 10)):
        nudged = dict(probes)
        nudged[level] *= 1 + h
        moved = lu.fit_probes(nudged).throughput(n)
        numeric = (np.log(moved) - np.log(fit.throughput(n))) / np.log1p(h)
        assert numeric == pytest.approx((e1, e2)[index], rel=1e-4)
    # the weight w = (n^2 - n1^2) / (n2^2 - n1^2) of the far probe, by hand
    flat = lu.fit_probes({1: 1.0, 2: 2.0})  # p'_n constant: e2 = w exactly
    assert lu.probe_elasticity(flat, [31])[1] == pytest.approx([960 / 3])
    assert lu.probe_elasticity(lu.fit_probes({1: 1.0, 10: 10.0}), [31])[1] == pytest.approx(
        [960 / 99]
    )


@pytest.mark.parametrize(
    ("probes", "model", "words"),
    [
        ({1: 5.0}, "partial2", ["needs 2 probes"]),
        ([(3, 5.0), (3, 6.0)], "partial2", ["two probes at flows=3"]),
        ({1: 5.0, 2: 0.0}, "partial2", ["throughput at flows=2=0", "(0, inf)"]),
        ({1: 5.0, 2: -3.0}, "linear", ["throughput at flows=2=-3"]),
        ({0: 5.0, 2: 3.0}, "partial2", ["flows=0", "[1, inf)"]),
        ({1: 5.0, 2: 3.0}, "cubic", ["model='cubic'"]),
        ({1: 5.0, 2: 3.0}, "full2", ["needs 3 probes"]),
    ],
)
def test_bad_probes_are_named(probes, model: str, words: list[str]) -> None:
    with pytest.raises(ValueError) as error:
        lu.fit_probes(probes, model)
    for word in words:
        assert word in str(error.value)
