"""Where an experiment's independent runs execute: one function over a list of tasks.

An experiment's sweep is a list of tasks (a frozen set-up with its seed already in it) and a
module-level function that turns one task into what the table keeps. :func:`run_tasks` applies
the function to every task and returns the results in the order of the tasks, whatever order
they finish in, with a progress bar: on ``workers`` local processes, or in this process when
``workers`` is 1 or there is a single task. Since every task carries its own seed, where a task
runs cannot change what it returns; that is why this module is left out of the code
fingerprint of stored results (:data:`tcplab.cache.SCHEDULING`).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from typing import TypeVar

from tqdm import tqdm

from .checks import check_int

__all__ = ["run_tasks"]

Task = TypeVar("Task")
Result = TypeVar("Result")


def run_tasks(
    function: Callable[[Task], Result],
    tasks: Sequence[Task],
    *,
    workers: int,
    desc: str,
) -> list[Result]:
    """``[function(task) for task in tasks]``, on ``workers`` processes, with a progress bar
    named ``desc``. ``function`` must be a module-level function (it is pickled by name)."""
    check_int("workers", workers, 1)
    bar = tqdm(total=len(tasks), desc=desc, unit="run", file=sys.stderr, leave=False)
    results: list[Result] = []
    try:
        if workers > 1 and len(tasks) > 1:
            with ProcessPoolExecutor(min(workers, len(tasks))) as pool:
                for result in pool.map(function, tasks):
                    results.append(result)
                    bar.update()
        else:
            for task in tasks:
                results.append(function(task))
                bar.update()
    finally:
        bar.close()
    return results
