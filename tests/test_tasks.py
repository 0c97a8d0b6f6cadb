"""The task runner: the same results, in the same order, wherever the tasks run.

Every task carries its own seed, so running a sweep on one process or on several must give
identical results in the order of the tasks; that is what lets :mod:`tcplab.tasks` stay out of
the code fingerprint of stored data (checked here too).
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import psutil
import pytest

from tcplab import cache, packet
from tcplab.packet import DumbbellTopology, PacketSetup, Probes, QueueSetup, RunLength, TcpConfig
from tcplab.tasks import run_tasks

UNTIMED = ("wall_s", "packets_per_wall_s")
BIN = Path(sys.executable).parent


def _summary(setup: PacketSetup) -> dict:
    """One short packet run, reduced to what a table keeps (module level: it is pickled)."""
    result = packet.run(setup)
    return {k: v for k, v in result.summary().items() if k not in UNTIMED}


def _setups() -> list[PacketSetup]:
    base = PacketSetup(
        topology=DumbbellTopology(3, rate_mbps=5.0, delay_ms=20.0),
        queue=QueueSetup("droptail", 20),
        tcp=TcpConfig(packet_bytes=1000),
        length=RunLength(6.0, 2.0),
        probes=Probes(trace=False),
    )
    # unequal lengths, so that on two processes the tasks finish out of order
    return [
        dataclasses.replace(base, seed=seed, length=RunLength(6.0 + 4 * (seed % 2), 2.0))
        for seed in range(5)
    ]


def test_results_come_back_in_the_order_of_the_tasks_whatever_runs_them() -> None:
    setups = _setups()
    expected = [_summary(s) for s in setups]
    assert run_tasks(_summary, setups, workers=1, desc="serial") == expected
    assert run_tasks(_summary, setups, workers=2, desc="pool") == expected
    # the tasks differ (different seeds and lengths), so the order check means something
    assert len({repr(r) for r in expected}) == len(expected)


def test_an_empty_sweep_and_a_bad_worker_count() -> None:
    assert run_tasks(_summary, [], workers=2, desc="none") == []
    with pytest.raises(ValueError, match=r"workers=0"):
        run_tasks(_summary, _setups(), workers=0, desc="bad")


def _fails_or_sleeps(index: int) -> int:
    """Task 0 fails at once; task 1 would take a minute."""
    if index == 0:
        raise ValueError("task 0 failed")
    time.sleep(60)
    return index


def test_a_failed_task_ends_the_pool_at_once() -> None:
    """A task's error reaches the caller without waiting for the other workers' tasks."""
    started = time.monotonic()
    with pytest.raises(ValueError, match="task 0 failed"):
        run_tasks(_fails_or_sleeps, [0, 1], workers=2, desc="failing")
    assert time.monotonic() - started < 30


def test_the_task_runner_is_not_part_of_a_results_fingerprint() -> None:
    assert cache.imported_modules("tcplab.tasks") == ()
    modules = cache.imported_modules("tcplab.chapters.morris.experiments")
    assert "tcplab.tasks" not in modules
    assert "tcplab.packet.tcp" in modules  # what computes is still followed


# --- a pool's workers end with the command that started them -------------------------------

#: an experiment whose full-scale sweep runs on two pool processes for several seconds
POOLED = "packets-validation"
DRIVER = Path(__file__).with_name("pool_driver.py")


def _start(command: list[str], tmp_path: Path, **env: str) -> subprocess.Popen[bytes]:
    """``command`` in its own process group (as a shell starts one), storing into an empty
    scratch data folder, its output on pipes."""
    data = tmp_path / "data"
    data.mkdir()
    return subprocess.Popen(
        command,
        env={**os.environ, "TCPLAB_DATA": str(data), **env},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )


def _start_driver(tmp_path: Path, *options: str) -> subprocess.Popen[bytes]:
    """tests/pool_driver.py: a short task and a long one on two workers (see there)."""
    marks = tmp_path / "marks"
    marks.mkdir()
    command = [sys.executable, str(DRIVER), str(marks), *options]
    return _start(command, tmp_path, TQDM_DISABLE="1")


def _pool(parent: subprocess.Popen[bytes], ready: Callable[[list[psutil.Process]], bool]) -> list:
    """The two pool processes of ``parent`` once ``ready(workers)``; fails after 120 s."""
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        assert parent.poll() is None, parent.communicate()
        workers = psutil.Process(parent.pid).children(recursive=True)
        with contextlib.suppress(psutil.Error):
            if len(workers) == 2 and ready(workers):
                return workers
        time.sleep(0.1)
    raise AssertionError("the pool's two processes were not ready within 120 s")


def _computing(workers: list[psutil.Process]) -> bool:
    """Both workers have used CPU time: they are past their start-up, on their tasks."""
    return all(w.cpu_times().user > 0.3 for w in workers)


def _one_idle(marks: Path) -> Callable[[list[psutil.Process]], bool]:
    """Both of the driver's tasks have started, and the short one is over (its worker waits
    on the pool's task queue)."""
    return lambda _: len(list(marks.iterdir())) == 2 and not time.sleep(0.5)


