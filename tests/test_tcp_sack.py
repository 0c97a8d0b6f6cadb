"""SACK against its specifications: RFC 2018 (the receiver's blocks) and RFC 6675 (recovery).

The expectations come from the RFCs, never from the model: the receiver's blocks are checked
against RFC 2018 section 4's rules on hand-built arrival patterns; the sender is checked
against :func:`rfc6675`, a replay of RFC 6675's rules written here literally (IsLost, SetPipe
and NextSeg as the loops the RFC states, per packet, on Python sets), on the idle path of
``tcplab trace`` where packets and ACKs keep their order, so the order of events alone
decides what is sent. The backbone is Fall and Floyd's (1996) one to four drops from one
window (see ``test_tcp_rfc.py``), where SACK is the variant they found to recover best.
The model's documented departures (``tcplab/packet/sack.py``) are applied in the replay as
documented: the cut halves cwnd, no limited transmit, no rescue retransmission.
"""

from __future__ import annotations

import math
import subprocess
import sys
from collections import Counter, deque
from pathlib import Path

import numpy as np
import pytest
import simpy
from hypothesis import given, settings
from hypothesis import strategies as st

from tcplab.packet import DropTail, Dumbbell, run_trace
from tcplab.packet.sack import Blocks, SackReceiver, SackSender
from tcplab.packet.tcp import TcpConfig, TcpSender

TCPLAB = str(Path(sys.executable).parent / "tcplab")
DUPTHRESH = 3  # RFC 6675, in packets
# the idle path and Fall and Floyd's cases, as in test_tcp_rfc.py: 10 Mb/s, 100 ms, 1500 B
TAU = 1500 * 8 / 10e6  # one packet's transmission time (s)
R = 0.1 + TAU  # a round trip on the idle path (s)
RWND, FIRST = 28, 14  # ns-2's window_ in these tests; the first packet dropped
W = 1 + FIRST  # slow start from 1: ACK 14 has opened cwnd to 15, packets 14..28 in flight
CASES = {1: [14], 2: [14, 28], 3: [14, 26, 28], 4: [14, 24, 26, 28]}
SSTHRESH = W / 2  # half the window at the first loss


def of(ev, *events):
    return ev[ev["event"].isin(events)]


# -- the scoreboard's set ----------------------------------------------------------------------
@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 60), st.integers(0, 8)), max_size=25), st.integers(0, 70))
def test_blocks_behave_as_a_set_of_packet_numbers(ranges, cut):
    blocks, truth = Blocks(), set()
    for left, size in ranges:
        new = set(range(left, left + size)) - truth
        assert blocks.add(left, left + size) == len(new)
        truth |= new
    pairs = blocks.ranges()
    assert all(r1 < l2 for (_, r1), (l2, _) in zip(pairs, pairs[1:], strict=False))  # apart
    assert {s for lo, hi in pairs for s in range(lo, hi)} == truth
    assert blocks.count(10, 40) == len({s for s in truth if 10 <= s < 40})
    ordered = sorted(truth, reverse=True)
    for n in (1, 2, 3):
        assert blocks.nth_highest(n) == (ordered[n - 1] if len(ordered) >= n else -1)
    gap = blocks.first_gap(cut)
    assert gap >= cut and gap not in truth and all(s in truth for s in range(cut, gap))
    blocks.drop_below(cut)
    assert {s for lo, hi in blocks.ranges() for s in range(lo, hi)} == {
        s for s in truth if s >= cut
    }


# -- RFC 2018: the receiver's blocks ------------------------------------------------------------
def receive(order: list[int], max_blocks: int = 3) -> list[tuple]:
    env = simpy.Environment()
    acks: list[tuple] = []
    receiver = SackReceiver(env, 0, acks.append, max_blocks=max_blocks)

    class Arrival:
        def __init__(self, seq: int) -> None:
            self._value = (0, seq, 1500)

    for seq in order:
        receiver.on_packet(Arrival(seq))  # type: ignore[arg-type]
    return acks


