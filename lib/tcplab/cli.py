"""The ``tcplab`` command line: run any model or experiment, print JSON or CSV.

The entry point, and the commands that belong to no chapter (list, run, data); each chapter's
command lives in its package (``command.py``), declared in :mod:`tcplab.commands` and imported
only when it runs. Every bad argument ends in one line on stderr that names the flag, its value
and the allowed range (:mod:`tcplab.flags`), an unusable folder or output one line naming the
path (:mod:`tcplab.writable`), Ctrl-C one line and status 130; never a traceback.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import time
from collections.abc import Iterable, Sequence

from . import __version__, commands, flags, writable
from .commands import Command, Parser, UsageError

__all__ = ["main", "COMMANDS"]


# -- the commands that belong to no chapter (list, run, data) -------------------------------
def _list(args: argparse.Namespace) -> int:
    from . import registry

    print("\n".join(f"{n:28} {e.description}" for n, e in sorted(registry.REGISTRY.items())))
    return 0


def _run_arguments(run: argparse.ArgumentParser) -> None:
    from . import registry

    run.add_argument("name", help="experiment name (see `tcplab list`)")
    run.add_argument("--scale", choices=registry.SCALES, default="quick")
    run.add_argument("--seed", type=int, default=0)
    run.add_argument("--format", choices=("csv", "json"), default="csv")
    run.add_argument("--refresh", action="store_true", help="recompute even if cached")


def _run(args: argparse.Namespace) -> int:
    from . import registry

    if args.scale == "quick" and os.environ.get(registry.QUICK_CACHE):  # written to: try it
        writable.check_folder(os.environ[registry.QUICK_CACHE])
    table = registry.run(args.name, scale=args.scale, seed=args.seed, refresh=args.refresh)
    if args.format == "json":
        print(table.to_json(orient="records"))
    else:
        print(table.to_csv(index=False), end="")
    return 0


def _data_arguments(data: argparse.ArgumentParser) -> None:
    data.add_argument("--only", nargs="+", metavar="NAME", help="only these experiments")
    data.add_argument("--seed", type=int, default=0)
    data.add_argument("--keep", action="store_true", help="keep results that are up to date")
    data.add_argument(
        "--scale", choices=("full", "paper"), default="full",
        help="paper: the paper's own grid where it is larger than the book's (lu-scenarios), "
        "stored as data/<name>.paper.csv",
    )  # fmt: skip
    where = data.add_mutually_exclusive_group()
    where.add_argument(
        "--scheduler", metavar="tcp://HOST:PORT",
        help="run the experiments' tasks on this Dask scheduler's workers (see the README)",
    )  # fmt: skip
    where.add_argument(
        "--cluster", choices=("local",),
        help="local: on a Dask LocalCluster of this machine (one process per core)",
    )  # fmt: skip
    data.add_argument(
        "--cluster-workers", type=int, metavar="N", help="--cluster local's processes, 1-1024"
    )
    data.add_argument(
        "--timeout", type=float, metavar="SECONDS",
        help="how long to wait for --scheduler to answer, in [0.1, 3600] (default 10)",
    )  # fmt: skip


def _executor(args: argparse.Namespace) -> contextlib.AbstractContextManager[object]:
    """Where ``tcplab data`` runs the experiments' tasks: the local process pool, the Dask
    scheduler of ``--scheduler``, or a LocalCluster (``--cluster local``)."""
    from .checks import check_int, check_range

    if args.cluster_workers is not None and args.cluster is None:
        raise ValueError(f"--cluster-workers={args.cluster_workers} needs --cluster local")
    if args.timeout is not None and args.scheduler is None:
        raise ValueError(f"--timeout={args.timeout:g} applies to --scheduler only")
    if args.scheduler is None and args.cluster is None:
        return contextlib.nullcontext()
    from .cluster import dask_executor  # imports Dask: only when asked for

    if args.scheduler is not None:
        timeout = 10.0 if args.timeout is None else args.timeout
        return dask_executor(args.scheduler, timeout=check_range("--timeout", timeout, 0.1, 3600))
    workers = (os.cpu_count() or 1) if args.cluster_workers is None else args.cluster_workers
    return dask_executor(local_workers=check_int("--cluster-workers", workers, 1, 1024))


def _data(args: argparse.Namespace) -> int:
    from . import cache, registry
    from .checks import check_choice, check_int

    names = args.only or sorted(registry.REGISTRY)
    for name in names:  # refuse a bad name, or a folder that cannot hold the results, first
        check_choice("--only", name, registry.REGISTRY)
    check_int("--seed", args.seed, 0)
    writable.check_folder(cache.DATA_DIR)
    with _executor(args):
        try:
            return _compute(names, args)
        except RuntimeError as error:
            if args.scheduler is None and args.cluster is None:
                raise
            from .cluster import ClusterLost

            if not isinstance(error, ClusterLost):
                raise
            print(f"tcplab: error: {error}", file=sys.stderr)
            return 1


def _compute(names: Sequence[str], args: argparse.Namespace) -> int:
    from tqdm import tqdm

    from . import registry
    from .tasks import current_executor

    executor = current_executor()
    for name in tqdm(names, desc="experiments", unit="exp", file=sys.stderr):
        started = time.perf_counter()
        sent = getattr(executor, "sent", 0)
        table = registry.run(name, scale=args.scale, seed=args.seed, refresh=not args.keep)
        where = ""
        if executor is not None and getattr(executor, "sent", 0) == sent:
            where = " (nothing sent to the cluster: up to date, or not yet on tcplab.tasks)"
        tqdm.write(
            f"{name}: {len(table)} rows in {time.perf_counter() - started:.1f} s{where}",
            file=sys.stderr,
        )
    return 0


#: this module's commands, by the convention of :mod:`tcplab.commands`
COMMANDS = (
    Command("list", "list the experiments behind the book", lambda parser: None, _list),
    Command("run", "run one experiment and print its table", _run_arguments, _run),
    Command("data", "recompute the full-scale results in data/", _data_arguments, _data),
)


# -- the entry point ------------------------------------------------------------------------
def _parser(names: Iterable[str] | None = None) -> Parser:
    """The parser of every command, each listed with its one-line help; only the commands in
    ``names`` (all when None) get their flags, which imports their modules."""
    parser = Parser(prog="tcplab", description=__doc__.splitlines()[0])
    parser.add_argument("--version", action="version", version=f"tcplab {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    subparsers.required = True
    parser.subcommands = subparsers.choices
    wanted = None if names is None else set(names)
    for name, help_text, _ in commands.TABLE:
        sub = subparsers.add_parser(name, help=help_text)
        if wanted is None or name in wanted:
            command = commands.load(name)
            command.add_arguments(sub)
            sub.set_defaults(handler=command.run)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``tcplab`` command; returns the exit status."""
    argv = sys.argv[1:] if argv is None else list(argv)
    named = [word for word in argv if not word.startswith("-")][:1]  # the command, if any
    command = None
    try:
        parser = _parser(named)
        command = parser.subcommands.get(named[0]) if named else None
        # argparse prints --help, a command prints its results: a failed write is OutputError
        return writable.printing(lambda: (args := parser.parse_args(argv)).handler(args))
    except (UsageError, ValueError) as error:
        message, status = f"error: {flags.one_line(str(error), argv, command)}", 2
    except BrokenPipeError:  # output piped into `head`: not an error of ours
        sys.stdout = open(os.devnull, "w")  # noqa: SIM115  (stop the flush at exit failing)
        return 0
    except (OSError, writable.OutputError) as error:  # a folder, or the output, not writable
        message, status = f"error: {writable.describe(error)}", 1
    except KeyboardInterrupt:
        done = "; data/ holds only complete results" if named in (["data"], ["run"]) else ""
        message, status = f"interrupted{done}", 130
    print(f"tcplab: {message}", file=sys.stderr)  # one line, never a traceback
    return status


if __name__ == "__main__":
    sys.exit(main())
