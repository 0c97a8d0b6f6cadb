"""Student's t quantile used by every confidence interval in the book, against the exact
quantile (tests/stat_tools.py: the distribution function as a finite sum, then bisection)."""

from __future__ import annotations

import pytest

from tcplab.stats import t975

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
    assert binomial_region(10, 0.5, 2 * 11 / 1024) == (2, 8)
    assert binomial_region(10, 0.5, 2 * 11 / 1024 - 1e-12) == (1, 9)


def test_t_half_width_by_hand() -> None:
    """Values 1, 2, 3, 4: mean 5/2, sd sqrt(5/3), three degrees of freedom."""
    mean, half = t_half_width([1.0, 2.0, 3.0, 4.0], 0.05)
    assert mean == 2.5
    assert half == pytest.approx(3.182446305 * (5 / 3) ** 0.5 / 2, rel=1e-9)
