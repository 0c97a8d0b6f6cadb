"""Student's t quantile used by every confidence interval in the book."""

from __future__ import annotations

import pytest

from tcplab.stats import t975


@pytest.mark.parametrize(
    ("df", "quantile"),
    [(1, 12.706), (5, 2.571), (11, 2.201), (30, 2.042), (31, 2.0395), (40, 2.0211),
     (60, 2.0003), (120, 1.9799), (1000, 1.9623)],
)  # fmt: skip
def test_t975_matches_the_printed_tables(df: int, quantile: float) -> None:
    """Quantiles to 4 decimals from standard tables; the expansion is within 2e-4."""
    assert t975(df) == pytest.approx(quantile, abs=2e-4)


def test_t975_decreases_towards_the_normal_quantile() -> None:
    values = [t975(df) for df in range(1, 200)]
    assert all(a > b for a, b in zip(values, values[1:], strict=False))
    assert values[-1] > 1.959963984540054


def test_t975_needs_a_degree_of_freedom() -> None:
    with pytest.raises(ValueError, match=r"df=0 .*\[1, inf\)"):
        t975(0)