def test_the_first_block_holds_the_packet_that_triggered_the_ack():
    acks = receive([0, 2, 3, 5, 9, 6])
    assert [a[1] for a in acks] == [1, 1, 1, 1, 1, 1]  # the cumulative ACK waits at hole 1
    assert acks[0][3] == ()  # in order: nothing to SACK
    assert acks[1][3] == ((2, 3),)
    assert acks[2][3] == ((2, 4),)  # 3 joins 2's block, which is reported first
    assert acks[3][3] == ((5, 6), (2, 4))  # the new block first, then the one last reported
    assert acks[4][3] == ((9, 10), (5, 6), (2, 4))
    # 6 extends 5's block, first; then the most recent others; at most three blocks
    assert acks[5][3] == ((5, 7), (9, 10), (2, 4))


def test_older_blocks_drop_off_beyond_three_and_return_when_triggered():
    acks = receive([0, 2, 4, 6, 8, 10, 5])
    assert acks[5][3] == ((10, 11), (8, 9), (6, 7))  # (2, 3) and (4, 5) no longer fit
    assert acks[6][3] == ((4, 7), (10, 11), (8, 9))  # 5 joins 4 and 6: that block first
    two = receive([0, 2, 4, 6], max_blocks=2)
    assert two[-1][3] == ((6, 7), (4, 5))


def test_blocks_below_the_cumulative_ack_are_never_reported():
    acks = receive([0, 2, 3, 5, 1])
    last = acks[-1]
    assert last[1] == 4 and last[3] == ((5, 6),)  # 1 fills the hole: 2, 3 are acknowledged
    assert receive([0, 2, 1])[-1][3] == ()
    # a duplicate of a packet already held adds no new block and reports the recent ones
    dup = receive([0, 3, 3])
    assert dup[-1][1] == 1 and dup[-1][3] == ((3, 4),)


# -- RFC 6675: a literal replay --------------------------------------------------------------
def rfc6675(drops: list[int], packets: int = 100, rwnd: int = RWND) -> list[tuple[str, int]]:
    """Replay one finite transfer on a path that keeps packets and ACKs in order, with the
    transmissions ``drops`` lists lost (each listing one more transmission), and return the
    sender's events: ("send" | "retransmit" | "fast_retransmit" | "recovery_exit", seq).

    Slow start from one packet and congestion avoidance (RFC 5681 3.1); SACK recovery by
    RFC 6675 section 5; IsLost, SetPipe, NextSeg as section 4 states them. The receiver ACKs
    every packet; with no ACK lost each out-of-order packet is reported in the first block
    of its ACK, so the scoreboard is the receiver's set of packets held above the cumulative
    ACK. A stall (nothing in flight, data outstanding) needs the timer, which the replay does
    not model: it ends the log with ("timeout", first unacknowledged packet)."""
    lose = Counter(drops)
    held: set[int] = set()
    expected = 0
    flight: deque[int] = deque()  # packets on their way, in order
    log: list[tuple[str, int]] = []
    s = {"una": 0, "high_data": -1, "high_rxt": -1, "cwnd": 1.0, "ssthresh": math.inf,
         "recovery": False, "point": -1, "dupacks": 0}  # fmt: skip
    sacked: set[int] = set()

    def is_lost(seq: int) -> bool:
        return sum(1 for x in sacked if x > seq) >= DUPTHRESH

    def set_pipe() -> int:
        pipe = 0
        for seq in range(s["una"], s["high_data"] + 1):
            if seq not in sacked:
                pipe += (not is_lost(seq)) + (seq <= s["high_rxt"])
        return pipe

    def next_seg() -> int | None:
        top = max(sacked, default=-1)
        for seq in range(max(s["high_rxt"] + 1, s["una"]), top):  # rule 1
            if seq not in sacked and is_lost(seq):
                return seq
        new = s["high_data"] + 1
        if new < packets and new < s["una"] + rwnd:  # rule 2
            return new
        for seq in range(max(s["high_rxt"] + 1, s["una"]), top):  # rule 3
            if seq not in sacked:
                return seq
        return None

    def transmit(seq: int) -> None:
        log.append(("retransmit" if seq <= s["high_data"] else "send", seq))
        s["high_data"] = max(s["high_data"], seq)
        if lose[seq]:
            lose[seq] -= 1
        else:
            flight.append(seq)

    def step_c() -> None:
        pipe = set_pipe()
        while s["cwnd"] - pipe >= 1:
            seq = next_seg()
            if seq is None:
                return
            if seq <= s["high_data"]:
                s["high_rxt"] = seq
            transmit(seq)
            pipe += 1

    def window() -> None:  # outside recovery: RFC 5681's window, no limited transmit
        limit = min(packets, s["una"] + min(math.floor(s["cwnd"]), rwnd))
        while s["high_data"] + 1 < limit:
            transmit(s["high_data"] + 1)

    transmit(0)
    while s["una"] < packets:
        if not flight:
            log.append(("timeout", s["una"]))
            break
        seq = flight.popleft()  # the receiver: one ACK per arrival
        if seq == expected:
            expected += 1
            while expected in held:
                held.discard(expected)
                expected += 1
        elif seq > expected:
            held.add(seq)
        ack, info = expected, frozenset(held)
        # the sender
        if ack > s["una"]:
            s["una"], s["dupacks"] = ack, 0
            sacked = set(info)
            if s["recovery"]:
                if ack > s["point"]:  # (A)
                    s["recovery"], s["cwnd"] = False, s["ssthresh"]
                    log.append(("recovery_exit", ack))
                    window()
                else:
                    step_c()  # (B), (C)
            else:
                s["cwnd"] += 1.0 if s["cwnd"] < s["ssthresh"] else 1.0 / s["cwnd"]
                s["cwnd"] = min(s["cwnd"], rwnd)
                window()
        elif ack == s["una"] and s["una"] <= s["high_data"] and info - sacked:
            sacked |= info
            if s["recovery"]:
                step_c()
                continue
            s["dupacks"] += 1
            if s["dupacks"] >= DUPTHRESH or is_lost(s["una"]):  # section 5 (1), (2)
                s["point"] = s["high_data"]  # (4.1)
                s["ssthresh"] = max(s["cwnd"] / 2, 2.0)  # (4.2), documented: half cwnd
                s["cwnd"], s["recovery"] = s["ssthresh"], True
                log.append(("fast_retransmit", s["una"]))
                s["high_rxt"] = s["una"]
                transmit(s["una"])  # (4.3)
                step_c()  # (4.4), (4.5)
    return log


