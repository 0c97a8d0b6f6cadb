"""Lee et al.'s measurement method (their Fig. 1) on three emulated paths.

For each path model and each number of flows (10, 20, 30, 40, 50), ``repetitions`` runs of
that many 2 MB transfers started together, each run with fresh random cross traffic (its own
seed). The table is raw measurement, one row per transfer: its completion time, the bytes it
delivered, its time-outs and fast retransmits, and the run's cross traffic. Aggregate and
per-flow throughput are computed from it by :mod:`tcplab.chapters.lee.analysis`.

The paper ran 100 repetitions per number of flows, and so does the book's data
(``REPETITIONS``): the whole grid takes about 6 minutes on two free cores
(``benchmarks/bench_transfers.py``), within the issue's budget of 10, so the book's scale is
the paper's.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from tcplab.tasks import run_tasks

from .transfer import Repetition, path_model, run_repetition

__all__ = ["TransfersParams", "transfers", "repetition_seed", "REPETITIONS", "FLOWS"]

FLOWS = (10, 20, 30, 40, 50)  # the paper's numbers of parallel flows
REPETITIONS = 100  # repetitions per number of flows, the paper's
NBYTES = 2_000_000  # bytes per transfer ("2 MB")
#: each path model and the RTT it runs at (the paper's Table 1: 49 ms for (alpha, beta),
#: 38 ms for (delta, zeta))
PATH_RTTS = (("shared", 49.0), ("window", 38.0), ("shaped", 38.0))


@dataclass(frozen=True)
class TransfersParams:
    """The runs: ``repetitions`` per path and number of flows."""

    paths: tuple[tuple[str, float], ...] = PATH_RTTS
    flows: tuple[int, ...] = FLOWS
    repetitions: int = REPETITIONS
    nbytes: int = NBYTES
    workers: int = 2

    @classmethod
    def quick(cls) -> TransfersParams:
        return cls(flows=(10, 30, 50), repetitions=3, workers=1)


def repetition_seed(seed: int, path: str, flows: int, repetition: int) -> int:
    """The seed of one run: independent across paths, flow counts and repetitions."""
    key = (seed, sum(ord(c) * 31**i for i, c in enumerate(path)) % 2**31, flows, repetition)
    return int(np.random.SeedSequence(key).generate_state(1)[0])


def _one(task: tuple[Any, ...]) -> dict[str, Any]:
    """One repetition: ``task`` is (Repetition, knobs or None)."""
    return run_repetition(*task)


#: what a repetition's row keeps of its run, after its labels and the transfer's number
KEPT = ("completion_s", "bytes", "timeouts", "fast_retransmits", "start_s", "cross", "drops")


def transfer_rows(
    labelled: Sequence[tuple[dict[str, Any], Repetition] | tuple[dict[str, Any], Repetition, Any]],
    workers: int,
    desc: str,
    kept: tuple[str, ...] = KEPT,
    run: Callable[[tuple[Any, ...]], dict[str, Any]] = _one,
) -> pd.DataFrame:
    """Run every repetition (heaviest first, through :func:`tcplab.tasks.run_tasks`) and
    give one row per transfer: the repetition's labels, ``transfer`` and the ``kept``
    numbers of its run, in the order of ``labelled``. Each item is (labels, repetition) or
    (labels, repetition, what else ``run`` takes: by default the repetition's knobs); ``run``
    is a module-level function of (repetition, ...)."""
    tasks = [item[1:] for item in labelled]
    order = sorted(range(len(tasks)), key=lambda i: -tasks[i][0].flows)  # heaviest first
    results = run_tasks(run, [tasks[i] for i in order], workers=workers, desc=desc)
    by_index = dict(zip(order, results, strict=True))
    frames = [
        pd.DataFrame(
            {**item[0], "transfer": np.arange(item[1].flows), **{k: by_index[i][k] for k in kept}}
        )
        for i, item in enumerate(labelled)
    ]
    return pd.concat(frames, ignore_index=True)


def transfers(params: TransfersParams, seed: int = 0) -> pd.DataFrame:
    """Rows (path, rtt_ms, flows, repetition, transfer, completion_s, bytes, timeouts,
    fast_retransmits, start_s, cross, drops), one per transfer."""
    labelled = []
    for name, rtt in params.paths:
        path = path_model(name)
        for n in params.flows:
            for r in range(params.repetitions):
                rep = Repetition(path, n, params.nbytes, rtt, repetition_seed(seed, name, n, r))
                labelled.append(({"path": name, "rtt_ms": rtt, "flows": n, "repetition": r}, rep))
    return transfer_rows(labelled, params.workers, "lee")
