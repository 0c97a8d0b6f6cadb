"""The rules replayed by hand: a TCP written from the RFCs' text, on ``tcplab trace``'s path.

:func:`replay` follows one finite transfer the way one would on paper: a list of timed
happenings (a packet reaching the receiver, an ACK reaching the sender, the retransmission
timer running out), taken in time order, each answered by the rule the RFCs give for it
(RFC 5681 slow start, congestion avoidance, fast retransmit and fast recovery; RFC 6582
NewReno; RFC 6298 the timer; Jacobson 1988 for Tahoe). The path is the trace's: a FIFO link
of ``rate_mbps`` with a DropTail buffer and ``rtt_ms / 2`` of propagation, a receiver that
acknowledges every packet over a delay line of ``rtt_ms / 2``, and the loss script's drops.

It shares no code with :mod:`tcplab.packet`, so the book can set what the rules give beside
what the model did. Where the RFCs leave a choice open or the model departs from them on
purpose (``tcplab/packet/tcp.py``'s docstring lists each), :class:`Choices` says which way
to go: :data:`MODEL` takes the model's documented choices, :data:`LETTER` the RFCs' own
(with ``min_rto=LETTER_MIN_RTO``). The log has the model's columns and event names
(:mod:`tcplab.packet.events`), so two traces compare row by row.
"""

from __future__ import annotations

import heapq
import itertools
import math
from collections import Counter, deque
from collections.abc import Sequence
from dataclasses import dataclass

import pandas as pd

from tcplab.checks import check_choice, check_int, check_range

__all__ = ["Choices", "LETTER", "LETTER_MIN_RTO", "MODEL", "Replayed", "first_difference", "replay"]

COLUMNS = ("time", "event", "seq", "cwnd", "ssthresh", "rto", "rtt_sample")


@dataclass(frozen=True)
class Choices:
    """Which way the replay goes where the model departs from the RFCs on purpose.

    ``cut``: ``"cwnd"`` sets ssthresh from the window (ns-2, 4.4BSD), ``"flight"`` from the
    FlightSize, the packets sent and not yet acknowledged (RFC 5681 eq. 4).
    ``repeated_timeout``: ``"cut"`` cuts again when the timer resends a packet it has resent
    before (the window is then 1, so ssthresh falls to 2), ``"hold"`` keeps ssthresh (RFC
    5681 3.1). ``restart_at_fast_retransmit``: the timer restarts at a fast retransmit
    (4.4BSD, ns-2), or runs on (RFC 6298 5.1: started only when it is not running)."""

    cut: str = "cwnd"
    repeated_timeout: str = "cut"
    restart_at_fast_retransmit: bool = True

    def __post_init__(self) -> None:
        check_choice("cut", self.cut, ("cwnd", "flight"))
        check_choice("repeated_timeout", self.repeated_timeout, ("cut", "hold"))


MODEL = Choices()
LETTER = Choices(cut="flight", repeated_timeout="hold", restart_at_fast_retransmit=False)
LETTER_MIN_RTO = 1.0  # RFC 6298 2.4: an RTO below 1 s SHOULD be rounded up to 1 s


@dataclass(frozen=True, eq=False)
class Replayed:
    """The replay's log (the model's columns, one row per sender event) and its totals."""

    events: pd.DataFrame
    fast_retransmits: int
    timeouts: int
    retransmits: int
    completion_s: float | None

    @property
    def totals(self) -> dict[str, float | int | None]:
        return {
            "fast_retransmits": self.fast_retransmits,
            "timeouts": self.timeouts,
            "retransmits": self.retransmits,
            "completion_s": self.completion_s,
        }


