"""Fig. 4.1's s2 excess, traced to one weighted flow against one TCP flow.

At weights 1/3, 2/3 the packet model gives s2's subflow through the 8 Mb/s link more than
1/3 of what s1 (a TCP flow) gets there (``bmc-worked``). Part 2 shows the same excess at
D = 1/3, N = 1 on Fig. 5.1's link. Four cases, ``seeds`` runs each, one row per flow: the
``pooling`` scenario itself; the same pair (one TCP flow, one AIMD(1/9, 1/2) flow) ``alone``
on an 8 Mb/s link with the same RTT and queue; that pair over a ``long`` run; and ``many``
pairs (``many`` TCP and as many AIMD(1/9, 1/2) flows on a link ``many`` times faster). If
the excess is the pair's own (few loss events of a slow-growing flow in one run), ``alone``
shows it too and ``long`` and ``many`` remove it.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import pandas as pd

from tcplab import multipath as mp
from tcplab.packet import PacketSetup, RunLength
from tcplab.packet.multipath import MultipathRun, MultipathSetup
from tcplab.packet.weighted import WeightedRun, bottleneck_queue, mixed_setup

from .params import BmcParams
from .runs import Job, job, run_jobs

__all__ = ["PairParams", "pair", "PAIR_WEIGHT"]

#: s2's weight on the 8 Mb/s link at the fixed point of Fig. 4.1
PAIR_WEIGHT = 1 / 3
LINK_MBPS = 8.0
ONE_WAY_MS = 25.0  # the multipath scenarios' paths (tcplab.multipath.Scenario.one_way_ms)
LINK_DELAY_MS = 10.0  # their links' delay (tcplab.multipath.LinkSpec)


@dataclass(frozen=True)
class PairParams(BmcParams):
    """``seeds`` runs of each case; ``long_duration`` and ``long_from`` for the long pair."""

    seeds: int = 6
    examples_duration: float = 200.0
    long_duration: float = 1000.0
    long_from: float = 200.0
    many: int = 4

    @classmethod
    def quick(cls) -> PairParams:
        """Short runs, one seed."""
        return cls(seeds=1, examples_duration=20.0, long_duration=30.0, long_from=10.0,
                   many=2, workers=1)  # fmt: skip


def _dumbbell(pairs: int, duration: float, warmup: float) -> PacketSetup:
    rate = LINK_MBPS * pairs
    setup = mixed_setup(
        [(PAIR_WEIGHT**2, 0.5)] * pairs, pairs, rate_mbps=rate,
        queue=bottleneck_queue("deep", rate, ONE_WAY_MS), duration=duration, warmup=warmup,
    )  # fmt: skip
    access = tuple([ONE_WAY_MS - LINK_DELAY_MS] * (2 * pairs))
    topology = replace(setup.topology, delay_ms=LINK_DELAY_MS, access_delay_ms=access)
    return replace(setup, topology=topology)


def _rows(work: Job, run: Any) -> list[dict[str, Any]]:
    if isinstance(run, MultipathRun):
        who = {("s1", 0): "tcp", ("s2", 0): "aimd"}
        return [
            {**work.label, "kind": who.get((r.connection, int(r.subflow)), "other"),
             "mbps": float(r.goodput_mbps)}
            for r in run.flows.itertuples()
        ]  # fmt: skip
    assert isinstance(run, WeightedRun)
    return [
        {**work.label, "kind": str(r.kind), "mbps": float(r.steady_goodput_mbps)}
        for r in run.flows.itertuples()
    ]


def pair(params: PairParams, seed: int = 0) -> pd.DataFrame:
    """One row per (case, replica, flow): ``kind`` tcp (s1, or a TCP flow), aimd (s2's
    subflow on the 8 Mb/s link, or an AIMD(1/9, 1/2) flow), other (the rest of Fig. 4.1);
    Mb/s over the measured part of the run."""
    half = params.examples_duration / 2.0
    cases: list[tuple[str, Any, int]] = [
        ("pooling", MultipathSetup(mp.pooling(), "fixed", (1 / 3, 2 / 3), params.j_s, params.k,
                                   length=RunLength(params.examples_duration, half)), 0),
        ("alone", _dumbbell(1, params.examples_duration, half), 1),
        ("long", _dumbbell(1, params.long_duration, params.long_from), 1),
        ("many", _dumbbell(params.many, params.examples_duration, half), params.many),
    ]  # fmt: skip
    jobs = [
        job(setup, tcp, case=name, replica=r)
        for name, setup, tcp in cases
        for r in range(params.seeds)
    ]
    frames = run_jobs(jobs, params.workers, seed, "pair", _rows)
    return pd.DataFrame([row for rows in frames for row in rows])
