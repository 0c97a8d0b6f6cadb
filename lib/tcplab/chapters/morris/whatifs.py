"""The referee round's what-if runs: each removes one cause the chapter names.

Every run is Figure 2's set-up (:func:`~tcplab.chapters.morris.runs.morris_setup`) with router
A's queue metered (:class:`~tcplab.chapters.morris.meter.MeteredQueue`: ``mean_queue``, the
packets an arrival finds waiting) and Section 7.2's loss episodes counted under several gap
rules (``episodes_g<k>``: episodes per second when drops less than k mean RTTs apart are one
episode; ``dpf_g<k>``: drops per flow hit per episode). Runs are seeded like the chapter's
other tables (by N and replica), so replica r of a configuration here is replica r there.

* :func:`setups`: the queue choices the paper leaves open (ns-2's RED as built, RED without
  forced drops, gentle RED, DropTail) at N = 30, 300 and 1500;
* :func:`access`: beyond 1500 flows, access links no slower than at N = 1500 (a floor),
  beside as built;
* :func:`episodes`: the episode measure's dependence on its gap rule, 10 <= N <= 60;
* :func:`scaled`: the N^2 law with its cause removed: link rate and buffer grow with N, so each
  flow's share of the storage (its window) stays that of 30 flows;
* :func:`buffers_more`: Fig. 10 with more runs where the paper sees an irregularity and
  buffers past ten per TCP.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any

import pandas as pd

from . import analysis
from .experiments import flatten
from .measures import summarise
from .meter import MeteredQueue
from .runs import Job, job, job_seed, morris_setup
from .topology import run_morris

__all__ = [
    "WhatIfParams",
    "SETUPS",
    "GAPS",
    "metered",
    "setups",
    "access",
    "episodes",
    "scaled",
    "buffers_more",
]

#: router A as the paper leaves it open: name -> (queue, RED options, forced drops)
SETUPS: dict[str, tuple[str, dict[str, Any], bool]] = {
    "as built (ns-2 RED)": ("red", {}, True),
    "RED without forced drops": ("red", {}, False),
    "gentle RED": ("red", {"gentle": True}, True),
    "DropTail": ("droptail", {}, True),
}
#: the gap rules of Section 7.2's episodes, in mean smoothed RTTs (1 = the chapter's rule)
GAPS: tuple[float, ...] = (0.25, 0.5, 1.0, 2.0, 4.0)
#: the access links' slowest rate in the access-floor what-if: as at this N (Mb/s = 100/N)
FLOOR_FLOWS = 1500


@dataclass(frozen=True)
class WhatIfParams:
    """The what-ifs' grids: 100 s runs with a 20 s warm-up (half the paper's length, to keep
    the what-ifs within the book's compute budget), Fig. 10's at the paper's 200 s so that
    they pool with morris-buffers-many's."""

    seconds: float = 100.0
    warmup: float = 20.0
    sweep_seconds: float = 200.0  # buffers_more, as morris-buffers-many
    setup_flows: tuple[int, ...] = (30, 300, 1500)
    setup_replicas: int = 3
    setups: tuple[str, ...] = tuple(SETUPS)
    access_flows: tuple[int, ...] = (3000,)
    access_replicas: int = 2
    episode_flows: tuple[int, ...] = (10, 20, 30, 40, 60)
    episode_replicas: int = 2
    scaled_flows: tuple[int, ...] = (10, 20, 30, 40, 60)
    scaled_replicas: int = 2
    scaled_reference: int = 30  # the N whose per-flow share every scaled run keeps
    many_flows: int = 500
    bump_buffers: tuple[int, ...] = (1500, 1750, 2000)
    bump_replicas: tuple[int, ...] = (2, 3)  # morris-buffers-many has replicas 0 and 1
    wide_buffers: tuple[int, ...] = (7500, 10000)
    wide_replicas: tuple[int, ...] = (0, 1)
    workers: int = 2

    @classmethod
    def quick(cls) -> WhatIfParams:
        return cls(
            seconds=10.0,
            warmup=3.0,
            sweep_seconds=10.0,
            setup_flows=(30, 300),
            setup_replicas=1,
            access_flows=(3000,),
            access_replicas=1,
            episode_flows=(10, 30, 60),
            episode_replicas=1,
            scaled_flows=(10, 30, 60),
            scaled_replicas=1,
            bump_buffers=(1500, 2000),
            bump_replicas=(2,),
            wide_buffers=(7500,),
            wide_replicas=(0,),
        )


def metered(setup: Any, forced: bool = True) -> Any:
    """``setup`` with its queue metered after the warm-up (``forced=False``: RED without
    forced drops)."""
    q = setup.queue
    queue = MeteredQueue(**{f: getattr(q, f) for f in q.__dataclass_fields__},
                         warmup=setup.length.warmup, forced=forced)  # fmt: skip
    return replace(setup, queue=queue)


def _gap_columns(run: Any, mean_rtt: float, gaps: Sequence[float]) -> dict[str, float]:
    length = run.setup.length
    after = run.drop_time >= length.warmup
    span = length.duration - length.warmup
    out: dict[str, float] = {}
    for k in gaps:
        gap = k * mean_rtt if math.isfinite(mean_rtt) else k * 0.1
        stats = analysis.episode_stats(run.drop_time[after], run.drop_flow[after], gap, span)
        out[f"episodes_g{k:g}"] = stats["episodes_per_s"]
        out[f"dpf_g{k:g}"] = stats["drops_per_flow_episode"]
    return out


