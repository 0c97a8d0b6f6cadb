"""TCP senders (Tahoe, Reno, NewReno, weighted AIMD) and a cumulative-ACK receiver.

Windows are counted in packets, sequence numbers number packets. Every variant is an AIMD
controller: ``a`` packets added per RTT in congestion avoidance, the window multiplied by
``beta`` on a loss (the fluid model's beta; Honda's AIMD(a, b) is ``beta = 1 - b``); standard
TCP is ``a=1, beta=0.5``. Losses are found by three duplicate ACKs
(fast retransmit, then Reno/NewReno fast recovery, or a Tahoe restart) or by the retransmission
timer, whose value is rounded up to the timer granularity and doubles on each expiry (Karn).
A sender is greedy (always backlogged) unless ``TcpConfig.packets`` makes it a finite transfer.

The model follows RFC 5681 (slow start, congestion avoidance, fast retransmit, Reno fast
recovery), RFC 6582 (NewReno), RFC 6298 (the timer) and, for Tahoe, Jacobson (1988) with
4.3BSD-Tahoe's fast retransmit; ``tests/test_tcp_rfc.py`` and ``tests/test_tcp_rto.py``
check traces against each rule. Where it departs from them, on purpose (these are the ns-2
and 4.4BSD choices the papers' simulations made, and each is tested as written here):

* the loss response halves ``cwnd``, not RFC 5681's FlightSize: ``ssthresh = max(beta w, 2)``
  with ``w`` the window before any fast-recovery inflation (ns-2, 4.4BSD, and the AIMD(a, b)
  model). The two agree when ``cwnd`` is a whole number of packets, all in flight;
* a time-out that repeats before any ACK sets ``ssthresh`` to its floor of 2 (the window is
  then 1), where RFC 5681 holds it at its value after the first time-out;
* the RTO is ``srtt + max(G, 4 rttvar)`` rounded *up* to a multiple of the granularity ``G``,
  then clamped to ``[min_rto, max_rto]`` (``min_rto`` defaults to Linux's 0.2 s, not RFC
  6298's 1 s); the timer restarts on every ACK of new data, partial ACKs included (RFC 6298
  rule 5.3: RFC 6582's "Slow-but-Steady" variant, where its step 3 restarts it only at the
  first partial ACK), and at a fast retransmit (4.4BSD, ns-2; an option turns this off);
* one packet is timed at a time and the timing is abandoned at every loss response, which
  is Karn's rule and a little stricter; a backed-off RTO stays until the next RTT sample;
* Reno is RFC 5681 fast recovery without RFC 6582's ``recover`` check, so a second fast
  retransmit can follow (Fall and Floyd's Reno); Tahoe and NewReno apply the check;
* a partial ACK never deflates ``cwnd`` below one packet. The initial window is 1 (RFC 5681
  allows up to 3 packets of 1500 B); there is no limited transmit (RFC 3042). SACK
  (``variant="sack"``, RFC 2018 and RFC 6675) is :mod:`tcplab.packet.sack`'s sender and
  receiver, subclasses of these.
"""

from __future__ import annotations

import math
import sys
from array import array
from collections.abc import Callable
from dataclasses import dataclass

import simpy

from ..checks import check_choice, check_int, check_range
from .sched import NORMAL, Call

__all__ = ["TcpConfig", "TcpSender", "Receiver", "VARIANTS"]

VARIANTS = ("tahoe", "reno", "newreno", "aimd", "sack")


@dataclass(frozen=True)
class TcpConfig:
    """Sender parameters. ``variant='aimd'`` is NewReno with the given ``a`` and ``beta``;
    ``'sack'`` is NewReno's window with SACK loss recovery (:mod:`tcplab.packet.sack`); the
    other variants also honour ``a``/``beta`` (defaults give standard TCP).

    The RTO is ``srtt + max(granularity, 4 rttvar)`` rounded up to a multiple of
    ``granularity`` and clamped to ``[min_rto, max_rto]``; before the first RTT sample it is
    ``initial_rto``; it restarts at a fast retransmit (4.4BSD, ns-2) unless
    ``restart_rto_at_fast_retransmit`` is False (RFC 6298 5.3 alone: ns-3's timer). Morris
    (1997) used a 0.5 s granularity. ``max_window`` is the receiver's window: at most that
    many packets in flight. ``packets`` makes a finite transfer: the
    sender sends that many new packets in all (a transfer of ``n`` bytes is
    ``ceil(n / packet_bytes)`` packets) and stops when all are acknowledged; ``None`` (the
    default) is a greedy sender.
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
    packets: int | None = None
    restart_rto_at_fast_retransmit: bool = True

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
        if self.packets is not None:
            check_int("packets", self.packets, 1)
        if not isinstance(self.restart_rto_at_fast_retransmit, bool):
            value = self.restart_rto_at_fast_retransmit
            raise ValueError(f"restart_rto_at_fast_retransmit={value!r} must be True or False")


class TcpSender:
    """A sender, greedy unless ``config.packets`` is set. ``output(packet)`` injects a packet
    now; ACKs come back through :meth:`on_ack` as events carrying ``(flow, next_expected_seq,
    nbytes)``. A finite transfer records ``completed_at`` (the time its last packet is
    acknowledged), then stops and calls ``on_complete(sender)`` if that is set.

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
        if config.variant == "sack" and not getattr(self, "sack", False):
            raise ValueError("variant='sack' needs tcplab.packet.sack.SackSender (see endpoints)")
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
        self._end = sys.maxsize if config.packets is None else config.packets
        self.completed_at: float | None = None
        self.on_complete: Callable[[TcpSender], object] | None = None
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
        recovery) over the smoothed RTT; 0 before the first RTT sample and after a finite
        transfer ends."""
        if self.srtt is None or self.completed_at is not None:
            return 0.0
        window = min(self.cwnd, self.ssthresh) if self.in_recovery else self.cwnd
        return window / self.srtt

    def set_aimd(self, a: float, beta: float) -> None:
        """Change the AIMD parameters while the sender runs (a controller's knob, e.g. BMC's
        weight D as ``a = D^2, beta = 1/2``): from the next ACK on, congestion avoidance adds
        ``a`` packets per RTT and a loss multiplies the window by ``beta``. ``config`` keeps
        the starting values."""
        self._a = check_range("a", a, 0.0, low_open=True)
        self._keep = check_range("beta", beta, 0.0, 1.0, low_open=True, high_open=True)

    @property
    def aimd(self) -> tuple[float, float]:
        """The AIMD parameters in use now: ``(a, beta)``."""
        return self._a, self._keep

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
        if limit > self._end:  # a finite transfer has nothing new beyond its last packet
            limit = self._end
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
        if self.config.restart_rto_at_fast_retransmit:
            self._arm()
        self._note_cwnd()
        self._send_window()

    def _finish(self) -> None:
        self.completed_at = self.env._now
        self.stopped = True
        if self.on_complete is not None:
            self.on_complete(self)

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
                else:  # NewReno partial ACK: deflate (capped as below), retransmit the hole
                    self.cwnd = min(max(self.cwnd - newly + 1.0, 1.0), float(self._maxw))
                    self._transmit(ack)
            elif self.cwnd < self.ssthresh:
                self.cwnd += 1.0
            else:
                self.cwnd += self._a / self.cwnd
            if self.cwnd > self._maxw:
                self.cwnd = float(self._maxw)
            self.dupacks = 0
            self._note_cwnd()
            if ack >= self.maxseq:  # nothing outstanding: the timer stops (RFC 6298, 5.2)
                self._deadline = None
                if ack >= self._end:
                    self._finish()
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
