"""From fluid to packets: the ns-2 validation of Altman et al. (2006, Section V), re-run on
the book's packet-level simulator (:mod:`tcplab.packet`).

N identical greedy TCP connections share one bottleneck of rate ``rate_mbps`` behind access
links of 10 Mb/s and 5 ms, with a propagation round-trip time of 120 ms, 1000-byte packets,
start times drawn in [0, 4] s and a maximum window of 20 000 packets, as in the paper. The
paper's bottleneck rate is not legible in our copy of Fig. 6; we use 5 Mb/s, which gives the
per-connection windows of its Fig. 9 (about 10 packets for N = 10 and b = 5). The paper ran
TCP-SACK; the chapter runs NewReno, which recovers from several losses in one window
without a time-out too, more slowly, and reruns its figures with SACK (``variant="sack"``:
the same functions, jobs and seeds, only the senders' TCP changed). Every run is seeded from
``SeedSequence(seed).spawn``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import pandas as pd

from tcplab import packet
from tcplab.packet import DumbbellResult
from tcplab.stats import t975
from tcplab.theory import altman
from tcplab.theory.loss import mathis_rate, padhye_rate

from .runs import Job, chapter_queue, chapter_setup, job, run_all
from .signals import RTT_S, congestion_events, loss_signals, signal_samples, spearman, window_frame

__all__ = [
    "PacketsParams",
    "event_jobs",
    "grid_jobs",
    "threshold_settings",
    "validation",
    "droptail",
    "red",
    "threshold",
    "hold",
    "replicas",
    "run_setup",
    "policy_gap",
    "windows",
    "events",
    "loss",
    "signalled",
]


@dataclass(frozen=True)
class PacketsParams:
    """The paper's ns-2 set-up (Section V.A) and the grids of the figures."""

    flows: tuple[int, ...] = tuple(range(1, 11))
    buffers: tuple[int, ...] = (5, 10, 20, 50, 100)  # DropTail (Fig. 7) and RED (Fig. 10)
    thresholds: tuple[tuple[int, int], ...] = ((3, 100), (2, 100), (3, 30))  # (Th, b), Fig. 11
    threshold_flows: tuple[int, ...] = (1, 2, 3, 4, 5, 6, 8, 10, 12, 15)  # Fig. 11's N axis
    # rate-independent (Fig. 11 left), largest-rate (right), and the first arrival's flow
    selections: tuple[str, ...] = ("random", "largest", "first")
    threshold_select: str = "random"  # the dropper of Figs. 12 and 15
    # the hold: the smallest tried that stops the dropper signalling a connection twice
    # before it has slowed down (N = 2, largest-rate: no time-outs); see hold()
    hold_rtts: float = 1.5
    hold_sweep_rtts: tuple[float, ...] = (0.5, 1.0, 1.5, 2.0, 3.0)
    hold_sweep_flows: tuple[int, ...] = (2, 5, 10)
    replica_flows: tuple[int, ...] = (2, 3, 4, 5)  # below saturation (see hold())
    replicas: int = 6
    rate_mbps: float = 5.0
    access_mbps: float = 10.0
    access_delay_ms: float = 5.0
    delay_ms: float = 55.0  # one way; with the 5 ms access link: 120 ms round trip
    packet_bytes: int = 1000
    max_window: int = 20_000
    start_spread: float = 4.0
    duration: float = 1200.0  # paper: 2000 s, first 1000 s dropped; we average over 1000 s too
    warmup: float = 200.0
    sync_flows: tuple[int, ...] = (5, 10)  # Fig. 8
    sync_buffers: tuple[int, ...] = (5, 20, 50)
    sync_span: float = 20.0  # seconds of window trace kept after the warm-up
    sync_step: float = 0.05  # window trace resampled on this grid (seconds)
    event_flows: int = 10  # Fig. 15
    event_buffers: tuple[int, ...] = (5, 20, 50)
    event_duration: float = 400.0
    validation_flows: int = 10
    validation_duration: float = 1200.0
    red_w_q: float = 0.001
    red_max_p: float = 0.1
    loss_rates: tuple[float, ...] = (0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1)
    loss_rate_mbps: float = 100.0  # bottleneck and access: fast, so only the loss limits
    loss_buffer: int = 1000
    loss_duration: float = 2000.0  # after the warm-up
    signal_flows: int = 10  # Figs. 13 (DropTail) and 14 (RED)
    signal_queues: tuple[str, ...] = ("droptail", "red")
    signal_buffers: tuple[int, ...] = (5, 10, 15, 20)
    signal_duration: float = 1000.0  # after the warm-up
    signal_min_samples: int = 30  # windows seen fewer times are left out of z(w) and its trend
    workers: int = 2
    variant: str = "newreno"  # the senders' TCP (``sack``: the paper's; same jobs and seeds)

    @classmethod
    def quick(cls) -> PacketsParams:
        return cls(
            flows=(1, 2, 5, 10),
            buffers=(5, 50),
            thresholds=((3, 100),),
            threshold_flows=(1, 2, 5, 10),
            hold_sweep_rtts=(1.0, 1.5),
            hold_sweep_flows=(2,),
            replica_flows=(3,),
            replicas=3,
            duration=100.0,
            warmup=20.0,
            sync_flows=(10,),
            sync_buffers=(5,),
            sync_span=10.0,
            event_buffers=(5,),
            event_duration=80.0,
            validation_duration=400.0,
            loss_rates=(0.002, 0.01, 0.05),
            loss_duration=800.0,
            signal_buffers=(5, 20),
            signal_duration=200.0,
            workers=1,
        )


