"""The TCP senders against the specifications, on traces with scripted losses.

Every expectation is derived here from the rule it checks (RFC 5681 congestion control,
RFC 6582 NewReno, RFC 6298 the retransmission timer, Jacobson 1988 for Tahoe, the AIMD(a, b)
definition), never read off the model's output; where the model departs from an RFC on
purpose, the test checks the behaviour that ``tcplab/packet/tcp.py`` documents and says
what the RFC would give. The timer's own rules (RFC 6298) are in ``test_tcp_rto.py``.

The path is ``tcplab trace``'s idle one: 10 Mb/s, 100 ms of propagation, 1500 B packets, so a
packet takes TAU = 1.2 ms to send and a round trip takes R = 101.2 ms; 84 packets fit in
flight without queueing. The receiver acknowledges every packet. The backbone is the four
cases of Fall and Floyd (1996), as ns-2's test-suite-tcpVariants.tcl reruns them: a receiver
window of 28 packets, and one, two, three or four packets dropped from one window.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from tcplab.chapters.microscope import rules
from tcplab.chapters.microscope.rules import (
    FIRST,
    RWND,
    SSTHRESH,
    W,
    go_back_n,
    new_in_first_recovery,
)
from tcplab.packet import VARIANTS, run_trace

TAU = 1500 * 8 / 10e6  # one packet's transmission time (s)
R = 0.1 + TAU  # a packet's round trip on the idle path (s)
ACKS = ("ack", "dupack", "partial_ack", "recovery_exit")

# -- Fall and Floyd's cases -----------------------------------------------------------------
# The cases and the rules' arithmetic live in the book's chapter package (the chapter prints
# them beside the model): RWND = 28; the first drop is packet FIRST = 14. Slow start from one
# packet, one ACK per packet (RFC 5681 3.1): each ACK of new data adds one packet, so the
# cumulative ACK n has opened cwnd to 1 + n. When ACK 14 arrives (packet 13 acknowledged)
# cwnd is W = 15 and packets 14..28 are in flight: the WINDOW of the losses; SSTHRESH =
# max(W / 2, 2) (RFC 5681 eq. 4 with FlightSize = W at the first loss).
WINDOW = list(rules.WINDOW)
CASES = {k: list(drops) for k, drops in rules.CASES.items()}
assert (RWND, FIRST, W, SSTHRESH) == (28, 14, 15, 7.5)  # by hand, as above
assert CASES == {1: [14], 2: [14, 28], 3: [14, 26, 28], 4: [14, 24, 26, 28]}  # the ns-2 suite


def fall_floyd(tcp: str, k: int, **options) -> pd.DataFrame:
    return run_trace(tcp, CASES[k], packets=100, window=RWND, **options).events


def of(ev: pd.DataFrame, *events: str) -> pd.DataFrame:
    return ev[ev["event"].isin(events)]


def ceil_to(x: float, g: float) -> float:
    """The smallest multiple of ``g`` not below ``x`` (a relative 1e-9 absorbs rounding)."""
    return g * math.ceil(x / g - 1e-9)


# -- the window rules, row by row -----------------------------------------------------------
def check_window_rules(
    ev: pd.DataFrame, tcp: str, a: float = 1.0, b: float = 0.5, rwnd=64, ssthresh=math.inf
):
    """Replay the documented rules over a trace: each row's (cwnd, ssthresh) from the row
    before it and the event. RFC 5681 3.1 (slow start +1 per ACK, congestion avoidance
    +a/cwnd), 3.2 (fast retransmit: ssthresh from the window, cwnd = ssthresh + 3, +1 per
    further dupACK, back to ssthresh on the ACK that ends recovery; Tahoe: cwnd = 1), RFC
    6582 3.2 step 3 (partial ACK: deflate by the new data, add back one packet), RFC 5681
    3.1 on a time-out (cwnd = 1). The cut uses cwnd, or ssthresh in recovery (documented).
    SACK (RFC 6675 4.2): cwnd = ssthresh from the fast retransmit on, no inflation by
    dupACKs and no deflation by partial ACKs (``test_tcp_sack.py`` checks its sends)."""
    keep = 1.0 - b
    cwnd, una, recovering = None, 0, False
    for row in ev.itertuples():
        if cwnd is None:
            cwnd = row.cwnd
        event = row.event
        if event == "ack":
            assert not recovering
            grown = cwnd + 1.0 if cwnd < ssthresh else cwnd + a / cwnd
            cwnd = min(grown, rwnd)
        elif event == "dupack":
            if recovering and tcp != "sack":
                cwnd += 1.0
        elif event == "fast_retransmit":
            assert not recovering
            ssthresh = max(keep * cwnd, 2.0)
            if tcp == "tahoe":
                cwnd = 1.0
            else:
                cwnd, recovering = ssthresh + (0.0 if tcp == "sack" else 3.0), True
        elif event == "partial_ack":
            assert recovering and tcp in ("newreno", "aimd", "sack")
            if tcp != "sack":
                cwnd = min(max(cwnd - (row.seq - una) + 1.0, 1.0), rwnd)
        elif event == "recovery_exit":
            assert recovering
            cwnd, recovering = min(ssthresh, rwnd), False
        elif event == "timeout":
            ssthresh = max(keep * (min(cwnd, ssthresh) if recovering else cwnd), 2.0)
            cwnd, recovering = 1.0, False
        if event in ("ack", "partial_ack", "recovery_exit"):
            una = row.seq
        assert row.cwnd == pytest.approx(cwnd, rel=1e-12), row
        assert row.ssthresh == pytest.approx(ssthresh, rel=1e-12), row


def check_sends_within_window(ev: pd.DataFrame, tcp: str, rwnd: int):
    """RFC 5681 section 3: a sender MUST NOT send beyond the highest cumulative ACK plus
    min(cwnd, rwnd); and (no limited transmit, RFC 3042) the first two duplicate ACKs outside
    fast recovery send nothing. SACK's recovery, and its slow start after a time-out, send by
    RFC 6675's pipe instead (checked in ``test_tcp_sack.py``)."""
    una, dups, recovering, timed_out = 0, 0, False, False
    for row in ev.itertuples():
        if row.event in ("ack", "partial_ack", "recovery_exit"):
            una, dups = row.seq, 0
            recovering = row.event == "partial_ack"
        elif row.event == "dupack":
            dups += 1
        elif row.event == "fast_retransmit":
            recovering = tcp != "tahoe"
        elif row.event == "timeout":
            recovering, dups, timed_out = False, 0, True
        elif row.event in ("send", "retransmit"):
            if tcp != "sack" or not (recovering or timed_out):
                assert row.seq < una + min(math.floor(row.cwnd), rwnd), row
            assert recovering or dups not in (1, 2), f"limited transmit at {row}"


