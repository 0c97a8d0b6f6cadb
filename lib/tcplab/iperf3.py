"""The advisor's probe on a real network: ``iperf3 -c HOST -P n -t T -O W -J``, its JSON read
against a schema of the fields the advisor uses, a busy server waited for, a vanished one named.

An iperf3 server serves one test at a time: a client that comes while it is busy is told "the
server is busy running a test", and :class:`Iperf3Probe` tries again after 0.5, 1, 2, 4 ... s
until :data:`BUSY_WAIT_S` have passed. A server started with ``iperf3 -s -1`` serves a single
test and exits, so the advisor's second run is refused: the message says so, and that the
advisor needs ``len(probes) x repeat + 1`` runs (:func:`runs_needed`).

What is read from iperf3's JSON (:func:`read_report`, everything else ignored): an object
with ``error`` (a string; non-empty means iperf3 failed), ``start.connected`` (a list, one entry
per stream), ``end.sum_received`` with ``bytes`` (a whole number in [0, 2^64)), ``seconds``
(finite, from half the asked duration to the run's timeout; ``start.test_start.duration``, when
present, the asked one) and ``bits_per_second`` (finite,
equal to 8 bytes / seconds within 1%: iperf3 computes it so), and ``end.sum_sent.retransmits``
when present (a whole number >= 0). JSON nested deeper than :data:`DEEPEST` (iperf3 writes 5
levels) is refused before its values are read. Every failure is a :class:`ProbeError` whose
message is one line naming iperf3, the server and what was wrong, control characters escaped.

Nothing here starts a process at import (the chapter's panel imports the advisor in the
browser).
"""

from __future__ import annotations

import json
import math
import time
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .checks import check_int, check_range

__all__ = [
    "BUSY_WAIT_S",
    "DEEPEST",
    "MOST_STREAMS",
    "Iperf3Probe",
    "Iperf3Run",
    "ProbeError",
    "parse_host",
    "parse_iperf3",
    "printable",
    "read_report",
    "runs_needed",
]

#: how long a busy server is waited for, in all, before the run fails (seconds)
BUSY_WAIT_S = 30.0
#: the most parallel streams iperf3 runs (its -P limit)
MOST_STREAMS = 128
#: the deepest JSON nesting read (iperf3 writes 5 levels: end.streams[i].sender.x)
DEEPEST = 16
BUSY = "the server is busy running a test"


class ProbeError(RuntimeError):
    """A probe could not measure (server unreachable, connection refused, iperf3 failed):
    the message is one line naming the host and what failed."""


def printable(text: str, limit: int = 200) -> str:
    """``text`` safe for one terminal line: control and format characters (ESC, newline, the
    bidirectional overrides) written as escapes, cut to ``limit`` characters."""
    shown = "".join(
        ch if unicodedata.category(ch)[0] != "C" else ch.encode("unicode_escape").decode("ascii")
        for ch in text[: limit + 1]
    )
    return shown if len(text) <= limit else shown[:limit] + "..."


def runs_needed(levels: int, repeat: int, validate: bool) -> int:
    """The iperf3 runs the advisor makes: ``repeat`` at each of ``levels`` probe levels, and
    one more at the chosen n when it validates."""
    return levels * repeat + int(validate)


def parse_host(text: str) -> tuple[str, int | None]:
    """``HOST``, ``HOST:PORT`` or ``[IPv6]:PORT`` -> (host, port or None)."""
    text = text.strip()
    if text.startswith("["):
        host, _, rest = text[1:].partition("]")
        port_text = rest[1:] if rest.startswith(":") else ""
    elif text.count(":") == 1:
        host, _, port_text = text.partition(":")
    else:
        host, port_text = text, ""
    if not host:
        raise ValueError(f"--iperf3 {text!r}: no host; give HOST or HOST:PORT")
    if not port_text:
        return host, None
    try:
        port = int(port_text)
    except ValueError:
        raise ValueError(f"--iperf3 {text!r}: port {port_text!r} is not a number") from None
    return host, check_int("port", port, 1, 65535)


