"""Fall and Floyd's cases, and what the RFCs say must happen in each, derived by hand.

The cases are those of Fall and Floyd (1996) as ns-2's ``test-suite-tcpVariants.tcl`` reruns
them: a receiver window of 28 packets, and one, two, three or four packets dropped from one
window (:data:`CASES`), on ``tcplab trace``'s idle path (10 Mb/s, 100 ms, 1500 B packets, an
ACK for every packet). Slow start from one packet (RFC 5681 3.1) adds one packet per ACK, so
the cumulative ACK n has opened cwnd to 1 + n: when ACK 14 arrives, packets 14..28 are in
flight, the window :data:`WINDOW` of ``W = 15`` packets in which the losses fall, and the
first loss response sets ssthresh to ``max(W / 2, 2)`` (RFC 5681 eq. 4, FlightSize = W).

:func:`expected_counts` says, from these rules alone, how many fast retransmits, partial ACKs,
time-outs and retransmissions each sender must make in each case, and which packets it must
resend; :func:`go_back_n` is Jacobson's restart on sequence numbers, as Tahoe does after a
fast retransmit and every sender after a time-out. The book's paper-vs-model table and the
RFC trace tests (``tests/test_tcp_rfc.py``) both read them; none of it reads the model.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass

from tcplab.checks import check_choice

__all__ = [
    "CASES",
    "FIRST",
    "RWND",
    "SENDERS",
    "SSTHRESH",
    "W",
    "WINDOW",
    "Expected",
    "expected_counts",
    "go_back_n",
    "new_in_first_recovery",
]

RWND = 28  # ns-2's window_ in these tests: large enough not to limit the first window
FIRST = 14  # the first packet dropped
W = 1 + FIRST  # packets in flight when the first loss is found: 14..28
WINDOW = tuple(range(FIRST, FIRST + W))
#: drops for one, two, three and four losses in the window (test-suite-tcpVariants.tcl)
CASES: dict[int, tuple[int, ...]] = {1: (14,), 2: (14, 28), 3: (14, 26, 28), 4: (14, 24, 26, 28)}
SSTHRESH = max(W / 2, 2.0)  # RFC 5681 eq. (4) with FlightSize = W at the first loss
#: the senders of Fall and Floyd's comparison that the model has (SACK is not modelled)
SENDERS = ("tahoe", "reno", "newreno")


def go_back_n(window: Sequence[int], drops: Sequence[int], ssthresh: float) -> list[int]:
    """Jacobson's (1988) restart, on sequence numbers alone, as Tahoe does after a fast
    retransmit and every variant after a time-out: cwnd = 1, slow start (then +1/cwnd from
    ``ssthresh``) from the first unacknowledged packet, each new cumulative ACK letting the
    sender go on from there; packets are delivered, and ACKed, in the order they are sent.
    ``window`` is what was outstanding, ``drops`` what of it the receiver lacks. Returns the
    packets of ``window`` sent again, in order."""
    held = set(window) - set(drops)  # what the receiver has when the retransmissions start
    una = nxt = expected = window[0]
    cwnd, resent, flight = 1.0, [], deque[int]()

    def fill() -> None:
        nonlocal nxt
        while nxt < una + math.floor(cwnd):
            if nxt <= window[-1]:
                resent.append(nxt)
            flight.append(nxt)
            nxt += 1

    fill()
    while una <= window[-1]:
        held.add(flight.popleft())
        while expected in held:
            expected += 1
        if expected > una:  # a new ACK
            una, nxt = expected, max(nxt, expected)
            cwnd += 1.0 if cwnd < ssthresh else 1.0 / cwnd
            fill()
    return resent


def new_in_first_recovery(k: int) -> int:
    """New packets (beyond the window) a Reno or NewReno sender sends during its first fast
    recovery when ``k`` packets of the window are lost: the W - k packets that arrive give
    W - k duplicate ACKs, which inflate cwnd to ssthresh + 3 + (W - k - 3) (RFC 5681 3.2 steps
    4 and 5) against W packets outstanding."""
    return max(math.floor(SSTHRESH + 3 + (W - k - 3)) - W, 0)


@dataclass(frozen=True)
class Expected:
    """What the rules say a sender does in one case."""

    fast_retransmits: int
    partial_acks: int
    timeouts: int
    resent: tuple[int, ...]  # every retransmitted packet, in order

    @property
    def retransmits(self) -> int:
        return len(self.resent)


def expected_counts(tcp: str, k: int) -> Expected:
    """Fall and Floyd's case ``k`` (1 to 4 drops) for ``tcp``, from the rules alone.

    * NewReno (RFC 6582): one fast retransmit; every ACK below ``recover`` (28, the highest
      packet sent when the loss was found) is a partial ACK that retransmits the next hole,
      one hole per round trip: k retransmissions, k - 1 partial ACKs, no time-out.
    * Tahoe (Jacobson 1988): one fast retransmit, then the go-back-N restart from one packet
      over the whole window (:func:`go_back_n`); it resends packets that arrived when three or
      more are lost.
    * Reno (RFC 5681, no ``recover`` check): the first new ACK ends recovery. With one loss
      it is NewReno. Otherwise that ACK stops at the second hole, whose three duplicate ACKs
      can come only from packets sent after the first fast retransmit: the new packets of the
      first recovery (:func:`new_in_first_recovery`, 7 - k) and those the exit allows
      (cwnd = ssthresh = 7.5 against what is still outstanding). With two losses that is
      enough: a second fast retransmit, whose retransmission ACKs everything. With three or
      four the second fast retransmit's ACK reaches the third hole with more packets
      outstanding than the halved window (3.75), so nothing is sent, no duplicate ACK can
      come, and the timer fires; the time-out (documented: ssthresh = 2) goes back N over
      what was outstanding."""
    check_choice("tcp", tcp, ("tahoe", "reno", "newreno", "aimd"))
    if k not in CASES:
        raise ValueError(f"k={k!r} is not one of the cases {sorted(CASES)}")
    drops = CASES[k]
    if tcp in ("newreno", "aimd") or (tcp == "reno" and k == 1):
        return Expected(1, k - 1, 0, drops)
    if tcp == "tahoe":
        return Expected(1, 0, 0, tuple(go_back_n(WINDOW, drops, SSTHRESH)))
    new_first = new_in_first_recovery(k)
    first_sent = WINDOW[-1] + 1 + new_first  # one above the highest packet sent so far
    hole = drops[1]
    at_exit = max(math.floor(SSTHRESH) - (first_sent - hole), 0)
    if k == 2:
        if new_first + at_exit < 3:  # not with these numbers (5 + 1); kept as the rule says
            raise NotImplementedError("Reno with two drops and fewer than three dupACKs")
        return Expected(2, 0, 0, drops)
    if new_first < 3:
        raise NotImplementedError("Reno without a second fast retransmit")
    # the second fast retransmit halves cwnd = 7.5 (documented: not FlightSize) to 3.75; its
    # ACK reaches the third hole with first_sent - drops[2] packets outstanding
    second = max(SSTHRESH / 2, 2.0)
    inflated = second + 3 + (new_first - 3)  # cwnd at the last dupACK of the second recovery
    if math.floor(inflated) > first_sent - hole or math.floor(second) > first_sent - drops[2]:
        raise NotImplementedError("Reno that can still send during or after its second recovery")
    outstanding = list(range(drops[2], first_sent))
    holes = [d for d in drops if d >= drops[2]]
    after = go_back_n(outstanding, holes, 2.0)  # documented: the time-out's ssthresh is 2
    return Expected(2, 0, 1, (drops[0], hole, *after))
