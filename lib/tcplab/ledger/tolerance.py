"""How the book decides whether it reproduces a paper: a few rules, each applied the same way.

Every check sets two sides against each other.

**The paper's side** (:class:`Paper`, made by :func:`paper_side` from an item of ledger.toml)
is the paper's value, the margin its own words allow, and how the value is meant:

* ``exact``: a closed form, an exact count, a threshold the paper states ("less than 1.025"):
  no margin at all;
* a printed number ("0.7%"): every value that rounds to it, half a unit of its last digit
  (0.05 points); a number the paper calls approximate ("about 5%", "almost 95%") a full
  unit; a printed range ("0.126%-0.133%") half its width plus half a unit (:func:`printed`);
* ``plot: <figure>``: a value read off a figure, to the resolution the ledger states once per
  figure (``[plot."Fig. 11"]``, with how it was read);

and its relation: ``equal`` (the default), ``above`` or ``below`` a threshold (a shape's step
"rises" is its difference above 0).

**The book's side** (:class:`Estimate`, made by a chapter's claims with one of the
constructors below, never by hand) is the book's value and the range it vouches for:

* :func:`computed`: an exact computation (floating point: ±1e-6, relative beyond 1);
* :func:`bounded`, :func:`identity_bound`: a deterministic model's own, certain error bound
  (the sample-path identity's boundary term of a finite run), not the spread of identical
  replicas;
* :func:`runs`, :func:`mean`, :func:`ranged`: a mean over independent runs with its 95%
  interval (Student's t), or a 95% interval computed another way that the caller names;
* :func:`single`: one stochastic run, which has no interval;
* :func:`holds`: a statement that holds or not, on an exact computation or a count.

**The verdict** (:func:`judge`) is then one of three, by the rule the two sides call for:

* ``margin`` (the paper's value has a margin): *reproduced* when the book's whole range lies
  inside the margin, *differs* when it lies entirely outside, *undecided* otherwise (the
  book's noise is too wide to tell: more runs would decide it);
* ``exact``, ``bound``, ``interval`` (the paper's value is exact): the book's range is the
  only blur, so *reproduced* when the paper's value lies inside it (to floating point, inside
  the certain bound, inside the 95% interval) and *differs* when not;
* ``threshold`` (above or below): *reproduced* when the book's range lies wholly on the
  paper's side, *differs* when wholly on the other, *undecided* when it straddles;
* ``yes/no``: *reproduced* when the statement holds, *differs* when not;
* ``one run``: *undecided*, whatever the value (one run cannot tell noise from a gap).

An item with several checks (a figure's points, its per-N values) is tested point by point,
each with its own range; its intervals are widened for the number of checks (Bonferroni), so
that an item that agrees at every point is called *differs* by chance at most one time in
twenty, not once per point. The words of each verdict (:attr:`Verdict.words`) name the rule
used and both sides; tests/test_ledger.py checks the label against the sides.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from statistics import NormalDist

import numpy as np

from tcplab.stats import t975

__all__ = [
    "RULES",
    "BASES",
    "EXACT",
    "VERDICTS",
    "APPROXIMATE",
    "Paper",
    "Estimate",
    "Verdict",
    "printed",
    "printed_value",
    "interval",
    "difference",
    "widen",
    "paper_side",
    "computed",
    "bounded",
    "identity_bound",
    "runs",
    "mean",
    "of_runs",
    "ranged",
    "single",
    "holds",
    "judge",
]

#: the rules a verdict can come from, as the Check column names them
RULES = ("exact", "bound", "interval", "margin", "threshold", "yes/no", "one run")
#: the kinds of the book's side (how an :class:`Estimate` was made)
BASES = ("exact", "bound", "interval", "one run", "yes/no")
#: the verdicts a check can have
VERDICTS = ("reproduced", "undecided", "differs")
#: the floating-point floor of an exact comparison (relative for values beyond 1)
EXACT = 1e-6
#: words that make a printed number approximate: a full unit of its last digit
APPROXIMATE = ("about", "around", "almost", "nearly", "roughly", "approximately", "just over",
               "just under", "~", "≈")  # fmt: skip
_NUMBER = re.compile(r"(?<![\w.])(\d+(?:[.,]\d+)*)\s*(%)?")
_RANGE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(%)?\s*[-–]\s*(\d+(?:\.\d+)?)\s*(%)?\s*$")
_RELATIONS = ("equal", "above", "below")


# -- the paper's side --------------------------------------------------------------------------


@dataclass(frozen=True)
class Paper:
    """The paper's side of a check: its value, the margin its words allow, the relation."""

    value: float
    margin: float
    basis: str  # "exact", "printed" or "plot"
    words: str  # what set the margin, for the Check column: "printed '90%': ±0.005"
    relation: str = "equal"

    def __post_init__(self) -> None:
        if not math.isfinite(self.value):
            raise ValueError(f"value={self.value} must be finite")
        if not (self.margin >= 0 and math.isfinite(self.margin)):
            raise ValueError(f"margin={self.margin} must be finite and >= 0")
        if self.basis not in ("exact", "printed", "plot"):
            raise ValueError(f"basis={self.basis!r} must be exact, printed or plot")
        if self.basis == "exact" and self.margin:
            raise ValueError(f"an exact value has no margin, not ±{self.margin}")
        if self.relation not in _RELATIONS:
            raise ValueError(f"relation={self.relation!r} must be one of {_RELATIONS}")


