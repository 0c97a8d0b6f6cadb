"""Speed of the weighted-AIMD chapter's models: the fluid proportion manager and Fig. 5.1's
packet runs.

Run from the repository root with ``python benchmarks/bench_bmc.py`` (``--quick``: only the
fluid rows and the smallest packet run). Rows:

* the fluid proportion manager, one slider move: a whole run of 60 periods of Fig. 3.1 or
  Fig. 4.1 (target: under 0.2 s);
* one run of Fig. 5.1 (100 s, 60 Mb/s) for several N, and from them an estimate of the whole
  Fig. 5.10 grid (8 N x 7 D, one seed) on ``--workers`` processes (target: under 10 minutes
  on 2 cores), by the rate of each N times the seven weights;
* the whole Fig. 5.10 grid as shipped: the wall time ``tcplab data`` recorded in
  ``data/bmc-weighted.meta.json`` (its 56 runs on ``workers`` processes), and with
  ``--grid`` the grid computed now (``tcplab.chapters.bmc.grid.weighted``, no cache).

This is a script, not a test: it asserts nothing about speed.
"""

from __future__ import annotations

import one_core  # first: sets one thread before numpy is imported

# isort: split


import argparse
import json
import platform
import time
from pathlib import Path

import numpy as np

from tcplab import multipath as mp
from tcplab.chapters.bmc.grid import WeightedParams, weighted
from tcplab.chapters.bmc.params import THESIS_FLOWS, THESIS_WEIGHTS
from tcplab.packet.weighted import run_weighted, weighted_setup


def _best(call: object, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        started = time.perf_counter()
        call()  # type: ignore[operator]
        best = min(best, time.perf_counter() - started)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fluid rows and N = 1 only")
    parser.add_argument("--repeat", type=int, default=3, help="runs per fluid row (best shown)")
    parser.add_argument("--workers", type=int, default=2, help="processes for the grid estimate")
    parser.add_argument("--grid", action="store_true", help="also run the whole Fig. 5.10 grid")
    args = parser.parse_args()
    pinned = one_core.pin()
    print(f"numpy {np.__version__}, Python {platform.python_version()}, {pinned}")
    print(f"{'fluid manager, 60 periods':<32} {'wall s':>8}")
    for name in mp.SCENARIOS:
        scene = mp.scenario(name)
        wall = _best(lambda s=scene: mp.manage(s, j_s=1.0, k=0.5, duration=60.0), args.repeat)
        print(f"{name:<32} {wall:>8.4f}")
    flows = (1,) if args.quick else (1, 8, 32, 64)
    print(f"\n{'Fig. 5.1, 100 s, D = 1/2, N':<32} {'wall s':>8}")
    walls = {}
    for n in flows:
        started = time.perf_counter()
        run_weighted(weighted_setup([0.5] * n, duration=100.0, warmup=20.0), n)
        walls[n] = time.perf_counter() - started
        print(f"{n:<32d} {walls[n]:>8.1f}")
    if not args.quick:
        known = np.array(sorted(walls))
        estimate = sum(np.interp(n, known, [walls[k] for k in known]) for n in THESIS_FLOWS) * len(
            THESIS_WEIGHTS
        )
        print(f"\nFig. 5.10 grid, estimated on {args.workers} workers: "
              f"{estimate / args.workers / 60:.1f} min")  # fmt: skip
    _shipped_grid()
    if args.grid:
        grid = WeightedParams(workers=args.workers)
        started = time.perf_counter()
        weighted(grid, 0)
        wall = time.perf_counter() - started
        runs = len(grid.flows) * len(grid.weights)
        print(f"Fig. 5.10 grid, {runs} runs on {args.workers} workers, now: {wall / 60:.1f} min")


def _shipped_grid() -> None:
    """The wall time ``tcplab data`` recorded for the shipped Fig. 5.10 grid."""
    meta_path = Path(__file__).resolve().parent.parent / "data" / "bmc-weighted.meta.json"
    if not meta_path.exists():
        print("data/bmc-weighted.meta.json is missing: run `tcplab data --only bmc-weighted`")
        return
    meta = json.loads(meta_path.read_text())
    params = meta["params"]
    runs = len(params["flows"]) * len(params["weights"])
    print(f"Fig. 5.10 grid as shipped ({runs} runs, {params['workers']} workers): "
          f"{meta['wall_s'] / 60:.1f} min when `tcplab data` made it")  # fmt: skip


if __name__ == "__main__":
    main()
