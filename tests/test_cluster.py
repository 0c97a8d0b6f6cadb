"""Sweeps on a Dask LocalCluster: the same bytes as the process pool, a dead worker's tasks
rerun, an interruption cancels the futures and leaves data/ untouched, a bad scheduler address
ends in one line naming the flag.

The expectations come from outside the cluster code: the bytes of the chapter's own process
pool loop (``morris.runs.run_all``, which made the shipped data), and a serial loop.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from tcplab import cache, registry
from tcplab.chapters.morris import experiments as morris
from tcplab.chapters.morris.runs import Job, _one, job_seed
from tcplab.cli import main
from tcplab.cluster import DaskExecutor, open_cluster
from tcplab.tasks import current_executor, executing_on, run_tasks


@pytest.fixture(scope="module")
def cluster() -> Iterator[DaskExecutor]:
    """A LocalCluster of two one-thread worker processes, shared by this module's tests."""
    with open_cluster(local_workers=2) as executor:
        yield executor


def _run_all_through_run_tasks(jobs: list[Job], workers: int, seed: int, desc: str) -> list:
    """The Morris chapter's sweep, seeded as its own ``run_all`` seeds it, run by run_tasks
    (as the chapter will once its loop moves there)."""
    seeded = [replace(w, setup=replace(w.setup, seed=job_seed(seed, w))) for w in jobs]
    return run_tasks(_one, seeded, workers=workers, desc=desc)


def test_a_quick_experiment_gives_the_same_bytes_on_a_local_cluster(
    cluster: DaskExecutor, monkeypatch: pytest.MonkeyPatch
) -> None:
    params = morris.MorrisParams.quick()
    shipped_loop = morris.series(params, seed=3).to_csv(index=False)  # the chapter's own pool

    monkeypatch.setattr(morris, "run_all", _run_all_through_run_tasks)
    assert current_executor() is None
    on_pool = morris.series(params, seed=3).to_csv(index=False)
    sent: list[int] = []
    run = DaskExecutor.run

    ticks: list[int] = []

    def counted(self: DaskExecutor, f: Any, tasks: list, done: Any) -> list:
        sent.append(len(tasks))
        return run(self, f, tasks, lambda: ticks.append(1) or done())

    monkeypatch.setattr(DaskExecutor, "run", counted)
    with executing_on(cluster):
        on_cluster = morris.series(params, seed=3).to_csv(index=False)

    assert sent == [len(params.series_flows)]  # the experiment's run_tasks call reached Dask
    assert len(ticks) == len(params.series_flows)  # the progress bar moved once per run
    assert on_pool == shipped_loop
    assert on_cluster == shipped_loop
    assert current_executor() is None  # the block ended: back to the process pool


def _marked_draw(task: tuple[int, str]) -> float:
    """A seeded draw that takes half a second, leaving a mark of each start (seed, process)."""
    seed, folder = task
    Path(folder, f"start-{seed}-{os.getpid()}").touch()
    time.sleep(0.5)
    return float(np.random.default_rng(seed).random())


def _kill_the_worker_running(folder: Path, seed: int, killed: list[int]) -> None:
    """Wait until task ``seed`` starts, then SIGKILL the worker process running it."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        marks = list(folder.glob(f"start-{seed}-*"))
        if marks:
            pid = int(marks[0].name.rsplit("-", 1)[1])
            os.kill(pid, signal.SIGKILL)
            killed.append(pid)
            return
        time.sleep(0.02)


def test_the_tasks_of_a_worker_killed_mid_sweep_are_rerun(
    cluster: DaskExecutor, tmp_path: Path
) -> None:
    tasks = [(seed, str(tmp_path)) for seed in range(8)]
    expected = [float(np.random.default_rng(seed).random()) for seed in range(8)]
    killed: list[int] = []
    killer = threading.Thread(target=_kill_the_worker_running, args=(tmp_path, 3, killed))
    killer.start()
    with executing_on(cluster):
        results = run_tasks(_marked_draw, tasks, workers=2, desc="killed worker")
    killer.join()

    assert killed, "task 3 never started"
    starts = sorted(p.name for p in tmp_path.glob("start-3-*"))
    assert len(starts) == 2 and f"start-3-{killed[0]}" in starts  # killed mid-task, then rerun
    assert results == expected


def _interrupting(task: tuple[int, int, str]) -> int:
    """Task 1 sends Ctrl-C (SIGINT) to the process that submitted the sweep; every task marks
    its start and sleeps."""
    index, parent, folder = task
    Path(folder, f"start-{index}").touch()
    if index == 1:
        os.kill(parent, signal.SIGINT)
    time.sleep(0.5)
    return index


def _pending(dask_scheduler: Any) -> int:
    return len(dask_scheduler.tasks)


@pytest.fixture
def python_ctrl_c() -> Iterator[None]:
    """Python's own SIGINT handler (KeyboardInterrupt), as in a terminal, whatever an earlier
    test in this worker left installed for SIGINT; the previous handler afterwards."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def test_ctrl_c_cancels_the_futures_and_stores_nothing(
    cluster: DaskExecutor, tmp_path: Path, python_ctrl_c: None
) -> None:
    data, marks = tmp_path / "data", tmp_path / "marks"
    data.mkdir(), marks.mkdir()
    tasks = [(index, os.getpid(), str(marks)) for index in range(12)]
    with executing_on(cluster), pytest.raises(KeyboardInterrupt):
        cache.cached(
            "interrupted",
            lambda: pd.DataFrame({"i": run_tasks(_interrupting, tasks, workers=2, desc="ctrl-c")}),
            params={"n": 12},
            seed=0,
            scale="full",  # stored when complete: here it must not be
            modules=["tcplab.tasks"],
            folder=data,
        )
    interrupted = time.monotonic()
    assert list(data.iterdir()) == []
    while cluster.client.run_on_scheduler(_pending) and time.monotonic() < interrupted + 10:
        time.sleep(0.1)
    assert cluster.client.run_on_scheduler(_pending) == 0  # nothing left queued or running
    # the whole sweep needs 3 s on two workers; 4 s on, the cancelled tasks have not started
    time.sleep(max(0.0, interrupted + 4 - time.monotonic()))
    assert len(list(marks.iterdir())) < len(tasks)


