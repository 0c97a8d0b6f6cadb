"""The typed packet set-up: frozen, checked when made, passed as it is, run as described.

A set-up and the keywords of ``run_dumbbell`` that describe the same run give the same run;
bad values and options for the wrong discipline fail when the set-up is made, naming them.
"""

from __future__ import annotations

import dataclasses
import pickle

import pytest

from tcplab import packet
from tcplab.packet import (
    DumbbellTopology,
    MisplacedOptions,
    PacketSetup,
    Probes,
    QueueSetup,
    RunLength,
    TcpConfig,
)

UNTIMED = ("wall_s", "packets_per_wall_s")


def _summary(result: packet.DumbbellResult) -> dict:
    return {k: v for k, v in result.summary().items() if k not in UNTIMED}


def _setup(**changes: object) -> PacketSetup:
    base = PacketSetup(
        topology=DumbbellTopology(3, rate_mbps=5.0, delay_ms=20.0, access_delay_ms=(1.0, 2.0, 3.0)),
        queue=QueueSetup("red", 30, max_p=0.2),
        tcp=TcpConfig(packet_bytes=1000),
        length=RunLength(12.0, 4.0),
        probes=Probes(trace=False),
        seed=3,
    )
    return dataclasses.replace(base, **changes)


def test_a_setup_runs_as_the_keywords_that_describe_it() -> None:
    by_keywords = packet.run_dumbbell(
        3, "red", 30, rate_mbps=5.0, delay_ms=20.0, access_delay_ms=[1.0, 2.0, 3.0],
        duration=12.0, warmup=4.0, packet_bytes=1000, seed=3, queue_options={"max_p": 0.2},
        trace=False,
    )  # fmt: skip
    result = packet.run(_setup())
    assert _summary(result) == _summary(by_keywords)
    assert result.setup == _setup() and by_keywords.setup == _setup()


def test_the_seed_is_part_of_the_setup() -> None:
    same = _summary(packet.run(_setup()))
    assert _summary(packet.run(_setup())) == same
    assert _summary(packet.run(_setup(seed=4))) != same


def test_a_setup_is_frozen_and_crosses_a_process_pool_as_it_is() -> None:
    setup = _setup()
    with pytest.raises(dataclasses.FrozenInstanceError):
        setup.seed = 1  # type: ignore[misc]
    assert pickle.loads(pickle.dumps(setup)) == setup
    assert hash(setup) == hash(_setup())


@pytest.mark.parametrize(
    ("build", "names"),
    [
        (lambda: QueueSetup("droptail", 10, select="largest"), ["select"]),
        (lambda: QueueSetup("red", 10, threshold=3, hold=0.1), ["threshold", "hold"]),
        (lambda: QueueSetup("threshold", 10, max_p=0.1), ["max_p"]),
    ],
)
def test_options_for_another_discipline_are_refused_by_name(build, names: list[str]) -> None:
    with pytest.raises(MisplacedOptions) as raised:
        build()
    assert raised.value.names == names
    assert all(name in str(raised.value) for name in names)


@pytest.mark.parametrize(
    ("build", "name"),
    [
        (lambda: QueueSetup("red", 100, min_th=50, max_th=20), "max_th=20"),
        (lambda: QueueSetup("threshold", 10, threshold=11), "threshold=11"),
        (lambda: QueueSetup("threshold", 10, select="slowest"), "select='slowest'"),
        (lambda: QueueSetup("fifo", 10), "queue='fifo'"),
        (lambda: QueueSetup(loss_rate=1.0), "loss_rate=1.0"),
        (lambda: QueueSetup.of("red", 10, {"max_q": 3}), "max_q"),
        (lambda: RunLength(10.0, 10.0), "warmup=10.0"),
        (lambda: DumbbellTopology(0), "flows=0"),
        (lambda: DumbbellTopology(2, access_delay_ms=(1.0,)), "access_delay_ms must be a"),
        (lambda: _setup(tcp=(TcpConfig(), TcpConfig())), "tcp has 2 configurations"),
        (lambda: _setup(delayed_ack_ms=0.0), "delayed_ack_ms=0.0"),
        (lambda: _setup(seed=-1), "seed=-1"),
    ],
)
def test_bad_values_fail_when_the_setup_is_made(build, name: str) -> None:
    with pytest.raises(ValueError, match=name.replace("(", r"\(").replace(")", r"\)")):
        build()


def test_another_topology_runs_through_the_same_entry() -> None:
    @dataclasses.dataclass(frozen=True)
    class Twice:
        """A stand-in topology: the dumbbell, run twice (a chapter's own topology is wired on
        a Network the same way)."""

        flows: int = 2

        def run(self, setup: PacketSetup) -> tuple:
            dumbbell = dataclasses.replace(setup, topology=DumbbellTopology(self.flows))
            return packet.run(dumbbell), packet.run(dumbbell)

    setup = PacketSetup(topology=Twice(), length=RunLength(5.0, 1.0))  # type: ignore[arg-type]
    first, second = packet.run(setup)
    assert _summary(first) == _summary(second)
