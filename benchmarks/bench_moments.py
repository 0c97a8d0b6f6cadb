"""Wall time of the whole Theorem 2 table (4 policies, N = 2) to 0.5% relative precision.

Run from the repository root with ``python benchmarks/bench_moments.py``. Each policy is run
with the smallest run length (doubling) whose 95% half-width of E[X_1^2]/c^2 is below
``--precision`` times the estimate; the time printed covers everything, retries included, on
one core (thread pools pinned to one thread before numpy is imported). This is a script, not a
test: it asserts nothing about speed.
"""

from __future__ import annotations

import one_core  # first: sets one thread before numpy is imported

# isort: split


import argparse
import platform
import time

from tcplab.chapters.moments.experiments import BEATDOWN_THRESHOLD, POLICIES
from tcplab.fluid import simulate
from tcplab.policies import Beatdown
from tcplab.theory.moments import PAPER_THEOREM2

#: starting (replicas, events) per policy; the run doubles until precise enough (longer runs
#: for the deterministic policies, whose error is the partial cycle at both ends of a run)
START = {
    "beatdown": (8, 20_000),
    "rate-independent": (1_024, 2_000),
    "rate-proportional": (1_024, 2_000),
    "largest-rate": (16, 1_000),
}


def _run(policy: str, precision: float, seed: int) -> tuple[float, float, int, int, int]:
    replicas, events = START[policy]
    tries = 0
    while True:
        tries += 1
        chosen = Beatdown(threshold=BEATDOWN_THRESHOLD) if policy == "beatdown" else policy
        result = simulate(2, chosen, events=events, replicas=replicas, seed=seed)
        value, half = float(result.second_moment[0]), float(result.second_moment_ci[0])
        if half <= precision * value:
            return value, half, replicas, events, tries
        if policy in ("beatdown", "largest-rate"):
            events *= 2  # periodic once settled: the error is a partial cycle, so run longer
        else:
            replicas *= 2


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--precision", type=float, default=0.005, help="relative 95%% half-width")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    print(f"python {platform.python_version()}, {platform.machine()}, {one_core.pin()}")
    print(f"target: 95% half-width <= {args.precision:.2%} of E[X_1^2]/c^2")
    total = time.perf_counter()
    header = f"{'policy':<18} {'E[X^2]/c^2':>11} {'95% CI +-':>10} {'relative':>9} {'paper':>9}"
    print(header + f" {'replicas x events':>18} {'wall s':>7}")
    for policy in POLICIES:
        started = time.perf_counter()
        value, half, replicas, events, _ = _run(policy, args.precision, args.seed)
        wall = time.perf_counter() - started
        print(
            f"{policy:<18} {value:>11.5f} {half:>10.1e} {half / value:>9.2%} "
            f"{PAPER_THEOREM2[policy]:>9.5f} {f'{replicas} x {events}':>18} {wall:>7.2f}"
        )
    print(f"whole Theorem 2 table: {time.perf_counter() - total:.2f} s wall")


if __name__ == "__main__":
    main()
