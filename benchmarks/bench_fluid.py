"""Throughput of the exact fluid model: congestion events per wall-second, on one core.

Run from the repository root with ``python benchmarks/bench_fluid.py`` (``--quick`` for a
smaller run). Every row times whole ``tcplab.fluid.simulate`` calls, warm-up included, and
counts every congestion event of every replica; the best of ``--repeat`` runs is shown.
This is a script, not a test: it asserts nothing about speed.
"""

from __future__ import annotations

import one_core  # first: sets one thread before numpy is imported

# isort: split


import argparse
import platform
import time

import numpy as np

from tcplab.fluid import simulate

WARMUP = 100
#: (policy, N, replicas, measured events per replica)
CASES = [
    ("rate-independent", 4, 16_384, 2_000),
    ("rate-proportional", 4, 16_384, 500),
    ("largest-rate", 4, 16_384, 500),
    ("beatdown", 4, 16_384, 500),
    ("all", 4, 16_384, 500),
    ("rate-independent", 2, 16_384, 2_000),
    ("rate-independent", 16, 16_384, 2_000),
    ("largest-rate", 16, 4_096, 500),
    ("rate-independent", 4, 16, 20_000),  # the default replica count: per-call overhead
    ("largest-rate", 4, 16, 5_000),
]


def _time_case(policy: str, n: int, replicas: int, events: int, repeat: int) -> float:
    best = float("inf")
    for seed in range(repeat):
        started = time.perf_counter()
        simulate(n, policy, events=events, replicas=replicas, warmup_events=WARMUP, seed=seed)
        best = min(best, time.perf_counter() - started)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a tenth of the events")
    parser.add_argument("--repeat", type=int, default=3, help="runs per row (best is shown)")
    args = parser.parse_args()
    pinned = one_core.pin()
    print(f"numpy {np.__version__}, Python {platform.python_version()}, {pinned}")
    simulate(4, events=50, replicas=64)  # import and first-call costs out of the table
    header = f"{'policy':<18} {'N':>3} {'replicas':>9} {'events':>12} {'wall s':>8} "
    header += f"{'events/s':>10}"
    print(header)
    print("-" * len(header))
    for policy, n, replicas, events in CASES:
        if args.quick:
            events = max(events // 10, 50)
        wall = _time_case(policy, n, replicas, events, args.repeat)
        total = (events + WARMUP) * replicas
        print(f"{policy:<18} {n:>3} {replicas:>9} {total:>12,} {wall:>8.3f} {total / wall:>10.3g}")


if __name__ == "__main__":
    main()
