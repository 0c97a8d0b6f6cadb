"""A Dask cluster as the executor of :func:`tcplab.tasks.run_tasks`.

``with dask_executor(scheduler="tcp://host:8786"):`` connects to a running ``dask scheduler``
(its ``dask worker`` processes do the runs); ``with dask_executor(local_workers=2):`` starts a
LocalCluster of that many one-thread worker processes on this machine, every one of its
sockets (scheduler, its HTTP pages, nannies, workers) on 127.0.0.1 only. Inside the block every
``run_tasks`` call sends its tasks to the cluster as futures, shows one progress bar as they
finish, and returns the results in the order of the tasks. Dask reruns the tasks of a worker
that dies; an interruption (Ctrl-C) cancels the futures still pending, and since a result is
stored only once its experiment returns, data/ is left as it was. The workers must have the
same tcplab installed (tasks are pickled by reference to their module-level function).

Connecting is bounded by ``timeout`` as a whole: Dask's own ``Client(timeout=)`` bounds the TCP
connect but not the handshake that follows (a peer that accepts and never speaks held it for
good), so :func:`connect` first asks the peer who it is over one Dask connection under an
``asyncio`` deadline, and only a peer that answers as a scheduler gets a ``Client``, itself
built under what is left of the deadline.
"""

from __future__ import annotations

import asyncio
import logging
import re
import signal
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import CancelledError
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from .checks import check_int, check_range
from .tasks import executing_on

if TYPE_CHECKING:
    from distributed import Client

__all__ = ["ClusterLost", "DaskExecutor", "connect", "dask_executor", "open_cluster"]

ADDRESS = re.compile(r"^[a-z][a-z0-9+]*://[^\s/]+:\d{1,5}$")


class ClusterLost(RuntimeError):
    """The scheduler went away mid-sweep: the sweep's futures are gone with it."""


class DaskExecutor:
    """Runs a sweep's tasks on the workers of a Dask ``client``."""

    def __init__(self, client: Client) -> None:
        self.client = client
        self.sent = 0  # tasks sent so far (``tcplab data`` tells which experiments used it)

    def run(
        self, function: Callable[[Any], Any], tasks: list[Any], done: Callable[[], object]
    ) -> list[Any]:
        from distributed import as_completed

        # pure=False: every task is its own future, even when two tasks are equal
        futures = self.client.map(function, tasks, pure=False)
        self.sent += len(futures)
        where = {future.key: i for i, future in enumerate(futures)}
        results: list[Any] = [None] * len(futures)
        finished = 0
        try:
            for future in as_completed(futures, loop=self.client.loop):
                results[where[future.key]] = future.result()  # raises the task's error
                finished += 1
                done()
        except CancelledError as error:  # cancelled by the client when it lost the scheduler
            raise ClusterLost(
                f"the Dask scheduler went away after "
                f"{finished} of {len(futures)} runs; data/ holds only complete results"
            ) from error
        except BaseException:
            self.client.cancel(futures)
            raise
        return results


class _NotAScheduler(Exception):
    """The peer spoke, but not as a Dask scheduler."""


async def _identify(scheduler: str, timeout: float) -> None:
    """One Dask connection to ``scheduler``: the handshake, then its ``identity``; raises
    unless the answer is a scheduler's (the caller bounds the whole by a deadline)."""
    from distributed.comm import connect as dask_connect

    comm = await dask_connect(scheduler, timeout=timeout)
    try:
        await comm.write({"op": "identity", "reply": True})
        answer = await comm.read()
    finally:
        comm.abort()
    if not isinstance(answer, dict) or not isinstance(answer.get("type"), str):
        raise _NotAScheduler(f"it answered {str(answer)[:60]!r}, not a scheduler's identity")
    if answer["type"] in ("Worker", "Nanny"):
        raise _NotAScheduler(f"it is a Dask {answer['type'].lower()}, not the scheduler")


def _run_in_own_thread(coroutine: Callable[[], Any], timeout: float) -> None:
    """``asyncio.run(coroutine())`` on a thread of its own: the caller's thread may already
    run an event loop (a notebook's kernel, a test run after one), where asyncio.run fails."""
    failed: list[BaseException] = []

    def run() -> None:
        try:
            asyncio.run(coroutine())
        except BaseException as error:  # handed to the caller's thread
            failed.append(error)

    runner = threading.Thread(target=run, name="tcplab-dask-probe", daemon=True)
    runner.start()
    runner.join(timeout)
    if failed:
        raise failed[0]
    if runner.is_alive():
        raise TimeoutError(f"the probe did not finish within {timeout:g} s")


def _probe(scheduler: str, timeout: float) -> None:
    """:func:`_identify` within ``timeout`` seconds, whatever the peer does."""

    async def bounded() -> None:
        await asyncio.wait_for(_identify(scheduler, timeout), timeout)

    try:
        _run_in_own_thread(bounded, timeout + 1.0)
    except (OSError, TimeoutError, _NotAScheduler):
        raise
    except Exception as error:  # bytes that are no Dask message (any decoding error)
        detail = " ".join(str(error).split()) or type(error).__name__
        raise _NotAScheduler(f"it does not speak Dask's protocol: {detail[:60]}") from None


