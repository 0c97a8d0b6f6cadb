"""Lu et al. (2005) re-run on the packet model: the six scenarios, the sensitivity of our
choices, and seeded emulated paths in place of PlanetLab.

Every table is raw measurement, one row per run: the parallel connections' and the cross
traffic's goodput over the parallel connections' lifetime (bytes/s), their loss rates at the
bottleneck, the parallel senders' mean smoothed RTT, their time-outs and fast retransmits, and
the bottleneck packets simulated. Predictions, impacts and errors are computed from these
tables by :mod:`tcplab.chapters.lu.analysis` when the chapter runs, so that changing an
analysis never needs the simulations again.

The book's grid is much smaller than the paper's (1 to 31 parallel connections by one, seven
cross-traffic levels, all six scenarios): it is what fits a quarter of an hour on two shared
cores (scenario 1 complete, scenarios 2, 3 and 6 at six numbers of connections and all seven
cross-traffic levels, the 1 Gb/s scenarios 4 and 5 not at all); ``benchmarks/bench_lu.py``
prices both. :meth:`LuParams.paper` and :meth:`SensitivityParams.paper` are the larger
grids, one parameter away: ``tcplab data --scale paper --only lu-scenarios lu-sensitivity``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from tcplab.packet import PacketSetup, Probes, QueueSetup, RunLength, TcpConfig
from tcplab.packet.qiu import QiuTopology

from .runs import Job, run_jobs
from .scenarios import (
    CROSS_START,
    DURATION,
    LARGE_WINDOW,
    PACKET_BYTES,
    PARALLEL_START,
    SCENARIOS,
    Variant,
    scenario_seed,
    scenario_setup,
)

__all__ = [
    "Grid",
    "LuParams",
    "PathsParams",
    "SensitivityParams",
    "VARIANTS",
    "paths",
    "scenarios",
    "sensitivity",
]

ALL_FLOWS = tuple(range(1, 32))  # the paper: 1 to 31 parallel connections
ALL_CROSS = (0, 5, 10, 15, 20, 25, 30)  # no cross traffic (Figs. 3-8 a) and the six levels
BOOK_FLOWS = (1, 2, 3, 5, 8, 10, 15, 20, 25, 31)  # every probe level, and the curve's shape
FAST_FLOWS = (1, 2, 8, 10, 15, 31)  # the probe levels and the most (100 Mb/s scenarios)
FAST_CROSS = (10,)  # the level of the paper's Figs. 3-8 b) and 13
SMALL_PATH_WINDOW = 65  # packets: a 64 KB TCP buffer (65 536 bytes) of 1000-byte packets


@dataclass(frozen=True)
class Grid:
    """The runs of one scenario: every (queue, cross, flows, replica) combination."""

    scenario: int
    flows: tuple[int, ...] = BOOK_FLOWS
    cross: tuple[int, ...] = ALL_CROSS
    queues: tuple[str, ...] = ("droptail",)
    replicas: int = 1


def _cost(setup: PacketSetup) -> float:
    """A guess of a run's bottleneck packets (only to start the heaviest runs first)."""
    top: QiuTopology = setup.topology  # type: ignore[assignment]
    tcp: TcpConfig = setup.tcp  # type: ignore[assignment]
    capacity = top.rate_mbps * 1e6 / 8.0 / tcp.packet_bytes  # packets/s
    offered = top.connections * tcp.max_window / top.propagation_rtt()
    return min(capacity, offered) * setup.length.duration


@dataclass(frozen=True)
class LuParams:
    """The runs behind the chapter's Sections 3-5: one :class:`Grid` per scenario.

    The default is the book's grid, what fits a quarter of an hour on two shared cores:
    scenario 1 (1.5 Mb/s, cheap) at ten numbers of parallel connections, all seven
    cross-traffic levels, DropTail and RED, two replicas; the three 100 Mb/s scenarios (2, 3,
    6) at the probe levels and 31 connections (:data:`FAST_FLOWS`) at all seven
    cross-traffic levels. The 1 Gb/s scenarios 4 and 5 are in :meth:`paper` only.
    """

    grids: tuple[Grid, ...] = (
        Grid(1, queues=("droptail", "red"), replicas=2),
        *(Grid(k, FAST_FLOWS, ALL_CROSS) for k in (2, 3, 6)),
    )
    workers: int = 2

    @classmethod
    def quick(cls) -> LuParams:
        """Scenario 1 only, six numbers of connections, three cross-traffic levels."""
        grid = Grid(1, (1, 2, 4, 8, 10, 15), (0, 5, 15), ("droptail", "red"))
        return cls(grids=(grid,), workers=1)

    @classmethod
    def paper(cls) -> LuParams:
        """The paper's grid: 1-31 connections by one, seven cross-traffic levels, two
        replicas everywhere (and RED for scenario 1)."""
        grids = tuple(
            Grid(k, ALL_FLOWS, ALL_CROSS, ("droptail", "red") if k == 1 else ("droptail",), 2)
            for k in SCENARIOS
        )
        return cls(grids=grids)


