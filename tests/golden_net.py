"""The regression net: every experiment's quick-scale table and every CLI command's JSON,
computed once and stored under ``tests/golden/``, then recomputed and compared to 1e-12.

A refactoring (moving modules, renaming helpers, typing the packet set-up) must leave these
numbers exactly as they were; a change that is *meant* to move a number regenerates the net
on purpose, in its own commit, with the reason in the message:

    .venv/bin/python tests/golden_net.py --write            # everything
    .venv/bin/python tests/golden_net.py --write packets-red # one experiment or CLI case

Wall-clock fields (``wall_s``, ``packets_per_wall_s``) are left out: they are not results.
"""

from __future__ import annotations

import contextlib
import io
import json
import math
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

GOLDEN = Path(__file__).resolve().parent / "golden"
EXPERIMENTS = GOLDEN / "experiments"
CLI_FILE = GOLDEN / "cli.json"
TOLERANCE = 1e-12  # relative and absolute: the same code on the same machine agrees exactly
SEED = 0
UNTIMED = {"wall_s", "packets_per_wall_s"}

#: command lines whose JSON the net keeps: every subcommand, every policy and queue, several
#: seeds; small enough to run in a few seconds in all
CLI_CASES: dict[str, list[str]] = {
    "sawtooth": ["sawtooth", "--beta", "0.6", "--eta", "2", "--events", "50", "--json"],
    **{
        f"fluid-{policy}": [
            "fluid", "--flows", "3", "--policy", policy, "--events", "300", "--replicas", "4",
            "--seed", str(seed), "--json",
        ]
        for seed, policy in enumerate(
            ("rate-independent", "rate-proportional", "largest-rate", "beatdown", "all")
        )
    },
    "fluid-heterogeneous": [
        "fluid", "--flows", "2", "--probs", "0.3,0.7", "--beta", "0.4,0.6", "--eta", "1,2",
        "--events", "300", "--replicas", "3", "--seed", "7", "--json",
    ],
    **{
        f"packet-{tcp}-{queue}": [
            "packet", "--flows", "4", "--queue", queue, "--buffer", "20", "--duration", "20",
            "--warmup", "5", "--tcp", tcp, "--seed", str(seed), "--json",
        ]
        for seed, (tcp, queue) in enumerate(
            (("newreno", "droptail"), ("reno", "droptail"), ("tahoe", "droptail"),
             ("newreno", "red"), ("reno", "red"))
        )
    },
    **{
        f"packet-threshold-{select}": [
            "packet", "--flows", "5", "--queue", "threshold", "--buffer", "100",
            "--threshold", "3", "--hold-ms", "150", "--select", select, "--duration", "20",
            "--warmup", "5", "--seed", "11", "--json",
        ]
        for select in ("first", "random", "largest")
    },
    "packet-red-thresholds": [
        "packet", "--flows", "6", "--queue", "red", "--buffer", "60", "--min-th", "10",
        "--max-th", "40", "--max-p", "0.2", "--overhead-ms", "1", "--duration", "20",
        "--warmup", "5", "--seed", "5", "--json",
    ],
    "trace-reno-three-drops": [
        "trace", "--tcp", "reno", "--drop", "14", "--drop", "26", "--drop", "28", "--window",
        "28", "--json",
    ],
    "trace-aimd": [
        "trace", "--tcp", "aimd", "--a", "2", "--beta", "0.75", "--drop", "30", "--drop", "31",
        "--packets", "150", "--json",
    ],
    "trace-newreno-four-drops": [
        "trace", "--tcp", "newreno", "--drop", "14", "--drop", "24", "--drop", "26", "--drop",
        "28", "--window", "28", "--json",
    ],
    "trace-tahoe-repeated-timeout": [
        "trace", "--tcp", "tahoe", "--drop", "20", "--drop", "20", "--drop", "21",
        "--granularity", "0.5", "--min-rto", "1", "--json",
    ],
    "packet-sack-droptail": [
        "packet", "--flows", "4", "--queue", "droptail", "--buffer", "20", "--duration", "20",
        "--warmup", "5", "--tcp", "sack", "--seed", "5", "--json",
    ],
    "trace-sack-four-drops": [
        "trace", "--tcp", "sack", "--drop", "14", "--drop", "24", "--drop", "26", "--drop",
        "28", "--window", "28", "--json",
    ],
    "run-sawtooth-utilisation": [
        "run", "sawtooth-utilisation", "--scale", "quick", "--format", "json",
    ],
    "weighted-half": [
        "weighted", "--weight", "0.5", "--flows", "2", "--duration", "20", "--seed", "3", "--json",
    ],
    "bmc-fluid-pooling": [
        "bmc", "--scenario", "pooling", "--j-s", "5", "--k", "0.25", "--duration", "60", "--json",
    ],
    "bmc-packet-shared": [
        "bmc", "--scenario", "shared", "--model", "packet", "--weights", "0.25,0.75",
        "--duration", "30", "--seed", "2", "--json",
    ],
    "morris-tahoe-red": [
        "morris", "--flows", "40", "--seconds", "20", "--warmup", "5", "--seed", "3", "--json",
    ],
    "morris-paced-droptail": [
        "morris", "--flows", "40", "--seconds", "20", "--warmup", "5", "--tcp", "tahoe-paced",
        "--queue", "droptail", "--telnet", "0", "--json",
    ],
    "predict-partial2": [
        "predict", "--probe", "1:2e6", "--probe", "10:12e6", "--flows", "1-31", "--json",
    ],
    "predict-full2": [
        "predict", "--probe", "1:2e6", "--probe", "8:11e6", "--probe", "15:13e6", "--model",
        "full2", "--flows", "2,20,31", "--json",
    ],
    "transfers-shaped": [
        "transfers", "--flows", "5", "--bytes", "200000", "--rtt-ms", "38", "--path",
        "shaped", "--repetitions", "2", "--seed", "3", "--json",
    ],
    "lu-scenario1-red": [
        "lu", "--scenario", "1", "--flows", "4", "--cross", "5", "--queue", "red", "--seed",
        "3", "--json",
    ],
    "tame-scenario1": [
        "tame", "--scenario", "1", "--cross", "10", "--max-impact", "0.2", "--seed", "1",
        "--json",
    ],
}  # fmt: skip