def model_log(drops: list[int], packets: int = 100, window: int = RWND) -> list[tuple[str, int]]:
    ev = run_trace("sack", drops, packets=packets, window=window).events
    kinds = ("send", "retransmit", "fast_retransmit", "recovery_exit", "timeout")
    log = [(e, int(q)) for e, q in zip(ev["event"], ev["seq"], strict=True) if e in kinds]
    timeouts = [i for i, (e, _) in enumerate(log) if e == "timeout"]
    return log[: timeouts[0] + 1] if timeouts else log  # the replay stops at a stall


@pytest.mark.parametrize("k", sorted(CASES))
def test_fall_and_floyd_cases_follow_rfc_6675_event_by_event(k):
    expected = rfc6675(CASES[k])
    assert model_log(CASES[k]) == expected
    # and what Fall and Floyd found: each lost packet resent once, one fast retransmit
    assert [q for e, q in expected if e == "retransmit"] == CASES[k]
    assert [e for e, _ in expected].count("fast_retransmit") == 1
    assert "timeout" not in dict(expected)


@pytest.mark.parametrize(
    ("drops", "ends"),
    [
        ([14, 15, 16, 17, 18, 19], "complete"),  # a burst: six holes in a row
        ([14, 20, 30, 31, 40], "complete"),  # losses that continue into the recovery's new data
        ([14, 20, 30, 31, 40, 50, 55], "stall"),  # ... until the window is too small
        ([5, 9, 40, 41, 42, 70], "complete"),  # two recoveries apart
        ([14, 28, 29, 30, 31], "timer first"),  # the window's tail: holes need packets sent
        # in recovery, and the retransmission of 28 goes out late in the round trip
    ],
)
def test_other_loss_patterns_follow_rfc_6675_event_by_event(drops, ends):
    """Up to the first time-out. The replay has no clock: where it stalls (nothing in flight,
    data outstanding), the model's timer fires on the packet the replay is stuck at
    ("stall"); and the timer may fire before the replay stalls ("timer first": a
    retransmission still on its way when the RTO, restarted by the last ACK of new data, runs
    out: RFC 6298 5.3), so before a time-out the two agree event by event, the time-out comes
    exactly one RTO after the last new ACK or fast retransmit, and in "timer first" the packet
    it resends had been retransmitted less than one round trip before (its ACK was on its
    way) while the replay, at that point, goes on. Each pattern's ending is stated, so a
    change that turns one ending into another fails (the check used to accept any time-out
    whenever the replay did not end in one)."""
    model, replay = model_log(drops), rfc6675(drops)
    if ends == "complete":
        assert model == replay and "timeout" not in dict(model)
        return
    assert model[-1][0] == "timeout"
    assert model[:-1] == replay[: len(model) - 1]
    ev = run_trace("sack", drops, packets=100, window=RWND).events
    timeout = of(ev, "timeout").iloc[0]
    restart = of(ev[ev["time"] < timeout["time"]], "ack", "partial_ack", "fast_retransmit")
    last = restart.iloc[-1]
    assert timeout["time"] == pytest.approx(last["time"] + last["rto"], abs=1e-9)
    if ends == "stall":
        assert replay == model  # the replay stalls on the same packet, and ends there
        return
    assert replay[len(model) - 1][0] != "timeout" and len(replay) > len(model)
    resent = of(ev[ev["time"] < timeout["time"]], "retransmit", "fast_retransmit")
    resent = resent[resent["seq"] == timeout["seq"]].iloc[-1]
    assert timeout["time"] < resent["time"] + R  # its ACK would have come after the timer