@dataclass(frozen=True)
class Iperf3Run:
    """What the advisor reads from one iperf3 run: the receiver's ``mbit_per_s`` over the
    measured ``seconds`` (warm-up omitted), its ``bytes``, and the sender's ``retransmits``
    (None where iperf3 does not report them)."""

    mbit_per_s: float
    bytes: int
    seconds: float
    retransmits: int | None


def _kind(value: Any) -> str:
    """The JSON name of a parsed value's type."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    return "an array" if isinstance(value, list) else "an object"


def _depth(value: Any) -> int:
    """How deeply ``value`` nests arrays and objects (iteratively: no recursion limit)."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, dict | list):
            deepest = max(deepest, level)
            if level > DEEPEST:
                return level
            children = item.values() if isinstance(item, dict) else item
            stack.extend((child, level + 1) for child in children)
    return deepest


def _object(report: dict[str, Any], path: str) -> dict[str, Any]:
    """The object at ``path`` ("end.sum_received"), or a ValueError naming what is wrong."""
    value: Any = report
    walked: list[str] = []
    for key in path.split("."):
        if key not in value:
            raise ValueError(f"{'.'.join(walked) or 'its JSON'} has no {key}")
        value = value[key]
        walked.append(key)
        if not isinstance(value, dict):
            raise ValueError(f"{'.'.join(walked)} is {_kind(value)}, not an object")
    return value


def _number(block: dict[str, Any], path: str, key: str, whole: bool = False) -> float:
    """``block[key]``: a finite JSON number (a whole one if ``whole``), else a ValueError."""
    if key not in block:
        raise ValueError(f"{path} has no {key}")
    value = block[key]
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError(f"{path}.{key} is {_kind(value)}, not a number")
    if not math.isfinite(value):
        raise ValueError(f"{path}.{key} is {value!r}, not a finite number")
    if whole and not float(value).is_integer():
        raise ValueError(f"{path}.{key} = {value!r} is not a whole number")
    return value


def read_report(
    text: str, flows: int, duration: float | None = None, longest: float = math.inf
) -> Iperf3Run:
    """Check ``iperf3 -J`` output against the schema (module docstring) for a run of
    ``flows`` streams asked to measure ``duration`` s (None: any) within ``longest`` s: an
    :class:`Iperf3Run`, or a ValueError saying what was wrong (starting "failed: " when
    iperf3 itself reported an error)."""
    try:
        report = json.loads(text)
    except RecursionError:
        raise ValueError(f"its JSON nests deeper than {DEEPEST} levels") from None
    except json.JSONDecodeError:
        raise ValueError(f"its output is not JSON ({printable(text[:60], 60)!r})") from None
    except ValueError as error:  # a number of more than 4300 digits
        raise ValueError(f"its JSON is not readable ({printable(str(error), 80)})") from None
    if _depth(report) > DEEPEST:
        raise ValueError(f"its JSON nests deeper than {DEEPEST} levels")
    if not isinstance(report, dict):
        raise ValueError(f"its JSON is {_kind(report)}, not an object")
    failure = report.get("error")
    if failure is not None and not isinstance(failure, str):
        raise ValueError(f"its error is {_kind(failure)}, not a string")
    if failure:
        raise ValueError(f"failed: {printable(failure)}")
    asked = _object(report, "start").get("test_start")
    if duration is not None and isinstance(asked, dict) and "duration" in asked:
        ran = _number(asked, "start.test_start", "duration")
        if ran != duration:
            raise ValueError(f"start.test_start.duration = {ran:g}, asked for {duration:g} s")
    connected = _object(report, "start").get("connected")
    if not isinstance(connected, list):
        raise ValueError(f"start.connected is {_kind(connected)}, not an array")
    if len(connected) != flows:
        raise ValueError(f"{len(connected)} streams connected, {flows} asked for")
    received = _object(report, "end.sum_received")
    where = "end.sum_received"
    count = int(_number(received, where, "bytes", whole=True))
    if not 0 <= count < 2**64:
        raise ValueError(f"{where}.bytes = {count} is outside [0, 2^64)")
    seconds = _number(received, where, "seconds")
    shortest = 0.0 if duration is None else duration / 2
    if not (shortest < seconds <= longest and (duration is None or seconds >= shortest)):
        asked = "" if duration is None else f", asked for {duration:g} s"
        raise ValueError(
            f"{where}.seconds = {seconds:g} is outside ({shortest:g}, {longest:g}]{asked}"
        )
    bits = _number(received, where, "bits_per_second")
    expected = 8.0 * count / seconds
    if abs(bits - expected) > 0.01 * max(abs(bits), expected):
        raise ValueError(
            f"{where}.bits_per_second = {bits:g} disagrees with 8 x bytes / seconds = {expected:g}"
        )
    if count == 0:
        raise ValueError(f"nothing received ({where}.bytes = 0)")
    retransmits = None
    if "sum_sent" in _object(report, "end"):
        sent = _object(report, "end.sum_sent")
        if "retransmits" in sent:
            retransmits = int(_number(sent, "end.sum_sent", "retransmits", whole=True))
            if retransmits < 0:
                raise ValueError(f"end.sum_sent.retransmits = {retransmits} is negative")
    return Iperf3Run(bits / 1e6, count, float(seconds), retransmits)


