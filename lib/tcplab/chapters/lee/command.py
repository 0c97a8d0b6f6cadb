"""``tcplab transfers``: Lee et al. (2012), N parallel finite transfers on one of the
chapter's emulated path models, repeated with the chapter's seeds. One command, named by the
module-level ``NAME``, ``HELP``, ``add_arguments`` and ``run`` (see :mod:`tcplab.commands`).

Its size flags are bounded, each and together, from runs measured on the book's two-core
machine (one core): the cost is the bytes sent (10 flows of 2 x 10^7 bytes: 8 s) and the flows
started (10^4 flows of 1000 bytes: 23 s), so flows x bytes x repetitions at most
:data:`MOST_BYTES` and flows x repetitions at most :data:`MOST_TRANSFERS`, about two minutes.
"""

from __future__ import annotations

import argparse
import json
import time

from tcplab.checks import check_choice, check_int, check_range
from tcplab.commands import print_summary
from tcplab.flags import LARGER_RUNS, budget

__all__ = ["NAME", "HELP", "add_arguments", "run"]

NAME = "transfers"
HELP = "Lee et al. (2012): N parallel finite transfers on an emulated path"
MOST_FLOWS = 10_000
MOST_REPETITIONS = 10_000
MOST_BYTES = 2e9  # flows x bytes x repetitions: about two minutes of one core
MOST_TRANSFERS = 50_000  # flows x repetitions: about two minutes of one core


def add_arguments(parser: argparse.ArgumentParser) -> None:
    tra = parser
    tra.add_argument(
        "--flows", type=int, required=True, help=f"parallel transfers, in [1, {MOST_FLOWS:g}]"
    )
    tra.add_argument(
        "--bytes", type=float, default=2e6,
        help=f"bytes per transfer (2e6); flows x bytes x repetitions at most {MOST_BYTES:g}",
    )  # fmt: skip
    tra.add_argument("--rtt-ms", type=float, default=49.0, help="round-trip time, ms (49)")
    tra.add_argument("--path", default="shared", help="path model: shared, window or shaped")
    tra.add_argument(
        "--repetitions", type=int, default=1,
        help=f"repetitions, in [1, {MOST_REPETITIONS:g}]; flows x repetitions at most "
        f"{MOST_TRANSFERS:g}",
    )  # fmt: skip
    tra.add_argument("--seed", type=int, default=0)
    tra.add_argument("--json", action="store_true", help="print one JSON object")
    tra.epilog = LARGER_RUNS


def run(args: argparse.Namespace) -> int:
    import numpy as np

    from .experiments import repetition_seed  # simpy is only needed here
    from .transfer import PATHS, Repetition, packets_for, path_model, run_repetition

    flows = check_int("--flows", args.flows, 1, MOST_FLOWS)
    nbytes = check_range("--bytes", args.bytes, 1.0, 1e10)
    if nbytes != int(nbytes):
        raise ValueError(f"--bytes={args.bytes!r} must be a whole number of bytes")
    packets_for(nbytes)
    rtt = check_range("--rtt-ms", args.rtt_ms, 0.0, 10_000.0, low_open=True)
    path = path_model(check_choice("--path", args.path, PATHS))
    repetitions = check_int("--repetitions", args.repetitions, 1, MOST_REPETITIONS)
    sizes = f"{flows} x {nbytes:g} x {repetitions}"
    budget(f"--flows x --bytes x --repetitions = {sizes}", flows * nbytes * repetitions, MOST_BYTES)
    what = f"--flows x --repetitions = {flows} x {repetitions}"
    budget(what, flows * repetitions, MOST_TRANSFERS)
    seed = check_int("--seed", args.seed, 0)
    started = time.perf_counter()
    aggregate, per_flow, completion, delivered = [], [], [], 0
    for r in range(repetitions):
        rep = Repetition(path, flows, int(nbytes), rtt, repetition_seed(seed, path.name, flows, r))
        out = run_repetition(rep)
        times = [float(t) for t in out["completion_s"]]
        delivered += int(out["bytes"].sum())
        completion.append(times)
        per_flow.append([nbytes / t if t == t else 0.0 for t in times])
        last = max(times)
        aggregate.append(flows * nbytes / last if last == last else 0.0)
    summary = {
        "path": path.name, "flows": flows, "bytes": int(nbytes), "rtt_ms": rtt,
        "repetitions": repetitions, "seed": seed, "aggregate_bytes_per_s": aggregate,
        "per_flow_bytes_per_s": per_flow, "completion_s": completion,
        "bytes_delivered": delivered, "wall_s": time.perf_counter() - started,
    }  # fmt: skip
    if args.json:
        print(json.dumps(summary))
        return 0
    shown = dict(summary)
    shown["per_flow_bytes_per_s"] = [float(np.median(v)) for v in per_flow]
    shown["completion_s"] = [max(v) for v in completion]
    print(
        "(per flow and completion: the median per-flow rate and the last completion of each "
        "repetition; --json gives every flow)"
    )
    print_summary(shown, False)
    return 0
