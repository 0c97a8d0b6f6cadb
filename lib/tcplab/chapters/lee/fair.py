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

:func:`run_fair` is :func:`tcplab.chapters.lee.transfer.run_repetition` for such a path (the
same network and the same three random streams: with ``fair=False`` it gives the same
transfers, checked by ``tests/test_lee_fair.py``), with the bottleneck's discipline as a
parameter. It is a copy of that function rather than a knob of it, because a change to
``transfer.py`` or ``rig.py`` would make every table of the chapter stale.

The experiment (:func:`fair_runs`) runs both disciplines with the same seeds, so repetition r
of each meets the same cross traffic and start jitter: a paired comparison.
"""

from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from tcplab.checks import check_int
from tcplab.packet import DropTail, Network, TcpConfig, TcpSender
from tcplab.packet.link import Link
from tcplab.packet.sched import Call, call_at
from tcplab.tasks import run_tasks

from .transfer import (
    PACKET_BYTES,
    Repetition,
    TransferSender,
    delivered_bytes,
    path_model,
    transfer_config,
)

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
    :func:`~tcplab.chapters.lee.transfer.run_repetition` returns (no progress traces)."""
    path = rep.path
    starts, extra, cross = np.random.SeedSequence(rep.seed).spawn(3)
    rng_cross = np.random.default_rng(cross)
    net = Network(seed=rep.seed)
    queue: FairShare | DropTail = FairShare(path.buffer) if fair else DropTail(path.buffer)
    link = net.add_link("bottleneck", path.bottleneck_mbps, rep.rtt_ms / 2.0, queue)
    if isinstance(queue, FairShare):
        queue.link = link
    config = transfer_config(rep.nbytes, max_window=path.max_window, variant=path.tcp)
    begin = path.warmup
    jitter = np.random.default_rng(starts).uniform(0.0, path.start_jitter_ms / 1e3, rep.flows)
    senders: list[Any] = []
    receivers = []
    for i in range(rep.flows):
        shaper = DropTail(path.shaper_buffer) if path.shaper_mbps is not None else None
        net.add_link(f"up{i}", path.shaper_mbps, 0.0, shaper)
        conn = net.add_connection(
            [[f"up{i}", "bottleneck"]], config, name=f"t{i}", start=begin + float(jitter[i]),
            sender=TransferSender,
        )  # fmt: skip
        senders.append(conn.senders[0])
        receivers.append(conn.receivers[0])
    n_cross = int(rng_cross.integers(path.cross[0], path.cross[1] + 1))
    cross_rtt = np.random.default_rng(extra).uniform(*path.cross_extra_ms, n_cross)
    cross_start = rng_cross.uniform(0.0, max(begin, 1e-9), n_cross)
    windowed = TcpConfig("newreno", packet_bytes=PACKET_BYTES, max_window=path.cross_window)
    for j in range(n_cross):
        net.add_link(f"x{j}", None, float(cross_rtt[j]) / 2.0)
        net.add_connection(
            [[f"x{j}", "bottleneck"]], windowed, name=f"x{j}", start=float(cross_start[j])
        )
    env = net.env
    done = env.event()
    left = [rep.flows]

    def finished(_sender: TcpSender) -> None:
        left[0] -= 1
        if left[0] == 0 and not done.triggered:
            done.succeed()

    def give_up(_event: Call) -> None:
        if not done.triggered:
            done.succeed()

    for sender in senders:
        sender.on_complete = finished
    call_at(env, begin + rep.time_limit, give_up, None)
    env.run(until=done)
    completion = np.array(
        [math.nan if s.completed_at is None else s.completed_at - begin for s in senders]
    )
    return {
        "completion_s": completion,
        "bytes": np.array([delivered_bytes(r.delivered, rep.nbytes) for r in receivers]),
        "timeouts": np.array([s.timeouts for s in senders]),
        "fast_retransmits": np.array([s.fast_retransmits for s in senders]),
        "start_s": np.array([float(s.started_at) for s in senders]) - begin,
        "cross": n_cross,
        "drops": link.drops,
        "fair_drops": queue.fair_drops if isinstance(queue, FairShare) else 0,
    }


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
    order = sorted(range(len(labelled)), key=lambda i: -labelled[i][1].flows)
    tasks = [(labelled[i][1], labelled[i][2]) for i in order]
    results = run_tasks(_one, tasks, workers=params.workers, desc="lee-fair")
    by_index = dict(zip(order, results, strict=True))
    frames = [
        pd.DataFrame(
            {**labels, "transfer": np.arange(rep.flows), **{k: by_index[i][k] for k in KEPT}}
        )
        for i, (labels, rep, _) in enumerate(labelled)
    ]
    return pd.concat(frames, ignore_index=True)
