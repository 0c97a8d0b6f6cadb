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

The local pool's workers belong to the command that started them: each ignores Ctrl-C (a
terminal sends SIGINT to every process of the command; the parent alone handles it, ends the
workers and says so in one line) and dies with its parent, so that a parent killed outright
(``kill -9``) leaves no worker blocked for good on its task queue, holding the command's
output open. On Linux the kernel sends the worker SIGKILL when the parent ends
(``prctl(PR_SET_PDEATHSIG)``); elsewhere a thread in the worker watches its parent's pid.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
import time
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


#: Linux's prctl option that asks for a signal when the parent ends (<linux/prctl.h>)
PR_SET_PDEATHSIG = 1
#: how often a worker without prctl looks whether its parent is still there (seconds)
WATCH_PERIOD_S = 0.25

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


def _parent_death_signal() -> bool:
    """Ask the kernel to SIGKILL this process when its parent ends; False where it cannot."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        return int(libc.prctl(PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)) == 0
    except (OSError, AttributeError):  # no libc, or a libc without prctl
        return False


def _watch_parent(parent: int) -> None:
    """End this process as soon as its parent is no longer process ``parent``."""
    while os.getppid() == parent:
        time.sleep(WATCH_PERIOD_S)
    os._exit(1)


def _die_with_parent(parent: int) -> None:
    """The pool's initializer, run in each worker before its first task: ignore Ctrl-C, and
    end when process ``parent`` (the one that made the pool) ends. (The kernel's signal comes
    when the thread that started the worker ends: the one running :func:`run_tasks`, which
    outlives its pool.)"""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if not _parent_death_signal():
        threading.Thread(target=_watch_parent, args=(parent,), daemon=True).start()
    if os.getppid() != parent:  # the parent ended before the request above: no signal comes
        os._exit(1)


def _stop(pool: ProcessPoolExecutor) -> None:
    """End ``pool`` now: stop its workers mid-task and drop the tasks not started (their
    results are not wanted any more: the sweep was interrupted or a task failed)."""
    if hasattr(pool, "terminate_workers"):  # Python 3.14
        pool.terminate_workers()
        return
    for worker in list((getattr(pool, "_processes", None) or {}).values()):
        worker.terminate()  # the pool sees them end, fails what is pending, and stops
    pool.shutdown(wait=True, cancel_futures=True)


def _on_pool(
    function: Callable[[Task], Result],
    tasks: Sequence[Task],
    workers: int,
    bar: tqdm,
    each: Callable[[int, Result], object],
) -> list[Result]:
    """``[function(task) for task in tasks]`` on a pool of ``workers`` processes that die
    with this one; ended at once if the sweep stops early (Ctrl-C, a task's error)."""
    import multiprocessing  # here: Pyodide has no processes (tcplab.inbrowser)

    # the workers' parent must be this process (not a fork server), so the start method is
    # fork on Linux (the default up to Python 3.13) and spawn elsewhere
    start = "fork" if sys.platform.startswith("linux") else "spawn"
    pool = ProcessPoolExecutor(
        workers,
        mp_context=multiprocessing.get_context(start),
        initializer=_die_with_parent,
        initargs=(os.getpid(),),
    )
    results: list[Result] = []
    try:
        for result in pool.map(function, tasks):
            each(len(results), result)
            results.append(result)
            bar.update()
    except BaseException:
        _stop(pool)
        raise
    finally:
        pool.shutdown(wait=True)
    return results


def run_tasks(
    function: Callable[[Task], Result],
    tasks: Sequence[Task],
    *,
    workers: int,
    desc: str,
    each: Callable[[int, Result], object] | None = None,
) -> list[Result]:
    """``[function(task) for task in tasks]``, on ``workers`` processes (or on the executor of
    an enclosing :func:`executing_on`), with a progress bar named ``desc``. ``function`` must
    be a module-level function (it is pickled by name). ``each(i, result)`` is called with
    each task's result as it comes, in the order of the tasks (on an executor: at the end), so
    that a caller can keep what is done if the sweep is interrupted."""
    check_int("workers", workers, 1)
    each = each or (lambda _index, _result: None)
    executor = _EXECUTOR.get()
    bar = tqdm(total=len(tasks), desc=desc, unit="run", file=sys.stderr, leave=False)
    results: list[Result] = []
    try:
        if executor is not None and tasks:
            results = executor.run(function, list(tasks), bar.update)
            for index, result in enumerate(results):
                each(index, result)
        elif workers > 1 and len(tasks) > 1:
            results = _on_pool(function, tasks, min(workers, len(tasks)), bar, each)
        else:
            for task in tasks:
                result = function(task)
                each(len(results), result)
                results.append(result)
                bar.update()
    finally:
        bar.close()
    return results
