"""Results the book reads, stored in ``data/`` with everything needed to trust them.

Each result is a tidy table ``data/<name>.csv`` with ``data/<name>.meta.json`` beside it: the
parameters, seed, scale, package version, a fingerprint of the code that made it, the wall time
and the row count. Both files are written to a temporary name and then renamed, so an
interrupted run never leaves a half-written result; a result is only read when its metadata
says it was made with the same parameters, seed and scale, by the same code.

The fingerprint covers the tcplab modules an experiment imports, found by reading their import
statements (:func:`imported_modules`), and hashes what they compute, not where they live: each
module's syntax tree without docstrings and without the module paths of its imports, the hashes
keyed by content and sorted. Moving a module, renaming it or editing a docstring or a comment
keeps the fingerprint; changing a line of code that the experiment runs changes it.
"""

from __future__ import annotations

import ast
import dataclasses
import functools
import hashlib
import importlib.util
import io
import json
import os
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from types import ModuleType
from typing import Any

import pandas as pd

from . import __version__

__all__ = [
    "DATA_DIR",
    "DIGEST",
    "Entry",
    "Unreadable",
    "fingerprint",
    "imported_modules",
    "jsonable",
    "load",
    "read",
    "store",
    "cached",
    "is_fresh",
]

PACKAGE = Path(__file__).resolve().parent  # lib/tcplab
#: where results are stored: $TCPLAB_DATA, or the book's data/ when it is unset or empty (an
#: empty value never means the current directory)
DATA_DIR = Path(os.environ.get("TCPLAB_DATA", "").strip() or PACKAGE.parents[1] / "data")
#: the metadata's key for the sha256 of its table's bytes (what binds the pair)
DIGEST = "table_sha256"


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


def _source(name: str) -> Path | None:
    """The file of tcplab module ``name`` (a package's ``__init__.py``), None if it is none."""
    parts = name.split(".")
    if parts[0] != PACKAGE.name:
        return None
    base = PACKAGE.joinpath(*parts[1:])
    for path in (base.with_suffix(".py"), base / "__init__.py"):
        if path.is_file():
            return path
    return None


def _direct_imports(name: str) -> tuple[str, ...]:
    """The tcplab modules that module ``name``'s import statements name, anywhere in it.

    ``from P import x`` counts P.x when it is a module, and P itself only when some imported
    name is an attribute of P (a package imported only as a parent is not code we use).
    """
    path = _source(name)
    assert path is not None
    return _imports_in(name, path.name == "__init__.py", path.read_text(encoding="utf-8"))


@functools.lru_cache(maxsize=4096)
def _imports_in(name: str, is_package: bool, text: str) -> tuple[str, ...]:
    """:func:`_direct_imports` of a module's source ``text``, kept per process: a staleness
    check asks for the same few hundred modules once per table (keyed on the text, so an
    edited module is parsed again)."""
    package = name if is_package else name.rpartition(".")[0]
    found: list[str] = []
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Import):
            found += [alias.name for alias in node.names if _source(alias.name)]
        elif isinstance(node, ast.ImportFrom):
            base = importlib.util.resolve_name("." * node.level + (node.module or ""), package)
            for alias in node.names:
                if _source(f"{base}.{alias.name}"):
                    found.append(f"{base}.{alias.name}")
                elif _source(base):
                    found.append(base)
    return tuple(dict.fromkeys(found))


#: modules that decide where a computation runs, not what it computes (every task carries its
#: own seed, and tests/test_tasks.py checks that the results are the same wherever they run):
#: left out of the fingerprint, so that moving a sweep to another executor keeps its data fresh
SCHEDULING = frozenset({"tcplab.tasks"})


def imported_modules(name: str) -> tuple[str, ...]:
    """Module ``name`` and every tcplab module it imports, directly or not, sorted; the
    :data:`SCHEDULING` modules are not followed."""
    seen: set[str] = set()
    todo = [name]
    while todo:
        current = todo.pop()
        if current not in seen and current not in SCHEDULING and _source(current):
            seen.add(current)
            todo += _direct_imports(current)
    return tuple(sorted(seen))


class _Code(ast.NodeTransformer):
    """A module's code without what does not change what it computes: docstrings, and the
    module paths its imports come from (the modules themselves are hashed in their own right)."""

    def generic_visit(self, node: ast.AST) -> ast.AST:
        body = getattr(node, "body", None)
        documented = isinstance(
            node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef
        )
        if documented and isinstance(body, list) and body and _is_docstring(body[0]):
            node.body = body[1:] or [ast.Pass()]  # type: ignore[attr-defined]
        return super().generic_visit(node)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> ast.AST:
        return ast.ImportFrom(module=None, names=node.names, level=0)

    def visit_Import(self, node: ast.Import) -> ast.AST:
        names = [
            ast.alias(name="" if _source(a.name) else a.name, asname=a.asname) for a in node.names
        ]
        return ast.Import(names=names)


def _is_docstring(statement: ast.stmt) -> bool:
    return (
        isinstance(statement, ast.Expr)
        and isinstance(statement.value, ast.Constant)
        and isinstance(statement.value.value, str)
    )


def _code_hash(path: Path) -> str:
    return _text_hash(path.read_text(encoding="utf-8"))


@functools.lru_cache(maxsize=4096)
def _text_hash(text: str) -> str:
    """The hash of a module's code, kept per process (keyed on its source text)."""
    tree = _Code().visit(ast.parse(text))
    dump = ast.dump(tree, annotate_fields=False, include_attributes=False)
    return hashlib.sha256(dump.encode()).hexdigest()


