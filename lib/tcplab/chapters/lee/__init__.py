"""Parallel transfers measured: Lee, Abe, Hirotsu and Umemura (2012), finite transfers on the
packet model.

The chapter's experiments, declared for :mod:`tcplab.registry`; this file imports no model.
"""

from tcplab.registry import Experiment

EXPERIMENTS = (
    Experiment(
        "lee-transfers",
        "tcplab.chapters.lee.experiments:transfers",
        "TransfersParams",
        "Figs. 2-4: 10-50 parallel 2 MB transfers, repeated with fresh cross traffic, "
        "on three path models",
    ),
    Experiment(
        "lee-saturation",
        "tcplab.chapters.lee.saturation:saturation",
        "SaturationParams",
        "Why the shared path saturates late: its variants without cross traffic, with a "
        "BDP buffer, with SACK transfers",
    ),
    Experiment(
        "lee-whatif",
        "tcplab.chapters.lee.whatif:whatif",
        "WhatIfParams",
        "Causes taken away one at a time: the shaped path without its bottleneck overload or "
        "without its shapers, a per-sliver shaper, and the shared path with Linux's initial "
        "windows, SACK and delayed ACKs (time in slow start measured)",
    ),
    Experiment(
        "lee-spread",
        "tcplab.chapters.lee.spread:spread_runs",
        "SpreadParams",
        "(delta, zeta) as one window-limited path whose cross traffic and RTT are drawn anew "
        "in every repetition, with its sensitivity to the capacity and the cross traffic",
    ),
    Experiment(
        "lee-fair",
        "tcplab.chapters.lee.fair:fair_runs",
        "FairParams",
        "The unfairness taken away: the shaped path at 10, 40 and 50 flows with its FIFO "
        "DropTail bottleneck and with a per-flow fair share of the same buffer, same seeds",
    ),
)
