"""``tcplab claims``: the ledger from the shell, one chapter, one paper or all.

Lists every entry with its status, the paper's value and the book's (computed from the
full-scale tables in data/), as text, JSON or CSV; ``--summary`` counts the entries per paper
and status without computing anything.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import sys

from . import CHAPTERS, FIELDS, PAPERS, STATUSES, computed_entries, entries, full_tables
from . import summary as count

__all__ = ["NAME", "HELP", "add_arguments", "run"]

NAME = "claims"
HELP = "the reproduction ledger: every item of every paper and its status"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.description = (
        "Every item of the papers the book reproduces (figures, tables, equations, statements), "
        "with its status (reproduced, partly, differs, not attempted), the paper's value, the "
        "book's (from the tables in data/) and the tolerance by the book's rule."
    )
    parser.add_argument(
        "chapter", nargs="?", metavar="CHAPTER", help=f"one chapter: {', '.join(CHAPTERS)}"
    )
    parser.add_argument("--paper", metavar="NAME", help=f"one paper: {', '.join(PAPERS)}")
    form = parser.add_mutually_exclusive_group()
    form.add_argument("--json", action="store_true", help="a JSON list of entries")
    form.add_argument("--csv", action="store_true", help="CSV, one row per entry")
    parser.add_argument(
        "--summary", action="store_true", help="per paper, the number of entries of each status"
    )


def _choose(args: argparse.Namespace) -> tuple[str | None, str | None]:
    if args.chapter is not None and args.chapter not in CHAPTERS:
        raise ValueError(f"chapter={args.chapter!r} must be one of: {', '.join(CHAPTERS)}")
    if args.paper is not None and args.paper not in PAPERS:
        raise ValueError(f"--paper={args.paper!r} must be one of: {', '.join(PAPERS)}")
    return args.chapter, args.paper


def _summary(args: argparse.Namespace, chapter: str | None, paper: str | None) -> str:
    if args.csv:
        raise ValueError("--summary prints text or --json, not --csv")
    if chapter is not None:
        raise ValueError("--summary counts per paper: give --paper NAME, not a chapter")
    counts = count(paper)
    if args.json:
        return json.dumps(counts, indent=1)
    width = max(len(s) for s in STATUSES)
    lines = []
    for name, by_status in counts.items():
        lines.append(f"{name}: {PAPERS[name]} ({sum(by_status.values())} items)")
        lines += [f"  {status:>{width}}  {n}" for status, n in by_status.items()]
    return "\n".join(lines)


def _text(rows: list[dict]) -> str:
    def value(x: float | None) -> str:
        return "-" if x is None else f"{x:.4g}"

    lines = []
    for r in rows:
        tolerance = "" if r["tolerance"] is None else f" ±{r['tolerance']:.2g}"
        lines.append(
            f"{r['chapter']:<13} {r['ref'][:28]:<28} {r['status']:<13} {r['kind']:<9} "
            f"paper {value(r['paper_value'])}, book {value(r['book_value'])}{tolerance}: "
            f"{r['claim']}"
        )
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    chapter, paper = _choose(args)
    if args.summary:
        print(_summary(args, chapter, paper))
        return 0
    found = []
    for name in CHAPTERS if chapter is None else (chapter,):
        if entries(chapter=name, paper=paper):  # a chapter's entries are all of one paper
            found += computed_entries(name, full_tables(name))
    rows = [e.as_dict() for e in found]
    if args.json:
        print(json.dumps(rows, indent=1))
    elif args.csv:
        out = io.StringIO()
        writer = csv.DictWriter(out, fieldnames=FIELDS, lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
        sys.stdout.write(out.getvalue())
    else:
        print(_text(rows))
    return 0
