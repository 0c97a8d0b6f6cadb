"""The chapter's packet runs as typed jobs for :func:`tcplab.tasks.run_tasks`, heaviest first.

A :class:`Job` is one frozen :class:`~tcplab.packet.PacketSetup` on Qiu's topology (already
seeded) and the labels its table row starts with; it crosses to its worker as it is and
comes back as one row: the labels, then the run's numbers (:meth:`QiuResult.summary`, without
the wall time, which is not a result). Jobs are started heaviest first (by ``cost``, a guess
of their bottleneck packets) so that two workers finish together.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from tcplab.packet import PacketSetup
from tcplab.packet.qiu import simulate_qiu
from tcplab.tasks import run_tasks

__all__ = ["Job", "ROW_NUMBERS", "run_jobs"]

#: the numbers each row carries after its labels
ROW_NUMBERS = (
    "parallel_bytes_per_s",
    "cross_bytes_per_s",
    "loss_rate",
    "cross_loss_rate",
    "rtt_s",
    "timeouts",
    "fast_retransmits",
    "packets",
)


@dataclass(frozen=True)
class Job:
    """One run: its set-up, its row's labels (in column order) and its expected cost."""

    setup: PacketSetup
    labels: tuple[tuple[str, Any], ...]
    cost: float = 1.0


def _one(job: Job) -> dict[str, Any]:
    summary = simulate_qiu(job.setup).summary()
    return {**dict(job.labels), **{key: summary[key] for key in ROW_NUMBERS}}


def run_jobs(jobs: Sequence[Job], workers: int, desc: str) -> list[dict[str, Any]]:
    """Every job's row, in the order of ``jobs``, through :func:`tcplab.tasks.run_tasks` (on
    ``workers`` processes, or the cluster of an enclosing ``executing_on``), heaviest first."""
    order = sorted(range(len(jobs)), key=lambda i: -jobs[i].cost)
    done = run_tasks(_one, [jobs[i] for i in order], workers=workers, desc=desc)
    rows: list[dict[str, Any]] = [{}] * len(jobs)
    for i, row in zip(order, done, strict=True):
        rows[i] = row
    return rows