def _client_within(scheduler: str, timeout: float) -> Client:
    """``Client(scheduler)`` built in a thread that may take ``timeout`` seconds: a peer that
    answered the probe and then stalls cannot hold the command."""
    from distributed import Client

    made: list[Client] = []
    failed: list[BaseException] = []

    def build() -> None:
        try:
            made.append(Client(scheduler, timeout=timeout, set_as_default=False))
        except BaseException as error:  # handed to the caller's thread
            failed.append(error)

    builder = threading.Thread(target=build, name="tcplab-dask-connect", daemon=True)
    builder.start()
    builder.join(timeout + 1.0)
    if failed:
        raise failed[0]
    if not made:
        raise TimeoutError(f"the client was not connected within {timeout:g} s")
    return made[0]


def connect(scheduler: str, timeout: float = 10.0) -> Client:
    """A client of the Dask scheduler at ``scheduler`` (``tcp://HOST:PORT``); a ValueError
    naming the ``--scheduler`` flag when the address is malformed or no scheduler answers
    within ``timeout`` seconds (the TCP connection, Dask's handshake and the client's
    registration together)."""
    check_range("timeout", timeout, 0.1, 3600.0)
    if not ADDRESS.match(scheduler):
        raise ValueError(
            f"--scheduler {scheduler!r} is not a scheduler address; expected tcp://HOST:PORT"
        )
    deadline = time.monotonic() + timeout
    try:
        _probe(scheduler, timeout)
        return _client_within(scheduler, max(0.1, deadline - time.monotonic()))
    except Exception as error:  # whatever the peer sent: one line naming the flag
        raise ValueError(
            f"--scheduler {scheduler}: no Dask scheduler answered within {timeout:g} s "
            f"({_reason(error)[:120]})"
        ) from None


def _reason(error: Exception) -> str:
    """What went wrong with the peer, in a few words."""
    from distributed.comm import CommClosedError

    if isinstance(error, TimeoutError | asyncio.TimeoutError):
        return "nothing answered as a Dask scheduler in time"
    if isinstance(error, CommClosedError | ConnectionError):
        return "the peer closed the connection"
    return " ".join(str(error).split()) or type(error).__name__


@contextmanager
def _workers_ignore_ctrl_c() -> Iterator[None]:
    """Start the block's worker processes with Ctrl-C ignored: a terminal sends SIGINT to
    every process of the command, and only this one should handle it (it cancels the futures
    and stops the cluster) instead of each worker printing a traceback."""
    main = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN) if main else None
    try:
        yield
    finally:
        if main:
            signal.signal(signal.SIGINT, previous)


@contextmanager
def open_cluster(
    scheduler: str | None = None, *, local_workers: int | None = None, timeout: float = 10.0
) -> Iterator[DaskExecutor]:
    """An executor on the cluster at ``scheduler``, or on a new LocalCluster of
    ``local_workers`` one-thread processes; closed (and the LocalCluster stopped) at the end
    of the block. ``run_tasks`` uses it only inside ``executing_on`` (or :func:`dask_executor`)."""
    from distributed import Client, LocalCluster

    if (scheduler is None) == (local_workers is None):
        raise ValueError("give either scheduler= or local_workers=, not both or neither")
    cluster = None
    if scheduler is not None:
        client = connect(scheduler, timeout)
    else:
        assert local_workers is not None
        n_workers = check_int("local_workers", local_workers, 1, 1024)
        with _workers_ignore_ctrl_c():
            cluster = LocalCluster(
                n_workers=n_workers,
                threads_per_worker=1,
                processes=True,
                # the scheduler's HTTP pages (health, identity, workers) on loopback only, on
                # any free port (never clashing with a running cluster); ":0" would be every
                # address of the machine
                dashboard_address="127.0.0.1:0",
                silence_logs=logging.ERROR,
            )
        client = Client(cluster, set_as_default=False)
    try:
        yield DaskExecutor(client)
    finally:
        # closing a client whose scheduler went away logs a traceback per lost connection
        # (ClusterLost has said it in one line): the client's log is off from here on
        logging.getLogger("distributed.client").setLevel(logging.CRITICAL)
        client.close()
        if cluster is not None:
            cluster.close()


@contextmanager
def dask_executor(
    scheduler: str | None = None, *, local_workers: int | None = None, timeout: float = 10.0
) -> Iterator[DaskExecutor]:
    """Run the block's ``run_tasks`` calls on :func:`open_cluster`'s executor."""
    with (
        open_cluster(scheduler, local_workers=local_workers, timeout=timeout) as executor,
        executing_on(executor),
    ):
        yield executor