def test_more_holes_than_sack_blocks_still_follow_the_replay():
    """Eight holes: the receiver reports three blocks per ACK, yet (no ACK lost) the sender
    learns every block when it first appears, so its scoreboard is the replay's."""
    drops = [20, 22, 24, 26, 28, 30, 32, 34]
    assert model_log(drops, packets=120, window=40) == rfc6675(drops, 120, 40)


@pytest.mark.parametrize("k", sorted(CASES))
def test_sack_repairs_every_hole_in_about_one_round_trip(k):
    """Fall and Floyd: with SACK, all k holes are resent within one round trip of the fast
    retransmit (NewReno takes one per round trip), and recovery ends about one round trip
    after the last retransmission: cwnd = ssthresh = W/2, no time-out."""
    trace = run_trace("sack", CASES[k], packets=100, window=RWND)
    ev = trace.events
    fr = of(ev, "fast_retransmit").iloc[0]
    assert fr["seq"] == FIRST and fr["ssthresh"] == SSTHRESH and fr["cwnd"] == SSTHRESH
    retx = of(ev, "retransmit")["time"]
    assert retx.max() < fr["time"] + R + W * TAU
    exit_ = of(ev, "recovery_exit").iloc[0]
    assert exit_["cwnd"] == SSTHRESH and exit_["time"] <= retx.max() + R + W * TAU
    assert trace.timeouts == 0 and trace.retransmits == k
    # so recovery lasts at most two round trips, where NewReno's lasts k (one hole each)
    nr = run_trace("newreno", CASES[k], packets=100, window=RWND).events
    nr_exit = of(nr, "recovery_exit")["time"].iloc[0] - of(nr, "fast_retransmit")["time"].iloc[0]
    assert k * R <= nr_exit < k * R + W * TAU
    assert exit_["time"] - fr["time"] < 2 * R + 2 * W * TAU
    if k >= 3:
        assert exit_["time"] - fr["time"] < nr_exit - R / 2


def test_one_loss_sends_what_newreno_sends():
    """One hole: pipe falls by one per duplicate ACK from W - 3 + 1 (the retransmission), and
    NewReno's inflated window rises by one per duplicate ACK from W/2 + 3; both first send
    new data at the ninth duplicate ACK, the same packets at the same moments."""
    sent = {tcp: [(e, q) for e, q in zip(ev["event"], ev["seq"], strict=True)
                  if e in ("send", "retransmit")]
            for tcp in ("sack", "newreno")
            for ev in [run_trace(tcp, CASES[1], packets=100, window=RWND).events]}  # fmt: skip
    assert sent["sack"] == sent["newreno"]


