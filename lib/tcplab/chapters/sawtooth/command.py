"""``tcplab sawtooth``: one AIMD connection alone on a link, in the exact fluid model, beside
the closed forms of its utilisation and period (Altman et al.). One command, named by the
module-level ``NAME``, ``HELP``, ``add_arguments`` and ``run`` (see :mod:`tcplab.commands`).

Its size flag is bounded (:data:`MOST_EVENTS`: 10^6 congestion events took 45 s of one core,
measured on the book's two-core machine); longer paths are an experiment's job. Its numbers
have the fluid model's ranges (:mod:`tcplab.fluid_domain`). It takes no seed: one connection
with synchronised losses is deterministic.
"""

from __future__ import annotations

import argparse
import json
import sys
import time

from tcplab.checks import check_int
from tcplab.flags import LARGER_RUNS
from tcplab.fluid_domain import RATE_RANGE, ResultOutOfRange

__all__ = ["NAME", "HELP", "add_arguments", "run"]

NAME = "sawtooth"
HELP = "one AIMD connection alone on a link"
MOST_EVENTS = 1_000_000  # one event at a time: about 45 s of one core


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--beta", type=float, default=0.5, help="decrease factor, in (0, 1)")
    parser.add_argument(
        "--eta", type=float, default=1.0,
        help=f"rate increase per unit time, > 0; eta/capacity in [{RATE_RANGE[0]:g}, "
        f"{RATE_RANGE[1]:g}]",
    )  # fmt: skip
    parser.add_argument("--capacity", type=float, default=1.0, help="link capacity c, > 0")
    parser.add_argument(
        "--events", type=int, default=1000, help=f"congestion events, in [1, {MOST_EVENTS:g}]"
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.epilog = LARGER_RUNS


def run(args: argparse.Namespace) -> int:
    from tcplab import fluid, policies
    from tcplab.theory import altman

    beta, eta, capacity = args.beta, args.eta, args.capacity
    events = check_int("events", args.events, 1, MOST_EVENTS)
    started = time.perf_counter()  # fluid.simulate checks each argument and names it
    try:
        result = fluid.simulate(
            1, policies.AllFlows(), capacity=capacity, beta=beta, eta=eta, events=events,
            replicas=1,
        )  # fmt: skip
    except ResultOutOfRange as error:  # a run the ranges let through: one line, never shown
        print(f"tcplab: error: {error}", file=sys.stderr)
        return 1
    summary = {
        "beta": beta,
        "eta": eta,
        "capacity": capacity,
        "utilisation": result.aggregate,
        "formula": altman.sawtooth_utilisation(beta),
        "period": altman.sawtooth_period(beta, eta, capacity),
        "events": result.events,
        "wall_s": time.perf_counter() - started,
    }
    if args.json:
        print(json.dumps(summary))
    else:
        for key, value in summary.items():
            print(f"{key:>12}: {value:.6g}")
    return 0
