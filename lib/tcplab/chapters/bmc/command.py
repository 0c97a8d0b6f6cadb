"""``tcplab weighted`` and ``tcplab bmc``: Honda's weighted AIMD flows against TCP, and BMC's
proportion manager on the thesis's multipath examples (fluid or packet model).

Two commands in one module: :data:`COMMANDS`, a tuple of :class:`tcplab.commands.Command`
(the convention of :mod:`tcplab.commands` for a module with several commands).

Their size flags are bounded from runs measured on the book's two-core machine: ``weighted``
simulates a 60 Mb/s bottleneck, 0.07 s of one core per simulated second with 2 flows of each
kind and 0.22 s with 500; ``bmc`` in the packet model 0.03 s per simulated second (pooling),
in the fluid model 0.6 ms per measurement period J (10^4 periods: 6 s).
"""

from __future__ import annotations

import argparse

from tcplab.checks import check_int, check_range
from tcplab.commands import Command, UsageError, print_summary
from tcplab.flags import LARGER_RUNS, budget, numbers

__all__ = ["COMMANDS"]

WEIGHTED_FLOWS = 500  # of each kind
WEIGHTED_DURATION = 1000.0  # about 2 minutes of one core with 500 flows of each kind
BMC_DURATION = 3600.0  # the packet model: about 2 minutes of one core
BMC_PERIODS = 100_000  # duration / J, the fluid model: about a minute of one core


def _weighted_arguments(parser: argparse.ArgumentParser) -> None:
    wtd = parser
    wtd.add_argument("--weight", type=float, required=True, help="BMC weight D, in (0, 1]")
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
    weight = check_range("--weight", args.weight, 0.0, 1.0, low_open=True)
    duration = check_range("--duration", args.duration, 0.0, WEIGHTED_DURATION, low_open=True)
    setup = weighted.weighted_setup([weight] * flows, duration=duration, warmup=0.0, seed=args.seed)
    run = weighted.run_weighted(setup, flows)
    summary = {"weight": weight, "flows": flows, **run.summary(), "wall_s": run.wall_s}
    print_summary(summary, args.json)
    return 0


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
    pm.add_argument("--seed", type=int, default=0, help="packet model: its seed, >= 0")
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
    j_s = check_range("--j-s", args.j_s, 0.0, low_open=True)
    k = check_range("--k", args.k, *K_RANGE, low_open=True)
    if args.duration < j_s:  # at least one measurement period
        raise UsageError(
            f"--duration={args.duration:g} is outside the allowed range [{j_s:g}, "
            f"{BMC_DURATION:g}]: at least one period --j-s={j_s:g}"
        )
    duration = check_range("--duration", args.duration, j_s, BMC_DURATION)
    budget(f"--duration / --j-s = {duration:g} / {j_s:g}", duration / j_s, BMC_PERIODS)
    seed = check_int("--seed", args.seed, 0)
    if args.model == "fluid":
        if args.controller == "lia":
            raise UsageError("--controller lia runs only in the packet model (--model packet)")
        run = multipath.manage(
            scene, weights, j_s=j_s, k=k, duration=duration, controller=args.controller
        )
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
