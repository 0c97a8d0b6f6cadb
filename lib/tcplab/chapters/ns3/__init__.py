"""Appendix: the packet model checked against ns-3 (issue 14).

The chapter's experiments, declared for :mod:`tcplab.registry`; this file imports no model.
ns-3's own results (data/ns3-dumbbell.csv) are not an experiment of the registry: ns-3 is not
installed with the book, and ``tools/ns3/run.py`` writes them where it is.
"""

from tcplab.registry import Experiment

_HERE = "tcplab.chapters.ns3.experiments"

EXPERIMENTS = (
    Experiment(
        "ns3-tcplab",
        f"{_HERE}:tcplab_runs",
        "Ns3Params",
        "Appendix: the ns-3 cross-check's dumbbells on the packet model",
    ),
)
