"""Paper-versus-book claims: the paper's number, ours, and the tolerance we stand behind.

Every reproduced figure or table in the book ends in such a table. The paper's value is quoted
from the paper (with where it says it); ours is computed by the model when the chapter runs;
the tests check every claim with the same tolerance the chapter prints. The tolerance comes
from one of the book's rules (:mod:`tcplab.ledger.tolerance`: the paper's printed precision,
our replicas' 95% interval, a plot's resolution), never chosen per row: :func:`ruled` makes a
claim from such a rule and keeps the sentence that says which rule set it. Each row is an
entry of its chapter's ledger (:mod:`tcplab.ledger`), where its status is declared.
"""

from __future__ import annotations

import html
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd

from . import tables
from .ledger.tolerance import Tolerance, statement

__all__ = [
    "Claim",
    "ruled",
    "claims_frame",
    "claims_html",
    "claim_decimals",
    "is_yes_no",
    "yes_no",
    "rows",
    "one_row",
    "glue_numbers",
]


@dataclass(frozen=True)
class Claim:
    """One reproduced number: what the paper says, what we get, and how close we promise."""

    claim: str
    source: str
    paper: float
    book: float
    tolerance: float
    rule: str = ""  # the sentence that says which rule set the tolerance (tcplab.ledger.tolerance)

    @property
    def difference(self) -> float:
        return self.book - self.paper

    @property
    def within(self) -> bool:
        return abs(self.difference) <= self.tolerance


def claims_frame(claims: Iterable[Claim]) -> pd.DataFrame:
    """A tidy table of claims, one row each."""
    rows = [
        {
            "claim": c.claim,
            "source": c.source,
            "paper": c.paper,
            "book": c.book,
            "difference": c.difference,
            "tolerance": c.tolerance,
            "within": c.within,
        }
        for c in claims
    ]
    return pd.DataFrame(rows)


def ruled(claim: str, source: str, paper: float, book: float, tolerance: Tolerance) -> Claim:
    """A claim whose tolerance comes from one of the book's rules (``tolerance``, made by
    :mod:`tcplab.ledger.tolerance`)."""
    return Claim(claim, source, float(paper), float(book), tolerance.value, tolerance.rule)


def yes_no(claim: str, source: str, paper: bool, book: bool) -> Claim:
    """A statement the paper makes in words, checked as true or false (tolerance 0).

    ``claim`` is the statement, worded so that "yes" means it holds; ``paper`` is what the
    paper says (almost always True), ``book`` whether it holds in the book's runs."""
    return ruled(claim, source, float(paper), float(book), statement())


def is_yes_no(claim: Claim) -> bool:
    """A yes/no statement: tolerance 0 and both values 0 or 1 (see :func:`yes_no`)."""
    return claim.tolerance == 0 and {claim.paper, claim.book} <= {0.0, 1.0}


def claim_decimals(tolerance: float) -> int:
    """Decimals that show a value to the precision its tolerance makes matter: one digit
    finer than the tolerance (0.03 -> 3, 10⁻⁶ -> 7), between 0 and 9."""
    if not tolerance > 0 or math.isinf(tolerance):
        return 6
    return min(max(math.ceil(-math.log10(tolerance)) + 1, 0), 9)


def _value(value: float, decimals: int, shortest: bool) -> str:
    text = tables.fixed(value, decimals)
    if shortest and "." in text:  # the paper's value as the paper prints it: 0.75, not 0.750000
        text = text.rstrip("0").rstrip(".")
    return text


def _check(claim: Claim, decimals: int) -> str:
    """The row's verdict as a sentence the reader can redo by hand."""
    if is_yes_no(claim):
        if claim.within:
            return "The statement holds in the book's runs, as the paper says."
        return "The statement does not hold in the book's runs: see the text."
    gap = abs(claim.difference)
    allowed = tables.significant(claim.tolerance, 2) if claim.tolerance else "0"
    if "." in allowed and "×" not in allowed:
        allowed = allowed.rstrip("0").rstrip(".")
    if gap == 0:
        said = "The book's value equals the paper's"
    else:
        small = gap < 0.5 * 10.0**-decimals  # too small for the row's decimals
        off = tables.power_of_ten(gap, 1) if small else tables.fixed(gap, decimals)
        said = f"The book is {off} {'above' if claim.difference > 0 else 'below'} the paper"
    why = _RULE_WORDS.get(claim.rule.split(":")[0], "")
    if claim.within:
        return f"{said}: within the tolerance ±{allowed}{why}."
    return f"{said}: outside the tolerance ±{allowed}{why} (see the text)."


