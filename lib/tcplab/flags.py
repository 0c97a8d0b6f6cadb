"""Reading the flag values several ``tcplab`` commands share, and the one style of their errors.

Values: number lists (``0.4,0.6``), numbers of flows (``1-31`` or ``1,2,5``), probe pairs
(``N:THROUGHPUT``), and budgets on the product of several size flags. A bad value raises
:class:`tcplab.commands.UsageError` (or the models' ``ValueError``) whose one line names the
flag, its value and the allowed range, as ``--flows '1-1000000000' asks for up to 1000000000
flows; the allowed range is [1, 10000]`` or ``--k=2.0 is outside the allowed range (0, 1]``.
The entry point shapes every message the same way (:func:`one_line`): a model's message about
its parameter gets the flag in front, as argparse writes its own (``argument --rate-mbps:
rate_mbps=0.0 is outside the allowed range (0, 10000]``), a value that argparse took for an
option gets the ``--flag=VALUE`` hint, an over-long value is shortened.
"""

from __future__ import annotations

import argparse
import math
import re
from collections.abc import Sequence
from typing import Any

from .commands import UsageError

__all__ = [
    "LARGER_RUNS",
    "MOST_FLOWS_PREDICTED",
    "numbers",
    "levels",
    "probe_pairs",
    "budget",
    "one_line",
    "shorten",
]

#: the largest number of flows ``predict`` and ``tame`` take (the paper's grid stops at 31)
MOST_FLOWS_PREDICTED = 10_000
#: a value longer than this is shown by its start and its length
LONGEST_SHOWN = 60
#: a probe's throughput: Lu et al.'s fit squares it (y = n^2 / T^2), finite and normal for
#: every n up to MOST_FLOWS_PREDICTED only while T lies within float64's 1.3e154 (its square
#: root of 1.8e308), with four decades of margin
PROBE_THROUGHPUT = (1e-150, 1e150)
#: the end of the help of every command with size flags: where a larger run belongs
LARGER_RUNS = (
    "Size flags are bounded so that a run takes at most a few minutes of one core. A larger "
    "run belongs in an experiment of the registry (lib/tcplab/chapters/*/experiments.py), "
    "computed by `tcplab data --only NAME`, on a cluster with --scheduler or --cluster local."
)


def numbers(name: str, text: str | None) -> Any:
    """``"0.5"`` -> 0.5, ``"0.4,0.6"`` -> [0.4, 0.6]; a bad entry names the parameter."""
    if text is None:
        return None
    try:
        values = [float(part) for part in text.split(",")]
    except ValueError:
        raise ValueError(f"{name}={text!r} is not a number or a comma-separated list") from None
    return values[0] if len(values) == 1 else values


def levels(flag: str, text: str, most: int = MOST_FLOWS_PREDICTED) -> list[int]:
    """``"1-31"`` -> 1..31, ``"1,2,5"`` -> [1, 2, 5], each in [1, most]; a bad entry names
    the flag. A range is checked before it is built: ``1-1000000000`` costs nothing."""
    allowed = f"the allowed range is [1, {most}]"
    try:
        if "-" in text:
            low_text, _, high_text = text.partition("-")
            low, high = int(low_text), int(high_text)
            if low > high:
                raise UsageError(f"{flag} {text!r} is an empty range: A-B needs A <= B")
            bounds = [low, high]
        else:
            bounds = [int(part) for part in text.split(",")]
    except ValueError:
        raise UsageError(f"{flag} {text!r} is not a range A-B or a list A,B,... of flows") from None
    if min(bounds) < 1:
        raise UsageError(f"{flag} {text!r}: the numbers of flows must be in [1, {most}]")
    if max(bounds) > most:
        raise UsageError(f"{flag} {text!r} asks for up to {max(bounds)} flows; {allowed}")
    found = range(bounds[0], bounds[1] + 1) if "-" in text else bounds
    return sorted(set(found))


