"""Argument checks that fail with a message naming the parameter, its value and the allowed range.

Every public model function validates its inputs with these helpers, so a bad slider value or
command-line flag reads as ``beta=1.5 is outside the allowed range (0, 1)`` instead of a
traceback deep inside numpy.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

import numpy as np

__all__ = ["check_range", "check_int", "check_choice", "check_per_flow"]


def _interval(low: float, high: float, low_open: bool, high_open: bool) -> str:
    left = "(" if low_open or math.isinf(low) else "["
    right = ")" if high_open or math.isinf(high) else "]"
    return f"{left}{low:g}, {high:g}{right}"


def check_range(
    name: str,
    value: float,
    low: float = -math.inf,
    high: float = math.inf,
    *,
    low_open: bool = False,
    high_open: bool = False,
) -> float:
    """Return ``value`` as a float if it lies in the interval, else raise ValueError.

    ``low_open``/``high_open`` exclude the end points; infinite ends are always open.
    """
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name}={value!r} is not a number") from None
    low_open = low_open or math.isinf(low)
    high_open = high_open or math.isinf(high)
    inside = (
        not math.isnan(number)
        and (number > low if low_open else number >= low)
        and (number < high if high_open else number <= high)
    )
    if not inside:
        allowed = _interval(low, high, low_open, high_open)
        shown = value if isinstance(value, int) else number
        raise ValueError(f"{name}={shown!r} is outside the allowed range {allowed}")
    return number


def check_int(name: str, value: int, low: int = 1, high: float = math.inf) -> int:
    """Return ``value`` if it is an integer in ``[low, high]``, else raise ValueError."""
    allowed = _interval(low, high, False, False)
    try:
        whole = not isinstance(value, bool) and float(value).is_integer()
    except (TypeError, ValueError, OverflowError):
        whole = False
    if not whole:
        raise ValueError(f"{name}={value!r} must be a whole number in {allowed}")
    check_range(name, int(value), low, high)
    return int(value)


def check_choice(name: str, value: str, choices: Iterable[str]) -> str:
    """Return ``value`` if it is one of ``choices``, else raise ValueError listing them."""
    options = list(choices)
    if value not in options:
        raise ValueError(f"{name}={value!r} is not one of: {', '.join(options)}")
    return value


def check_per_flow(
    name: str,
    value: Any,
    n: int,
    low: float = -math.inf,
    high: float = math.inf,
    *,
    low_open: bool = False,
    high_open: bool = False,
) -> np.ndarray:
    """A number shared by n connections, or one value per connection, as a float array of
    length n, each value in the interval (named ``name`` or ``name[i]`` when it is not)."""
    try:
        array = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"{name}={value!r} is not a number or a list of numbers") from None
    if array.ndim > 1 or (array.ndim == 1 and array.size != n):
        raise ValueError(f"{name} must be a number or have length flows={n}, got {value!r}")
    for i, v in enumerate(np.broadcast_to(array, (n,))):
        label = name if array.ndim == 0 else f"{name}[{i}]"
        check_range(label, v, low, high, low_open=low_open, high_open=high_open)
    return np.broadcast_to(array, (n,)).copy()
