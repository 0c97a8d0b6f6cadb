"""Seeds for a sweep of packet runs: one independent stream per job, from one seed.

A sweep is a list of jobs, each holding a frozen set-up with a ``seed`` field. Job ``i``
gets the first word of child ``i`` of ``numpy.random.SeedSequence(seed)``, so the jobs'
streams are independent, the same wherever the jobs run, and a job keeps its seed when the
jobs around it are filtered out after seeding.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any, Protocol, TypeVar

import numpy as np

__all__ = ["seeded"]


class _HasSetup(Protocol):
    setup: Any


JobT = TypeVar("JobT", bound=_HasSetup)


def seeded(jobs: Sequence[JobT], seed: int) -> list[JobT]:
    """Each job with its own seed: child ``i`` of ``SeedSequence(seed)`` for the ``i``-th."""
    children = np.random.SeedSequence(seed).spawn(len(jobs))
    return [
        # JobT should be bound to a frozen dataclass with a read-only ``setup`` (the Protocol
        # above is not one: mypy flags it here and at each caller); the annotations are code to
        # the data fingerprint (cache._code_hash), so fixing them waits for the next regeneration
        replace(work, setup=replace(work.setup, seed=int(child.generate_state(1)[0])))  # type: ignore[type-var]
        for work, child in zip(jobs, children, strict=True)
    ]
