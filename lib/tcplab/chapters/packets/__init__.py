"""From fluid to packets: Altman et al. (2006), Section V, on the packet model.

The chapter's experiments, declared for :mod:`tcplab.registry`; this file imports no model.
"""

from tcplab.registry import Experiment

_HERE = "tcplab.chapters.packets.experiments"
_RERUNS = "tcplab.chapters.packets.reruns"
_WHATIFS = "tcplab.chapters.packets.whatifs"
_SEEDS = "tcplab.chapters.packets.seeds"

EXPERIMENTS = (
    Experiment(
        "packets-validation",
        f"{_HERE}:validation",
        "PacketsParams",
        "Packet model vs theory: one-flow sawtooth, RED fairness",
    ),
    Experiment(
        "packets-droptail",
        f"{_HERE}:droptail",
        "PacketsParams",
        "Fig. 7: DropTail utilisation vs N and buffer",
    ),
    Experiment(
        "packets-red",
        f"{_HERE}:red",
        "PacketsParams",
        "Fig. 10: RED utilisation vs N and buffer",
    ),
    Experiment(
        "packets-threshold",
        f"{_HERE}:threshold",
        "PacketsParams",
        "Fig. 11: threshold-dropper utilisation vs N, policies",
    ),
    Experiment(
        "packets-hold",
        f"{_HERE}:hold",
        "PacketsParams",
        "Threshold-dropper: utilisation vs its hold time",
    ),
    Experiment(
        "packets-replicas",
        f"{_HERE}:replicas",
        "PacketsParams",
        "Threshold-dropper policies over several seeds",
    ),
    Experiment(
        "packets-windows",
        f"{_HERE}:windows",
        "PacketsParams",
        "Figs. 8, 9, 12: congestion windows over time",
    ),
    Experiment(
        "packets-events",
        f"{_HERE}:events",
        "PacketsParams",
        "Fig. 15: connections signalled per congestion event",
    ),
    Experiment(
        "packets-loss",
        f"{_HERE}:loss",
        "PacketsParams",
        "One flow under random loss vs Mathis and Padhye formulas",
    ),
    Experiment(
        "packets-signalled",
        f"{_HERE}:signalled",
        "PacketsParams",
        "Figs. 13-14: P(signalled | window), DropTail and RED",
    ),
    Experiment(
        "packets-sack",
        "tcplab.chapters.packets.sack:sack",
        "SackParams",
        "Figs. 7, 10, 11 again with TCP-SACK, the paper's variant (NewReno's seeds)",
    ),
    Experiment(
        "packets-sack-events",
        f"{_RERUNS}:sack_events",
        "VariantParams",
        "Fig. 15 again with TCP-SACK, the paper's variant (NewReno's seeds)",
    ),
    Experiment(
        "packets-sack-signalled",
        f"{_RERUNS}:sack_signalled",
        "VariantParams",
        "Figs. 13-14 again with TCP-SACK, the paper's variant (NewReno's seeds)",
    ),
    Experiment(
        "packets-sack-loss",
        f"{_RERUNS}:sack_loss",
        "VariantParams",
        "One flow under random loss with TCP-SACK vs Mathis and Padhye (NewReno's seeds)",
    ),
    Experiment(
        "packets-floor",
        f"{_WHATIFS}:floor",
        "FloorParams",
        "What-if: one flow, 1-packet buffer, pipes of 76.5 and 301.5 packets (the floor's lift)",
    ),
    Experiment(
        "packets-starts",
        f"{_WHATIFS}:equal_starts",
        "StartParams",
        "What-if: DropTail events with random and with equal start times",
    ),
    Experiment(
        "packets-red-queue",
        "tcplab.chapters.packets.redqueue:red_queue",
        "RedQueueParams",
        "What-if: RED, b = 100, with its thresholds (the queue's position) moved down",
    ),
    Experiment(
        "packets-run-length",
        "tcplab.chapters.packets.runlength:run_length",
        "RunLengthParams",
        "What-if: the paper's run length (2000 s, first 1000 s dropped) against the book's",
    ),
    Experiment(
        "packets-droptail-seeds",
        f"{_SEEDS}:droptail_seeds",
        "SeedsParams",
        "Fig. 7's DropTail sweep rerun with seeds 1-3 (with packets-droptail: four runs a point)",
    ),
    Experiment(
        "packets-red-seeds",
        f"{_SEEDS}:red_seeds",
        "SeedsParams",
        "Fig. 10's RED sweep rerun with seeds 1-3 (with packets-red: four runs a point)",
    ),
    Experiment(
        "packets-threshold-seeds",
        f"{_SEEDS}:threshold_seeds",
        "SeedsParams",
        "Fig. 11's threshold-dropper at N = 15 rerun with seeds 1-3 (the capacity statement)",
    ),
)
