"""The one function that turns a ledger and the book's tables into statuses: :func:`judge`.

`tcplab claims`, the page "What this book reproduces" and each chapter's paper-vs-book table
all call it: each check of an item is judged by :func:`tcplab.ledger.tolerance.judge` (the
paper's side from ledger.toml, the book's from the chapter's claims), and the item takes the
worst of its checks' verdicts; a status is declared only by a statement or an item not
attempted, which have no checks.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from fnmatch import fnmatchcase
from typing import Any

from . import PAPERS, STATUSES, Entry, LedgerError, chapter_entries, chapter_plots, full_tables
from . import tolerance as rules

__all__ = [
    "Check", "Judged", "judge", "judge_with", "evaluate", "summary", "rows", "FIELDS", "worst",
    "statuses", "check_statuses",
]  # fmt: skip

#: the order of badness of the computed statuses
_ORDER = {"reproduced": 0, "partly": 1, "undecided": 2, "differs": 3}
#: the fields of an item as `tcplab claims` prints it (--json, --csv), in order
FIELDS = (
    "chapter", "paper", "origin", "key", "ref", "kind", "words", "status", "computed",
    "paper_value", "precision", "book_value", "low", "high", "rule", "check", "checks",
    "reason", "part", "link", "record", "whatif_table", "test",
)  # fmt: skip


@dataclass(frozen=True)
class Check:
    """One check of an item, judged: the claim's words, both sides and the verdict."""

    key: str
    claim: str
    paper: rules.Paper | None
    book: rules.Estimate
    verdict: rules.Verdict

    @property
    def status(self) -> str:
        return self.verdict.status

    def as_dict(self) -> dict[str, Any]:
        return {
            "key": self.key,
            "claim": self.claim,
            "paper_value": None if self.paper is None else self.paper.value,
            "precision": None if self.paper is None else self.paper.words,
            "book_value": self.book.value,
            "low": self.verdict.low,
            "high": self.verdict.high,
            "rule": self.verdict.rule,
            "status": self.status,
            "check": self.verdict.words,
        }


def worst(statuses: Iterable[str]) -> str:
    """The worst of some computed statuses (reproduced < partly < undecided < differs)."""
    return max(statuses, key=_ORDER.__getitem__)


@dataclass(frozen=True)
class Judged:
    """An item with its checks judged and its status (computed, or declared when it has no
    checks); ``missing``, the item's checks no claim computed (quick scale, a subset)."""

    entry: Entry
    checks: tuple[Check, ...]
    status: str
    missing: tuple[str, ...] = ()

    @property
    def computed(self) -> bool:
        return bool(self.entry.checks)

    @property
    def deciding(self) -> Check | None:
        """The check that sets the status (the first of the worst), if any."""
        for check in self.checks:
            if _ORDER[check.status] == max(_ORDER[c.status] for c in self.checks):
                return check
        return None

    def as_dict(self) -> dict[str, Any]:
        """The fields `tcplab claims` prints: the item, and the deciding check's values."""
        e, top = self.entry, self.deciding
        shown = top.as_dict() if top else {}
        return {
            "chapter": e.chapter, "paper": e.paper, "origin": e.origin, "key": e.key,
            "ref": e.ref, "kind": e.kind, "words": e.words, "status": self.status,
            "computed": self.computed,
            "paper_value": shown.get("paper_value", e.paper_value),
            "precision": shown.get("precision", e.precision or None),
            "book_value": shown.get("book_value"), "low": shown.get("low"),
            "high": shown.get("high"), "rule": shown.get("rule"), "check": shown.get("check"),
            "checks": [c.as_dict() for c in self.checks], "reason": e.reason, "part": e.part,
            "link": e.link, "record": e.record, "whatif_table": e.whatif_table, "test": e.test,
        }  # fmt: skip


def _paper(entry: Entry, key: str, claim: Any) -> rules.Paper | None:
    """The paper's side of one check: the item's value and precision (or the check's own,
    ``at``), or, for an item whose value is a formula, the value the claim evaluates."""
    where = f"{entry.chapter}/ledger.toml, {entry.key}, check {key}"
    value, precision, relation = entry.at.get(key, (None, "", ""))
    precision, relation = precision or entry.precision, relation or entry.relation
    own = getattr(claim, "paper", None)
    if value is None and entry.paper_value is not None:
        value = entry.paper_value
    if own is not None:
        if value is not None:
            raise LedgerError(f"{where}: the paper value is in ledger.toml; the claim has another")
        if precision != "exact":
            raise LedgerError(
                f"{where}: a claim gives its own paper value only for a formula (precision "
                f"'exact'), not for precision={precision!r}: the paper's value goes in ledger.toml"
            )
        value = own
    if claim.book.basis in ("yes/no", "one run") and (value is None or not precision):
        return None
    if value is None or not precision:
        raise LedgerError(f"{where}: a number needs the paper's value and precision")
    try:
        return rules.paper_side(value, precision, chapter_plots(entry.chapter), relation)
    except ValueError as error:
        raise LedgerError(f"{where}: {error}") from None