def _one(work: Job) -> dict[str, Any]:
    run = run_morris(work.setup)
    row = {**dict(work.labels), "replica": work.replica, **summarise(run)}
    queue = work.setup.queue
    if not isinstance(queue, MeteredQueue):
        raise ValueError(f"queue={type(queue).__name__} is not a MeteredQueue")
    meter = queue.meters[-1]
    row["mean_queue"] = meter.mean_queue
    row["full_share"] = meter.full / meter.seen if meter.seen else math.nan
    row["access_kbps"] = run.topology.access_mbps * 1e3
    row.update(_gap_columns(run, float(row["mean_rtt"]), GAPS))
    row.pop("wall_s", None)  # not a result: tables must not depend on the machine's load
    return row


def _table(params: WhatIfParams, seed: int, jobs: Iterable[Job], desc: str) -> pd.DataFrame:
    from tcplab.tasks import run_tasks

    seeded = [replace(w, setup=replace(w.setup, seed=job_seed(seed, w))) for w in jobs]
    rows = run_tasks(_one, seeded, workers=params.workers, desc=desc)
    return pd.DataFrame([flatten(row) for row in rows])


def _setup(
    params: WhatIfParams, flows: int, forced: bool = True, sweep: bool = False, **options: Any
) -> Any:
    seconds = params.sweep_seconds if sweep else params.seconds
    base = morris_setup(flows, seconds=seconds, warmup=params.warmup, **options)
    return metered(base, forced)


def setups(params: WhatIfParams, seed: int = 0) -> pd.DataFrame:
    """Router A's open choices (:data:`SETUPS`) at each N of ``setup_flows``: loss beside the
    mean queue and the mean RTT."""
    jobs = []
    for name in params.setups:
        kind, red, forced = SETUPS[name]
        extra = {"red": red} if red else {}
        for n in params.setup_flows:
            for r in range(params.setup_replicas):
                setup = _setup(params, n, forced, queue=kind, **extra)  # type: ignore[arg-type]
                jobs.append(job(setup, r, setup_choice=name, sender="tahoe"))
    return _table(params, seed, jobs, "morris setups")


def access(params: WhatIfParams, seed: int = 0) -> pd.DataFrame:
    """Beyond :data:`FLOOR_FLOWS` flows, as built and with access links no slower than
    100/1500 Mb/s (each keeps ten fair shares of N = 1500; ``access`` names the variant);
    every other setting as built, the two variants paired (same N, replica and seed)."""
    jobs = []
    for name in ("as built", "floor"):
        for n in params.access_flows:
            ratio = 10.0 * max(1.0, n / FLOOR_FLOWS) if name == "floor" else 10.0
            for r in range(params.access_replicas):
                setup = _setup(params, n, access_ratio=ratio)
                jobs.append(job(setup, r, access=name, sender="tahoe"))
    return _table(params, seed, jobs, "morris access floor")


def episodes(params: WhatIfParams, seed: int = 0) -> pd.DataFrame:
    """Section 7.2's episodes under each gap rule of :data:`GAPS`, at each N of
    ``episode_flows`` (as built; runs paired with morris-loss's)."""
    jobs = (
        job(_setup(params, n), r, sender="tahoe")
        for n in params.episode_flows
        for r in range(params.episode_replicas)
    )
    return _table(params, seed, jobs, "morris episodes")


def scaled_options(flows: int, reference: int = 30) -> dict[str, Any]:
    """Link rate and buffer for ``flows`` flows that keep each flow's share of ``reference``
    flows: 10 Mb/s and 217 packets times flows/reference (RED's thresholds follow the
    buffer; the access links keep ten fair shares)."""
    scale = flows / reference
    return {"rate_mbps": 10.0 * scale, "buffer": max(4, round(217 * scale))}


def scaled(params: WhatIfParams, seed: int = 0) -> pd.DataFrame:
    """The N^2 law's cause removed: capacity and buffer grow with N (:func:`scaled_options`),
    so every flow's window is that of ``scaled_reference`` flows."""
    jobs = (
        job(
            _setup(params, n, **scaled_options(n, params.scaled_reference)),
            r,
            share="fixed",
            sender="tahoe",
        )  # fmt: skip
        for n in params.scaled_flows
        for r in range(params.scaled_replicas)
    )
    return _table(params, seed, jobs, "morris fixed share")


def buffers_more(params: WhatIfParams, seed: int = 0) -> pd.DataFrame:
    """Fig. 10 (``many_flows`` TCPs), more runs: replicas ``bump_replicas`` at the buffers of
    the paper's irregularity (morris-buffers-many has replicas 0 and 1), and buffers past ten
    per TCP (``wide_buffers``)."""
    points = [(b, r) for b in params.bump_buffers for r in params.bump_replicas]
    points += [(b, r) for b in params.wide_buffers for r in params.wide_replicas]
    jobs = (job(_setup(params, params.many_flows, sweep=True, buffer=b), r, sender="tahoe")
            for b, r in points)  # fmt: skip
    return _table(params, seed, jobs, "morris fig. 10, more")
