"""The paper's different-RTT test (Sec. V.B): Qiu's topology with the cross traffic's access
delay apart from the parallel connections'.

The topology takes a delay per group (``QiuTopology.cross_access_delay_ms`` for L1, the cross
traffic's access link, and ``parallel_access_delay_ms`` for L2, the parallel connections');
:func:`two_rtt_row` runs a set-up with those two delays and gives its row, with the cross
traffic's mean smoothed RTT besides the parallel connections'.

The experiment :func:`two_rtts` runs scenario 1 (1.5 Mb/s, the cheap one) under DropTail, the
paper's "RED is not used", with the cross traffic's propagation round trip twice the parallel
connections' and half of it, at the book's numbers of parallel connections, seeded as
``lu-scenarios`` seeds the same (scenario, queue, cross) curve; and the same runs under RED,
the what-if (the paper: with RED every connection sees the same loss rate).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

import pandas as pd

from tcplab.packet import PacketSetup
from tcplab.packet.qiu import QiuTopology, simulate_qiu
from tcplab.tasks import run_tasks

from .experiments import BOOK_FLOWS
from .runs import ROW_NUMBERS
from .scenarios import SCENARIOS, scenario_seed, scenario_setup

__all__ = ["RTT_VARIANTS", "RttParams", "two_rtt_row", "two_rtts"]

#: the access delays (ms) of the cross traffic's link L1 and the parallel connections' L2:
#: scenario 1's propagation RTT is 2 (4 + 20 + 5) = 58 ms; 33 ms on L1 makes the cross
#: traffic's 116 ms, 33 ms on L2 the parallel connections'
RTT_VARIANTS: dict[str, tuple[float, float]] = {
    "cross RTT x2": (33.0, 4.0),
    "parallel RTT x2": (4.0, 33.0),
}


def two_rtt_row(
    setup: PacketSetup, cross_access_ms: float, parallel_access_ms: float
) -> dict[str, float | int]:
    """One run of ``setup`` (a Qiu topology) with L1 at ``cross_access_ms`` and L2 at
    ``parallel_access_ms``: the row numbers of ``lu-scenarios`` (``rtt_s`` the parallel
    connections' mean smoothed RTT) and ``cross_rtt_s``, the cross traffic's."""
    qiu: Any = setup.topology  # PacketSetup's annotation names the dumbbell
    if not isinstance(qiu, QiuTopology):
        raise ValueError(f"topology={type(qiu).__name__} is not a QiuTopology")
    topology = dataclasses.replace(
        qiu, cross_access_delay_ms=cross_access_ms, parallel_access_delay_ms=parallel_access_ms
    )
    result = simulate_qiu(dataclasses.replace(setup, topology=topology))  # type: ignore[arg-type]
    summary = result.summary()
    return {**{key: summary[key] for key in ROW_NUMBERS}, "cross_rtt_s": result.cross_rtt_s}


@dataclass(frozen=True)
class RttParams:
    """Scenario 1: every variant of :data:`RTT_VARIANTS` at each cross level and queue."""

    variants: tuple[str, ...] = tuple(RTT_VARIANTS)
    queues: tuple[str, ...] = ("droptail", "red")
    cross: tuple[int, ...] = (10, 20)
    flows: tuple[int, ...] = BOOK_FLOWS
    workers: int = 2

    @classmethod
    def quick(cls) -> RttParams:
        """Both variants and both queues, 10 cross flows, the probes and n = 2."""
        return cls(tuple(RTT_VARIANTS), ("droptail", "red"), (10,), (1, 2, 10), workers=1)


def _one(job: tuple[tuple[tuple[str, object], ...], PacketSetup, float, float]) -> dict:
    labels, setup, cross_ms, parallel_ms = job
    return {**dict(labels), **two_rtt_row(setup, cross_ms, parallel_ms)}


def two_rtts(params: RttParams, seed: int = 0) -> pd.DataFrame:
    """Rows (scenario, variant, queue, cross, replica, flows, capacity_bytes_per_s, the row
    numbers, cross_rtt_s), one per run."""
    jobs = []
    capacity = SCENARIOS[1].capacity_bytes_per_s
    for variant in params.variants:
        cross_ms, parallel_ms = RTT_VARIANTS[variant]
        for queue in params.queues:
            for m in params.cross:
                run_seed = scenario_seed(seed, 1, queue, m, 0)
                for n in params.flows:
                    labels = (
                        ("scenario", 1), ("variant", variant), ("queue", queue), ("cross", m),
                        ("replica", 0), ("flows", n), ("capacity_bytes_per_s", capacity),
                    )  # fmt: skip
                    setup = scenario_setup(1, n, m, queue, run_seed)
                    jobs.append((labels, setup, cross_ms, parallel_ms))
    return pd.DataFrame(run_tasks(_one, jobs, workers=params.workers, desc="lu rtts"))
