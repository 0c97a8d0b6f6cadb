"""The page "What this book reproduces": every paper's ledger, counted and listed.

Per paper, the counts by status, then every entry as a row a reader can filter by status and
kind, offline (a few lines of script on the page: no server, nothing loaded), each linking to
where its chapter shows it. Everything on the page is computed from the ledgers and the
chapters' shipped tables when the book builds.
"""

from __future__ import annotations

import html
from collections.abc import Sequence

from tcplab import tables

from . import KINDS, PAPERS, STATUSES, Entry

__all__ = ["counts_html", "ledger_html", "FILTER_SCRIPT"]

#: the filters' script: hides the rows whose status or kind is not the one chosen, and says how
#: many rows are shown (for a screen reader too: the count is a live region)
FILTER_SCRIPT = """
(function () {
  var box = document.currentScript.previousElementSibling;
  var status = box.querySelector("select[name=status]");
  var kind = box.querySelector("select[name=kind]");
  var paper = box.querySelector("select[name=paper]");
  var shown = box.querySelector(".tcplab-ledger-shown");
  function apply() {
    var rows = box.querySelectorAll("tbody tr");
    var n = 0;
    rows.forEach(function (row) {
      var keep = (!status.value || row.dataset.status === status.value) &&
                 (!kind.value || row.dataset.kind === kind.value) &&
                 (!paper.value || row.dataset.paper === paper.value);
      row.hidden = !keep;
      if (keep) { n += 1; }
    });
    shown.textContent = n + " of " + rows.length + " entries shown";
  }
  [status, kind, paper].forEach(function (s) { s.addEventListener("change", apply); });
  apply();
})();
"""


def _number(value: float | None) -> str:
    if value is None:
        return tables.DASH
    return tables.number(value, "4 sig")


def counts_html(found: Sequence[Entry]) -> str:
    """Per paper, how many entries have each status: a table, one row per paper."""
    head = "".join(f'<th scope="col">{s}</th>' for s in ("Paper", *STATUSES, "all"))
    body = []
    for paper, title in PAPERS.items():
        mine = [e for e in found if e.paper == paper]
        if not mine:
            continue
        cells = "".join(
            f'<td class="tcplab-num">{sum(e.status == s for e in mine)}</td>' for s in STATUSES
        )
        body.append(
            f'<tr data-paper="{paper}"><th scope="row">{html.escape(title)}</th>{cells}'
            f'<td class="tcplab-num">{len(mine)}</td></tr>'
        )
    table = (
        '<table class="tcplab-table tcplab-ledger-counts table">'
        "<caption>How many items of each paper the book reproduces, in part or not, and how "
        "many it has not attempted (computed from the ledgers when the book was built).</caption>"
        f"<thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"
    )
    return tables._scroll_box(table, "Items per paper and status")


def _select(name: str, label: str, options: Sequence[tuple[str, str]]) -> str:
    choices = "".join(
        f'<option value="{html.escape(v)}">{html.escape(t)}</option>' for v, t in options
    )
    return (
        f'<label class="tcplab-ledger-filter">{label} '
        f'<select name="{name}"><option value="">all</option>{choices}</select></label>'
    )


def _values(e: Entry) -> str:
    if e.paper_value is None and e.book_value is None:
        return tables.DASH
    if e.tolerance == 0 and {e.paper_value, e.book_value} <= {0.0, 1.0}:  # a statement
        paper, book = ("yes" if v else "no" for v in (e.paper_value, e.book_value))
        return f"paper: {paper}<br>book: {book}"
    lines = [f"paper {_number(e.paper_value)}", f"book {_number(e.book_value)}"]
    if e.tolerance is not None:
        lines.append(f"tolerance ±{tables.number(e.tolerance, '2 sig')}")
    return "<br>".join(lines)


def _row(e: Entry) -> str:
    verdict = html.escape(e.status)
    why = f"<br><small>{html.escape(e.reason)}</small>" if e.reason else ""
    whatif = (
        f"<br><small>What-if run: <code>data/{html.escape(e.whatif_table)}.csv</code></small>"
        if e.whatif_table
        else ""
    )
    where = (
        f'<br><small>Shown in <a href="{html.escape(e.link)}">{html.escape(e.page)}</a></small>'
        if e.shown_in
        else ""
    )
    return (
        f'<tr id="ledger-{e.chapter}-{html.escape(e.key)}" data-status="{verdict}" '
        f'data-kind="{e.kind}" data-paper="{e.paper}">'
        f'<th scope="row">{html.escape(e.ref)} <small class="tcplab-ledger-kind">({e.kind})'
        f"</small><br><small>{html.escape(e.claim)}</small></th>"
        f'<td class="tcplab-num">{_values(e)}</td>'
        f'<td class="tcplab-ledger-status">{verdict}{why}{whatif}{where}</td></tr>'
    )


def ledger_html(found: Sequence[Entry]) -> str:
    """Every entry of ``found`` as one filterable table (by status, kind and paper)."""
    papers = [(p, p) for p in PAPERS if any(e.paper == p for e in found)]
    filters = (
        '<div class="tcplab-ledger-filters" role="group" aria-label="Filter the ledger">'
        + _select("status", "Status", [(s, s) for s in STATUSES])
        + _select("kind", "Kind", [(k, k) for k in KINDS])
        + _select("paper", "Paper", papers)
        + '<span class="tcplab-ledger-shown" role="status" aria-live="polite"></span></div>'
    )
    head = "".join(
        f'<th scope="col">{h}</th>'
        for h in ("Item (the paper's name), kind and claim", "Paper and book", "Status")
    )
    body = "".join(_row(e) for e in found)
    table = (
        '<table class="tcplab-table tcplab-ledger table">'
        "<caption>The ledger: every item of every paper, the paper's value and the book's "
        "where there is a number, the tolerance by the book's rule, the status, and where the "
        "chapter shows it.</caption>"
        f"<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"
    )
    return (
        f'<div class="tcplab-ledger-box">{filters}'
        f"{tables._scroll_box(table, 'The ledger')}</div>"
        f"<script>{FILTER_SCRIPT}</script>"
    )