@pytest.mark.parametrize("tcp", VARIANTS)
@pytest.mark.parametrize("k", sorted(CASES))
def test_every_row_follows_the_window_rules(tcp, k):
    ev = fall_floyd(tcp, k)
    check_window_rules(ev, tcp, rwnd=RWND)
    check_sends_within_window(ev, tcp, RWND)


def test_window_rules_hold_for_weighted_aimd_and_a_binding_receiver_window():
    ev = run_trace("aimd", [14, 26, 28, 60, 61], packets=200, window=20, a=2.0, beta=0.75).events
    check_window_rules(ev, "aimd", a=2.0, b=0.25, rwnd=20)
    check_sends_within_window(ev, "aimd", 20)
    assert of(ev, "ack")["cwnd"].max() == 20.0  # the receiver window capped the growth


# -- RFC 5681: slow start and congestion avoidance ------------------------------------------
def test_slow_start_then_congestion_avoidance_gains_a_per_round_trip():
    """Without losses: +1 per ACK below ssthresh (doubling per round trip), then +a/cwnd per
    ACK, which adds about ``a`` packets per round trip (the ACKs of one window)."""
    for a in (1.0, 3.0):
        ev = run_trace("aimd", (), packets=1200, window=64, a=a, initial_ssthresh=8.0).events
        check_window_rules(ev, "aimd", a=a, ssthresh=8.0)
        acks = of(ev, "ack")
        # slow start: cwnd 1 -> 8 takes 7 ACKs, within three round trips (1, 2, 4 packets)
        assert list(acks["cwnd"].iloc[:7]) == [2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]
        assert acks["time"].iloc[6] < 3 * R + 8 * TAU
        # congestion avoidance: +a/cwnd per ACK, and a window-limited sender without
        # queueing gets floor(cwnd) ACKs per round trip, so dw/dt = a floor(w) / (w R): from
        # 10 to 40 packets takes 30 R / a, at most 10/9 of that (floor(w)/w >= 9/10 there)
        t10 = acks.loc[acks["cwnd"] >= 10.0, "time"].iloc[0]
        t40 = acks.loc[acks["cwnd"] >= 40.0, "time"].iloc[0]
        assert 30 * R / a - R <= t40 - t10 <= 30 * R / a * 10 / 9 + R