def probe_pairs(texts: Sequence[str], most: int = MOST_FLOWS_PREDICTED) -> list[tuple[int, float]]:
    """``--probe N:THROUGHPUT`` values, checked: N in [1, most], all different, throughputs
    in :data:`PROBE_THROUGHPUT`."""
    pairs: list[tuple[int, float]] = []
    for text in texts:
        n_text, _, bw_text = text.partition(":")
        try:
            n, bw = int(n_text), float(bw_text)
        except ValueError:
            raise UsageError(
                f"--probe {text!r} is not N:THROUGHPUT (flows N in [1, {most}], throughput > 0)"
            ) from None
        if not 1 <= n <= most:
            raise UsageError(f"--probe {text}: flows={n} is outside the allowed range [1, {most}]")
        if not (bw > 0 and math.isfinite(bw)):
            raise UsageError(
                f"--probe {text}: throughput={bw_text} is outside the allowed range (0, inf)"
            )
        low, high = PROBE_THROUGHPUT
        if not low <= bw <= high:
            raise UsageError(
                f"--probe {text}: throughput={bw_text} is outside the allowed range "
                f"[{low:g}, {high:g}] (the fit squares it)"
            )
        if n in [m for m, _ in pairs]:
            raise UsageError(
                f"--probe: two probes at flows={n}; the probes need different numbers of "
                f"flows in [1, {most}]"
            )
        pairs.append((n, bw))
    return pairs


def budget(what: str, work: float, most: float) -> None:
    """Refuse a run whose size flags, each within its own bound, together ask for more than
    ``most``: ``what`` names the flags and their values (``--flows x --events = 2 x 10``),
    ``work`` is what they ask for."""
    if not work <= most:
        raise UsageError(
            f"{what} = {work:.3g} is outside the allowed range (0, {most:.3g}] (a few minutes "
            "of one core; a larger run belongs in `tcplab data`)"
        )


# -- the one style of every message ----------------------------------------------------------
def shorten(text: str, words: Sequence[str]) -> str:
    """``text`` with each of ``words`` longer than :data:`LONGEST_SHOWN` characters cut to its
    start and its length (argparse and the models echo a bad value whole)."""
    for word in sorted({w for w in words if len(w) > LONGEST_SHOWN}, key=len, reverse=True):
        short = f"{word[:40]}... ({len(word)} characters)"
        text = text.replace(repr(word)[1:-1], short).replace(word, short)
    return text


_PARAMETER = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)(?:\[\d+\])?(?:=| )")
_NEEDS_VALUE = re.compile(r"^argument (\S+): expected (?:one argument|at least one argument)$")


def _option_of(parser: argparse.ArgumentParser, dest: str) -> str | None:
    for action in parser._actions:
        if action.dest == dest and action.option_strings:
            return max(action.option_strings, key=len)
    return None


def name_the_flag(message: str, parser: argparse.ArgumentParser | None) -> str:
    """``rate_mbps=0 is outside ...`` -> ``argument --rate-mbps: rate_mbps=0 is outside ...``
    when the message names a parameter of the command's parser and none of its flags."""
    if parser is None:
        return message
    flags = [s for a in parser._actions for s in a.option_strings if s.startswith("--")]
    if any(re.search(rf"{re.escape(f)}\b", message) for f in flags):
        return message
    found = _PARAMETER.match(message)
    option = found and _option_of(parser, found.group(1))
    return f"argument {option}: {message}" if option else message


def value_hint(message: str, argv: Sequence[str]) -> str:
    """argparse's ``expected one argument`` when the value starts with ``-`` (``-inf``,
    ``-1:10``, ``-0.5,1.5``: read as an option): say how to give it."""
    found = _NEEDS_VALUE.match(message)
    if not found:
        return message
    flag = found.group(1).split("/")[-1]
    for word, following in zip(argv, argv[1:], strict=False):
        if len(word) > 2 and flag.startswith(word) and following.startswith("-"):
            return (
                f"{message}: {following!r} starts with '-' and reads as an option; to give "
                f"it as the value, write {flag}={following}"
            )
    return message


def one_line(message: str, argv: Sequence[str], parser: argparse.ArgumentParser | None) -> str:
    """Every error message in the one style: the flag named, hints added, long values cut,
    on one line."""
    text = value_hint(name_the_flag(str(message), parser), argv)
    return " ".join(shorten(text, argv).split("\n"))
