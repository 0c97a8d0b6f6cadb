"""Speed of the measured advisor (issue 35): one run from recorded probes, as `tcplab tame
--probe ...` answers it (fit, search with its monotonicity check, the table over n, the band
from repeats), must take under 0.5 s. Run from the repository root with
``python benchmarks/bench_advisor.py``. This is a script, not a test: it prints the times and
asserts nothing about speed.
"""

from __future__ import annotations

import argparse
import statistics
import time

from tcplab.advisor import advise
from tcplab.advisor_cli import add_tame_arguments, run_measured

BUDGET_S = 0.5
CASES = {
    "two probes": {1: 100.0, 10: 600.0},
    "repeats (band)": {1: [100.0, 104.0, 97.0], 10: [600.0, 640.0, 615.0]},
    "three probes": {1: 100.0, 4: 330.0, 10: 600.0},
}


def _cli_once() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--scenario", type=int)
    parser.add_argument("--max-impact", type=float)
    parser.add_argument("--probes", default="1,10")
    parser.add_argument("--max-flows", type=int, default=31)
    parser.add_argument("--min-gain", type=float, default=0.01)
    parser.add_argument("--json", action="store_true")
    add_tame_arguments(parser)
    argv = ["--probe", "1:100", "--probe", "10:600", "--max-impact", "0.2", "--json"]
    run_measured(parser.parse_args(argv))


def main() -> None:
    for name, probes in CASES.items():
        times = []
        for _ in range(20):
            began = time.perf_counter()
            advise(probes, 0.2)
            times.append(time.perf_counter() - began)
        print(f"advise, {name:>15}: median {statistics.median(times) * 1e3:7.2f} ms, "
              f"worst {max(times) * 1e3:7.2f} ms (budget {BUDGET_S * 1e3:.0f} ms)")  # fmt: skip
    began = time.perf_counter()
    _cli_once()
    print(f"tame --probe ... --json (the command layer, first call): "
          f"{(time.perf_counter() - began) * 1e3:.1f} ms")  # fmt: skip


if __name__ == "__main__":
    main()
