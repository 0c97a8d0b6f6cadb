"""TCP with many flows: Morris (1997) on the packet model.

The chapter's experiments, declared for :mod:`tcplab.registry`; this file imports no model.
"""

from tcplab.registry import Experiment

_HERE = "tcplab.chapters.morris.experiments"

EXPERIMENTS = (
    Experiment(
        "morris-loss",
        f"{_HERE}:loss",
        "MorrisParams",
        "Figs. 4, 6-8: loss, fairness, back-off stages, episodes vs N",
    ),
    Experiment(
        "morris-series",
        f"{_HERE}:series",
        "MorrisParams",
        "Figs. 3 and 5: one flow's bandwidth per second, 30 and 1500 flows",
    ),
    Experiment(
        "morris-buffers-few",
        f"{_HERE}:buffers_few",
        "MorrisParams",
        "Fig. 9: 30 TCPs, utilisation vs buffer",
    ),
    Experiment(
        "morris-buffers-many",
        f"{_HERE}:buffers_many",
        "MorrisParams",
        "Fig. 10: 500 TCPs, drop rate and fairness vs buffer",
    ),
    Experiment(
        "morris-remedies",
        f"{_HERE}:remedies",
        "MorrisParams",
        "Morris's remedies, NewReno and DropTail: loss vs N",
    ),
    Experiment(
        "morris-choices",
        f"{_HERE}:choices",
        "MorrisParams",
        "What the paper leaves open: loss under each choice",
    ),
)
