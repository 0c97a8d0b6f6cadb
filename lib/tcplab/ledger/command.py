"""``tcplab claims``: the ledger from the shell, one chapter, one paper or all.

Lists every item with its status, computed now from the full-scale tables in data/ (the
paper's value, the book's with its range, the rule), as text, JSON or CSV; ``--summary``
counts, per paper, its items by status and the book's own claims apart. Where a computed
status is not the one the book ships (lib/tcplab/ledger/shipped.toml), it says so on standard
error and exits 1; ``--write-shipped`` records the computed statuses as the shipped ones.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import sys

from . import CHAPTERS, PAPERS, STATUSES, chapter_entries, shipped
from .verdicts import FIELDS, Judged, evaluate, rows, summary

__all__ = ["NAME", "HELP", "add_arguments", "run"]

NAME = "claims"
HELP = "the reproduction ledger: every item of every paper and its status"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.description = (
        "Every item of the papers the book reproduces (figures, tables, equations, statements) "
        "and the book's own claims, with the status computed now from the tables in data/ "
        f"({', '.join(STATUSES)}), the paper's value, the book's and the rule that compares them."
    )
    parser.add_argument(
        "chapter", nargs="?", metavar="CHAPTER", help=f"one chapter: {', '.join(CHAPTERS)}"
    )
    parser.add_argument("--paper", metavar="NAME", help=f"one paper: {', '.join(PAPERS)}")
    form = parser.add_mutually_exclusive_group()
    form.add_argument("--json", action="store_true", help="a JSON list of items")
    form.add_argument("--csv", action="store_true", help="CSV, one row per item")
    parser.add_argument(
        "--summary",
        action="store_true",
        help="per paper, its items and the book's own claims, counted by status",
    )
    parser.add_argument(
        "--write-shipped",
        action="store_true",
        help="record the computed statuses as the ones the book ships (on purpose only)",
    )


def _chapters(args: argparse.Namespace) -> tuple[str, ...]:
    if args.chapter is not None and args.chapter not in CHAPTERS:
        raise ValueError(f"chapter={args.chapter!r} must be one of: {', '.join(CHAPTERS)}")
    if args.paper is not None and args.paper not in PAPERS:
        raise ValueError(f"--paper={args.paper!r} must be one of: {', '.join(PAPERS)}")
    chosen: tuple[str, ...] = CHAPTERS if args.chapter is None else (args.chapter,)
    if args.paper is not None:
        chosen = tuple(c for c in chosen if chapter_entries(c)[0].paper == args.paper)
        if not chosen:
            paper = chapter_entries(args.chapter)[0].paper
            raise ValueError(
                f"chapter {args.chapter!r} reproduces --paper={paper!r}, not {args.paper!r}: "
                "give the chapter or the paper"
            )
    return chosen


def _summary_text(counts: dict[str, dict[str, dict[str, int]]]) -> str:
    width = max(len(s) for s in STATUSES)
    lines = []
    for paper, kinds in counts.items():
        items, book = kinds["items"], kinds["book"]
        lines.append(
            f"{paper}: {PAPERS[paper]} ({items['total']} items of the paper, "
            f"{book['total']} of the book's own)"
        )
        lines.append(f"  {'':>{width}}  {'items':>5}  {'book':>5}")
        lines += [f"  {s:>{width}}  {items[s]:>5}  {book[s]:>5}" for s in STATUSES]
    return "\n".join(lines)


def _text(found: list[dict]) -> str:
    def value(x: float | None) -> str:
        return "-" if x is None else f"{x:.4g}"

    lines = []
    for r in found:
        span = "" if r["low"] is None else f" [{value(r['low'])}, {value(r['high'])}]"
        mark = " (book)" if r["origin"] == "book" else ""
        checks = f" ({len(r['checks'])} checks)" if len(r["checks"]) > 1 else ""
        if r["rule"] == "yes/no":
            sides = f"holds: {'yes' if r['book_value'] else 'no'}"
        elif r["book_value"] is None:
            sides = "no check"
        else:
            sides = f"paper {value(r['paper_value'])}, book {value(r['book_value'])}{span}"
        lines.append(
            f"{r['chapter']:<13} {r['ref'][:28]:<28} {r['status']:<13} {r['kind']:<9} "
            f"{sides}{checks}: {r['words']}{mark}"
        )
    return "\n".join(lines)


def _csv(found: list[dict]) -> str:
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=FIELDS, lineterminator="\n")
    writer.writeheader()
    writer.writerows({**r, "checks": len(r["checks"])} for r in found)
    return out.getvalue()


def run(args: argparse.Namespace) -> int:
    if args.write_shipped and (args.chapter or args.paper or args.summary or args.json or args.csv):
        raise ValueError("--write-shipped records every chapter's statuses: give it alone")
    if args.summary and args.csv:
        raise ValueError("--summary prints text or --json, not --csv")
    if args.summary and args.chapter is not None:
        raise ValueError("--summary counts per paper: give --paper NAME, not a chapter")
    chosen = _chapters(args)
    judged: list[Judged] = [j for chapter in chosen for j in evaluate(chapter)]
    if args.write_shipped:
        shipped.write(judged)
        print(f"{len(judged)} statuses written to {shipped.PATH.name} as the shipped ones")
        return 0
    if args.summary:
        counts = summary(judged)
        print(json.dumps(counts, indent=1) if args.json else _summary_text(counts))
    else:
        found = rows(judged)
        if args.json:
            print(json.dumps(found, indent=1))
        elif args.csv:
            sys.stdout.write(_csv(found))
        else:
            print(_text(found))
    moved = shipped.changes(judged)
    for line in moved:
        print(f"tcplab claims: {line}", file=sys.stderr)
    if moved:
        print(
            f"tcplab claims: {len(moved)} statuses are not the ones the book ships "
            f"(lib/tcplab/ledger/{shipped.PATH.name}): a table or a claim changed",
            file=sys.stderr,
        )
        return 1
    return 0
