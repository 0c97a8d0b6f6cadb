"""What-if runs: each removes one cause the chapter names for a difference from the paper,
so that the effect can be seen to go away (or not).

* ``lu-variants`` (:func:`variants`): the paper's scenarios with one choice changed, through
  the same :func:`~tcplab.chapters.lu.scenarios.scenario_setup` and seeds as ``lu-scenarios``
  (a row here differs from its ``lu-scenarios`` row only by ``variant``): TCP Tahoe in
  scenario 1 (the paper's footnote 2, "comparable results"); RED in scenarios 2 and 6 (the
  paper: DropTail and RED alike outside scenario 1; and scenario 6's lock-out at 10 cross
  flows); NewReno for one connection alone in scenario 3 (no chain of Reno halvings and
  time-out after the first slow start).
* ``lu-transient`` (:func:`transient`): scenario 3 without cross traffic, one connection, in
  a longer run measured only after the start-up transient
  (:func:`~tcplab.packet.qiu.simulate_qiu`, its ``measure_from``).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import pandas as pd

from tcplab.packet import RunLength
from tcplab.packet.qiu import simulate_qiu
from tcplab.tasks import run_tasks

from .experiments import BOOK_FLOWS, FAST_FLOWS, _cost
from .runs import ROW_NUMBERS, Job, run_jobs
from .scenarios import PARALLEL_START, SCENARIOS, scenario_seed, scenario_setup

__all__ = [
    "Case",
    "TransientParams",
    "VariantsParams",
    "transient",
    "variants",
]


@dataclass(frozen=True)
class Case:
    """Runs of one scenario with one choice changed: ``variant`` names it, ``tcp`` the TCP
    variant (``reno`` as chosen), ``queue`` the bottleneck's discipline."""

    scenario: int
    variant: str
    cross: tuple[int, ...]
    flows: tuple[int, ...]
    tcp: str = "reno"
    queue: str = "droptail"


@dataclass(frozen=True)
class VariantsParams:
    """The cases of ``lu-variants``."""

    cases: tuple[Case, ...] = (
        Case(1, "Tahoe", (0, 5, 10, 15, 20, 25, 30), BOOK_FLOWS, tcp="tahoe"),
        Case(2, "RED", (10,), (1, 10, 31), queue="red"),
        Case(6, "RED", (10,), FAST_FLOWS, queue="red"),
        Case(3, "NewReno", (0,), (1,), tcp="newreno"),
    )
    workers: int = 2

    @classmethod
    def quick(cls) -> VariantsParams:
        """Each case's change on scenario 1, a few runs each (every word of the full cases:
        the restamp canary takes each one's code path)."""
        return cls(
            cases=(
                Case(1, "Tahoe", (0, 5), (1, 2, 10), tcp="tahoe"),
                Case(1, "RED", (5,), (2,), queue="red"),
                Case(1, "NewReno", (0,), (1,), tcp="newreno"),
            ),
            workers=1,
        )


def variants(params: VariantsParams, seed: int = 0) -> pd.DataFrame:
    """Rows (scenario, variant, tcp, queue, cross, flows, capacity_bytes_per_s, then the
    numbers of :data:`~tcplab.chapters.lu.runs.ROW_NUMBERS`), seeded as ``lu-scenarios``."""
    jobs = []
    for case in params.cases:
        capacity = SCENARIOS[case.scenario].capacity_bytes_per_s
        for m in case.cross:
            run_seed = scenario_seed(seed, case.scenario, case.queue, m, 0)
            for n in case.flows:
                setup = scenario_setup(case.scenario, n, m, case.queue, run_seed)
                setup = dataclasses.replace(
                    setup,
                    tcp=dataclasses.replace(setup.tcp, variant=case.tcp),  # type: ignore[type-var]
                )
                labels = (
                    ("scenario", case.scenario), ("variant", case.variant), ("tcp", case.tcp),
                    ("queue", case.queue), ("cross", m), ("flows", n),
                    ("capacity_bytes_per_s", capacity),
                )  # fmt: skip
                jobs.append(Job(setup, labels, _cost(setup)))
    return pd.DataFrame(run_jobs(jobs, params.workers, "lu variants"))


#: per scenario: the run's length and where its measurement starts (seconds): after the one
#: connection's window has had time to grow from a few packets to the path's pipe at one
#: packet per round trip (scenario 2: 725 packets at 58 ms, some 45 s; scenario 3: 1475 at
#: 118 ms, some 175 s)
LATE: dict[int, tuple[float, float]] = {2: (200.0, 100.0), 3: (300.0, 200.0)}


@dataclass(frozen=True)
class TransientParams:
    """Scenarios 2 and 3 alone (no cross traffic), ``flows`` connections, each run to
    ``LATE[k][0]`` seconds and measured from ``LATE[k][1]``."""

    scenarios: tuple[int, ...] = (3,)
    flows: tuple[int, ...] = (1,)
    late: tuple[tuple[int, float, float], ...] = tuple((k, *v) for k, v in LATE.items())
    workers: int = 2

    @classmethod
    def quick(cls) -> TransientParams:
        """Scenario 1's rates would not show it; one short scenario-2 run of each kind."""
        return cls(scenarios=(2,), flows=(1,), late=((2, 20.0, 15.0),), workers=1)


def _transient_one(job: tuple[int, int, float, float, int]) -> dict[str, float | int | str]:
    k, n, duration, start, run_seed = job
    setup = scenario_setup(k, n, 0, "droptail", run_seed)
    setup = dataclasses.replace(setup, length=RunLength(duration, PARALLEL_START))
    summary = simulate_qiu(setup, measure_from=start).summary()
    labels = {"scenario": k, "flows": n, "duration_s": duration, "measure_from_s": start,
              "capacity_bytes_per_s": SCENARIOS[k].capacity_bytes_per_s}  # fmt: skip
    return {**labels, **{key: summary[key] for key in ROW_NUMBERS}}


def transient(params: TransientParams, seed: int = 0) -> pd.DataFrame:
    """Rows (scenario, flows, duration_s, measure_from_s, capacity_bytes_per_s, then the
    numbers of a ``lu-scenarios`` row, measured from ``measure_from_s``)."""
    late = {k: (d, s) for k, d, s in params.late}
    jobs = [
        (k, n, *late[k], scenario_seed(seed, k, "droptail", 0, 0))
        for k in params.scenarios
        for n in sorted(params.flows, reverse=True)
    ]
    rows = run_tasks(_transient_one, jobs, workers=params.workers, desc="lu transient")
    return pd.DataFrame(rows).sort_values(["scenario", "flows"], ignore_index=True)
