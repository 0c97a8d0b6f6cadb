"""The command line's bad-input battery (issue 39), as data, and the runner that plays it.

The referee's 367 invocations (../shared/referee/reliability-2026-11-27.md) were not shipped;
this battery rebuilds them from the report's categories: every subcommand x every option with
negative, zero, NaN, +-inf, 1e400 and huge values, wrong types, empty values, missing values,
values that start with '-', unknown choices, wrong case and look-alike unicode, over-long
values; contradictory flags; missing required flags; malformed probes and flow ranges;
unusable data and quick-result folders; standard output on /dev/full. Every case is clearly
bad input, and says which flag (or path) its one error line must name.

The second audit (../shared/referee/reliability-2026-12-02.md) adds its classes as generators
over the same options: every spelling of a non-finite number (:data:`NONFINITE`), extreme
finite floats where an option's range excludes them (:data:`EXTREME`: the smallest subnormal,
one that underflows to 0, 1e300, -0.0), the environment's variables blank, spaces or ``~``
(:func:`env_cases`: read as unset, or refused in one line naming the variable), and Dask
peers that are no scheduler (:func:`peer_cases`: a silent one, one that sends garbage, one
that closes at once; each case must end within its ``within`` seconds).

The runner, ``python tests/cli_battery.py OUT.json [PART/PARTS]``, imports the command line
and every command's model once, then plays each case in a forked child (``cli.main`` with its
file descriptors 1 and 2 sent to files, the interpreter's exit flush emulated), at most
:data:`LIMIT_S` seconds each, two at a time; a case that needs a changed environment or a
device for its output runs the installed ``tcplab`` in a subprocess instead. The test
(tests/test_cli_battery.py) judges the outcomes.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

#: a case killed after this many seconds counts as a run without bound
LIMIT_S = 60.0
#: Python's float() reads each as inf or nan: every float option must refuse every one. The
#: options of the fluid, sawtooth, bmc and weighted commands (``domain``) get them all, every
#: other float option two (an infinity and a NaN, in turn), so that each spelling meets a dozen
#: options of every command at a seventh of the cases
NONFINITE = ["Infinity", "-Infinity", "NaN", "+nan", "INF", "1e309"]
#: extreme finite floats, and the option flag that makes each bad input: "tiny" (the smallest
#: positive double is outside the range), "zero" (0 is, and these read as 0), "huge" or "size"
EXTREME = {"5e-324": "tiny", "1e-400": "zero", "-0.0": "zero", "1e300": "huge"}
HUGE = "1" + "0" * 30  # the report's 10^30
LONG = "x" * 5000
TCPLAB = str(Path(sys.executable).parent / "tcplab")


@dataclass(frozen=True)
class Case:
    """``tcplab argv`` must fail with one ``tcplab: error:`` line that contains ``name``.

    ``env`` is set for the case (a value None removes the variable); ``output`` is where its
    standard output goes (``file``, or ``/dev/full``); ``subprocess`` runs the installed
    command instead of a forked ``cli.main``; ``within`` bounds its seconds (else LIMIT_S);
    ``expect`` is ``error`` (one line naming ``name``), or ``unset-or-error`` (it runs as if
    the variable ``name`` were unset, leaving nothing in its working folder, or it fails in
    one line naming the variable: it runs in a folder of its own, a HOME beside it, where a
    value "~" expands);
    ``encoding`` is its standard output's (as PYTHONIOENCODING sets it). An argument
    ``{peer:KIND}`` is the address of the runner's fake Dask peer of that kind. A forked case
    sees ``env`` from the call on: variables read at import (TCPLAB_DATA) need a subprocess."""

    argv: tuple[str, ...]
    name: str
    env: dict[str, str | None] = field(default_factory=dict)
    output: str = "file"
    subprocess: bool = False
    within: float = LIMIT_S
    expect: str = "error"
    encoding: str = "utf-8"

    @property
    def label(self) -> str:
        shown = " ".join(a if len(a) < 40 else f"{a[:20]}...({len(a)})" for a in self.argv)
        extra = " ".join(f"{k}={v!r}" if k.startswith("TCPLAB") else f"{k}={v}"
                         for k, v in self.env.items())  # fmt: skip
        return f"{extra} tcplab {shown}".strip() + (
            f" > {self.output}" if self.output != "file" else ""
        )


# -- every option of every command ------------------------------------------------------------
#: the smallest valid run of each command (a bad flag is added to it; alone it runs in seconds)
BASE: dict[str, tuple[str, ...]] = {
    "sawtooth": ("--events", "50"),
    "fluid": ("--events", "100", "--replicas", "2"),
    "packet": ("--flows", "2", "--duration", "3", "--warmup", "1"),
    "morris": ("--flows", "2", "--seconds", "3", "--warmup", "1"),
    "trace": ("--packets", "30"),
    "weighted": ("--weight", "0.5", "--flows", "1", "--duration", "5"),
    "bmc": ("--scenario", "shared", "--duration", "20"),
    "predict": ("--probe", "1:10", "--probe", "10:50", "--flows", "1-5"),
    "tame": ("--scenario", "1", "--max-impact", "0.3", "--cross", "1", "--max-flows", "3",
             "--probes", "1,2"),
    "lu": ("--scenario", "1", "--flows", "2", "--cross", "1"),
    "transfers": ("--flows", "2", "--bytes", "100000"),
    "run": ("moments-beatdown-path",),
    "data": ("--only", "sawtooth-paths", "--keep"),
    "claims": ("sawtooth",),  # reads data/sawtooth-utilisation (the test copies it)
}  # fmt: skip

# An option's kind: "int" or "float" (a number; "0" bad when "zero", 10^30 bad when "size",
# "-1" bad unless "negative"), "choice" (a fixed set of words), "text" (free text checked by
# the command: a list, a name), "seed". Extra flags the option needs go in "with"; an option
# of another mode of its command (tame's measured probes) gives its own smallest run in "base".
OPTIONS: dict[str, dict[str, dict[str, object]]] = {
    "sawtooth": {
        "--beta": {"kind": "float", "zero": True, "domain": True, "bad": ["1", "1.5"]},
        "--eta": {"kind": "float", "zero": True, "tiny": True, "huge": True, "domain": True},
        "--capacity": {"kind": "float", "zero": True, "tiny": True, "huge": True,
                       "domain": True},
        "--events": {"kind": "int", "zero": True, "size": True},
    },
    "fluid": {
        "--flows": {"kind": "int", "zero": True, "size": True},
        "--policy": {"kind": "choice", "words": ["fastest", "RATE-INDEPENDENT", "all "]},
        "--probs": {"kind": "text", "bad": ["0.5", "0.5,0.6", "abc", "nan,nan", "0.5,0.5,0",
                                           "NaN,1", "Infinity,0", "1e309,0"]},
        "--beta": {"kind": "text", "bad": ["1", "0", "-1", "nan", "abc", "0.5,0.5,0.5", "inf",
                                           "-0.0", "1e-400", "NaN,0.5", "0.5,Infinity"]},
        "--eta": {"kind": "text", "bad": ["0", "-1", "nan", "abc", "1,1,1", "1e400", "5e-324",
                                          "1e300", "1,NaN", "+nan,1", "Infinity", "5e-324,1"]},
        "--capacity": {"kind": "float", "zero": True, "tiny": True, "huge": True,
                       "domain": True},
        "--events": {"kind": "int", "zero": True, "size": True},
        "--replicas": {"kind": "int", "zero": True, "size": True},
        "--seed": {"kind": "seed"},
    },
    "packet": {
        "--flows": {"kind": "int", "zero": True, "size": True},
        "--queue": {"kind": "choice", "words": ["sfq", "RED", "ｒｅｄ", "réd"]},
        "--buffer": {"kind": "int", "zero": True, "size": True},
        "--rate-mbps": {"kind": "float", "zero": True, "size": True},
        "--delay-ms": {"kind": "float"},
        "--access-mbps": {"kind": "float", "zero": True},
        "--access-delay-ms": {"kind": "float"},
        "--duration": {"kind": "float", "zero": True, "size": True},
        "--warmup": {"kind": "float", "bad": ["3", "5"]},
        "--tcp": {"kind": "choice", "words": ["vegas", "Reno", "new reno"]},
        "--packet-bytes": {"kind": "int", "zero": True},
        "--delayed-ack-ms": {"kind": "float", "zero": True},
        "--initial-window": {"kind": "int", "zero": True, "size": True},
        "--min-rto-ms": {"kind": "float", "zero": True},
        "--min-th": {"kind": "float", "with": ("--queue", "red"), "bad": ["100", "200"]},
        "--max-th": {"kind": "float", "with": ("--queue", "red"), "zero": True},
        "--max-p": {"kind": "float", "with": ("--queue", "red"), "zero": True, "bad": ["1.5"]},
        "--threshold": {"kind": "int", "with": ("--queue", "threshold"), "zero": True,
                        "size": True},
        "--hold-ms": {"kind": "float", "with": ("--queue", "threshold")},
        "--select": {"kind": "choice", "with": ("--queue", "threshold"),
                     "words": ["slowest", "First"]},
        "--overhead-ms": {"kind": "float"},
        "--seed": {"kind": "seed"},
    },
    "morris": {
        "--flows": {"kind": "int", "zero": True, "size": True},
        "--buffer": {"kind": "int", "zero": True, "size": True, "bad": ["2"]},
        "--seconds": {"kind": "float", "zero": True, "size": True, "bad": ["1.5", "0.5"]},
        "--warmup": {"kind": "float", "bad": ["3", "300"]},
        "--tcp": {"kind": "text", "bad": ["vegas", "TAHOE", "tahoe-", "tahoe-nothing", "", LONG]},
        "--queue": {"kind": "text", "bad": ["fq", "Red", "ｒｅｄ", ""]},
        "--telnet": {"kind": "int", "size": True, "bad": ["1001"]},
        "--seed": {"kind": "seed"},
    },
    "trace": {
        "--tcp": {"kind": "choice", "words": ["vegas", "NewReno", "rate‑independent"]},
        "--drop": {"kind": "int", "bad": ["30", "1000", HUGE]},
        "--packets": {"kind": "int", "zero": True, "size": True},
        "--window": {"kind": "int", "zero": True},
        "--rtt-ms": {"kind": "float"},
        "--rate-mbps": {"kind": "float", "zero": True},
        "--buffer": {"kind": "int", "zero": True},
        "--initial-window": {"kind": "int", "zero": True, "bad": ["65"]},
        "--granularity": {"kind": "float", "zero": True, "tiny": True},
        "--min-rto": {"kind": "float", "zero": True},
        "--max-rto": {"kind": "float", "zero": True, "bad": ["0.1"]},
        "--a": {"kind": "float", "with": ("--tcp", "aimd"), "zero": True},
        "--beta": {"kind": "float", "with": ("--tcp", "aimd"), "zero": True, "bad": ["1"]},
    },
    "weighted": {
        "--weight": {"kind": "float", "zero": True, "tiny": True, "domain": True,
                     "bad": ["1.5"]},
        "--flows": {"kind": "int", "zero": True, "size": True},
        "--duration": {"kind": "float", "zero": True, "size": True, "domain": True},
        "--seed": {"kind": "seed"},
    },
    "bmc": {
        "--scenario": {"kind": "choice", "words": ["ring", "Shared", "①"]},
        "--model": {"kind": "choice", "words": ["ns3", "FLUID"]},
        "--controller": {"kind": "choice", "words": ["olia", "BMC", "🙂"]},
        "--j-s": {"kind": "float", "zero": True, "tiny": True, "domain": True, "bad": ["30"]},
        "--k": {"kind": "float", "zero": True, "domain": True, "bad": ["1.5"]},
        "--weights": {"kind": "text", "bad": ["0.5", "0.5,0.6", "a,b", "0,1", "nan,nan", "",
                                             "NaN,0.5", "Infinity,0", "5e-324,0.9999999999999999",
                                             "-0.0,1"]},
        "--duration": {"kind": "float", "zero": True, "size": True, "bad": ["5"]},
        "--seed": {"kind": "seed", "with": ("--model", "packet", "--duration", "10",
                                            "--j-s", "5")},
    },
    "predict": {
        "--probe": {"kind": "text", "bad": ["1:", "a:b", ":10", "1", "0:10", "1:0", "1:-5",
                                            "1:nan", "1:inf", "1.5:10", "1:10:20", "1：10",
                                            "10:20", "1:5e-324", "1:1e300", "1:Infinity",
                                            "1:+nan", "1:1e309"]},
        "--flows": {"kind": "text", "bad": ["3-1", "0-3", "1,,2", "1-", "1,2,x",
                                            "1-1000000000", "a-b", "0"]},
        "--model": {"kind": "choice", "words": ["quadratic", "Linear"]},
    },
    "tame": {
        "--scenario": {"kind": "int", "zero": True, "bad": ["7", HUGE]},
        "--cross": {"kind": "int", "size": True},
        "--max-impact": {"kind": "float", "zero": True, "bad": ["1", "1.5"]},
        "--probes": {"kind": "text", "bad": ["1,2,3", "1", "5,5", "1-3", "0,2", "1,5000",
                                             "a,b", "1,,2"]},
        "--max-flows": {"kind": "int", "zero": True, "size": True},
        "--min-gain": {"kind": "float"},
        "--queue": {"kind": "choice", "words": ["sfq", "DropTail"]},
        "--seed": {"kind": "seed"},
        # measured probes (issue 35): no simulator; port 9 (discard) is never reached, every
        # case is refused before a probe runs
        "--probe": {"kind": "text", "base": ("--max-impact", "0.2"),
                    "bad": ["1:", "a:b", "1:0", "0:10", "1:nan", "1:10", "1:10:20"]},
        "--iperf3": {"kind": "text", "base": ("--max-impact", "0.2"),
                     "bad": ["", "host:port", "127.0.0.1:0", "127.0.0.1:99999", "[::1]:x"]},
        "--duration": {"kind": "float", "zero": True, "size": True,
                       "base": ("--max-impact", "0.2", "--iperf3", "127.0.0.1:9")},
        "--omit": {"kind": "float", "size": True,
                   "base": ("--max-impact", "0.2", "--iperf3", "127.0.0.1:9")},
        "--repeat": {"kind": "int", "zero": True, "size": True,
                     "base": ("--max-impact", "0.2", "--iperf3", "127.0.0.1:9")},
        "--decide": {"kind": "choice", "words": ["Upper", "mean"],
                     "base": ("--max-impact", "0.2", "--probe", "1:100", "--probe", "10:600")},
    },
    "lu": {
        "--scenario": {"kind": "int", "zero": True, "bad": ["7", HUGE]},
        "--flows": {"kind": "int", "zero": True, "size": True},
        "--cross": {"kind": "int", "size": True},
        "--queue": {"kind": "choice", "words": ["red ", "RED"]},
        "--seed": {"kind": "seed"},
    },
    "transfers": {
        "--flows": {"kind": "int", "zero": True, "size": True},
        "--bytes": {"kind": "float", "zero": True, "size": True, "bad": ["1.5"]},
        "--rtt-ms": {"kind": "float", "zero": True, "size": True},
        "--path": {"kind": "text", "bad": ["lossy", "Shared", "", LONG]},
        "--repetitions": {"kind": "int", "zero": True, "size": True},
        "--seed": {"kind": "seed"},
    },
    "run": {
        "--scale": {"kind": "choice", "words": ["huge", "Full"]},
        "--seed": {"kind": "seed"},
        "--format": {"kind": "choice", "words": ["xml", "CSV"]},
    },
    "data": {
        "--only": {"kind": "text", "bad": ["no-such-experiment", "", "Sawtooth-paths"]},
        "--seed": {"kind": "seed"},
        "--scale": {"kind": "choice", "words": ["quick", "Full"]},
        "--cluster": {"kind": "choice", "words": ["remote", "Local"]},
        "--cluster-workers": {"kind": "int", "with": ("--cluster", "local"), "zero": True,
                              "size": True},
        "--timeout": {"kind": "float", "with": ("--scheduler", "tcp://127.0.0.1:9"),
                      "zero": True, "size": True},
    },
    "claims": {
        "--paper": {"kind": "text", "bad": ["bogus", "", "ALTMAN", LONG]},
    },
}  # fmt: skip

_NUMBER = {"int": ["1.5", "abc", "", "1e400", "0x10", "nan"], "float": ["abc", "", "nan", "inf",
                                                                      "1e400", "1,2"]}  # fmt: skip
_DASHED = ["-inf", "-1e5", "-0.5,1.5", "-1:10"]  # argparse reads these as options


def _values(spec: dict[str, object], turn: int = 0) -> list[str]:
    """The bad values of an option (``turn``: its place among the float options)."""
    kind = spec["kind"]
    if kind == "seed":
        return ["-1", "1.5", "abc", "", "nan"]
    if kind == "choice":
        return ["", "zzz", LONG, *spec.get("words", [])]  # type: ignore[list-item]
    if kind == "text":
        return list(spec["bad"])  # type: ignore[call-overload]
    values = [*_NUMBER[str(kind)], *spec.get("bad", [])]  # type: ignore[list-item]
    if not spec.get("negative"):
        values += ["-1", "-inf"]
    if spec.get("zero"):
        values.append("0")
    if spec.get("size"):
        values += [HUGE, "1e30" if kind == "float" else "999999999"]
    if kind == "float":  # the second audit's classes
        pair = [NONFINITE[turn % 6], NONFINITE[(turn + 3) % 6]]
        values += NONFINITE if spec.get("domain") else pair
        for value, flag in EXTREME.items():
            if spec.get(flag) or (flag == "huge" and spec.get("size")):
                values.append(value)
    return values


def option_cases() -> list[Case]:
    """Each bad value of each option, as ``--flag VALUE`` where argparse takes it as a value
    and ``--flag=VALUE`` where it starts with '-' (both for -1 and -inf); the option without
    its value; a value starting with '-' given apart (the ``--flag=`` hint)."""
    cases: list[Case] = []
    turn = 0
    for command, options in OPTIONS.items():
        for flag, spec in options.items():
            base = (command, *spec.get("base", BASE[command]))  # type: ignore[misc]
            extra = tuple(spec.get("with", ()))  # type: ignore[call-overload]
            turn += spec["kind"] == "float"
            for value in dict.fromkeys(_values(spec, turn)):
                if value.startswith("-"):
                    cases.append(Case((*base, *extra, f"{flag}={value}"), flag))
                    if value in ("-1", "-inf"):
                        cases.append(Case((*base, *extra, flag, value), flag))
                else:
                    cases.append(Case((*base, *extra, flag, value), flag))
            cases.append(Case((*base, *extra, flag), flag))  # no value at all
            if spec["kind"] in ("float", "text"):
                cases += [Case((*base, *extra, flag, v), flag) for v in _DASHED[:2]]
    return cases


# -- what the options alone do not cover ------------------------------------------------------
def _case(name: str, *argv: str) -> Case:
    return Case(tuple(argv), name)


SPECIAL: list[Case] = [
    # the top level
    _case("--bogus", "--bogus"),
    _case("COMMAND"),
    _case("frobnicate", "frobnicate"),
    _case("--bogus", "sawtooth", "--bogus"),
    _case("--events", "sawtooth", "--events", "10", "--events"),
    _case("saw", "saw", "--events", "10"),
    _case("sawtooth‑x", "sawtooth‑x"),
    _case("--evnts", "sawtooth", "--evnts", "10"),
    # values that start with '-' (the report's unclear messages)
    _case("--beta", "sawtooth", "--events", "10", "--beta", "-inf"),
    _case("--probs", "fluid", "--events", "100", "--replicas", "2", "--probs", "-0.5,1.5"),
    _case("--capacity", "fluid", "--events", "100", "--replicas", "2", "--capacity", "-inf"),
    _case("--weights", "bmc", "--scenario", "shared", "--duration", "20", "--weights",
          "-0.5,1.5"),
    _case("--probe", "predict", "--flows", "1-3", "--probe", "-1:10", "--probe", "10:50"),
    _case("--flows", "predict", "--probe", "1:10", "--probe", "10:50", "--flows", "-1-5"),
    _case("--only", "data", "--only", "-x"),
    # missing required flags
    _case("--flows", "morris"),
    _case("--weight", "weighted", "--flows", "2"),
    _case("--flows", "weighted", "--weight", "0.5"),
    _case("--scenario", "bmc"),
    _case("--max-impact", "tame", "--scenario", "1"),
    _case("--scenario", "tame", "--max-impact", "0.2"),
    _case("--scenario", "tame", "--max-impact", "0.2", "--probe", "1:10", "--probe", "10:50",
          "--scenario", "1"),
    _case("--iperf3", "tame", "--max-impact", "0.2", "--probe", "1:10", "--iperf3", "x"),
    _case("--duration", "tame", "--max-impact", "0.2", "--probe", "1:10", "--probe", "10:50",
          "--duration", "5"),
    _case("--max-flows", "tame", "--max-impact", "0.2", "--probe", "1:10", "--probe", "10:50",
          "--max-flows", "999999999"),
    # probes outside the model's domain: refused, naming where they came from
    _case("--probe", "tame", "--max-impact", "0.2", "--probe", "1:100", "--probe", "10:1050"),
    _case("--probe", "tame", "--max-impact", "0.2", "--probe", "1:100", "--probe", "10:90"),
    _case("--probe", "tame", "--max-impact", "0.2", "--probe", "1:100", "--probe", "2:150"),
    _case("--probe", "predict", "--probe", "1:100", "--probe", "10:1050", "--flows", "31"),
    _case("--cross", "lu", "--scenario", "1", "--flows", "2"),
    _case("--flows", "transfers"),
    _case("name", "run"),
    _case("--probe", "predict"),
    _case("--probe", "predict", "--probe", "1:5"),
    _case("--probe", "predict", "--probe", "1:5", "--probe", "2:8", "--model", "full2"),
    # contradictory flags
    _case("--probs", "fluid", "--events", "100", "--replicas", "2", "--probs", "0.3,0.7",
          "--policy", "all"),
    _case("--probs", "fluid", "--events", "100", "--replicas", "2", "--probs", "0.3,0.7",
          "--policy", "largest-rate"),
    _case("--min-th", "packet", *BASE["packet"], "--min-th", "5"),
    _case("--gentle", "packet", *BASE["packet"], "--gentle"),
    _case("--hold-ms", "packet", *BASE["packet"], "--queue", "red", "--hold-ms", "100"),
    _case("--select", "packet", *BASE["packet"], "--select", "largest"),
    _case("--threshold", "packet", *BASE["packet"], "--threshold", "3"),
    _case("--max-th", "packet", *BASE["packet"], "--queue", "red", "--min-th", "50",
          "--max-th", "20"),
    _case("--warmup", "packet", "--flows", "2", "--duration", "3", "--warmup", "3"),
    _case("--warmup", "morris", "--flows", "2", "--seconds", "3", "--warmup", "3"),
    _case("--a", "trace", "--tcp", "reno", "--a", "2"),
    _case("--beta", "trace", "--tcp", "sack", "--beta", "0.7"),
    _case("--max-rto", "trace", "--min-rto", "2", "--max-rto", "1"),
    _case("--initial-window", "trace", "--window", "4", "--initial-window", "8"),
    _case("--controller", "bmc", "--scenario", "shared", "--controller", "lia"),
    _case("--duration", "bmc", "--scenario", "shared", "--j-s", "30", "--duration", "20"),
    _case("--cluster", "data", "--only", "sawtooth-paths", "--scheduler", "tcp://127.0.0.1:9",
          "--cluster", "local"),
    _case("--cluster-workers", "data", "--only", "sawtooth-paths", "--cluster-workers", "2"),
    _case("--timeout", "data", "--only", "sawtooth-paths", "--keep", "--timeout", "5"),
    # sizes that are each allowed, together too large (run within a few minutes, or refused)
    _case("--replicas", "fluid", "--flows", "1000", "--events", "1000000", "--replicas",
          "100000"),
    _case("--replicas", "fluid", "--events", "1000000", "--replicas", "100000"),
    _case("--duration", "packet", "--rate-mbps", "10000", "--duration", "3600"),
    _case("--packet-bytes", "packet", "--packet-bytes", "1", "--duration", "3600"),
    _case("--seconds", "morris", "--flows", "10000", "--seconds", "2000"),
    _case("--repetitions", "transfers", "--flows", "10000", "--bytes", "1e6",
          "--repetitions", "10000"),
    _case("--repetitions", "transfers", "--flows", "10000", "--bytes", "1",
          "--repetitions", "10000"),
    _case("--j-s", "bmc", "--scenario", "pooling", "--j-s", "0.001", "--duration", "3600"),
    # the report's cases by number
    _case("--events", "sawtooth", "--events", HUGE),  # 32
    _case("--flows", "fluid", "--events", "10", "--replicas", "1", "--flows", "100000000"),
    _case("--events", "fluid", "--replicas", "1", "--events", HUGE),  # 77
    _case("--replicas", "fluid", "--events", "100", "--replicas", "1000000000"),  # 80
    _case("--flows", "packet", "--duration", "2", "--warmup", "0.5", "--flows", "10000000"),
    _case("--duration", "packet", "--flows", "2", "--warmup", "0", "--duration", "1e12"),
    _case("--packets", "trace", "--packets", "1000000000"),  # 174
    _case("--seed", "bmc", "--scenario", "shared", "--model", "packet", "--j-s", "5",
          "--duration", "10", "--seed", "-1"),  # 234
    _case("--flows", "predict", "--probe", "1:10", "--probe", "10:50", "--flows",
          "1-1000000000"),  # 264
    _case("--probes", "tame", "--scenario", "1", "--max-impact", "0.1", "--cross", "0",
          "--probes", "1,2,3"),  # 290
    _case("--flows", "lu", "--scenario", "1", "--cross", "0", "--flows", "1000000"),  # 305
    _case("--probs", "fluid", "--events", "100", "--replicas", "2", "--probs", "0.5"),  # 48
    # probes given twice, and duplicated
    _case("--probe", "predict", "--probe", "1:10", "--probe", "1:10"),
    _case("--probe", "predict", "--probe", "1:10", "--probe", "1:20"),
    # unicode look-alikes and over-long values
    _case("--policy", "fluid", "--policy", "rate‑independent"),
    _case("--queue", "packet", "--queue", "ｒｅｄ"),
    _case("--scenario", "bmc", "--scenario", "①"),
    _case("--tcp", "trace", "--tcp", LONG),
    _case("--flows", "predict", "--probe", "1:10", "--probe", "10:50", "--flows", LONG),
    _case("--only", "data", "--only", LONG),
    # the second audit's flags accepted and ignored (reliability-2026-12-02): refused now
    _case("--seed", "bmc", "--scenario", "shared", "--duration", "20", "--seed", "5"),
    _case("--seed", "sawtooth", "--events", "10", "--seed", "5"),
    # its impossible fluid numbers that are refused (eta = (1e-50, 1) and capacities 1e155 and
    # 1e-200 now compute their exact values: tests/test_fluid_domain.py)
    _case("--eta", "fluid", "--events", "100", "--replicas", "2", "--eta=5e-324"),
    _case("--capacity", "fluid", "--events", "100", "--replicas", "2", "--capacity=1e300"),
    _case("--eta", "sawtooth", "--events", "50", "--eta=5e-324"),
    _case("--capacity", "sawtooth", "--events", "50", "--capacity=1e300"),
    # the ledger's command (tcplab.ledger.command)
    _case("chapter", "claims", "nochapter"),
    _case("--summary", "claims", "sawtooth", "--summary"),
    _case("--csv", "claims", "--json", "--csv"),
    _case("--csv", "claims", "--summary", "--csv"),
    _case("--paper", "claims", "morris", "--paper", "lee"),
    _case("--write-shipped", "claims", "--write-shipped", "sawtooth"),
]  # fmt: skip


def output_cases(scratch: Path) -> list[Case]:
    """Unusable data and quick-result folders, and a standard output that cannot be written
    (the installed command in a subprocess: the variables are read when it starts)."""
    afile = scratch / "a-file"
    data, run = ("data", "--only", "sawtooth-paths"), ("run", "moments-beatdown-path")
    folders = {
        "/proc/tcplab-data": "/proc/tcplab-data",
        "/sys/tcplab-data": "/sys/tcplab-data",
        f"{afile}/sub": f"{afile}/sub",
        str(afile): str(afile),
    }
    cases = [Case(data, path, {"TCPLAB_DATA": path}, subprocess=True) for path in folders]
    cases += [
        Case(run, path, {"TCPLAB_QUICK_CACHE": path}, subprocess=True)
        for path in ("/proc/tcplab-quick", f"{afile}/q", str(afile))
    ]
    cases += [
        Case(argv, "standard output", output="/dev/full", subprocess=True)
        for argv in (("list",), ("sawtooth", "--events", "10", "--json"),
                     ("predict", "--probe", "1:10", "--probe", "10:50"),
                     ("run", "moments-beatdown-path"), ("sawtooth", "--help"))
    ]  # fmt: skip
    # an encoding that cannot show the output's characters (the report's PYTHONIOENCODING=ascii
    # tcplab claims: the sawtooth's beta), forked with that encoding (the runner's data folder
    # holds the sawtooth tables: tests/test_cli_battery.py)
    cases += [
        Case(argv, "standard output", encoding="ascii")
        for argv in (("claims", "sawtooth"), ("fluid", "--events", "10", "--replicas", "2"))
    ]
    return cases


#: each variable the commands read, and a command that reads it (and writes only there)
ENVIRONMENT = {
    "TCPLAB_QUICK_CACHE": ("run", "moments-beatdown-path"),
    "TCPLAB_DATA": ("claims", "--paper", "altman", "--summary"),
}
#: the second audit's odd values of a variable
ODD_VALUES = ["", "   ", "~", "~/tcplab-battery"]

#: the variables read when tcplab is imported: their cases run the installed command
READ_AT_IMPORT = {"TCPLAB_DATA"}


def env_cases() -> list[Case]:
    """Every variable of :data:`ENVIRONMENT` with every value of :data:`ODD_VALUES`."""
    return [
        Case(argv, variable, {variable: value}, subprocess=variable in READ_AT_IMPORT,
             expect="unset-or-error")
        for variable, argv in ENVIRONMENT.items()
        for value in ODD_VALUES
    ]  # fmt: skip


#: the fake Dask peers the runner starts (tests/cli_battery.py --peers) and their bound: the
#: connection within --timeout 1, the case's import of Dask within 15 s more
PEERS = ("silent", "garbage", "closes")


def peer_cases() -> list[Case]:
    return [
        Case(("data", "--only", "sawtooth-paths", "--keep", "--scheduler", f"{{peer:{kind}}}",
              "--timeout", "1"), "--scheduler", within=16.0)
        for kind in PEERS
    ]  # fmt: skip


def all_cases(scratch: Path) -> list[Case]:
    return option_cases() + SPECIAL + output_cases(scratch) + env_cases() + peer_cases()


# -- the runner -------------------------------------------------------------------------------
@dataclass
class Outcome:
    label: str
    name: str
    status: int | str
    stderr: str
    seconds: float
    cpu_s: float = 0.0
    within: float = LIMIT_S
    expect: str = "error"
    left: list[str] = field(default_factory=list)  # what an odd-variable case left in its cwd


def _child(case: Case, folder: Path) -> None:  # pragma: no cover - runs in a forked child
    import traceback

    from tcplab import cli

    out = os.open(
        case.output if case.output != "file" else folder / "out", os.O_WRONLY | os.O_CREAT
    )
    err = os.open(folder / "err", os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
    os.dup2(out, 1)
    os.dup2(err, 2)
    sys.stdout = open(1, "w", closefd=False, encoding=case.encoding)  # noqa: SIM115
    sys.stderr = open(2, "w", closefd=False, encoding=case.encoding, errors="backslashreplace")  # noqa: SIM115
    for key, value in case.env.items():
        if value is None:
            os.environ.pop(key, None)
        else:
            os.environ[key] = value
    if case.expect != "error":  # an odd variable: its own folder, and a HOME beside it
        os.environ["HOME"] = str(folder / "home")
        os.chdir(folder / "cwd")
    try:
        status = cli.main(list(case.argv))
    except SystemExit as done:
        status = done.code if isinstance(done.code, int) else 1
    except BaseException:
        traceback.print_exc()
        status = 1
    for stream in (sys.stdout, sys.stderr):  # what the interpreter does at its exit
        try:
            stream.flush()
        except Exception as error:
            print(f"Exception ignored in: {stream!r}\n{error!r}", file=sys.__stderr__)
    os._exit(status)


def _start(case: Case, folder: Path, peers: dict[str, str]) -> tuple[int, float]:
    folder.mkdir(parents=True, exist_ok=True)
    if case.expect != "error":
        (folder / "cwd").mkdir(exist_ok=True)
        (folder / "home").mkdir(exist_ok=True)
    started = time.monotonic()
    argv = tuple(peers.get(a[6:-1], a) if a.startswith("{peer:") else a for a in case.argv)
    case = replace(case, argv=argv)
    if case.subprocess:
        env = {**os.environ}
        for key, value in case.env.items():
            if value is None:
                env.pop(key, None)
            else:
                env[key] = value
        if case.expect != "error":  # an odd variable: its own folder, and a HOME beside it
            env["HOME"] = str(folder / "home")
        if case.encoding != "utf-8":
            env["PYTHONIOENCODING"] = case.encoding
        out = open(case.output if case.output != "file" else folder / "out", "wb")  # noqa: SIM115
        err = open(folder / "err", "wb")  # noqa: SIM115
        cwd = os.getcwd()
        os.chdir(folder / "cwd" if case.expect != "error" else cwd)
        try:
            pid = os.posix_spawn(TCPLAB, [TCPLAB, *case.argv], env,
                                 file_actions=[(os.POSIX_SPAWN_DUP2, out.fileno(), 1),
                                               (os.POSIX_SPAWN_DUP2, err.fileno(), 2)])  # fmt: skip
        finally:
            os.chdir(cwd)
        out.close()
        err.close()
        return pid, started
    pid = os.fork()
    if pid == 0:  # pragma: no cover
        _child(case, folder)
    return pid, started


def play(
    cases: list[Case], scratch: Path, at_once: int = 2, peers: dict[str, str] | None = None
) -> list[Outcome]:
    """Every case, ``at_once`` at a time, each killed after :data:`LIMIT_S`; ``peers`` maps
    a fake peer's kind to its address."""
    import signal

    todo = list(enumerate(cases))
    running: dict[int, tuple[int, Case, float]] = {}
    outcomes: dict[int, Outcome] = {}
    while todo or running:
        while todo and len(running) < at_once:
            i, case = todo.pop(0)
            pid, started = _start(case, scratch / str(i), peers or {})
            running[pid] = (i, case, started)
        pid, wait_status, usage = os.wait4(-1, os.WNOHANG)
        if pid == 0:
            time.sleep(0.002)
            for pid, (i, case, started) in list(running.items()):
                if time.monotonic() - started > LIMIT_S:
                    os.kill(pid, signal.SIGKILL)
                    os.waitpid(pid, 0)
                    del running[pid]
                    outcomes[i] = Outcome(case.label, case.name, "timeout", "", LIMIT_S)
            continue
        i, case, started = running.pop(pid)
        status = os.waitstatus_to_exitcode(wait_status)
        stderr = (scratch / str(i) / "err").read_text(encoding="utf-8", errors="replace")
        cpu = usage.ru_utime + usage.ru_stime
        cwd = scratch / str(i) / "cwd"
        left = sorted(p.name for p in cwd.iterdir()) if cwd.is_dir() else []
        outcomes[i] = Outcome(
            case.label, case.name, status, stderr, time.monotonic() - started, cpu,
            case.within, case.expect, left,
        )  # fmt: skip
    return [outcomes[i] for i in range(len(cases))]


