"""The page "What this book reproduces": every paper's ledger, counted and listed.

Per paper, its items counted by status, and the book's own claims apart; then every item as a
row a reader can filter by status, kind, paper and whose claim it is, offline (a few lines of
script on the page: no server, nothing loaded), each linking to where its chapter shows it
(and to its line on the chapter's reproduction record, once that page exists). Everything on
the page is computed from the ledgers and the chapters' shipped tables when the book builds,
by :func:`tcplab.ledger.verdicts.judge`.
"""

from __future__ import annotations

import html
from collections.abc import Sequence

from tcplab import tables

from . import KINDS, PAPERS, STATUSES
from .verdicts import Judged

__all__ = ["counts_html", "ledger_html", "FILTER_SCRIPT"]

#: the filters' script: hides the rows whose status or kind is not the one chosen, and says how
#: many rows are shown (for a screen reader too: the count is a live region)
FILTER_SCRIPT = """
(function () {
  var box = document.currentScript.previousElementSibling;
  var status = box.querySelector("select[name=status]");
  var kind = box.querySelector("select[name=kind]");
  var paper = box.querySelector("select[name=paper]");
  var origin = box.querySelector("select[name=origin]");
  var shown = box.querySelector(".tcplab-ledger-shown");
  function apply() {
    var rows = box.querySelectorAll("tbody tr");
    var n = 0;
    rows.forEach(function (row) {
      var keep = (!status.value || row.dataset.status === status.value) &&
                 (!kind.value || row.dataset.kind === kind.value) &&
                 (!paper.value || row.dataset.paper === paper.value) &&
                 (!origin.value || row.dataset.origin === origin.value);
      row.hidden = !keep;
      if (keep) { n += 1; }
    });
    shown.textContent = n + " of " + rows.length + " items shown";
  }
  [status, kind, paper, origin].forEach(function (s) { s.addEventListener("change", apply); });
  apply();
})();
"""


def _number(value: float | None) -> str:
    if value is None:
        return tables.DASH
    return tables.number(value, "4 sig")


_ORIGINS = (("paper", "The papers' items"), ("book", "The book's own claims"))


def counts_html(found: Sequence[Judged]) -> str:
    """Per paper, how many of its items have each status, and apart, how many of the book's
    own claims: two tables, one row per paper."""
    head = "".join(f'<th scope="col">{s}</th>' for s in ("Paper", *STATUSES, "all"))
    boxes = []
    for origin, title in _ORIGINS:
        body = []
        for paper, name in PAPERS.items():
            mine = [j for j in found if j.entry.paper == paper and j.entry.origin == origin]
            if not mine:
                continue
            cells = "".join(
                f'<td class="tcplab-num">{sum(j.status == s for j in mine)}</td>' for s in STATUSES
            )
            body.append(
                f'<tr data-paper="{paper}" data-origin="{origin}"><th scope="row">'
                f'{html.escape(name)}</th>{cells}<td class="tcplab-num">{len(mine)}</td></tr>'
            )
        what = (
            "How many items of each paper the book reproduces, in part or not, cannot yet tell "
            "(undecided: more runs needed) or has not attempted"
            if origin == "paper"
            else "The book's own claims (what-if runs, results beyond the papers), by status: "
            "never counted as a paper's items"
        )
        table = (
            f'<table class="tcplab-table tcplab-ledger-counts table" data-origin="{origin}">'
            f"<caption>{what} (computed from the ledgers and the shipped tables when the book "
            f"was built).</caption><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody>"
            "</table>"
        )
        boxes.append(tables._scroll_box(table, title))
    return "".join(boxes)


def _select(name: str, label: str, options: Sequence[tuple[str, str]]) -> str:
    choices = "".join(
        f'<option value="{html.escape(v)}">{html.escape(t)}</option>' for v, t in options
    )
    return (
        f'<label class="tcplab-ledger-filter">{label} '
        f'<select name="{name}"><option value="">all</option>{choices}</select></label>'
    )


def _values(j: Judged) -> str:
    top = j.deciding
    if top is None:
        return tables.DASH
    if top.book.basis == "yes/no":
        said = "yes" if top.book.value else "no"
        lines = [f"statement holds: {said}"]
    else:
        paper = tables.DASH if top.paper is None else _number(top.paper.value)
        lines = [f"paper {paper}", f"book {_number(top.book.value)}"]
        if top.book.basis not in ("exact", "one run"):
            lines.append(f"range {_number(top.verdict.low)} to {_number(top.verdict.high)}")
    lines.append(f"rule: {top.verdict.rule}")
    if len(j.checks) > 1:
        lines.append(f"({len(j.checks)} checks; this one decides)")
    return "<br>".join(html.escape(line) for line in lines)


def _row(j: Judged) -> str:
    e = j.entry
    verdict = html.escape(j.status)
    small = [html.escape(e.reason)] if e.reason else []
    if e.part:
        small.append(f"Not covered: {html.escape(e.part)}")
    if e.whatif_table:
        small.append(f"What-if run: <code>data/{html.escape(e.whatif_table)}.csv</code>")
    where = "Shown in" if e.shown_in else "Its chapter:"
    small.append(f'{where} <a href="{html.escape(e.link)}">{html.escape(e.page)}</a>')
    if e.record:
        small.append(f'<a href="{html.escape(e.record)}">Its reproduction record</a>')
    why = "".join(f"<br><small>{line}</small>" for line in small)
    mark = " (the book's own)" if e.origin == "book" else ""
    return (
        f'<tr id="ledger-{e.chapter}-{html.escape(e.key)}" data-status="{verdict}" '
        f'data-kind="{e.kind}" data-paper="{e.paper}" data-origin="{e.origin}">'
        f'<th scope="row">{html.escape(e.ref)}{mark} <small class="tcplab-ledger-kind">'
        f"({e.kind})</small><br><small>{html.escape(e.words)}</small></th>"
        f'<td class="tcplab-num">{_values(j)}</td>'
        f'<td class="tcplab-ledger-status">{verdict}{why}</td></tr>'
    )


def ledger_html(found: Sequence[Judged]) -> str:
    """Every item of ``found`` as one filterable table (by status, kind, paper and whose)."""
    papers = [(p, p) for p in PAPERS if any(j.entry.paper == p for j in found)]
    filters = (
        '<div class="tcplab-ledger-filters" role="group" aria-label="Filter the ledger">'
        + _select("status", "Status", [(s, s) for s in STATUSES])
        + _select("kind", "Kind", [(k, k) for k in KINDS])
        + _select("paper", "Paper", papers)
        + _select("origin", "Whose", [("paper", "the paper's"), ("book", "the book's own")])
        + '<span class="tcplab-ledger-shown" role="status" aria-live="polite"></span></div>'
    )
    head = "".join(
        f'<th scope="col">{h}</th>'
        for h in ("Item (the paper's name), kind and words", "Paper and book", "Status")
    )
    body = "".join(_row(j) for j in found)
    table = (
        '<table class="tcplab-table tcplab-ledger table">'
        "<caption>The ledger: every item of every paper and the book's own claims, the "
        "paper's value and the book's where there is a number (for an item with several "
        "checks, the one that sets its status), the rule that compares them, the status, and "
        "where the chapter shows it.</caption>"
        f"<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"
    )
    return (
        f'<div class="tcplab-ledger-box">{filters}'
        f"{tables._scroll_box(table, 'The ledger')}</div>"
        f"<script>{FILTER_SCRIPT}</script>"
    )
