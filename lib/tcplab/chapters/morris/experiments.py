"""TCP with many flows (Morris 1997): the figures' sweeps on Morris's set-up.

Every run is Figure 2's set-up (:func:`~tcplab.chapters.morris.runs.morris_setup`): 200 s runs
with a 20 s warm-up, as the paper's; each point is ``replicas`` independent runs (seeded by N
and replica, so the variants of one point are paired). The tables are tidy: one row per run,
with its measures (:func:`~tcplab.chapters.morris.measures.summarise`) flattened into columns:
``n0`` .. ``n6`` the flows in each back-off stage, ``q0`` .. ``q6`` the loss of each stage's
retransmissions, ``h00`` .. the per-second bandwidth histogram (bins of
:data:`~tcplab.chapters.morris.analysis.HISTOGRAM_EDGES`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from .analysis import HISTOGRAM_EDGES
from .runs import Job, job, morris_setup, run_all

__all__ = [
    "MorrisParams",
    "CHOICES",
    "flatten",
    "loss",
    "series",
    "buffers_few",
    "buffers_many",
    "remedies",
    "choices",
]

#: the paper-silent choices of the set-up, each as morris_setup keywords (our choice first)
CHOICES: dict[str, dict[str, Any]] = {
    "as built (our choices)": {},
    "no telnet sessions": {"telnet": 0},
    "telnet keystrokes every 0.1 s": {"telnet_gap_s": 0.1},
    "RED w_q = 0.001": {"red": {"w_q": 0.001}},
    "RED w_q = 0.004": {"red": {"w_q": 0.004}},
    "RED without wait": {"red": {"wait": False}},
    "receiver-side links": {"receiver_links": True},
    "send jitter U(0, 1 ms)": {"overhead_ms": 1.0},
    "delayed ACK within 200 ms": {"delayed_ack_ms": 200.0},
    # what-ifs, not choices the paper leaves open: an early RED, and Lemma 2's assumption
    "RED: no forced drops above max_th": {"red_forced": False},
    "back-off ends at the first new ACK": {"tcp_options": {"reset_backoff": True}},
}


@dataclass(frozen=True)
class MorrisParams:
    """The grids of the paper's figures; the set-up itself is Figure 2 (see runs.py)."""

    flows: tuple[int, ...] = (
        1, 2, 3, 5, 8, 10, 15, 20, 30, 40, 50, 60, 100, 200, 300, 400, 700, 1000, 1500,
        2000, 3000, 5000, 10000,
    )  # fmt: skip
    replicas: int = 3
    seconds: float = 200.0  # Figs. 4, 6-8, as the paper
    warmup: float = 20.0
    series_seconds: float = 200.0  # Figs. 3 and 5, as the paper
    sweep_seconds: float = 200.0  # the buffer sweeps, remedies and choices
    sweep_replicas: int = 2  # ... and their runs per point
    series_flows: tuple[int, ...] = (30, 1500)  # Figs. 3 and 5
    series_shown: tuple[int, ...] = (0, 1, 2)  # the flows whose seconds are kept
    few_flows: int = 30  # Fig. 9
    few_buffers: tuple[int, ...] = (25, 50, 100, 217, 434, 1000)
    many_flows: int = 500  # Fig. 10
    many_buffers: tuple[int, ...] = (217, 500, 1000, 1500, 1750, 2000, 2500, 5000)
    remedy_flows: tuple[int, ...] = (30, 300, 700)
    # (sender, queue): Tahoe as in the paper, NewReno, SACK, DropTail, and Morris's remedies
    variants: tuple[tuple[str, str], ...] = (
        ("tahoe", "red"),
        ("newreno", "red"),
        ("sack", "red"),
        ("tahoe", "droptail"),
        ("tahoe-backoff4", "red"),
        ("tahoe-paced", "red"),
        ("tahoe-slowgrowth", "red"),
    )
    choice_flows: tuple[int, ...] = (300,)
    choices: tuple[str, ...] = (
        "as built (our choices)",
        "no telnet sessions",
        "RED w_q = 0.001",
        "RED without wait",
        "receiver-side links",
        "delayed ACK within 200 ms",
        "RED: no forced drops above max_th",
        "back-off ends at the first new ACK",
    )
    workers: int = 2

    @classmethod
    def quick(cls) -> MorrisParams:
        return cls(
            flows=(10, 20, 30, 60, 250, 350, 1500),
            replicas=2,
            seconds=25.0,
            warmup=5.0,
            series_seconds=25.0,
            sweep_seconds=25.0,
            sweep_replicas=1,
            series_flows=(30, 1500),
            series_shown=(0,),
            few_buffers=(25, 217),
            many_buffers=(217, 1500, 2000, 5000),
            remedy_flows=(300,),
            many_flows=500,
            variants=cls.variants,  # every sender and queue, and every choice: the
            choice_flows=(300,),  # restamp canary takes each one's code path
            choices=cls.choices,
        )


