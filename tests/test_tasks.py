"""The task runner: the same results, in the same order, wherever the tasks run.

Every task carries its own seed, so running a sweep on one process or on several must give
identical results in the order of the tasks; that is what lets :mod:`tcplab.tasks` stay out of
the code fingerprint of stored data (checked here too).
"""

from __future__ import annotations

import dataclasses

import pytest

from tcplab import cache, packet
from tcplab.packet import DumbbellTopology, PacketSetup, Probes, QueueSetup, RunLength, TcpConfig
from tcplab.tasks import run_tasks

UNTIMED = ("wall_s", "packets_per_wall_s")


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


def test_the_task_runner_is_not_part_of_a_results_fingerprint() -> None:
    assert cache.imported_modules("tcplab.tasks") == ()
    modules = cache.imported_modules("tcplab.chapters.morris.experiments")
    assert "tcplab.tasks" not in modules
    assert "tcplab.packet.tcp" in modules  # what computes is still followed
