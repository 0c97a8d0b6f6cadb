"""A what-if of the chapter's run length: the book averages 1000 s after a 200 s warm-up
(1200 s runs), the paper 1000 s after dropping the first 1000 s (2000 s runs). The what-if
runs a few points both ways, several seeds each, and compares the mean throughputs.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from tcplab.theory import altman

from .experiments import PacketsParams
from .runs import chapter_queue, chapter_setup, job, run_all

__all__ = ["RunLengthParams", "run_length"]


@dataclass(frozen=True)
class RunLengthParams:
    """The (queue, buffer, N) of ``points``, each run with every (name,
    duration, warm-up) of ``lengths`` (the book's and the paper's), ``replicas`` seeds each."""

    points: tuple[tuple[str, int, int], ...] = (("droptail", 5, 10), ("red", 100, 5))
    lengths: tuple[tuple[str, float, float], ...] = (
        ("book", 1200.0, 200.0),
        ("paper", 2000.0, 1000.0),
    )
    replicas: int = 3
    workers: int = 2

    @classmethod
    def quick(cls) -> RunLengthParams:
        return cls(
            points=(("droptail", 5, 10), ("red", 100, 5)),
            lengths=(("book", 6.0, 2.0), ("paper", 8.0, 4.0)),
            replicas=1,
            workers=1,
        )


def run_length(params: RunLengthParams, seed: int = 0) -> pd.DataFrame:
    """Rows (queue, buffer, flows, length, duration, warmup, replica, utilisation, theorem1,
    timeouts): the throughput of each point with each run length and seed."""
    base = PacketsParams()
    jobs = []
    for kind, buffer, flows in params.points:
        for name, duration, warmup in params.lengths:
            setup = chapter_setup(
                base,
                flows,
                chapter_queue(base, kind, buffer),
                duration=duration,
                warmup=warmup,
            )
            for r in range(params.replicas):
                labels = {"queue": kind, "buffer": buffer, "length": name}
                jobs.append(job(setup, **labels, duration=duration, warmup=warmup, replica=r))  # type: ignore[arg-type]
    table = pd.DataFrame([out.row for out in run_all(jobs, params.workers, seed, "run length")])
    table["theorem1"] = altman.parallel_throughput(table["flows"].to_numpy(), 0.5)
    columns = ["queue", "buffer", "flows", "length", "duration", "warmup", "replica"]
    return table[[*columns, "utilisation", "theorem1", "timeouts"]]