def fake_peers() -> None:  # pragma: no cover - its own process (``--peers``)
    """Listen on 127.0.0.1 for each kind of :data:`PEERS`, print ``KIND PORT`` lines, and
    serve until killed: accept and say nothing, send 4 KiB of random bytes, or close."""
    import socket
    import threading

    held = []

    def serve(kind: str, listener: socket.socket) -> None:
        while True:
            peer, _ = listener.accept()
            if kind == "garbage":
                try:
                    peer.sendall(os.urandom(4096))
                except OSError:
                    pass
            if kind == "closes":
                peer.close()
            else:
                held.append(peer)

    for kind in PEERS:
        listener = socket.socket()
        listener.bind(("127.0.0.1", 0))
        listener.listen(64)
        print(kind, listener.getsockname()[1], flush=True)
        threading.Thread(target=serve, args=(kind, listener), daemon=True).start()
    threading.Event().wait()


def _start_peers() -> tuple[subprocess.Popen[str], dict[str, str]]:
    peers = subprocess.Popen([sys.executable, __file__, "--peers"], stdout=subprocess.PIPE,
                             text=True)  # fmt: skip
    assert peers.stdout is not None
    found = dict(peers.stdout.readline().split() for _ in PEERS)
    return peers, {kind: f"tcp://127.0.0.1:{port}" for kind, port in found.items()}


