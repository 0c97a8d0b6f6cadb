"""``tcplab weighted`` and ``tcplab bmc``: Honda's weighted AIMD flows against TCP, and BMC's
proportion manager on the thesis's multipath examples (fluid or packet model).

Two commands in one module: :data:`COMMANDS`, a tuple of :class:`tcplab.commands.Command`
(the convention of :mod:`tcplab.commands` for a module with several commands).

Their size flags are bounded from runs measured on the book's two-core machine: ``weighted``
simulates a 60 Mb/s bottleneck, 0.07 s of one core per simulated second with 2 flows of each
kind and 0.22 s with 500; ``bmc`` in the packet model 0.03 s per simulated second (pooling),
in the fluid model 0.6 ms per measurement period J (10^4 periods: 6 s).

Their numbers have ranges derived from the arithmetic they feed, and every result is checked
before it is printed (:func:`_check_result`: finite, rates within the links', a run that
breaks it exits 1 with one line):

* ``--weight`` D of ``weighted`` in [:data:`LEAST_WEIGHT`, 1]: eq. (3.6) gives the flow the
  additive increase ``a = D**2`` packets per RTT, added as ``cwnd += a / cwnd`` per ACK, which
  rounding drops entirely once ``a / cwnd`` is below half an ulp of cwnd (``a < eps cwnd**2 /
  2``): for windows up to 1e4 packets (the 60 Mb/s bottleneck's is about 500), D >= 1.1e-4;
* each of ``--weights`` at least :data:`LEAST_WEIGHTS` (1e-300): the fluid manager's Twr =
  R T / D divides a subflow's rate D x level by D, exact only while D x level is a normal double
  (above 2.2e-308; levels are Mb/s);
* ``--j-s`` at least :data:`LEAST_PERIOD` (1e-300): the periods' ends (p + 1) J are normal
  doubles.
"""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Iterable
from typing import Any

from tcplab.checks import check_int, check_range
from tcplab.commands import Command, UsageError, print_summary
from tcplab.flags import LARGER_RUNS, budget, numbers

__all__ = ["COMMANDS"]

WEIGHTED_FLOWS = 500  # of each kind
WEIGHTED_DURATION = 1000.0  # about 2 minutes of one core with 500 flows of each kind
BMC_DURATION = 3600.0  # the packet model: about 2 minutes of one core
BMC_PERIODS = 100_000  # duration / J, the fluid model: about a minute of one core
#: the smallest weight D of ``weighted``: D**2 / cwnd survives cwnd's rounding up to 1e4 packets
LEAST_WEIGHT = 1.1e-4
#: the smallest of ``bmc --weights`` and of ``--j-s``: their products stay normal doubles
LEAST_WEIGHTS = LEAST_PERIOD = 1e-300


def _weighted_arguments(parser: argparse.ArgumentParser) -> None:
    wtd = parser
    wtd.add_argument(
        "--weight", type=float, required=True, help=f"BMC weight D, in [{LEAST_WEIGHT:g}, 1]"
    )
    wtd.add_argument(
        "--flows", type=int, required=True,
        help=f"N: flows of each kind, in [1, {WEIGHTED_FLOWS:g}]",
    )  # fmt: skip
    wtd.add_argument(
        "--duration", type=float, default=100.0,
        help=f"simulated seconds, in (0, {WEIGHTED_DURATION:g}]",
    )  # fmt: skip
    wtd.add_argument("--seed", type=int, default=0)
    wtd.add_argument("--json", action="store_true", help="print one JSON object")
    wtd.epilog = LARGER_RUNS


def _weighted(args: argparse.Namespace) -> int:
    from tcplab.packet import weighted  # simpy is only needed here

    flows = check_int("--flows", args.flows, 1, WEIGHTED_FLOWS)
    weight = check_range("--weight", args.weight, LEAST_WEIGHT, 1.0)
    duration = check_range("--duration", args.duration, 0.0, WEIGHTED_DURATION, low_open=True)
    setup = weighted.weighted_setup([weight] * flows, duration=duration, warmup=0.0, seed=args.seed)
    run = weighted.run_weighted(setup, flows)
    summary = {"weight": weight, "flows": flows, **run.summary(), "wall_s": run.wall_s}
    link = weighted.RATE_MBPS
    rates = [summary[k] for k in ("aimd_mbps", "tcp_mbps")]
    problem = _check_result(
        [("goodput", rates, 0.0, link), ("utilisation", [summary["utilisation"]], 0.0, 1.0),
         ("loss rates", [summary["loss_event_rate"], summary["drop_rate"]], 0.0, 1.0)]
    )  # fmt: skip
    if problem:
        return _broken("weighted", problem)
    print_summary(summary, args.json)
    return 0


