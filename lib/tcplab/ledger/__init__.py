"""The reproduction ledger: every item of every paper, what the book makes of it, and where.

A reproduction is only as credible as its list of what it did not reproduce. Each chapter
package keeps a ``ledger.toml`` beside its code: one **item** per distinct item of its paper
(a figure, a table, an equation, a lemma, a statement, a slip), written once in the paper's
terms, and the book's own claims (what-ifs, results beyond the paper) as items of kind
``book``, listed the same way and never counted in the paper's coverage.

The paper's side of an item lives here: where the paper says it (``ref``), its words
(``words``), its value (``paper_value``, absent when the value is a formula each check
evaluates), the precision of that value (``precision``: ``"exact"``, the number as printed,
``"90%"``, or ``"plot: <figure>"`` with the figure's resolution stated once in
``[plot."<figure>"]``) and, for a threshold, its ``relation`` (``above``, ``below``). The
book's side is computed: ``checks`` names the keys of the chapter's
``claims.chapter_claims(tables)`` (``*`` standing for any text: ``theorem3-*``), each a value
of the book with the range it vouches for (:mod:`tcplab.ledger.tolerance`). A figure's curve
family is one item and its per-N points are its checks; a check that needs its own paper
value (another printed number of the same sentence) says so in ``at``.

An item's **status** is then computed from the shipped tables, by one function
(:func:`tcplab.ledger.verdicts.judge`): each check by the rule its two sides call for, the
item the worst of its checks (reproduced < partly < undecided < differs); an item whose
checks cover only part of what the paper says names that part in ``part`` and is at best
``partly``. A status is declared only where there is nothing to compute: a ``statement``
checked by derivation or by reading (a slip, a set-up followed), and an item ``not
attempted``; both say why in ``reason``.

The format of ``ledger.toml``::

    paper = "altman"            # the paper every item of this chapter is of
    page = "fluid-to-packets"   # the chapter's page (chapters/<page>.md)

    [plot."Fig. 11"]            # a figure values are read off: its resolution, and how
    resolution = 0.025
    how = "throughput / capacity, ticks every 0.05: half a tick"

    [[item]]
    key = "fig11-left"          # unique in the chapter
    ref = "Sec. V-D, Fig. 11 left"
    kind = "number"             # number, shape, mechanism, statement, or book (the book's own)
    words = "good qualitative conformance with Theorem 1"
    paper_value = 0.0           # optional: absent when each check evaluates a formula
    precision = "plot: Fig. 11" # "exact", a printed text ("90%"), or "plot: <figure>"
    relation = "equal"          # optional: "above" or "below" for a threshold
    checks = ["threshold-1-*"]  # the chapter's claims keys; * stands for any text (a family)
                                # (at: a check's own paper_value, precision or relation)
    at = { n6 = { paper_value = 0.95, precision = "almost 95%" } }  # a check's own paper side
    part = "..."                # optional: what the checks do not cover (status at best partly)
    status = "differs"          # only for kind statement, or not attempted (no checks)
    reason = "..."              # why it differs, what part is missing, why not attempted
    shown_in = "fig-packets-threshold"  # an id on the chapter's page
    whatif_table = "packets-threshold"  # a mechanism's what-if run in data/
    test = "tests/test_x.py::test_y"    # a statement's own test, if it has one

The statuses the book ships are recorded in ``shipped.toml`` beside this module
(:mod:`tcplab.ledger.shipped`): a table that moves a verdict fails the tests and makes
`tcplab claims` say so, until the change is recorded on purpose.
"""

from __future__ import annotations

import importlib
import math
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from functools import cache
from pathlib import Path
from typing import Any

