"""``tcplab morris``: Morris's (1997) Figure 2 set-up, N Tahoe flows (or a remedy) through
RED, with the chapter's loss, fairness and time-out measures. One command, named by the
module-level ``NAME``, ``HELP``, ``add_arguments`` and ``run`` (see :mod:`tcplab.commands`).
"""

from __future__ import annotations

import argparse
import json

from tcplab.checks import check_choice, check_int, check_range

__all__ = ["NAME", "HELP", "add_arguments", "run"]

NAME = "morris"
HELP = "Morris (1997): N Tahoe flows through RED, his Figure 2 set-up"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    mor = parser
    mor.add_argument("--flows", type=int, required=True, help="greedy TCP flows N, >= 1")
    mor.add_argument("--buffer", type=int, default=217, help="router A's buffer, packets")
    mor.add_argument("--seconds", type=float, default=200.0, help="simulated seconds")
    mor.add_argument("--warmup", type=float, default=20.0, help="seconds not measured")
    mor.add_argument(
        "--tcp", default="tahoe",
        help="tahoe, reno, newreno, sack or tahoe-<remedy> (backoff4, paced, slowgrowth, ...)",
    )  # fmt: skip
    mor.add_argument("--queue", default="red", help="red (Figure 2) or droptail")
    mor.add_argument("--telnet", type=int, default=5, help="telnet-like sessions, 0..1000")
    mor.add_argument("--seed", type=int, default=0)
    mor.add_argument("--json", action="store_true", help="print one JSON object")


def run(args: argparse.Namespace) -> int:
    from .measures import summarise  # simpy is only needed here
    from .runs import SENDERS, morris_setup
    from .topology import run_morris

    flows = check_int("--flows", args.flows, 1, 100_000)
    buffer = check_int("--buffer", args.buffer, 4 if args.queue == "red" else 1, 1_000_000)
    seconds = check_range("--seconds", args.seconds, 0.0, 1e6, low_open=True)
    warmup = check_range("--warmup", args.warmup, 0.0, seconds, high_open=True)
    setup = morris_setup(
        flows, buffer=buffer, queue=check_choice("--queue", args.queue, ("red", "droptail")),
        sender=check_choice("--tcp", args.tcp, SENDERS), seconds=seconds, warmup=warmup,
        seed=check_int("--seed", args.seed, 0), telnet=check_int("--telnet", args.telnet, 0, 1000),
    )  # fmt: skip
    summary = summarise(run_morris(setup))
    if args.json:
        print(json.dumps(summary))
    else:
        for key, value in summary.items():
            shown = ", ".join(f"{v:.3f}" for v in value if v is not None) if isinstance(
                value, list) else value  # fmt: skip
            print(f"{key:>22}: {shown}")
    return 0