def grid_jobs(
    params: PacketsParams,
    kind: str,
    settings: Iterable[tuple[int, dict[str, Any]]],
    flows: Iterable[int] | None = None,
) -> list[Job]:
    """The unseeded jobs of a utilisation sweep (Figs. 7, 10, 11): per (buffer, dropper
    options) of ``settings``, one job per N of ``flows`` (default ``params.flows``)."""
    flows = tuple(params.flows if flows is None else flows)
    return [
        job(
            chapter_setup(params, n, chapter_queue(params, kind, buffer, **dropper)),
            queue=kind,
            buffer=buffer,
            **dropper,
        )
        for buffer, dropper in settings
        for n in flows
    ]


def _grid(
    params: PacketsParams,
    seed: int,
    kind: str,
    settings: Iterable[tuple[int, dict[str, Any]]],
    desc: str,
    flows: Iterable[int] | None = None,
) -> pd.DataFrame:
    jobs = grid_jobs(params, kind, settings, flows)
    table = pd.DataFrame([out.row for out in run_all(jobs, params.workers, seed, desc)])
    table["theorem1"] = altman.parallel_throughput(table["flows"].to_numpy(), 0.5)
    return table


def validation(params: PacketsParams, seed: int = 0) -> pd.DataFrame:
    """Two checks against theory: one flow with a 1-packet buffer (the 75% sawtooth) and N
    flows under RED (fair shares, Jain index near 1)."""
    duration, n = params.validation_duration, params.validation_flows
    one = chapter_setup(params, 1, chapter_queue(params, "droptail", 1), duration=duration)
    red = chapter_setup(params, n, chapter_queue(params, "red", 50), duration=duration)
    jobs = [
        job(one, case="one flow, 1-packet buffer", queue="droptail", buffer=1),
        job(red, case=f"{n} flows, RED", queue="red", buffer=50),
    ]
    table = pd.DataFrame([out.row for out in run_all(jobs, params.workers, seed, "validation")])
    table["theorem1"] = altman.parallel_throughput(table["flows"].to_numpy(), 0.5)
    return table


#: which jobs of a sweep to run (the others keep their seeds: :func:`.runs.run_all`)
Only = Callable[[Job], bool]

LOSS_RTO_S = 0.2  # the senders' min_rto: with a constant 120 ms RTT every RTO is clamped to it


