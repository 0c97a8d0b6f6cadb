"""The reproduction ledger: every item of every paper, its status, and where the book shows it.

A reproduction is only as credible as its list of what it did not reproduce. Each chapter
package keeps a ``ledger.toml`` beside its code: one entry per figure, table, equation, lemma
and quantitative or qualitative statement of its paper, in the paper's own words ("Fig. 7",
"Lemma 2"), with

* ``kind``: ``number`` (a value the paper prints), ``shape`` (a property it states: rising,
  a slope, an ordering, a crossing) or ``mechanism`` (an explanation, the paper's or the
  book's, reproduced only when a what-if run that removes the cause removes the effect:
  ``whatif_table`` names that run's table in data/, a registered experiment or a table
  shipped with its metadata, such as the ns-3 appendix's runs of ns-3 itself);
* ``status``: ``reproduced``, ``partly`` (``reason`` says what part is missing), ``differs``
  (``reason`` says why, naming the experiment that shows it) or ``not attempted`` (``reason``
  says why);
* where the chapter shows it (``shown_in``: an anchor of the chapter's page) and the test that
  checks it (``test``).

An entry whose ``key`` is a key of the chapter's ``claims.chapter_claims(tables)`` takes its
claim text, the paper's value, the book's value and the tolerance from that row, computed from
the chapter's tables: the paper-vs-book table a chapter shows is part of its ledger, not a
second list. The tests hold every such row to its status (``reproduced`` and ``partly``: the
book is within the tolerance; ``differs``: it is not).

The format of ``ledger.toml``::

    paper = "altman"           # the paper every entry of this chapter reproduces
    page = "sawtooth"          # the chapter's page (chapters/<page>.md)

    [[entry]]
    key = "tcp-eta-1"          # unique in the chapter; a claims key when the row is computed
    ref = "Sec. I"
    kind = "number"
    status = "reproduced"
    shown_in = "paper-vs-book" # an id on the chapter's page (a section, figure or table)
    claim = "..."              # only for entries without a computed row
    paper_value = 0.75         # only for entries without a computed row (the paper's number)
    test = "tests/test_x.py::test_y"   # default for computed rows: the ledger's verdict test
    reason = "..."
    whatif_table = "morris-choices"
"""

from __future__ import annotations

import importlib
import math
import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from functools import cache
from pathlib import Path
from typing import Any

__all__ = [
    "PAPERS",
    "KINDS",
    "STATUSES",
    "CHAPTERS",
    "VERDICT_TEST",
    "Entry",
    "LedgerError",
    "entries",
    "chapter_entries",
    "with_claims",
    "computed_entries",
    "full_tables",
    "expected_verdicts",
    "summary",
    "rows",
    "FIELDS",
]

#: the papers (and, for the chapters beyond them, the references they check), in book order
PAPERS: dict[str, str] = {
    "altman": "Altman, Barman, Tuffin and Vojnović 2006, Parallel TCP sockets",
    "morris": "Morris 1997, TCP behavior with many flows",
    "honda": "Honda, Bidimensional-probe multipath congestion control (thesis)",
    "lu": "Lu, Qiao, Dinda and Bustamante 2005, Modeling and taming parallel TCP",
    "lee": "Lee, Abe, Hirotsu and Umemura 2012, Parallel transfers on the Internet",
    "rfc": "TCP's rules under a microscope (RFC 5681, 6298, 6582, 6675, 2018, 3042; Jacobson "
    "1988; Fall and Floyd 1996)",
    "ns3": "The packet model against ns-3 3.44 (appendix)",
}
KINDS = ("number", "shape", "mechanism")
STATUSES = ("reproduced", "partly", "differs", "not attempted")
#: the chapter packages with a ledger, in book order
CHAPTERS = (
    "sawtooth", "insensitivity", "moments", "packets", "microscope",
    "morris", "bmc", "lu", "lee", "ns3",
)  # fmt: skip
#: the test that holds every computed row to its status
VERDICT_TEST = "tests/test_chapter_claims.py::test_every_claim_has_its_expected_verdict"
#: the fields of an entry as `tcplab claims` prints them, in order
FIELDS = (
    "chapter", "paper", "ref", "kind", "claim", "paper_value", "book_value", "tolerance",
    "status", "shown_in", "test", "reason", "whatif_table",
)  # fmt: skip
_ALLOWED = {"key", "ref", "kind", "status", "shown_in", "claim", "paper_value", "test", "reason",
            "whatif_table"}  # fmt: skip
