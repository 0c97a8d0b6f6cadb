"""The ``tcplab`` subcommands, declared in one table and imported only when one runs.

Each chapter owns its command, in its package's ``command.py``; this module is the
declaration the entry point (:mod:`tcplab.cli`) reads, like :mod:`tcplab.registry` for the
experiments. The convention a command module follows, per command:

* ``NAME`` (the subcommand), ``HELP`` (its one-line help),
  ``add_arguments(parser: argparse.ArgumentParser) -> None`` and
  ``run(args: argparse.Namespace) -> int`` (the exit status) as module-level names; or,
  for a module that defines several commands, a tuple ``COMMANDS`` of :class:`Command`.

:data:`TABLE` lists every command as (name, one-line help, module), in the order
``tcplab --help`` shows them, so that the top-level help imports no chapter: a command's
module is imported when it runs or when its own ``--help`` is asked. A test keeps each row's
help equal to its module's ``HELP``. A new command is one more row.

A command reports bad input by raising :class:`UsageError` (or ``ValueError``, which the
models raise): the entry point prints it as one line and exits with status 2.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Callable, Mapping, Sequence
from typing import Any, NamedTuple, NoReturn

__all__ = ["Command", "Parser", "TABLE", "UsageError", "load", "print_summary"]


class UsageError(Exception):
    """A bad command line; its message is printed as one line."""


class Parser(argparse.ArgumentParser):
    """The parser of ``tcplab`` and of each command: an error is a :class:`UsageError` in the
    one style of :func:`tcplab.flags.one_line`, instead of argparse's usage and exit."""

    subcommands: Mapping[str, argparse.ArgumentParser]  # the top level's, by name
    words: Sequence[str] = ()  # what the last parse read, for the messages

    def parse_known_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> tuple[argparse.Namespace, list[str]]:
        self.words = list(sys.argv[1:] if args is None else args)
        return super().parse_known_args(args, namespace)

    def error(self, message: str) -> NoReturn:
        from .flags import one_line

        unknown = [w for w in self.words if w.startswith("-")][:1]
        if message.endswith("required: COMMAND") and unknown:  # tcplab --bogus
            message = f"unrecognized option {unknown[0]}: give a COMMAND first (tcplab --help)"
        raise UsageError(one_line(message, self.words, None))


class Command(NamedTuple):
    """One subcommand: its name, one-line help, how it reads its flags and how it runs
    (immutable; a named tuple rather than a dataclass, which would add 10 ms to every start)."""

    name: str
    help: str
    add_arguments: Callable[[argparse.ArgumentParser], None]
    run: Callable[[argparse.Namespace], int]


_CHAPTERS = "tcplab.chapters"

#: every subcommand, as (name, one-line help, module that defines it), in the help's order
TABLE: tuple[tuple[str, str, str], ...] = (
    ("sawtooth", "one AIMD connection alone on a link", f"{_CHAPTERS}.sawtooth.command"),
    (
        "fluid",
        "N AIMD connections, exact fluid model (Altman et al.)",
        f"{_CHAPTERS}.insensitivity.command",
    ),
    (
        "packet",
        "N TCP flows on a dumbbell, packet-level (simpy)",
        f"{_CHAPTERS}.packets.command",
    ),
    (
        "morris",
        "Morris (1997): N Tahoe flows through RED, his Figure 2 set-up",
        f"{_CHAPTERS}.morris.command",
    ),
    (
        "trace",
        "one TCP flow, chosen packets dropped: every sender event (loss script)",
        f"{_CHAPTERS}.microscope.command",
    ),
    (
        "weighted",
        "N TCP flows against N AIMD(D^2, 1/2) flows on Honda's 60 Mb/s RED bottleneck",
        f"{_CHAPTERS}.bmc.command",
    ),
    (
        "bmc",
        "BMC's proportion manager on the thesis's multipath examples (Honda)",
        f"{_CHAPTERS}.bmc.command",
    ),
    (
        "predict",
        "parallel TCP throughput at every n from two probes (Lu et al.)",
        f"{_CHAPTERS}.lu.command",
    ),
    (
        "tame",
        "TameParallelTCP: the advisor from measured probes or the packet model (Lu et al.)",
        f"{_CHAPTERS}.lu.command",
    ),
    (
        "lu",
        "one run of Lu et al.'s scenarios: parallel flows and cross traffic",
        f"{_CHAPTERS}.lu.command",
    ),
    (
        "transfers",
        "Lee et al. (2012): N parallel finite transfers on an emulated path",
        f"{_CHAPTERS}.lee.command",
    ),
    (
        "claims",
        "the reproduction ledger: every item of every paper and its status",
        "tcplab.ledger.command",
    ),
    ("list", "list the experiments behind the book", "tcplab.cli"),
    ("run", "run one experiment and print its table", "tcplab.cli"),
    ("data", "recompute the full-scale results in data/", "tcplab.cli"),
)


def load(name: str) -> Command:
    """The command ``name`` of :data:`TABLE`, its module imported now."""
    module = importlib.import_module(dict((n, m) for n, _, m in TABLE)[name])
    if hasattr(module, "COMMANDS"):
        found = [c for c in module.COMMANDS if c.name == name]
        if len(found) != 1:
            raise LookupError(f"{module.__name__} defines command {name!r} {len(found)} times")
        return found[0]
    if module.NAME != name:
        raise LookupError(f"{module.__name__} defines {module.NAME!r}, not {name!r}")
    return Command(module.NAME, module.HELP, module.add_arguments, module.run)


def print_summary(summary: dict[str, Any], as_json: bool) -> None:
    """One JSON object, or one ``key: value`` line per entry (lists and dicts on one line)."""
    import json

    if as_json:
        print(json.dumps(summary))
        return
    for key, value in summary.items():
        if isinstance(value, list) and value and isinstance(value[0], dict):
            print(f"{key:>16}: {len(value)} entries (--json shows them)")
        elif isinstance(value, list):
            print(f"{key:>16}: " + ", ".join("-" if v is None else f"{v:.4g}" for v in value))
        elif isinstance(value, dict):
            print(f"{key:>16}: " + ", ".join(f"{k} {v:.4g}" for k, v in value.items()))
        else:
            print(f"{key:>16}: {value}")