def scenarios(params: LuParams, seed: int = 0) -> pd.DataFrame:
    """Sections 3-5: every run of every grid. Rows (scenario, queue, cross, replica, flows,
    capacity_bytes_per_s, then :data:`~tcplab.chapters.lu.runs.ROW_NUMBERS`)."""
    jobs = []
    for grid in params.grids:
        capacity = SCENARIOS[grid.scenario].capacity_bytes_per_s
        for queue in grid.queues:
            for m in grid.cross:
                for r in range(grid.replicas):
                    run_seed = scenario_seed(seed, grid.scenario, queue, m, r)
                    for n in grid.flows:
                        setup = scenario_setup(grid.scenario, n, m, queue, run_seed)
                        labels = (
                            ("scenario", grid.scenario), ("queue", queue), ("cross", m),
                            ("replica", r), ("flows", n), ("capacity_bytes_per_s", capacity),
                        )  # fmt: skip
                        jobs.append(Job(setup, labels, _cost(setup)))
    return pd.DataFrame(run_jobs(jobs, params.workers, "lu scenarios"))


#: the sensitivity runs: a name, a :class:`Variant`, the queue, the replica
VARIANTS: dict[str, tuple[Variant, str, int]] = {
    "as chosen": (Variant(), "droptail", 0),
    "1500-byte packets": (Variant(packet_bytes=1500), "droptail", 0),
    "100 ms timer tick": (Variant(granularity=0.1), "droptail", 0),
    "send jitter U(0, 0.1 ms)": (Variant(overhead_ms=0.1), "droptail", 0),
    "RED": (Variant(), "red", 0),
    "another seed": (Variant(), "droptail", 1),
    "a third seed": (Variant(), "droptail", 2),
}


@dataclass(frozen=True)
class SensitivityParams:
    """The choices the paper leaves open, varied one at a time in scenario 1 (and in
    scenario 2 at the paper's scale) with ``cross`` cross-traffic connections (and the
    run-to-run noise: two more seeds)."""

    scenarios: tuple[int, ...] = (1,)
    flows: tuple[int, ...] = (1, 2, 5, 10, 20, 31)
    cross: int = 10
    variants: tuple[str, ...] = tuple(VARIANTS)
    workers: int = 2

    @classmethod
    def quick(cls) -> SensitivityParams:
        return cls(scenarios=(1,), flows=(1, 2, 10), workers=1)

    @classmethod
    def paper(cls) -> SensitivityParams:
        """Scenarios 1 and 2 (a 100 Mb/s scenario costs about forty 1.5 Mb/s ones)."""
        return cls(scenarios=(1, 2))


def sensitivity(params: SensitivityParams, seed: int = 0) -> pd.DataFrame:
    """Rows (scenario, variant, queue, cross, replica, flows, capacity_bytes_per_s, then the
    run's numbers), one per scenario, variant and number of parallel connections."""
    jobs = []
    for k in params.scenarios:
        capacity = SCENARIOS[k].capacity_bytes_per_s
        for name in params.variants:
            variant, queue, r = VARIANTS[name]
            run_seed = scenario_seed(seed, k, queue, params.cross, r)
            for n in params.flows:
                setup = scenario_setup(k, n, params.cross, queue, run_seed, variant)
                labels = (
                    ("scenario", k), ("variant", name), ("queue", queue),
                    ("cross", params.cross), ("replica", r), ("flows", n),
                    ("capacity_bytes_per_s", capacity),
                )  # fmt: skip
                jobs.append(Job(setup, labels, _cost(setup)))
    return pd.DataFrame(run_jobs(jobs, params.workers, "lu sensitivity"))


