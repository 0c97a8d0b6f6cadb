"""``tcplab fluid``: N AIMD connections in the exact fluid model under any loss policy, beside
Theorem 1's aggregate (Altman et al.). One command, named by the module-level ``NAME``,
``HELP``, ``add_arguments`` and ``run`` (see :mod:`tcplab.commands`).

Its size flags are bounded, each and together, from runs measured on the book's two-core
machine (rate-independent losses, one core): the model steps from one congestion event to the
next for all replicas at once, 15 us per event, 60 ns per replica-event (10^5 events of 10^3
replicas of 2 flows: 5.8 s) and 2 ns per flow-replica-event (10^3 each: 2 s). The bounds keep a
run within two minutes; the flows' bound also keeps a chunk of replicas' state under 40 MB.
"""

from __future__ import annotations

import argparse
import json
import sys
import time

from tcplab.checks import check_int, check_range
from tcplab.commands import UsageError
from tcplab.flags import LARGER_RUNS, budget, numbers
from tcplab.fluid_domain import RATE_RANGE, ResultOutOfRange

__all__ = ["NAME", "HELP", "add_arguments", "run"]

NAME = "fluid"
HELP = "N AIMD connections, exact fluid model (Altman et al.)"
MOST_FLOWS = 1000
MOST_EVENTS = 1_000_000  # per replica; one replica: about 15 s of one core
MOST_REPLICAS = 100_000
MOST_REPLICA_EVENTS = 1e9  # events x replicas: about 60 s
MOST_WORK = 5e10  # flows x events x replicas: about 100 s


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from tcplab import policies

    parser.add_argument(
        "--flows", type=int, default=2, help=f"number of connections N, in [1, {MOST_FLOWS}]"
    )
    parser.add_argument("--policy", choices=policies.POLICY_NAMES, default="rate-independent")
    parser.add_argument(
        "--probs", help="rate-independent selection probabilities p1,...,pN: one per flow"
    )
    parser.add_argument("--beta", default="0.5", help="decrease factor in (0, 1), or b1,...,bN")
    parser.add_argument(
        "--eta", default="1",
        help="rate increase per unit time > 0, or e1,...,eN; each eta/capacity in "
        f"[{RATE_RANGE[0]:g}, {RATE_RANGE[1]:g}]",
    )  # fmt: skip
    parser.add_argument("--capacity", type=float, default=1.0, help="link capacity c, > 0")
    parser.add_argument(
        "--events", type=int, default=10_000,
        help=f"congestion events per replica, in [1, {MOST_EVENTS:g}]",
    )  # fmt: skip
    parser.add_argument(
        "--replicas", type=int, default=16,
        help=f"independent replicas, in [1, {MOST_REPLICAS:g}]; events x replicas at most "
        f"{MOST_REPLICA_EVENTS:g}, flows x events x replicas at most {MOST_WORK:g}",
    )  # fmt: skip
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.epilog = LARGER_RUNS


def run(args: argparse.Namespace) -> int:
    import numpy as np

    from tcplab import fluid
    from tcplab.theory import altman

    flows = check_int("flows", args.flows, 1, MOST_FLOWS)
    events = check_int("events", args.events, 1, MOST_EVENTS)
    replicas = check_int("replicas", args.replicas, 1, MOST_REPLICAS)
    budget(f"--events x --replicas = {events} x {replicas}", events * replicas, MOST_REPLICA_EVENTS)
    what = f"--flows x --events x --replicas = {flows} x {events} x {replicas}"
    budget(what, flows * events * replicas, MOST_WORK)
    probs = numbers("probs", args.probs)
    given = None if probs is None else len(probs) if isinstance(probs, list) else 1
    if given is not None and given != flows and args.policy == "rate-independent":
        raise UsageError(
            f"argument --probs: {args.probs!r} gives {given} value(s); one probability per "
            f"flow is needed: {flows} values p1,...,p{flows} summing to 1 (--flows {flows})"
        )
    started = time.perf_counter()
    try:
        result = fluid.simulate(
            flows,
            args.policy,
            probs=probs,
            capacity=check_range("capacity", args.capacity, 0.0, low_open=True),
            beta=numbers("beta", args.beta),
            eta=numbers("eta", args.eta),
            events=events,
            replicas=replicas,
            seed=args.seed,
        )
    except ResultOutOfRange as error:  # a run the ranges let through: one line, never shown
        print(f"tcplab: error: {error}", file=sys.stderr)
        return 1
    wall = time.perf_counter() - started
    summary = {
        **result.to_dict(),
        "theorem_1": altman.parallel_throughput(flows, float(np.mean(result.beta))),
        "wall_s": wall,
    }
    if args.json:
        print(json.dumps(summary))
    else:
        interval = f" ± {result.aggregate_ci:.1e} of c" if replicas > 1 else " of c, one replica"
        print(
            f"aggregate   {result.aggregate:.6f}{interval} (Theorem 1: {summary['theorem_1']:.6f})"
        )
        for i, (mean, second) in enumerate(
            zip(result.per_flow, result.second_moment, strict=True), 1
        ):
            print(f"flow {i:<3}    mean {mean:.6f}   E[X^2] {second:.6f}")
        print(f"events      {result.events}   wall {wall:.2f} s")
    return 0
