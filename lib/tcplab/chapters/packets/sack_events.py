"""The chapter's congestion-event counts (the paper's Fig. 15) again with TCP-SACK.

The jobs of :func:`.experiments.events` are rebuilt, seeded as :func:`.runs.run_all` seeds
them and given ``variant="sack"`` (:func:`.sack.with_variant`), so that each run differs from
its NewReno run in the shipped ``packets-events`` by the TCP variant alone. The counting is
:func:`.experiments.events`' own: a connection is signalled when its window goes down, and
signals less than half an RTT apart form one congestion event; the drop log is clumped alike.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from tcplab.tasks import run_tasks

from .experiments import PacketsParams
from .runs import Job, _one, chapter_queue, chapter_setup, job
from .sack import VARIANT, _seeded, with_variant
from .signals import congestion_events, loss_signals

__all__ = ["SackEventsParams", "event_jobs", "sack_events"]


@dataclass(frozen=True)
class SackEventsParams:
    """The chapter's event runs, at full scale or at its quick scale, with ``variant``
    (``"newreno"`` gives back the chapter's own ``packets-events`` rows)."""

    variant: str = VARIANT
    quick_scale: bool = False
    workers: int = 2

    @classmethod
    def quick(cls) -> SackEventsParams:
        return cls(quick_scale=True, workers=1)

    def chapter(self) -> PacketsParams:
        return PacketsParams.quick() if self.quick_scale else PacketsParams()


def event_jobs(params: PacketsParams, seed: int) -> list[Job]:
    """The seeded jobs of :func:`.experiments.events`, in its order."""
    settings: list[tuple[str, int, dict[str, Any]]] = [
        ("droptail", b, {}) for b in params.event_buffers
    ]
    settings += [("red", max(params.event_buffers), {}), ("threshold", 100, {"threshold": 3})]
    duration = params.warmup + params.event_duration
    jobs = [
        job(
            chapter_setup(
                params,
                params.event_flows,
                chapter_queue(params, kind, buffer, **dropper),
                duration=duration,
            ),
            "events",
            queue=kind,
            buffer=buffer,
        )
        for kind, buffer, dropper in settings
    ]
    return _seeded(jobs, seed)


def sack_events(params: SackEventsParams, seed: int = 0) -> pd.DataFrame:
    """Rows (tcp, queue, buffer, m, ccdf, mean_m, events, mean_m_drops, events_drops) as in
    ``packets-events``, with ``params.variant`` (SACK)."""
    chapter = params.chapter()
    jobs = [with_variant(work, params.variant) for work in event_jobs(chapter, seed)]
    rows = []
    for out in run_tasks(_one, jobs, workers=params.workers, desc="packets-sack-events"):
        cwnd, dropped = out.cwnd, out.dropped
        counts = congestion_events(loss_signals(cwnd[cwnd["time"] >= chapter.warmup]))
        by_drops = congestion_events(dropped[dropped["time"] >= chapter.warmup])
        for m in range(1, chapter.event_flows + 1):
            rows.append(
                {
                    "tcp": params.variant,
                    "queue": out.row["queue"],
                    "buffer": out.row["buffer"],
                    "m": m,
                    "ccdf": float(np.mean(counts >= m)) if len(counts) else float("nan"),
                    "mean_m": float(np.mean(counts)) if len(counts) else float("nan"),
                    "events": len(counts),
                    "mean_m_drops": float(np.mean(by_drops)) if len(by_drops) else float("nan"),
                    "events_drops": len(by_drops),
                }
            )
    return pd.DataFrame(rows)
