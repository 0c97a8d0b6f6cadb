"""The experiments behind the book, by name: declared as data, imported only when they run.

Each chapter package (``tcplab/chapters/<name>/``) lists its experiments in its
``__init__.py`` as ``EXPERIMENTS``, a tuple of :class:`Experiment` records that name the
function and its frozen parameter class by dotted path. Listing them imports no model: the
chapter's code is imported when an experiment runs. :func:`run` is what a chapter, the
``tcplab`` command, ``make data`` and the tests call: at ``scale="full"`` it reads the result
from data/ (or computes and stores it), at ``scale="quick"`` it computes the small variant.
A test session (or anyone) may name a scratch folder in ``TCPLAB_QUICK_CACHE``: quick results
are then pickled there, keyed by experiment, parameters, seed and code fingerprint, so that
the tests, the golden net and the chapters' notebooks compute each quick table once.
The code fingerprint of a stored result comes from the modules the experiment's code imports
(:func:`tcplab.cache.imported_modules`), not from a list kept by hand.
"""

from __future__ import annotations

import hashlib
import importlib
import json
import os
import pkgutil

try:
    import fcntl  # POSIX: the quick folder's lock (elsewhere each process computes its own)
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .checks import check_choice

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["Experiment", "REGISTRY", "SCALES", "QUICK_CACHE", "run", "run_all"]

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


def run(name: str, *, scale: str = "full", seed: int = 0, refresh: bool = False) -> pd.DataFrame:
    """The result of experiment ``name`` at ``scale``: cached in data/ when full scale (and
    as ``<name>.paper`` at the paper's scale)."""
    from . import cache

    check_choice("experiment", name, REGISTRY)
    experiment = REGISTRY[name]
    params = experiment.parameters(scale)
    compute = experiment.function()
    scratch = os.environ.get(QUICK_CACHE)
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
    )


def _quick_cached(
    name: str,
    compute: Callable[[], pd.DataFrame],
    params: Any,
    seed: int,
    experiment: Experiment,
    folder: str,
) -> pd.DataFrame:
    """A quick result from the scratch ``folder``, or computed and pickled there (written to a
    temporary name, then renamed: a reader never sees half a file). One process computes it:
    another that asks for the same result meanwhile (the other pytest-xdist worker, a
    notebook's kernel) waits on a lock beside it and reads it, instead of computing it too."""
    import pandas as pd

    from . import cache

    key = json.dumps(
        [cache.jsonable(params), seed, cache.fingerprint(experiment.modules())], sort_keys=True
    )
    path = os.path.join(folder, f"{name}-{hashlib.sha256(key.encode()).hexdigest()[:16]}.pkl")
    if os.path.exists(path):
        return pd.read_pickle(path)
    os.makedirs(folder, exist_ok=True)
    with open(f"{path}.lock", "w") as lock:
        if fcntl is not None:
            fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        if os.path.exists(path):  # computed while this process waited
            return pd.read_pickle(path)
        table = compute()
        temporary = f"{path}.{os.getpid()}.tmp"
        table.to_pickle(temporary)
        os.replace(temporary, path)
    return table


def run_all(
    names: tuple[str, ...], *, scale: str = "full", seed: int = 0
) -> dict[str, pd.DataFrame]:
    """:func:`run` for each of ``names``, keyed by name (a chapter's claims read these)."""
    return {name: run(name, scale=scale, seed=seed) for name in names}
