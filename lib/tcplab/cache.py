"""Results the book reads, stored in ``data/`` with everything needed to trust them.

Each result is a tidy table ``data/<name>.csv`` with ``data/<name>.meta.json`` beside it: the
parameters, seed, scale, package version, a fingerprint of the code that made it, the wall time
and the row count. Both files are written to a temporary name and then renamed, so an
interrupted run never leaves a half-written result; a result is only read when its metadata
says it was made with the same parameters, seed and scale.
"""

from __future__ import annotations

import dataclasses
import hashlib
import inspect
import json
import os
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from types import ModuleType
from typing import Any

import pandas as pd

from . import __version__

__all__ = ["DATA_DIR", "Entry", "fingerprint", "jsonable", "load", "store", "cached", "is_fresh"]

DATA_DIR = Path(os.environ.get("TCPLAB_DATA", Path(__file__).resolve().parents[2] / "data"))


@dataclasses.dataclass(frozen=True)
class Entry:
    """Where one named result lives."""

    name: str
    folder: Path = DATA_DIR

    @property
    def table(self) -> Path:
        return self.folder / f"{self.name}.csv"

    @property
    def meta(self) -> Path:
        return self.folder / f"{self.name}.meta.json"


def fingerprint(modules: Iterable[ModuleType]) -> str:
    """A short hash of the source code of ``modules``: it changes when the model changes."""
    digest = hashlib.sha256()
    for module in sorted(modules, key=lambda m: m.__name__):
        digest.update(module.__name__.encode())
        digest.update(inspect.getsource(module).encode())
    return digest.hexdigest()[:16]


def jsonable(params: Any) -> Any:
    if dataclasses.is_dataclass(params):
        params = dataclasses.asdict(params)
    return json.loads(json.dumps(params, default=float))


def _write_atomically(path: Path, write: Callable[[Path], None]) -> None:
    temporary = path.with_name(path.name + ".tmp")
    try:
        write(temporary)
        os.replace(temporary, path)
    finally:
        temporary.unlink(missing_ok=True)


def store(entry: Entry, table: pd.DataFrame, meta: dict[str, Any]) -> None:
    """Write the table, then its metadata (the metadata last marks the result complete)."""
    entry.folder.mkdir(parents=True, exist_ok=True)
    entry.meta.unlink(missing_ok=True)
    _write_atomically(entry.table, lambda p: table.to_csv(p, index=False))
    text = json.dumps(meta, indent=2, sort_keys=True) + "\n"
    _write_atomically(entry.meta, lambda p: p.write_text(text, encoding="utf-8"))


def load(entry: Entry) -> tuple[pd.DataFrame, dict[str, Any]] | None:
    """The stored table and its metadata, or None when either is missing."""
    if not (entry.table.exists() and entry.meta.exists()):
        return None
    meta = json.loads(entry.meta.read_text(encoding="utf-8"))
    return pd.read_csv(entry.table), meta


def is_fresh(meta: dict[str, Any], modules: Iterable[ModuleType]) -> bool:
    """Whether a stored result was made by the code that is here now."""
    return meta.get("fingerprint") == fingerprint(modules)


def cached(
    name: str,
    compute: Callable[[], pd.DataFrame],
    *,
    params: Any,
    seed: int | None,
    scale: str,
    modules: Iterable[ModuleType],
    folder: Path | None = None,
    refresh: bool = False,
) -> pd.DataFrame:
    """Read ``name`` from data/ if this code made it with these parameters, else compute it.

    Only full-scale results are stored: quick runs (tests, CI) are computed and returned.
    """
    entry = Entry(name, folder or DATA_DIR)
    modules = list(modules)
    wanted = {"params": jsonable(params), "seed": seed, "scale": scale}
    found = None if refresh else load(entry)
    if found is not None:
        table, meta = found
        same = all(meta.get(key) == value for key, value in wanted.items())
        if same and is_fresh(meta, modules):  # never serve results of code that has changed
            return table
    started = time.perf_counter()
    table = compute()
    wall = time.perf_counter() - started
    if scale == "full":
        meta = {
            **wanted,
            "name": name,
            "package_version": __version__,
            "fingerprint": fingerprint(modules),
            "modules": sorted(m.__name__ for m in modules),
            "wall_s": round(wall, 3),
            "rows": len(table),
            "columns": list(table.columns),
        }
        store(entry, table, meta)
    return table