def loss(params: PacketsParams, seed: int = 0, only: Only | None = None) -> pd.DataFrame:
    """One flow, large buffer, fast links, each bottleneck arrival dropped with probability
    p: goodput (packets/s) beside Mathis et al. (1997) and Padhye et al. (1998). ``only``
    runs only the p it accepts (each with its seed in the whole sweep)."""
    rate = params.loss_rate_mbps
    base = chapter_setup(
        params,
        1,
        chapter_queue(params, "droptail", params.loss_buffer),
        duration=params.warmup + params.loss_duration,
    )
    fast = replace(base.topology, rate_mbps=rate, access_mbps=rate, start_spread=0.0)
    jobs = [
        job(replace(base, topology=fast, queue=replace(base.queue, loss_rate=p)), p=p)
        for p in params.loss_rates
    ]
    outcomes = run_all(jobs, params.workers, seed, "loss", only)
    table = pd.DataFrame([out.row for out in outcomes])
    pkt_bits = params.packet_bytes * 8.0
    # propagation plus one transmission on the access link and one on the bottleneck
    rtt = 2e-3 * (params.delay_ms + params.access_delay_ms) + 2.0 * pkt_bits / (rate * 1e6)
    p = table["p"].to_numpy()
    table["rtt_s"] = rtt
    table["rate_pps"] = table["utilisation"] * rate * 1e6 / pkt_bits
    table["mathis_pps"] = mathis_rate(p, rtt)
    table["padhye_pps"] = padhye_rate(p, rtt, LOSS_RTO_S, max_window=params.max_window)
    table["vs_mathis"] = table["rate_pps"] / table["mathis_pps"]
    table["vs_padhye"] = table["rate_pps"] / table["padhye_pps"]
    columns = ["p", "rtt_s", "rate_pps", "mathis_pps", "padhye_pps", "vs_mathis", "vs_padhye"]
    return table[[*columns, "drop_rate", "timeouts", "packets"]]


def threshold_settings(params: PacketsParams) -> list[tuple[int, dict[str, Any]]]:
    """Fig. 11's (buffer, dropper options), per selection rule and (Th, b)."""
    return [
        (b, {"threshold": th, "select": select})
        for select in params.selections
        for th, b in params.thresholds
    ]


def droptail(params: PacketsParams, seed: int = 0) -> pd.DataFrame:
    """Fig. 7: utilisation vs N for DropTail with each buffer length, beside Theorem 1."""
    return _grid(params, seed, "droptail", ((b, {}) for b in params.buffers), "droptail")


def red(params: PacketsParams, seed: int = 0) -> pd.DataFrame:
    """Fig. 10: utilisation vs N for RED with each buffer length, beside Theorem 1."""
    return _grid(params, seed, "red", ((b, {}) for b in params.buffers), "red")


def threshold(params: PacketsParams, seed: int = 0) -> pd.DataFrame:
    """Fig. 11: the threshold-dropper for each (Th, b) and selection rule (``select``:
    ``random`` is rate-independent, Fig. 11 left; ``largest`` is largest-rate, right)."""
    settings = threshold_settings(params)
    return _grid(params, seed, "threshold", settings, "threshold", params.threshold_flows)


def hold(params: PacketsParams, seed: int = 0) -> pd.DataFrame:
    """The threshold-dropper's hold time: utilisation and time-outs against the hold, in
    RTTs, for each selection rule (Th = 3, b = 100).

    A dropped packet slows its connection down only about one RTT later (three duplicate
    ACKs). A hold shorter than that ends while the queue is still above the threshold, and the
    dropper signals again: often the same connection (largest-rate: it is still the largest),
    whose retransmission is then lost, a time-out. A long hold spaces the events more than the
    fluid model would, and the queue never drains.
    """
    jobs = [
        job(
            chapter_setup(
                params,
                n,
                chapter_queue(params, "threshold", 100, threshold=3, hold=h * RTT_S, select=select),
            ),
            select=select,
            hold_rtts=h,
        )  # fmt: skip
        for n in params.hold_sweep_flows
        for select in params.selections
        for h in params.hold_sweep_rtts
    ]
    table = pd.DataFrame([out.row for out in run_all(jobs, params.workers, seed, "hold")])
    table["theorem1"] = altman.parallel_throughput(table["flows"].to_numpy(), 0.5)
    columns = ["flows", "select", "hold_rtts", "utilisation", "theorem1", "timeouts"]
    return table[[*columns, "drop_rate", "packets"]]


