"""Small statistics the book's confidence intervals share.

Student's t quantile for 95% two-sided intervals, without scipy: the printed table (three
decimals) up to 30 degrees of freedom, then the two-term Cornish-Fisher expansion, which is
within 2e-4 of the exact quantile from 31 on.
"""

from __future__ import annotations

__all__ = ["t975"]

_T975 = (
    12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
    2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
    2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
)  # fmt: skip
_Z975 = 1.959963984540054


def t975(df: int) -> float:
    """97.5% quantile of Student's t with ``df`` >= 1 degrees of freedom."""
    if df < 1:
        raise ValueError(f"df={df} is outside the allowed range [1, inf)")
    if df <= len(_T975):
        return _T975[df - 1]
    z = _Z975
    return z + (z**3 + z) / (4 * df) + (5 * z**5 + 16 * z**3 + 3 * z) / (96 * df**2)
