"""The advisor's probes: functions of n, the number of parallel connections, that return
the throughput measured with n connections (:func:`tcplab.tame.tame_parallel_tcp` calls them).

From a recorded table (:func:`table_probe`), the packet model (:class:`PacketProbe`, one of
Lu et al.'s six scenarios), or a real transfer (:func:`transfer_probe`, n TCP connections
reading from a server for a few seconds; :func:`serve_bytes` is such a server, for a test on
this machine). iperf3 is :class:`tcplab.iperf3.Iperf3Probe`.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from .checks import check_int, check_range

if TYPE_CHECKING:
    import pandas as pd

    from .packet.qiu import QiuResult

__all__ = ["PacketProbe", "Probe", "serve_bytes", "table_probe", "transfer_probe"]

Probe = Callable[[int], float]


def table_probe(table: Mapping[int, float] | pd.DataFrame, column: str = "throughput") -> Probe:
    """A probe that reads a recorded table: a mapping {n: throughput}, or a DataFrame with a
    ``flows`` column and the throughput in ``column`` (one row per n)."""
    if not isinstance(table, Mapping):  # a DataFrame
        if table["flows"].duplicated().any():
            raise ValueError("table has several rows for one number of flows: select one")
        recorded = dict(zip(table["flows"].astype(int), table[column].astype(float), strict=True))
    else:
        recorded = {int(n): float(v) for n, v in table.items()}

    def probe(n: int) -> float:
        if n not in recorded:
            raise ValueError(f"flows={n} is not in the recorded table ({sorted(recorded)})")
        return recorded[n]

    return probe


@dataclass
class PacketProbe:
    """A probe that runs the packet model: scenario ``scenario`` of Lu et al. with ``cross``
    cross-traffic connections (:func:`tcplab.chapters.lu.scenarios.run_scenario`); each call
    is one 100 s run, kept in ``runs`` by n. Returns the parallel goodput in bytes/s."""

    scenario: int
    cross: int = 10
    queue: str = "droptail"
    seed: int = 0
    runs: dict[int, QiuResult] = field(default_factory=dict)

    def __post_init__(self) -> None:
        from .chapters.lu.scenarios import QUEUES, check_scenario

        check_scenario(self.scenario)
        check_int("cross", self.cross, 0)
        if self.queue not in QUEUES:
            raise ValueError(f"queue={self.queue!r} is not one of: {', '.join(QUEUES)}")

    def run(self, n: int) -> QiuResult:
        """The run with n parallel connections (simulated once, then kept)."""
        from .chapters.lu.scenarios import run_scenario

        if n not in self.runs:
            self.runs[n] = run_scenario(self.scenario, n, self.cross, self.queue, self.seed)
        return self.runs[n]

    def __call__(self, n: int) -> float:
        return self.run(n).parallel_bytes_per_s


def transfer_probe(host: str, port: int, seconds: float = 5.0) -> Probe:
    """A probe that measures a real transfer: n TCP connections to ``(host, port)`` read
    whatever the server sends for ``seconds``; the throughput is the bytes received by all of
    them over that time (bytes/s). The server must stream data to every connection it accepts
    (as :func:`serve_bytes` does)."""
    check_int("port", port, 1, 65535)
    span = check_range("seconds", seconds, 0.0, low_open=True)

    def probe(n: int) -> float:
        n = check_int("flows", n, 1)
        counts = [0] * n
        ready = threading.Barrier(n + 1)

        def reader(i: int) -> None:
            with socket.create_connection((host, port), timeout=span + 5.0) as conn:
                ready.wait()
                end = time.monotonic() + span
                while time.monotonic() < end:
                    chunk = conn.recv(1 << 16)
                    if not chunk:
                        break
                    counts[i] += len(chunk)

        threads = [threading.Thread(target=reader, args=(i,), daemon=True) for i in range(n)]
        for thread in threads:
            thread.start()
        ready.wait()
        began = time.monotonic()
        for thread in threads:
            thread.join()
        return sum(counts) / max(time.monotonic() - began, 1e-9)

    return probe


@contextmanager
def serve_bytes(host: str = "127.0.0.1", rate: float | None = None) -> Iterator[int]:
    """A TCP server on ``host`` (a free port, yielded) that sends zeros to every connection
    until it closes; ``rate`` (bytes/s per connection) paces each connection, None: as fast
    as TCP takes them. For trying :func:`transfer_probe` on one machine."""
    limit = None if rate is None else check_range("rate", rate, 0.0, low_open=True)
    server = socket.create_server((host, 0))
    stop = threading.Event()
    block = bytes(1 << 14)

    def feed(conn: socket.socket) -> None:
        with conn:
            sent, began = 0, time.monotonic()
            while not stop.is_set():
                if limit is not None and sent > limit * (time.monotonic() - began):
                    time.sleep(0.001)
                    continue
                try:
                    conn.sendall(block)
                except OSError:
                    return
                sent += len(block)

    def accept() -> None:
        server.settimeout(0.1)
        while not stop.is_set():
            try:
                conn, _ = server.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            threading.Thread(target=feed, args=(conn,), daemon=True).start()

    acceptor = threading.Thread(target=accept, daemon=True)
    acceptor.start()
    try:
        yield int(server.getsockname()[1])
    finally:
        stop.set()
        acceptor.join()
        server.close()
