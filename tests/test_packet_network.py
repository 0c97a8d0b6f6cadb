"""Networks of named links and multipath connections (the topology behind Honda's BMC).

The dumbbell is a Network of single-path connections, so a hand-built Network must give
run_dumbbell's numbers exactly. Uncoupled subflows each behave as one TCP: two of them
through a shared bottleneck take about 2/3 of it against one single-path rival, and
AIMD(1/4, 1/2) subflows (Honda's weight 1/2: the rate of AIMD(a, b) scales as sqrt(a))
take about 1/2. With one subflow on a shared link and one on a private link (BMC), the
private subflow fills its link and the shared link is split fairly.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from tcplab.packet import (
    RED,
    DropTail,
    Dumbbell,
    Network,
    TcpConfig,
    ThresholdDropper,
    jain_index,
    run_dumbbell,
)
from tcplab.packet.sack import SackSender
from tcplab.packet.tcp import TcpSender

import tcp_laws
from stat_tools import t_half_width

RATE = 10.0  # Mb/s
PACKET_TIME = 1500 * 8 / (RATE * 1e6)  # s


def test_hand_built_network_reproduces_run_dumbbell_exactly():
    seed, delays = 3, [0.0, 10.0, 20.0]
    expected = run_dumbbell(
        3, queue="red", access_delay_ms=delays, duration=30.0, warmup=5.0, seed=seed
    )
    # the same random streams as run_dumbbell: SeedSequence(seed).spawn(5) gives the start
    # times (0) and RED's uniforms (2); the access jitter (1) is 0 here
    streams = [np.random.default_rng(s) for s in np.random.SeedSequence(seed).spawn(5)]
    net = Network()
    net.add_link("bottleneck", RATE, 25.0, RED(100, rng=streams[2], mean_pkt_time=PACKET_TIME))
    for i, d in enumerate(delays):
        net.add_link(f"access{i}", 100.0, d)
    for i, t in enumerate(streams[0].uniform(0.0, 1.0, 3)):
        net.add_connection([[f"access{i}", "bottleneck"]], start=t)
    result = net.run(30.0, warmup=5.0)
    assert expected.delivered.sum() > 10_000  # a real run, with losses
    assert expected.drops > 0
    assert list(result.subflows["delivered"]) == list(expected.delivered)
    bottleneck = result.links.set_index("link").loc["bottleneck"]
    assert (bottleneck["arrivals"], bottleneck["drops"]) == (expected.arrivals, expected.drops)
    sent = [s.sent for s in net.senders]
    assert sent == list(expected.flows()["sent"])


def test_dumbbell_is_a_network_of_single_path_connections():
    net = Dumbbell([TcpConfig()] * 3, DropTail(10), 1e7, 0.02, 1e8, [0.0, 0.01, 0.02])
    assert list(net.network.links) == ["bottleneck", "access0", "access1", "access2"]
    assert [c.paths for c in net.connections] == [[(f"access{i}", "bottleneck")] for i in range(3)]
    assert net.bottleneck.dst == [r.on_packet for r in net.receivers]  # demultiplexer
    assert net.access[1].dst == net.bottleneck.on_arrival  # one next hop: no lookup
    assert [r.delay for r in net.reverse] == [0.02, 0.03, 0.04]  # sum of the path's delays


SHARED_BATCH = 15.0  # s


def shared_bottleneck(config: TcpConfig, seed: int, duration: float) -> np.ndarray:
    """A's share of S in consecutive 15 s batches: A has two subflows through S, B one; RED,
    equal RTTs; the first 25 s are warm-up."""
    net = Network(seed)
    rng = np.random.default_rng(seed)
    net.add_link("S", RATE, 20.0, RED(100, rng=rng, mean_pkt_time=PACKET_TIME))
    for name in ("a1", "a2", "b1"):
        net.add_link(name, 100.0, 5.0, jitter_ms=0.5)
    start_a, start_b = rng.uniform(0.0, 1.0, 2)
    net.add_connection([["a1", "S"], ["a2", "S"]], config, name="A", start=start_a)
    net.add_connection([["b1", "S"]], name="B", start=start_b)
    result = net.run(duration, warmup=25.0, sample_interval=SHARED_BATCH)
    goodput = result.connections.set_index("connection")["goodput_mbps"]
    assert goodput.sum() > 0.9 * RATE
    packets = result.intervals.pivot_table(
        index="start", columns="connection", values="packets", aggfunc="sum"
    )
    return (packets["A"] / (packets["A"] + packets["B"])).to_numpy()


def shares_over(config: TcpConfig, seeds: range, duration: float) -> tuple[float, float]:
    """Mean of the batch shares over ``seeds`` and its 99.9% Student-t half-width.

    RED drops at random with one probability for every packet, so batches 15 s apart (about
    300 RTTs, a dozen sawtooth cycles) are close to independent; the interval treats them so.
    """
    batches = np.concatenate([shared_bottleneck(config, seed, duration) for seed in seeds])
    return t_half_width(batches, 1e-3)


def test_two_uncoupled_subflows_take_two_thirds_of_a_shared_bottleneck():
    """Exactly 2/3 in expectation: A's two subflows and B's one are the same TCP on the same
    kind of path (uncoupled subflows are independent senders), so the three are exchangeable
    and each expects a third; only the start times differ, and the warm-up forgets them.
    0.1% false alarms; the interval is narrow enough to see a 10% error."""
    mean, half_width = shares_over(TcpConfig(), range(2), 130.0)
    assert abs(mean - 2 / 3) <= half_width, (mean, half_width)
    assert half_width < 0.1 * 2 / 3


def test_weighted_subflows_aimd_quarter_half_take_one_half():
    """AIMD(1/4, 1/2) subflows (Honda's weight 1/2). The square-root law x ~ sqrt(a / p) at a
    common loss probability gives each of A's subflows half of B's rate, so A's share is
    exactly 1/2 for idealised TCP. The packet TCP may depart from the law by (p W + 1/W)/2 per
    rate (tests/tcp_laws.py), with the windows and p the law gives for this set-up: W_total =
    pipe + RED's mid-threshold queue, W_B = W_total / 2, W_A = W_total / 4, p from B's window.
    A rate ratio r off by e moves A's share 2r / (2r + 1) by e / 4. 0.1% false alarms; at this
    run length the band resolves errors of about an eighth of the share."""
    pipe = RATE * 1e6 * 2 * (20.0 + 5.0) / 1e3 / (1500 * 8)  # packets in flight, no queue
    red = RED(100)
    total = pipe + (red.min_th + red.max_th) / 2
    w_b, w_a = total / 2, total / 4
    p = (tcp_laws.BERNOULLI_C / w_b) ** 2
    ratio_error = tcp_laws.first_order_departure(p, w_a) + tcp_laws.first_order_departure(p, w_b)
    allowance = ratio_error / 4
    assert allowance == pytest.approx(0.0125, abs=5e-4)
    mean, half_width = shares_over(TcpConfig(variant="aimd", a=0.25, beta=0.5), range(3), 220.0)
    assert abs(mean - 1 / 2) <= allowance + half_width, (mean, allowance, half_width)
    assert allowance + half_width < 0.125 / 2


def bmc(queue_s, seed: int = 0) -> Network:
    """Honda's BMC topology: A's subflow 0 shares S with B, A's subflow 1 has P to itself."""
    net = Network(seed)
    net.add_link("S", RATE, 20.0, queue_s)
    net.add_link("P", RATE, 20.0, DropTail(42))  # 42 packets: one bandwidth-delay product
    for name in ("a1", "a2", "b1"):
        net.add_link(name, 100.0, 5.0, jitter_ms=0.5)
    net.add_connection([["a1", "S"], ["a2", "P"]], name="A", start=0.1)
    net.add_connection([["b1", "S"]], name="B", start=0.3)
    return net


def test_shared_plus_disjoint_links():
    net = bmc(RED(100, rng=np.random.default_rng(0), mean_pkt_time=PACKET_TIME))
    result = net.run(100.0, warmup=10.0)
    sub = result.subflows.set_index(["connection", "subflow"])
    assert list(sub["path"]) == ["a1>S", "a2>P", "b1>S"]
    assert list(sub["flow"]) == [0, 1, 2]
    links = result.links.set_index("link")
    assert links.loc["P", "flows"] == 1 and links.loc["S", "flows"] == 2
    assert links.loc["P", "utilisation"] > 0.7
    assert links.loc["S", "utilisation"] > 0.9
    shared = [sub.loc[("A", 0), "goodput_mbps"], sub.loc[("B", 0), "goodput_mbps"]]
    assert jain_index(shared) > 0.9
    conn = result.connections.set_index("connection")
    assert conn.loc["A", "subflows"] == 2
    assert conn.loc["A", "delivered"] == sub.loc["A", "delivered"].sum()
    # A's total: its fair half of S plus all of P
    assert conn.loc["A", "goodput_mbps"] > 1.3 * conn.loc["B", "goodput_mbps"]


def test_threshold_dropper_on_a_shared_link_only_selects_flows_crossing_it():
    dropper = ThresholdDropper(100, threshold=3, hold=0.05, select="largest")
    net = bmc(dropper)
    assert dropper.rates is not None  # set by the network
    net.run(30.0)
    assert dropper.events > 10
    assert set(dropper.selected) <= {0, 2}  # flow 1 (A's subflow on P) never crosses S


def test_same_seed_same_results_and_the_seed_matters():
    def run(seed: int):
        return bmc(DropTail(30), seed=seed).run(20.0, warmup=2.0)

    first, second, other = run(5), run(5), run(6)
    for table in ("subflows", "connections", "links"):
        pd.testing.assert_frame_equal(getattr(first, table), getattr(second, table))
    assert not first.subflows["delivered"].equals(other.subflows["delivered"])  # link jitter


def test_packets_are_conserved_after_draining():
    net = Network(1)
    net.add_link("S", 1.0, 10.0, RED(8, rng=np.random.default_rng(1), mean_pkt_time=0.012))
    net.add_link("P", 1.0, 30.0, DropTail(4))
    net.add_link("Q", 1.2, 5.0, DropTail(6), jitter_ms=1.0)
    net.add_connection([["Q", "S"], ["P"], ["Q", "P"]], name="A", delayed_ack=0.04)
    net.add_connection([["S", "Q"]], TcpConfig(variant="tahoe"), name="B", start=0.2)
    net.run(10.0)
    mid = net.counts()
    in_flight = mid["sent"] - mid["received"] - mid["dropped"]
    assert in_flight >= 0
    net.drain()
    end = net.counts()
    assert end["sent"] == mid["sent"] > 1000  # stopped senders send nothing more
    assert end["sent"] == end["received"] + end["dropped"]
    assert (end["received"] - mid["received"]) + (end["dropped"] - mid["dropped"]) == in_flight
    assert all(link.drops > 0 for link in net.links.values())  # losses on every link


SACK = TcpConfig(variant="sack")


class _Plain(TcpSender):
    """A custom sender that is not a SACK sender."""


class _SackSubclass(SackSender):
    """A custom SACK sender that changes nothing."""


def _sack_run(sender: type[TcpSender]) -> dict[str, int]:
    net = Network(seed=4)
    net.add_link("S", RATE, 10.0, DropTail(8))
    for start in (0.0, 0.3, 0.7):
        net.add_connection([["S"]], SACK, start=start, sender=sender)
    net.run(20.0, warmup=2.0)
    return {
        "goodput": sum(c.goodput_packets() for c in net.connections),
        "drops": net.links["S"].drops,
        "fast_retransmits": sum(s.fast_retransmits for s in net.senders),
    }


def test_a_sack_sender_subclass_runs_the_sack_variant_unchanged():
    """A subclass of SackSender that adds nothing must give the default SACK sender's run
    exactly (what a mixin such as a loss recorder relies on), with SACK's receiver."""
    plain = _sack_run(TcpSender)  # the default: endpoints("sack") picks SackSender
    assert plain["drops"] > 0 and plain["fast_retransmits"] > 0  # losses were recovered
    assert _sack_run(_SackSubclass) == plain


def two_links() -> Network:
    net = Network()
    net.add_link("S", RATE, 10.0, DropTail(10))
    net.add_link("P", RATE, 10.0)
    return net


def _after_run(net: Network) -> None:
    net.add_connection([["S"]])
    net.run(1.0)
    net.add_link("late", RATE, 1.0)


def _twice(net: Network) -> None:
    net.run(1.0)
    net.run(2.0)


@pytest.mark.parametrize(
    ("action", "names"),
    [
        (lambda n: n.add_connection([["S", "X"]]), ["paths[0]", "'X'"]),
        (lambda n: n.add_connection([["S"], []]), ["paths[1]"]),
        (lambda n: n.add_connection([]), ["paths"]),
        (lambda n: n.add_connection(["S"]), ["paths[0]"]),
        (lambda n: n.add_connection([["S", "P", "S"]]), ["paths[0]", "'S'"]),
        (lambda n: n.add_link("S", RATE, 1.0), ["name", "'S'"]),
        (lambda n: n.add_link("", RATE, 1.0), ["name"]),
        (lambda n: n.add_link("Z", 0.0, 1.0), ["rate_mbps"]),
        (lambda n: n.add_link("Z", RATE, -1.0), ["delay_ms"]),
        (lambda n: n.add_link("Z", RATE, 1.0, jitter_ms=-1.0), ["jitter_ms"]),
        (lambda n: n.add_link("Z", RATE, 1.0, "droptail"), ["queue"]),
        (lambda n: n.add_link("Z", RATE, 1.0, n.links["S"].queue), ["queue", "'S'"]),
        (lambda n: n.add_connection([["S"]], start=-1.0), ["start"]),
        (lambda n: n.add_connection([["S"]], delayed_ack=0.0), ["delayed_ack"]),
        (lambda n: n.add_connection([["S"], ["P"]], [TcpConfig()] * 3), ["config"]),
        (lambda n: n.add_connection([["S"]], "reno"), ["config", "TcpConfig"]),
        (lambda n: [n.add_connection([["S"]], name="A") for _ in range(2)], ["name", "'A'"]),
        (lambda n: n.run(0.0), ["until"]),
        (lambda n: n.run(10.0, warmup=-1.0), ["warmup"]),
        (lambda n: n.run(10.0, warmup=10.0), ["warmup"]),
        (_after_run, ["name", "'late'"]),
        (_twice, ["until"]),
        (lambda n: Network(seed=-1), ["seed"]),
        (lambda n: n.add_connection([["S"]], SACK, sender=_Plain), ["sender", "'sack'", "Sack"]),
    ],
)
def test_bad_input_names_the_parameter(action, names):
    net = two_links()
    with pytest.raises(ValueError) as excinfo:
        action(net)
    for name in names:
        assert name in str(excinfo.value)
