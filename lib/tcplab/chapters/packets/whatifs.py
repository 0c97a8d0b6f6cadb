"""What-if runs of the chapter: each removes one cause the chapter names for a difference,
and shows whether the difference goes away.

* :func:`floor`: one connection behind a one-packet DropTail buffer attains a little more than
  3/4 because the buffer lifts the sawtooth's floor from B/2 to (B + b)/2 (B the pipe in
  packets). The closed form of that lifted sawtooth (:func:`lifted_sawtooth`) is 3/4 at
  b/B = 0; the model allows no buffer below one packet, so the what-if makes the pipe four
  times larger instead (a faster bottleneck), which shrinks b/B fourfold.
* :func:`equal_starts`: DropTail synchronises only some of the connections in each congestion
  event; the what-if starts every connection at the same instant, removing the random start
  times as a cause.

Each is the chapter's set-up (:func:`.runs.chapter_setup`) with one knob of the packet model
changed; the jobs are seeded as the chapter's (:func:`.runs.run_all`).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from .experiments import PacketsParams
from .runs import chapter_queue, chapter_setup, job, run_all
from .signals import congestion_events, loss_signals

__all__ = [
    "FloorParams",
    "StartParams",
    "pipe_packets",
    "lifted_sawtooth",
    "floor",
    "equal_starts",
]


def pipe_packets(params: PacketsParams) -> float:
    """B: the packets one connection keeps in flight with an empty queue, the bottleneck's
    rate times the round trip (propagation, plus one packet's transmission on the access link
    and on the bottleneck; the ACKs' path is pure delay)."""
    bits = params.packet_bytes * 8.0
    rate = params.rate_mbps * 1e6
    rtt = 2e-3 * (params.delay_ms + params.access_delay_ms)
    rtt += bits / rate + bits / (params.access_mbps * 1e6)
    return rate * rtt / bits


def lifted_sawtooth(x: float | np.ndarray) -> np.ndarray:
    """Utilisation of one AIMD connection (window +1 per round trip, halved at a loss) whose
    window peaks at W = B(1 + x), x = b/B: the pipe B plus a buffer of b packets.

    Below B the link idles and the rate is w/RTT0; above it the queue holds w - B, the link is
    busy and the window grows by one per (longer) round trip. Over one cycle from W/2 to W
    (W/2 <= B) the packets sent are 3W^2/8 and the link could have sent
    B^2/2 - BW/2 + W^2/2, whose ratio is 3(1 + x)^2 / (4(1 + x + x^2)): 3/4 at x = 0 (the
    sawtooth from c/2 to c), 1 from x = 1 on (the floor at or above the pipe).
    """
    x = np.asarray(x, dtype=float)
    if np.any(x < 0):
        raise ValueError(f"x={x} must be >= 0 (a buffer over a pipe)")
    u = 3.0 * (1.0 + x) ** 2 / (4.0 * (1.0 + x + x * x))
    return np.where(x >= 1.0, 1.0, u)


@dataclass(frozen=True)
class FloorParams:
    """One connection behind a ``buffer``-packet DropTail queue, with the chapter's bottleneck
    (5 Mb/s: B = 76.5) and faster ones (``rates_mbps``; access links twice as fast, as in the
    chapter), ``replicas`` seeds each."""

    rates_mbps: tuple[float, ...] = (5.0, 20.0)
    buffer: int = 1
    replicas: int = 4
    duration: float = 1200.0
    warmup: float = 200.0
    workers: int = 2

    @classmethod
    def quick(cls) -> FloorParams:
        # a smoke test of the code (the chapter's quick scale is near its minute): slow start
        return cls(rates_mbps=(5.0, 10.0), replicas=2, duration=6.0, warmup=2.0, workers=1)


def floor(params: FloorParams, seed: int = 0) -> pd.DataFrame:
    """The what-if of the one-connection sawtooth: rows (rate_mbps, pipe_packets, buffer,
    replica, utilisation, lifted, timeouts, drop_rate, packets), ``lifted`` the closed form
    :func:`lifted_sawtooth` at x = buffer / pipe."""
    base = PacketsParams()
    chosen = [replace(base, rate_mbps=r, access_mbps=2.0 * r) for r in params.rates_mbps]
    jobs = [
        job(
            chapter_setup(
                p,
                1,
                chapter_queue(p, "droptail", params.buffer),
                duration=params.duration,
                warmup=params.warmup,
            ),
            rate_mbps=p.rate_mbps,
            pipe_packets=pipe_packets(p),
            buffer=params.buffer,
            replica=r,
        )
        for p in chosen
        for r in range(params.replicas)
    ]
    table = pd.DataFrame([out.row for out in run_all(jobs, params.workers, seed, "floor")])
    table["lifted"] = lifted_sawtooth(table["buffer"] / table["pipe_packets"])
    columns = ["rate_mbps", "pipe_packets", "buffer", "replica", "utilisation", "lifted"]
    return table[[*columns, "timeouts", "drop_rate", "packets"]]


@dataclass(frozen=True)
class StartParams:
    """N = ``flows`` connections under DropTail with ``buffer`` packets, their start times
    drawn in [0, s] for each s of ``spreads`` (4 s: the paper's; 0: all at once),
    ``replicas`` seeds each (one for s = 0, a deterministic run), ``duration`` seconds after
    the chapter's warm-up."""

    flows: int = 10
    buffer: int = 5
    spreads: tuple[float, ...] = (4.0, 0.0)
    replicas: int = 3
    duration: float = 400.0
    warmup: float = 200.0
    workers: int = 2

    @classmethod
    def quick(cls) -> StartParams:
        return cls(replicas=1, duration=4.0, warmup=4.0, workers=1)  # a smoke test


def equal_starts(params: StartParams, seed: int = 0) -> pd.DataFrame:
    """The what-if of the random start times: rows (start_spread, replica, flows, buffer,
    mean_m, events, full_share, utilisation), ``mean_m`` the connections signalled per
    congestion event (as in Fig. 15's ``packets-events``), ``full_share`` the share of
    events that signal every connection."""
    jobs = []
    for spread in params.spreads:
        p = replace(PacketsParams(), start_spread=spread)
        setup = chapter_setup(
            p,
            params.flows,
            chapter_queue(p, "droptail", params.buffer),
            duration=params.warmup + params.duration,
            warmup=params.warmup,
        )
        # with no spread a run draws no random number (no jitter, no overhead, DropTail):
        # every seed gives the same run, so one is enough
        for r in range(params.replicas if spread > 0 else 1):
            jobs.append(job(setup, "windows", start_spread=spread, replica=r))
    rows = []
    for out in run_all(jobs, params.workers, seed, "equal starts"):
        cwnd = out.cwnd
        counts = congestion_events(loss_signals(cwnd[cwnd["time"] >= params.warmup]))
        rows.append(
            {
                "start_spread": out.row["start_spread"],
                "replica": out.row["replica"],
                "flows": params.flows,
                "buffer": params.buffer,
                "mean_m": float(np.mean(counts)) if len(counts) else float("nan"),
                "events": len(counts),
                "full_share": float(np.mean(counts == params.flows)) if len(counts) else 0.0,
                "utilisation": out.row["utilisation"],
            }
        )
    return pd.DataFrame(rows)
