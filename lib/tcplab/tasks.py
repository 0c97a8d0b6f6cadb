"""Where an experiment's independent runs execute: one function over a list of tasks.

An experiment's sweep is a list of tasks (a frozen set-up with its seed already in it) and a
module-level function that turns one task into what the table keeps. :func:`run_tasks` applies
the function to every task and returns the results in the order of the tasks, whatever order
they finish in, with a progress bar: on ``workers`` local processes, or in this process when
``workers`` is 1 or there is a single task; or, inside ``with executing_on(executor):``, on
that executor (a Dask cluster: :mod:`tcplab.cluster`), which then decides how many run at once.
The executor travels in a context variable, so it reaches every ``run_tasks`` call an
experiment makes without being passed down. Since every task carries its own seed, where a task
runs cannot change what it returns; that is why this module is left out of the code
fingerprint of stored results (:data:`tcplab.cache.SCHEDULING`).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, Protocol, TypeVar

from tqdm import tqdm

from .checks import check_int

__all__ = ["Executor", "current_executor", "executing_on", "run_tasks"]

Task = TypeVar("Task")
Result = TypeVar("Result")


class Executor(Protocol):
    """Somewhere else to run a sweep: ``run`` returns ``[function(t) for t in tasks]`` in the
    order of ``tasks``, calling ``done()`` once as each task finishes."""

    def run(
        self, function: Callable[[Any], Any], tasks: list[Any], done: Callable[[], object]
    ) -> list[Any]: ...


_EXECUTOR: ContextVar[Executor | None] = ContextVar("tcplab_executor", default=None)


@contextmanager
def executing_on(executor: Executor | None) -> Iterator[Executor | None]:
    """Within the block, :func:`run_tasks` sends its tasks to ``executor`` (``None``: the
    local process pool, as outside any block)."""
    token = _EXECUTOR.set(executor)
    try:
        yield executor
    finally:
        _EXECUTOR.reset(token)


def current_executor() -> Executor | None:
    """The executor :func:`run_tasks` would use here (``None``: the local process pool)."""
    return _EXECUTOR.get()


def run_tasks(
    function: Callable[[Task], Result],
    tasks: Sequence[Task],
    *,
    workers: int,
    desc: str,
) -> list[Result]:
    """``[function(task) for task in tasks]``, on ``workers`` processes (or on the executor of
    an enclosing :func:`executing_on`), with a progress bar named ``desc``. ``function`` must
    be a module-level function (it is pickled by name)."""
    check_int("workers", workers, 1)
    executor = _EXECUTOR.get()
    bar = tqdm(total=len(tasks), desc=desc, unit="run", file=sys.stderr, leave=False)
    results: list[Result] = []
    try:
        if executor is not None and tasks:
            results = executor.run(function, list(tasks), bar.update)
        elif workers > 1 and len(tasks) > 1:
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
