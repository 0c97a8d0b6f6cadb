"""One function per reproduced figure or table, each registered under a name.

An experiment takes a frozen dataclass of parameters (the paper's values by default, and a
``quick()`` variant small enough for CI) and returns a tidy DataFrame. :func:`run` is what a
chapter calls: at ``scale="full"`` it reads the result from data/ (or computes and stores it),
at ``scale="quick"`` it computes the small variant on the spot.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType
from typing import Any

import pandas as pd

from .. import cache
from ..checks import check_choice

__all__ = ["Experiment", "REGISTRY", "register", "run", "SCALES"]

SCALES = ("full", "quick")


@dataclass(frozen=True)
class Experiment:
    """A named computation the book caches: what it computes, with what, from which code."""

    name: str
    compute: Callable[[Any, int], pd.DataFrame]
    params: type
    modules: tuple[ModuleType, ...]
    description: str

    def parameters(self, scale: str) -> Any:
        check_choice("scale", scale, SCALES)
        return self.params() if scale == "full" else self.params.quick()


REGISTRY: dict[str, Experiment] = {}


def register(experiment: Experiment) -> Experiment:
    """Add an experiment to the registry that `tcplab data` and the chapters use."""
    REGISTRY[experiment.name] = experiment
    return experiment


def run(name: str, *, scale: str = "full", seed: int = 0, refresh: bool = False) -> pd.DataFrame:
    """The result of experiment ``name`` at ``scale``: cached in data/ when full scale."""
    check_choice("experiment", name, REGISTRY)
    experiment = REGISTRY[name]
    params = experiment.parameters(scale)
    return cache.cached(
        name,
        lambda: experiment.compute(params, seed),
        params=params,
        seed=seed,
        scale=scale,
        modules=experiment.modules,
        refresh=refresh,
    )


# Importing a chapter's module registers its experiments.
from . import insensitivity, moments, packets, sawtooth  # noqa: E402,F401
