"""The chapter's congestion-event counts (Fig. 15), signalled fractions (Figs. 13-14) and
random-loss runs again with TCP-SACK, the variant of the paper's ns-2 runs.

Each is the chapter's own experiment (:func:`.experiments.events`, :func:`.signalled`,
:func:`.loss`) with ``PacketsParams.variant`` set: the same jobs in the same order, seeded
by the same ``SeedSequence(seed)`` children, so each SACK run differs from its NewReno run in
the chapter's table by the senders' TCP alone (at quick scale, Figs. 13-14 and the loss
runs are cut to a few of those runs, which keep their seeds). The table is the chapter's with
a first column ``tcp`` naming the variant.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import partial
from typing import ClassVar

import pandas as pd

from .experiments import PacketsParams, events, loss, signalled
from .runs import Job
from .sack import VARIANT

__all__ = ["VARIANT", "VariantParams", "sack_events", "sack_loss", "sack_signalled"]


@dataclass(frozen=True)
class VariantParams:
    """The chapter's set-up (``PacketsParams()``, or its ``quick()`` variant at quick scale)
    with the senders' TCP ``variant`` (``"newreno"`` gives back the chapter's own rows).

    ``signal_points`` ((queue, buffer) of Figs. 13-14) and ``loss_rates`` (p) cut the
    reruns of ``signalled`` and ``loss`` to those runs, each still seeded as in the whole
    sweep; empty: every run (full scale). The quick scale keeps one buffer per queue and two
    loss rates (one within the Mathis formula's range), so that the chapter stays under a
    minute."""

    variant: str = VARIANT
    quick_scale: bool = False
    #: fields that choose sizes, not code paths (the chapter's quick or full set-up, whose
    #: words and switches agree): the restamp canary's branch check passes them by
    SIZES: ClassVar[tuple[str, ...]] = ("quick_scale",)
    signal_points: tuple[tuple[str, int], ...] = ()
    loss_rates: tuple[float, ...] = ()
    workers: int = 2

    @classmethod
    def quick(cls) -> VariantParams:
        return cls(
            quick_scale=True,
            signal_points=(("droptail", 5), ("red", 20)),
            loss_rates=(0.01, 0.05),
            workers=1,
        )

    def chapter(self) -> PacketsParams:
        """The chapter's parameters with this variant and number of workers."""
        base = PacketsParams.quick() if self.quick_scale else PacketsParams()
        return replace(base, variant=self.variant, workers=self.workers)


def _tagged(table: pd.DataFrame, variant: str) -> pd.DataFrame:
    table.insert(0, "tcp", variant)
    return table


def _signal_point(params: VariantParams, work: Job) -> bool:
    labels = dict(work.labels)
    return not params.signal_points or (labels["queue"], labels["buffer"]) in params.signal_points


def _loss_rate(params: VariantParams, work: Job) -> bool:
    return not params.loss_rates or dict(work.labels)["p"] in params.loss_rates


def sack_events(params: VariantParams, seed: int = 0) -> pd.DataFrame:
    """``packets-events`` with ``params.variant``: rows (tcp, queue, buffer, m, ccdf, mean_m,
    events, mean_m_drops, events_drops)."""
    return _tagged(events(params.chapter(), seed), params.variant)


def sack_signalled(params: VariantParams, seed: int = 0) -> pd.DataFrame:
    """``packets-signalled`` (Figs. 13-14) with ``params.variant``, at ``signal_points``:
    rows (tcp, queue, buffer, window, samples, hits, z, rho, mean_z, events, early_drops)."""
    table = signalled(params.chapter(), seed, only=partial(_signal_point, params))
    return _tagged(table, params.variant)


def sack_loss(params: VariantParams, seed: int = 0) -> pd.DataFrame:
    """``packets-loss`` (one flow under random loss, beside Mathis and Padhye) with
    ``params.variant``, at ``loss_rates``: rows (tcp, p, rtt_s, rate_pps, mathis_pps,
    padhye_pps, vs_mathis, vs_padhye, drop_rate, timeouts, packets)."""
    table = loss(params.chapter(), seed, only=partial(_loss_rate, params))
    return _tagged(table, params.variant)
