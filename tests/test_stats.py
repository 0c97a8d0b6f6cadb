"""Student's t quantile used by every confidence interval in the book, against the exact
quantile (tests/stat_tools.py: the distribution function as a finite sum, then bisection);
and the reference statistics and TCP-law constants that the other tests take from there."""

from __future__ import annotations

import numpy as np
import pytest

from tcplab.stats import t975

import tcp_laws
from stat_tools import binomial_region, t_half_width, t_quantile


@pytest.mark.parametrize(
    ("df", "quantile"),
    [(1, 12.7062), (2, 4.3027), (5, 2.5706), (10, 2.2281), (30, 2.0423), (120, 1.9799)],
)
def test_the_reference_quantile_matches_printed_tables(df: int, quantile: float) -> None:
    assert t_quantile(0.975, df) == pytest.approx(quantile, abs=5e-5)


def test_t975_is_the_three_decimal_table_up_to_30_degrees_of_freedom() -> None:
    for df in range(1, 31):
        assert t975(df) == round(t_quantile(0.975, df), 3), df


def test_t975_is_within_2e_4_of_the_exact_quantile_beyond_the_table() -> None:
    """The documented accuracy of the two-term Cornish-Fisher expansion, df = 31 .. 2000."""
    errors = [abs(t975(df) - t_quantile(0.975, df)) for df in (*range(31, 400), 1000, 2000)]
    assert max(errors) < 2e-4
    assert errors[-1] < 1e-8  # and it converges to the exact quantile


def test_t975_decreases_towards_the_normal_quantile() -> None:
    values = [t975(df) for df in range(1, 200)]
    assert all(a > b for a, b in zip(values, values[1:], strict=False))
    assert values[-1] > 1.959963984540054


def test_t975_needs_a_degree_of_freedom() -> None:
    with pytest.raises(ValueError, match=r"df=0 .*\[1, inf\)"):
        t975(0)


def test_binomial_region_by_hand() -> None:
    """Binomial(10, 1/2): P(X <= 1) = 11/1024 <= 2.5% < P(X <= 2) = 56/1024, and symmetric."""
    assert binomial_region(10, 0.5, 0.05) == (2, 8)
    assert binomial_region(10, 0.5, 2 * 11 / 1024 + 1e-9) == (2, 8)
    assert binomial_region(10, 0.5, 2 * 11 / 1024 - 1e-9) == (1, 9)


def test_t_half_width_by_hand() -> None:
    """Values 1, 2, 3, 4: mean 5/2, sd sqrt(5/3), three degrees of freedom."""
    mean, half = t_half_width([1.0, 2.0, 3.0, 4.0], 0.05)
    assert mean == 2.5
    assert half == pytest.approx(3.182446305 * (5 / 3) ** 0.5 / 2, rel=1e-9)


def test_the_bernoulli_constant_of_idealised_tcp() -> None:
    """tcp_laws' product formula against a direct simulation of idealised TCP: the window
    grows by one per RTT and halves at the events of a Poisson process of rate p W (each
    packet lost with probability p); the time-average window times sqrt(p), per replica,
    has a 99.9% Student-t interval that must hold the formula and exclude Mathis's sqrt(3/2).
    """
    rng = np.random.default_rng(5)
    p, replicas, cycles, warmup = 1e-4, 400, 400, 50
    w = np.full(replicas, 1 / np.sqrt(p))
    area, time = np.zeros(replicas), np.zeros(replicas)
    for k in range(cycles + warmup):
        # next loss: p * (w tau + tau^2 / 2) = Exp(1), solved for tau
        tau = -w + np.sqrt(w * w + 2 * rng.exponential(size=replicas) / p)
        if k >= warmup:
            area += w * tau + tau * tau / 2
            time += tau
        w = (w + tau) / 2
    mean, half_width = t_half_width(area / time * np.sqrt(p), 1e-3)
    assert abs(mean - tcp_laws.BERNOULLI_C) <= half_width < 0.01
    assert tcp_laws.BERNOULLI_C == pytest.approx(1.3098, abs=1e-4)
    assert tcp_laws.PERIODIC_C < mean - half_width
