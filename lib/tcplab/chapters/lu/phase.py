"""Scenario 1's DropTail "starvation" (Sec. III.A) as a phase effect: the what-if ``lu-phase``.

The paper: with more than 10 cross flows in scenario 1 "the cross traffic dominates the queue
and starves the parallel TCP flows under DropTail policy". Both groups have the same round
trip, the simulation adds no randomness of its own (ns-2 without ``overhead_``, the packet
model without send jitter), and a DropTail queue then drops whichever packets arrive when it
is full: which group's packets those are depends on where each group's packets fall within
the bottleneck's packet time, a phase effect (Floyd and Jacobson, 1992). The phase moves with
any detail that moves the round trip by a fraction of a packet time (5.33 ms at 1.5 Mb/s for
1000 bytes), such as the headers a simulator adds to a packet, which the paper does not state.

:func:`phase` runs scenario 1 with the parallel connections' access link L2 ``delta`` ms
longer than the cross traffic's L1 (:func:`~tcplab.chapters.lu.rtts.two_rtt_row`), for
nine values of ``delta`` from 0 to under half a bottleneck packet time (the round trip, some
180 ms with the queue full, moves by less than one packet time), under three disciplines:
DropTail as the chapter runs it, DropTail with ns-2-style random send jitter of up to one
bottleneck packet time on the access links (Floyd and Jacobson's remedy for phase effects),
and RED. At ``delta`` 0 without jitter a row
is the ``lu-scenarios`` row of the same (queue, cross, n), to the bit: same seeds, same network.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from tcplab.tasks import run_tasks

from .rtts import two_rtt_row
from .scenarios import PACKET_BYTES, SCENARIOS, Variant, scenario_seed, scenario_setup

__all__ = ["PHASE_VARIANTS", "PhaseParams", "fair_share", "packet_time_ms", "phase"]

ACCESS_MS = 4.0  # the paper's delay of L1 and L2


def packet_time_ms(scenario: int = 1, packet_bytes: int = PACKET_BYTES) -> float:
    """The bottleneck's time to send one packet (ms): 5.33 ms in scenario 1."""
    return packet_bytes * 8.0 / (SCENARIOS[scenario].rate_mbps * 1e3)


#: the disciplines: a name, the queue, the send jitter on the access links (ms, U(0, jitter))
PHASE_VARIANTS: dict[str, tuple[str, float]] = {
    "DropTail": ("droptail", 0.0),
    "DropTail, send jitter": ("droptail", packet_time_ms()),
    "RED": ("red", 0.0),
}


@dataclass(frozen=True)
class PhaseParams:
    """Scenario 1: every variant of :data:`PHASE_VARIANTS`, cross level, n and L2 offset
    (``steps`` offsets evenly over half a bottleneck packet time)."""

    variants: tuple[str, ...] = tuple(PHASE_VARIANTS)
    cross: tuple[int, ...] = (20, 30)
    flows: tuple[int, ...] = (1, 5, 10, 31)
    steps: int = 9
    workers: int = 2

    @classmethod
    def quick(cls) -> PhaseParams:
        """Every variant, 20 cross flows, one parallel connection, two offsets."""
        return cls(tuple(PHASE_VARIANTS), (20,), (1,), 2, workers=1)

    def offsets_ms(self) -> np.ndarray:
        """The L2 offsets (ms): ``steps`` values in [0, half a packet time)."""
        return np.round(np.arange(self.steps) * packet_time_ms() / 2.0 / self.steps, 4)


def fair_share(parallel: pd.Series, cross: pd.Series, flows: pd.Series, m: pd.Series) -> pd.Series:
    """The parallel connections' share of the throughput over their fair share n / (n + m):
    1 when every connection gets the same (same round trip and loss rate, Mathis)."""
    return parallel / (parallel + cross) / (flows / (flows + m))


def _one(job: tuple[tuple[tuple[str, object], ...], object, float]) -> dict:
    labels, setup, delta = job
    return {**dict(labels), **two_rtt_row(setup, ACCESS_MS, ACCESS_MS + delta)}  # type: ignore[arg-type]


def phase(params: PhaseParams, seed: int = 0) -> pd.DataFrame:
    """Rows (scenario, variant, queue, jitter_ms, cross, flows, delta_ms,
    capacity_bytes_per_s, the row numbers, cross_rtt_s, share), one per run; ``share`` is
    :func:`fair_share`."""
    jobs = []
    capacity = SCENARIOS[1].capacity_bytes_per_s
    for name in params.variants:
        queue, jitter = PHASE_VARIANTS[name]
        for m in params.cross:
            run_seed = scenario_seed(seed, 1, queue, m, 0)
            for n in params.flows:
                setup = scenario_setup(1, n, m, queue, run_seed, Variant(overhead_ms=jitter))
                for delta in params.offsets_ms():
                    labels = (
                        ("scenario", 1), ("variant", name), ("queue", queue),
                        ("jitter_ms", round(jitter, 4)), ("cross", m), ("flows", n),
                        ("delta_ms", float(delta)), ("capacity_bytes_per_s", capacity),
                    )  # fmt: skip
                    jobs.append((labels, setup, float(delta)))
    table = pd.DataFrame(run_tasks(_one, jobs, workers=params.workers, desc="lu phase"))
    table["share"] = fair_share(
        table["parallel_bytes_per_s"], table["cross_bytes_per_s"], table["flows"], table["cross"]
    )
    return table
