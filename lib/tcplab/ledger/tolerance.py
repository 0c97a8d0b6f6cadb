"""How close the book must come to a paper: one rule per kind of claim, never one per row.

A tolerance says how far the book's value may sit from the paper's and still count as the
same. It comes from the two things that blur a comparison, never from how close the model
happens to come:

* the paper's own precision. A printed number stands for every value that rounds to it:
  "0.7%" is anything in [0.65%, 0.75%), so half a unit of its last digit (0.05 points). A
  number the paper calls approximate ("about 5%", "almost 95%", "just over 30%") a full
  unit of its last digit. A number read off a plot, the resolution of that reading. A
  closed form (a fraction, an equation) is exact: no blur;
* the book's own noise: the 95% confidence interval of the mean over its replicas (Student's
  t), so that a rerun with other seeds would not change the verdict more than one time in
  twenty. A deterministic, exact model has none beyond floating point (:data:`EXACT`).

The tolerance of a number is the larger of the two (:func:`number`). A statement the paper
makes in words is checked as true or false (:func:`statement`): no tolerance. Each
:class:`Tolerance` carries the sentence that says which rule set it, and every claim of the
book's ledger must have one (``tests/test_ledger.py``).
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from tcplab.stats import t975

__all__ = [
    "RULES",
    "EXACT",
    "Tolerance",
    "printed",
    "interval",
    "number",
    "plot",
    "exact",
    "difference",
    "statement",
]

#: the rules a tolerance can come from (the first word of :attr:`Tolerance.rule`)
RULES = ("printed", "plot", "interval", "exact", "statement")
#: the floating-point floor of an exact comparison (closed form against an exact model)
EXACT = 1e-6
#: words that make a printed number approximate: a full unit of its last digit
APPROXIMATE = ("about", "around", "almost", "nearly", "roughly", "approximately", "just over",
               "just under", "~", "≈")  # fmt: skip
_NUMBER = re.compile(r"(?<![\w.])(\d+(?:[.,]\d+)*)\s*(%)?")


@dataclass(frozen=True)
class Tolerance:
    """A tolerance and the sentence that says which rule set it."""

    value: float
    rule: str

    def __post_init__(self) -> None:
        if not (self.value >= 0 and math.isfinite(self.value)):
            raise ValueError(f"value={self.value} must be finite and >= 0")
        if self.rule.split(":")[0] not in RULES:
            raise ValueError(f"rule={self.rule!r} must start with one of {RULES}")


def printed(text: str) -> float:
    """The precision of a number as the paper prints it, in the number's own units (a
    percentage as a fraction): half a unit of its last digit, a full unit when the text calls
    it approximate. ``"0.7%"`` -> 0.0005, ``"97%"`` -> 0.005, ``"about 5%"`` -> 0.01,
    ``"19033.7"`` -> 0.05, ``"2,170"`` -> 0.5. A ValueError when ``text`` holds no number or
    more than one."""
    found = _NUMBER.findall(text)
    if len(found) != 1:
        raise ValueError(f"text={text!r} must hold exactly one number, found {len(found)}")
    digits, percent = found[0]
    digits = digits.replace(",", "")
    decimals = len(digits.partition(".")[2])
    unit = 10.0**-decimals * (0.01 if percent else 1.0)
    lowered = text.lower()
    approximate = any(word in lowered for word in APPROXIMATE)
    return unit if approximate else unit / 2


def interval(values: Sequence[float] | np.ndarray) -> float:
    """The half-width of the 95% confidence interval of the mean of ``values`` (Student's t;
    independent replicas). 0 for a single value: one run has no interval, and a verdict on one
    run rests on the paper's precision alone."""
    data = np.asarray(values, dtype=float)
    if data.ndim != 1 or data.size == 0 or not np.all(np.isfinite(data)):
        raise ValueError(f"values={values!r} must be a non-empty list of finite numbers")
    if data.size < 2:
        return 0.0
    return t975(data.size - 1) * float(data.std(ddof=1)) / math.sqrt(data.size)


def _ours(
    values: Sequence[float] | np.ndarray | None, half_width: float | None
) -> tuple[float, str]:
    if values is not None and half_width is not None:
        raise ValueError("give values or half_width, not both")
    if values is not None:
        runs = len(values)
        width = interval(values)
        what = "one run: no interval" if runs < 2 else f"95% interval of {runs} runs ±{width:.3g}"
        return width, what
    if half_width is not None:
        if not (half_width >= 0 and math.isfinite(half_width)):
            raise ValueError(f"half_width={half_width} must be finite and >= 0")
        return half_width, f"95% interval ±{half_width:.3g}"
    return 0.0, ""


def number(
    paper: str,
    *,
    values: Sequence[float] | np.ndarray | None = None,
    half_width: float | None = None,
) -> Tolerance:
    """A number the paper prints (``paper``, its text as printed: "0.7%", "about 5%") against
    the book's mean over ``values`` (its replicas) or with a known 95% ``half_width``: the
    larger of the paper's printed precision and the book's interval."""
    theirs = printed(paper)
    ours, what = _ours(values, half_width)
    said = f"printed: ±{theirs:.3g} for '{paper}'"
    if ours > theirs:
        return Tolerance(ours, f"interval: {what} (wider than the paper's ±{theirs:.3g})")
    return Tolerance(theirs, said + (f"; {what}" if what else ""))


def plot(
    resolution: float,
    *,
    values: Sequence[float] | np.ndarray | None = None,
    half_width: float | None = None,
) -> Tolerance:
    """A value read off one of the paper's plots, to ``resolution`` (say, half the spacing of
    its finest grid lines or ticks), against the book's mean: the larger of the two blurs."""
    if not (resolution > 0 and math.isfinite(resolution)):
        raise ValueError(f"resolution={resolution} must be finite and > 0")
    ours, what = _ours(values, half_width)
    if ours > resolution:
        return Tolerance(ours, f"interval: {what} (wider than the reading's ±{resolution:.3g})")
    return Tolerance(resolution, f"plot: read to ±{resolution:.3g}" + (f"; {what}" if what else ""))


def exact(
    *,
    values: Sequence[float] | np.ndarray | None = None,
    half_width: float | None = None,
    floor: float = EXACT,
) -> Tolerance:
    """A closed form of the paper (exact) against the book: an exact model gets the
    floating-point ``floor``, a simulation its 95% interval (``values`` or ``half_width``)."""
    ours, what = _ours(values, half_width)
    if values is None and half_width is None:
        return Tolerance(floor, f"exact: closed form against an exact computation (±{floor:.0e})")
    if ours <= floor:
        return Tolerance(floor, f"exact: closed form; {what}, below the floor ±{floor:.0e}")
    return Tolerance(ours, f"interval: closed form against a simulation; {what}")


def difference(ours: float, theirs: float, *, what: str = "") -> float:
    """The 95% half-width of the difference of two independent means (two simulators, or two
    set-ups), from each mean's own half-width: sqrt(ours^2 + theirs^2). Pass it as the
    ``half_width`` of :func:`exact` (the other simulator's mean is the "paper's" value, with no
    printed precision), and say in ``what`` whose runs they are."""
    for name, value in (("ours", ours), ("theirs", theirs)):
        if not (value >= 0 and math.isfinite(value)):
            raise ValueError(f"{name}={value} must be finite and >= 0")
    return math.hypot(ours, theirs)


def statement() -> Tolerance:
    """A statement in words, checked as true or false."""
    return Tolerance(0.0, "statement: true or false")