def experiment_table(name: str) -> pd.DataFrame:
    """Experiment ``name`` at quick scale and seed ``SEED``, computed now (never cached)."""
    from tcplab import registry

    return registry.run(name, scale="quick", seed=SEED)


def experiment_names() -> list[str]:
    from tcplab import registry

    return sorted(registry.REGISTRY)


def cli_output(argv: list[str]) -> Any:
    """Run ``tcplab argv`` in this process; its stdout parsed as JSON."""
    from tcplab import cli

    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        status = cli.main(argv)
    if status != 0:
        raise RuntimeError(f"tcplab {' '.join(argv)} exited with {status}")
    return _untimed(json.loads(out.getvalue()))


def _untimed(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _untimed(v) for k, v in value.items() if k not in UNTIMED}
    if isinstance(value, list):
        return [_untimed(v) for v in value]
    return value


# -- storage --------------------------------------------------------------------------------
def table_path(name: str) -> Path:
    return EXPERIMENTS / f"{name}.csv"


def write_table(name: str, table: pd.DataFrame) -> None:
    EXPERIMENTS.mkdir(parents=True, exist_ok=True)
    table.to_csv(table_path(name), index=False, float_format="%.17g")


def read_table(name: str) -> pd.DataFrame:
    return pd.read_csv(table_path(name))


def read_cli() -> dict[str, dict[str, Any]]:
    return json.loads(CLI_FILE.read_text(encoding="utf-8"))


