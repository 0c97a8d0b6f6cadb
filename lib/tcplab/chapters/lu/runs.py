"""The chapter's packet runs as typed jobs for a process pool, heaviest first.

A :class:`Job` is one frozen :class:`~tcplab.packet.PacketSetup` on Qiu's topology (already
seeded) and the labels its table row starts with; it crosses the process pool as it is and
comes back as one row: the labels, then the run's numbers (:meth:`QiuResult.summary`, without
the wall time, which is not a result). Jobs are started heaviest first (by ``cost``, a guess
of their bottleneck packets) so that two workers finish together.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from typing import Any

from tqdm import tqdm

from tcplab.packet import PacketSetup
from tcplab.packet.qiu import simulate_qiu

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
    """Every job's row, in the order of ``jobs``; on ``workers`` processes when above 1."""
    order = sorted(range(len(jobs)), key=lambda i: -jobs[i].cost)
    rows: list[dict[str, Any] | None] = [None] * len(jobs)
    bar = tqdm(total=len(jobs), desc=desc, unit="run", file=sys.stderr, leave=False)
    if workers > 1 and len(jobs) > 1:
        with ProcessPoolExecutor(workers) as pool:
            for i, row in zip(order, pool.map(_one, [jobs[i] for i in order]), strict=True):
                rows[i] = row
                bar.update()
    else:
        for i in order:
            rows[i] = _one(jobs[i])
            bar.update()
    bar.close()
    return [row for row in rows if row is not None]
