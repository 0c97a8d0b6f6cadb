"""Packet-model pieces of the BMC chapter: changing a sender's AIMD parameters while it runs,
the proportion manager and MPTCP's linked increases on Network connections, and the
thesis's Fig. 5.1 set-up (receiver links folded into the access links, exactly)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from tcplab import multipath as mp
from tcplab.packet import DropTail, LossScript, Network, QueueSetup, TcpConfig, call_at
from tcplab.packet.controllers import LiaSender, LinkedIncreases, couple
from tcplab.packet.multipath import MultipathSetup, run_multipath
from tcplab.packet.setup import streams
from tcplab.packet.weighted import mixed_setup, ns2_red, run_weighted, weighted_setup
from tcplab.theory import bmc


def _one_flow(config: TcpConfig, drops=()) -> tuple[Network, object]:  # noqa: ANN001
    """One sender on a fast idle 100 ms path (no queue losses), windows traced."""
    net = Network()
    net.add_link("path", 100.0, 50.0)
    conn = net.add_connection([["path"]], config, trace=True)
    if drops:
        LossScript(drops).attach(conn.senders[0])
    return net, conn.senders[0]


def _cwnd_at(sender, t: float) -> float:  # noqa: ANN001
    times = np.array(sender.trace_time)
    return float(np.array(sender.trace_cwnd)[np.searchsorted(times, t, side="right") - 1])


def test_set_aimd_changes_the_increase_while_running() -> None:
    """Congestion avoidance from the start (ssthresh 2): a packet per RTT, then 4 per RTT
    after set_aimd(4, 0.5) at t = 5 s (RTT 0.1 s plus transmissions)."""
    net, sender = _one_flow(TcpConfig(initial_ssthresh=2.0))
    call_at(net.env, 5.0, lambda _e: sender.set_aimd(4.0, 0.5), None)
    net.run(8.0)
    rtt = sender.srtt
    before = (_cwnd_at(sender, 5.0) - _cwnd_at(sender, 2.0)) / (3.0 / rtt)
    after = (_cwnd_at(sender, 8.0) - _cwnd_at(sender, 5.5)) / (2.5 / rtt)
    assert before == pytest.approx(1.0, rel=0.05)
    assert after == pytest.approx(4.0, rel=0.05)
    assert sender.aimd == (4.0, 0.5) and sender.config.a == 1.0


def test_set_aimd_changes_the_decrease() -> None:
    """A loss after set_aimd(1, 0.25) sets ssthresh to a quarter of the window."""
    net, sender = _one_flow(TcpConfig(initial_ssthresh=2.0), drops=[(0, 300)])
    call_at(net.env, 1.0, lambda _e: sender.set_aimd(1.0, 0.25), None)
    net.run(6.0)
    assert sender.fast_retransmits == 1
    windows = np.array(sender.trace_cwnd)
    peak = windows[: np.argmax(windows < np.maximum.accumulate(windows) - 1)].max()
    assert sender.ssthresh == pytest.approx(0.25 * np.floor(peak), abs=0.3)


def test_set_aimd_refuses_bad_values() -> None:
    net, sender = _one_flow(TcpConfig())
    with pytest.raises(ValueError, match="beta=1"):
        sender.set_aimd(1.0, 1.0)
    with pytest.raises(ValueError, match="a=0"):
        sender.set_aimd(0.0, 0.5)


def test_folded_receiver_links_give_the_literal_run() -> None:
    """Fig. 5.1 with its receiver links (n/3 ms, 100 Mb/s) built as links, and folded into
    the access links: the same packets, drops and time-outs, flow by flow (DropTail, so
    the only randomness is the start times, drawn from the same stream)."""
    aimd = [(0.25, 0.5), (1 / 9, 0.5)]
    setup = mixed_setup(
        aimd, 2, rate_mbps=10.0, queue=QueueSetup("droptail", 40), duration=30.0, warmup=0.0,
        seed=3,
    )  # fmt: skip
    folded = run_weighted(setup, 2).flows
    net = Network()
    net.add_link("bottleneck", 10.0, 20.0, DropTail(40))
    conns = []
    for i, (config, n) in enumerate(zip(setup.configs(), [1, 2, 1, 2], strict=True)):
        net.add_link(f"access{i}", 100.0, 2.0)
        net.add_link(f"receiver{i}", 100.0, n / 3.0)
        path = [f"access{i}", "bottleneck", f"receiver{i}"]
        conns.append(net.add_connection([path], config, start=None))
    for conn, t in zip(conns, streams(3).start.uniform(0.0, 1.0, 4), strict=True):
        conn.start(float(t))
    literal = net.run(30.0).subflows
    for column in ("sent", "fast_retransmits", "timeouts"):
        assert list(folded[column]) == list(literal[column])
    assert np.allclose(folded["goodput_mbps"], literal["goodput_mbps"])


def test_weighted_setup_is_fig_5_1() -> None:
    setup = weighted_setup([0.5, 0.5, 0.5])
    top, configs = setup.topology, setup.configs()
    assert top.flows == 6 and top.rate_mbps == 60.0 and top.delay_ms == 20.0
    assert [c.a for c in configs] == [1.0] * 3 + [0.25] * 3
    assert {c.beta for c in configs} == {0.5} and {c.variant for c in configs} == {"reno"}
    # the n-th TCP and n-th AIMD flow: 2 ms + n/3 ms + half of 0.08 ms
    assert top.access_delays_ms()[:3] == pytest.approx([2.37333, 2.70667, 3.04], abs=1e-4)
    assert top.access_delays_ms()[3:] == top.access_delays_ms()[:3]
    q = setup.queue
    # ns-2's automatic RED at 60 Mb/s, 1000-byte packets: C = 7500 packets/s
    assert (q.min_th, q.max_th) == pytest.approx((18.75, 56.25))
    assert q.w_q == pytest.approx(1 - np.exp(-1 / 7500))


def test_ns2_red_floor_of_five_packets() -> None:
    q = ns2_red(4.0, 30)  # 500 packets/s: C * 5 ms / 2 = 1.25, below the floor
    assert (q.min_th, q.max_th) == (5.0, 15.0)


def test_run_weighted_counts() -> None:
    run = run_weighted(weighted_setup([0.5] * 2, duration=20.0, warmup=5.0, rate_mbps=10.0), 2)
    f, s = run.flows, run.summary()
    assert list(f["kind"]) == ["tcp", "tcp", "aimd", "aimd"]
    assert (f["steady_sent"] <= f["sent"]).all() and (f["steady_timeouts"] <= f["timeouts"]).all()
    events = f["fast_retransmits"].sum() + f["timeouts"].sum()
    assert s["loss_event_rate"] == pytest.approx(events / f["sent"].sum())
    assert s["ratio"] == pytest.approx(s["aimd_mbps"] / s["tcp_mbps"])


def test_proportion_manager_follows_eqs_3_7_to_3_9() -> None:
    """Each entry's weights are the previous entry's moved by proportion_step, its Twr is
    R T / D with R a measured RTT, and the senders run AIMD(D^2, 1/2) of the last weights."""
    setup = MultipathSetup(mp.shared(), "bmc", j_s=5.0, k=0.5, seed=2)
    setup = MultipathSetup(**{**setup.__dict__, "length": setup.length.__class__(60.0, 30.0)})
    run = run_multipath(setup)
    history = run.history
    assert len(history) == 12 and history[0]["weights"] == [0.5, 0.5]
    for before, after in zip(history, history[1:], strict=False):
        moved = bmc.proportion_step(before["weights"], before["twr"], 0.5)
        assert after["weights"] == pytest.approx(list(moved))
    for entry in history:
        rtt = np.array(entry["twr"]) * np.array(entry["weights"]) / np.array(entry["mbps"])
        assert np.all((rtt > 0.05) & (rtt < 0.5))  # 50 ms propagation, plus queueing
    assert sum(run.weights) == pytest.approx(1.0)


def test_the_capped_subflow_has_the_smaller_twr() -> None:
    """Shared scenario at 1/2, 1/2 held (Fig. 3.1): subflow 0 is held to 4 Mb/s by its
    disjoint link while subflow 1 gets about 8.7 Mb/s, so over the run its Twr is smaller
    (about half): the proportion manager would move weight away from it."""
    setup = MultipathSetup(mp.shared(), "fixed", j_s=10.0, seed=4)
    history = run_multipath(setup).history_frame()
    mean = history[history["t"] > 50.0].groupby("subflow")["twr"].mean()
    assert mean[0] < 0.8 * mean[1]


def test_linked_increases_alpha_by_hand() -> None:
    """RFC 6356 with windows 10 and 20 packets and RTTs 0.1 and 0.2 s:
    alpha = 30 max(10/0.01, 20/0.04) / (10/0.1 + 20/0.2)^2 = 0.75; an ACK on the first
    subflow adds min(0.75/30, 1/10) = 0.025 packets."""
    net = Network()
    net.add_link("a", 10.0, 1.0)
    net.add_link("b", 10.0, 1.0)
    conn = net.add_connection([["a"], ["b"]], start=None, sender=LiaSender)
    first, second = conn.senders
    first.cwnd, second.cwnd = 10.0, 20.0
    first.srtt, second.srtt = 0.1, 0.2
    coupling = couple(conn, [0.1, 0.2])
    assert coupling.alpha() == pytest.approx(0.75)
    assert coupling.increase(first) == pytest.approx(0.025)
    assert coupling.increase(second) == pytest.approx(0.025)
    # one subflow alone is TCP: alpha = 1, and the increase is 1/cwnd
    assert LinkedIncreases([first], [0.1]).increase(first) == pytest.approx(0.1)


def test_couple_needs_lia_senders() -> None:
    net = Network()
    net.add_link("a", 10.0, 1.0)
    conn = net.add_connection([["a"], ["a"]], start=None)
    with pytest.raises(ValueError, match="LiaSender"):
        couple(conn, [0.1, 0.1])


def _two_subflows_against_tcp(sender: type, seed: int) -> float:
    """A two-subflow connection and one TCP flow through one 10 Mb/s RED link, equal RTTs:
    the connection's goodput over the TCP flow's."""
    net = Network(seed)
    rng = streams(seed)
    queue = ns2_red(10.0, 80).build(rng.queue, rng.loss, 8e-4)
    net.add_link("shared", 10.0, 20.0, queue)
    for name in ("t", "m0", "m1"):
        net.add_link(name, 100.0, 5.0)
    tcp_config = TcpConfig("reno", packet_bytes=1000)
    net.add_connection([["t", "shared"]], tcp_config, name="tcp", start=0.1)
    multi = net.add_connection(
        [["m0", "shared"], ["m1", "shared"]], tcp_config, name="multi", sender=sender
    )
    if sender is LiaSender:
        couple(multi, [0.05, 0.05])
    table = net.run(300.0, 60.0).connections.set_index("connection")["goodput_mbps"]
    return float(table["multi"] / table["tcp"])


def test_lia_takes_one_share_where_uncoupled_takes_two() -> None:
    """RFC 6356's goal on a shared bottleneck: the coupled connection takes about what one
    TCP flow does, uncoupled subflows about twice (each is a TCP flow)."""
    from tcplab.packet import TcpSender

    lia = np.mean([_two_subflows_against_tcp(LiaSender, s) for s in range(2)])
    uncoupled = np.mean([_two_subflows_against_tcp(TcpSender, s) for s in range(2)])
    assert 0.7 < lia < 1.3
    assert 1.6 < uncoupled < 2.6


@pytest.mark.parametrize(
    ("kwargs", "words"),
    [
        ({"weights": (0.5, 0.6)}, "sum to 1.1"),
        ({"k": 4.0}, "k=4"),
        ({"j_s": 0.0}, "j_s=0"),
        ({"controller": "mptcp"}, "controller='mptcp'"),
    ],
)
def test_multipath_setup_refuses_bad_values(kwargs: dict, words: str) -> None:
    with pytest.raises(ValueError, match=words):
        MultipathSetup(mp.shared(), **kwargs)


def test_history_frame_is_tidy() -> None:
    setup = MultipathSetup(mp.pooling(), "fixed", weights=(0.25, 0.75), j_s=5.0, seed=1)
    setup = MultipathSetup(**{**setup.__dict__, "length": setup.length.__class__(20.0, 10.0)})
    run = run_multipath(setup)
    frame = run.history_frame()
    assert isinstance(frame, pd.DataFrame) and len(frame) == 2 * 4
    assert set(frame["weight"]) == {0.25, 0.75} and run.weights == [0.25, 0.75]
