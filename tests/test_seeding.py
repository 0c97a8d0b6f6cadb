"""tcplab.seeding: the seeds a sweep's jobs get, which every shipped packet table depends on
(BMC's and the packets chapter's): job i gets the first word of child i of SeedSequence(seed),
numpy's documented way to make independent streams from one seed."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tcplab.seeding import seeded


@dataclass(frozen=True)
class _Setup:
    seed: int = 0
    rate: float = 1.0


@dataclass(frozen=True)
class _Job:
    setup: _Setup
    label: str = ""


def test_job_i_gets_child_i_of_the_seed_sequence_and_keeps_the_rest() -> None:
    jobs = [_Job(_Setup(rate=r), label=f"r{r}") for r in (1.0, 2.0, 3.0)]
    out = seeded(jobs, 7)
    children = np.random.SeedSequence(7).spawn(3)
    assert [j.setup.seed for j in out] == [int(c.generate_state(1)[0]) for c in children]
    assert len({j.setup.seed for j in out}) == 3
    assert [(j.label, j.setup.rate) for j in out] == [(j.label, j.setup.rate) for j in jobs]


def test_a_job_s_seed_depends_on_its_place_not_on_the_jobs_after_it() -> None:
    jobs = [_Job(_Setup()) for _ in range(5)]
    assert seeded(jobs, 3)[:2] == seeded(jobs[:2], 3)
    assert seeded(jobs, 3) != seeded(jobs, 4)
