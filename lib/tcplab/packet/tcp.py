"""TCP senders (Tahoe, Reno, NewReno, weighted AIMD) and a cumulative-ACK receiver.

Windows are counted in packets, sequence numbers number packets. Every variant is an AIMD
controller: ``a`` packets added per RTT in congestion avoidance, the window multiplied by
``beta`` on a loss (the fluid model's beta; Honda's AIMD(a, b) is ``beta = 1 - b``); standard
TCP is ``a=1, beta=0.5``. Losses are found by three duplicate ACKs
(fast retransmit, then Reno/NewReno fast recovery, or a Tahoe restart) or by the retransmission
timer, whose value is rounded up to the timer granularity and doubles on each expiry (Karn).
"""

from __future__ import annotations

import math
from array import array
from collections.abc import Callable
from dataclasses import dataclass

import simpy

from ..checks import check_choice, check_int, check_range
from .sched import NORMAL, Call

__all__ = ["TcpConfig", "TcpSender", "Receiver", "VARIANTS"]

VARIANTS = ("tahoe", "reno", "newreno", "aimd")


@dataclass(frozen=True)
class TcpConfig:
    """Sender parameters. ``variant='aimd'`` is NewReno with the given ``a`` and ``b``; the
    other variants also honour ``a``/``beta`` (defaults give standard TCP).

    The RTO is ``srtt + max(granularity, 4 rttvar)`` rounded up to a multiple of
    ``granularity`` and clamped to ``[min_rto, max_rto]``; before the first RTT sample it is
    ``initial_rto``. Morris (1997) used a 0.5 s granularity.
    """

    variant: str = "newreno"
    a: float = 1.0
    beta: float = 0.5
    packet_bytes: int = 1500
    max_window: int = 20_000
    initial_window: int = 1
    initial_ssthresh: float = math.inf
    granularity: float = 0.01
    min_rto: float = 0.2
    max_rto: float = 64.0
    initial_rto: float = 1.0

    def __post_init__(self) -> None:
        check_choice("tcp", self.variant, VARIANTS)
        check_range("a", self.a, 0.0, low_open=True)
        check_range("beta", self.beta, 0.0, 1.0, low_open=True, high_open=True)
        check_int("packet_bytes", self.packet_bytes, 1)
        check_int("max_window", self.max_window, 1)
        check_int("initial_window", self.initial_window, 1, self.max_window)
        if self.initial_ssthresh != math.inf:
            check_range("initial_ssthresh", self.initial_ssthresh, 2.0)
        check_range("granularity", self.granularity, 0.0, low_open=True)
        check_range("min_rto", self.min_rto, 0.0, low_open=True)
        check_range("max_rto", self.max_rto, self.min_rto)
        check_range("initial_rto", self.initial_rto, 0.0, low_open=True)