def _digits(text: str) -> tuple[float, int, bool]:
    found = _NUMBER.findall(text)
    if len(found) != 1:
        raise ValueError(f"text={text!r} must hold exactly one number, found {len(found)}")
    digits, percent = found[0]
    digits = digits.replace(",", "")
    return float(digits), len(digits.partition(".")[2]), bool(percent)


def printed(text: str) -> float:
    """The precision of a number as the paper prints it, in the number's own units (a
    percentage as a fraction): half a unit of its last digit, a full unit when the text calls
    it approximate. ``"0.7%"`` -> 0.0005, ``"97%"`` -> 0.005, ``"about 5%"`` -> 0.01,
    ``"19033.7"`` -> 0.05, ``"2,170"`` -> 0.5. A printed range ``"0.126%-0.133%"``: half its
    width plus half a unit of its last digit (0.000040). A ValueError when ``text`` holds no
    number, or more than one outside a range."""
    ranged = _RANGE.match(text)
    if ranged:
        low, high = printed_value(text)
        decimals = max(len(ranged.group(i).partition(".")[2]) for i in (1, 3))
        unit = 10.0**-decimals * (0.01 if ranged.group(2) or ranged.group(4) else 1.0)
        return (high - low) / 2 + unit / 2
    _, decimals, percent = _digits(text)
    unit = 10.0**-decimals * (0.01 if percent else 1.0)
    lowered = text.lower()
    approximate = any(word in lowered for word in APPROXIMATE)
    return unit if approximate else unit / 2


def printed_value(text: str) -> tuple[float, float]:
    """The value a printed text states, in its own units (a percentage as a fraction), as
    (low, high): both the number for one number, the two ends for a range."""
    ranged = _RANGE.match(text)
    if ranged:
        percent = bool(ranged.group(2) or ranged.group(4))
        scale = 0.01 if percent else 1.0
        low, high = float(ranged.group(1)) * scale, float(ranged.group(3)) * scale
        if not low < high:
            raise ValueError(f"text={text!r}: a range must run from low to high")
        return low, high
    value, _, percent = _digits(text)
    value *= 0.01 if percent else 1.0
    return value, value


def paper_side(
    value: float,
    precision: str,
    plots: Mapping[str, tuple[float, str]] | None = None,
    relation: str = "equal",
) -> Paper:
    """The paper's side from an item's ``precision`` in ledger.toml: ``"exact"``, a printed
    text (``"90%"``, ``"almost 95%"``, ``"0.126%-0.133%"``) or ``"plot: <figure>"``, whose
    resolution and how it was read are in ``plots`` (the ledger's ``[plot."<figure>"]``)."""
    if precision == "exact":
        return Paper(float(value), 0.0, "exact", "exact", relation)
    if precision.startswith("plot:"):
        figure = precision.removeprefix("plot:").strip()
        if not plots or figure not in plots:
            raise ValueError(f"precision={precision!r}: no resolution stated for {figure!r}")
        resolution, how = plots[figure]
        words = f"reading of {figure} to ±{resolution:.3g} ({how})"
        return Paper(float(value), resolution, "plot", words, relation)
    margin = printed(precision)
    words = f"printed '{precision}' (±{margin:.3g})"
    return Paper(float(value), margin, "printed", words, relation)


# -- the book's side ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Estimate:
    """The book's side of a check: its value, the range it vouches for, and how it was made
    (one of :data:`BASES`; see the constructors)."""

    value: float
    low: float
    high: float
    basis: str
    words: str  # how the range was made, for the Check column: "95% interval of 16 runs"
    runs: int = 0  # for a mean over runs: how many (its interval is Student's t on runs - 1)

    def __post_init__(self) -> None:
        if self.basis not in BASES:
            raise ValueError(f"basis={self.basis!r} must be one of {BASES}")
        if not all(math.isfinite(x) for x in (self.value, self.low, self.high)):
            raise ValueError(f"value={self.value} and its range must be finite")
        if not self.low <= self.value <= self.high:
            raise ValueError(f"value={self.value} must lie in [{self.low}, {self.high}]")

    @property
    def half_width(self) -> float:
        return (self.high - self.low) / 2


