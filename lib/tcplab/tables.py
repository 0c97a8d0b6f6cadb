"""One table style for the book: headers in words with units, numbers to the digits that matter.

A chapter shows a result table with :func:`show`: it picks the columns to print, names each in
words (with its unit), and says how precisely each is printed. The output is plain HTML, the
same in the book and in Jupyter: no index, numbers right-aligned in tabular figures, no
``-0.00``, no ``e-05`` (small numbers read ``2.2 × 10⁻⁵``), true/false as yes/no, missing
values as a dash, and a table wider than the page scrolls in its own box instead of the page.

Formats (``precision``, per column or one for all):

* an int ``n``: ``n`` decimals (``3`` -> ``0.750``);
* ``"n%"``: a percentage with ``n`` decimals (``"1%"`` -> ``75.0%``);
* ``"n sig"``: ``n`` significant digits, written with a power of ten when tiny or huge;
* ``"fraction"``: ``5/24`` when the value is such a fraction, else 6 significant digits;
* ``"int"``: a whole number; ``"text"``: as is.

Columns of integers, booleans and text are recognised by their dtype.
"""

from __future__ import annotations

import html
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

__all__ = ["Table", "show", "number", "significant", "power_of_ten", "fixed"]

_SUPERSCRIPT = str.maketrans("0123456789-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻")
MINUS = "−"  # U+2212, the typographic minus sign
DASH = "—"  # a missing value
_FORMAT = re.compile(r"^\s*(?:(?P<pct>\d+)\s*%|(?P<sig>\d+)\s*sig|(?P<word>fraction|int|text))\s*$")


def _sign(text: str, negative: bool) -> str:
    """Prefix the minus sign, unless the printed digits are all zero (no ``-0.00``)."""
    if negative and any(ch in "123456789" for ch in text):
        return MINUS + text
    return text


def fixed(value: float, decimals: int) -> str:
    """``value`` with ``decimals`` decimals and a real minus sign; never ``-0.00``."""
    return _sign(f"{abs(value):.{decimals}f}", value < 0)


def power_of_ten(value: float, digits: int = 2) -> str:
    """``2.2 × 10⁻⁵`` (``digits`` significant digits); ``10⁻⁶`` for an exact power of ten."""
    if value == 0:
        return "0"
    mantissa, exponent = f"{abs(value):.{max(digits, 1) - 1}e}".split("e")
    power = "10" + str(int(exponent)).translate(_SUPERSCRIPT)
    if float(mantissa) == 1.0:
        return _sign(power, value < 0)
    return _sign(f"{mantissa} × {power}", value < 0)


def significant(value: float, digits: int = 3) -> str:
    """``digits`` significant digits: plain between 10⁻³ and 10⁶, else with a power of ten."""
    if value == 0:
        return "0"
    rounded = float(f"{abs(value):.{max(digits, 1) - 1}e}")  # 9.996 -> 10.0 before choosing
    if 1e-3 <= rounded < 1e6:
        decimals = max(digits - 1 - math.floor(math.log10(rounded)), 0)
        return _sign(f"{rounded:.{decimals}f}", value < 0)
    return power_of_ten(value, digits)


def number(value: object, precision: int | str = 3) -> str:
    """One cell as text, in one of the formats of the module docstring."""
    if value is None or (isinstance(value, float) and math.isnan(value)) or value is pd.NA:
        return DASH
    if isinstance(value, (bool, np.bool_)):
        return "yes" if value else "no"
    if isinstance(precision, str):
        found = _FORMAT.match(precision)
        if found is None:
            raise ValueError(
                f"precision={precision!r}: expected an int, 'n%', 'n sig', 'fraction', "
                "'int' or 'text'"
            )
        if found["word"] == "text" or isinstance(value, str):
            return str(value)
        x = float(value)  # type: ignore[arg-type]
        if found["pct"] is not None:
            return fixed(100 * x, int(found["pct"])) + "%"
        if found["sig"] is not None:
            return significant(x, int(found["sig"]))
        if found["word"] == "int":
            return _sign(f"{round(abs(x)):,}".replace(",", " "), x < 0)
        from .charts import fraction  # "fraction"

        exact = fraction(abs(x), fallback=None)
        return _sign(exact, x < 0) if "/" in exact or "." not in exact else significant(x, 6)
    if isinstance(value, str):
        return value
    if isinstance(value, (int, np.integer)):
        return _sign(f"{abs(int(value))}", int(value) < 0)
    return fixed(float(value), int(precision))  # type: ignore[arg-type]


