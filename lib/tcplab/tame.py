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

from .checks import check_int, check_range
from .theory.lu import Fit, fit_probes

if TYPE_CHECKING:
    import pandas as pd

    from .packet.qiu import QiuResult

__all__ = [
    "OutOfModel",
    "PacketProbe",
    "TameResult",
    "domain_problem",
    "is_prefix",
    "largest_true",
    "serve_bytes",
    "table_probe",
    "tame_parallel_tcp",
    "transfer_probe",
]

Probe = Callable[[int], float]

#: the fewest-to-most probe ratio below which two probes are "too close" to extrapolate from
#: (the chapter's elasticity analysis: (1, 2) amplifies a probe's error several-fold at n = 31)
CLOSEST_PROBES = 4.0

UNCONGESTED = (
    "the path looks uncongested or window-limited: the loss model does not apply; "
    "re-probe with larger n or check the socket buffer"
)


class OutOfModel(ValueError):
    """The probes leave the model's domain (a' <= 0 or b' <= 0, throughput not rising, probes
    too close, a non-monotone search): the message says what the probes imply."""


def _pairs_text(probes: Mapping[int, float]) -> str:
    return ", ".join(f"{n}:{probes[n]:.6g}" for n in sorted(probes))


def domain_problem(fit: Fit, probes: Mapping[int, float]) -> str | None:
    """Why ``fit`` (fitted to ``probes`` {n: throughput}) cannot advise, as one line, or None.

    The model needs throughput rising with n (a probe at more flows measuring no more than one
    at fewer means a saturated path or noise), probes far enough apart (most/fewest flows
    >= CLOSEST_PROBES), and a positive profile p'_n = a n^2 + b: a' <= 0 means throughput grows
    at least linearly (no shared loss to model), b' <= 0 that one connection's term is not a
    loss rate."""
    levels = sorted(probes)
    low, high = levels[0], levels[-1]
    text = _pairs_text(probes)
    if probes[high] <= probes[low]:
        return (
            f"probes {text}: throughput does not rise from {low} to {high} flows: the path is "
            "saturated by one connection or the probes are noise; the advisor has nothing to "
            "trade (one connection is the answer), re-probe longer to be sure"
        )
    if high / low < CLOSEST_PROBES:
        return (
            f"probes {text}: {low} and {high} flows are too close (ratio {high / low:.3g} < "
            f"{CLOSEST_PROBES:g}): the fit amplifies their noise; probe at 1 and about 10 flows"
        )
    if not fit.a > 0:
        return f"probes {text} grow at least linearly (a' = {fit.a:.3g} <= 0): {UNCONGESTED}"
    if not fit.b > 0:
        return (
            f"probes {text} give b' = {fit.b:.3g} <= 0 (more than linear growth at few flows): "
            f"{UNCONGESTED}"
        )
    return None


def is_prefix(flags: Sequence[bool]) -> bool:
    """True when ``flags`` is some True values followed only by False ones: the precondition
    of :func:`largest_true`'s binary search."""
    pairs = zip(flags[:-1], flags[1:], strict=True)
    return not any(later and not earlier for earlier, later in pairs)


@dataclass(frozen=True)
class TameResult:
    """The advisor's answer: ``flows`` connections, their predicted ``throughput`` (the
    probes' unit) and predicted ``impact`` (relative drop of each cross connection's
    throughput against one connection), the ``fit`` behind them, the ``probes`` sent
    ({n: throughput}), and what stopped the search: ``impact``, ``gain`` or ``limit``.
    ``monotone`` says whether the binary search's precondition held (impact and gain tests
    true on a prefix of the candidates), checked on every candidate."""

    flows: int
    throughput: float
    impact: float
    fit: Fit
    probes: dict[int, float]
    stopped_by: str
    max_flows: int
    monotone: bool = True

    def curve(self) -> pd.DataFrame:
        """The fitted curve: (flows, predicted throughput, predicted impact) for 1..max_flows."""
        import pandas as pd  # noqa: PLC0415 - here: the command line answers without pandas

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
    guard: bool = False,
) -> TameResult:
    """Lu et al.'s TameParallelTCP(): the largest number of parallel connections (among
    ``candidates``, default 1..``max_flows``) whose predicted impact on cross traffic is at
    most ``max_impact`` (a fraction in (0, 1)), stopping earlier where one more connection
    would add less than ``min_gain`` (a fraction) of predicted throughput.

    ``probe(n)`` measures the throughput of n parallel connections; it is called once for
    each of ``probes`` (two different numbers of connections, three for ``model='full2'``).

    With ``guard`` it refuses (:class:`OutOfModel`, one line saying what the probes imply)
    when the fit leaves the model's domain (:func:`domain_problem`) or the binary search's
    monotonicity precondition fails; without it (the book's analyses of simulated runs) it
    answers anyway and records the precondition in ``monotone``.
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
    problem = domain_problem(fit, measured) if guard else None
    if problem:
        raise OutOfModel(problem)
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

    monotone = is_prefix([within(n) for n in pool]) and is_prefix([worth_it(n) for n in pool])
    if guard and not monotone:
        raise OutOfModel(
            f"probes {_pairs_text(measured)}: the predicted impact or gain is not monotone in n "
            "over the candidates, so the binary search does not apply; " + UNCONGESTED
        )
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
        monotone=monotone,
    )


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