_FOLDER = Path(__file__).resolve().parents[1] / "chapters"


class LedgerError(ValueError):
    """A ledger file that breaks the format: the message names the file, the entry and field."""


@dataclass(frozen=True)
class Entry:
    """One item of a paper: what it says, what the book makes of it, where and how it is
    checked. ``paper_value``, ``book_value`` and ``tolerance`` are None where there is none
    (a statement has no tolerance; an item not attempted has no book value)."""

    chapter: str
    page: str
    paper: str
    key: str
    ref: str
    kind: str
    claim: str
    status: str
    shown_in: str
    test: str
    reason: str = ""
    whatif_table: str = ""
    paper_value: float | None = None
    book_value: float | None = None
    tolerance: float | None = None
    rule: str = ""
    computed: bool = False  # the row comes from the chapter's claims (chapter_claims)

    @property
    def link(self) -> str:
        """Where the chapter shows it, relative to a page in chapters/."""
        return f"{self.page}.html" + (f"#{self.shown_in}" if self.shown_in else "")

    def as_dict(self) -> dict[str, Any]:
        """The fields `tcplab claims` prints (JSON numbers, None as null)."""
        return {name: getattr(self, name) for name in FIELDS}


def _number(value: object, where: str) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise LedgerError(f"{where}: paper_value={value!r} must be a finite number")
    return float(value)


def _entry(chapter: str, page: str, paper: str, raw: Mapping[str, Any], where: str) -> Entry:
    unknown = set(raw) - _ALLOWED
    if unknown:
        raise LedgerError(f"{where}: unknown fields {sorted(unknown)}; allowed {sorted(_ALLOWED)}")
    for name in ("key", "ref", "kind", "status"):
        if not isinstance(raw.get(name), str) or not raw[name].strip():
            raise LedgerError(f"{where}: {name} is required (a non-empty string)")
    if raw["kind"] not in KINDS:
        raise LedgerError(f"{where}: kind={raw['kind']!r} must be one of {KINDS}")
    if raw["status"] not in STATUSES:
        raise LedgerError(f"{where}: status={raw['status']!r} must be one of {STATUSES}")
    text = {n: raw.get(n, "") for n in ("shown_in", "claim", "test", "reason", "whatif_table")}
    for name, value in text.items():
        if not isinstance(value, str):
            raise LedgerError(f"{where}: {name}={value!r} must be a string")
    return Entry(
        chapter=chapter,
        page=page,
        paper=paper,
        key=raw["key"],
        ref=raw["ref"],
        kind=raw["kind"],
        status=raw["status"],
        paper_value=_number(raw.get("paper_value"), where),
        **text,
    )


@cache
def chapter_entries(chapter: str) -> tuple[Entry, ...]:
    """The ledger of one chapter package, as its ``ledger.toml`` declares it (no computed
    values: see :func:`with_claims`)."""
    if chapter not in CHAPTERS:
        raise LedgerError(f"chapter={chapter!r} must be one of {', '.join(CHAPTERS)}")
    path = _FOLDER / chapter / "ledger.toml"
    where = f"lib/tcplab/chapters/{chapter}/ledger.toml"
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise LedgerError(f"{where} is missing") from None
    except tomllib.TOMLDecodeError as error:
        raise LedgerError(f"{where}: {error}") from None
    paper, page = data.get("paper"), data.get("page")
    if paper not in PAPERS:
        raise LedgerError(f"{where}: paper={paper!r} must be one of {', '.join(PAPERS)}")
    if not isinstance(page, str) or not page:
        raise LedgerError(f"{where}: page={page!r} must name the chapter's page")
    found = [
        _entry(chapter, page, paper, raw, f"{where}, entry {i + 1}")
        for i, raw in enumerate(data.get("entry", []))
    ]
    keys = [e.key for e in found]
    doubled = sorted({k for k in keys if keys.count(k) > 1})
    if doubled:
        raise LedgerError(f"{where}: keys {doubled} appear more than once")
    return tuple(found)