def replay(
    tcp: str = "newreno",
    drops: Sequence[int] = (),
    packets: int = 100,
    window: int = 64,
    rtt_ms: float = 100.0,
    rate_mbps: float = 10.0,
    buffer: int = 1000,
    initial_window: int = 1,
    granularity: float = 0.01,
    min_rto: float = 0.2,
    max_rto: float = 64.0,
    *,
    a: float = 1.0,
    beta: float = 0.5,
    initial_ssthresh: float = math.inf,
    initial_rto: float = 1.0,
    packet_bytes: int = 1500,
    until: float = 3600.0,
    choices: Choices = MODEL,
) -> Replayed:
    """Replay ``tcplab trace``'s run with these arguments (the same names and defaults as
    :func:`tcplab.packet.run_trace`) by the rules; ``choices`` as in :class:`Choices`."""
    check_choice("tcp", tcp, ("tahoe", "reno", "newreno", "aimd"))
    check_range("a", a, 0.0, low_open=True)
    check_range("beta", beta, 0.0, 1.0, low_open=True, high_open=True)
    check_range("min_rto", min_rto, 0.0, low_open=True)
    check_range("max_rto", max_rto, min_rto)
    packets = check_int("packets", packets, 1)
    losses = Counter(check_int("drop", seq, 0, packets - 1) for seq in drops)
    sender = _Replay(
        tcp, losses, packets, check_int("window", window, 1),
        check_range("rtt_ms", rtt_ms, 0.0) / 2e3,
        packet_bytes * 8 / (check_range("rate_mbps", rate_mbps, 0.0, low_open=True) * 1e6),
        check_int("buffer", buffer, 1), check_int("initial_window", initial_window, 1, window),
        check_range("granularity", granularity, 0.0, low_open=True), min_rto, max_rto,
        a, beta, initial_ssthresh, initial_rto, choices,
    )  # fmt: skip
    return sender.run(until)