def _must_not_run(name: str, **options: Any) -> pd.DataFrame:
    raise AssertionError(f"{name} computed although the command line was refused")


def test_a_bad_scheduler_address_is_one_line_naming_the_flag(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(registry, "run", _must_not_run)
    started = time.monotonic()
    # port 9 (discard) has no scheduler: the connection times out instead of hanging
    assert main(["data", "--only", "morris-series", "--scheduler", "tcp://127.0.0.1:9",
                 "--timeout", "1"]) == 2  # fmt: skip
    assert time.monotonic() - started < 15
    for address in ("127.0.0.1:8786", "tcp://nowhere"):
        assert main(["data", "--only", "morris-series", "--scheduler", address]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 3 and all(line.startswith("tcplab: error: --scheduler ") for line in err)
    assert main(["data", "--cluster", "local", "--cluster-workers", "0"]) == 2
    assert "--cluster-workers" in capsys.readouterr().err
    assert main(["data", "--only", "morris-series", "--cluster-workers", "2"]) == 2
    assert "needs --cluster local" in capsys.readouterr().err


def test_tcplab_data_on_a_local_cluster_reaches_the_experiments_run_tasks(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    seen: list[tuple[Any, list[float]]] = []

    def experiment(name: str, **options: Any) -> pd.DataFrame:
        if name == "morris-series":  # this one sends its runs through run_tasks
            roots = run_tasks(np.sqrt, [1.0, 4.0], workers=1, desc=name)
            seen.append((current_executor(), roots))
        return pd.DataFrame({"x": [1]})

    monkeypatch.setattr(registry, "run", experiment)
    assert main(["data", "--only", "morris-series", "morris-loss", "--cluster", "local",
                 "--cluster-workers", "1"]) == 0  # fmt: skip
    [(executor, roots)] = seen
    assert isinstance(executor, DaskExecutor) and roots == [1.0, 2.0]
    assert current_executor() is None
    err = capsys.readouterr().err
    assert "morris-series: 1 rows" in err and "morris-loss: 1 rows" in err
    # the one that ran no task on the cluster says so
    assert err.count("nothing sent to the cluster") == 1
    assert "morris-loss: 1 rows in" in err.split("nothing sent")[0].splitlines()[-1]


def test_no_experiments_fingerprint_follows_the_cluster_code() -> None:
    """Where runs execute is not part of what they compute: no stored result goes stale when
    the executors change."""
    for name, experiment in registry.REGISTRY.items():
        modules = experiment.modules()
        assert "tcplab.cluster" not in modules and "tcplab.tasks" not in modules, name


LISTENERS = """
import json, sys
import psutil
from tcplab.cluster import open_cluster

if __name__ == "__main__":
    with open_cluster(local_workers=1) as executor:
        me = psutil.Process()
        found = [
            [process.pid, connection.laddr.ip, connection.laddr.port]
            for process in [me, *me.children(recursive=True)]
            for connection in process.net_connections(kind="inet")
            if connection.status == psutil.CONN_LISTEN
        ]
        scheduler = executor.client.scheduler_info()["address"]
    print(json.dumps({"listening": found, "scheduler": scheduler}))
"""


def test_a_local_cluster_listens_on_loopback_only(tmp_path: Path) -> None:
    """Every socket that the LocalCluster of ``tcplab data --cluster local`` listens on (its
    scheduler, the scheduler's HTTP pages, the nanny, the worker: in a fresh process and its
    children) is bound to 127.0.0.1 or ::1, never to every address of the machine."""
    script = tmp_path / "listeners.py"
    script.write_text(LISTENERS, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=300, check=True
    )
    report = json.loads(done.stdout)
    listening = report["listening"]
    assert len(listening) >= 3, report  # scheduler, its HTTP server, nanny, worker, ...
    assert report["scheduler"].startswith("tcp://127.0.0.1:")
    assert all(ip in ("127.0.0.1", "::1") for _, ip, _ in listening), listening


# ---- --scheduler against peers that are no scheduler (the referee's fakes, 2026-12-02) ------
@contextlib.contextmanager
def _fake_peer(kind: str) -> Iterator[str]:
    """A TCP peer on 127.0.0.1 that accepts and then stays silent, sends 4 KiB of random bytes,
    or closes at once; yields its tcp:// address."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)
    listener.settimeout(0.2)
    held: list[socket.socket] = []
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            try:
                peer, _ = listener.accept()
            except TimeoutError:
                continue
            if kind == "garbage":
                with contextlib.suppress(OSError):
                    peer.sendall(np.random.default_rng(len(held)).bytes(4096))
            if kind == "closes":
                peer.close()
            else:
                held.append(peer)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield f"tcp://127.0.0.1:{listener.getsockname()[1]}"
    finally:
        stop.set()
        thread.join(5)
        for peer in held:
            peer.close()
        listener.close()


@pytest.mark.parametrize("kind", ["silent", "garbage"])
def test_a_peer_that_is_no_scheduler_is_one_line_within_the_timeout(kind: str) -> None:
    """The whole connection, Dask's handshake included, within --timeout 3 (the silent peer
    held the command for good: killed at 75 s), one line naming --scheduler, status 2, and no
    ``Client.__del__`` traceback as the interpreter exits (the garbage peer's 9 lines). The
    installed command, so that the exit is part of what is checked (the battery's forked cases
    end with os._exit); its start (imports) is allowed 10 s more. The peer that closes at once
    is the battery's and connect()'s below."""
    with _fake_peer(kind) as address:
        started = time.monotonic()
        done = subprocess.run(
            [str(Path(sys.executable).parent / "tcplab"), "data", "--only", "morris-series",
             "--scheduler", address, "--timeout", "3"],
            capture_output=True, text=True, timeout=60,
        )  # fmt: skip
        elapsed = time.monotonic() - started
    assert done.returncode == 2, done.stderr
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"tcplab: error: --scheduler {address}: ")
    assert "within 3 s" in lines[0]
    assert elapsed < 13


@pytest.mark.parametrize("kind", ["silent", "garbage", "closes"])
def test_connect_itself_ends_within_its_timeout(kind: str) -> None:
    from tcplab.cluster import connect

    with _fake_peer(kind) as address:
        started = time.monotonic()
        with pytest.raises(ValueError, match=r"^--scheduler tcp://127\.0\.0\.1:\d+: no Dask"):
            connect(address, timeout=1.5)
        assert time.monotonic() - started < 1.5 + 1.0


def test_a_real_scheduler_still_connects(cluster: DaskExecutor) -> None:
    """The probe (handshake, identity) lets the LocalCluster's scheduler through."""
    from tcplab.cluster import connect

    client = connect(cluster.client.scheduler.address, timeout=10)
    try:
        assert client.submit(np.sqrt, 16.0).result(timeout=30) == 4.0
    finally:
        client.close()


def test_a_real_scheduler_connects_from_a_thread_that_runs_an_event_loop(
    cluster: DaskExecutor,
) -> None:
    """A notebook's kernel (or a test run after one) already runs an event loop in the calling
    thread, where asyncio.run fails: the probe must still let the scheduler through."""
    import asyncio

    from tcplab.cluster import connect

    async def from_inside_a_loop() -> float:
        client = connect(cluster.client.scheduler.address, timeout=10)
        try:
            return float(client.submit(np.sqrt, 16.0).result(timeout=30))
        finally:
            client.close()

    answers: list[float] = []  # a thread of its own: the test's thread may run a loop already
    runner = threading.Thread(target=lambda: answers.append(asyncio.run(from_inside_a_loop())))
    runner.start()
    runner.join(60)
    assert answers == [4.0]
