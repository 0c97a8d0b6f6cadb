"""The chapter's packet runs as tasks: each job is a frozen set-up and its labels.

A :class:`Job` holds a set-up (a Fig. 5.1 :class:`~tcplab.packet.PacketSetup` with its
number of TCP flows, or a :class:`~tcplab.packet.multipath.MultipathSetup`) and the labels
its rows start with; :func:`run_jobs` seeds each from its own child of
``SeedSequence(seed)``, runs them through :func:`tcplab.tasks.run_tasks` (``workers``
processes, or a cluster) with a progress bar and returns
what each gave, in order.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

from tcplab.packet import PacketSetup
from tcplab.packet.multipath import MultipathRun, MultipathSetup, run_multipath
from tcplab.packet.weighted import WeightedRun, run_weighted
from tcplab.seeding import seeded
from tcplab.tasks import run_tasks

__all__ = ["Job", "job", "run_jobs"]


@dataclass(frozen=True)
class Job:
    """One run: a Fig. 5.1 set-up with ``tcp_flows`` TCP flows first, or a multipath set-up;
    ``labels`` start its rows."""

    setup: PacketSetup | MultipathSetup
    tcp_flows: int = 0
    labels: tuple[tuple[str, Any], ...] = ()

    @property
    def label(self) -> dict[str, Any]:
        return dict(self.labels)


def job(setup: PacketSetup | MultipathSetup, tcp_flows: int = 0, **labels: Any) -> Job:
    """A :class:`Job`; ``labels`` in the order the rows' columns should have."""
    return Job(setup, tcp_flows, tuple(labels.items()))


def _one(work: Job) -> WeightedRun | MultipathRun:
    if isinstance(work.setup, MultipathSetup):
        return run_multipath(work.setup)
    return run_weighted(work.setup, work.tcp_flows)


def run_jobs(
    jobs: Sequence[Job],
    workers: int,
    seed: int,
    desc: str,
    reduce: Callable[[Job, Any], Any] | None = None,
) -> list[Any]:
    """Run every job (each seeded from its own child of ``SeedSequence(seed)``) and return
    ``reduce(job, run)`` for each, in order (the run itself without ``reduce``); ``reduce``
    is a module-level function and runs in the worker, so only what it keeps crosses back."""
    reduce = _whole if reduce is None else reduce
    return run_tasks(
        partial(_reduced, reduce=reduce),
        seeded(jobs, seed),  # type: ignore[type-var]
        workers=workers,
        desc=desc,
    )


def _whole(work: Job, run: Any) -> Any:
    return run


def _reduced(work: Job, reduce: Callable[[Job, Any], Any]) -> Any:
    return reduce(work, _one(work))
