"""Speed of Lee et al.'s finite transfers on the packet model, and what the full data costs.

Run from the repository root with ``python benchmarks/bench_transfers.py``. Times one
repetition of each path model at each number of flows on this core (CPU seconds), then prices
the book's grid (``TransfersParams()``) and the paper's 100 repetitions on two cores. This is
a script, not a test: it asserts nothing about speed.
"""

from __future__ import annotations

import one_core  # first: sets one thread before numpy is imported

# isort: split

import time

from tcplab.chapters.lee.experiments import TransfersParams, repetition_seed
from tcplab.chapters.lee.transfer import Repetition, path_model, run_repetition

BUDGET_S = 10 * 60  # the issue's: full-scale data in under 10 minutes on two cores
CORES = 2


def main() -> None:
    assert one_core
    params = TransfersParams()
    per_set = 0.0
    for name, rtt in params.paths:
        for n in params.flows:
            rep = Repetition(
                path_model(name), n, params.nbytes, rtt, repetition_seed(0, name, n, 0)
            )
            began = time.process_time()
            run_repetition(rep)
            cpu = time.process_time() - began
            per_set += cpu
            print(f"{name:>7} {n:>3} flows: {cpu:6.2f} CPU s")
    for label, reps in (("book", params.repetitions), ("paper", 100)):
        wall = per_set * reps / CORES
        print(
            f"{label} grid ({reps} repetitions): about {wall:.0f} s on {CORES} free cores "
            f"(budget {BUDGET_S} s)"
        )


if __name__ == "__main__":
    main()