# -- RFC 5681: fast retransmit and fast recovery --------------------------------------------
@pytest.mark.parametrize("tcp", VARIANTS)
def test_fast_retransmit_on_the_third_duplicate_ack(tcp):
    ev = fall_floyd(tcp, 1)
    first = ev.index[ev["event"] == "fast_retransmit"][0]
    before = ev.loc[:first]
    dupacks = of(before, "dupack")
    assert len(dupacks) == 3 and set(dupacks["seq"]) == {FIRST}  # DupThresh = 3
    assert ev.loc[first, "seq"] == FIRST
    after = ev.loc[first:].iloc[1]
    assert after["event"] == "retransmit" and after["seq"] == FIRST
    # the window at the loss: everything sent up to the third dupACK is packets 0..28
    assert of(before, "send")["seq"].max() == WINDOW[-1]


@pytest.mark.parametrize("tcp", ["reno", "newreno"])
def test_reno_fast_recovery_of_one_loss(tcp):
    """RFC 5681 3.2 steps 2-6 with FlightSize = W = 15."""
    ev = fall_floyd(tcp, 1)
    fr = of(ev, "fast_retransmit").iloc[0]
    assert fr["ssthresh"] == SSTHRESH  # eq. (4): max(FlightSize / 2, 2 SMSS)
    assert fr["cwnd"] == SSTHRESH + 3  # step 4: inflated by the three packets that left
    # step 5: every other packet of the window arrives, W - 1 dupACKs in all; each adds one
    # packet, and new packets go out once cwnd exceeds the W in flight
    dupacks = of(ev, "dupack")
    assert len(dupacks) == W - 1 and dupacks["cwnd"].iloc[-1] == SSTHRESH + 3 + (W - 1 - 3)
    exit_ = of(ev, "recovery_exit").iloc[0]
    between = ev[(ev["time"] > fr["time"]) & (ev["time"] < exit_["time"])]
    new = math.floor(SSTHRESH + 3 + (W - 4)) - W  # = floor(W/2 - 1) = 6
    assert list(of(between, "send")["seq"]) == list(range(WINDOW[-1] + 1, WINDOW[-1] + 1 + new))
    # step 6: the ACK of the retransmission acknowledges the whole window (the new packets
    # left after it): cwnd = ssthresh
    assert exit_["seq"] == WINDOW[-1] + 1 and exit_["cwnd"] == SSTHRESH
    assert exit_["time"] == pytest.approx(fr["time"] + R, abs=1e-9)
    totals = run_trace(tcp, CASES[1], packets=100, window=RWND).totals
    assert totals["fast_retransmits"] == 1 and totals["retransmits"] == 1
    assert totals["timeouts"] == 0


# -- the Fall and Floyd cases ----------------------------------------------------------------
@pytest.mark.parametrize("k", sorted(CASES))
def test_newreno_recovers_k_losses_with_k_minus_one_partial_acks(k):
    """RFC 6582: one fast retransmit; every ACK below ``recover`` (the highest packet sent
    when the loss was found, 28) is a partial ACK that retransmits the next hole; the ACK
    above it ends recovery with cwnd = ssthresh. One hole per round trip, no time-out."""
    drops = CASES[k]
    ev = fall_floyd("newreno", k)
    trace = run_trace("newreno", drops, packets=100, window=RWND)
    assert trace.fast_retransmits == 1 and trace.timeouts == 0
    assert trace.retransmits == k
    assert list(of(ev, "retransmit")["seq"]) == drops  # each hole once, in order
    partial = of(ev, "partial_ack")
    assert list(partial["seq"]) == drops[1:]  # the cumulative ACK stops at the next hole
    recover = WINDOW[-1]
    assert (partial["seq"] <= recover).all()
    exit_ = of(ev, "recovery_exit")
    assert len(exit_) == 1 and exit_["seq"].iloc[0] > recover
    assert exit_["cwnd"].iloc[0] == exit_["ssthresh"].iloc[0] == SSTHRESH
    # each partial ACK retransmits the first unacknowledged packet at once
    for i in partial.index:
        nxt = ev.loc[i:].iloc[1]
        assert nxt["event"] == "retransmit" and nxt["seq"] == ev.loc[i, "seq"]
    # one retransmission per round trip: each answer comes R (plus a little queueing) later
    retx = of(ev, "retransmit")["time"].to_numpy()
    answers = np.append(partial["time"].to_numpy(), exit_["time"].iloc[0])
    assert np.all(answers - retx >= R - 1e-9) and np.all(answers - retx < R + W * TAU)