class _Replay:
    """One sender, its path and its receiver, advanced happening by happening."""

    def __init__(
        self, tcp: str, losses: Counter[int], packets: int, rwnd: int, half_rtt: float,
        tau: float, buffer: int, initial_window: int, g: float, min_rto: float,
        max_rto: float, a: float, beta: float, ssthresh: float, rto: float, choices: Choices,
    ) -> None:  # fmt: skip
        self.tcp, self.losses, self.packets, self.rwnd = tcp, losses, packets, rwnd
        self.half_rtt, self.tau, self.buffer = half_rtt, tau, buffer
        self.g, self.min_rto, self.max_rto = g, min_rto, max_rto
        self.a, self.beta, self.choices = a, beta, choices
        self.now = 0.0
        self.agenda: list[tuple[float, int, str, int]] = []
        self.order = itertools.count()
        self.rows: list[tuple] = []
        # the path: departure times of the packets in the link, and when it is next free
        self.in_link: deque[float] = deque()
        self.link_free = 0.0
        # the receiver: the next packet it expects, and what it holds beyond it
        self.expected, self.held = 0, set[int]()
        # the sender, in RFC 5681's names; packets are numbered from 0
        self.cwnd, self.ssthresh = float(initial_window), float(ssthresh)
        self.snd_una = self.snd_nxt = self.high = 0  # high: one above the highest sent
        self.dupacks, self.recovering, self.recover = 0, False, -1
        self.srtt: float | None = None
        self.rttvar, self.base_rto, self.backoff = 0.0, rto, 1
        self.timed: tuple[int, float] | None = None  # (packet, sent at): one timed at a time
        self.deadline: float | None = None
        self.timer_id = 0
        self.timer_resent: set[int] = set()  # packets the timer has retransmitted
        self.fast_retransmits = self.timeouts = self.retransmits = 0
        self.done: float | None = None

    # -- the agenda ---------------------------------------------------------------------------
    def at(self, time: float, what: str, value: int) -> None:
        heapq.heappush(self.agenda, (time, next(self.order), what, value))

    def run(self, until: float) -> Replayed:
        self.send_what_the_window_allows()
        while self.agenda and self.done is None:
            time, _, what, value = heapq.heappop(self.agenda)
            if time > until:
                break
            self.now = time
            if what == "data":
                self.receive(value)
            elif what == "ack":
                self.on_ack(value)
            elif value == self.timer_id and self.deadline is not None:
                self.on_timeout()
        events = pd.DataFrame(self.rows, columns=list(COLUMNS)).astype(
            {"time": float, "seq": "int64", "cwnd": float, "ssthresh": float, "rto": float}
        )
        events["rtt_sample"] = events["rtt_sample"].astype(float)
        return Replayed(events, self.fast_retransmits, self.timeouts, self.retransmits, self.done)

    def log(self, event: str, seq: int, rtt: float | None = None) -> None:
        rtt_sample = math.nan if rtt is None else rtt
        self.rows.append((self.now, event, seq, self.cwnd, self.ssthresh, self.rto, rtt_sample))

    # -- the path and the receiver --------------------------------------------------------------
    def offer(self, seq: int) -> None:
        """The packet leaves the sender: the loss script, then the link's FIFO and buffer."""
        if self.losses[seq]:
            self.losses[seq] -= 1
            return
        while self.in_link and self.in_link[0] <= self.now:
            self.in_link.popleft()
        if len(self.in_link) - 1 >= self.buffer:  # waiting, the one in service excluded
            return
        leaves = max(self.now, self.link_free) + self.tau
        self.link_free = leaves
        self.in_link.append(leaves)
        self.at(leaves + self.half_rtt, "data", seq)

    def receive(self, seq: int) -> None:
        """A cumulative ACK for every arriving packet: the next packet the receiver expects."""
        if seq == self.expected:
            self.expected += 1
            while self.expected in self.held:
                self.held.remove(self.expected)
                self.expected += 1
        elif seq > self.expected:
            self.held.add(seq)
        self.at(self.now + self.half_rtt, "ack", self.expected)

    # -- the timer (RFC 6298) ----------------------------------------------------------------
    @property
    def rto(self) -> float:
        return min(self.base_rto * self.backoff, self.max_rto)

    def start_timer(self) -> None:
        """(5.1), (5.3): the timer runs out one RTO from now."""
        self.deadline = self.now + self.rto
        self.timer_id += 1
        self.at(self.deadline, "timer", self.timer_id)

    def measure(self, r: float) -> None:
        """(2.2), (2.3): SRTT and RTTVAR from the sample r; (2.4) RTO = SRTT + max(G, K RTTVAR),
        K = 4, rounded up to a multiple of G (documented), clamped to [min_rto, max_rto]."""
        if self.srtt is None:
            self.srtt, self.rttvar = r, r / 2
        else:
            self.rttvar = (1 - 1 / 4) * self.rttvar + 1 / 4 * abs(self.srtt - r)
            self.srtt = (1 - 1 / 8) * self.srtt + 1 / 8 * r
        rto = self.srtt + max(self.g, 4 * self.rttvar)
        rto = self.g * math.ceil(rto / self.g - 1e-9)
        self.base_rto = min(max(rto, self.min_rto), self.max_rto)
        self.backoff = 1  # a new sample ends the back-off (5.7, Karn)

    # -- sending -------------------------------------------------------------------------------
    def transmit(self, seq: int) -> None:
        if seq >= self.high:
            self.log("send", seq)
            self.high = seq + 1
            if self.timed is None:  # Karn: only a packet sent once is timed
                self.timed = (seq, self.now)
        else:
            self.log("retransmit", seq)
            self.retransmits += 1
        if self.deadline is None:
            self.start_timer()  # (5.1)
        self.offer(seq)

    def send_what_the_window_allows(self) -> None:
        """RFC 5681 3: nothing beyond snd_una + min(cwnd, rwnd), nor beyond the transfer."""
        if self.done is not None:
            return
        limit = min(self.snd_una + min(math.floor(self.cwnd), self.rwnd), self.packets)
        while self.snd_nxt < limit:
            self.transmit(self.snd_nxt)
            self.snd_nxt += 1

    # -- loss responses ------------------------------------------------------------------------
    def new_ssthresh(self, by_timer: bool) -> None:
        """RFC 5681 eq. (4) (the window per :class:`Choices`); ``recover`` (RFC 6582 3.2 step
        1) is the highest packet sent; Karn: the packet being timed is no longer timed."""
        if not (by_timer and self.choices.repeated_timeout == "hold"
                and self.snd_una in self.timer_resent):  # fmt: skip
            if self.choices.cut == "flight":
                window = float(self.high - self.snd_una)
            else:  # the window before any fast-recovery inflation
                window = min(self.cwnd, self.ssthresh) if self.recovering else self.cwnd
            self.ssthresh = max(self.beta * window, 2.0)
        self.recover = self.high - 1
        self.timed = None

    def fast_retransmit(self) -> None:
        """RFC 5681 3.2 steps 2-4; Tahoe restarts from one packet (Jacobson 1988)."""
        self.fast_retransmits += 1
        self.new_ssthresh(by_timer=False)
        if self.tcp == "tahoe":
            self.cwnd, self.snd_nxt = 1.0, self.snd_una
            self.log("fast_retransmit", self.snd_una)
            if self.choices.restart_at_fast_retransmit:
                self.start_timer()
            self.send_what_the_window_allows()  # goes back N: resends snd_una first
            return
        self.cwnd, self.recovering = self.ssthresh + 3.0, True
        self.log("fast_retransmit", self.snd_una)
        self.transmit(self.snd_una)
        if self.choices.restart_at_fast_retransmit:
            self.start_timer()
        self.send_what_the_window_allows()

    def on_timeout(self) -> None:
        """RFC 6298 5.4-5.6 and RFC 5681 3.1: ssthresh, cwnd = 1, the RTO doubled (up to
        max_rto), and go back N from the first unacknowledged packet."""
        self.timeouts += 1
        self.new_ssthresh(by_timer=True)
        self.cwnd = 1.0
        if self.base_rto * self.backoff < self.max_rto:
            self.backoff *= 2
        self.recovering, self.dupacks = False, 0
        self.snd_nxt, self.deadline = self.snd_una, None
        self.timer_resent.add(self.snd_una)
        self.log("timeout", self.snd_una)
        self.send_what_the_window_allows()

    # -- ACKs ----------------------------------------------------------------------------------
    def on_ack(self, ack: int) -> None:
        if self.done is not None:
            return
        if ack > self.snd_una:
            self.new_ack(ack)
        elif ack == self.snd_una and self.snd_una < self.high:
            self.duplicate_ack(ack)

    def new_ack(self, ack: int) -> None:
        newly, self.snd_una = ack - self.snd_una, ack
        self.snd_nxt = max(self.snd_nxt, ack)
        sample = None
        if self.timed is not None and self.timed[0] < ack:
            sample = self.now - self.timed[1]
            self.measure(sample)
            self.timed = None
        hole = None
        if self.recovering and (ack > self.recover or self.tcp == "reno"):
            # RFC 5681 3.2 step 6 (Reno: any new ACK), RFC 6582 3.2 step 3 (a full ACK)
            event, self.recovering, self.cwnd = "recovery_exit", False, self.ssthresh
        elif self.recovering:  # RFC 6582 3.2 step 3: a partial ACK
            event, hole = "partial_ack", ack
            self.cwnd = max(self.cwnd - newly + 1.0, 1.0)  # deflate, add back one packet
        elif self.cwnd < self.ssthresh:  # RFC 5681 3.1: slow start
            event, self.cwnd = "ack", self.cwnd + 1.0
        else:  # congestion avoidance: a packets per round trip
            event, self.cwnd = "ack", self.cwnd + self.a / self.cwnd
        self.cwnd = min(self.cwnd, float(self.rwnd))
        self.dupacks = 0
        self.log(event, ack, sample)
        if hole is not None:
            self.transmit(hole)  # the first unacknowledged packet, at once
        if ack >= self.high:  # (5.2): all data acknowledged, the timer stops
            self.deadline = None
            if ack >= self.packets:
                self.done = self.now
                return
        else:
            self.start_timer()  # (5.3)
        self.send_what_the_window_allows()

    def duplicate_ack(self, ack: int) -> None:
        self.dupacks += 1
        if self.recovering:  # RFC 5681 3.2 step 5: each further dupACK inflates cwnd
            self.cwnd += 1.0
            self.log("dupack", ack)
            self.send_what_the_window_allows()
            return
        self.log("dupack", ack)
        # step 2: the third dupACK; RFC 6582 (and Tahoe) only above ``recover``, Reno always
        if self.dupacks == 3 and (ack > self.recover or self.tcp == "reno"):
            self.fast_retransmit()