def _check_result(checks: Iterable[tuple[str, Any, float, float]]) -> str | None:
    """What is impossible in a run's numbers (name, values, low, high), within 1e-9 of the
    range for rounding; None when all is possible."""
    for name, values, low, high in checks:
        for value in values:
            slack = 1e-9 * max(1.0, abs(high))
            if not (math.isfinite(value) and low - slack <= value <= high + slack):
                return f"{name} {value!r} outside [{low:g}, {high:g}]"
    return None


def _broken(command: str, problem: str) -> int:
    print(
        f"tcplab: error: the {command} model computed {problem}; nothing is shown", file=sys.stderr
    )
    return 1


def _bmc_arguments(parser: argparse.ArgumentParser) -> None:
    pm = parser
    pm.add_argument("--scenario", choices=("shared", "pooling"), required=True)
    pm.add_argument("--model", choices=("fluid", "packet"), default="fluid")
    pm.add_argument(
        "--controller", choices=("bmc", "fixed", "uncoupled", "lia"), default="bmc",
        help="proportion manager, weights held, TCP per subflow, or MPTCP LIA (packet only)",
    )  # fmt: skip
    pm.add_argument(
        "--j-s", type=float, default=10.0,
        help=f"measurement period J, s, > 0; duration / J at most {BMC_PERIODS:g}",
    )  # fmt: skip
    pm.add_argument("--k", type=float, default=0.5, help="weight step factor K, in (0, 1]")
    pm.add_argument("--weights", help="starting weights D1,D2 summing to 1 (default equal)")
    pm.add_argument(
        "--duration", type=float, default=300.0,
        help=f"simulated seconds, in [J, {BMC_DURATION:g}]",
    )  # fmt: skip
    pm.add_argument(
        "--seed", type=int, help="--model packet's seed, >= 0 (default 0; the fluid model is "
        "deterministic and takes none)",
    )  # fmt: skip
    pm.add_argument("--json", action="store_true", help="print one JSON object")
    pm.epilog = LARGER_RUNS


def _bmc(args: argparse.Namespace) -> int:
    import numpy as np

    from tcplab import multipath
    from tcplab.theory.bmc import K_RANGE

    scene = multipath.scenario(args.scenario)
    weights = numbers("--weights", args.weights)
    if weights is not None:
        try:
            weights = multipath.check_weights(np.atleast_1d(weights), scene.subflows).tolist()
        except ValueError as error:  # "weights=..." or "weights[i]=...": name the flag
            raise UsageError(f"--{error}") from None
        for i, weight in enumerate(weights):
            check_range(f"--weights[{i}]", weight, LEAST_WEIGHTS, 1.0, high_open=True)
    if args.seed is not None and args.model == "fluid":
        raise UsageError(
            f"--seed={args.seed} applies to --model packet only: the fluid model is deterministic"
        )
    j_s = check_range("--j-s", args.j_s, LEAST_PERIOD)
    k = check_range("--k", args.k, *K_RANGE, low_open=True)
    if args.duration < j_s:  # at least one measurement period
        raise UsageError(
            f"--duration={args.duration:g} is outside the allowed range [{j_s:g}, "
            f"{BMC_DURATION:g}]: at least one period --j-s={j_s:g}"
        )
    duration = check_range("--duration", args.duration, j_s, BMC_DURATION)
    budget(f"--duration / --j-s = {duration:g} / {j_s:g}", duration / j_s, BMC_PERIODS)
    seed = check_int("--seed", 0 if args.seed is None else args.seed, 0)
    if args.model == "fluid":
        if args.controller == "lia":
            raise UsageError("--controller lia runs only in the packet model (--model packet)")
        run = multipath.manage(
            scene, weights, j_s=j_s, k=k, duration=duration, controller=args.controller
        )
        rates = [link.rate_mbps for link in scene.links]
        problem = _check_result(
            [("a source's Mb/s", run.sources.values(), 0.0, sum(rates)),
             ("a subflow's Mb/s", run.subflows, 0.0, max(rates)),
             ("a weight", run.weights, 0.0, 1.0),
             ("a Twr", run.history["twr"], 0.0, math.inf)]
        )  # fmt: skip
        if problem:
            return _broken("bmc fluid", problem)
        print_summary(run.summary(), args.json)
        return 0
    from tcplab.packet.multipath import MultipathSetup, run_multipath  # simpy only here
    from tcplab.packet.setup import RunLength

    setup = MultipathSetup(
        scene, args.controller, tuple(weights) if weights else None, j_s, k,
        length=RunLength(duration, duration / 2.0), seed=seed,
    )  # fmt: skip
    print_summary(run_multipath(setup).summary(), args.json)
    return 0


COMMANDS = (
    Command(
        "weighted",
        "N TCP flows against N AIMD(D^2, 1/2) flows on Honda's 60 Mb/s RED bottleneck",
        _weighted_arguments,
        _weighted,
    ),
    Command(
        "bmc",
        "BMC's proportion manager on the thesis's multipath examples (Honda)",
        _bmc_arguments,
        _bmc,
    ),
)
