"""The window and slow-start threshold of one connection alone in scenarios 2 and 3 (the
chapter's own seeded runs; ``tcps`` may add NewReno): ``lu-trace``, read by
:func:`~tcplab.packet.qiu.simulate_qiu` (its ``times``).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np
import pandas as pd

from tcplab.packet import RunLength
from tcplab.packet.qiu import simulate_qiu
from tcplab.tasks import run_tasks

from .scenarios import PARALLEL_START, scenario_seed, scenario_setup

__all__ = ["TraceParams", "trace"]


@dataclass(frozen=True)
class TraceParams:
    """The one connection of ``scenarios`` alone, read every ``fine`` seconds over the first
    ``fine_span`` seconds after its start and every ``coarse`` seconds after."""

    scenarios: tuple[int, ...] = (2, 3)
    tcps: tuple[str, ...] = ("reno",)
    fine: float = 0.01
    fine_span: float = 2.0
    coarse: float = 0.5
    duration: float = 100.0
    workers: int = 2

    @classmethod
    def quick(cls) -> TraceParams:
        return cls(scenarios=(2,), tcps=("reno",), fine_span=1.0, coarse=2.0, duration=30.0,
                   workers=1)  # fmt: skip

    def times(self) -> np.ndarray:
        fine = PARALLEL_START + self.fine * np.arange(1, round(self.fine_span / self.fine))
        coarse = np.arange(PARALLEL_START + self.fine_span, self.duration, self.coarse)
        return np.round(np.concatenate([fine, coarse]), 6)


def _trace_one(job: tuple[int, str, int, TraceParams]) -> pd.DataFrame:
    k, tcp, run_seed, params = job
    setup = scenario_setup(k, 1, 0, "droptail", run_seed)
    setup = dataclasses.replace(
        setup,
        tcp=dataclasses.replace(setup.tcp, variant=tcp),  # type: ignore[type-var]
        length=RunLength(params.duration, PARALLEL_START),
    )
    result = simulate_qiu(setup, times=params.times())  # type: ignore[arg-type]
    assert result.trace is not None
    out = result.trace.assign(scenario=k, tcp=tcp)
    out["parallel_bytes_per_s"] = result.parallel_bytes_per_s
    out["timeouts"] = result.timeouts
    out["fast_retransmits"] = result.fast_retransmits
    return out


def trace(params: TraceParams, seed: int = 0) -> pd.DataFrame:
    """Rows (scenario, tcp, time, cwnd, ssthresh, then the run's parallel_bytes_per_s,
    timeouts and fast_retransmits on every row): one connection alone, seeded as
    ``lu-scenarios`` seeds scenario k without cross traffic."""
    jobs = [
        (k, tcp, scenario_seed(seed, k, "droptail", 0, 0), params)
        for k in params.scenarios
        for tcp in params.tcps
    ]
    parts = run_tasks(_trace_one, jobs, workers=params.workers, desc="lu trace")
    columns = ["scenario", "tcp", "time", "cwnd", "ssthresh", "parallel_bytes_per_s",
               "timeouts", "fast_retransmits"]  # fmt: skip
    return pd.concat(parts, ignore_index=True)[columns]
