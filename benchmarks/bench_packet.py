"""Speed of the packet model: bottleneck packets simulated per wall-second, on one core.

Run from the repository root with ``python benchmarks/bench_packet.py`` (``--quick`` for
shorter runs). Every row is a 30-flow dumbbell on a 10 Mb/s bottleneck; the wall time is the
simulation loop only (``summary()["wall_s"]``, result tables excluded) and the packet count
is every bottleneck arrival, warm-up included; the best of ``--repeat`` seeds is shown.
This is a script, not a test: it asserts nothing about speed (the target is 50,000 packets/s).
"""

from __future__ import annotations

import one_core  # first: sets one thread before numpy is imported

# isort: split

import argparse
import platform
import time

import simpy

from tcplab.packet import run_dumbbell

#: (label, run_dumbbell keyword arguments)
CASES = [
    ("1500 B, DropTail 100, no trace", {"trace": False}),
    ("1500 B, DropTail 100, traced", {"trace": True}),
    ("1500 B, DropTail 100, SACK, no trace", {"tcp": "sack", "trace": False}),
    ("1500 B, RED 100, traced", {"queue": "red", "trace": True}),
    (
        "1500 B, threshold-dropper largest-rate (Th 3, b 1000), traced",
        {
            "queue": "threshold",
            "buffer": 1000,
            "queue_options": {"threshold": 3, "hold": 0.1, "select": "largest"},
            "trace": True,
        },
    ),
    (
        "Morris: 576 B, DropTail 217, 0-50 ms access, 0.5 s timer, overhead",
        {
            "buffer": 217,
            "packet_bytes": 576,
            "access_mbps": 10 * 10 / 30,
            "access_jitter_ms": 50.0,
            "granularity": 0.5,
            "min_rto": 1.0,
            "max_window": 113,
            "tcp": "tahoe",
            "overhead_ms": 0.5,
            "trace": True,
        },
    ),
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="20 s runs instead of 120 s")
    parser.add_argument("--repeat", type=int, default=3, help="runs per row (best is shown)")
    args = parser.parse_args()
    duration = 20.0 if args.quick else 120.0
    pinned = one_core.pin()
    print(f"simpy {simpy.__version__}, Python {platform.python_version()}, {pinned}")
    run_dumbbell(30, duration=2.0, warmup=1.0)  # import and first-call costs out of the table
    header = f"{'case':<68} {'packets':>9} {'loop s':>7} {'packets/s':>10} {'total s':>8}"
    print(header)
    print("-" * len(header))
    for label, kwargs in CASES:
        best = None
        for seed in range(args.repeat):
            began = time.perf_counter()
            result = run_dumbbell(
                30, rate_mbps=10.0, duration=duration, warmup=duration / 5, seed=seed, **kwargs
            )
            total = time.perf_counter() - began
            s = result.summary()
            if best is None or s["packets_per_wall_s"] > best[0]["packets_per_wall_s"]:
                best = (s, total)
        s, total = best
        print(
            f"{label:<68} {s['packets']:>9,} {s['wall_s']:>7.3f} "
            f"{s['packets_per_wall_s']:>10,.0f} {total:>8.3f}"
        )


if __name__ == "__main__":
    main()