# -- the timer and SACK --------------------------------------------------------------------------
def test_after_a_timeout_only_the_unsacked_holes_are_resent():
    """The retransmission of 14 is lost as well, so no ACK can end recovery. Holes 26 and 28
    become lost (three SACKed packets above them: 27 and the new packets of the recovery) and
    are resent in the recovery, as the replay says; then the timer fires (RFC 6298) one RTO
    after the fast retransmit. Documented: the scoreboard is kept, so at the time-out 14 is
    the one unSACKed packet outstanding and the only one resent; NewReno's go-back-N resends
    26 onwards again, 27 among them, which the receiver already has."""
    drops = [14, 14, 26, 28]
    replay = rfc6675(drops)
    assert [q for e, q in replay if e == "retransmit"] == [14, 26, 28]
    assert replay[-1] == ("timeout", 14)
    model = model_log(drops)  # the timer fires before the replay stalls: agree up to it
    assert model[:-1] == replay[: len(model) - 1] and model[-1] == ("timeout", 14)
    trace = run_trace("sack", drops, packets=100, window=RWND)
    ev = trace.events
    timeout = of(ev, "timeout").iloc[0]
    fr = of(ev, "fast_retransmit").iloc[0]
    assert trace.timeouts == 1 and len(of(ev, "fast_retransmit")) == 1  # RFC 6675 5.1
    assert timeout["time"] == pytest.approx(fr["time"] + fr["rto"], abs=1e-9)
    # a time-out in recovery cuts the window before recovery: half of W/2
    assert timeout["ssthresh"] == SSTHRESH / 2 and timeout["cwnd"] == 1.0
    after = of(ev[ev["time"] >= timeout["time"]], "retransmit")
    assert list(after["seq"]) == [FIRST]
    nr = run_trace("newreno", drops, packets=100, window=RWND).events
    nr_after = of(nr[nr["time"] >= of(nr, "timeout")["time"].iloc[0]], "retransmit")
    assert {14, 26, 27, 28} <= set(nr_after["seq"])


def test_sack_needs_its_own_sender():
    env = simpy.Environment()
    with pytest.raises(ValueError, match="variant='sack' needs"):
        TcpSender(env, 0, TcpConfig(variant="sack"), print)
    sender = SackSender(env, 0, TcpConfig(variant="sack"), print)
    assert sender.pipe() == 0 and sender.next_seg() == 0


# -- SACK in a dumbbell, and on the command line ------------------------------------------------
@settings(max_examples=10, deadline=None)
@given(st.integers(1, 40), st.integers(2, 30), st.sampled_from([None, 0.1]), st.integers(0, 999))
def test_the_scoreboard_stays_inside_the_outstanding_data(flows, buffer, delack, seed):
    """On random dumbbells, at every tenth of a second: SACKed packets lie between the
    cumulative ACK and the highest sent, so do the retransmissions, and pipe counts each
    outstanding packet at most twice (RFC 6675 SetPipe), never less than zero."""
    rng = np.random.default_rng(seed)
    configs = [TcpConfig(variant="sack")] * flows
    net = Dumbbell(configs, DropTail(buffer), 10e6, 0.02, 100e6, [0.0] * flows,
                   delayed_ack=delack, rng=rng)  # fmt: skip
    net.start(rng.uniform(0.0, 1.0, flows))
    for t in np.arange(0.1, 6.0, 0.1):
        net.env.run(until=t)
        for sender in net.senders:
            ranges = sender.scoreboard.ranges()
            assert all(sender.snd_una < lo < hi <= sender.maxseq for lo, hi in ranges)
            assert sender.snd_una <= sender.snd_nxt <= sender.maxseq
            assert sender.high_rxt < sender.maxseq
            assert 0 <= sender.pipe() <= 2 * (sender.maxseq - sender.snd_una)
            assert sender.cwnd >= 1.0


def test_tcplab_trace_and_packet_take_sack():
    done = subprocess.run(
        [TCPLAB, "trace", "--tcp", "sack", "--drop", "14", "--drop", "24", "--drop", "26",
         "--drop", "28", "--window", "28", "--packets", "40"],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1].startswith("fast retransmits 1, time-outs 0, retransmits 4")
    packet = subprocess.run(
        [TCPLAB, "packet", "--tcp", "sack", "--flows", "3", "--duration", "5", "--warmup", "1"],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert packet.returncode == 0, packet.stderr
