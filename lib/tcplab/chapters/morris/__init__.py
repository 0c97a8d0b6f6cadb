"""TCP with many flows: Morris (1997) on the packet model.

The chapter's experiments, declared for :mod:`tcplab.registry`; this file imports no model.
"""

from tcplab.registry import Experiment

_HERE = "tcplab.chapters.morris.experiments"
_WHATIF = "tcplab.chapters.morris.whatifs"
_EXTRA = "tcplab.chapters.morris.extra"

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
    Experiment(
        "morris-setups",
        f"{_WHATIF}:setups",
        "WhatIfParams",
        "Router A's open choices at N = 30, 300, 1500: loss, mean queue, RTT",
    ),
    Experiment(
        "morris-access",
        f"{_EXTRA}:access",
        "ExtraParams",
        "Beyond 1500 flows: access links no slower than at N = 1500",
    ),
    Experiment(
        "morris-episodes",
        f"{_WHATIF}:episodes",
        "WhatIfParams",
        "Sec. 7.2's loss episodes under five gap rules",
    ),
    Experiment(
        "morris-scaled",
        f"{_WHATIF}:scaled",
        "WhatIfParams",
        "The N^2 law's cause removed: rate and buffer grow with N",
    ),
    Experiment(
        "morris-buffers-more",
        f"{_EXTRA}:buffers_more",
        "ExtraParams",
        "Fig. 10: more runs at 1500-2000 packets, buffers past ten per TCP",
    ),
    Experiment(
        "morris-lemma3",
        "tcplab.chapters.morris.lemma3:lemma3",
        "Lemma3Params",
        "Lemma 3's one p: Morris's network vs loss independent of the back-off stage",
    ),
    Experiment(
        "morris-flow-loss",
        "tcplab.chapters.morris.flowloss:flow_loss",
        "FlowLossParams",
        "Sec. 2: each flow's loss rate over a run under RED and DropTail, N = 30-300",
    ),
)