def _finite(name: str, value: float) -> float:
    value = float(value)
    if not math.isfinite(value):
        raise ValueError(f"{name}={value} must be finite")
    return value


def computed(value: float) -> Estimate:
    """An exact computation (a closed form of the book, an exact model, a count): the book's
    value is exact up to floating point."""
    value = _finite("value", value)
    floor = EXACT * max(1.0, abs(value))
    return Estimate(value, value - floor, value + floor, "exact", "an exact computation")


def bounded(value: float, bound: float, by: str) -> Estimate:
    """A deterministic model's value with its own, certain error bound ``bound`` (``by`` says
    what gives it): the exact quantity lies within ±bound of ``value``, on every run."""
    value, bound = _finite("value", value), _finite("bound", bound)
    if bound < 0:
        raise ValueError(f"bound={bound} must be >= 0")
    bound = max(bound, EXACT * max(1.0, abs(value)))
    return Estimate(value, value - bound, value + bound, "bound", f"{by}, ±{bound:.2g}")


def identity_bound(value: float, bound: float) -> Estimate:
    """A time average of the exact fluid model against Theorem 1: a finite run's average is
    off the stationary mean by at most the sample-path identity's boundary term ``bound``
    (the insensitivity chapter, "Why the policy does not matter"), on every run."""
    return bounded(value, bound, "the sample-path identity's bound on a finite run")


def interval(values: Sequence[float] | np.ndarray) -> float:
    """The half-width of the 95% confidence interval of the mean of ``values`` (Student's t;
    independent replicas); 0 for a single value (one run has no interval)."""
    data = np.asarray(values, dtype=float)
    if data.ndim != 1 or data.size == 0 or not np.all(np.isfinite(data)):
        raise ValueError(f"values={values!r} must be a non-empty list of finite numbers")
    if data.size < 2:
        return 0.0
    return t975(data.size - 1) * float(data.std(ddof=1)) / math.sqrt(data.size)


def runs(values: Sequence[float] | np.ndarray, what: str = "runs") -> Estimate:
    """The mean of independent runs (``what`` names them: "runs", "seeds", "loss rates")
    with its 95% interval (Student's t); one run has none (:func:`single`)."""
    data = np.asarray(values, dtype=float)
    width = interval(data)
    value = float(data.mean())
    if data.size < 2:
        return single(value, f"one of the {what}")
    return Estimate(value, value - width, value + width, "interval",
                    f"the 95% interval of {data.size} {what}", runs=int(data.size))  # fmt: skip


def of_runs(value: float, values: Sequence[float] | np.ndarray, what: str = "runs") -> Estimate:
    """A value computed from independent runs (their mean, or another statistic of them) with
    the 95% interval of the mean of ``values`` (Student's t); one run: no interval."""
    data = np.asarray(values, dtype=float)
    if data.size < 2:
        return single(float(value), f"one of the {what}")
    return mean(float(value), interval(data), f"{data.size} {what}", runs=int(data.size))


def mean(value: float, half_width: float, of: str, runs: int = 0) -> Estimate:
    """A value with a 95% interval of half-width ``half_width`` computed another way; ``of``
    says how ("1719 congestion events", "the difference of two means"). ``runs``, when the
    interval is Student's t over that many runs."""
    value, half_width = _finite("value", value), _finite("half_width", half_width)
    if half_width < 0:
        raise ValueError(f"half_width={half_width} must be >= 0")
    return Estimate(value, value - half_width, value + half_width, "interval",
                    f"the 95% interval of {of}", runs=runs)  # fmt: skip


def ranged(value: float, low: float, high: float, of: str) -> Estimate:
    """A value with a 95% interval [low, high] that need not be symmetric (a correlation's,
    through Fisher's z), computed another way; ``of`` says how."""
    value, low, high = (_finite(n, v) for n, v in (("value", value), ("low", low), ("high", high)))
    if not low <= value <= high:
        raise ValueError(f"value={value} must lie in [low={low}, high={high}]")
    return Estimate(value, low, high, "interval", f"the 95% interval of {of}")


def single(value: float, what: str = "one run") -> Estimate:
    """One stochastic run: no interval, so no verdict but *undecided*."""
    value = _finite("value", value)
    return Estimate(value, value, value, "one run", what)


def holds(ok: bool, on: str) -> Estimate:
    """A statement that holds or not (``ok``); ``on`` says what it is checked on ("the exact
    sample paths", "the parameters of the set-up")."""
    value = 1.0 if bool(ok) else 0.0
    return Estimate(value, value, value, "yes/no", on)


