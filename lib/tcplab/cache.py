"""Results the book reads, stored in ``data/`` with everything needed to trust them.

Each result is a tidy table ``data/<name>.csv`` with ``data/<name>.meta.json`` beside it: the
parameters, seed, scale, package version, the code fingerprint (:mod:`tcplab.fingerprint`),
the wall time, the row count, the sha256 of the table's bytes (``table_sha256``, which binds
the pair) and the sha256 of the experiment's quick-scale table as the same code computes it
(``quick_sha256``, the canary that :mod:`tcplab.restamp` recomputes after a change of code).

A stored result is in one of four states (:func:`check`): *fresh* (made with these parameters,
seed and scale, by the code here now), *stale* (another parameter, seed, scale or code),
*corrupt* (a table whose bytes are not the ones its metadata records, metadata that is not a
JSON object or lacks the digest, half a pair) or *missing*. Only a fresh result is read; a
stale or corrupt one is never replaced silently: :func:`cached` raises an error naming the
command that restamps or recomputes it (``tcplab data --restamp``, ``tcplab data --only
NAME``), and computes only a result that is missing. The book's results are full scale and
seed 0, ``data/<name>.csv``; any other seed or scale is stored beside them
(``<name>.seed1``, ``<name>.paper``), never in their place.

Writing: both files are written in full under names of their own, then renamed, the table
first and the metadata last, under the table's lock (:mod:`tcplab.safefile`), so two writers
never tear a pair and an interrupted one leaves the old pair. A reader that meets a pair that
does not match waits for a writer's lock and reads once more before it calls the pair corrupt.
"""

from __future__ import annotations

import dataclasses
import hashlib
import io
import json
import os
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from types import ModuleType
from typing import Any

import pandas as pd

from . import __version__, safefile
from .fingerprint import PACKAGE, SCHEDULING, fingerprint, imported_modules, module_names

__all__ = [
    "BOOK_SEED",
    "DATA_DIR",
    "DIGEST",
    "QUICK_DIGEST",
    "SCHEDULING",
    "Corrupt",
    "Entry",
    "Missing",
    "Stale",
    "Status",
    "Unreadable",
    "amend",
    "cached",
    "check",
    "command",
    "fingerprint",
    "imported_modules",
    "is_fresh",
    "jsonable",
    "load",
    "read",
    "store",
]


def _data_dir() -> Path:
    """$TCPLAB_DATA (``~`` expanded), or the book's data/ when it is unset or blank (a blank
    value never means the current directory)."""
    value = os.environ.get("TCPLAB_DATA", "").strip()
    return Path(os.path.expanduser(value)) if value else PACKAGE.parents[1] / "data"


#: where results are stored
DATA_DIR = _data_dir()
#: the metadata's key for the sha256 of its table's bytes (what binds the pair)
DIGEST = "table_sha256"
#: the metadata's key for the digest of the experiment's quick table (:func:`frames.digest`)
QUICK_DIGEST = "quick_sha256"
#: the seed of the results the book reads
BOOK_SEED = 0
#: what a stored result must record to be checked against the code
CHECKED = ("params", "seed", "scale", "fingerprint")


@dataclasses.dataclass(frozen=True)
class Entry:
    """Where one named result lives."""

    name: str
    folder: Path = DATA_DIR

    @classmethod
    def of(
        cls, name: str, *, scale: str = "full", seed: int | None = 0, folder: Path | None = None
    ) -> Entry:
        """The entry of experiment ``name`` at ``scale`` and ``seed``: the book's own
        (``name``) at full scale and seed 0, else beside it (``name.paper``, ``name.seed1``,
        ``name.paper.seed1``)."""
        stem = name if scale in ("full", "quick") else f"{name}.{scale}"
        if seed not in (None, BOOK_SEED):
            stem += f".seed{seed}"
        return cls(stem, DATA_DIR if folder is None else folder)

    @property
    def table(self) -> Path:
        return self.folder / f"{self.name}.csv"

    @property
    def meta(self) -> Path:
        return self.folder / f"{self.name}.meta.json"


def command(name: str, scale: str = "full", seed: int | None = 0) -> str:
    """The command that recomputes experiment ``name``'s result at ``scale`` and ``seed``."""
    flags = "" if scale in ("full", "quick") else f" --scale {scale}"
    flags += "" if seed in (None, BOOK_SEED) else f" --seed {seed}"
    return f"tcplab data --only {name}{flags}"


def jsonable(params: Any) -> Any:
    if dataclasses.is_dataclass(params) and not isinstance(params, type):
        params = dataclasses.asdict(params)
    return json.loads(json.dumps(params, default=float))


class Unreadable(LookupError):
    """A stored result that cannot be used as it is; the message names the file and why."""


class Missing(Unreadable):
    """Neither file of the pair is there."""


class Corrupt(Unreadable):
    """The files are there but are not a pair this code wrote: a table whose bytes differ from
    its metadata's ``table_sha256``, metadata that is not a JSON object or lacks a key, half a
    pair, or a table that is not a CSV."""


