"""The chapter's exercise solutions, checked against their hand computations (the numbers in
the solutions of chapters/taming-parallel-tcp.md), not against the model's own output."""

from __future__ import annotations

import math

import pytest

from tcplab.theory import lu


def test_close_probes_on_a_linear_path_overshoot_by_219_percent() -> None:
    """Exercise ex-lu-close: y = 1 everywhere, the probe at 10 measured 5% high."""
    fit = lu.fit_probes({1: 1.0, 10: 10 * 1.05})
    y10 = 1 / 1.05**2
    a = (y10 - 1) / 99  # by hand: -0.000939
    assert fit.a == pytest.approx(a, rel=1e-9) and fit.a < 0
    assert a == pytest.approx(-0.000939, abs=5e-7)
    assert float(fit.throughput(31)) / 31 == pytest.approx(3.19, abs=0.005)  # +219%
    close = lu.fit_probes({1: 1.0, 2: 2 * 1.05})
    assert close.a == pytest.approx((y10 - 1) / 3, rel=1e-9)  # -0.031
    assert float(close.profile(31)) < 0  # no prediction at 31


def test_the_shell_example_of_the_solution() -> None:
    """``tcplab predict --probe 1:100 --probe 10:1050 --flows 31`` prints 9 879."""
    fit = lu.fit_probes({1: 100.0, 10: 1050.0})
    assert round(float(fit.throughput(31))) == 9879


def test_cubic_cross_traffic_loses_more_than_reno_estimates() -> None:
    """Exercise ex-lu-cubic: probes 2 and 12 MB/s at 1 and 10 flows; 40% for Reno, 53.5% for
    CUBIC (p^-3/4) at n = 10, by hand."""
    fit = lu.fit_probes({1: 2.0, 10: 12.0})
    ratio = float(fit.profile(1)) / float(fit.profile(10))
    assert ratio == pytest.approx(0.36, rel=1e-9)
    assert float(fit.impact(10)) == pytest.approx(0.40, rel=1e-9)
    assert 1 - ratio**0.75 == pytest.approx(0.535, abs=5e-4)
    assert 1 - ratio**0.75 > float(fit.impact(10))


def test_probe_duration_of_one_connection_in_scenario_3() -> None:
    """Exercise ex-lu-duration: the pipe of scenario 3 in packets times its round trip."""
    pipe = 100e6 / 8 / 1000 * 0.118  # packets
    assert pipe == pytest.approx(1475)
    assert math.isclose(pipe * 0.118, 174, rel_tol=0.01)