def replicas(params: PacketsParams, seed: int = 0) -> pd.DataFrame:
    """Fig. 11's two policies over ``replicas`` independent seeds (Th = 3, b = 100), to
    tell a difference between the policies from the noise of one run.

    Rows (flows, select, replica, utilisation, theorem1, timeouts, drop_rate, packets).
    """
    jobs = [
        job(
            chapter_setup(params, n, chapter_queue(params, "threshold", 100, select=select)),
            select=select,
            replica=r,
        )
        for n in params.replica_flows
        for select in ("random", "largest")
        for r in range(params.replicas)
    ]
    table = pd.DataFrame([out.row for out in run_all(jobs, params.workers, seed, "replicas")])
    table["theorem1"] = altman.parallel_throughput(table["flows"].to_numpy(), 0.5)
    columns = ["flows", "select", "replica", "utilisation", "theorem1", "timeouts"]
    return table[[*columns, "drop_rate", "packets"]]


def policy_gap(table: pd.DataFrame) -> pd.DataFrame:
    """Per N: mean utilisation under each policy, their difference (largest-rate minus
    rate-independent) and its 95% confidence half-width (Welch's t with its degrees of
    freedom rounded down; the replicas of each policy are independent)."""
    rows = []
    for n, part in table.groupby("flows"):
        a = part[part["select"] == "random"]["utilisation"].to_numpy()
        b = part[part["select"] == "largest"]["utilisation"].to_numpy()
        var_a, var_b = a.var(ddof=1) / len(a), b.var(ddof=1) / len(b)
        se = float(np.sqrt(var_a + var_b))
        dof = (var_a + var_b) ** 2 / (
            var_a**2 / (len(a) - 1) + var_b**2 / (len(b) - 1) if se > 0 else 1.0
        )
        half = t975(max(int(dof), 1)) * se if se > 0 else 0.0
        rows.append(
            {
                "flows": int(n),
                "rate_independent": float(a.mean()),
                "largest_rate": float(b.mean()),
                "difference": float(b.mean() - a.mean()),
                "half_width": half,
                "replicas": len(a),
                "theorem1": float(part["theorem1"].iloc[0]),
            }
        )
    return pd.DataFrame(rows)


def run_setup(
    params: PacketsParams,
    flows: int,
    queue: str,
    buffer: int,
    *,
    duration: float,
    warmup: float,
    seed: int = 0,
    trace: bool = True,
    **dropper: Any,
) -> DumbbellResult:
    """One dumbbell run in the chapter's set-up (``params``) with ``queue`` and ``buffer``;
    ``dropper`` goes to the threshold-dropper (``threshold``, ``select``, ``hold``)."""
    discipline = chapter_queue(params, queue, buffer, **dropper)
    setup = chapter_setup(
        params, flows, discipline, duration=duration, warmup=warmup, trace=trace, seed=seed
    )
    return packet.run(setup)


def windows(params: PacketsParams, seed: int = 0) -> pd.DataFrame:
    """Figs. 8, 9 and 12: windows over ``sync_span`` seconds after the warm-up, resampled.

    Rows (queue, buffer, flows, time, flow, cwnd); ``flow = -1`` is the sum over flows.
    """
    settings: list[tuple[str, int, dict[str, Any]]] = [
        ("droptail", b, {}) for b in params.sync_buffers
    ]
    settings.append(("threshold", 100, {"threshold": 3}))
    duration = params.warmup + params.sync_span + 1.0
    jobs = [
        job(
            chapter_setup(
                params, n, chapter_queue(params, kind, buffer, **dropper), duration=duration
            ),
            "windows",
            queue=kind,
            buffer=buffer,
        )
        for kind, buffer, dropper in settings
        for n in params.sync_flows
    ]
    frames = []
    for out in run_all(jobs, params.workers, seed, "windows"):
        row = out.row
        both = window_frame(out.cwnd, params.warmup, params.sync_span, params.sync_step)
        frames.append(both.assign(queue=row["queue"], buffer=row["buffer"], flows=row["flows"]))
    table = pd.concat(frames, ignore_index=True)
    return table[["queue", "buffer", "flows", "time", "flow", "cwnd"]]


