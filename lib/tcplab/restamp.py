"""Freshness by behaviour: a stored result stays fresh while the code computes the same numbers.

A full-scale table's metadata records, besides the code fingerprint, the digest of the
experiment's quick-scale table as the code that made the full table computes it, at the same
seed (``quick_sha256``, :func:`tcplab.frames.digest`), and which parameters that quick run
read (``quick_reads``). After a change of code moves a fingerprint, :func:`restamp` recomputes
the quick tables of the experiments whose fingerprint moved (seconds each, in parallel
through :mod:`tcplab.tasks`); where the quick table is byte for byte the recorded one, it
rewrites only the fingerprint (atomically, under the table's lock); anything else stays stale
and is listed with why. A fresh table that records no quick digest yet is *stamped*: its digest
is recorded (the code here now is the code that made it).

The quick table is a canary: it can miss a change on a code path that only the full grid
reaches. One such path is guarded (:func:`branch_gaps`): a parameter the quick run reads whose
full-grid value is a word or a switch (a queue, a variant, a controller: a string or a bool)
absent from the quick grid. An experiment with such a gap is never restamped; the test of the
shipped data (tests/test_data.py) asks that no shipped table has one. A numeric threshold that
only the full grid crosses (``if flows > 1000``) is not guarded: ARCHITECTURE.md says so.
"""

from __future__ import annotations

import dataclasses
import math
import os
import time
import traceback
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from . import cache, frames, registry
from .fingerprint import module_names

__all__ = ["Canary", "Outcome", "Table", "branch_gaps", "canary", "restamp", "statuses", "tables"]

#: the metadata's keys for the parameters the quick run read (``["*"]``: all of them) and
#: the quick parameters themselves (a canary is compared only with one of the same grid)
READS = "quick_reads"
QUICK_PARAMS = "quick_params"
#: a parameter class may list fields that choose only sizes, never a code path (e.g. a flag
#: that picks another experiment's quick or full parameters, whose own grids are checked)
SIZES_ATTRIBUTE = "SIZES"


@dataclass(frozen=True)
class Table:
    """One stored result the book keeps: an experiment at full scale (or its paper grid)."""

    experiment: str
    scale: str = "full"

    @property
    def label(self) -> str:
        return self.experiment if self.scale == "full" else f"{self.experiment}.{self.scale}"

    @property
    def entry(self) -> cache.Entry:
        return cache.Entry.of(self.experiment, scale=self.scale, seed=cache.BOOK_SEED)

    def status(self) -> cache.Status:
        return registry.status(self.experiment, scale=self.scale, seed=cache.BOOK_SEED)


def tables() -> list[Table]:
    """Every registered experiment's book table, and its paper-grid table where one is stored."""
    found = []
    for name in sorted(registry.REGISTRY):
        found.append(Table(name))
        paper = Table(name, "paper")
        if registry.REGISTRY[name].has_paper_grid() and (
            paper.entry.table.exists() or paper.entry.meta.exists()
        ):
            found.append(paper)
    return found


def statuses() -> list[tuple[Table, cache.Status]]:
    """Every table of :func:`tables` with its state."""
    return [(table, table.status()) for table in tables()]


# -- the canary: the quick table, and which parameters it read ------------------------------
def _leaves(value: Any, path: str) -> Iterator[tuple[str, Any]]:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        for field in dataclasses.fields(value):
            yield from _leaves(getattr(value, field.name), f"{path}.{field.name}")
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _leaves(item, f"{path}[{key!r}]")
    elif isinstance(value, tuple | list | set | frozenset):
        for item in value:
            yield from _leaves(item, f"{path}[]")
    else:
        yield path, value


def _words(value: Any, path: str) -> set[tuple[str, Any]]:
    """The (place, value) of every string or bool inside ``value``."""
    return {(p, v) for p, v in _leaves(value, path) if isinstance(v, str | bool)}


