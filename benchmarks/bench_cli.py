"""Start-up time of the ``tcplab`` command: ``tcplab --help`` against a budget of 0.5 s.

Run from the repository root with ``python benchmarks/bench_cli.py`` (``--runs N``: timed
runs of each line, 20 by default). Each run is a fresh process of the venv's ``tcplab``,
timed from the outside (wall-clock): the whole start of Python, the import of
:mod:`tcplab.cli` and the parser. Two conditions: ``warm``, with the modules' bytecode already
compiled into a scratch cache folder (``PYTHONPYCACHEPREFIX``; an installed package's usual
state), and ``cold``, with no bytecode (``PYTHONDONTWRITEBYTECODE``, every module compiled on
each start: a first run). Rows: ``python -c pass`` (the floor), ``tcplab --help`` (lists every
command without importing a chapter), ``tcplab sawtooth --help`` and ``tcplab packet --help``
(one command's module imported). Also printed: the tcplab modules that ``tcplab --help``
imports. This is a script, not a test: it asserts nothing about speed (a shared machine's
timings vary; the median of many runs is reported with its spread).
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BIN = Path(sys.executable).parent
BUDGET_S = 0.5
LINES = {
    "python -c pass": [sys.executable, "-c", "pass"],
    "tcplab --help": [str(BIN / "tcplab"), "--help"],
    "tcplab sawtooth --help": [str(BIN / "tcplab"), "sawtooth", "--help"],
    "tcplab packet --help": [str(BIN / "tcplab"), "packet", "--help"],
}
PROBE = (
    "import sys\nfrom tcplab import cli\ntry:\n    cli.main(['--help'])\nexcept SystemExit:\n"
    "    pass\nprint(' '.join(sorted(m for m in sys.modules if m.startswith('tcplab'))), "
    "len(sys.modules), file=sys.stderr)\n"
)


def _times(argv: list[str], env: dict[str, str], runs: int) -> list[float]:
    subprocess.run(argv, env=env, capture_output=True, check=True, timeout=60)  # warm-up
    found = []
    for _ in range(runs):
        started = time.perf_counter()
        subprocess.run(argv, env=env, capture_output=True, check=True, timeout=60)
        found.append(time.perf_counter() - started)
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20, help="timed runs of each line")
    args = parser.parse_args()
    print(f"Python {platform.python_version()}, {os.cpu_count()} CPUs, load average "
          f"{os.getloadavg()[0]:.2f}, {args.runs} runs per line; budget {BUDGET_S} s")  # fmt: skip
    with tempfile.TemporaryDirectory() as scratch:
        warm = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        warm["PYTHONPYCACHEPREFIX"] = scratch
        cold = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1", "PYTHONPYCACHEPREFIX": scratch}
        cold["PYTHONPYCACHEPREFIX"] = os.path.join(scratch, "never-written")
        done = subprocess.run([sys.executable, "-c", PROBE], env=warm, capture_output=True,
                              text=True, check=True, timeout=60)  # fmt: skip
        print(f"modules `tcplab --help` imports: {done.stderr.strip()} in all")
        print(f"\n{'line':26s} {'bytecode':>8s} {'median s':>9s} {'min s':>7s} {'max s':>7s}")
        for label, argv in LINES.items():
            for condition, env in (("warm", warm), ("cold", cold)):
                found = _times(argv, env, args.runs)
                print(f"{label:26s} {condition:>8s} {statistics.median(found):9.3f} "
                      f"{min(found):7.3f} {max(found):7.3f}")  # fmt: skip


if __name__ == "__main__":
    main()
