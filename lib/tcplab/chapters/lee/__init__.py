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
)