def _alive(process: psutil.Process) -> bool:
    try:
        return process.is_running() and process.status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


def _left_after(workers: list[psutil.Process], seconds: float) -> list[int]:
    """The pids of the ``workers`` still alive after up to ``seconds``."""
    deadline = time.monotonic() + seconds
    while any(_alive(w) for w in workers) and time.monotonic() < deadline:
        time.sleep(0.05)
    return [w.pid for w in workers if _alive(w)]


@contextlib.contextmanager
def _cleaned_up(run: subprocess.Popen[bytes], workers: list[psutil.Process]) -> Iterator[None]:
    """Stop the test's own processes (by pid) at the end, whatever the assertions said."""
    try:
        yield
    finally:
        for worker in workers:
            with contextlib.suppress(psutil.Error):
                worker.kill()
        run.kill()
        run.communicate(timeout=30)


def _assert_killed_parent_leaves_no_worker(
    run: subprocess.Popen[bytes], workers: list[psutil.Process], data: Path
) -> None:
    run.kill()
    assert run.wait(timeout=10) == -signal.SIGKILL
    left = _left_after(workers, 5.0)
    assert not left, f"pool workers outlived their parent: {left}"
    run.communicate(timeout=5)  # end of output: no one holds the pipes any more
    assert list(data.iterdir()) == []


LINUX = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="process groups")


@LINUX
def test_a_killed_data_run_leaves_no_pool_worker_behind(tmp_path: Path) -> None:
    """kill -9 of a real ``tcplab data`` run on the process pool: within 5 s no worker is
    left, and the output pipes close (no one keeps them open for a caller waiting on them)."""
    run = _start([str(BIN / "tcplab"), "data", "--only", POOLED], tmp_path)
    workers: list[psutil.Process] = []
    with _cleaned_up(run, workers):
        workers += _pool(run, _computing)
        _assert_killed_parent_leaves_no_worker(run, workers, tmp_path / "data")


@LINUX
def test_without_prctl_the_workers_watch_their_parent(tmp_path: Path) -> None:
    """The fallback where the kernel cannot signal a worker (not Linux): a thread in each
    worker sees its parent gone and ends it, the busy worker and the idle one alike."""
    run = _start_driver(tmp_path, "--no-prctl")
    workers: list[psutil.Process] = []
    with _cleaned_up(run, workers):
        workers += _pool(run, _one_idle(tmp_path / "marks"))
        _assert_killed_parent_leaves_no_worker(run, workers, tmp_path / "data")


WORKER_START = """
import ctypes, os, signal, sys, time
from tcplab.tasks import _die_with_parent
_die_with_parent(int(sys.argv[1]))
os.kill(os.getpid(), signal.SIGINT)  # Ctrl-C: ignored
time.sleep(0.2)
asked = ctypes.c_int(0)  # PR_GET_PDEATHSIG = 2: the signal the kernel sends at the parent's end
ctypes.CDLL(None).prctl(2, ctypes.byref(asked), 0, 0, 0)
print(asked.value)
"""


def _worker_start(parent: str) -> subprocess.CompletedProcess[str]:
    """A process that runs the pool's initializer as a worker does, told that its parent is
    ``parent`` (``-`` : its real parent)."""
    command = [sys.executable, "-c", WORKER_START, str(os.getpid()) if parent == "-" else parent]
    return subprocess.run(command, capture_output=True, text=True, timeout=60, check=False)


@LINUX
def test_a_worker_ignores_ctrl_c_and_asks_the_kernel_to_end_it_with_its_parent() -> None:
    done = _worker_start("-")
    assert done.returncode == 0 and done.stdout.split() == [str(int(signal.SIGKILL))], done


def test_a_worker_whose_parent_is_already_gone_ends_at_once() -> None:
    """The race where the parent dies before a new worker has asked for the kernel's signal:
    the initializer finds another parent and ends the worker (here: a parent pid that is not
    its own)."""
    done = _worker_start("-1")
    assert done.returncode == 1 and done.stdout == "", done


@LINUX
def test_ctrl_c_on_a_pooled_data_run_prints_one_line(tmp_path: Path) -> None:
    """Ctrl-C (SIGINT to the command's process group, as a terminal sends it) while one
    worker computes and the other waits for work: exit 130 at once (not after the minute-long
    task), one line on stderr, no worker's traceback, no worker left, nothing stored.
    Progress bars are off (``TQDM_DISABLE``), so stderr holds only messages."""
    run = _start_driver(tmp_path)
    workers: list[psutil.Process] = []
    with _cleaned_up(run, workers):
        workers += _pool(run, _one_idle(tmp_path / "marks"))
        os.killpg(run.pid, signal.SIGINT)
        _, err = run.communicate(timeout=30)  # the long task needs 60 s
        assert run.returncode == 130
        text = err.decode()
        assert "Traceback" not in text and "KeyboardInterrupt" not in text, text
        [line] = text.splitlines()  # the command's own line (tcplab.cli.main says it)
        assert line.startswith("tcplab: interrupted")
        assert not _left_after(workers, 5.0)
        assert list((tmp_path / "data").iterdir()) == []
