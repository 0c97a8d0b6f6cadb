"""Paper vs. book: the book's side of every check, and the table each chapter shows.

A chapter's ``claims.chapter_claims(tables)`` computes, from its tables, one :class:`Claim`
per check: what it compares, and the book's value with the range it vouches for (an
:class:`~tcplab.ledger.tolerance.Estimate`, made by one of the rules' constructors: an exact
computation, a model's own error bound, the 95% interval of runs, a statement that holds).
The paper's side (its value, its words, their precision) is in the chapter's ledger.toml,
written once; :func:`tcplab.ledger.verdicts.judge` sets the two against each other, and
:func:`claims_html` shows the judged items: each item of the paper with its status, its
checks folded inside it.
"""

from __future__ import annotations

import html
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from . import tables
from .ledger import tolerance
from .ledger.tolerance import Estimate

__all__ = [
    "Claim",
    "holds",
    "claims_frame",
    "claims_html",
    "claim_decimals",
    "rows",
    "one_row",
    "glue_numbers",
    "LEDGER_PAGE",
]


@dataclass(frozen=True)
class Claim:
    """One check, the book's side: what it compares (``claim``), the book's value with its
    range (``book``), and, only for an item whose paper value is a formula of the check's
    parameters (eq. (5) at N), that formula's value (``paper``)."""

    claim: str
    book: Estimate
    paper: float | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.book, Estimate):
            raise TypeError(f"book={self.book!r} must be a tcplab.ledger.tolerance Estimate")
        if self.paper is not None and not math.isfinite(self.paper):
            raise ValueError(f"paper={self.paper} must be finite")

    @property
    def value(self) -> float:
        return self.book.value


def holds(claim: str, ok: bool, on: str) -> Claim:
    """A statement of the paper's, checked as true or false (``ok``) on ``on`` (what it was
    checked on: "the exact sample paths", "the set-up's parameters")."""
    return Claim(claim, tolerance.holds(ok, on))


def claims_frame(found: Mapping[str, Claim]) -> pd.DataFrame:
    """The book's side of the claims as a tidy table, one row per check."""
    return pd.DataFrame(
        [
            {"key": key, "claim": c.claim, "book": c.book.value, "low": c.book.low,
             "high": c.book.high, "basis": c.book.basis, "paper": c.paper}
            for key, c in found.items()
        ]
    )  # fmt: skip


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


CLAIMS_CAPTION = (
    "Paper vs. book: each item of the paper, the paper's value and the book's (computed when "
    "this page was built), the rule that compares them and the status it gives. "
    "“reproduced”: the book's range lies within the paper's; “differs”: outside it, and the "
    "text around this table says why; “undecided”: the book's runs are too noisy to tell."
)

#: the status words and their cell's class
_STATUS_CLASS = {
    "reproduced": "tcplab-ok",
    "partly": "tcplab-partly",
    "undecided": "tcplab-undecided",
    "differs": "tcplab-off",
}


def _cells(check) -> tuple[str, str, str]:  # noqa: ANN001  (a tcplab.ledger.verdicts.Check)
    """The Paper, Book and Check cells of one check."""
    book, paper = check.book, check.paper
    if book.basis == "yes/no":
        return "yes", ("yes" if book.value else "no"), html.escape(check.verdict.words)
    blur = max(book.half_width, paper.margin if paper else 0.0) or tolerance.EXACT
    decimals = claim_decimals(blur)
    shown_paper = tables.DASH if paper is None else _value(paper.value, decimals, True)
    shown_book = _value(book.value, decimals, False)
    return shown_paper, shown_book, html.escape(check.verdict.words)


def _row(judged) -> str:  # noqa: ANN001  (a tcplab.ledger.verdicts.Judged)
    entry, top = judged.entry, judged.deciding
    paper, book, check = _cells(top)
    many = len(judged.checks) > 1
    what = top.claim + (f" (the check that decides, of {len(judged.checks)})" if many else "")
    mark = " (the book's own)" if entry.origin == "book" else ""
    part = f"<br><small>Not covered: {html.escape(entry.part)}</small>" if entry.part else ""
    css = "" if top.book.basis == "yes/no" else ' class="tcplab-num"'
    status = judged.status
    row = (
        f'<tr data-status="{status}">'
        f'<th scope="row">{html.escape(entry.ref)}{mark}<br>'
        f'<small class="tcplab-source">{html.escape(what)}</small>{part}</th>'
        f'<td{css} data-label="Paper">{paper}</td><td{css} data-label="Book">{book}</td>'
        f'<td class="tcplab-check" data-label="Check">{check}</td>'
        f'<td class="{_STATUS_CLASS[status]}" data-label="Status">{status}</td></tr>'
    )
    if not many:
        return row
    lines = []
    for c in judged.checks:
        p, b, words = _cells(c)
        lines.append(
            f"<li>{html.escape(c.claim)}: paper {p}, book {b}: "
            f'<span class="{_STATUS_CLASS[c.status]}">{c.status}</span>. {words}</li>'
        )
    return row + (
        '<tr class="tcplab-checks"><td colspan="5"><details>'
        f"<summary>All {len(judged.checks)} checks of this item</summary>"
        f"<ul>{''.join(lines)}</ul></details></td></tr>"
    )


def claims_html(judged: Iterable, caption: str = CLAIMS_CAPTION) -> str:
    """The paper-vs-book table as HTML: one row per item judged
    (:func:`tcplab.ledger.verdicts.judge`), its checks folded below it when it has several.

    Values are printed to one digit finer than the check's blur; a yes/no statement prints as
    words; the Check column names the rule that decided the row."""
    head = "".join(
        f'<th scope="col">{h}</th>'
        for h in ("What the paper says (where)", "Paper", "Book", "Check", "Status")
    )
    judged = [j for j in judged if j.checks]
    body = "".join(_row(j) for j in judged)
    table = (
        '<table class="tcplab-claims tcplab-table table">'
        f"<caption>{html.escape(caption)}</caption>"
        f"<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"
    )
    ledger = (
        '<p class="tcplab-ledger-link">Every item of the paper, with its status, including '
        f'those this table does not hold: <a href="{LEDGER_PAGE}">What this book '
        "reproduces</a>.</p>"
    )
    # a page with several of these tells their regions apart by their first item (axe:
    # landmark-unique; the reader's report found three regions named "Paper vs. book")
    name = f"Paper vs. book: {judged[0].entry.ref}" if judged else "Paper vs. book"
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


def keyed(found: Sequence[tuple[str, Claim]]) -> dict[str, Claim]:
    """Claims under their keys, refusing a key given twice (a check is computed once)."""
    out: dict[str, Claim] = {}
    for key, claim in found:
        if key in out:
            raise ValueError(f"claim key {key!r} is computed twice")
        out[key] = claim
    return out
