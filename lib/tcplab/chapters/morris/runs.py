"""The chapter's runs: Morris's parameters as a set-up, typed jobs for a process pool.

:func:`morris_setup` is Figure 2 as a :class:`~tcplab.packet.PacketSetup`: Tahoe with 576-byte
packets, a 64 KB window (113 packets), a 0.5 s timer granularity and a 1 s minimum time-out;
receivers that ACK every other packet (at most 100 ms late, ns's delayed-ACK sink); RED with
217 packets of buffer, thresholds at a quarter and a half of it, a maximum drop probability of
0.002 and ns-2's averaging weight 0.002 and ``wait``; 200 s runs of which the first 20 are a
warm-up. A sender is named by its variant and remedy (:data:`SENDERS`). A :class:`Job` is a
set-up and the labels of its table row; :func:`run_all` runs jobs through
:func:`tcplab.tasks.run_tasks` (a process pool, or a cluster), each
seeded by its number of flows and its replica (so the same replica of every variant of a
configuration sees the same delays, start times and telnet keystrokes: paired comparisons),
and keeps only the measures.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from tcplab.checks import check_choice, check_int
from tcplab.packet import PacketSetup, Probes, QueueSetup, RunLength, TcpConfig
from tcplab.packet.remedies import REMEDIES, RemedyConfig, remedy_config
from tcplab.tasks import run_tasks

from .measures import summarise
from .topology import MorrisTopology, run_morris

__all__ = [
    "SENDERS",
    "RED_DEFAULTS",
    "morris_tcp",
    "morris_queue",
    "morris_setup",
    "Job",
    "job",
    "job_seed",
    "run_all",
]

#: every sender the chapter runs: a TCP variant, or Tahoe with one of Morris's remedies
SENDERS = ("tahoe", "reno", "newreno", "sack", *(f"tahoe-{name}" for name in REMEDIES))
#: RED as Figure 2 gives it, plus ns-2's defaults for what it does not give
RED_DEFAULTS: dict[str, Any] = {"max_p": 0.002, "w_q": 0.002, "wait": True}


def morris_tcp(sender: str = "tahoe", **options: Any) -> TcpConfig:
    """Figure 2's sender: ``tahoe``, ``reno``, ``newreno``, ``sack`` or ``tahoe-<remedy>``;
    ``options`` are further :class:`~tcplab.packet.remedies.RemedyConfig` fields (a what-if
    such as ``reset_backoff=True``)."""
    check_choice("tcp", sender, SENDERS)
    variant, _, remedy = sender.partition("-")
    base = TcpConfig(variant=variant, packet_bytes=576, max_window=65536 // 576,
                     granularity=0.5, min_rto=1.0)  # fmt: skip
    config = remedy_config(remedy, base) if remedy else base
    if not options:
        return config
    names = [f for f in RemedyConfig.__dataclass_fields__ if hasattr(config, f)]
    return RemedyConfig(**{**{f: getattr(config, f) for f in names}, **options})


def morris_queue(kind: str = "red", buffer: int = 217, **red: Any) -> QueueSetup:
    """Router A: RED with thresholds at buffer/4 and buffer/2 (54 and 108 for 217) and
    :data:`RED_DEFAULTS` unless ``red`` overrides them, or DropTail."""
    check_choice("queue", kind, ("red", "droptail"))
    if kind == "droptail":
        return QueueSetup("droptail", check_int("buffer", buffer, 1))
    b = check_int("buffer", buffer, 4)
    options = {"min_th": float(b // 4), "max_th": float(b // 2), **RED_DEFAULTS, **red}
    return QueueSetup("red", b, **options)


def morris_setup(
    flows: int,
    *,
    buffer: int = 217,
    queue: str = "red",
    sender: str = "tahoe",
    seconds: float = 200.0,
    warmup: float = 20.0,
    seed: int = 0,
    delayed_ack_ms: float = 100.0,
    red: dict[str, Any] | None = None,
    tcp_options: dict[str, Any] | None = None,
    **topology: Any,
) -> PacketSetup:
    """Figure 2's set-up with ``flows`` greedy senders (``red`` overrides RED's options,
    ``tcp_options`` the sender's, ``topology`` sets the other fields of
    :class:`MorrisTopology`: ``telnet``, ``receiver_links``, ...)."""
    top: Any = MorrisTopology(flows, **topology)  # PacketSetup's annotation names the dumbbell
    return PacketSetup(
        topology=top,
        queue=morris_queue(queue, buffer, **(red or {})),
        tcp=morris_tcp(sender, **(tcp_options or {})),
        length=RunLength(seconds, warmup),
        probes=Probes(trace=False),
        delayed_ack_ms=delayed_ack_ms,
        seed=seed,
    )


@dataclass(frozen=True)
class Job:
    """One run: its set-up, its replica number, the labels its table row starts with, and
    what else to keep: the per-second histogram (``histogram``) and the delivered packets of
    flows ``series`` at every tick."""

    setup: PacketSetup
    replica: int = 0
    labels: tuple[tuple[str, Any], ...] = ()
    histogram: bool = False
    series: tuple[int, ...] = ()


def job(setup: PacketSetup, replica: int = 0, *, histogram: bool = False,
        series: Sequence[int] = (), **labels: Any) -> Job:  # fmt: skip
    """A :class:`Job`; ``labels`` in the order the row's columns should have."""
    return Job(setup, check_int("replica", replica, 0), tuple(labels.items()), histogram,
               tuple(series))  # fmt: skip


def job_seed(seed: int, work: Job) -> int:
    """The seed of ``work``'s run: from ``seed``, its number of flows and its replica."""
    entropy = [check_int("seed", seed, 0), work.setup.topology.flows, work.replica]
    return int(np.random.SeedSequence(entropy).generate_state(1)[0])


def _one(work: Job) -> dict[str, Any]:
    from .measures import flow_seconds

    run = run_morris(work.setup)
    row = {**dict(work.labels), "replica": work.replica,
           **summarise(run, histogram=work.histogram)}  # fmt: skip
    if work.series:
        row["series"] = {f: run.unique[:, f].tolist() for f in work.series}
        row["series_ticks"] = run.ticks.tolist()
        row["series_after"] = flow_seconds(run)[:, list(work.series)].tolist()
    return row


def run_all(jobs: Sequence[Job], workers: int, seed: int, desc: str) -> list[dict[str, Any]]:
    """Run every job with its :func:`job_seed` on ``workers`` processes (or wherever
    :func:`tcplab.tasks.run_tasks` sends them); the rows come back in the order of ``jobs``,
    each with its ``replica``."""
    seeded = [replace(work, setup=replace(work.setup, seed=job_seed(seed, work))) for work in jobs]
    return run_tasks(_one, seeded, workers=workers, desc=desc)
