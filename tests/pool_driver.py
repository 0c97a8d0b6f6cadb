"""A stand-in ``tcplab data`` run for tests/test_tasks.py, on the local process pool.

``python tests/pool_driver.py MARKS [--no-prctl]`` runs the command line's ``data`` command
(``tcplab.cli.main``) with an experiment whose sweep is two tasks on two pool processes: one
that ends at once (its worker then waits, idle, for more work) and one that sleeps for a
minute. Each task leaves a file in the folder MARKS when it starts. ``--no-prctl`` makes the
workers use the fallback that watches the parent's pid instead of the kernel's signal.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any

import pandas as pd

from tcplab import cli, registry, tasks

SECONDS = (0.0, 60.0)


def _task(work: tuple[int, str]) -> float:
    index, marks = work
    Path(marks, f"start-{index}").touch()
    time.sleep(SECONDS[index])
    return SECONDS[index]


def _experiment(name: str, **options: Any) -> pd.DataFrame:
    work = [(index, sys.argv[1]) for index in range(len(SECONDS))]
    return pd.DataFrame({"s": tasks.run_tasks(_task, work, workers=2, desc=name)})


if __name__ == "__main__":
    if "--no-prctl" in sys.argv:
        tasks._parent_death_signal = lambda: False  # type: ignore[assignment]
    registry.run = _experiment  # type: ignore[assignment]
    sys.exit(cli.main(["data", "--only", "morris-series"]))
