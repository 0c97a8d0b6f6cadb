"""Does RED give each flow the same loss rate? (Morris, Sec. 2: RED "ensures that each flow
sees the same packet loss rate".)

RED drops an arriving packet with a probability that depends on the average queue, not on
the packet's flow, so over a run every flow should lose the same share of what it sends, up to
the sampling noise of counting drops; DropTail, which drops what arrives at a full buffer,
lets a flow whose packets tend to come at the wrong moment lose more (phase effects). The
experiment runs Figure 2's set-up under both queues and keeps, per greedy flow, the packets it
sent and the drops it suffered after the warm-up.

The spread is measured against sampling alone: with ``n_i`` packets sent and ``d_i`` drops,
the chi-square statistic of equal rates ``X^2 = sum (d_i - n_i p)^2 / (n_i p (1 - p))`` (``p``
the run's pooled rate) has about N - 1 degrees of freedom when the rates are equal and drops
independent, so its *dispersion* ``X^2 / (N - 1)`` is near 1; larger means the flows' loss
rates differ beyond what counting drops explains.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import pandas as pd

from tcplab.claims import Claim, holds
from tcplab.tasks import run_tasks

from .runs import Job, job, job_seed, morris_setup
from .topology import run_morris

__all__ = ["FlowLossParams", "claim_rows", "dispersion", "flow_loss"]


@dataclass(frozen=True)
class FlowLossParams:
    """Figure 2's set-up at each N of ``flows`` under each of ``queues``, ``replicas`` runs
    of ``seconds`` (the first ``warmup`` not counted)."""

    flows: tuple[int, ...] = (30, 100, 300)
    queues: tuple[str, ...] = ("red", "droptail")
    replicas: int = 2
    seconds: float = 200.0
    warmup: float = 20.0
    workers: int = 2

    @classmethod
    def quick(cls) -> FlowLossParams:
        return cls(flows=(30,), replicas=1, seconds=25.0, warmup=5.0, workers=1)


def _flows(work: Job) -> list[dict[str, Any]]:
    """One run: a row per greedy flow (its labels, packets sent and drops after the
    warm-up)."""
    run = run_morris(work.setup)
    n, warmup = run.flows, work.setup.length.warmup
    sent = run.flow_table["sent"].to_numpy()[:n]
    counted = run.drop_flow[run.drop_time >= warmup].astype(np.int64)
    drops = np.bincount(counted, minlength=len(run.flow_table))[:n]
    labels = {**dict(work.labels), "replica": work.replica, "seed": work.setup.seed}
    return [{**labels, "flow": i, "sent": int(sent[i]), "drops": int(drops[i])} for i in range(n)]


def flow_loss(params: FlowLossParams, seed: int = 0) -> pd.DataFrame:
    """Rows (queue, flows, replica, seed, flow, sent, drops), one per greedy flow per run;
    a run's seed is the chapter's (:func:`~tcplab.chapters.morris.runs.job_seed`), so the
    two queues of one (N, replica) see the same delays, starts and keystrokes."""
    jobs = [
        job(
            morris_setup(n, queue=queue, seconds=params.seconds, warmup=params.warmup),
            r,
            queue=queue,
            flows=n,
        )  # fmt: skip
        for queue in params.queues
        for n in params.flows
        for r in range(params.replicas)
    ]
    seeded = [replace(w, setup=replace(w.setup, seed=job_seed(seed, w))) for w in jobs]
    runs = run_tasks(_flows, seeded, workers=params.workers, desc="morris flow loss")
    return pd.DataFrame([row for rows in runs for row in rows])


def dispersion(run: pd.DataFrame) -> float:
    """``X^2 / (N - 1)`` of one run's flows (see the module docstring): near 1 when every
    flow has the same loss rate and the drops are independent."""
    sent = run["sent"].to_numpy(dtype=float)
    drops = run["drops"].to_numpy(dtype=float)
    p = drops.sum() / sent.sum()
    chi2 = float(((drops - sent * p) ** 2 / (sent * p * (1.0 - p))).sum())
    return chi2 / (len(run) - 1)


def dispersions(table: pd.DataFrame) -> pd.DataFrame:
    """One row per run (queue, flows, replica, dispersion, loss_rate)."""
    rows = [
        {
            "queue": q,
            "flows": n,
            "replica": r,
            "dispersion": dispersion(run),
            "loss_rate": run["drops"].sum() / run["sent"].sum(),
        }  # fmt: skip
        for (q, n, r), run in table.groupby(["queue", "flows", "replica"], sort=False)
    ]
    return pd.DataFrame(rows)


def claim_rows(table: pd.DataFrame) -> dict[str, Any]:
    """The chapter's row for Sec. 2's statement (empty without the table)."""
    if table.empty:
        return {}

    def red_equal_loss() -> Claim:
        runs = dispersions(table).pivot_table(
            index=["flows", "replica"], columns="queue", values="dispersion"
        )
        return holds(
            "RED: the flows' loss rates over a run differ less than under DropTail (dispersion"
            " of the per-flow loss rates, at every N and run)",
            bool((runs["red"] < runs["droptail"]).all()),
            "the book's runs (N = 30, 100, 300; two runs each)",
        )

    return {"red-equal-loss": red_equal_loss}