@dataclass(frozen=True)
class Table:
    """A formatted table: shows itself as HTML in Jupyter and in the book."""

    html: str

    def _repr_html_(self) -> str:
        return self.html

    def __str__(self) -> str:
        return self.html


def _kind(series: pd.Series) -> str:
    if pd.api.types.is_bool_dtype(series):
        return "yes/no"
    if pd.api.types.is_integer_dtype(series):
        return "int"
    if pd.api.types.is_numeric_dtype(series):
        return "number"
    return "text"


def show(
    frame: pd.DataFrame,
    columns: Mapping[str, str] | Sequence[str] | None = None,
    precision: int | str | Mapping[str, int | str] = 3,
    caption: str | None = None,
    row_header: bool = True,
) -> Table:
    """``frame`` as a book table.

    ``columns`` maps each column to print, in order, to its header in words with units (a
    list keeps the column names); ``precision`` is one format for every number or one per
    column (see the module docstring; columns left out get 3 decimals). The index is never
    printed: make a column of it first. With ``row_header`` the first column labels its row.
    """
    if columns is None:
        columns = {name: str(name) for name in frame.columns}
    elif not isinstance(columns, Mapping):
        columns = {name: str(name) for name in columns}
    missing = [name for name in columns if name not in frame.columns]
    if missing:
        raise ValueError(f"columns={missing}: not in the table (it has {list(frame.columns)})")
    formats = precision if isinstance(precision, Mapping) else dict.fromkeys(columns, precision)
    unknown = [name for name in formats if name not in columns]
    if unknown:
        raise ValueError(f"precision={unknown}: not among the columns printed")
    head = "".join(f'<th scope="col">{html.escape(str(words))}</th>' for words in columns.values())
    body = []
    kinds = {name: _kind(frame[name]) for name in columns}
    for values in frame[list(columns)].itertuples(index=False, name=None):
        cells = []
        for position, (name, value) in enumerate(zip(columns, values, strict=True)):
            kind = kinds[name]
            fmt = formats.get(name, 3)
            if kind == "int" and not isinstance(fmt, str):
                fmt = "int"
            text = html.escape(number(value, fmt))
            numeric = kind in ("number", "int") and text != DASH
            css = ' class="tcplab-num"' if numeric else ""
            tag = "th" if row_header and position == 0 else "td"
            scope = ' scope="row"' if tag == "th" else ""
            label = f' data-label="{html.escape(str(columns[name]))}"'  # a phone's card names it
            cells.append(f"<{tag}{scope}{css}{label}>{text}</{tag}>")
        body.append("<tr>" + "".join(cells) + "</tr>")
    title = f"<caption>{html.escape(caption)}</caption>" if caption else ""
    table = (
        f'<table class="tcplab-table table">{title}<thead><tr>{head}</tr></thead>'
        f"<tbody>{''.join(body)}</tbody></table>"
    )
    return Table(_scroll_box(table, caption or ", ".join(map(str, columns.values()))))


def _scroll_box(table: str, label: str) -> str:
    """A table too wide for a phone scrolls in its own box, reachable from the keyboard."""
    return (
        f'<div class="tcplab-table-box" role="region" tabindex="0" '
        f'aria-label="{html.escape(_short(label))}">{table}</div>'
    )


def _short(text: str, limit: int = 120) -> str:
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"
