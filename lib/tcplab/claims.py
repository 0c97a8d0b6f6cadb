"""Paper-versus-book claims: the paper's number, ours, and the tolerance we stand behind.

Every reproduced figure or table in the book ends in such a table. The paper's value is quoted
from the paper (with where it says it); ours is computed by the model when the chapter runs;
the tests check every claim with the same tolerance the chapter prints.
"""

from __future__ import annotations

import html
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd

__all__ = ["Claim", "claims_frame", "claims_html", "rows", "one_row", "glue_numbers"]


@dataclass(frozen=True)
class Claim:
    """One reproduced number: what the paper says, what we get, and how close we promise."""

    claim: str
    source: str
    paper: float
    book: float
    tolerance: float

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


def _number(value: float) -> str:
    return f"{value:.6g}"


def claims_html(claims: Iterable[Claim]) -> str:
    """The paper-vs-book table as HTML, with a clear verdict per row."""
    head = "".join(
        f"<th>{h}</th>" for h in ("Claim", "Paper", "Book", "Difference", "Tolerance", "Agrees")
    )
    body = []
    for c in claims:
        verdict = '<td class="tcplab-ok">yes</td>' if c.within else '<td class="tcplab-off">no</td>'
        body.append(
            "<tr>"
            f"<td>{html.escape(c.claim)}<br><small>{html.escape(c.source)}</small></td>"
            f"<td>{_number(c.paper)}</td><td>{_number(c.book)}</td>"
            f"<td>{c.difference:+.2e}</td><td>&plusmn;{c.tolerance:.1e}</td>{verdict}</tr>"
        )
    return (
        '<table class="tcplab-claims table">'
        f"<thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"
    )


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
    """Glue every number a chapter's prose quotes (``{glue:text}`name``` in MyST)."""
    from myst_nb import glue

    for name, value in numbers.items():
        glue(name, value, display=False)
