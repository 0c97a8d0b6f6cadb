"""One Morris run in numbers: the measures the paper reports, from a :class:`MorrisRun`.

Everything is counted after the warm-up. The loss rate is the bottleneck's drops over its
arrivals (every packet that reached router A's queue, retransmissions and telnet packets
included); the goodput is the distinct bytes the receivers got over what the link could carry;
per-second measures are over the N greedy flows' one-second intervals. Back-off stages are
time averages over [warm-up, end - 64 s] (every time-out overlapping that window fires before
the end; in shorter runs the window ends half-way and waits longer than that are cut).
Loss episodes clump drops less than one mean smoothed RTT apart.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from tcplab.packet.dumbbell import jain_index
from tcplab.packet.probes import FAST_RETRANSMIT, TIMEOUT

from . import analysis
from .topology import MorrisRun

__all__ = ["STAGES", "summarise", "fair_pps", "stage_window", "flow_seconds"]

STAGES = 7  # back-off stages 0..6: time-outs of 1, 2, ..., 64 s with TCP's 64 s ceiling


def fair_pps(run: MorrisRun) -> float:
    """One greedy flow's fair share of the bottleneck, in packets per second."""
    top, config = run.topology, run.setup.configs()[0]
    return top.rate_mbps * 1e6 / (8.0 * config.packet_bytes) / top.flows


def stage_window(run: MorrisRun) -> tuple[float, float]:
    """The window over which back-off stages are averaged (see the module docstring)."""
    length = run.setup.length
    longest = run.setup.configs()[0].max_rto
    reach = min(longest, 0.5 * (length.duration - length.warmup))
    return length.warmup, length.duration - reach


def flow_seconds(run: MorrisRun) -> np.ndarray:
    """Packets each greedy flow received in each sampling interval after the warm-up."""
    return analysis.per_second(run.unique, run.ticks, run.setup.length.warmup)


def summarise(run: MorrisRun, histogram: bool = False) -> dict[str, Any]:
    """The run's measures as a JSON-ready dict (``histogram``: also the per-second
    bandwidth histogram, ``hist`` = one probability per bin of ``HISTOGRAM_EDGES``)."""
    setup, top = run.setup, run.topology
    length, config = setup.length, setup.configs()[0]
    n, warmup, duration = top.flows, length.warmup, length.duration
    span = duration - warmup
    table = run.flow_table
    greedy = table.iloc[:n]
    per_flow = greedy["delivered"].to_numpy(dtype=float)
    delivered_bits = float(table["delivered"].sum()) * config.packet_bytes * 8.0
    packets = flow_seconds(run)
    share = analysis.shares(packets, fair_pps(run), top.sample_s)
    start, stop = stage_window(run)
    losses = run.losses
    outs = losses[losses["kind"] == TIMEOUT]
    occupancy = analysis.stage_occupancy(
        outs["time"], outs["wait"], outs["stage"], start, stop, STAGES
    )
    q, counts = analysis.stage_loss(
        outs["flow"], outs["time"], outs["stage"], outs["progress"], stop, STAGES
    )
    after = losses["time"] >= warmup
    fr_windows = losses.loc[after & (losses["kind"] == FAST_RETRANSMIT), "window"].to_numpy()
    later = run.ticks[: len(run.srtt)] >= warmup
    srtt = run.srtt[later]
    mean_rtt = float(np.nanmean(srtt)) if np.isfinite(srtt).any() else math.nan
    measured = run.drop_time >= warmup
    gap = mean_rtt if math.isfinite(mean_rtt) else 2e-3 * (top.delay_ms + top.access_delay_ms)
    episodes = analysis.episode_stats(run.drop_time[measured], run.drop_flow[measured], gap, span)
    repeated = outs[(outs["time"] >= start) & (outs["time"] <= stop) & (outs["stage"] >= 1)]
    sent = float(greedy["sent"].sum())
    summary: dict[str, Any] = {
        "flows": n,
        "buffer": setup.queue.buffer,
        "queue": setup.queue.kind,
        "tcp": config.variant,
        "remedies": list(getattr(config, "remedies", ())),
        "telnet": top.telnet,
        "seconds": duration,
        "warmup": warmup,
        "seed": setup.seed,
        "loss_rate": run.drops / run.arrivals if run.arrivals else 0.0,
        "goodput_fraction": delivered_bits / (span * top.rate_mbps * 1e6),
        "utilisation": (run.arrivals - run.drops)
        * config.packet_bytes
        * 8.0
        / (span * top.rate_mbps * 1e6),
        "jain": jain_index(per_flow),
        "under_5pct": analysis.under_fraction(share, 0.05),
        "zero_seconds": analysis.zero_fraction(packets),
        "timeouts": int(greedy["timeouts"].sum()),
        "fast_retransmits": int(greedy["fast_retransmits"].sum()),
        "backoff_stages": [float(x) for x in occupancy],
        "in_timeout": float(occupancy.sum()),
        "stage_loss": [None if not math.isfinite(x) else float(x) for x in q],
        "stage_counts": [int(c) for c in counts],
        "resumed_share": float(np.mean(repeated["progress"])) if len(repeated) else None,
        "packets": run.packets,
        "arrivals": run.arrivals,
        "drops": run.drops,
        "loss_departures": run.drops / (run.arrivals - run.drops)
        if run.arrivals > run.drops
        else math.inf,
        "loss_retransmits": float(greedy["retransmits"].sum()) / sent if sent else 0.0,
        "mean_rtt": mean_rtt,
        "mean_cwnd": float(np.mean(run.cwnd[later])) if later.any() else math.nan,
        "window_at_fr": _quantiles(fr_windows),
        **episodes,
        "episodes_per_rtt": episodes["episodes_per_s"] * gap,
        **run.queue_counters,
        "wall_s": run.wall_s,
    }
    if histogram:
        summary["hist"] = [float(x) for x in analysis.share_histogram(share)]
    return summary


def _quantiles(values: np.ndarray) -> list[float] | None:
    """The 25%, 50% and 75% quantiles, or None with no values."""
    if not len(values):
        return None
    return [float(x) for x in np.quantile(values, [0.25, 0.5, 0.75])]
