"""The experiments behind the book, by name: declared as data, imported only when they run.

Each chapter package (``tcplab/chapters/<name>/``) lists its experiments in its
``__init__.py`` as ``EXPERIMENTS``, a tuple of :class:`Experiment` records that name the
function and its frozen parameter class by dotted path. Listing them imports no model: the
chapter's code is imported when an experiment runs. :func:`run` is what a chapter, the
``tcplab`` command, ``make data`` and the tests call: at ``scale="full"`` it reads the result
from data/ (or computes and stores it), at ``scale="quick"`` it computes the small variant.
A test session (or anyone) may name a scratch folder in ``TCPLAB_QUICK_CACHE``: quick results
are then kept there as data (:mod:`tcplab.frames`: JSON, never a pickle, so reading one runs
no code), keyed by experiment, parameters, seed and code fingerprint, so that the tests, the
golden net and the chapters' notebooks compute each quick table once; an entry that cannot be
read is computed again, with one line of warning.
The code fingerprint of a stored result comes from the modules the experiment's code imports
(:func:`tcplab.cache.imported_modules`), not from a list kept by hand.
"""

from __future__ import annotations

import hashlib
import importlib
import json
import os
import pkgutil
import sys
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .checks import check_choice

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "Experiment", "REGISTRY", "SCALES", "QUICK_CACHE", "quick_folder", "run", "run_all", "status"
]  # fmt: skip

SCALES = ("full", "quick", "paper")
CHAPTERS = "tcplab.chapters"
QUICK_CACHE = "TCPLAB_QUICK_CACHE"  # environment variable: a scratch folder for quick results


@dataclass(frozen=True)
class Experiment:
    """A named computation the book caches, declared without importing it.

    ``compute`` is ``"package.module:function"``, a function ``(params, seed) -> DataFrame``;
    ``params`` names its frozen parameter dataclass (the paper's values as defaults, and a
    ``quick()`` variant) in the same module, or anywhere as ``"package.module:Class"``.
    """

    name: str
    compute: str
    params: str
    description: str

    @property
    def module(self) -> str:
        """The module that holds the computation (where its fingerprint starts)."""
        return self.compute.partition(":")[0]

    def function(self) -> Callable[[Any, int], pd.DataFrame]:
        return _load(self.compute)

    def parameter_class(self) -> Any:
        where = self.params if ":" in self.params else f"{self.module}:{self.params}"
        return _load(where)

    def parameters(self, scale: str) -> Any:
        """The parameters of ``scale``: ``full`` (the defaults), ``quick``, or ``paper``
        (the paper's grid, where an experiment's is larger than the book's: its ``paper()``;
        else the defaults)."""
        check_choice("scale", scale, SCALES)
        params = self.parameter_class()
        if scale == "quick":
            return params.quick()
        if scale == "paper" and hasattr(params, "paper"):
            return params.paper()
        return params()

    def has_paper_grid(self) -> bool:
        """Whether the paper's grid is larger than the book's (a ``paper()`` variant)."""
        return hasattr(self.parameter_class(), "paper")

    def modules(self) -> tuple[str, ...]:
        """Every tcplab module the computation imports, directly or not."""
        from .cache import imported_modules

        return imported_modules(self.module)


def _load(where: str) -> Any:
    module, _, attribute = where.partition(":")
    return getattr(importlib.import_module(module), attribute)


class _Registry(Mapping[str, Experiment]):
    """Every chapter's declared experiments, collected on first use (chapter ``__init__``
    files only: they declare, they do not compute)."""

    def __init__(self) -> None:
        self._found: dict[str, Experiment] | None = None

    def _all(self) -> dict[str, Experiment]:
        if self._found is None:
            found: dict[str, Experiment] = {}
            package = importlib.import_module(CHAPTERS)
            for info in pkgutil.iter_modules(package.__path__, f"{CHAPTERS}."):
                chapter = importlib.import_module(info.name)
                for experiment in getattr(chapter, "EXPERIMENTS", ()):
                    if experiment.name in found:
                        raise ValueError(f"experiment {experiment.name!r} is declared twice")
                    found[experiment.name] = experiment
            self._found = found
        return self._found

    def __getitem__(self, name: str) -> Experiment:
        return self._all()[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._all())

    def __len__(self) -> int:
        return len(self._all())


REGISTRY: Mapping[str, Experiment] = _Registry()


def quick_folder() -> str | None:
    """The scratch folder of quick results, ``$TCPLAB_QUICK_CACHE`` (``~`` expanded); None
    when it is unset or blank (a blank value is never the current directory)."""
    value = os.environ.get(QUICK_CACHE, "").strip()
    return os.path.expanduser(value) if value else None