def test_reno_with_one_loss_is_newreno():
    assert fall_floyd("reno", 1).equals(fall_floyd("newreno", 1))


def test_reno_with_two_losses_halves_twice_without_a_timeout():
    """RFC 5681 without RFC 6582's check. The first new ACK (28, a partial ACK) ends Reno's
    recovery: cwnd = ssthresh = 7.5. Hole 28 then needs three fresh dupACKs, and only packets
    sent after the first fast retransmit can give them: the new packets of the first recovery
    (cwnd reached 7.5 + 3 + 10 = 20.5 with 15 outstanding: 29..33, five) and the one the
    exit allows (6 in flight, window 7.5: packet 34). Six dupACKs: a second fast retransmit,
    which halves the window again; the retransmission of 28 then ACKs everything."""
    ev = fall_floyd("reno", 2)
    hole = CASES[2][1]
    new_first = new_in_first_recovery(2)  # floor(SSTHRESH + 3 + (W - 2 - 3)) - W
    at_exit = math.floor(SSTHRESH) - (WINDOW[-1] + 1 + new_first - hole)
    assert (new_first, at_exit) == (5, 1) and new_first + at_exit >= 3
    sent = WINDOW[-1] + 1 + new_first + at_exit  # everything below was sent: 0..34
    exits = of(ev, "recovery_exit")
    assert list(exits["seq"]) == [hole, sent]
    fr = of(ev, "fast_retransmit")
    assert list(fr["seq"]) == [FIRST, hole]
    # documented: the second cut halves cwnd = 7.5; RFC 5681 halves FlightSize = 7, which
    # would give 3.5, half a packet less
    assert fr["ssthresh"].iloc[1] == max(SSTHRESH / 2, 2.0) == 3.75
    assert abs(fr["ssthresh"].iloc[1] - (sent - hole) / 2) < 0.5
    assert list(exits["cwnd"]) == [SSTHRESH, 3.75]
    trace = run_trace("reno", CASES[2], packets=100, window=RWND)
    assert (trace.fast_retransmits, trace.timeouts, trace.retransmits) == (2, 0, 2)
    assert of(ev, "partial_ack").empty


@pytest.mark.parametrize("k", [3, 4])
def test_reno_with_three_or_four_losses_waits_for_the_timer(k):
    """After the first recovery ends at the ACK of the second hole, the new packets of the
    first recovery (7 - k of them, all already past the holes) give the three dupACKs of a
    second fast retransmit; its retransmission's ACK (a new ACK: Reno leaves recovery at
    cwnd 3.75) reaches the third hole, and with 5 (k=3) or 6 (k=4) packets outstanding
    against a window of 3.75 nothing more is sent, so no dupACK can come: the retransmission
    timer, restarted by that last new ACK (RFC 6298 5.3), fires one RTO later."""
    drops = CASES[k]
    ev = fall_floyd("reno", k)
    new_first = new_in_first_recovery(k)  # floor(SSTHRESH + 3 + (W - k - 3)) - W
    assert new_first == 7 - k >= 3
    fr = of(ev, "fast_retransmit")
    assert list(fr["seq"]) == [14, drops[1]]
    exits = of(ev, "recovery_exit")
    assert list(exits["seq"]) == [drops[1], drops[2]]
    assert list(exits["cwnd"]) == [SSTHRESH, 3.75]
    timeout = of(ev, "timeout")
    assert len(timeout) == 1 and timeout["seq"].iloc[0] == drops[2]
    last_exit = exits.iloc[-1]
    assert timeout["time"].iloc[0] == pytest.approx(last_exit["time"] + last_exit["rto"], abs=1e-9)
    # documented: the time-out halves cwnd = 3.75, so ssthresh = 2; RFC 5681 halves the
    # FlightSize, the packets sent and not acknowledged (29 + new_first - drops[2])
    flight = WINDOW[-1] + 1 + new_first - drops[2]
    assert timeout["ssthresh"].iloc[0] == 2.0 and timeout["cwnd"].iloc[0] == 1.0
    assert max(flight / 2, 2.0) in (2.5, 3.0)  # what RFC 5681 would give
    # after the time-out, go-back-N from the hole over what was outstanding (ssthresh 2);
    # with k = 4 it resends 29, which arrived long ago
    after = of(ev[ev["time"] >= timeout["time"].iloc[0]], "retransmit")
    outstanding = list(range(drops[2], WINDOW[-1] + 1 + new_first))
    expected_after = go_back_n(outstanding, [d for d in drops if d >= drops[2]], 2.0)
    assert expected_after == ([28] if k == 3 else [26, 28, 29])
    assert list(after["seq"]) == expected_after
    trace = run_trace("reno", drops, packets=100, window=RWND)
    assert trace.fast_retransmits == 2 and trace.timeouts == 1
    assert trace.retransmits == 2 + len(expected_after)


