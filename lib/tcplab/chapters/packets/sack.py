"""The chapter's central sweeps again with TCP-SACK, the variant of the paper's ns-2 runs.

The chapter's DropTail (Fig. 7), RED (Fig. 10) and threshold-dropper (Fig. 11) sweeps run
NewReno. Here the same jobs are built by :mod:`.experiments`' own ``grid_jobs``, seeded
exactly as :func:`.runs.run_all` seeds them (child ``i`` of ``SeedSequence(seed)`` for the
``i``-th job of the whole sweep), and only then cut down to a sub-grid and given
``variant="sack"``. A SACK row therefore differs from the NewReno row of the same
(queue, buffer, N) in the shipped tables by its TCP variant alone: same start times, same
RED coin flips where the trajectories agree. The sub-grid keeps the points the chapter's
paper-vs-book verdicts read (smallest and largest DropTail buffer and one between, RED with
buffers of at least 10, both of Fig. 11's policies) and stays a few minutes long.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, ClassVar

import pandas as pd

from tcplab.packet import TcpConfig
from tcplab.seeding import seeded
from tcplab.tasks import run_tasks
from tcplab.theory import altman

from .experiments import PacketsParams, grid_jobs, threshold_settings
from .runs import Job, Outcome, _one

__all__ = ["SackParams", "VARIANT", "sack", "sweep_jobs", "with_variant"]

VARIANT = "sack"


@dataclass(frozen=True)
class SackParams:
    """Which points of the chapter's sweeps to rerun with SACK; the set-up is the chapter's
    (``PacketsParams()``, or its ``quick()`` variant at quick scale)."""

    droptail_buffers: tuple[int, ...] = (5, 20, 100)
    red_buffers: tuple[int, ...] = (50, 100)
    flows: tuple[int, ...] = (1, 2, 3, 5, 7, 10)  # DropTail and RED
    thresholds: tuple[tuple[int, int], ...] = ((3, 100),)  # (Th, b)
    selections: tuple[str, ...] = ("random", "largest")
    threshold_flows: tuple[int, ...] = (2, 3, 5, 10)
    quick_scale: bool = False  # the chapter's quick set-up (100 s runs) instead of the full one
    #: fields that choose sizes, not code paths (the chapter's quick or full set-up, whose
    #: words and switches agree): the restamp canary's branch check passes them by
    SIZES: ClassVar[tuple[str, ...]] = ("quick_scale",)
    workers: int = 2

    @classmethod
    def quick(cls) -> SackParams:
        return cls(
            droptail_buffers=(5, 50),
            red_buffers=(50,),
            # one N per queue, where its claims say something: RED's reads N >= 5 only, and
            # the threshold-dropper's are near Theorem 1 below saturation (at N = 10 every
            # run fills the link); N = 2 under DropTail and RED, and N = 10 under the
            # threshold-dropper, were 5 of the 10 runs and 3.5 of the 6.5 s
            flows=(10,),
            thresholds=((3, 100),),
            threshold_flows=(2,),
            quick_scale=True,
            workers=1,
        )

    def chapter(self) -> PacketsParams:
        """The chapter's parameters these runs share (and whose tables they pair with)."""
        return PacketsParams.quick() if self.quick_scale else PacketsParams()


def sweep_jobs(params: PacketsParams, seed: int) -> dict[str, list[Job]]:
    """The seeded jobs of the chapter's ``droptail``, ``red`` and ``threshold`` experiments,
    whole and in their order (so each carries the seed of the shipped row it belongs to):
    :func:`.experiments.grid_jobs`, seeded by :func:`tcplab.seeding.seeded` as ``run_all``
    seeds them."""
    buffers: list[tuple[int, dict[str, Any]]] = [(b, {}) for b in params.buffers]
    sweeps = {
        "droptail": grid_jobs(params, "droptail", buffers),
        "red": grid_jobs(params, "red", buffers),
        "threshold": grid_jobs(
            params, "threshold", threshold_settings(params), params.threshold_flows
        ),
    }
    return {kind: seeded(jobs, seed) for kind, jobs in sweeps.items()}  # type: ignore[type-var]


def _kept(sack: SackParams, work: Job) -> bool:
    labels = dict(work.labels)
    kind, buffer, n = labels["queue"], labels["buffer"], work.setup.topology.flows
    if kind == "droptail":
        return buffer in sack.droptail_buffers and n in sack.flows
    if kind == "red":
        return buffer in sack.red_buffers and n in sack.flows
    return (
        (labels["threshold"], buffer) in sack.thresholds
        and labels["select"] in sack.selections
        and n in sack.threshold_flows
    )


def with_variant(work: Job, variant: str) -> Job:
    """``work`` with its senders' TCP variant swapped, all else (its seed too) kept."""
    setup = work.setup
    if not isinstance(setup.tcp, TcpConfig):
        raise ValueError(f"setup.tcp={setup.tcp!r}: one TcpConfig for every flow expected")
    return replace(work, setup=replace(setup, tcp=replace(setup.tcp, variant=variant)))


def sack(params: SackParams, seed: int = 0) -> pd.DataFrame:
    """The chosen points of the chapter's DropTail, RED and threshold-dropper sweeps with
    TCP-SACK: rows (tcp, queue, buffer, threshold, select, flows, utilisation, jain,
    drop_rate, timeouts, packets, theorem1); ``threshold`` and ``select`` are empty for
    DropTail and RED."""
    chapter = params.chapter()
    jobs = [
        with_variant(work, VARIANT)
        for sweep in sweep_jobs(chapter, seed).values()
        for work in sweep
        if _kept(params, work)
    ]
    outcomes: list[Outcome] = run_tasks(_one, jobs, workers=params.workers, desc="packets-sack")
    table = pd.DataFrame([out.row for out in outcomes])
    table.insert(0, "tcp", VARIANT)
    table["theorem1"] = altman.parallel_throughput(table["flows"].to_numpy(), 0.5)
    columns = ["tcp", "queue", "buffer", "threshold", "select", "flows", "utilisation", "jain"]
    return table[[*columns, "drop_rate", "timeouts", "packets", "theorem1"]]