class Stale(Unreadable):
    """A readable pair made with other parameters, seed or scale, or by other code."""


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _meta_text(meta: dict[str, Any]) -> str:
    return json.dumps(meta, indent=2, sort_keys=True) + "\n"


def _shown(path: Path) -> str:
    return f"{path.parent.name}/{path.name}"


def _corrupt(path: Path, why: str) -> Corrupt:
    return Corrupt(f"{_shown(path)} is corrupt: {why}")


def _read_once(entry: Entry) -> tuple[pd.DataFrame, dict[str, Any]]:
    table_there, meta_there = entry.table.exists(), entry.meta.exists()
    if not table_there and not meta_there:
        raise Missing(f"{_shown(entry.table)} is missing")
    if not meta_there:
        raise _corrupt(entry.table, f"its metadata {entry.meta.name} is missing")
    if not table_there:
        raise _corrupt(entry.table, f"the file is missing, its metadata {entry.meta.name} is not")
    try:
        meta = json.loads(entry.meta.read_text(encoding="utf-8"))
    except (ValueError, RecursionError) as error:
        raise _corrupt(entry.meta, f"not JSON ({str(error)[:80]})") from None
    if not isinstance(meta, dict) or not meta:
        shown = json.dumps(meta)[:40]
        raise _corrupt(entry.meta, f"{shown} is not a JSON object with the table's metadata")
    if not isinstance(meta.get(DIGEST), str):
        raise _corrupt(entry.meta, f"it records no {DIGEST}, so its table cannot be checked")
    data = entry.table.read_bytes()
    if meta[DIGEST] != _sha256(data):
        why = f"its bytes are not the table {entry.meta.name} records (another {DIGEST})"
        raise _corrupt(entry.table, why)
    try:
        table = pd.read_csv(io.BytesIO(data))
    except (ValueError, UnicodeDecodeError) as error:
        raise _corrupt(entry.table, f"not a CSV table ({str(error)[:80]})") from None
    shape = {"rows": len(table), "columns": list(table.columns)}
    if any(meta.get(key, value) != value for key, value in shape.items()):
        raise _corrupt(entry.table, "other rows or columns than its metadata records")
    return table, meta


def read(entry: Entry, *, wait: bool = True) -> tuple[pd.DataFrame, dict[str, Any]]:
    """The stored table and its metadata: :class:`Missing` or :class:`Corrupt`, naming the
    file and what is wrong, when they cannot be read as a pair. A pair that does not match is
    read once more after any writer holding its lock has finished (``wait``)."""
    try:
        return _read_once(entry)
    except Corrupt:
        if not wait:
            raise
        safefile.wait_for_writer(entry.table)
        return _read_once(entry)


def load(entry: Entry) -> tuple[pd.DataFrame, dict[str, Any]] | None:
    """The stored table and its metadata, or None when :func:`read` finds them unreadable."""
    try:
        return read(entry)
    except Unreadable:
        return None


def is_fresh(meta: dict[str, Any], modules: Iterable[str | ModuleType]) -> bool:
    """Whether a stored result was made (or restamped) by the code that is here now."""
    return meta.get("fingerprint") == fingerprint(modules)


@dataclasses.dataclass(frozen=True, eq=False)
class Status:
    """What :func:`check` found: ``state`` (fresh, stale, corrupt, missing), ``why`` (one
    phrase, empty when fresh), and the pair when it could be read."""

    entry: Entry
    state: str
    why: str = ""
    table: pd.DataFrame | None = None
    meta: dict[str, Any] | None = None

    def error(self, name: str, scale: str = "full", seed: int | None = 0) -> Unreadable:
        """The error a reader raises for this state, naming what to run."""
        again = f"`{command(name, scale, seed)}`"
        if self.state == "stale":
            fix = f"run {again}"
            if self.why.startswith("code"):
                fix = (
                    "run `tcplab data --restamp` (it keeps the table if the code computes the "
                    f"same numbers) or {again}"
                )
            return Stale(f"{_shown(self.entry.table)} is stale ({self.why}): {fix}")
        kind = Missing if self.state == "missing" else Corrupt
        return kind(f"{self.why}{_chosen_folder(self.entry)}: run {again} to compute it")


def _chosen_folder(entry: Entry) -> str:
    """Where the reader chose the data folder, when it was not the book's: the variable."""
    value = os.environ.get("TCPLAB_DATA", "").strip()
    if not value or entry.folder != DATA_DIR:
        return ""
    return f" (the data folder is TCPLAB_DATA={value!r})"


def _differs(meta: dict[str, Any], wanted: dict[str, Any]) -> str:
    if meta["scale"] != wanted["scale"]:
        return f"scale: made at {meta['scale']!r}, not {wanted['scale']!r}"
    if meta["seed"] != wanted["seed"]:
        return f"seed: made with seed {meta['seed']!r}, not {wanted['seed']!r}"
    if meta["params"] != wanted["params"]:
        old, new = meta["params"], wanted["params"]
        if isinstance(old, dict) and isinstance(new, dict):
            keys = sorted(k for k in {*old, *new} if old.get(k) != new.get(k))
            return "params: other " + ", ".join(keys[:6]) + (" ..." if len(keys) > 6 else "")
        return "params: other parameters"
    return ""