class TcpSender:
    """A greedy (always backlogged) sender. ``output(packet)`` injects a packet now; ACKs come
    back through :meth:`on_ack` as events carrying ``(flow, next_expected_seq, nbytes)``.

    With ``trace=True`` every change of ``cwnd`` is recorded with its time (event sampled).
    """

    def __init__(
        self,
        env: simpy.Environment,
        flow: int,
        config: TcpConfig,
        output: Callable[[tuple[int, int, int]], object],
        *,
        trace: bool = False,
    ) -> None:
        self.env, self.flow, self.config, self.output = env, flow, config, output
        self._a, self._keep = config.a, config.beta
        self._maxw = config.max_window
        self._nbytes = config.packet_bytes
        self._newreno = config.variant in ("newreno", "aimd")
        self._tahoe = config.variant == "tahoe"
        self.cwnd = float(config.initial_window)
        self.ssthresh = float(config.initial_ssthresh)
        self.snd_una = 0  # lowest unacknowledged packet
        self.snd_nxt = 0  # next packet to send (falls back after a timeout)
        self.maxseq = 0  # one above the highest packet ever sent
        self.dupacks = 0
        self.in_recovery = False
        self.recover = -1  # highest packet sent when the last loss response started
        self.srtt: float | None = None
        self.rttvar = 0.0
        self.base_rto = config.initial_rto
        self.backoff = 1
        self._timing_seq = -1  # packet being timed for an RTT sample, -1 if none
        self._timing_sent = 0.0
        self._deadline: float | None = None
        self._timer_at = math.inf
        self.stopped = False
        self.sent = self.retransmits = self.timeouts = self.fast_retransmits = 0
        self.trace = trace
        self.trace_time = array("d")
        self.trace_cwnd = array("d")

    # -- window and timer -------------------------------------------------------------------
    @property
    def rto(self) -> float:
        """The current retransmission time-out, back-off included."""
        return min(self.base_rto * self.backoff, self.config.max_rto)

    @property
    def rate(self) -> float:
        """The current send rate in packets per second: the window (not inflated by fast
        recovery) over the smoothed RTT; 0 before the first RTT sample."""
        if self.srtt is None:
            return 0.0
        window = min(self.cwnd, self.ssthresh) if self.in_recovery else self.cwnd
        return window / self.srtt

    def start(self) -> None:
        self._note_cwnd()
        self._send_window()

    def _note_cwnd(self) -> None:
        if self.trace:
            self.trace_time.append(self.env._now)
            self.trace_cwnd.append(self.cwnd)

    def _send_window(self) -> None:
        if self.stopped:
            return
        cwnd = self.cwnd
        limit = self.snd_una + (int(cwnd) if cwnd < self._maxw else self._maxw)
        while self.snd_nxt < limit:
            self._transmit(self.snd_nxt)
            self.snd_nxt += 1

    def _transmit(self, seq: int) -> None:
        if seq >= self.maxseq:
            self.maxseq = seq + 1
            if self._timing_seq < 0:
                self._timing_seq, self._timing_sent = seq, self.env._now
        else:
            self.retransmits += 1
        self.sent += 1
        if self._deadline is None:
            self._arm()
        self.output((self.flow, seq, self._nbytes))

    def _arm(self) -> None:
        deadline = self.env._now + self.rto
        self._deadline = deadline
        if deadline < self._timer_at:  # else the pending timer event re-checks the deadline
            self._timer_at = deadline
            self.env.schedule(Call(self._on_timer, deadline), NORMAL, deadline - self.env._now)

    def _on_timer(self, event: Call) -> None:
        if event._value != self._timer_at:
            return  # superseded by an earlier timer event
        self._timer_at = math.inf
        deadline = self._deadline
        if deadline is None or self.stopped:
            return
        now = self.env._now
        if deadline > now:
            self._timer_at = deadline
            self.env.schedule(Call(self._on_timer, deadline), NORMAL, deadline - now)
        else:
            self._timeout()

    def _rtt_sample(self, rtt: float) -> None:
        if self.srtt is None:
            self.srtt, self.rttvar = rtt, rtt / 2.0
        else:
            self.rttvar += 0.25 * (abs(self.srtt - rtt) - self.rttvar)
            self.srtt += 0.125 * (rtt - self.srtt)
        g = self.config.granularity
        rto = g * math.ceil((self.srtt + max(g, 4.0 * self.rttvar)) / g - 1e-9)
        self.base_rto = min(max(rto, self.config.min_rto), self.config.max_rto)
        self.backoff = 1

    # -- loss responses ---------------------------------------------------------------------
    def _cut(self) -> None:
        # the window to cut: cwnd, except that during fast recovery it is inflated by dupACKs
        window = min(self.cwnd, self.ssthresh) if self.in_recovery else self.cwnd
        self.ssthresh = max(self._keep * window, 2.0)
        self.recover = self.maxseq - 1
        self._timing_seq = -1  # Karn: no RTT sample across a retransmission

    def _timeout(self) -> None:
        self.timeouts += 1
        self._cut()
        self.cwnd = 1.0
        if self.base_rto * self.backoff < self.config.max_rto:
            self.backoff *= 2
        self.in_recovery = False
        self.dupacks = 0
        self.snd_nxt = self.snd_una
        self._deadline = None
        self._note_cwnd()
        self._send_window()  # go back N: retransmits snd_una and re-arms the timer

    def _fast_retransmit(self) -> None:
        self.fast_retransmits += 1
        self._cut()
        if self._tahoe:
            self.cwnd = 1.0
            self.snd_nxt = self.snd_una
        else:
            self.cwnd = self.ssthresh + 3.0
            self.in_recovery = True
            self._transmit(self.snd_una)
        self._arm()
        self._note_cwnd()
        self._send_window()

    # -- ACK processing ---------------------------------------------------------------------
    def on_ack(self, event: Call) -> None:
        ack = event._value[1]
        if self.stopped:
            return
        if ack > self.snd_una:
            newly = ack - self.snd_una
            self.snd_una = ack
            if self.snd_nxt < ack:
                self.snd_nxt = ack
            if 0 <= self._timing_seq < ack:
                self._rtt_sample(self.env._now - self._timing_sent)
                self._timing_seq = -1
            if self.in_recovery:
                if ack > self.recover or not self._newreno:
                    self.in_recovery = False
                    self.cwnd = self.ssthresh
                else:  # NewReno partial ACK: retransmit the next hole, deflate
                    self._transmit(ack)
                    self.cwnd = max(self.cwnd - newly + 1.0, 1.0)
            elif self.cwnd < self.ssthresh:
                self.cwnd += 1.0
            else:
                self.cwnd += self._a / self.cwnd
            if self.cwnd > self._maxw:
                self.cwnd = float(self._maxw)
            self.dupacks = 0
            self._note_cwnd()
            if ack >= self.maxseq:
                self._deadline = None
            else:
                self._arm()
            self._send_window()
        elif ack == self.snd_una and self.snd_una < self.maxseq:
            self.dupacks += 1
            if self.in_recovery:
                self.cwnd += 1.0
                self._note_cwnd()
                self._send_window()
            elif self.dupacks == 3 and (ack > self.recover or self.config.variant == "reno"):
                self._fast_retransmit()


