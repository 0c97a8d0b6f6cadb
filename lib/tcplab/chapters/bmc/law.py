"""When does the weight law hold? Equal per-packet loss against synchronised drops, and
unequal RTTs.

Eq. (3.2) gives AIMD(a, b) a throughput proportional to sqrt(a) / R when every flow sees the
same loss rate per packet (random loss, RED): weight D at a = D^2. When every flow loses a
packet at the same moments instead (DropTail with equal RTTs, synchronised drops), all
windows grow between the same losses, each by a per round trip: the fluid argument gives
throughput proportional to a / R^2, so weight D^2 at a = D^2 (b = 1/2 for both). Two
experiments, ``seeds`` runs each, one row per flow:

* ``equal``: N TCP flows against N AIMD(D^2, 1/2) flows, every flow with the same RTT, on a
  RED bottleneck (ns-2's automatic RED), a DropTail one (one bandwidth-delay product), and a
  fast link whose every packet is lost with probability ``loss_rate`` (``random``);
* ``rtt``: one TCP flow and two AIMD(1/4, 1/2) flows (the two subflows of a BMC connection at
  weights 1/2, 1/2), the TCP flow and the first subflow at ``rtts_ms[0]`` and the second at
  ``rtts_ms[1]``, under the same three queues: the R in eq. (3.7) is what makes both
  subflows' Twr equal (equal loss), or not (synchronised drops: Twr in the ratio of the
  RTTs).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import pandas as pd

from tcplab.packet import PacketSetup
from tcplab.packet.weighted import WeightedRun, bottleneck_queue, mixed_setup

from .params import BmcParams
from .runs import Job, job, run_jobs

__all__ = ["LawParams", "law", "QUEUES"]

#: the three ways of losing packets: RED (equal loss per packet), DropTail (synchronised
#: drops) and random loss on a link that never fills
QUEUES = ("red", "droptail", "random")


@dataclass(frozen=True)
class LawParams(BmcParams):
    """The grid: weights, N, seeds, link rate and RTT of ``equal``; the RTTs of ``rtt``."""

    law_weights: tuple[float, ...] = (1 / 2, 1 / 5)
    law_flows: tuple[int, ...] = (1, 4)
    law_rate_mbps: float = 20.0
    law_one_way_ms: float = 22.0  # Fig. 5.1's 20 + 2 ms, without the n/3 ms stagger
    random_rate_mbps: float = 100.0  # the random-loss link never fills
    loss_rate: float = 0.002
    rtts_ms: tuple[float, float] = (20.0, 80.0)
    rtt_link_ms: float = 5.0  # the bottleneck's one-way delay in ``rtt``
    law_duration: float = 200.0
    law_from: float = 50.0
    law_seeds: int = 3

    @classmethod
    def quick(cls) -> LawParams:
        """One weight, N = 1, one seed, short runs."""
        return cls(law_weights=(1 / 2,), law_flows=(1,), law_rate_mbps=10.0,
                   random_rate_mbps=20.0, law_duration=20.0, law_from=5.0, law_seeds=1,
                   workers=1)  # fmt: skip


def _queue_options(params: LawParams, queue: str, one_way_ms: float) -> dict[str, Any]:
    if queue == "random":
        rate = params.random_rate_mbps
        return {"rate_mbps": rate, "queue": bottleneck_queue("droptail", rate, one_way_ms),
                "loss_rate": params.loss_rate}  # fmt: skip
    rate = params.law_rate_mbps
    variant = "ns2" if queue == "red" else "droptail"
    return {"rate_mbps": rate, "queue": bottleneck_queue(variant, rate, one_way_ms)}


def _with_delays(setup: PacketSetup, link_ms: float, access_ms: tuple[float, ...]) -> PacketSetup:
    topology = replace(setup.topology, delay_ms=link_ms, access_delay_ms=access_ms)
    return replace(setup, topology=topology)


def equal_setup(params: LawParams, queue: str, d: float, n: int) -> PacketSetup:
    """N TCP and N AIMD(D^2, 1/2) flows, all with the RTT ``2 law_one_way_ms``."""
    setup = mixed_setup(
        [(d * d, 0.5)] * n, n, duration=params.law_duration, warmup=params.law_from,
        **_queue_options(params, queue, params.law_one_way_ms),
    )  # fmt: skip
    link = params.law_one_way_ms - 2.0
    return _with_delays(setup, link, tuple([2.0] * (2 * n)))


def rtt_setup(params: LawParams, queue: str) -> PacketSetup:
    """One TCP flow and two AIMD(1/4, 1/2) flows; RTTs ``rtts_ms[0]`` (TCP, first subflow)
    and ``rtts_ms[1]`` (second subflow)."""
    short, long = (r / 2.0 for r in params.rtts_ms)
    setup = mixed_setup(
        [(0.25, 0.5), (0.25, 0.5)], 1, duration=params.law_duration, warmup=params.law_from,
        **_queue_options(params, queue, short),
    )  # fmt: skip
    link = params.rtt_link_ms
    return _with_delays(setup, link, (short - link, short - link, long - link))


def _rows(work: Job, run: WeightedRun) -> list[dict[str, Any]]:
    f = run.flows
    return [
        {
            **work.label,
            "kind": str(r.kind),
            "n": int(r.n),
            "rtt_s": float(r.rtt_prop_s),
            "mbps": float(r.steady_goodput_mbps),
            "loss_events": int(r.steady_fast_retransmits + r.steady_timeouts),
            "timeouts": int(r.steady_timeouts),
            "drop_rate": float(run.bottleneck["steady_drop_rate"]),
        }
        for r in f.itertuples()
    ]


def law(params: LawParams, seed: int = 0) -> pd.DataFrame:
    """One row per (experiment, queue, D, N, replica, flow): its Mb/s from ``law_from`` on,
    its RTT, loss events and time-outs."""
    jobs = [
        job(equal_setup(params, q, d, n), n, experiment="equal", queue=q, D=d, flows=n,
            replica=r)
        for q in QUEUES
        for d in params.law_weights
        for n in params.law_flows
        for r in range(params.law_seeds)
    ]  # fmt: skip
    jobs += [
        job(rtt_setup(params, q), 1, experiment="rtt", queue=q, D=0.5, flows=1, replica=r)
        for q in QUEUES
        for r in range(params.law_seeds)
    ]
    frames = run_jobs(jobs, params.workers, seed, "law", _rows)
    return pd.DataFrame([row for rows in frames for row in rows])