@dataclass(frozen=True)
class PathsParams:
    """Seeded emulated paths in place of the paper's 41 PlanetLab paths: Qiu's topology with
    a bottleneck rate drawn log-uniformly in ``rate_mbps``, a one-way bottleneck delay
    uniform in ``delay_ms``, a DropTail (or, with probability ``red_share``, RED) buffer
    uniform in ``buffer``, cross traffic uniform in ``cross``, and with probability
    ``small_window_share`` a mistuned 64 KB TCP buffer. Each path is measured at every
    ``flows`` (one run each) and probed at ``probes`` in runs of their own (another seed)."""

    paths: int = 16
    flows: tuple[int, ...] = (1, 2, 4, 6, 8, 10, 12, 15, 20, 25, 30)
    probes: tuple[int, ...] = (1, 10)
    rate_mbps: tuple[float, float] = (2.0, 20.0)
    delay_ms: tuple[float, float] = (5.0, 80.0)
    buffer: tuple[int, int] = (10, 100)
    cross: tuple[int, int] = (0, 15)
    red_share: float = 0.25
    small_window_share: float = 0.25
    workers: int = 2

    @classmethod
    def quick(cls) -> PathsParams:
        return cls(paths=3, flows=(1, 2, 5, 10, 15), rate_mbps=(1.5, 3.0), workers=1)


def draw_path(params: PathsParams, rng: np.random.Generator) -> dict[str, float | int | str]:
    """One emulated path's set-up, drawn from ``rng``."""
    low, high = np.log(params.rate_mbps[0]), np.log(params.rate_mbps[1])
    return {
        "rate_mbps": round(float(np.exp(rng.uniform(low, high))), 3),
        "delay_ms": round(float(rng.uniform(*params.delay_ms)), 2),
        "buffer": int(rng.integers(params.buffer[0], params.buffer[1] + 1)),
        "path_cross": int(rng.integers(params.cross[0], params.cross[1] + 1)),
        "path_queue": "red" if rng.random() < params.red_share else "droptail",
        "window": SMALL_PATH_WINDOW if rng.random() < params.small_window_share else LARGE_WINDOW,
    }


def _path_setup(path: dict, flows: int, seed: int) -> PacketSetup:
    rate = float(path["rate_mbps"])
    topology = QiuTopology(
        flows=flows, cross=int(path["path_cross"]), rate_mbps=rate,
        delay_ms=float(path["delay_ms"]), access_mbps=10.0 * rate, egress_mbps=10.0 * rate,
        cross_start=CROSS_START, parallel_start=PARALLEL_START,
    )  # fmt: skip
    return PacketSetup(
        topology=topology,  # type: ignore[arg-type]  # any Topology
        queue=QueueSetup(str(path["path_queue"]), int(path["buffer"])),
        tcp=TcpConfig("reno", packet_bytes=PACKET_BYTES, max_window=int(path["window"])),
        length=RunLength(DURATION, PARALLEL_START),
        probes=Probes(trace=False),
        seed=seed,
    )


def paths(params: PathsParams, seed: int = 0) -> pd.DataFrame:
    """Rows (path, its set-up, role, flows, then the run's numbers): ``role`` is ``measure``
    for the curve and ``probe`` for the probe runs, which use another seed than the
    measurement at the same number of connections."""
    children = np.random.SeedSequence(seed).spawn(params.paths)
    jobs = []
    for i, child in enumerate(children):
        draw, measure, probe = child.spawn(3)
        path = draw_path(params, np.random.default_rng(draw))
        runs = [("measure", n, measure) for n in params.flows]
        runs += [("probe", n, probe) for n in params.probes]
        for role, n, stream in runs:
            setup = _path_setup(path, n, int(stream.generate_state(1)[0]))
            labels = (("path", i), *path.items(), ("role", role), ("flows", n))
            capacity = float(path["rate_mbps"]) * 1e6 / 8.0
            jobs.append(Job(setup, (*labels, ("capacity_bytes_per_s", capacity)), _cost(setup)))
    table = pd.DataFrame(run_jobs(jobs, params.workers, "lu paths"))
    table["rtt_prop_s"] = 2e-3 * (4.0 + table["delay_ms"] + 5.0)
    return table
