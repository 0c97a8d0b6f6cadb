"""The code fingerprint of a result: a hash of what the code that made it computes.

The fingerprint covers the tcplab modules an experiment imports, found by reading their import
statements (:func:`imported_modules`), and hashes what they compute, not where they live: each
module's syntax tree without docstrings and without the module paths of its imports, the hashes
keyed by content and sorted. Moving a module, renaming it or editing a docstring or a comment
keeps the fingerprint; changing a line of code that the experiment runs changes it. (Whether
the numbers changed too is a question for :mod:`tcplab.restamp`: a fingerprint that moved with
every number unchanged is restamped, not recomputed.)

A parameter class's ``quick()`` classmethod is left out too: it defines the small variant
that tests and the restamp canary run, not code a full-scale table runs (its value is recorded
in the table's metadata as ``quick_params``, and a full-scale computation that calls it is
kept to the few places tests/test_restamp.py lists, each behind a quick-scale flag).
"""

from __future__ import annotations

import ast
import functools
import hashlib
import importlib.util
from collections.abc import Iterable
from pathlib import Path
from types import ModuleType

__all__ = ["PACKAGE", "SCHEDULING", "fingerprint", "imported_modules", "module_names"]

PACKAGE = Path(__file__).resolve().parent  # lib/tcplab


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
    """A module's code without what does not change what a full-scale table holds:
    docstrings, the module paths its imports come from (the modules themselves are hashed in
    their own right) and the ``quick()`` classmethods of its classes."""

    def generic_visit(self, node: ast.AST) -> ast.AST:
        body = getattr(node, "body", None)
        documented = isinstance(
            node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef
        )
        if documented and isinstance(body, list) and body and _is_docstring(body[0]):
            node.body = body[1:] or [ast.Pass()]  # type: ignore[attr-defined]
        if isinstance(node, ast.ClassDef):
            node.body = [s for s in node.body if not is_quick_variant(s)] or [ast.Pass()]
        return super().generic_visit(node)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> ast.AST:
        return ast.ImportFrom(module=None, names=node.names, level=0)

    def visit_Import(self, node: ast.Import) -> ast.AST:
        names = [
            ast.alias(name="" if _source(a.name) else a.name, asname=a.asname) for a in node.names
        ]
        return ast.Import(names=names)


def is_quick_variant(statement: ast.stmt) -> bool:
    """Whether a class body's ``statement`` is its ``quick()`` classmethod."""
    return (
        isinstance(statement, ast.FunctionDef)
        and statement.name == "quick"
        and any(isinstance(d, ast.Name) and d.id == "classmethod" for d in statement.decorator_list)
    )


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


def module_names(modules: Iterable[str | ModuleType]) -> list[str]:
    """The dotted names of ``modules`` (names or module objects), sorted."""
    return sorted(m if isinstance(m, str) else m.__name__ for m in modules)