def difference(ours: float, theirs: float) -> float:
    """The 95% half-width of the difference of two independent means (two simulators, or two
    set-ups), from each mean's own half-width: sqrt(ours^2 + theirs^2)."""
    for name, value in (("ours", ours), ("theirs", theirs)):
        if not (value >= 0 and math.isfinite(value)):
            raise ValueError(f"{name}={value} must be finite and >= 0")
    return math.hypot(ours, theirs)


def widen(checks: int) -> float:
    """How much a 95% interval is widened when it is one of ``checks`` checks of one item
    (Bonferroni: each at 1 - 5%/checks, so the item's false alarm stays at 5%): the ratio of
    the normal quantiles, 1 for one check."""
    if checks < 1:
        raise ValueError(f"checks={checks} must be >= 1")
    if checks == 1:
        return 1.0
    normal = NormalDist()
    return normal.inv_cdf(1 - 0.025 / checks) / normal.inv_cdf(0.975)


# -- the verdict -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Verdict:
    """A check judged: its status (one of :data:`VERDICTS`), the rule that decided it (one
    of :data:`RULES`) and the sentence the Check column prints."""

    status: str
    rule: str
    words: str
    low: float  # the book's range as the rule used it (widened for the item's checks)
    high: float


def _g(x: float) -> str:
    return f"{x:.4g}"


def _rule(paper: Paper | None, book: Estimate) -> str:
    if book.basis == "yes/no":
        return "yes/no"
    if book.basis == "one run":
        return "one run"
    if paper is None:
        raise ValueError("a number needs the paper's side: its value and precision")
    if paper.relation != "equal":
        return "threshold"
    if paper.margin > 0:
        return "margin"
    return {"exact": "exact", "bound": "bound", "interval": "interval"}[book.basis]


def _ranges(book: Estimate, checks: int) -> tuple[float, float, str]:
    """The book's range as the rule uses it, widened for the item's checks, and its words."""
    if book.basis != "interval" or checks <= 1:
        return book.low, book.high, book.words
    spread = widen(checks)
    low = book.value - spread * (book.value - book.low)
    high = book.value + spread * (book.high - book.value)
    return low, high, f"{book.words}, widened for the item's {checks} checks"


def judge(paper: Paper | None, book: Estimate, checks: int = 1) -> Verdict:
    """The verdict of one check: the paper's side against the book's, by the rule they call
    for (see the module's docstring); ``checks``, how many checks with an interval its item
    has (each interval is widened for them)."""
    rule = _rule(paper, book)
    low, high, made = _ranges(book, checks)
    span = f"range [{_g(low)}, {_g(high)}] ({made})"
    if rule == "yes/no":
        ok = book.value == 1.0
        said = "holds" if ok else "does not hold"
        status = "reproduced" if ok else "differs"
        return Verdict(status, rule, f"yes/no: the statement {said} on {book.words}.", low, high)
    if rule == "one run":
        words = (
            f"one run: {book.words} has no interval, so it cannot tell a gap from noise "
            "(more runs needed)."
        )
        return Verdict("undecided", rule, words, low, high)
    assert paper is not None
    v = paper.value
    if rule == "threshold":
        side = paper.relation
        if (low > v) if side == "above" else (high < v):
            status, where = "reproduced", f"lies {side} {_g(v)}"
        elif (high <= v) if side == "above" else (low >= v):
            status, where = "differs", f"does not lie {side} {_g(v)}"
        else:
            status, where = "undecided", f"straddles {_g(v)}"
        return Verdict(status, rule, f"threshold: the book's {span} {where}.", low, high)
    if rule == "margin":
        a, b = v - paper.margin, v + paper.margin
        if a <= low and high <= b:
            status, where = "reproduced", "lies inside"
        elif high < a or low > b:
            status, where = "differs", "lies outside"
        else:
            status, where = "undecided", "overlaps the edge of"
        what = f"exact value {_g(book.value)}" if book.basis == "exact" else span
        words = f"margin: the book's {what} {where} the paper's {paper.words}."
        return Verdict(status, rule, words, low, high)
    inside = low <= v <= high
    status = "reproduced" if inside else "differs"
    if rule == "exact":
        floor = book.high - book.value
        said = "agree to floating point" if inside else f"differ by {abs(book.value - v):.2g}"
        words = f"exact: both sides are exact and {said} (±{floor:.0e})."
        return Verdict(status, rule, words, low, high)
    where = "inside" if inside else "outside"
    words = f"{rule}: the paper's {_g(v)} lies {where} the book's {span}."
    return Verdict(status, rule, words, low, high)
