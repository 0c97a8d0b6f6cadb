"""Speed of Morris's set-up (chapters/many-flows.md): wall time of one run on one core.

Run from the repository root with ``python benchmarks/bench_morris.py`` (``--quick`` for
40 s runs instead of the paper's 200 s). Each row is one run of Figure 2's set-up with N
flows (Tahoe, RED 217, five telnet sessions); the wall time is the simulation loop
(``MorrisRun.wall_s``) and the bottleneck arrivals are counted from t = 0. The issue's target
is a 1500-flow, 200 s run in under 30 s on one core. This is a script, not a test: it asserts
nothing about speed.
"""

from __future__ import annotations

import one_core  # first: sets one thread before numpy is imported

# isort: split

import argparse
import platform
import time

from tcplab.chapters.morris.runs import morris_setup
from tcplab.chapters.morris.topology import run_morris

FLOWS = (30, 300, 1500)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="40 s runs instead of 200 s")
    parser.add_argument("--flows", type=int, nargs="+", default=list(FLOWS))
    args = parser.parse_args()
    seconds = 40.0 if args.quick else 200.0
    print(f"python {platform.python_version()}, {seconds:.0f} s runs, {one_core.pin()}")
    print(f"{'flows':>6} {'arrivals':>10} {'wall s':>8} {'arrivals/s':>11} {'total s':>8}")
    for flows in args.flows:
        start = time.perf_counter()
        run = run_morris(morris_setup(flows, seconds=seconds, warmup=min(20.0, seconds / 2)))
        total = time.perf_counter() - start
        rate = run.packets / run.wall_s
        print(f"{flows:>6} {run.packets:>10} {run.wall_s:>8.2f} {rate:>11.0f} {total:>8.2f}")


if __name__ == "__main__":
    main()
