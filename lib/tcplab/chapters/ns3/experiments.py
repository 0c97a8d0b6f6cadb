"""The tcplab side of the ns-3 cross-check: the appendix's grid on the packet model.

Every scenario of :mod:`tcplab.chapters.ns3.grid` runs on :mod:`tcplab.packet` with the
matched parameters, each seed of the grid once, and gives one row with the numbers ns-3's
script reports (``tools/ns3/dumbbell.py``): goodput, drop rate, time-outs, fast
retransmits, RED's early and forced drops (after the warm-up, as every count), Jain's
index, the mean queue (sampled every 10 ms after the warm-up, waiting
packets only, as ns-3's sampler counts them) and the speed (bottleneck packets per
wall-second). Each run is made twice: with the packet model's timer (``timer="bsd"``: it
restarts at a fast retransmit, as 4.4BSD and ns-2 did) and with ns-3's (``"rfc6298"``:
only new ACKs restart it). ns-3's rows are not computed here: :func:`ns3_table` reads them from
``data/ns3-dumbbell.csv``, which ``tools/ns3/run.py`` writes where ns-3 is installed.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from tcplab import cache
from tcplab.checks import check_choice
from tcplab.packet import (
    DumbbellTopology,
    PacketSetup,
    Probes,
    QueueSetup,
    RunLength,
    TcpConfig,
    call_at,
    jain_index,
)
from tcplab.packet.dumbbell import Dumbbell, queue_counters
from tcplab.packet.setup import streams
from tcplab.tasks import run_tasks

from .grid import MATCHED, SCENARIOS, SEEDS, Scenario

__all__ = ["Ns3Params", "NS3_TABLE", "ns3_table", "run_scenario", "setup_of", "tcplab_runs"]

NS3_TABLE = "ns3-dumbbell"  # data/ns3-dumbbell.csv, written by tools/ns3/run.py
SAMPLE_S = 0.01  # the queue is sampled this often (s), as in ns-3's script
#: the retransmission timer: restarted at a fast retransmit (the model's default) or not
TIMERS = ("bsd", "rfc6298")


@dataclass(frozen=True)
class Ns3Params:
    """The grid and its run length; ``quick()`` runs every scenario once, shorter."""

    scenarios: tuple[Scenario, ...] = SCENARIOS
    seeds: tuple[int, ...] = SEEDS
    timers: tuple[str, ...] = TIMERS
    warmup: float = MATCHED["warmup"]
    duration: float = MATCHED["duration"]
    workers: int = 2

    @classmethod
    def quick(cls) -> Ns3Params:
        return cls(seeds=SEEDS[:1], warmup=10.0, duration=25.0, workers=1)


def setup_of(
    scenario: Scenario, seed: int, warmup: float, duration: float, timer: str = "bsd"
) -> PacketSetup:
    """The packet model's set-up of one scenario (the matched parameters of the grid) with
    the given ``timer`` (see :data:`TIMERS`)."""
    m = MATCHED
    red = {"w_q": m["red_w_q"], "max_p": m["red_max_p"]} if scenario.queue == "red" else {}
    return PacketSetup(
        topology=DumbbellTopology(
            scenario.flows, m["rate_mbps"], m["delay_ms"], m["access_mbps"],
            start_spread=m["start_spread"],
        ),
        queue=QueueSetup(scenario.queue, scenario.buffer, **red),
        tcp=TcpConfig(
            variant=scenario.tcp, packet_bytes=m["packet_bytes"],
            initial_window=m["initial_window"], min_rto=scenario.min_rto_ms / 1e3,
            granularity=m["granularity_ms"] / 1e3,
            restart_rto_at_fast_retransmit=check_choice("timer", timer, TIMERS) == "bsd",
        ),
        length=RunLength(duration, warmup),
        probes=Probes(trace=False),
        delayed_ack_ms=scenario.delayed_ack_ms,
        seed=seed,
    )  # fmt: skip


def build_dumbbell(setup: PacketSetup) -> tuple[Dumbbell, Any]:
    """The dumbbell of ``setup`` wired as :func:`tcplab.packet.simulate` wires it, its
    senders' starts scheduled; returns it and the bottleneck's queue discipline."""
    top = setup.topology
    rng = streams(setup.seed)
    discipline = setup.queue.build(rng.queue, rng.loss, setup.mean_packet_time)
    delays = [d / 1e3 for d in top.access_delays_ms()]
    net = Dumbbell(
        setup.configs(), discipline, top.rate_mbps * 1e6, top.delay_ms / 1e3,
        top.access_mbps * 1e6, delays, trace=False, delayed_ack=setup.delayed_ack,
        rng=rng.overhead,
    )  # fmt: skip
    net.start(rng.start.uniform(0.0, top.start_spread, top.flows))
    return net, discipline


def run_scenario(setup: PacketSetup) -> dict[str, Any]:
    """One run of ``setup`` on :func:`build_dumbbell`'s dumbbell, with the bottleneck's
    queue traced to sample its mean length."""
    length = setup.length
    net, discipline = build_dumbbell(setup)
    net.bottleneck.trace = True
    at_warmup: dict[str, int] = {}
    call_at(net.env, length.warmup, lambda _e: at_warmup.update(queue_counters(discipline)), None)
    out = net.network.run(length.duration, length.warmup)
    neck = out.links.set_index("link").loc["bottleneck"]
    per_flow = out.subflows["goodput_mbps"].to_numpy()
    link = net.bottleneck
    admitted = np.asarray(link.trace_time)[np.asarray(link.trace_dropped) == 0]
    leaves = np.asarray(link.trace_departure)
    ticks = np.arange(length.warmup, length.duration, SAMPLE_S)
    inside = np.searchsorted(admitted, ticks, "right") - np.searchsorted(leaves, ticks, "right")
    senders = net.senders
    return {
        "goodput_mbps": float(per_flow.sum()),
        "per_flow_mbps": json.dumps([round(float(x), 6) for x in per_flow]),
        "jain_index": jain_index(per_flow),
        "arrivals_after_warmup": int(neck["arrivals"]),
        "drops_after_warmup": int(neck["drops"]),
        "drop_rate": float(neck["drop_rate"]),
        "timeouts": int(out.subflows["timeouts"].sum()),
        "fast_retransmits": int(out.subflows["fast_retransmits"].sum()),
        "retransmits": int(out.subflows["retransmits"].sum()),
        "mean_queue": float(np.maximum(inside - 1, 0).mean()),
        "packets": int(link.arrivals),
        "wall_s": out.wall_s,
        "packets_per_wall_s": link.arrivals / out.wall_s if out.wall_s > 0 else float("nan"),
        "sent": int(sum(s.sent for s in senders)),
        **{k: v - at_warmup.get(k, 0) for k, v in queue_counters(discipline).items()},
    }


def _row(work: tuple[Scenario, int, float, float, str]) -> dict[str, Any]:
    scenario, seed, warmup, duration, timer = work
    setup = setup_of(scenario, seed, warmup, duration, timer)
    return {**scenario.params(seed), "timer": timer, **run_scenario(setup)}


def tcplab_runs(params: Ns3Params, seed: int = 0) -> pd.DataFrame:
    """Every (scenario, seed) of the grid on the packet model: one row each. ``seed`` is
    added to the grid's seeds (0: the seed numbers ns-3 ran; the two simulators draw from
    their own generators, so a seed number never means the same start times in both)."""
    work = [
        (s, grid_seed + seed, params.warmup, params.duration, timer)
        for grid_seed in params.seeds
        for s in params.scenarios
        for timer in params.timers
    ]
    rows = run_tasks(_row, work, workers=params.workers, desc="tcplab dumbbells")
    table = pd.DataFrame(rows)
    table["warmup"], table["duration"] = params.warmup, params.duration
    return table


def ns3_table() -> tuple[pd.DataFrame, dict[str, Any]]:
    """ns-3's rows and their provenance, as shipped in data/ (never recomputed here)."""
    found = cache.load(cache.Entry(NS3_TABLE))
    if found is None:
        raise FileNotFoundError(
            f"data/{NS3_TABLE}.csv is missing: run tools/ns3/run.py where ns-3 is installed"
        )
    return found