def branch_gaps(
    full: Any, quick: Any, reads: list[str] | tuple[str, ...] | None = None
) -> dict[str, list[Any]]:
    """The words and switches (strings, bools, at any depth) of the parameters ``full`` that
    ``quick`` lacks, per field, among the fields in ``reads`` (all when None or ``["*"]``) and
    not in the class's :data:`SIZES_ATTRIBUTE`: the code paths the full grid may take that the
    quick canary does not."""
    sizes = set(getattr(type(full), SIZES_ATTRIBUTE, ()))
    every = reads is None or "*" in reads
    gaps: dict[str, list[Any]] = {}
    for field in dataclasses.fields(full):
        if field.name in sizes or not (every or field.name in (reads or ())):
            continue
        missing = _words(getattr(full, field.name), field.name) - _words(
            getattr(quick, field.name), field.name
        )
        if missing:
            gaps[field.name] = sorted({v for _, v in missing}, key=repr)
    return gaps


def _gaps_line(gaps: dict[str, list[Any]]) -> str:
    return "; ".join(f"{k} {', '.join(map(repr, v))}" for k, v in gaps.items())


def _tracking(params: Any) -> tuple[Any, set[str]]:
    """A copy of the frozen dataclass ``params`` that notes which of its fields are read."""
    names = {field.name for field in dataclasses.fields(params)}
    reads: set[str] = set()

    def __getattribute__(self: Any, attribute: str) -> Any:  # noqa: N807
        if attribute in names:
            reads.add(attribute)
        return object.__getattribute__(self, attribute)

    kind = type(params)
    tracked_kind = type(kind.__name__, (kind,), {"__getattribute__": __getattribute__})
    tracked: Any = object.__new__(tracked_kind)
    for name in names:
        object.__setattr__(tracked, name, object.__getattribute__(params, name))
    return tracked, reads


@dataclass(frozen=True)
class Canary:
    """An experiment's quick table at a seed, as the code here computes it: its digest, the
    parameters it read (``("*",)``: it could not be told) and how long it took."""

    digest: str
    reads: tuple[str, ...]
    wall_s: float
    quick_params: Any

    def record(self) -> dict[str, Any]:
        """What the stored result's metadata keeps of it."""
        return {
            cache.QUICK_DIGEST: self.digest,
            READS: list(self.reads),
            QUICK_PARAMS: self.quick_params,
            "quick_wall_s": self.wall_s,
        }


def canary(name: str, seed: int = cache.BOOK_SEED) -> Canary:
    """Compute experiment ``name``'s quick table now (never from a cache)."""
    experiment = registry.REGISTRY[name]
    params = experiment.parameters("quick")
    started = time.perf_counter()
    tracked, reads = _tracking(params)
    try:
        table = experiment.function()(tracked, seed)
        read: tuple[str, ...] = tuple(sorted(reads))
    except Exception:  # e.g. the tracking copy had to be pickled for another process
        table = experiment.function()(params, seed)
        read = ("*",)
    wall = round(time.perf_counter() - started, 3)
    return Canary(frames.digest(table), read, wall, cache.jsonable(params))


def _canary_task(task: tuple[str, int]) -> Canary | str:
    """:func:`canary` for the pool: the error's last line instead of raising it, so that one
    experiment that fails does not stop the others."""
    try:
        return canary(*task)
    except Exception as error:
        last = traceback.format_exception_only(type(error), error)[-1].strip()
        return f"its quick run failed: {last[:200]}"


# -- restamping -----------------------------------------------------------------------------
@dataclass(frozen=True)
class Outcome:
    """What :func:`restamp` did with one table: ``action`` is restamped, stamped, fresh,
    stale, corrupt or missing; ``why`` says why (empty for fresh)."""

    table: Table
    action: str
    why: str = ""

    def line(self) -> str:
        return f"{self.action:10} {self.table.label}" + (f": {self.why}" if self.why else "")


def _again(table: Table) -> str:
    return f"run `{cache.command(table.experiment, table.scale)}`"


