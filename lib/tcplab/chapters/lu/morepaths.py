"""25 more emulated paths, so that the book has as many as the paper's 41 PlanetLab paths.

``lu-paths`` draws 16 paths from ``SeedSequence(seed).spawn(16)``; a SeedSequence's children
are numbered, so ``spawn(41)`` gives the same 16 first and 25 more. :func:`more_paths` runs
children ``first`` to ``last - 1`` exactly as :func:`~tcplab.chapters.lu.experiments.paths`
runs its own (same draw, same set-up, same seeds), so that ``lu-paths`` and this table
together are the table ``paths`` would make with ``PathsParams(paths=41)``, without
recomputing the first 16 (``tests/test_lu_phase.py`` checks the numbering on one path).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from .experiments import PathsParams, _cost, _path_setup, draw_path
from .runs import Job, run_jobs

__all__ = ["MorePathsParams", "more_paths", "path_jobs"]


@dataclass(frozen=True)
class MorePathsParams:
    """Paths number ``first`` to ``last - 1`` of :class:`PathsParams` ``paths``."""

    paths: PathsParams = PathsParams()
    first: int = 16
    last: int = 41
    workers: int = 2

    @classmethod
    def quick(cls) -> MorePathsParams:
        """The quick paths' next one."""
        return cls(PathsParams.quick(), first=3, last=4, workers=1)


def path_jobs(params: PathsParams, first: int, last: int, seed: int = 0) -> list[Job]:
    """The runs of paths ``first`` to ``last - 1``, labelled as ``lu-paths`` labels them."""
    if not 0 <= first < last:
        raise ValueError(f"first={first}, last={last}: need 0 <= first < last")
    children = np.random.SeedSequence(seed).spawn(last)
    jobs = []
    for i in range(first, last):
        draw, measure, probe = children[i].spawn(3)
        path = draw_path(params, np.random.default_rng(draw))
        runs = [("measure", n, measure) for n in params.flows]
        runs += [("probe", n, probe) for n in params.probes]
        for role, n, stream in runs:
            setup = _path_setup(path, n, int(stream.generate_state(1)[0]))
            labels = (("path", i), *path.items(), ("role", role), ("flows", n))
            capacity = float(path["rate_mbps"]) * 1e6 / 8.0
            jobs.append(Job(setup, (*labels, ("capacity_bytes_per_s", capacity)), _cost(setup)))
    return jobs


def more_paths(params: MorePathsParams, seed: int = 0) -> pd.DataFrame:
    """Rows as :func:`~tcplab.chapters.lu.experiments.paths` makes, for the paths
    ``first`` to ``last - 1``."""
    jobs = path_jobs(params.paths, params.first, params.last, seed)
    table = pd.DataFrame(run_jobs(jobs, params.workers, "lu more paths"))
    table["rtt_prop_s"] = 2e-3 * (4.0 + table["delay_ms"] + 5.0)
    return table
