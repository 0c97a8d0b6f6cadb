"""Cost of running a sweep on a Dask LocalCluster rather than the local process pool.

Run from the repository root with ``python benchmarks/bench_tasks.py`` (``--quick``: fewer
runs). Rows, on the same machine and the same number of worker processes:

* a sweep: the Morris chapter's quick-scale loss runs (14 packet runs of 25 s, a few seconds
  each), through :func:`tcplab.tasks.run_tasks` on the process pool and on a LocalCluster
  (the cluster's start-up time shown apart: ``tcplab data`` pays it once per command);
* the overhead per task: ``--tiny`` tasks that do nothing (``abs``), per task, serial, on the
  pool and on the cluster.

The results of both sweeps are compared, as they must be identical. This is a script, not a
test: it asserts nothing about speed.
"""

from __future__ import annotations

import one_core  # noqa: F401  (first: sets one thread before numpy is imported)

# isort: split


import argparse
import os
import platform
import time
from dataclasses import replace

import dask
import numpy as np

from tcplab.chapters.morris import experiments as morris
from tcplab.chapters.morris.runs import _one, job, job_seed
from tcplab.cluster import open_cluster
from tcplab.tasks import executing_on, run_tasks


def _sweep(runs: int) -> list:
    """The first ``runs`` of the Morris loss sweep at quick scale, seeded as the chapter does."""
    params = morris.MorrisParams.quick()
    jobs = [
        job(morris._setup(params, n), r, histogram=True, sender="tahoe")
        for n in params.flows
        for r in range(params.replicas)
    ][:runs]
    return [replace(w, setup=replace(w.setup, seed=job_seed(0, w))) for w in jobs]


def _untimed(rows: object) -> list:
    """The rows without their wall time (not a result: the chapter drops it too)."""
    return [{k: v for k, v in row.items() if k != "wall_s"} for row in rows]  # type: ignore[attr-defined]


def _timed(call: object) -> tuple[float, object]:
    started = time.perf_counter()
    result = call()  # type: ignore[operator]
    return time.perf_counter() - started, result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="6 runs and 200 tiny tasks")
    parser.add_argument("--workers", type=int, default=2, help="processes (pool and cluster)")
    parser.add_argument("--tiny", type=int, default=1000, help="tiny tasks for the overhead")
    args = parser.parse_args()
    tiny = 200 if args.quick else args.tiny
    sweep = _sweep(6 if args.quick else 14)
    numbers = list(range(tiny))
    print(f"numpy {np.__version__}, dask {dask.__version__}, Python {platform.python_version()}, "
          f"{os.cpu_count()} CPUs, {args.workers} workers")  # fmt: skip
    pool_s, on_pool = _timed(lambda: run_tasks(_one, sweep, workers=args.workers, desc="pool"))
    started = time.perf_counter()
    with open_cluster(local_workers=args.workers) as cluster, executing_on(cluster):
        start_s = time.perf_counter() - started
        warm_s, _ = _timed(lambda: run_tasks(abs, [1, 2], workers=1, desc="warm"))
        dask_s, on_dask = _timed(lambda: run_tasks(_one, sweep, workers=1, desc="cluster"))
        tiny_dask_s, _ = _timed(lambda: run_tasks(abs, numbers, workers=1, desc="tiny"))
    tiny_pool_s, _ = _timed(lambda: run_tasks(abs, numbers, workers=args.workers, desc="t"))
    tiny_serial_s, _ = _timed(lambda: run_tasks(abs, numbers, workers=1, desc="t"))
    print(f"\nsweep of {len(sweep)} Morris runs        {'wall s':>8}")
    print(f"{'process pool':<32} {pool_s:>8.2f}")
    print(f"{'LocalCluster (started)':<32} {dask_s:>8.2f}")
    print(f"{'LocalCluster start-up':<32} {start_s:>8.2f}  (+ {warm_s:.2f} s first tasks)")
    print(f"{'pool / cluster speed':<32} {pool_s / dask_s:>8.2f}")
    print(f"{'identical results':<32} {str(_untimed(on_pool) == _untimed(on_dask)):>8}")
    print(f"\noverhead per task ({tiny} tiny)   {'ms':>8}")
    for name, wall in (("serial", tiny_serial_s), ("process pool", tiny_pool_s),
                       ("LocalCluster", tiny_dask_s)):  # fmt: skip
        print(f"{name:<32} {1e3 * wall / tiny:>8.3f}")


if __name__ == "__main__":
    main()
