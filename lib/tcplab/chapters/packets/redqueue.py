"""A what-if of RED above Theorem 1 with large buffers: the chapter says its average queue
sits between its thresholds (60 and 80 packets of 100), far from empty, so the link rarely
idles after a drop. The what-if keeps the buffer and moves the thresholds down, so that the
queue sits near empty, and shows whether the excess over Theorem 1 goes away.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from tcplab.packet import QueueSetup
from tcplab.theory import altman

from .experiments import PacketsParams
from .runs import chapter_queue, chapter_setup, job, run_all

__all__ = ["RedQueueParams", "red_queue"]


@dataclass(frozen=True)
class RedQueueParams:
    """RED with a ``buffer``-packet queue for N of ``flows``, with each (min_th, max_th) of
    ``thresholds`` (the first: the chapter's, 0.6 and 0.8 of the buffer; the others lower,
    keeping their ratio), the chapter's w_q, max_p and wait; ``replicas`` seeds each."""

    flows: tuple[int, ...] = (5, 10)
    buffer: int = 100
    thresholds: tuple[tuple[float, float], ...] = ((60.0, 80.0), (30.0, 40.0), (12.0, 16.0))
    replicas: int = 1
    duration: float = 1200.0
    warmup: float = 200.0
    workers: int = 2

    @classmethod
    def quick(cls) -> RedQueueParams:
        return cls(
            flows=(5,),
            thresholds=((60.0, 80.0), (12.0, 16.0)),
            duration=6.0,  # the whole run, warm-up included: a smoke test
            warmup=3.0,
            workers=1,
        )


def red_queue(params: RedQueueParams, seed: int = 0) -> pd.DataFrame:
    """The what-if of RED's queue position: rows (flows, min_th, max_th, replica,
    utilisation, theorem1, gap, red_early_drops, red_forced_drops, drop_rate, timeouts),
    ``gap`` the utilisation minus Theorem 1 (the link's idle share is about 1 - utilisation:
    a dropped packet never crosses it)."""
    base = PacketsParams()
    jobs = []
    for n in params.flows:
        for low, high in params.thresholds:
            red: QueueSetup = chapter_queue(base, "red", params.buffer, min_th=low, max_th=high)
            setup = chapter_setup(
                base, n, red, duration=params.duration, warmup=params.warmup
            )  # fmt: skip
            for r in range(params.replicas):
                jobs.append(job(setup, min_th=low, max_th=high, replica=r))
    table = pd.DataFrame([out.row for out in run_all(jobs, params.workers, seed, "red queue")])
    table["theorem1"] = altman.parallel_throughput(table["flows"].to_numpy(), 0.5)
    table["gap"] = table["utilisation"] - table["theorem1"]
    columns = ["flows", "min_th", "max_th", "replica", "utilisation", "theorem1", "gap"]
    extra = ["red_early_drops", "red_forced_drops", "drop_rate", "timeouts"]
    return table[[*columns, *extra]]