__all__ = [
    "PAPERS",
    "KINDS",
    "STATUSES",
    "DECLARED",
    "CHAPTERS",
    "RECORD_ANCHOR",
    "Entry",
    "LedgerError",
    "entries",
    "chapter_entries",
    "chapter_plots",
    "paper_value",
    "full_tables",
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
#: what an item is: the paper's (number, shape, mechanism, statement) or the book's own
KINDS = ("number", "shape", "mechanism", "statement", "book")
#: the statuses, from best to worst (an item with checks is the worst of them)
STATUSES = ("reproduced", "partly", "undecided", "differs", "not attempted")
#: the statuses a ``statement`` may declare (the others have checks, or are not attempted)
DECLARED = ("reproduced", "partly", "undecided", "differs")
#: the chapter packages with a ledger, in book order (the one list the ledger reads)
CHAPTERS = (
    "sawtooth", "insensitivity", "moments", "packets", "microscope",
    "morris", "bmc", "lu", "lee", "ns3",
)  # fmt: skip
#: the id of an item on its chapter's reproduction record (chapters/<page>-record.md, issue
#: 50): the ledger page links an item there once that page exists
RECORD_ANCHOR = "ledger-{key}"

_TEXT = ("words", "precision", "relation", "status", "reason", "part", "shown_in",
         "whatif_table", "test")  # fmt: skip
_ALLOWED = {"key", "ref", "kind", "paper_value", "checks", "at", *_TEXT}
_RELATIONS = ("equal", "above", "below")
_FOLDER = Path(__file__).resolve().parents[1] / "chapters"
_BOOK = Path(__file__).resolve().parents[3] / "chapters"


class LedgerError(ValueError):
    """A ledger that breaks the format, or tables it cannot be computed from: the message
    names the file, the item and the field (or the table and the command that makes it)."""


@dataclass(frozen=True)
class Entry:
    """One item of a paper (or of the book, kind ``book``), as its chapter's ledger.toml
    declares it: the paper's side, the checks that compute the book's, and where it is
    shown. ``at`` maps a check to its own (paper_value, precision)."""

    chapter: str
    page: str
    paper: str
    key: str
    ref: str
    kind: str
    words: str
    checks: tuple[str, ...] = ()
    paper_value: float | None = None
    precision: str = ""
    relation: str = "equal"
    at: Mapping[str, tuple[float | None, str, str]] = field(default_factory=dict)
    status: str = ""  # declared: a statement's, or "not attempted"
    reason: str = ""
    part: str = ""
    shown_in: str = ""
    whatif_table: str = ""
    test: str = ""

    @property
    def origin(self) -> str:
        """Whose claim it is: ``paper`` (counted in the paper's coverage) or ``book``."""
        return "book" if self.kind == "book" else "paper"

    @property
    def link(self) -> str:
        """Where the chapter shows it, relative to a page in chapters/."""
        return f"{self.page}.html" + (f"#{self.shown_in}" if self.shown_in else "")

    @property
    def record(self) -> str:
        """Its line on the chapter's reproduction record, relative to a page in chapters/;
        empty until that page (chapters/<page>-record.md) exists."""
        if not (_BOOK / f"{self.page}-record.md").is_file():
            return ""
        return f"{self.page}-record.html#{RECORD_ANCHOR.format(key=self.key)}"

    def covers(self, check: str) -> bool:
        """Whether ``check`` (a key of the chapter's claims) is one of this item's: a key, or
        a family of them (``*`` stands for any text, as in a shell's file names)."""
        return any(fnmatchcase(check, pattern) for pattern in self.checks)


def _number(value: object, where: str, name: str = "paper_value") -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise LedgerError(f"{where}: {name}={value!r} must be a finite number")
    return float(value)


def _text(raw: Mapping[str, Any], where: str) -> dict[str, str]:
    out = {}
    for name in _TEXT:
        value = raw.get(name, "")
        if not isinstance(value, str):
            raise LedgerError(f"{where}: {name}={value!r} must be a string")
        out[name] = value
    return out


def _at(
    raw: object, checks: tuple[str, ...], where: str
) -> dict[str, tuple[float | None, str, str]]:
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        raise LedgerError(f"{where}: at={raw!r} must be a table of checks")
    out = {}
    for check, side in raw.items():
        if not any(fnmatchcase(check, pattern) for pattern in checks):
            raise LedgerError(f"{where}: at.{check} is not one of the item's checks {checks}")
        if not isinstance(side, dict) or set(side) - {"paper_value", "precision", "relation"}:
            raise LedgerError(f"{where}: at.{check} takes paper_value, precision and relation")
        precision, relation = side.get("precision", ""), side.get("relation", "")
        if not isinstance(precision, str) or relation not in ("", *_RELATIONS):
            raise LedgerError(
                f"{where}: at.{check}: precision={precision!r} must be a string and "
                f"relation={relation!r} one of {_RELATIONS}"
            )
        value = _number(side.get("paper_value"), where, f"at.{check}.paper_value")
        out[check] = (value, precision, relation)
    return out


def _entry(chapter: str, page: str, paper: str, raw: Mapping[str, Any], where: str) -> Entry:
    unknown = set(raw) - _ALLOWED
    if unknown:
        raise LedgerError(f"{where}: unknown fields {sorted(unknown)}; allowed {sorted(_ALLOWED)}")
    for name in ("key", "ref", "kind", "words"):
        if not isinstance(raw.get(name), str) or not raw[name].strip():
            raise LedgerError(f"{where}: {name} is required (a non-empty string)")
    if raw["kind"] not in KINDS:
        raise LedgerError(f"{where}: kind={raw['kind']!r} must be one of {KINDS}")
    text = _text(raw, where)
    checks = raw.get("checks", [])
    if not isinstance(checks, list) or not all(isinstance(c, str) and c for c in checks):
        raise LedgerError(f"{where}: checks={checks!r} must be a list of claims keys")
    status, kind = text["status"], raw["kind"]
    if checks and status:
        raise LedgerError(
            f"{where}: status={status!r} is computed from the checks, not declared (a status is "
            "declared only by a statement or an item not attempted, which have no checks)"
        )
    if not checks:
        allowed = (*DECLARED, "not attempted") if kind == "statement" else ("not attempted",)
        if status not in allowed:
            raise LedgerError(
                f"{where}: status={status!r}: an item without checks must be "
                + ("a statement's " if kind == "statement" else "")
                + f"one of {allowed}"
            )
    if text["relation"] and text["relation"] not in _RELATIONS:
        raise LedgerError(f"{where}: relation={text['relation']!r} must be equal, above or below")
    return Entry(
        chapter=chapter,
        page=page,
        paper=paper,
        key=raw["key"],
        ref=raw["ref"],
        kind=kind,
        checks=tuple(checks),
        paper_value=_number(raw.get("paper_value"), where),
        at=_at(raw.get("at"), tuple(checks), where),
        **{**text, "relation": text["relation"] or "equal"},
    )


def _read(chapter: str) -> dict[str, Any]:
    if chapter not in CHAPTERS:
        raise LedgerError(f"chapter={chapter!r} must be one of {', '.join(CHAPTERS)}")
    where = f"lib/tcplab/chapters/{chapter}/ledger.toml"
    try:
        return tomllib.loads((_FOLDER / chapter / "ledger.toml").read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise LedgerError(f"{where} is missing") from None
    except tomllib.TOMLDecodeError as error:
        raise LedgerError(f"{where}: {error}") from None


def parse(chapter: str, data: Mapping[str, Any]) -> tuple[Entry, ...]:
    """The items of one chapter's ledger, from its parsed ledger.toml (``data``)."""
    where = f"lib/tcplab/chapters/{chapter}/ledger.toml"
    paper, page = data.get("paper"), data.get("page")
    if paper not in PAPERS:
        raise LedgerError(f"{where}: paper={paper!r} must be one of {', '.join(PAPERS)}")
    if not isinstance(page, str) or not page:
        raise LedgerError(f"{where}: page={page!r} must name the chapter's page")
    unknown = set(data) - {"paper", "page", "plot", "item"}
    if unknown:
        raise LedgerError(f"{where}: unknown tables {sorted(unknown)}; allowed plot, item")
    found = [
        _entry(chapter, page, paper, raw, f"{where}, item {i + 1} ({raw.get('key', '?')})")
        for i, raw in enumerate(data.get("item", []))
    ]
    keys = [e.key for e in found]
    doubled = sorted({k for k in keys if keys.count(k) > 1})
    if doubled:
        raise LedgerError(f"{where}: keys {doubled} are declared more than once")
    patterns = [p for e in found for p in e.checks]
    twice = sorted({p for p in patterns if patterns.count(p) > 1})
    if twice:
        raise LedgerError(f"{where}: checks {twice} belong to more than one item")
    return tuple(found)


@cache
def chapter_entries(chapter: str) -> tuple[Entry, ...]:
    """The ledger of one chapter package, as its ``ledger.toml`` declares it."""
    return parse(chapter, _read(chapter))


@cache
def chapter_plots(chapter: str) -> dict[str, tuple[float, str]]:
    """The figures of a chapter's paper that values are read off: (resolution, how)."""
    where = f"lib/tcplab/chapters/{chapter}/ledger.toml"
    out = {}
    for figure, spec in _read(chapter).get("plot", {}).items():
        resolution, how = spec.get("resolution"), spec.get("how", "")
        value = _number(resolution, f"{where}, plot {figure!r}", "resolution")
        if value is None or value <= 0 or not isinstance(how, str) or not how:
            raise LedgerError(
                f"{where}: plot {figure!r} needs a resolution > 0 and how it was read (how)"
            )
        out[figure] = (value, how)
    return out


def entries(chapter: str | None = None, paper: str | None = None) -> list[Entry]:
    """Every declared item, in book order, of one chapter, one paper, or all."""
    if paper is not None and paper not in PAPERS:
        raise LedgerError(f"paper={paper!r} must be one of {', '.join(PAPERS)}")
    chosen = CHAPTERS if chapter is None else (chapter,)
    found = [e for name in chosen for e in chapter_entries(name)]
    return [e for e in found if paper is None or e.paper == paper]


def paper_value(chapter: str, key: str) -> float:
    """The paper's value of one item, as its ledger states it (for a chart's marker, or the
    prose): a LedgerError if the item has none."""
    for entry in chapter_entries(chapter):
        if entry.key == key:
            if entry.paper_value is None:
                raise LedgerError(f"{chapter}/ledger.toml, {key}: no paper_value")
            return entry.paper_value
    raise LedgerError(f"{chapter}/ledger.toml has no item {key!r}")


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


# the judging (it reads the names above; imported here so that tcplab.ledger offers it)
from .verdicts import (  # noqa: E402
    Check,
    Judged,
    check_statuses,
    evaluate,
    judge,
    judge_with,
    statuses,
)

__all__ += ["Check", "Judged", "judge", "judge_with", "evaluate", "statuses", "check_statuses"]