def first_difference(model: pd.DataFrame, rules: pd.DataFrame, atol: float = 1e-9) -> str | None:
    """Where two event logs part (the model's and the replay's), in words; None if they agree:
    the same events, packets and windows, times within ``atol`` seconds (the same sums of
    floats taken in another order) and the rest to a relative 1e-12."""
    for i in range(min(len(model), len(rules))):
        a, b = model.iloc[i], rules.iloc[i]
        same = (
            a["event"] == b["event"]
            and a["seq"] == b["seq"]
            and abs(a["time"] - b["time"]) <= atol
            and all(_close(a[c], b[c]) for c in ("cwnd", "ssthresh", "rto", "rtt_sample"))
        )
        if not same:
            return f"row {i}: model {_row(a)}, rules {_row(b)}"
    if len(model) != len(rules):
        return f"the model logs {len(model)} events, the rules {len(rules)}"
    return None


def _close(x: float, y: float) -> bool:
    if math.isnan(x) or math.isnan(y):
        return math.isnan(x) and math.isnan(y)
    return x == y or abs(x - y) <= 1e-12 * max(abs(x), abs(y))


def _row(row: pd.Series) -> str:
    return (
        f"t={row['time']:.6f} {row['event']} {row['seq']} cwnd={row['cwnd']:.4g} "
        f"ssthresh={row['ssthresh']:.4g} rto={row['rto']:.4g}"
    )
