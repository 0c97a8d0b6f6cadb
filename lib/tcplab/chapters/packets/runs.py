"""The chapter's packet runs: its set-up, typed jobs for a process pool, and their outcomes.

Every run of the chapter is the paper's dumbbell (:func:`chapter_setup`) with one of its
disciplines (:func:`chapter_queue`), as a frozen :class:`~tcplab.packet.PacketSetup`. A
:class:`Job` is that set-up, the labels of its table row and which traces to keep; it crosses
the process pool as it is, and comes back as an :class:`Outcome`. Each job is seeded from its
own child of ``SeedSequence(seed)``; the jobs run through :func:`tcplab.tasks.run_tasks` (a
process pool, or the cluster of ``--cluster``/``--scheduler``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Literal

import pandas as pd

from tcplab import packet
from tcplab.packet import (
    DumbbellTopology,
    PacketSetup,
    Probes,
    QueueSetup,
    RunLength,
    TcpConfig,
)
from tcplab.seeding import seeded
from tcplab.tasks import run_tasks

from .signals import RTT_S

if TYPE_CHECKING:
    from .experiments import PacketsParams

__all__ = ["Job", "Outcome", "chapter_queue", "chapter_setup", "job", "run_all", "seeded"]

Keep = Literal["counts", "windows", "events"]


def chapter_queue(params: PacketsParams, kind: str, buffer: int, **dropper: Any) -> QueueSetup:
    """The chapter's discipline: RED with the paper's ``w_q``, ``max_p`` and ``wait``; the
    threshold-dropper with the chapter's hold and selection unless ``dropper`` changes them
    (``threshold``, ``hold`` in seconds, ``select``); options for another discipline are
    refused by :class:`~tcplab.packet.QueueSetup`."""
    if kind == "red":
        red: dict[str, Any] = {"w_q": params.red_w_q, "max_p": params.red_max_p, "wait": True}
        return QueueSetup("red", buffer, **red, **dropper)
    if kind == "threshold":
        hold: dict[str, Any] = {"hold": params.hold_rtts * RTT_S, "select": params.threshold_select}
        return QueueSetup("threshold", buffer, **{**hold, **dropper})
    return QueueSetup(kind, buffer, **dropper)


def chapter_setup(
    params: PacketsParams,
    flows: int,
    queue: QueueSetup,
    *,
    duration: float | None = None,
    warmup: float | None = None,
    trace: bool = False,
    seed: int = 0,
) -> PacketSetup:
    """The paper's dumbbell (Section V.A) with ``flows`` connections and ``queue``, run for
    ``duration`` seconds (default ``params.duration``) after a warm-up."""
    topology = DumbbellTopology(
        flows,
        params.rate_mbps,
        params.delay_ms,
        params.access_mbps,
        params.access_delay_ms,
        start_spread=params.start_spread,
    )
    return PacketSetup(
        topology=topology,
        queue=queue,
        tcp=TcpConfig(
            variant=params.variant,
            packet_bytes=params.packet_bytes,
            max_window=params.max_window,
        ),
        length=RunLength(
            params.duration if duration is None else duration,
            params.warmup if warmup is None else warmup,
        ),
        probes=Probes(trace=trace),
        seed=seed,
    )


@dataclass(frozen=True)
class Job:
    """One run: its set-up, the labels its table row starts with, and the traces to keep
    (``counts`` only, the ``windows``, or the windows and the drop log for ``events``)."""

    setup: PacketSetup
    labels: tuple[tuple[str, Any], ...] = ()
    keep: Keep = "counts"


def job(setup: PacketSetup, keep: Keep = "counts", **labels: Any) -> Job:
    """A :class:`Job`; ``labels`` in the order the row's columns should have. A job that
    keeps traces records them."""
    if keep != "counts":
        setup = replace(setup, probes=replace(setup.probes, trace=True))
    return Job(setup, tuple(labels.items()), keep)


@dataclass(frozen=True)
class Outcome:
    """What a job gives back: its table row, and its traces when it kept them."""

    row: dict[str, Any]
    cwnd: pd.DataFrame = field(default_factory=pd.DataFrame)
    dropped: pd.DataFrame = field(default_factory=pd.DataFrame)


def _one(work: Job) -> Outcome:
    result = packet.run(work.setup)
    s = result.summary()
    row = {
        **dict(work.labels),
        "flows": work.setup.topology.flows,
        "utilisation": s["utilisation"],
        "jain": s["jain_index"],
        "drop_rate": s["drop_rate"],
        "timeouts": s["timeouts"],
        "packets": s["packets"],
    }
    row.update({key: s[key] for key in ("red_early_drops", "red_forced_drops") if key in s})
    if work.keep == "counts":
        return Outcome(row)
    dropped = result.dropped() if work.keep == "events" else pd.DataFrame()
    return Outcome(row, result.cwnd(), dropped)


def run_all(
    jobs: Sequence[Job],
    workers: int,
    seed: int,
    desc: str,
    only: Callable[[Job], bool] | None = None,
) -> list[Outcome]:
    """Every job's outcome, in the order of ``jobs``, each job seeded by :func:`seeded`; on
    ``workers`` processes or the executor of an enclosing
    :func:`tcplab.tasks.executing_on` (:func:`tcplab.tasks.run_tasks`). With ``only``, only
    the jobs it accepts run, each with the seed it has in the whole list."""
    chosen = [work for work in seeded(jobs, seed) if only is None or only(work)]  # type: ignore[type-var]
    return run_tasks(_one, chosen, workers=workers, desc=desc)
