"""Qiu's topology (Lu et al. Fig. 1) on the packet model, and the paper's six scenarios.

Expectations come from the set-up itself: a window-limited connection on an idle path sends
one window per round trip (propagation plus one transmission per link); goodput never exceeds
the bottleneck; the per-group counters add up to the link's own; the scenarios are the
paper's Fig. 2 table.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from tcplab.chapters.lu import scenarios as sc
from tcplab.packet import DropTail, PacketSetup, Probes, QueueSetup, RunLength, TcpConfig
from tcplab.packet.qiu import GroupCounter, QiuTopology, simulate_qiu


def _setup(topology: QiuTopology, window: int = 20_000, duration: float = 40.0, seed: int = 0):
    return PacketSetup(
        topology=topology,  # type: ignore[arg-type]
        queue=QueueSetup("droptail", 25),
        tcp=TcpConfig("reno", packet_bytes=1000, max_window=window),
        length=RunLength(duration, topology.parallel_start),
        probes=Probes(trace=False),
        seed=seed,
    )


def test_window_limited_connections_send_one_window_per_round_trip() -> None:
    """3 connections of window 10 on an idle 100 Mb/s path: 3 x 10 packets per RTT, RTT the
    propagation (2 x 29 ms) plus one 1000-byte transmission on each of L2, L3, L5."""
    top = QiuTopology(flows=3, cross=0, rate_mbps=100.0, access_mbps=1000.0, egress_mbps=1000.0)
    result = simulate_qiu(_setup(top, window=10, duration=100.0))
    rtt = 0.058 + 8000 / 1e9 + 8000 / 1e8 + 8000 / 1e9
    expected = 3 * 10 * 1000 / rtt
    # slow start (1, 2, 4, 8 packets: four round trips short of a window) is the only loss
    ramp = 3 * (4 * 10 - 15) * 1000 / 90.0
    assert result.parallel_bytes_per_s == pytest.approx(expected - ramp, rel=2e-3)
    assert result.loss_rate == 0.0 and result.timeouts == 0
    assert result.rtt_s == pytest.approx(rtt, rel=1e-3)
    assert result.cross_bytes_per_s == 0.0 and np.isnan(result.cross_loss_rate)


def test_goodput_stays_under_the_bottleneck_and_counters_add_up() -> None:
    top = QiuTopology(
        flows=4, cross=6, rate_mbps=1.5, delay_ms=20.0, access_mbps=10.0, egress_mbps=10.0
    )
    result = simulate_qiu(_setup(top, duration=60.0, seed=3))
    total = result.parallel_bytes_per_s + result.cross_bytes_per_s
    assert 0.9 * 1.5e6 / 8 < total <= 1.5e6 / 8
    assert 0 < result.loss_rate < 0.5 and 0 < result.cross_loss_rate < 0.5
    assert result.rtt_s > top.propagation_rtt()
    # the queue holds at most 25 packets of 5.33 ms: the RTT is at most 133 ms more
    assert result.rtt_s < top.propagation_rtt() + 26 * 8000 / 1.5e6 + 0.01
    links = result.links.set_index("link")
    assert set(links.index) == {"L1", "L2", "L3", "L4", "L5"}
    groups = result.connections.groupby("group")["connection"].size().to_dict()
    assert groups == {"parallel": 4, "cross": 6}
    # the link's drop rate after the warm-up is the two groups' rates weighted by arrivals,
    # so it lies between them
    l3 = links.loc["L3"]
    p, c = result.loss_rate, result.cross_loss_rate
    assert l3["drops"] > 0
    assert min(p, c) <= l3["drop_rate"] <= max(p, c)


def test_the_group_counter_splits_arrivals_and_drops_by_flow_id() -> None:
    counter = GroupCounter(DropTail(2), first=3)
    decisions = [counter.admit(w, 0.0, -1.0, f) for w, f in [(0, 0), (2, 1), (1, 3), (2, 4)]]
    assert decisions == [True, False, True, False]
    assert counter.arrivals == [2, 2] and counter.drops == [1, 1]
    assert counter.loss_rate(0) == 0.5 and counter.buffer == 2
    counter.reset()
    assert counter.arrivals == [0, 0] and np.isnan(counter.loss_rate(1))


def test_cross_traffic_starts_in_its_window_and_parallel_flows_at_their_time() -> None:
    top = QiuTopology(flows=2, cross=5, rate_mbps=1.5, access_mbps=10.0, egress_mbps=10.0)
    setup = _setup(top, duration=12.0, seed=1)
    # before 10 s only the cross traffic runs: measured from 10 s, the parallel flows have
    # delivered something by 12 s, and nothing of theirs was in the network at 10 s
    result = simulate_qiu(setup)
    assert result.parallel_bytes_per_s > 0 and result.cross_bytes_per_s > 0
    starts = np.random.default_rng(np.random.SeedSequence(1).spawn(5)[0]).uniform(0, 8, 5)
    assert np.all((starts >= 0) & (starts < 8))


def test_a_run_is_a_function_of_its_seed() -> None:
    top = QiuTopology(flows=3, cross=4, rate_mbps=1.5, access_mbps=10.0, egress_mbps=10.0)
    one, two = (simulate_qiu(_setup(top, duration=30.0, seed=s)) for s in (5, 5))
    other = simulate_qiu(_setup(top, duration=30.0, seed=6))
    keys = ("parallel_bytes_per_s", "cross_bytes_per_s", "loss_rate", "rtt_s")
    assert [one.summary()[k] for k in keys] == [two.summary()[k] for k in keys]
    assert [one.summary()[k] for k in keys] != [other.summary()[k] for k in keys]


@pytest.mark.parametrize(
    ("change", "words"),
    [
        ({"length": RunLength(40.0, 5.0)}, ["warmup=5", "parallel_start=10"]),
        ({"tcp": (TcpConfig(),) * 3}, ["one TcpConfig"]),
    ],
)
def test_a_setup_that_does_not_fit_the_topology_is_refused(change, words) -> None:
    top = QiuTopology(flows=3, cross=0, rate_mbps=1.5, access_mbps=10.0, egress_mbps=10.0)
    with pytest.raises(ValueError) as error:
        simulate_qiu(dataclasses.replace(_setup(top), **change))
    for word in words:
        assert word in str(error.value)


@pytest.mark.parametrize(
    ("field", "value", "words"),
    [
        ("flows", 0, ["flows=0", "[1, inf)"]),
        ("cross", -1, ["cross=-1", "[0, inf)"]),
        ("rate_mbps", 0.0, ["rate_mbps=0", "(0, inf)"]),
        ("parallel_start", 5.0, ["parallel_start=5", "[8, inf)"]),
    ],
)
def test_bad_topology_values_name_the_field(field: str, value: float, words: list[str]) -> None:
    with pytest.raises(ValueError) as error:
        QiuTopology(**{field: value})
    for word in words:
        assert word in str(error.value)


def test_the_scenarios_are_the_papers_figure_2() -> None:
    rows = {
        k: (s.rate_mbps, s.delay_ms, s.access_mbps, s.window_bytes) for k, s in sc.SCENARIOS.items()
    }
    assert rows == {
        1: (1.5, 20.0, 10.0, None),
        2: (100.0, 20.0, 1000.0, None),
        3: (100.0, 50.0, 1000.0, None),
        4: (1000.0, 50.0, 10_000.0, None),
        5: (1000.0, 50.0, 10_000.0, 60_000),
        6: (100.0, 20.0, 1000.0, 60_000),
    }
    setup = sc.scenario_setup(5, 7, 10)
    top = setup.topology
    assert (top.flows, top.cross, top.access_delay_ms, top.egress_delay_ms) == (7, 10, 4.0, 5.0)
    assert (top.node_buffer, setup.queue.buffer, top.cross_start, top.parallel_start) == (
        25, 25, 8.0, 10.0,
    )  # fmt: skip
    assert setup.tcp.variant == "reno" and setup.tcp.max_window == 60
    assert setup.length.duration == 100.0
    # "TCP buffer >= bandwidth * RTT": the largest bandwidth-delay product is scenario 4's
    bdp = sc.SCENARIOS[4].capacity_bytes_per_s * sc.SCENARIOS[4].rtt_s / 1000
    assert sc.scenario_setup(4, 1, 0).tcp.max_window >= bdp
    red = sc.scenario_setup(1, 1, 0, "red").queue
    assert (red.kind, red.min_th, red.max_th, red.w_q, red.max_p) == ("red", 5, 15, 0.002, 0.1)


def test_an_unknown_scenario_is_refused() -> None:
    with pytest.raises(ValueError, match="scenario=7 is not one of"):
        sc.scenario_setup(7, 1, 0)


def test_the_seed_of_a_curve_does_not_depend_on_the_number_of_flows() -> None:
    a = sc.scenario_seed(0, 2, "droptail", 10)
    assert a == sc.scenario_seed(0, 2, "droptail", 10)
    assert a != sc.scenario_seed(0, 2, "droptail", 15) != sc.scenario_seed(0, 2, "red", 10)
    assert a != sc.scenario_seed(0, 2, "droptail", 10, replica=1)