#: how the Check column names the rule that set a row's tolerance
_RULE_WORDS = {
    "printed": " (the paper's printed precision)",
    "plot": " (the resolution of a reading off the paper's plot)",
    "interval": " (the 95% interval of the book's runs)",
    "exact": " (floating point: both sides are exact)",
}


CLAIMS_CAPTION = (
    "Paper vs. book: the paper's value, the book's (computed when this page was built) and "
    "the tolerance the book promises. “yes”: the book is within that tolerance of the paper. "
    "“no”: the book does not reproduce the paper there; the text around this table says why."
)


def claims_html(claims: Iterable[Claim], caption: str = CLAIMS_CAPTION) -> str:
    """The paper-vs-book table as HTML: each row reads as a sentence a student can check.

    Values are printed to one digit finer than the row's tolerance; a yes/no statement
    (:func:`yes_no`) prints as words; the caption says what a "no" means."""
    head = "".join(
        f'<th scope="col">{h}</th>'
        for h in ("What the paper says (where)", "Paper", "Book", "Check", "Agrees?")
    )
    body = []
    claims = list(claims)
    for c in claims:
        decimals = claim_decimals(c.tolerance)
        if is_yes_no(c):
            paper, book = ("yes" if c.paper else "no"), ("yes" if c.book else "no")
            css = ""
        else:
            paper = _value(c.paper, decimals, shortest=True)
            book = _value(c.book, decimals, shortest=False)
            css = ' class="tcplab-num"'
        verdict = (
            '<td class="tcplab-ok" data-label="Agrees?">yes</td>'
            if c.within
            else '<td class="tcplab-off" data-label="Agrees?">no</td>'
        )
        body.append(
            "<tr>"
            f'<th scope="row">{html.escape(c.claim)}<br>'
            f'<small class="tcplab-source">{html.escape(c.source)}</small></th>'
            f'<td{css} data-label="Paper">{paper}</td><td{css} data-label="Book">{book}</td>'
            f'<td class="tcplab-check" data-label="Check">{html.escape(_check(c, decimals))}</td>'
            f"{verdict}</tr>"
        )
    table = (
        '<table class="tcplab-claims tcplab-table table">'
        f"<caption>{html.escape(caption)}</caption>"
        f"<thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"
    )
    ledger = (
        '<p class="tcplab-ledger-link">Every item of the paper, with its status, including '
        f'those this table does not hold: <a href="{LEDGER_PAGE}">What this book '
        "reproduces</a>.</p>"
    )
    # a page with several of these tells their regions apart by their first claim (axe:
    # landmark-unique; the reader's report found three regions named "Paper vs. book")
    name = f"Paper vs. book: {claims[0].claim}" if claims else "Paper vs. book"
    return tables._scroll_box(table, name) + ledger


#: the back-matter page with every chapter's ledger (chapters/reproduces.md)
LEDGER_PAGE = "reproduces.html"


def rows(table: pd.DataFrame, **where: float | str) -> pd.DataFrame:
    """The rows where every column equals its value (numbers compared with ``np.isclose``)."""
    mask = np.ones(len(table), dtype=bool)
    for column, value in where.items():
        if isinstance(value, str):
            mask &= (table[column] == value).to_numpy()
        else:
            mask &= np.isclose(table[column].to_numpy(dtype=float), value)
    return table[mask]


def one_row(table: pd.DataFrame, **where: float | str) -> pd.Series:
    """The one row where every column equals its value; a ValueError if there is not one."""
    found = rows(table, **where)
    if len(found) != 1:
        raise ValueError(f"expected one row where {where}, found {len(found)}")
    return found.iloc[0]


def glue_numbers(numbers: Mapping[str, object]) -> None:
    """Glue every number a chapter's prose quotes (``{glue:text}`name``` in MyST) for the
    book's build; in a notebook opened without the book's tools (Colab), where nothing reads
    the glued values, there is nothing to do."""
    try:
        from myst_nb import glue
    except ModuleNotFoundError:
        return

    for name, value in numbers.items():
        glue(name, value, display=False)
