"""TameParallelTCP (Lu et al. 2005, Section V): how many parallel connections to open.

:func:`tame_parallel_tcp` sends two probes (``probe(n)`` returns the throughput measured with
n parallel connections), fits the partial order-2 model of ``p_n RTT_n^2`` (eqs. 7, 13-14 of
:mod:`tcplab.theory.lu`), and binary-searches the largest n whose predicted impact on each
cross connection (eq. 18, against one connection) stays at or under ``max_impact``. Like the
paper it also stops adding connections once one more would raise the predicted throughput by
less than ``min_gain`` (relative). It returns n, the predicted throughput and impact there,
the fitted curve and the probes it sent.

A probe can come from anywhere: the packet model (:class:`PacketProbe`, one of the paper's
six scenarios), a recorded table (:func:`table_probe`), or a real transfer
(:func:`transfer_probe`, n TCP connections reading from a server for a few seconds;
:func:`serve_bytes` is such a server, for a test on this machine).
"""

from __future__ import annotations

import math
import socket
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from .checks import check_int, check_range
from .theory.lu import Fit, fit_probes

if TYPE_CHECKING:
    from .packet.qiu import QiuResult

__all__ = [
    "PacketProbe",
    "TameResult",
    "largest_true",
    "serve_bytes",
    "table_probe",
    "tame_parallel_tcp",
    "transfer_probe",
]

Probe = Callable[[int], float]


@dataclass(frozen=True)
class TameResult:
    """The advisor's answer: ``flows`` connections, their predicted ``throughput`` (the
    probes' unit) and predicted ``impact`` (relative drop of each cross connection's
    throughput against one connection), the ``fit`` behind them, the ``probes`` sent
    ({n: throughput}), and what stopped the search: ``impact``, ``gain`` or ``limit``."""

    flows: int
    throughput: float
    impact: float
    fit: Fit
    probes: dict[int, float]
    stopped_by: str
    max_flows: int

    def curve(self) -> pd.DataFrame:
        """The fitted curve: (flows, predicted throughput, predicted impact) for 1..max_flows."""
        n = np.arange(1, self.max_flows + 1)
        return pd.DataFrame(
            {"flows": n, "throughput": self.fit.throughput(n), "impact": self.fit.impact(n)}
        )


def largest_true(predicate: Callable[[int], bool], candidates: Sequence[int]) -> int | None:
    """Binary search: the last candidate for which ``predicate`` holds, when it holds on a
    prefix of the sorted ``candidates`` (None if it holds for none)."""
    low, high = 0, len(candidates)  # predicate holds below low, fails from high on
    while low < high:
        mid = (low + high) // 2
        if predicate(candidates[mid]):
            low = mid + 1
        else:
            high = mid
    return candidates[low - 1] if low > 0 else None


def tame_parallel_tcp(
    probe: Probe,
    max_impact: float,
    *,
    probes: Sequence[int] = (1, 10),
    max_flows: int = 31,
    min_gain: float = 0.01,
    model: str = "partial2",
    candidates: Sequence[int] | None = None,
) -> TameResult:
    """Lu et al.'s TameParallelTCP(): the largest number of parallel connections (among
    ``candidates``, default 1..``max_flows``) whose predicted impact on cross traffic is at
    most ``max_impact`` (a fraction in (0, 1)), stopping earlier where one more connection
    would add less than ``min_gain`` (a fraction) of predicted throughput.

    ``probe(n)`` measures the throughput of n parallel connections; it is called once for
    each of ``probes`` (two different numbers of connections, three for ``model='full2'``).
    """
    impact_limit = check_range("max_impact", max_impact, 0.0, 1.0, low_open=True, high_open=True)
    gain_floor = check_range("min_gain", min_gain, 0.0)
    max_flows = check_int("max_flows", max_flows, 1)
    levels = [check_int("probes", n, 1) for n in probes]
    if len(set(levels)) != len(levels):
        raise ValueError(f"probes={list(probes)!r}: two probes at the same number of flows")
    measured: dict[int, float] = {}
    for n in levels:
        value = probe(n)
        check_range(f"probe({n})", value, 0.0, low_open=True)
        if not math.isfinite(value):
            raise ValueError(f"probe({n})={value!r} is not a finite throughput")
        measured[n] = float(value)
    fit = fit_probes(measured, model)
    pool = sorted({check_int("candidates", n, 1) for n in (candidates or range(1, max_flows + 1))})

    def within(n: int) -> bool:
        impact = fit.impact(n)
        return bool(np.isfinite(impact) and impact <= impact_limit)

    def worth_it(n: int) -> bool:  # is n still a gain over the candidate before it?
        i = pool.index(n)
        if i == 0:
            return bool(np.isfinite(fit.throughput(n)))
        before, after = float(fit.throughput(pool[i - 1])), float(fit.throughput(n))
        if not (np.isfinite(before) and np.isfinite(after)):
            return False
        steps = n - pool[i - 1]
        return (after / before) ** (1.0 / steps) - 1.0 >= gain_floor

    by_impact = largest_true(within, pool) or pool[0]
    by_gain = largest_true(worth_it, pool) or pool[0]
    chosen = min(by_impact, by_gain)
    if by_impact == by_gain == pool[-1]:
        reason = "limit"
    else:
        reason = "gain" if by_gain < by_impact else "impact"
    return TameResult(
        flows=int(chosen),
        throughput=float(fit.throughput(chosen)),
        impact=float(fit.impact(chosen)),
        fit=fit,
        probes=measured,
        stopped_by=reason,
        max_flows=max(max_flows, pool[-1]),
    )


def table_probe(table: Mapping[int, float] | pd.DataFrame, column: str = "throughput") -> Probe:
    """A probe that reads a recorded table: a mapping {n: throughput}, or a DataFrame with a
    ``flows`` column and the throughput in ``column`` (one row per n)."""
    if isinstance(table, pd.DataFrame):
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