def flatten(row: dict[str, Any]) -> dict[str, Any]:
    """A run's measures as flat columns: lists become numbered columns, the rest stays."""
    out: dict[str, Any] = {}
    names = {"backoff_stages": "n", "stage_loss": "q", "stage_counts": "c"}
    for key, value in row.items():
        if key in names:
            out.update({f"{names[key]}{i}": v for i, v in enumerate(value)})
        elif key == "window_at_fr":
            for i, name in enumerate(("fr_p25", "fr_p50", "fr_p75")):
                out[name] = np.nan if value is None else value[i]
        elif key == "hist":
            out.update({f"h{i:02d}": v for i, v in enumerate(value)})
        elif key == "remedies":
            continue  # the row's sender names them
        else:
            out[key] = np.nan if value is None else value
    return out


def _table(params: MorrisParams, seed: int, jobs: Iterable[Job], desc: str) -> pd.DataFrame:
    rows = run_all(list(jobs), params.workers, seed, desc)
    for row in rows:
        row.pop("wall_s", None)  # not a result: tables must not depend on the machine's load
    return pd.DataFrame([flatten(row) for row in rows])


def _setup(params: MorrisParams, flows: int, sweep: bool = False, **options: Any) -> Any:
    seconds = params.sweep_seconds if sweep else params.seconds
    return morris_setup(flows, seconds=seconds, warmup=params.warmup, **options)


def loss(params: MorrisParams, seed: int = 0) -> pd.DataFrame:
    """Figs. 7 and 8 and Sections 5-7: every measure against N, ``replicas`` runs per N,
    with each run's per-second bandwidth histogram (Figs. 4 and 6 for every N)."""
    jobs = (
        job(_setup(params, n), r, histogram=True, sender="tahoe")
        for n in params.flows
        for r in range(params.replicas)
    )
    return _table(params, seed, jobs, "morris loss")


def series(params: MorrisParams, seed: int = 0) -> pd.DataFrame:
    """Figs. 3 and 5: the packets that flows ``series_shown`` received in each second of
    one run (from t = 0, start-up included) for each N of ``series_flows``; ``share`` is
    the bandwidth in fair shares. Rows (flows, flow, second, packets, share)."""
    jobs = [
        job(
            morris_setup(n, seconds=params.series_seconds, warmup=params.warmup),
            0,
            series=params.series_shown,
            sender="tahoe",
        )
        for n in params.series_flows
    ]
    frames = []
    for row in run_all(jobs, params.workers, seed, "morris series"):
        n, ticks = row["flows"], np.asarray(row["series_ticks"])
        fair = 10e6 / (8.0 * 576) / n  # packets per second (Figure 2's link and packets)
        for flow, counts in row["series"].items():
            packets = np.diff(np.asarray(counts))
            frames.append(
                pd.DataFrame(
                    {
                        "flows": n,
                        "flow": int(flow),
                        "second": ticks[1:],
                        "packets": packets,
                        "share": packets / (fair * np.diff(ticks)),
                    }
                )
            )
    return pd.concat(frames, ignore_index=True)


def _buffers(params: MorrisParams, seed: int, flows: int, buffers: Iterable[int],
             desc: str) -> pd.DataFrame:  # fmt: skip
    jobs = (
        job(_setup(params, flows, True, buffer=b), r, sender="tahoe")
        for b in buffers
        for r in range(params.sweep_replicas)
    )
    return _table(params, seed, jobs, desc)


def buffers_few(params: MorrisParams, seed: int = 0) -> pd.DataFrame:
    """Fig. 9: ``few_flows`` (30) TCPs, bottleneck utilisation against the buffer (RED's
    thresholds at a quarter and a half of it)."""
    return _buffers(params, seed, params.few_flows, params.few_buffers, "morris fig. 9")


def buffers_many(params: MorrisParams, seed: int = 0) -> pd.DataFrame:
    """Fig. 10: ``many_flows`` (500) TCPs, drop rate and seconds under 5% of the fair share
    against the buffer."""
    return _buffers(params, seed, params.many_flows, params.many_buffers, "morris fig. 10")


def remedies(params: MorrisParams, seed: int = 0) -> pd.DataFrame:
    """Beyond the paper: Fig. 7 for each (sender, queue) of ``variants``."""
    jobs = (
        job(_setup(params, n, True, sender=sender, queue=queue), r, sender=sender, queue=queue)
        for sender, queue in params.variants
        for n in params.remedy_flows
        for r in range(params.sweep_replicas)
    )
    return _table(params, seed, jobs, "morris remedies")


def choices(params: MorrisParams, seed: int = 0) -> pd.DataFrame:
    """What the paper leaves open, choice by choice (:data:`CHOICES`): the loss rate and the
    other measures for each N of ``choice_flows``."""
    jobs = (
        job(_setup(params, n, True, **CHOICES[name]), r, choice=name, sender="tahoe")
        for name in params.choices
        for n in params.choice_flows
        for r in range(params.sweep_replicas)
    )
    return _table(params, seed, jobs, "morris choices")


def histogram_edges() -> np.ndarray:
    """The left edges of the histogram columns ``h00``, ``h01``, ... (fair shares)."""
    return HISTOGRAM_EDGES[:-1]