def event_jobs(params: PacketsParams) -> list[Job]:
    """The unseeded jobs of :func:`events`: N = ``event_flows`` under each DropTail buffer of
    ``event_buffers``, RED and the threshold-dropper (Th = 3, b = 100)."""
    settings: list[tuple[str, int, dict[str, Any]]] = [
        ("droptail", b, {}) for b in params.event_buffers
    ]
    settings += [("red", max(params.event_buffers), {}), ("threshold", 100, {"threshold": 3})]
    duration = params.warmup + params.event_duration
    return [
        job(
            chapter_setup(
                params,
                params.event_flows,
                chapter_queue(params, kind, buffer, **dropper),
                duration=duration,
            ),
            "events",
            queue=kind,
            buffer=buffer,
        )  # fmt: skip
        for kind, buffer, dropper in settings
    ]


def events(params: PacketsParams, seed: int = 0) -> pd.DataFrame:
    """Fig. 15: complementary distribution of the number of connections signalled per
    congestion event, N = ``event_flows``, for DropTail buffers, RED and the threshold-dropper.

    ``mean_m`` counts from the senders' window reductions (what the connections see);
    ``mean_m_drops`` and ``events_drops`` from the bottleneck's own drop log, drops less than
    the same gap apart forming one event (what the queue did).
    """
    rows = []
    for out in run_all(event_jobs(params), params.workers, seed, "events"):
        row = out.row
        cwnd = out.cwnd
        signals = loss_signals(cwnd[cwnd["time"] >= params.warmup])
        counts = congestion_events(signals)
        dropped = out.dropped
        by_drops = congestion_events(dropped[dropped["time"] >= params.warmup])
        for m in range(1, params.event_flows + 1):
            rows.append(
                {
                    "queue": row["queue"],
                    "buffer": row["buffer"],
                    "m": m,
                    "ccdf": float(np.mean(counts >= m)) if len(counts) else float("nan"),
                    "mean_m": float(np.mean(counts)) if len(counts) else float("nan"),
                    "events": len(counts),
                    "mean_m_drops": float(np.mean(by_drops)) if len(by_drops) else float("nan"),
                    "events_drops": len(by_drops),
                }
            )
    return pd.DataFrame(rows)


def signalled(params: PacketsParams, seed: int = 0, only: Only | None = None) -> pd.DataFrame:
    """Figs. 13 and 14: the empirical probability z(w) that a connection is signalled in a
    congestion event given its window w (whole packets) just before it, N = ``signal_flows``,
    DropTail (Fig. 13) and RED (Fig. 14).

    Rows (queue, buffer, window, samples, hits, z, rho, mean_z, events, early_drops):
    ``rho`` is the (queue, buffer)'s Spearman rank correlation of z(w) with w over the windows
    seen at least ``signal_min_samples`` times, ``mean_z`` the overall fraction signalled
    (what a rate-independent policy gives every w), ``early_drops`` RED's early (not forced)
    drops in the run. ``only`` runs only the (queue, buffer) it accepts (with their seeds in
    the whole grid).
    """
    duration = params.warmup + params.signal_duration
    jobs = [
        job(
            chapter_setup(
                params, params.signal_flows, chapter_queue(params, kind, b), duration=duration
            ),
            "windows",
            queue=kind,
            buffer=b,
        )
        for kind in params.signal_queues
        for b in params.signal_buffers
    ]
    frames = []
    for out in run_all(jobs, params.workers, seed, "signalled", only):
        samples = signal_samples(out.cwnd, params.warmup)
        samples["window"] = np.floor(samples["window"]).astype(int)
        table = (
            samples.groupby("window")["signalled"]
            .agg(samples="size", hits="sum")
            .reset_index()
            .assign(queue=out.row["queue"], buffer=out.row["buffer"])
        )
        table["z"] = table["hits"] / table["samples"]
        kept = table[table["samples"] >= params.signal_min_samples]
        table["rho"] = spearman(kept["window"].to_numpy(), kept["z"].to_numpy())
        table["mean_z"] = float(samples["signalled"].mean())
        table["events"] = int(samples["event"].nunique())
        table["early_drops"] = out.row.get("red_early_drops", 0)
        frames.append(table)
    table = pd.concat(frames, ignore_index=True)
    columns = ["queue", "buffer", "window", "samples", "hits", "z", "rho", "mean_z", "events"]
    return table[[*columns, "early_drops"]]
