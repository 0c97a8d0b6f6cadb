"""Lemma 3 with one p: Morris's network against a what-if whose retransmission loss is the same
at every back-off stage.

Morris's Lemma 3, ``n_i = (2p)^i n_0``, expands Lemma 2 (``n_i = 2p n_{i-1}``) with one loss
rate p for every stage. In the book's runs the loss of a stage-i retransmission, q_i, grows with
the stage, so the expansion with the stage-0 value undercounts the later stages. The what-if
removes that cause: router A keeps every arrival (a DropTail buffer no window fills) and the
link drops each packet independently with probability ``loss_rate``, so a retransmission is lost
with the same probability whatever its stage. Both arms end the back-off at the first new ACK
(Lemma 2's own assumption, the chapter's ``back-off ends at the first new ACK``), Tahoe,
Figure 2's set-up otherwise; each replica's runs share a seed (paired arms).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from tcplab.packet.setup import QueueSetup

from .experiments import flatten
from .runs import job, morris_setup, run_all

__all__ = ["ARMS", "Lemma3Params", "lemma3", "one_p_ratios"]

#: the arms of the table: the cause present (Morris's network), and removed
ARMS = ("Morris's network (RED)", "independent loss, same at every stage")
#: Lemma 2's assumption, in both arms (the sender's option of experiments.CHOICES)
RESET = {"reset_backoff": True}


@dataclass(frozen=True)
class Lemma3Params:
    """N flows, the what-if's loss rate, and the runs (200 s, as the paper's)."""

    flows: int = 300
    loss_rate: float = 0.25  # 2p = 1/2: stage 3 still holds n_0/8 flows
    buffer: int = 100_000  # the what-if's router A: no window fills it
    replicas: int = 12  # 6 left Lemma 3 undecided in Morris's network (two regimes of runs)
    seconds: float = 200.0
    warmup: float = 20.0
    workers: int = 2

    @classmethod
    def quick(cls) -> Lemma3Params:
        return cls(flows=30, replicas=1, seconds=20.0, warmup=5.0, workers=1)  # no pool: 0.6 s


def lemma3(params: Lemma3Params, seed: int = 0) -> pd.DataFrame:
    """One row per run and arm, with the run's back-off stages ``n0..n6`` and their
    retransmission losses ``q0..q6`` (see :mod:`tcplab.chapters.morris.experiments`)."""
    jobs = []
    for r in range(params.replicas):
        network = morris_setup(
            params.flows, seconds=params.seconds, warmup=params.warmup, tcp_options=RESET
        )
        independent = replace(
            network, queue=QueueSetup("droptail", params.buffer, loss_rate=params.loss_rate)
        )
        jobs.append(job(network, r, arm=ARMS[0], loss_set=0.0, sender="tahoe"))
        jobs.append(job(independent, r, arm=ARMS[1], loss_set=params.loss_rate, sender="tahoe"))
    rows = run_all(jobs, params.workers, seed, "morris lemma 3")
    for row in rows:
        row.pop("wall_s", None)  # not a result
    return pd.DataFrame([flatten(row) for row in rows])


def one_p_ratios(table: pd.DataFrame, arm: str, stage: int, p: str = "q0") -> np.ndarray:
    """Lemma 3 as printed, one p for every stage: ``n_i / ((2p)^i n_0)`` at ``stage`` = i, run
    by run, for the runs of ``arm``; ``p`` the column taken as the lemma's p (``q0``, the loss
    of stage-0 retransmissions, or ``loss_rate``). The finite values (a run without stage-0
    time-outs has none)."""
    runs = table[table["arm"] == arm]
    if runs.empty:
        raise KeyError(f"no runs of arm {arm!r}")
    ratio = (runs[f"n{stage}"] / ((2.0 * runs[p]) ** stage * runs["n0"])).to_numpy(dtype=float)
    return ratio[np.isfinite(ratio)]