@pytest.mark.parametrize("k", sorted(CASES))
def test_tahoe_restarts_from_one_packet_and_goes_back_n(k):
    drops = CASES[k]
    ev = fall_floyd("tahoe", k)
    fr = of(ev, "fast_retransmit")
    assert len(fr) == 1 and fr["cwnd"].iloc[0] == 1.0 and fr["ssthresh"].iloc[0] == SSTHRESH
    assert of(ev, "partial_ack", "recovery_exit").empty  # no fast recovery
    expected = go_back_n(WINDOW, drops, SSTHRESH)
    assert list(of(ev, "retransmit")["seq"]) == expected
    unnecessary = [p for p in expected if p not in drops]
    assert (len(unnecessary) > 0) == (k >= 3)  # Fall and Floyd: Tahoe resends received data
    trace = run_trace("tahoe", drops, packets=100, window=RWND)
    assert trace.timeouts == 0 and trace.fast_retransmits == 1
    assert trace.retransmits == len(expected)


@pytest.mark.parametrize("k", sorted(CASES))
def test_newreno_finishes_first_and_reno_last_with_three_or_more_losses(k):
    done = {tcp: run_trace(tcp, CASES[k], packets=100, window=RWND).completion_s for tcp in
            ("tahoe", "reno", "newreno")}  # fmt: skip
    assert done["newreno"] <= done["reno"] and done["newreno"] <= done["tahoe"]
    if k >= 3:  # Reno's time-out costs more than Tahoe's slow start
        assert done["reno"] > done["tahoe"]


@pytest.mark.parametrize(
    ("tcp", "drops", "response"),
    [
        ("tahoe", [14, 15, 16, 17, 27], "fast_retransmit"),
        ("newreno", [14, 14, 15, 16, 17, 25], "timeout"),
        ("reno", [14, 14, 15, 16, 17, 25], "timeout"),
    ],
)
def test_the_recover_check_on_duplicate_acks_after_a_loss_response(tcp, drops, response):
    """RFC 6582 3.2 step 2: at the third dupACK, fast retransmit only if the ACK covers more
    than ``recover``, the highest packet sent when the last loss response began (ns-2's bug
    fix does the same for Tahoe). Tahoe: after its fast retransmit the go-back-N refills 14,
    15, 16, 17, one per ACK, the window growing to 4; the ACK of 17 jumps to hole 27 and
    the copies of 18, 19, 20 sent alongside (received long ago) give three dupACKs of 27.
    NewReno: the retransmission of 14 is lost too, the timer ends recovery, and the same
    happens at hole 25 (copies of 26, 27, 28). 27 and 25 are below ``recover``: no fast
    retransmit. Reno has no such check (documented) and does fast-retransmit."""
    ev = run_trace(tcp, drops, packets=60, window=RWND).events
    start = of(ev, response).index[0]
    recover = of(ev.loc[:start], "send")["seq"].max()
    later = ev.loc[start + 1 :]
    run, longest = 0, 0
    for row in of(later, *ACKS).itertuples():
        run = run + 1 if row.event == "dupack" and row.seq <= recover else 0
        longest = max(longest, run)
    assert longest >= 3
    below = of(later, "fast_retransmit")["seq"] <= recover
    assert below.any() == (tcp == "reno")


