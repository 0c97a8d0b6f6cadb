"""Morris's remedies and the telnet-like sources, one rule at a time.

Expectations come from the rules as Morris states them (Sections 7.1, 7.2 and 9) and from
TCP's own (a repeated time-out doubles), on one flow whose losses a loss script chooses; a
remedy switched off must send exactly the packets the plain sender sends.
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest
import simpy

from tcplab.chapters.morris.runs import morris_setup
from tcplab.chapters.morris.topology import SackInteractiveSender, SackMorrisSender, run_morris
from tcplab.packet import DropTail, Link, LossScript, Network, Receiver, TcpConfig, TcpSender
from tcplab.packet.interactive import InteractiveSender
from tcplab.packet.probes import FAST_RETRANSMIT, TIMEOUT, DropLog, LossRecorder
from tcplab.packet.remedies import REMEDIES, RemedyConfig, RemedySender, remedy_config
from tcplab.packet.sack import SackReceiver, SackSender

#: Morris's timers: 0.5 s granularity, 1 s minimum time-out; a 100 ms path
BASE = TcpConfig(variant="tahoe", packet_bytes=576, max_window=113, granularity=0.5,
                 min_rto=1.0)  # fmt: skip


class Logged(LossRecorder, RemedySender):
    """A remedy sender with the loss log, for reading its time-outs."""


def one_flow(
    sender_class: type[TcpSender],
    config: TcpConfig,
    drops: list[int],
    until: float,
    rtt: float = 0.1,
    delayed_ack: float | None = None,
    receiver_class: type[Receiver] = Receiver,
) -> tuple[TcpSender, list[tuple[float, int]], Receiver]:
    """One greedy flow over a 10 Mb/s path of round trip ``rtt``, the transmissions of
    packets ``drops`` lost (a packet listed twice loses its retransmission too); returns the
    sender, every transmission (time, seq) and the receiver."""
    env = simpy.Environment()
    back = Link(env, None, rtt / 2.0, name="ack")
    path = Link(env, 10e6, rtt / 2.0, DropTail(1000), name="path")
    sender = sender_class(env, 0, config, path.send)
    receiver = receiver_class(env, 0, back.send, delayed_ack=delayed_ack)
    path.dst, back.dst = receiver.on_packet, sender.on_ack
    sent: list[tuple[float, int]] = []
    output = sender.output

    def record(packet: tuple[int, int, int]) -> object:
        sent.append((env.now, packet[1]))
        return output(packet)

    sender.output = record
    LossScript([(0, seq) for seq in drops]).attach(sender)
    sender.start()
    env.run(until=until)
    return sender, sent, receiver


def _waits(sender: LossRecorder) -> list[float]:
    log = sender.losses()
    return log["wait"][log["kind"] == TIMEOUT].tolist()


def test_remedies_switched_off_send_exactly_what_tcp_sends() -> None:
    """RemedySender with every option off, or with a plain TcpConfig, is TcpSender."""
    drops = [3, 40, 41, 41, 41, 90]
    _, plain, _ = one_flow(TcpSender, BASE, drops, 20.0)
    fields = {f: getattr(BASE, f) for f in TcpConfig.__dataclass_fields__}
    for config in (BASE, RemedyConfig(**fields), RemedyConfig(**fields, pace_steps=1)):
        _, remedied, _ = one_flow(RemedySender, config, drops, 20.0)
        assert remedied == plain


def test_a_network_of_remedy_senders_switched_off_matches_plain_senders() -> None:
    """Eight flows through one DropTail queue: the same drops, the same counters."""

    def run(sender: type[TcpSender]) -> tuple[list[int], list[float]]:
        net = Network(seed=3)
        queue = DropLog(DropTail(20))
        net.add_link("bottleneck", 10.0, 20.0, queue)
        for i in range(8):
            net.add_link(f"a{i}", 20.0, 2.0 + 3.0 * i)
            net.add_connection([[f"a{i}", "bottleneck"]], BASE, start=0.1 * i, sender=sender)
        out = net.run(30.0, 5.0)
        return out.subflows["delivered"].tolist(), queue.drops()["time"].tolist()

    plain = run(TcpSender)
    assert run(RemedySender) == plain
    assert len(plain[1]) > 10  # the queue did drop: the comparison covered loss responses


@pytest.mark.parametrize("factor", [2.0, 3.0, 4.0])
def test_backoff_factor_multiplies_each_repeated_timeout(factor: float) -> None:
    """The first packet and five of its retransmissions lost (no duplicate ACKs can come):
    time-outs of 1, k, k^2, ... seconds (1 s: the initial and minimum time-out), capped at
    max_rto = 64 s (Section 7.1's 'backoff constants')."""
    config = replace(RemedyConfig(**{f: getattr(BASE, f) for f in TcpConfig.__dataclass_fields__}),
                     backoff_factor=factor)  # fmt: skip
    expected = [min(factor**i, 64.0) for i in range(6)]
    sender, _, _ = one_flow(Logged, config, [0] * 6, sum(expected) + 2.0)
    assert _waits(sender) == pytest.approx(expected)
    log = sender.losses()
    stages = log["stage"][log["kind"] == TIMEOUT].tolist()
    assert stages == list(range(6))  # the back-off count, whatever the factor
    assert not log["progress"][log["kind"] == TIMEOUT][1:].any()  # each retransmission lost


def test_standard_backoff_doubles_up_to_64_seconds() -> None:
    expected = [1, 2, 4, 8, 16, 32, 64, 64, 64]
    sender, _, _ = one_flow(Logged, BASE, [0] * 9, sum(expected) + 2.0)
    assert _waits(sender) == pytest.approx(expected)


def test_pacing_after_a_timeout_shortens_each_gap_by_a_fixed_step() -> None:
    """The first packet lost three times: time-outs of 1, 2 and 4 s, then success: the gaps
    after the last
    retransmission are T(1 - 1/K), T(1 - 2/K), ... with T = 4 s and K = 4, then windows
    resume (Section 7.1: 'a linear decrease in inter-packet time after a success')."""
    steps = 4
    config = remedy_config("paced", BASE)
    assert config.pace_steps == steps
    sender, sent, _ = one_flow(Logged, config, [0, 0, 0], 30.0)
    assert _waits(sender) == pytest.approx([1.0, 2.0, 4.0])
    last_timeout = sender.losses()["time"][-1]
    after = [t for t, _ in sent if t >= last_timeout - 1e-9]
    gaps = np.diff(after[:4])
    interval = 4.0
    assert gaps == pytest.approx([interval * (1 - k / steps) for k in (1, 2, 3)])
    # then one packet per round trip or faster: windows and slow start again
    assert np.all(np.diff(after[3:12]) < 0.2)


def test_pacing_restarts_from_twice_the_gap_after_a_loss_in_the_ramp() -> None:
    """Time-outs of 1, 2 and 4 s, a ramp from T = 4 s whose first new packet brings an RTT
    sample (the time-out falls back to 1 s), then the next paced packet lost with 1 s of
    gap left: the new ramp starts from max(1 s expired, 2 x 1 s) = 2 s, gaps 1.5, 1, 0.5
    (Section 9: 'the same exponential/linear approach for retransmit backoff as for window
    size')."""
    config = remedy_config("paced", BASE)
    sender, sent, _ = one_flow(Logged, config, [0, 0, 0, 2], 60.0)
    assert _waits(sender) == pytest.approx([1.0, 2.0, 4.0, 1.0])
    last = sender.losses()["time"][-1]
    assert last == pytest.approx(13.0)  # 1 + 2 + 4, then gaps of 3 and 2 s, then the 1 s RTO
    after = [t for t, _ in sent if t >= last - 1e-9]
    assert np.diff(after[:4]) == pytest.approx([1.5, 1.0, 0.5])


def test_slow_growth_doubles_the_window_every_100_packets_when_small() -> None:
    """Slow start from one packet, no loss, an ACK per packet: with the cap the window after
    A packets are acknowledged is 2^(A/100) (each ACK's +1 is larger than the cap allows
    while the window is under 144), where plain slow start doubles every round trip."""
    config = remedy_config("slowgrowth", BASE)
    sender, _, receiver = one_flow(RemedySender, config, [], 16.0)
    acked = sender.snd_una
    assert acked > 100 and sender.cwnd < 144
    assert sender.cwnd == pytest.approx(2.0 ** (acked / 100.0), rel=1e-9)
    plain, _, got = one_flow(TcpSender, BASE, [], 16.0)
    assert plain.cwnd == BASE.max_window  # slow start reached the window cap long ago
    assert got.delivered > 10 * receiver.delivered


def test_remedy_names_and_checks() -> None:
    assert set(REMEDIES) == {"backoff4", "paced", "slowgrowth"}
    assert remedy_config("backoff4", BASE).remedies == ("backoff",)
    assert remedy_config("paced", BASE).remedies == ("paced",)
    assert RemedyConfig().remedies == ()
    with pytest.raises(ValueError, match="backoff_factor"):
        RemedyConfig(backoff_factor=1.0)
    with pytest.raises(ValueError, match="pace_steps"):
        RemedyConfig(pace_steps=-1)
    with pytest.raises(ValueError, match="remedy"):
        remedy_config("faster", BASE)


def test_interactive_sender_sends_what_its_application_writes() -> None:
    """Exponential gaps of mean 1 s over 2000 s: about 2000 writes (Poisson: sd 45, so
    +-4.5 sd is a false alarm once in 10^5), all delivered but the last few, and the
    sender never stops."""
    env = simpy.Environment()
    back = Link(env, None, 0.05, name="ack")
    path = Link(env, 1e6, 0.05, DropTail(100), name="path")
    sender = InteractiveSender(env, 0, BASE, path.send)
    receiver = Receiver(env, 0, back.send, delayed_ack=0.1)
    path.dst, back.dst = receiver.on_packet, sender.on_ack
    sender.start()
    sender.type_at(0.0, 1.0, np.random.default_rng(7))
    env.run(until=2000.0)
    assert abs(sender.writes - 2000) <= 4.5 * math.sqrt(2000)
    assert sender.writes - 2 <= receiver.delivered <= sender.writes
    assert not sender.stopped and sender.completed_at is None
    assert sender.maxseq == sender.writes or sender.maxseq == sender.writes - 1


def test_drop_log_records_every_refused_arrival() -> None:
    env = simpy.Environment()
    log = DropLog(DropTail(2))
    link = Link(env, 1e6, 0.0, log, dst=lambda event: None)
    admitted = [link.send((i % 3, i, 1000)) for i in range(10)]
    assert admitted.count(False) == link.drops == len(log.drops()["time"]) == 7
    assert log.drops()["flow"].tolist() == [i % 3 for i in range(10) if not admitted[i]]
    assert log.buffer == 2
    with pytest.raises(ValueError, match="inner"):
        DropLog(object())


def test_reset_backoff_ends_the_backoff_at_the_first_new_ack() -> None:
    """Packet 0 lost twice (time-outs of 1 and 2 s), then packet 1 lost: TCP keeps the
    back-off (Karn: no RTT sample from a retransmission) and waits 4 s; with Lemma 2's
    assumption the acknowledged retransmission ended it and the wait is the base 1 s."""
    fields = {f: getattr(BASE, f) for f in TcpConfig.__dataclass_fields__}
    karn, _, _ = one_flow(Logged, RemedyConfig(**fields), [0, 0, 1], 20.0)
    assert _waits(karn) == pytest.approx([1.0, 2.0, 4.0])
    lemma, _, _ = one_flow(Logged, RemedyConfig(**fields, reset_backoff=True), [0, 0, 1], 20.0)
    assert _waits(lemma) == pytest.approx([1.0, 2.0, 1.0])
    assert RemedyConfig(reset_backoff=True).remedies == ("resetbackoff",)


def test_morris_sack_sender_recovers_three_losses_of_a_window_in_one_round_trip() -> None:
    """RFC 6675 with RFC 2018 blocks: three packets of one window lost, the third duplicate
    ACK starts one recovery (one fast retransmit, no time-out: the loss log says so) and the
    SACK blocks let the sender resend all three holes within one round trip (NewReno needs
    one round trip per hole)."""
    config = replace(BASE, variant="sack")
    sender, sent, _ = one_flow(
        SackMorrisSender, config, [60, 62, 64], until=30.0, receiver_class=SackReceiver
    )
    assert isinstance(sender, SackSender)
    log = sender.losses()
    assert log["kind"].tolist() == [FAST_RETRANSMIT]
    assert sender.timeouts == 0 and sender.fast_retransmits == 1
    # the script drops the first transmissions before they are recorded: what is recorded
    # below the highest packet sent so far is a retransmission
    highest, resent = -1, []
    for t, seq in sent:
        if seq < highest:
            resent.append((t, seq))
        highest = max(highest, seq)
    assert [seq for _, seq in resent] == [60, 62, 64]
    assert resent[-1][0] - resent[0][0] < 0.1  # the path's round trip


def test_morris_run_with_sack_uses_sack_at_both_ends_and_logs_every_loss() -> None:
    """``tcplab morris --tcp sack``: every greedy flow is a SACK sender with the loss log,
    every telnet session a SACK sender too, every receiver sends SACK blocks; the loss log
    holds exactly the senders' fast retransmits and time-outs."""
    setup = morris_setup(30, sender="sack", seconds=30.0, warmup=5.0, seed=2)
    net_senders: list[TcpSender] = []
    receivers: list[Receiver] = []
    original = Network.add_connection

    def spy(self: Network, *args: object, **kwargs: object) -> object:
        connection = original(self, *args, **kwargs)  # type: ignore[arg-type]
        net_senders.extend(connection.senders)
        receivers.extend(connection.receivers)
        return connection

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(Network, "add_connection", spy)
        run = run_morris(setup)
    assert len(net_senders) == 30 + 5
    assert all(isinstance(s, SackMorrisSender) for s in net_senders[:30])
    assert all(isinstance(s, SackInteractiveSender) for s in net_senders[30:])
    assert all(isinstance(r, SackReceiver) for r in receivers)
    logged = sum(len(s.losses()["kind"]) for s in net_senders[:30])  # type: ignore[attr-defined]
    assert logged == sum(s.fast_retransmits + s.timeouts for s in net_senders[:30]) > 0
    assert run is not None