def entries(chapter: str | None = None, paper: str | None = None) -> list[Entry]:
    """Every declared entry, in book order, of one chapter, one paper, or all."""
    if paper is not None and paper not in PAPERS:
        raise LedgerError(f"paper={paper!r} must be one of {', '.join(PAPERS)}")
    chosen = CHAPTERS if chapter is None else (chapter,)
    found = [e for name in chosen for e in chapter_entries(name)]
    return [e for e in found if paper is None or e.paper == paper]


def with_claims(declared: Iterable[Entry], claims: Mapping[str, Any]) -> list[Entry]:
    """The entries with their computed rows filled in: for an entry whose key is in
    ``claims`` (a chapter's ``chapter_claims(tables)``), the claim, the paper's and the book's
    values and the tolerance of that row."""
    out = []
    for entry in declared:
        row = claims.get(entry.key)
        if row is None:
            out.append(entry)
            continue
        out.append(
            replace(
                entry,
                claim=entry.claim or row.claim,
                paper_value=float(row.paper),
                book_value=float(row.book),
                tolerance=float(row.tolerance),
                rule=getattr(row, "rule", ""),
                test=entry.test or VERDICT_TEST,
                computed=True,
            )
        )
    return out


def expected_verdicts(chapter: str) -> dict[str, bool]:
    """The verdict each computed row must have, from the ledger's status: within the
    tolerance for ``reproduced`` and ``partly``, outside it for ``differs``. The computed rows
    are the entries checked by :data:`VERDICT_TEST` (every ``number`` and ``shape`` entry the
    book attempts; a ``mechanism`` entry may name a test of its own instead)."""
    return {
        e.key: e.status != "differs"
        for e in chapter_entries(chapter)
        if e.status != "not attempted" and e.test in ("", VERDICT_TEST)
    }


def computed_entries(chapter: str, tables: Mapping[str, Any]) -> list[Entry]:
    """One chapter's ledger with the rows its claims compute from ``tables``."""
    module = importlib.import_module(f"tcplab.chapters.{chapter}.claims")
    return with_claims(chapter_entries(chapter), module.chapter_claims(tables))


def full_tables(chapter: str) -> dict[str, Any]:
    """The full-scale tables a chapter's claims read, from data/ (never computed here: a
    missing or stale table is a LedgerError naming the command that makes it)."""
    from tcplab import registry

    module = importlib.import_module(f"tcplab.chapters.{chapter}.claims")
    out = {}
    for name in module.TABLES:
        found = registry.status(name)  # missing, corrupt or stale: named, with what to run
        if found.state != "fresh":
            raise LedgerError(str(found.error(name)))
        out[name] = found.table
    return out


def summary(paper: str | None = None) -> dict[str, dict[str, int]]:
    """Per paper, how many entries have each status (every status listed, zeros included)."""
    chosen = [paper] if paper is not None else list(PAPERS)
    out: dict[str, dict[str, int]] = {}
    for name in chosen:
        found = entries(paper=name)
        if not found and paper is None:
            continue
        counts = {status: 0 for status in STATUSES}
        for e in found:
            counts[e.status] += 1
        out[name] = counts
    return out


def rows(found: Iterable[Entry]) -> list[dict[str, Any]]:
    """The entries as `tcplab claims` prints them."""
    return [e.as_dict() for e in found]