# -- weighted AIMD(a, b) ---------------------------------------------------------------------
@pytest.mark.parametrize(("a", "b"), [(2.0, 0.25), (1.0, 0.125), (4.0, 0.5)])
def test_weighted_aimd_recovers_like_newreno_to_one_minus_b(a, b):
    """``aimd`` is NewReno with the cut to (1 - b) of the window: the same retransmissions
    (one per hole and round trip), ssthresh = (1 - b) W at the fast retransmit and cwnd =
    ssthresh when recovery ends; then +a/cwnd per ACK."""
    ev = fall_floyd("aimd", 3, a=a, beta=1 - b)  # the model's beta keeps 1 - b
    check_window_rules(ev, "aimd", a=a, b=b, rwnd=RWND)
    cut = max((1 - b) * W, 2.0)
    fr = of(ev, "fast_retransmit")
    assert len(fr) == 1 and fr["ssthresh"].iloc[0] == cut and fr["cwnd"].iloc[0] == cut + 3
    assert list(of(ev, "retransmit")["seq"]) == CASES[3]
    assert list(of(ev, "partial_ack")["seq"]) == CASES[3][1:]
    exit_ = of(ev, "recovery_exit").iloc[0]
    assert exit_["cwnd"] == cut and of(ev, "timeout").empty
    after = of(ev[ev["time"] > exit_["time"]], "ack")
    previous = np.concatenate([[cut], after["cwnd"].to_numpy()[:-1]])
    grown = np.where(previous < cut, previous + 1.0, previous + a / previous)
    assert after["cwnd"].to_numpy() == pytest.approx(np.minimum(grown, RWND), rel=1e-12)


def test_a_timeout_during_recovery_cuts_the_uninflated_window():
    """The retransmission of 14 is lost too: no ACK can end recovery, the timer fires.
    Documented: the cut applies to the window before inflation (ssthresh, 11.25 here), so
    ssthresh becomes 0.75 * 11.25, and the timer, restarted by the fast retransmit and not by
    dupACKs, fires one RTO after it; recovery ends (RFC 6582 step 6)."""
    b = 0.25
    ev = run_trace("aimd", [14, 14], packets=100, window=RWND, beta=1 - b).events
    check_window_rules(ev, "aimd", b=b, rwnd=RWND)
    timeout = of(ev, "timeout").iloc[0]
    assert timeout["ssthresh"] == (1 - b) * (1 - b) * W and timeout["cwnd"] == 1.0
    fr = of(ev, "fast_retransmit").iloc[0]
    assert timeout["time"] == pytest.approx(fr["time"] + fr["rto"], abs=1e-9)  # no new ACK
    assert len(of(ev, "fast_retransmit")) == 1 and of(ev, "partial_ack").empty


def test_a_repeated_timeout_sets_ssthresh_to_two():
    """The whole window 14..28 is lost, so no dupACK comes: the timer fires one RTO after the
    last new ACK (RFC 6298 5.3) with the W = 15 packets outstanding: ssthresh = max(W/2, 2)
    (RFC 5681 eq. 4; FlightSize = cwnd here). The retransmission of 14 is lost too: the
    second time-out, one doubled RTO later, finds cwnd = 1 and (documented) sets ssthresh to
    its floor of 2, where RFC 5681 holds it at W/2. Then slow start resends 15..28, once."""
    ev = run_trace("newreno", [14, 14, *WINDOW[1:]], packets=60, window=RWND).events
    check_window_rules(ev, "newreno", rwnd=RWND)
    timeouts = of(ev, "timeout")
    last_ack = of(ev[ev["time"] < timeouts["time"].iloc[0]], "ack").iloc[-1]
    assert last_ack["seq"] == FIRST
    assert list(timeouts["time"]) == pytest.approx(
        [last_ack["time"] + last_ack["rto"], last_ack["time"] + 3 * last_ack["rto"]], abs=1e-9
    )
    assert list(timeouts["ssthresh"]) == [SSTHRESH, 2.0]
    assert list(of(ev, "retransmit")["seq"]) == [FIRST, *WINDOW]
    assert of(ev, "fast_retransmit").empty
