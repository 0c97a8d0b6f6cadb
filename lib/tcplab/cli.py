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
from typing import Any

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

    if args.scale == "quick" and registry.quick_folder():  # written to: try it
        writable.check_folder(registry.quick_folder() or "")
    table = registry.run(args.name, scale=args.scale, seed=args.seed, refresh=args.refresh)
    if args.format == "json":
        print(table.to_json(orient="records"))
    else:
        print(table.to_csv(index=False), end="")
    return 0


def _data_arguments(data: argparse.ArgumentParser) -> None:
    data.add_argument("--only", nargs="+", metavar="NAME", help="only these experiments")
    data.add_argument("--seed", type=int, default=0)
    what = data.add_mutually_exclusive_group()
    what.add_argument("--keep", action="store_true", help="keep results that are up to date")
    what.add_argument(
        "--status", action="store_true",
        help="list every table: fresh, stale (why), corrupt (why) or missing; computes nothing",
    )  # fmt: skip
    what.add_argument(
        "--restamp", action="store_true",
        help="recompute the quick tables of the experiments whose code changed; where the "
        "quick table is unchanged, rewrite only the fingerprint",
    )  # fmt: skip
    data.add_argument("--json", action="store_true", help="--status or --restamp as JSON")
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


def _names(args: argparse.Namespace) -> list[str]:
    """The experiments ``tcplab data`` works on: ``--only``'s (each once, in order), else all;
    at ``--scale paper`` only those with a paper grid (``--only`` naming another is refused)."""
    from . import registry
    from .checks import check_choice

    names = list(dict.fromkeys(args.only or sorted(registry.REGISTRY)))
    for name in names:  # refuse a bad name first
        check_choice("--only", name, registry.REGISTRY)
    if args.scale == "paper" and not (args.status or args.restamp):
        without = [n for n in names if not registry.REGISTRY[n].has_paper_grid()]
        if args.only and without:
            raise ValueError(
                f"--scale paper: {', '.join(without)} has no paper grid (its paper scale is its "
                "full scale): leave out --scale paper"
            )
        names = [n for n in names if n not in without]
    return names


def _data(args: argparse.Namespace) -> int:
    from . import cache
    from .checks import check_int

    if args.json and not (args.status or args.restamp):
        raise ValueError("--json applies to --status and --restamp only")
    if (args.status or args.restamp) and (args.scheduler or args.cluster):
        flag = "--status" if args.status else "--restamp"
        raise ValueError(f"{flag} runs here: --scheduler and --cluster apply to computing tables")
    names = _names(args)
    check_int("--seed", args.seed, 0)
    if args.status:
        return _status(names, args.json)
    writable.check_folder(cache.DATA_DIR)  # refuse a folder that cannot hold the results
    if args.restamp:
        return _restamp(names, args.json)
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


def _status(names: Sequence[str], as_json: bool) -> int:
    """``tcplab data --status``: one line per table (or JSON), then the counts."""
    import json

    from .restamp import statuses

    rows = [
        {"table": table.label, "state": status.state, "why": status.why}
        for table, status in statuses()
        if table.experiment in names
    ]
    if as_json:
        print(json.dumps(rows, indent=1))
        return 0
    for row in rows:
        print(f"{row['state']:8} {row['table']}" + (f": {row['why']}" if row["why"] else ""))
    counts = {
        s: sum(r["state"] == s for r in rows) for s in ("fresh", "stale", "corrupt", "missing")
    }
    print(f"{len(rows)} tables: " + ", ".join(f"{n} {s}" for s, n in counts.items()))
    return 0


def _restamp(names: Sequence[str], as_json: bool) -> int:
    """``tcplab data --restamp``: a line per table as it is decided (or JSON at the end)."""
    import json

    from tqdm import tqdm

    from .restamp import restamp

    def report(outcome: Any) -> None:
        if not as_json and (outcome.action != "fresh" or outcome.why):  # counted, not listed
            tqdm.write(outcome.line(), file=sys.stdout)
            sys.stdout.flush()

    outcomes = restamp(only=list(names), report=report)
    if as_json:
        print(json.dumps(
            [{"table": o.table.label, "action": o.action, "why": o.why} for o in outcomes],
            indent=1,
        ))  # fmt: skip
        return 0
    counts: dict[str, int] = {}
    for outcome in outcomes:
        counts[outcome.action] = counts.get(outcome.action, 0) + 1
    print(f"{len(outcomes)} tables: " + ", ".join(f"{n} {a}" for a, n in sorted(counts.items())))
    return 0


def _compute(names: Sequence[str], args: argparse.Namespace) -> int:
    from tqdm import tqdm

    from . import registry
    from .tasks import current_executor

    executor = current_executor()
    for name in tqdm(names, desc="experiments", unit="exp", file=sys.stderr):
        started = time.perf_counter()
        sent = getattr(executor, "sent", 0)
        if args.keep:
            status = registry.status(name, scale=args.scale, seed=args.seed)
            if status.state == "fresh":
                tqdm.write(f"{name}: up to date", file=sys.stderr)
                continue
            tqdm.write(f"{name}: {status.why}: computed again", file=sys.stderr)
        table = registry.run(name, scale=args.scale, seed=args.seed, refresh=True)
        where = ""
        if executor is not None and getattr(executor, "sent", 0) == sent:
            where = " (nothing sent to the cluster: not yet on tcplab.tasks)"
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
    except LookupError as error:  # a stored result that is stale, corrupt or missing
        cache = sys.modules.get("tcplab.cache")
        if cache is None or not isinstance(error, cache.Unreadable):
            raise
        message, status = f"error: {error}", 1
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
