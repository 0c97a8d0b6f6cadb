"""The AIMD sawtooth: one connection alone on a link (Altman et al. 2006, Section I).

The chapter's experiments, declared for :mod:`tcplab.registry`; this file imports no model.
"""

from tcplab.registry import Experiment

_HERE = "tcplab.chapters.sawtooth.experiments"

EXPERIMENTS = (
    Experiment(
        "sawtooth-paths",
        f"{_HERE}:paths",
        "SawtoothParams",
        "Exact AIMD sawtooth paths of one connection on a (beta, eta) grid",
    ),
    Experiment(
        "sawtooth-utilisation",
        f"{_HERE}:utilisation",
        "SawtoothParams",
        "Mean utilisation of one AIMD connection vs (1 + beta)/2",
    ),
)