def _judge_entry(entry: Entry, claims: Mapping[str, Any], complete: bool) -> Judged | None:
    if not entry.checks:
        return Judged(entry, (), entry.status)
    keys = [k for k in claims if entry.covers(k)]
    missing = tuple(p for p in entry.checks if not any(_matches(p, k) for k in keys))
    if missing and complete:
        raise LedgerError(
            f"{entry.chapter}/ledger.toml, {entry.key}: no claim computes {list(missing)}"
        )
    if not keys:
        return None
    interval = sum(claims[k].book.basis == "interval" for k in keys)
    checks = []
    for key in keys:
        claim = claims[key]
        paper = _paper(entry, key, claim)
        verdict = rules.judge(paper, claim.book, interval)
        checks.append(Check(key, claim.claim, paper, claim.book, verdict))
    status = worst(c.status for c in checks)
    if entry.part and status == "reproduced":
        status = "partly"
    return Judged(entry, tuple(checks), status, missing)


def judge_with(entry: Entry, claims: Mapping[str, Any]) -> Judged | None:
    """``claims`` judged against one item's paper side, whatever their keys (the same
    statement on other runs: a chapter's side table); None when ``claims`` is empty."""
    if not claims:
        return None
    return _judge_entry(replace(entry, checks=tuple(claims)), claims, complete=False)


def _matches(pattern: str, key: str) -> bool:
    return fnmatchcase(key, pattern)


def judge(chapter: str, claims: Mapping[str, Any], complete: bool = False) -> list[Judged]:
    """The chapter's items judged on ``claims`` (its ``chapter_claims(tables)``, or part of
    them): with ``complete``, every item with checks must find them all and every claim must
    belong to an item (the full tables); otherwise an item none of whose checks is among
    ``claims`` is left out, and so is every item without checks."""
    entries = chapter_entries(chapter)
    if complete:
        stray = [k for k in claims if not any(e.covers(k) for e in entries)]
        if stray:
            raise LedgerError(f"{chapter}/ledger.toml: claims no item checks: {stray}")
        twice = [k for k in claims if sum(e.covers(k) for e in entries) > 1]
        if twice:
            raise LedgerError(f"{chapter}/ledger.toml: claims that two items check: {twice}")
    out = []
    for entry in entries:
        if not entry.checks and not complete:
            continue
        found = _judge_entry(entry, claims, complete)
        if found is not None:
            out.append(found)
    return out


def evaluate(chapter: str, tables: Mapping[str, Any] | None = None) -> list[Judged]:
    """Every item of a chapter, judged on ``tables`` (default: the full-scale tables shipped
    in data/, :func:`tcplab.ledger.full_tables`)."""
    module = importlib.import_module(f"tcplab.chapters.{chapter}.claims")
    found = module.chapter_claims(full_tables(chapter) if tables is None else tables)
    return judge(chapter, found, complete=True)


def summary(judged: Iterable[Judged]) -> dict[str, dict[str, dict[str, int]]]:
    """Per paper, the items (the paper's) and the book's own claims, counted by status
    (every status listed, zeros included, and the total)."""
    out: dict[str, dict[str, dict[str, int]]] = {}
    judged = list(judged)
    for paper in PAPERS:
        mine = [j for j in judged if j.entry.paper == paper]
        if not mine:
            continue
        out[paper] = {}
        for origin, name in (("paper", "items"), ("book", "book")):
            counts = {status: 0 for status in STATUSES}
            for j in mine:
                if j.entry.origin == origin:
                    counts[j.status] += 1
            out[paper][name] = counts | {"total": sum(counts.values())}
    return out


def rows(judged: Iterable[Judged]) -> list[dict[str, Any]]:
    """The items as `tcplab claims` prints them."""
    return [j.as_dict() for j in judged]


def statuses(chapter: str, claims: Mapping[str, Any]) -> dict[str, str]:
    """Each item's status on ``claims`` (items none of whose checks is there left out)."""
    return {j.entry.key: j.status for j in judge(chapter, claims)}


def check_statuses(chapter: str, claims: Mapping[str, Any]) -> dict[str, str]:
    """Each check's verdict on ``claims``, by its key."""
    return {c.key: c.status for j in judge(chapter, claims) for c in j.checks}