def parse_iperf3(
    text: str, where: str, flows: int, duration: float | None = None, longest: float = math.inf
) -> float:
    """The receiver's throughput (Mbit/s, warm-up omitted) from ``iperf3 -J`` output, read
    against the schema (:func:`read_report`); a :class:`ProbeError` naming ``where``."""
    try:
        return read_report(text, flows, duration, longest).mbit_per_s
    except ValueError as error:
        raise ProbeError(_says(where, flows, str(error))) from None


def _says(where: str, flows: int, problem: str) -> str:
    if problem.startswith("failed: "):
        return f"iperf3 to {where} with {flows} streams {problem}"
    return f"iperf3 to {where} with {flows} streams: {problem}"


@dataclass
class Iperf3Probe:
    """A probe that runs ``iperf3 -c host [-p port] -P n -t duration -O omit -J`` ``repeat``
    times and returns the mean receiver throughput in Mbit/s (the omitted warm-up excluded);
    ``duration`` and ``omit`` are whole seconds, as iperf3 reads them.
    ``samples`` keeps every run's value by n, ``runs`` every run's record; ``planned`` (the
    number of runs the advisor will make, for the messages) is set by the caller. Each run
    has a timeout (duration + omit + ``slack_s``); a busy server is waited for up to
    ``busy_wait_s`` per run."""

    host: str
    port: int | None = None
    duration: int = 10
    omit: int = 2
    repeat: int = 3
    slack_s: float = 15.0
    executable: str = "iperf3"
    #: words before the command, e.g. ("ip", "netns", "exec", "NS") to probe inside a namespace
    prefix: tuple[str, ...] = ()
    busy_wait_s: float = BUSY_WAIT_S
    planned: int | None = None
    #: called after each run (a progress bar's update)
    on_run: Callable[[], object] | None = None
    samples: dict[int, list[float]] = field(default_factory=dict)
    runs: list[dict[str, Any]] = field(default_factory=list)

    def __post_init__(self) -> None:
        # iperf3 reads -t and -O as whole seconds (3.12: -t 0.5 is -t 0, a test without end)
        self.duration = check_int("duration", self.duration, 1, 3600)
        self.omit = check_int("omit", self.omit, 0, 600)
        check_int("repeat", self.repeat, 1, 100)
        check_range("busy_wait_s", self.busy_wait_s, 0.0, 3600.0)
        if self.port is not None:
            check_int("port", self.port, 1, 65535)

    @property
    def where(self) -> str:
        return self.host if self.port is None else f"{self.host}:{self.port}"

    def command(self, n: int) -> list[str]:
        """The iperf3 command line for n parallel streams."""
        port = [] if self.port is None else ["-p", str(self.port)]
        return [
            *self.prefix, self.executable, "-c", self.host, *port, "-P", str(n),
            "-t", f"{self.duration:g}", "-O", f"{self.omit:g}", "-J", "--connect-timeout", "5000",
        ]  # fmt: skip

    def _run(self, n: int) -> tuple[str, str, int]:
        """One iperf3 process: (stdout, the last line of stderr, status)."""
        import subprocess  # noqa: PLC0415 - not at import: the browser has no processes

        timeout = self.duration + self.omit + self.slack_s
        try:
            done = subprocess.run(
                self.command(n), capture_output=True, text=True, errors="replace",
                timeout=timeout, check=False,
            )  # fmt: skip
        except FileNotFoundError:
            raise ProbeError(
                f"iperf3 to {self.where}: {self.executable!r} is not installed "
                "(Debian: apt-get install iperf3)"
            ) from None
        except subprocess.TimeoutExpired:
            raise ProbeError(
                f"iperf3 to {self.where} with {n} streams did not finish in {timeout:g} s"
                f"{self._which()}"
            ) from None
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        return done.stdout, last, done.returncode

    def _which(self) -> str:
        number = len(self.runs) + 1
        return f" (run {number} of {self.planned})" if self.planned else f" (run {number})"

    def once(self, n: int) -> float:
        """One iperf3 run with n streams: Mbit/s (recorded in ``runs``, not in ``samples``);
        a busy server is tried again after 0.5, 1, 2, ... s while the pauses add up to at
        most ``busy_wait_s``."""
        n = check_int("flows", n, 1, MOST_STREAMS)
        longest = self.duration + self.omit + self.slack_s
        waited, pause, tries = 0.0, 0.5, 1
        while True:
            stdout, last, status = self._run(n)
            if not stdout.strip():
                outcome: Iperf3Run | str = f"failed (status {status}): {printable(last)}"
            else:
                try:
                    outcome = read_report(stdout, n, self.duration, longest)
                except ValueError as error:
                    outcome = _says(self.where, n, str(error))
            if isinstance(outcome, Iperf3Run):
                break
            if BUSY not in outcome:
                raise ProbeError(self._named(outcome))
            if waited + pause > self.busy_wait_s:
                raise ProbeError(
                    f"iperf3 to {self.where}: {BUSY} (another client's) through {tries} "
                    f"tries over {waited:g} s{self._which()}: try again later, or run the "
                    "advisor against a server of its own (iperf3 -s -p ANOTHER_PORT)"
                )
            time.sleep(pause)
            waited, pause, tries = waited + pause, pause * 2, tries + 1
        self.runs.append(
            {"flows": n, "mbit_per_s": outcome.mbit_per_s, "bytes": outcome.bytes,
             "seconds": outcome.seconds, "retransmits": outcome.retransmits,
             "status": status, "tries": tries}
        )  # fmt: skip
        if self.on_run is not None:
            self.on_run()
        return outcome.mbit_per_s

    def _named(self, message: str) -> str:
        """The failure with what it implies: a refusal after a first good run is a server
        that has gone (a one-off ``iperf3 -s -1`` serves one test)."""
        text = message if message.startswith("iperf3 to ") else f"iperf3 to {self.where} {message}"
        lowered = message.lower()
        if ("refused" in lowered or "unable to connect" in lowered) and self.runs:
            plural = "s" if len(self.runs) > 1 else ""
            return (
                f"{text}{self._which()}: the server answered {len(self.runs)} run{plural} "
                "and has gone (stopped, or a one-off iperf3 -s -1, which serves one test): "
                f"the advisor needs {self.planned or 'several'} runs; start it as iperf3 -s"
            )
        if "closed unexpectedly" in lowered:
            return f"{text}{self._which()}: the server went away during the run"
        return text + (self._which() if self.runs else "")

    def lossless(self, n: int) -> str | None:
        """A one-line reason when every run at n streams reported zero retransmissions (the
        connections were not loss-limited: window- or sender-limited, or the run was shorter
        than one congestion epoch), else None."""
        counts = [r["retransmits"] for r in self.runs if r["flows"] == n]
        if not counts or any(c is None or c > 0 for c in counts):
            return None
        return (
            f"iperf3 to {self.where}: {n} stream{'s' if n > 1 else ''} retransmitted nothing in "
            f"{len(counts)} run{'s' if len(counts) > 1 else ''}: not loss-limited (held by "
            "its window - the socket buffer -, by the sender, by a rate limit it fills without "
            "loss, or shorter than one congestion epoch), so the loss model does not apply; "
            "raise the socket buffer (iperf3 -w) or probe longer"
        )

    def __call__(self, n: int) -> float:
        values = [self.once(n) for _ in range(self.repeat)]
        self.samples.setdefault(n, []).extend(values)
        return float(np.mean(values))