def write_cli(cases: dict[str, dict[str, Any]]) -> None:
    GOLDEN.mkdir(parents=True, exist_ok=True)
    text = json.dumps(cases, indent=1, sort_keys=True, allow_nan=True) + "\n"
    CLI_FILE.write_text(text, encoding="utf-8")


# -- comparison -----------------------------------------------------------------------------
def _close(a: float, b: float) -> bool:
    if a == b:  # equal infinities too (ssthresh before the first loss)
        return True
    if math.isinf(a) or math.isinf(b):
        return False
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return abs(a - b) <= TOLERANCE * max(1.0, abs(a), abs(b))


def table_differences(expected: pd.DataFrame, got: pd.DataFrame, limit: int = 5) -> list[str]:
    """Human-readable differences between two tables (empty when they agree to 1e-12).

    ``got`` goes through the same CSV round trip as the stored table, so dtypes compare."""
    buffer = io.StringIO()
    got.to_csv(buffer, index=False, float_format="%.17g")
    buffer.seek(0)
    got = pd.read_csv(buffer)
    if list(expected.columns) != list(got.columns):
        return [f"columns {list(got.columns)} != stored {list(expected.columns)}"]
    if len(expected) != len(got):
        return [f"{len(got)} rows != stored {len(expected)}"]
    found = []
    for column in expected.columns:
        if column in UNTIMED:  # wall-clock time is not a result
            continue
        a, b = expected[column].to_numpy(), got[column].to_numpy()
        numeric = np.issubdtype(a.dtype, np.number) and np.issubdtype(b.dtype, np.number)
        for row, (x, y) in enumerate(zip(a, b, strict=True)):
            same = _close(float(x), float(y)) if numeric else (str(x) == str(y))
            if not same:
                found.append(f"row {row}, {column}: {y!r} != stored {x!r}")
                if len(found) >= limit:
                    return found
    return found


def value_differences(expected: Any, got: Any, where: str = "") -> list[str]:
    """Differences between two JSON values, numbers compared to 1e-12."""
    if isinstance(expected, dict) and isinstance(got, dict):
        if set(expected) != set(got):
            return [f"{where or 'top'}: keys {sorted(got)} != stored {sorted(expected)}"]
        return [d for k in expected for d in value_differences(expected[k], got[k], f"{where}.{k}")]
    if isinstance(expected, list) and isinstance(got, list):
        if len(expected) != len(got):
            return [f"{where}: {len(got)} items != stored {len(expected)}"]
        out = []
        for i, (x, y) in enumerate(zip(expected, got, strict=True)):
            out += value_differences(x, y, f"{where}[{i}]")
        return out
    numbers = (int, float)
    if isinstance(expected, numbers) and isinstance(got, numbers):
        if isinstance(expected, bool) or isinstance(got, bool):
            return [] if expected == got else [f"{where}: {got!r} != stored {expected!r}"]
        return [] if _close(float(expected), float(got)) else [f"{where}: {got!r} != {expected!r}"]
    return [] if expected == got else [f"{where}: {got!r} != stored {expected!r}"]


# -- regeneration ---------------------------------------------------------------------------
def write(only: Iterable[str] = ()) -> None:
    """Recompute and store the net (or only the named experiments / CLI cases)."""
    only = set(only)
    names = experiment_names()
    unknown = only - set(names) - set(CLI_CASES)
    if unknown:
        raise SystemExit(f"golden_net: unknown names {sorted(unknown)}")
    for name in names:
        if not only or name in only:
            print(f"experiment {name}", file=sys.stderr)
            write_table(name, experiment_table(name))
    stored = read_cli() if CLI_FILE.exists() else {}
    for label, argv in CLI_CASES.items():
        if not only or label in only:
            print(f"cli {label}", file=sys.stderr)
            stored[label] = {"argv": argv, "output": cli_output(argv)}
    write_cli({k: v for k, v in stored.items() if k in CLI_CASES})


if __name__ == "__main__":
    args = sys.argv[1:]
    if not args or args[0] != "--write":
        raise SystemExit(__doc__)
    write(args[1:])