class Receiver:
    """Cumulative ACKs sent back through ``ack_path``: one per arriving packet, or with
    ``delayed_ack`` (seconds) one per two in-order packets, at most ``delayed_ack`` late, and
    at once for a packet out of order or one that fills a hole (RFC 1122/5681 style).

    ``delivered`` counts packets handed to the application in order, ``unique`` the first
    arrival of each packet (the goodput count: a packet buffered out of order counts when it
    arrives), ``received`` every arrival, duplicates included.
    """

    def __init__(
        self,
        env: simpy.Environment,
        flow: int,
        ack_path: Callable[[tuple[int, int, int]], object],
        ack_bytes: int = 40,
        delayed_ack: float | None = None,
    ) -> None:
        self.env, self.flow, self.ack_path, self.ack_bytes = env, flow, ack_path, ack_bytes
        if delayed_ack is not None:
            delayed_ack = check_range("delayed_ack", delayed_ack, 0.0, low_open=True)
        self.delayed_ack = delayed_ack
        self._held = 0  # in-order packets not yet ACKed (delayed ACK)
        self._acks_sent = 0
        self.next_expected = 0
        self.received = 0
        self.unique = 0
        self._out_of_order: set[int] = set()

    @property
    def delivered(self) -> int:
        return self.next_expected

    def on_packet(self, event: Call) -> None:
        seq = event._value[1]
        self.received += 1
        nxt = self.next_expected
        if seq == nxt:
            self.unique += 1
            nxt += 1
            ooo = self._out_of_order
            if ooo:
                while nxt in ooo:
                    ooo.remove(nxt)
                    nxt += 1
            self.next_expected = nxt
            if self.delayed_ack is not None and not self._out_of_order and nxt == seq + 1:
                self._held += 1
                if self._held == 1:  # hold the first one and start the delayed-ACK timer
                    delack = Call(self._on_delack, self._acks_sent)
                    self.env.schedule(delack, NORMAL, self.delayed_ack)
                    return
        elif seq > nxt and seq not in self._out_of_order:
            self.unique += 1
            self._out_of_order.add(seq)
        self._ack()

    def _ack(self) -> None:
        self._held = 0
        self._acks_sent += 1
        self.ack_path((self.flow, self.next_expected, self.ack_bytes))

    def _on_delack(self, event: Call) -> None:
        if event._value == self._acks_sent and self._held:  # no ACK went out since it was set
            self._ack()
