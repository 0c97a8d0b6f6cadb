"""``tcplab fluid``: N AIMD connections in the exact fluid model under any loss policy, beside
Theorem 1's aggregate (Altman et al.). One command, named by the module-level ``NAME``,
``HELP``, ``add_arguments`` and ``run`` (see :mod:`tcplab.commands`).
"""

from __future__ import annotations

import argparse
import json
import time

from tcplab.checks import check_int, check_range
from tcplab.flags import numbers

__all__ = ["NAME", "HELP", "add_arguments", "run"]

NAME = "fluid"
HELP = "N AIMD connections, exact fluid model (Altman et al.)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from tcplab import policies

    parser.add_argument("--flows", type=int, default=2, help="number of connections N, >= 1")
    parser.add_argument("--policy", choices=policies.POLICY_NAMES, default="rate-independent")
    parser.add_argument("--probs", help="rate-independent selection probabilities p1,...,pN")
    parser.add_argument("--beta", default="0.5", help="decrease factor in (0, 1), or b1,...,bN")
    parser.add_argument("--eta", default="1", help="rate increase per unit time > 0, or e1,...,eN")
    parser.add_argument("--capacity", type=float, default=1.0, help="link capacity c, > 0")
    parser.add_argument("--events", type=int, default=10_000, help="congestion events per replica")
    parser.add_argument("--replicas", type=int, default=16, help="independent replicas, >= 1")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", action="store_true", help="print one JSON object")


def run(args: argparse.Namespace) -> int:
    import numpy as np

    from tcplab import fluid
    from tcplab.theory import altman

    flows = check_int("flows", args.flows, 1)
    events = check_int("events", args.events, 1)
    replicas = check_int("replicas", args.replicas, 1)
    started = time.perf_counter()
    result = fluid.simulate(
        flows,
        args.policy,
        probs=numbers("probs", args.probs),
        capacity=check_range("capacity", args.capacity, 0.0, low_open=True),
        beta=numbers("beta", args.beta),
        eta=numbers("eta", args.eta),
        events=events,
        replicas=replicas,
        seed=args.seed,
    )
    wall = time.perf_counter() - started
    summary = {
        **result.to_dict(),
        "theorem_1": altman.parallel_throughput(flows, float(np.mean(result.beta))),
        "wall_s": wall,
    }
    if args.json:
        print(json.dumps(summary))
    else:
        print(
            f"aggregate   {result.aggregate:.6f} ± {result.aggregate_ci:.1e} of c "
            f"(Theorem 1: {summary['theorem_1']:.6f})"
        )
        for i, (mean, second) in enumerate(
            zip(result.per_flow, result.second_moment, strict=True), 1
        ):
            print(f"flow {i:<3}    mean {mean:.6f}   E[X^2] {second:.6f}")
        print(f"events      {result.events}   wall {wall:.2f} s")
    return 0