def _checked(name: str, scale: str) -> Experiment:
    check_choice("experiment", name, REGISTRY)
    check_choice("scale", scale, SCALES)
    experiment = REGISTRY[name]
    if scale == "paper" and not experiment.has_paper_grid():
        raise ValueError(
            f"scale='paper' for experiment={name!r}: it has no paper grid (the paper's scale is "
            "its full scale); use scale='full'"
        )
    return experiment


def run(name: str, *, scale: str = "full", seed: int = 0, refresh: bool = False) -> pd.DataFrame:
    """The result of experiment ``name`` at ``scale``: full scale is read from data/ when it
    is fresh, computed and stored when it is missing (or ``refresh``), and an error naming
    ``tcplab data --restamp`` or ``tcplab data --only NAME`` when it is stale or corrupt
    (:func:`tcplab.cache.cached`); the paper's scale is stored as ``<name>.paper``."""
    from . import cache

    experiment = _checked(name, scale)
    params = experiment.parameters(scale)
    compute = experiment.function()
    scratch = quick_folder()
    if scale == "quick" and scratch and not refresh:
        return _quick_cached(name, lambda: compute(params, seed), params, seed, experiment, scratch)
    return cache.cached(
        name,
        lambda: compute(params, seed),
        params=params,
        seed=seed,
        scale=scale,
        modules=experiment.modules(),
        refresh=refresh,
        canary=lambda: _canary(name, seed),
    )


def _canary(name: str, seed: int) -> dict[str, Any]:
    """What a stored result's metadata keeps of its experiment's quick table (the canary of
    ``tcplab data --restamp``)."""
    from .restamp import canary

    return canary(name, seed).record()


def status(name: str, *, scale: str = "full", seed: int = 0) -> Any:
    """The :class:`tcplab.cache.Status` of experiment ``name``'s stored result."""
    from . import cache

    experiment = _checked(name, scale)
    return cache.check(
        cache.Entry.of(name, scale=scale, seed=seed),
        params=experiment.parameters(scale),
        seed=seed,
        scale=scale,
        modules=experiment.modules(),
    )


def _warn(line: str) -> None:
    print(f"tcplab: warning: {line}", file=sys.stderr)


def _quick_read(path: str, warn: bool = True) -> pd.DataFrame | None:
    """The quick result at ``path`` (never followed through a link); None when there is none,
    a warning line (if ``warn``) and None when it cannot be read."""
    from . import frames

    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except FileNotFoundError:
        return None
    except OSError as error:
        if warn:
            _warn(f"quick result {path} cannot be read ({error.strerror}): computed again")
        return None
    with os.fdopen(fd, "rb") as stream:
        data = stream.read()
    try:
        return frames.decode(data)
    except ValueError as error:
        if warn:
            _warn(f"quick result {path} is corrupt ({error}): computed again")
        return None


def _quick_cached(
    name: str,
    compute: Callable[[], pd.DataFrame],
    params: Any,
    seed: int,
    experiment: Experiment,
    folder: str,
) -> pd.DataFrame:
    """A quick result from the scratch ``folder``, or computed and kept there (written under a
    name of its own, then renamed: a reader never sees half a file). One process computes it:
    another that asks for the same result meanwhile (the other pytest-xdist worker, a
    notebook's kernel) waits on its lock and reads it, instead of computing it too."""
    from pathlib import Path

    from . import cache, frames, safefile

    key = json.dumps(
        [cache.jsonable(params), seed, cache.fingerprint(experiment.modules())], sort_keys=True
    )
    path = os.path.join(folder, f"{name}-{hashlib.sha256(key.encode()).hexdigest()[:16]}.json")
    found = _quick_read(path)
    if found is not None:
        return found
    warned = os.path.lexists(path)  # there, but unreadable: said once
    os.makedirs(folder, exist_ok=True)
    # a lock longer than any quick computation (the other worker computes meanwhile)
    with safefile.locked(Path(path), wait_s=3600.0):
        found = _quick_read(path, warn=not warned)  # computed while this process waited
        if found is not None:
            return found
        table = compute()
        try:
            data = frames.encode(table)
        except frames.Unsupported as error:
            _warn(f"{name}'s quick table is not kept in {folder} ({error})")
            return table
        safefile.write(Path(path), data)
    return table


def run_all(
    names: tuple[str, ...], *, scale: str = "full", seed: int = 0
) -> dict[str, pd.DataFrame]:
    """:func:`run` for each of ``names``, keyed by name (a chapter's claims read these)."""
    return {name: run(name, scale=scale, seed=seed) for name in names}
