"""``tcplab morris``: Morris's (1997) Figure 2 set-up, N Tahoe flows (or a remedy) through
RED, with the chapter's loss, fairness and time-out measures. One command, named by the
module-level ``NAME``, ``HELP``, ``add_arguments`` and ``run`` (see :mod:`tcplab.commands`).

Its size flags are bounded, each and together, from runs measured on the book's two-core
machine: a simulated second costs about 0.03 s of one core plus 60 us per flow (10 flows for
200 s: 7 s; 1000 flows for 50 s: 4 s; 5000 flows for 10 s: 3 s), so flows x seconds at most
:data:`MOST_FLOW_SECONDS` keeps a run within about two minutes. The seconds are whole: the
chapter samples every flow once a second (a fractional end breaks its per-second measures).
"""

from __future__ import annotations

import argparse
import json

from tcplab.checks import check_choice, check_int, check_range
from tcplab.flags import LARGER_RUNS, budget

__all__ = ["NAME", "HELP", "add_arguments", "run"]

NAME = "morris"
HELP = "Morris (1997): N Tahoe flows through RED, his Figure 2 set-up"
MOST_FLOWS = 10_000
MOST_BUFFER = 1_000_000
MOST_SECONDS = 2000
MOST_FLOW_SECONDS = 2e6  # flows x seconds: about two minutes of one core


def add_arguments(parser: argparse.ArgumentParser) -> None:
    mor = parser
    mor.add_argument(
        "--flows", type=int, required=True, help=f"greedy TCP flows N, in [1, {MOST_FLOWS:g}]"
    )
    mor.add_argument(
        "--buffer", type=int, default=217,
        help=f"router A's buffer, packets, in [1, {MOST_BUFFER:g}] (RED: at least 4)",
    )  # fmt: skip
    mor.add_argument(
        "--seconds", type=float, default=200.0,
        help=f"simulated seconds, whole, in [1, {MOST_SECONDS:g}]; flows x seconds at most "
        f"{MOST_FLOW_SECONDS:g}",
    )  # fmt: skip
    mor.add_argument("--warmup", type=float, default=20.0, help="seconds not measured")
    mor.add_argument(
        "--tcp", default="tahoe",
        help="tahoe, reno, newreno, sack or tahoe-<remedy> (backoff4, paced, slowgrowth, ...)",
    )  # fmt: skip
    mor.add_argument("--queue", default="red", help="red (Figure 2) or droptail")
    mor.add_argument("--telnet", type=int, default=5, help="telnet-like sessions, 0..1000")
    mor.add_argument("--seed", type=int, default=0)
    mor.add_argument("--json", action="store_true", help="print one JSON object")
    mor.epilog = LARGER_RUNS


def run(args: argparse.Namespace) -> int:
    from .measures import summarise  # simpy is only needed here
    from .runs import SENDERS, morris_setup
    from .topology import run_morris

    flows = check_int("--flows", args.flows, 1, MOST_FLOWS)
    buffer = check_int("--buffer", args.buffer, 4 if args.queue == "red" else 1, MOST_BUFFER)
    seconds = float(check_int("--seconds", args.seconds, 1, MOST_SECONDS))
    budget(f"--flows x --seconds = {flows} x {seconds:g}", flows * seconds, MOST_FLOW_SECONDS)
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
            shown = ", ".join(
                f"{v:.3f}" if isinstance(v, float | int) else str(v) for v in value
                if v is not None
            ) if isinstance(value, list) else value  # fmt: skip
            print(f"{key:>22}: {shown}")
    return 0
