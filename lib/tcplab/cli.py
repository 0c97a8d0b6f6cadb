"""The ``tcplab`` command line: run any model or experiment, print JSON or CSV.

Every bad argument ends in one line on stderr that names the parameter, its value and the
allowed range, and a non-zero exit status; never a traceback.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence

from tqdm import tqdm

from . import __version__, experiments, fluid, policies, theory
from .checks import check_int, check_range

__all__ = ["main"]


class UsageError(Exception):
    """A bad command line; its message is printed as one line."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # argparse would print the usage and exit
        raise UsageError(message)


def _sawtooth(args: argparse.Namespace) -> int:
    beta = check_range("beta", args.beta, 0.0, 1.0, low_open=True, high_open=True)
    eta = check_range("eta", args.eta, 0.0, low_open=True)
    capacity = check_range("capacity", args.capacity, 0.0, low_open=True)
    events = check_int("events", args.events, 1)
    started = time.perf_counter()
    result = fluid.simulate(
        1,
        policies.AllFlows(),
        capacity=capacity,
        beta=beta,
        eta=eta,
        events=events,
        replicas=1,
        seed=args.seed,
    )
    summary = {
        "beta": beta,
        "eta": eta,
        "capacity": capacity,
        "utilisation": result.aggregate,
        "formula": theory.sawtooth_utilisation(beta),
        "period": theory.sawtooth_period(beta, eta, capacity),
        "events": result.events,
        "wall_s": time.perf_counter() - started,
    }
    if args.json:
        print(json.dumps(summary))
    else:
        for key, value in summary.items():
            print(f"{key:>12}: {value:.6g}")
    return 0


def _list(args: argparse.Namespace) -> int:
    for name, experiment in sorted(experiments.REGISTRY.items()):
        print(f"{name:28} {experiment.description}")
    return 0


def _run(args: argparse.Namespace) -> int:
    table = experiments.run(args.name, scale=args.scale, seed=args.seed, refresh=args.refresh)
    if args.format == "json":
        print(table.to_json(orient="records"))
    else:
        print(table.to_csv(index=False), end="")
    return 0


def _data(args: argparse.Namespace) -> int:
    names = args.only or sorted(experiments.REGISTRY)
    for name in names:
        if name not in experiments.REGISTRY:
            raise ValueError(
                f"experiment={name!r} is not one of: {', '.join(experiments.REGISTRY)}"
            )
    for name in tqdm(names, desc="experiments", unit="exp", file=sys.stderr):
        started = time.perf_counter()
        table = experiments.run(name, scale="full", seed=args.seed, refresh=not args.keep)
        tqdm.write(
            f"{name}: {len(table)} rows in {time.perf_counter() - started:.1f} s", file=sys.stderr
        )
    return 0


def _parser() -> _Parser:
    parser = _Parser(prog="tcplab", description=__doc__.splitlines()[0])
    parser.add_argument("--version", action="version", version=f"tcplab {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    commands.required = True

    saw = commands.add_parser("sawtooth", help="one AIMD connection alone on a link")
    saw.add_argument("--beta", type=float, default=0.5, help="decrease factor, in (0, 1)")
    saw.add_argument("--eta", type=float, default=1.0, help="rate increase per unit time, > 0")
    saw.add_argument("--capacity", type=float, default=1.0, help="link capacity c, > 0")
    saw.add_argument("--events", type=int, default=1000, help="congestion events, >= 1")
    saw.add_argument("--seed", type=int, default=0)
    saw.add_argument("--json", action="store_true", help="print one JSON object")
    saw.set_defaults(handler=_sawtooth)

    listing = commands.add_parser("list", help="list the experiments behind the book")
    listing.set_defaults(handler=_list)

    run = commands.add_parser("run", help="run one experiment and print its table")
    run.add_argument("name", help="experiment name (see `tcplab list`)")
    run.add_argument("--scale", choices=experiments.SCALES, default="quick")
    run.add_argument("--seed", type=int, default=0)
    run.add_argument("--format", choices=("csv", "json"), default="csv")
    run.add_argument("--refresh", action="store_true", help="recompute even if cached")
    run.set_defaults(handler=_run)

    data = commands.add_parser("data", help="recompute the full-scale results in data/")
    data.add_argument("--only", nargs="+", metavar="NAME", help="only these experiments")
    data.add_argument("--seed", type=int, default=0)
    data.add_argument("--keep", action="store_true", help="keep results that are up to date")
    data.set_defaults(handler=_data)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``tcplab`` command; returns the exit status."""
    try:
        args = _parser().parse_args(argv)
        return args.handler(args)
    except (UsageError, ValueError) as error:
        print(f"tcplab: error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("tcplab: interrupted; data/ holds only complete results", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