def fingerprint(modules: Iterable[str | ModuleType]) -> str:
    """A short hash of the code of ``modules`` (names of tcplab modules, or module objects):
    it changes when what they compute changes, not when they move or their docstrings do."""
    hashes = []
    for module in modules:
        path = _source(module) if isinstance(module, str) else Path(str(module.__file__))
        if path is None:
            raise ValueError(f"module={module!r} is not a tcplab module")
        hashes.append(_code_hash(path))
    digest = hashlib.sha256("\n".join(sorted(hashes)).encode())
    return digest.hexdigest()[:16]


def jsonable(params: Any) -> Any:
    if dataclasses.is_dataclass(params) and not isinstance(params, type):
        params = dataclasses.asdict(params)
    return json.loads(json.dumps(params, default=float))


class Unreadable(LookupError):
    """A stored result that cannot be read: a file missing, or a table and metadata that are
    not a pair (a write interrupted between the two renames)."""


def _temporary(path: Path) -> Path:
    return path.with_name(path.name + ".tmp")


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _meta_text(meta: dict[str, Any]) -> str:
    return json.dumps(meta, indent=2, sort_keys=True) + "\n"


def _record_old_digest(entry: Entry) -> None:
    """Give a readable pair whose metadata was written before :data:`DIGEST` existed its
    table's sha256 (atomically), so that once a new table replaces that one, the old metadata
    no longer vouches for it."""
    try:
        _, old = read(entry)
    except Unreadable:
        return
    if DIGEST not in old:
        temporary = entry.meta.with_name(entry.meta.name + ".old.tmp")
        try:
            temporary.write_text(
                _meta_text({**old, DIGEST: _sha256(entry.table.read_bytes())}), encoding="utf-8"
            )
            os.replace(temporary, entry.meta)
        finally:
            temporary.unlink(missing_ok=True)


def store(entry: Entry, table: pd.DataFrame, meta: dict[str, Any]) -> None:
    """Replace the pair ``entry`` by ``table`` and ``meta`` (plus the table's sha256): both
    written in full first, then the table renamed into place, the metadata last."""
    entry.folder.mkdir(parents=True, exist_ok=True)
    new_table, new_meta = _temporary(entry.table), _temporary(entry.meta)
    try:
        table.to_csv(new_table, index=False)
        text = _meta_text({**meta, DIGEST: _sha256(new_table.read_bytes())})
        new_meta.write_text(text, encoding="utf-8")
        _record_old_digest(entry)
        os.replace(new_table, entry.table)  # from here the old metadata refuses the table
        os.replace(new_meta, entry.meta)  # the new pair is complete
    finally:
        new_table.unlink(missing_ok=True)
        new_meta.unlink(missing_ok=True)


def _shown(path: Path) -> str:
    return f"{path.parent.name}/{path.name}"


def read(entry: Entry) -> tuple[pd.DataFrame, dict[str, Any]]:
    """The stored table and its metadata; :class:`Unreadable`, saying why, when a file is
    missing, unreadable, or the two are not a pair."""
    for path in (entry.table, entry.meta):
        if not path.exists():
            raise Unreadable(f"{_shown(path)} is missing")
    try:
        meta = json.loads(entry.meta.read_text(encoding="utf-8"))
    except ValueError as error:
        raise Unreadable(f"{_shown(entry.meta)} is not JSON ({error})") from None
    data = entry.table.read_bytes()
    if DIGEST in meta and meta[DIGEST] != _sha256(data):
        raise Unreadable(
            f"{_shown(entry.table)} is not the table its metadata describes (another sha256:"
            " a write interrupted between the two renames)"
        )
    try:
        table = pd.read_csv(io.BytesIO(data))
    except ValueError as error:
        raise Unreadable(f"{_shown(entry.table)} is not a CSV table ({error})") from None
    shape = {"rows": len(table), "columns": list(table.columns)}
    if DIGEST not in meta and any(meta.get(k, v) != v for k, v in shape.items()):
        raise Unreadable(f"{_shown(entry.table)} has other rows or columns than its metadata")
    return table, meta


def load(entry: Entry) -> tuple[pd.DataFrame, dict[str, Any]] | None:
    """The stored table and its metadata, or None when either is missing or they are not a
    pair (:func:`read` says why)."""
    try:
        return read(entry)
    except Unreadable:
        return None


def is_fresh(meta: dict[str, Any], modules: Iterable[str | ModuleType]) -> bool:
    """Whether a stored result was made by the code that is here now."""
    return meta.get("fingerprint") == fingerprint(modules)


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
) -> pd.DataFrame:
    """Read ``name`` from data/ if this code made it with these parameters, else compute it.

    Only full-scale results are stored: quick runs (tests, CI) are computed and returned.
    Another scale (an experiment's larger ``paper`` grid) is stored as ``<name>.<scale>``,
    beside the full-scale result the book reads.
    """
    entry = Entry(name if scale in ("full", "quick") else f"{name}.{scale}", folder or DATA_DIR)
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
    if scale != "quick":
        meta = {
            **wanted,
            "name": name,
            "package_version": __version__,
            "fingerprint": fingerprint(modules),
            "modules": sorted(m if isinstance(m, str) else m.__name__ for m in modules),
            "wall_s": round(wall, 3),
            "rows": len(table),
            "columns": list(table.columns),
        }
        store(entry, table, meta)
    return table