def check(
    entry: Entry,
    *,
    params: Any,
    seed: int | None,
    scale: str,
    modules: Iterable[str | ModuleType],
) -> Status:
    """The state of the stored result ``entry`` for these parameters, seed, scale and code."""
    try:
        table, meta = read(entry)
    except Missing as error:
        return Status(entry, "missing", str(error))
    except Corrupt as error:
        return Status(entry, "corrupt", str(error))
    lacking = [key for key in CHECKED if key not in meta]
    if lacking:
        why = f"{_shown(entry.meta)} is corrupt: it records no {', '.join(lacking)}"
        return Status(entry, "corrupt", why, table, meta)
    wanted = {"params": jsonable(params), "seed": seed, "scale": scale}
    other = _differs(meta, wanted)
    if other:
        return Status(entry, "stale", other, table, meta)
    now = fingerprint(modules)
    if meta["fingerprint"] != now:
        why = f"code: fingerprint {meta['fingerprint']}, the code's now {now}"
        return Status(entry, "stale", why, table, meta)
    return Status(entry, "fresh", "", table, meta)


def _table_bytes(table: pd.DataFrame) -> bytes:
    return table.to_csv(index=False).encode("utf-8")


def store(entry: Entry, table: pd.DataFrame, meta: dict[str, Any]) -> None:
    """Replace the pair ``entry`` by ``table`` and ``meta`` (plus the table's sha256): both
    written in full under names of their own, then, under the table's lock, the table renamed
    into place and the metadata last (from the first rename on, the old metadata refuses the
    new table: no reader takes half a pair for a whole one)."""
    data = _table_bytes(table)
    text = _meta_text({**meta, DIGEST: _sha256(data)}).encode("utf-8")
    entry.folder.mkdir(parents=True, exist_ok=True)
    with safefile.locked(entry.table):
        new_table = safefile.new_file(entry.table, data, durable=True)
        try:
            new_meta = safefile.new_file(entry.meta, text, durable=True)
        except BaseException:
            new_table.unlink(missing_ok=True)
            raise
        try:
            safefile.replace(new_table, entry.table)
            safefile.replace(new_meta, entry.meta)
        finally:
            new_table.unlink(missing_ok=True)
            new_meta.unlink(missing_ok=True)


def amend(entry: Entry, changes: dict[str, Any], *, if_fingerprint: str) -> dict[str, Any]:
    """Rewrite ``entry``'s metadata with ``changes`` (its table untouched: the pair is read
    and checked first, under its lock), if it still records ``if_fingerprint``; :class:`Stale`
    if another process changed it meanwhile. Returns the new metadata."""
    with safefile.locked(entry.table):
        _, meta = read(entry, wait=False)
        if meta.get("fingerprint") != if_fingerprint:
            raise Stale(f"{_shown(entry.meta)} changed while it was checked: run this again")
        new = {**meta, **changes}
        safefile.write(entry.meta, _meta_text(new).encode("utf-8"), durable=True)
    return new


def cached(
    name: str,
    compute: Callable[[], pd.DataFrame],
    *,
    params: Any,
    seed: int | None,
    scale: str,
    modules: Iterable[str | ModuleType],
    folder: Path | None = None,
    refresh: bool = False,
    canary: Callable[[], dict[str, Any]] | None = None,
) -> pd.DataFrame:
    """Read ``name`` from data/ if it is fresh; compute and store it if it is missing (or
    ``refresh``); :class:`Stale` or :class:`Corrupt` otherwise, naming what to run.

    Quick runs (tests, CI) are computed and returned, never stored. Any seed but the book's
    and any scale but full are stored beside the book's result (:meth:`Entry.of`).
    ``canary`` computes the experiment's quick table and returns what the metadata keeps of
    it (its digest, :data:`QUICK_DIGEST`, and more: :func:`tcplab.restamp.canary`), for
    ``tcplab data --restamp``.
    """
    if scale == "quick":
        return compute()
    entry = Entry.of(name, scale=scale, seed=seed, folder=folder)
    modules = list(modules)
    if not refresh:
        found = check(entry, params=params, seed=seed, scale=scale, modules=modules)
        if found.state == "fresh":
            assert found.table is not None
            return found.table
        if found.state != "missing":  # never replaced without being asked to
            raise found.error(name, scale, seed)
    started = time.perf_counter()
    table = compute()
    wall = time.perf_counter() - started
    meta = {
        "params": jsonable(params),
        "seed": seed,
        "scale": scale,
        "name": name,
        "package_version": __version__,
        "fingerprint": fingerprint(modules),
        "modules": module_names(modules),
        "wall_s": round(wall, 3),
        "rows": len(table),
        "columns": list(table.columns),
    }
    if canary is not None:
        meta.update(canary())
    store(entry, table, meta)
    return table
