"""TCP under a microscope: one flow, chosen losses, every sender event (Fall and Floyd 1996).

The chapter's experiments, declared for :mod:`tcplab.registry`; this file imports no model.
"""

from tcplab.registry import Experiment

_HERE = "tcplab.chapters.microscope.experiments"

EXPERIMENTS = (
    Experiment(
        "microscope-traces",
        f"{_HERE}:traces",
        "MicroscopeParams",
        "Fall and Floyd's 1-4 drops: every event of Tahoe, Reno, NewReno",
    ),
    Experiment(
        "microscope-cases",
        f"{_HERE}:cases",
        "MicroscopeParams",
        "Fall and Floyd's 1-4 drops: retransmissions, time-outs, completion",
    ),
    Experiment(
        "microscope-rto",
        f"{_HERE}:rto",
        "MicroscopeParams",
        "The retransmission timer: a repeated time-out and its back-off",
    ),
)