def _decide(table: Table, status: cache.Status, found: Canary | str) -> Outcome:
    """Stamp, restamp or leave ``table`` stale, given its canary ``found`` (or why it failed)."""
    meta = status.meta or {}
    fresh = status.state == "fresh"
    if isinstance(found, str):
        return (
            Outcome(table, "fresh", f"not stamped: {found}")
            if fresh
            else Outcome(table, "stale", f"{status.why}; {found}")
        )
    experiment = registry.REGISTRY[table.experiment]
    full, quick = experiment.parameters(table.scale), experiment.parameters("quick")
    gaps = branch_gaps(full, quick, found.reads)
    recorded = found.record()
    if fresh:  # made by the code here now: record its canary
        cache.amend(table.entry, recorded, if_fingerprint=meta["fingerprint"])
        note = f" (but its quick grid lacks {_gaps_line(gaps)})" if gaps else ""
        return Outcome(table, "stamped", f"quick sha256 {found.digest[:12]} recorded{note}")
    if gaps:
        why = (
            f"{status.why}; not restamped: its quick grid lacks {_gaps_line(gaps)} of the full "
            f"grid, paths the quick run does not take: {_again(table)}"
        )
        return Outcome(table, "stale", why)
    if found.digest != meta[cache.QUICK_DIGEST]:
        why = (
            f"{status.why}; its quick table moved (sha256 {found.digest[:12]}, recorded "
            f"{meta[cache.QUICK_DIGEST][:12]}): {_again(table)}"
        )
        return Outcome(table, "stale", why)
    modules = experiment.modules()
    changes = {
        "fingerprint": cache.fingerprint(modules),
        "modules": module_names(modules),
        **recorded,
    }
    cache.amend(table.entry, changes, if_fingerprint=meta["fingerprint"])
    return Outcome(table, "restamped", f"quick table unchanged (sha256 {found.digest[:12]})")


def _plan(table: Table, status: cache.Status) -> Outcome | None:
    """The outcome of a table that needs no canary, or None when it needs one."""
    meta = status.meta or {}
    quick = cache.jsonable(registry.REGISTRY[table.experiment].parameters("quick"))
    if status.state == "fresh":  # stamped again when the quick grid changed
        stamped = cache.QUICK_DIGEST in meta and READS in meta and meta.get(QUICK_PARAMS) == quick
        return Outcome(table, "fresh") if stamped else None
    if status.state == "stale" and status.why.startswith("code"):
        if cache.QUICK_DIGEST in meta and meta.get(QUICK_PARAMS) == quick:
            return None
        why = (
            f"{status.why}; it records no {cache.QUICK_DIGEST} of today's quick grid to "
            f"compare with: {_again(table)}"
        )
        return Outcome(table, "stale", why)
    return Outcome(table, status.state, status.why)


def _recorded_wall(value: Any) -> float:
    """A metadata's quick wall time as a number (unknown or not a number: first in line)."""
    if isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value):
        return float(value)
    return 1e9


def restamp(
    *,
    workers: int | None = None,
    only: list[str] | None = None,
    report: Callable[[Outcome], object] = lambda outcome: None,
) -> list[Outcome]:
    """Restamp every table (or those of the experiments ``only``) whose code fingerprint moved
    while its quick table did not; stamp the fresh ones that record no canary yet. The quick
    tables run on ``workers`` processes (default: one per core), the longest first;
    ``report`` is called with each outcome as it is decided. Interrupted, it leaves every
    table as it was or restamped, never half-written."""
    from .tasks import run_tasks

    outcomes: list[Outcome] = []
    todo: list[tuple[Table, cache.Status]] = []
    for table, status in statuses():
        if only is not None and table.experiment not in only:
            continue
        planned = _plan(table, status)
        if planned is None:
            todo.append((table, status))
        else:
            outcomes.append(planned)
            report(planned)
    todo.sort(key=lambda pair: -_recorded_wall((pair[1].meta or {}).get("quick_wall_s")))

    def decided(index: int, found: Canary | str) -> None:
        outcome = _decide(*todo[index], found)
        outcomes.append(outcome)
        report(outcome)

    tasks = [(table.experiment, cache.BOOK_SEED) for table, _ in todo]
    workers = workers or os.cpu_count() or 1
    workers = max(1, min(workers, len(tasks) or 1))
    run_tasks(_canary_task, tasks, workers=workers, desc="quick tables", each=decided)
    return outcomes
