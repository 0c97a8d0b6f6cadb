"""The statuses the book ships, written down, so that a verdict that moves is noticed.

``shipped.toml`` (beside this module) holds every item's status as computed from the tables
in data/ when it was last written. ``tests/test_ledger.py`` fails while a computed status is
not the shipped one, and `tcplab claims` names each such item (and exits 1). A status moves
because a table or a claim changed: read why, then write the new statuses on purpose with
`tcplab claims --write-shipped` and commit the file with the change that moved them.
"""

from __future__ import annotations

import json
import os
import tomllib
from collections.abc import Iterable
from pathlib import Path

from . import LedgerError
from .verdicts import Judged

__all__ = ["PATH", "read", "changes", "write"]

PATH = Path(__file__).with_name("shipped.toml")

_HEAD = """\
# The statuses the book ships: every item's status as computed from the tables in data/
# (tcplab.ledger.shipped). Written by `tcplab claims --write-shipped`, only on purpose: the
# tests fail while a computed status differs from the one here.
"""


def read(path: Path = PATH) -> dict[str, dict[str, str]]:
    """Per chapter, each item's shipped status."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except tomllib.TOMLDecodeError as error:
        raise LedgerError(f"{path.name}: {error}") from None
    return {chapter: dict(items) for chapter, items in data.items()}


def changes(judged: Iterable[Judged], path: Path = PATH) -> list[str]:
    """One line per item whose computed status is not the shipped one (or that the shipped
    file lacks), for the chapters of ``judged``; and per shipped item that no longer exists."""
    shipped = read(path)
    out, seen = [], set()
    for j in judged:
        chapter, key = j.entry.chapter, j.entry.key
        seen.add((chapter, key))
        was = shipped.get(chapter, {}).get(key)
        if was is None:
            out.append(f"{chapter}:{key} is {j.status}; the book ships no status for it")
        elif was != j.status:
            out.append(f"{chapter}:{key} is {j.status}; the book ships {was}")
    for chapter in sorted({j.entry.chapter for j in judged}):
        for key in shipped.get(chapter, {}):
            if (chapter, key) not in seen:
                out.append(f"{chapter}:{key} is shipped but is no item of the ledger")
    return out


def write(judged: Iterable[Judged], path: Path = PATH) -> None:
    """Write the statuses of ``judged`` (the whole book's) as the shipped ones (a temporary
    file, then a rename: never half-written)."""
    by_chapter: dict[str, list[Judged]] = {}
    for j in judged:
        by_chapter.setdefault(j.entry.chapter, []).append(j)
    lines = [_HEAD]
    for chapter, found in by_chapter.items():
        lines.append(f"\n[{chapter}]\n")
        lines += [f"{json.dumps(j.entry.key)} = {json.dumps(j.status)}\n" for j in found]
    temporary = path.with_suffix(".toml.tmp")
    temporary.write_text("".join(lines), encoding="utf-8")
    os.replace(temporary, path)
