"""A what-if that takes the unfairness away (Lee et al., Secs. 4.3 and 5: "a major cause of
fluctuation is the unfairness" with 50 flows).

The book's model with the paper's fast and slow clusters at 50 flows is the shaped path (each
transfer behind its own 5 Mb/s shaper, a 200 Mb/s DropTail bottleneck that 40 and 50 of them
overload). There the flows are unfair (a time-out puts a transfer in the slow cluster) and the
aggregate fluctuates from run to run. The what-if keeps the overload (the congestion: as many
packets offered, as few served) and takes the unfairness away at the bottleneck:
:class:`FairShare`, a DropTail buffer in which each flow may hold at most an equal share of the
packets (fair buffer allocation, the admission half of per-flow fair queueing), so that the
drops fall on every flow alike and no flow is starved into a time-out by the others' bursts.

:func:`run_fair` is :func:`tcplab.chapters.lee.transfer.run_repetition` with the bottleneck's
discipline a :class:`FairShare` (or, with ``fair=False``, the shipped DropTail): the same
network and the same three random streams, so a repetition meets the same cross traffic and
start jitter under either discipline.

The experiment (:func:`fair_runs`) runs both disciplines with the same seeds, so repetition r
of each meets the same cross traffic and start jitter: a paired comparison.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from tcplab.checks import check_int
from tcplab.packet import DropTail
from tcplab.packet.link import Link

from .experiments import transfer_rows
from .transfer import Repetition, path_model, run_repetition

__all__ = ["FairShare", "run_fair", "FairParams", "fair_runs", "VARIANTS"]

#: the two bottleneck disciplines: the shipped FIFO DropTail and the per-flow fair share
VARIANTS = (("shaped", False), ("shaped, fair share", True))


@dataclass(eq=False)
class FairShare:
    """DropTail with a per-flow share: an arrival is admitted while fewer than ``buffer``
    packets wait and its flow holds fewer than ``max(min_share, buffer // active)`` of the
    packets in the link (``active``: the flows with a packet in the link, the arrival's
    counted). ``link`` is the link it guards (set after the link is built): the discipline
    reads each admitted packet's departure from it (``busy_until``) at the next arrival."""

    buffer: int
    min_share: int = 2
    link: Link | None = None
    _fifo: deque[tuple[float, int]] = field(default_factory=deque, repr=False)
    _counts: dict[int, int] = field(default_factory=dict, repr=False)
    _pending: int | None = field(default=None, repr=False)
    fair_drops: int = 0

    def __post_init__(self) -> None:
        self.buffer = check_int("buffer", self.buffer, 1)
        self.min_share = check_int("min_share", self.min_share, 1, self.buffer)

    def admit(self, waiting: int, now: float, idle_since: float, flow: int = -1) -> bool:
        if self.link is None:
            raise ValueError("FairShare.link is None: set it to the link it guards")
        counts, fifo = self._counts, self._fifo
        if self._pending is not None:  # the packet admitted last leaves at busy_until
            fifo.append((self.link.busy_until, self._pending))
            self._pending = None
        while fifo and fifo[0][0] <= now:
            _, gone = fifo.popleft()
            counts[gone] -= 1
            if counts[gone] == 0:
                del counts[gone]
        if waiting >= self.buffer:
            return False
        mine = counts.get(flow, 0)
        active = len(counts) + (0 if mine else 1)
        if mine >= max(self.min_share, self.buffer // active):
            self.fair_drops += 1
            return False
        counts[flow] = mine + 1
        self._pending = flow
        return True


def run_fair(rep: Repetition, fair: bool) -> dict[str, Any]:
    """One repetition of ``rep`` (transfers behind their shapers, window-limited cross
    traffic) with a :class:`FairShare` bottleneck if ``fair``, else DropTail. Returns what
    :func:`~tcplab.chapters.lee.transfer.run_repetition` returns and ``fair_drops``."""
    made: list[FairShare | DropTail] = []

    def bottleneck(buffer: int) -> FairShare | DropTail:
        made.append(FairShare(buffer) if fair else DropTail(buffer))
        return made[0]

    row = run_repetition(rep, bottleneck=bottleneck)
    queue = made[0]
    return {**row, "fair_drops": queue.fair_drops if isinstance(queue, FairShare) else 0}


#: what a repetition's row keeps of :func:`run_fair`, after its labels and the transfer
KEPT = ("completion_s", "bytes", "timeouts", "fast_retransmits", "cross", "drops", "fair_drops")


@dataclass(frozen=True)
class FairParams:
    """``repetitions`` of each discipline per number of flows on the shaped path (38 ms)."""

    flows: tuple[int, ...] = (10, 40, 50)
    repetitions: int = 20
    nbytes: int = 2_000_000
    workers: int = 2

    @classmethod
    def quick(cls) -> FairParams:
        return cls(flows=(10, 50), repetitions=2, nbytes=300_000, workers=1)


def fair_seed(seed: int, flows: int, repetition: int) -> int:
    """The seed of repetition ``repetition`` at ``flows`` flows, the same for both
    disciplines (a paired comparison)."""
    key = (seed, 3219, flows, repetition)
    return int(np.random.SeedSequence(key).generate_state(1)[0])


def _one(task: tuple[Repetition, bool]) -> dict[str, Any]:
    return run_fair(*task)


def fair_runs(params: FairParams, seed: int = 0) -> pd.DataFrame:
    """Rows (path = the discipline's variant, rtt_ms, flows, repetition, transfer,
    completion_s, bytes, timeouts, fast_retransmits, cross, drops, fair_drops), one per
    transfer."""
    path, rtt = path_model("shaped"), 38.0
    labelled = [
        ({"path": name, "rtt_ms": rtt, "flows": n, "repetition": r},
         Repetition(path, n, params.nbytes, rtt, fair_seed(seed, n, r)), fair)
        for name, fair in VARIANTS
        for n in params.flows
        for r in range(params.repetitions)
    ]  # fmt: skip
    return transfer_rows(labelled, params.workers, "lee-fair", KEPT, _one)