def warm_up() -> None:
    """Run every command's :data:`BASE` once here (each must succeed), so that the forked
    children inherit every module its run imports, and freeze what the runner holds (the
    children's garbage collector then copies none of it)."""
    import contextlib
    import gc
    import io

    from tcplab import cli

    for command, argv in BASE.items():
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            status = cli.main([command, *argv])
        if status != 0:
            raise SystemExit(f"the battery's base run `tcplab {command} ...` failed: {status}")
    gc.freeze()


def main() -> None:
    """``cli_battery.py OUT.json [PART/PARTS] [SCRATCH]``: play a share of the cases."""
    out = Path(sys.argv[1])
    part, parts = (int(x) for x in (sys.argv[2] if len(sys.argv) > 2 else "0/1").split("/"))
    scratch = Path(sys.argv[3]) if len(sys.argv) > 3 else out.parent / "battery"
    scratch.mkdir(parents=True, exist_ok=True)
    (scratch / "a-file").write_text("a regular file, not a folder\n")
    warm_up()
    cases = all_cases(scratch)[part::parts]
    peers, addresses = _start_peers()
    started = time.monotonic()
    try:
        outcomes = play(cases, scratch / f"part{part}", at_once=1, peers=addresses)
    finally:
        peers.kill()
        peers.wait()
    report = {"seconds": time.monotonic() - started, "outcomes": [asdict(o) for o in outcomes]}
    out.write_text(json.dumps(report), encoding="utf-8")


if __name__ == "__main__":
    if sys.argv[1:] == ["--peers"]:
        fake_peers()
    for _variable in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[_variable] = "1"  # before numpy: no BLAS threads in a process that forks
    main()
