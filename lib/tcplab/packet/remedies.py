"""Morris's remedies for many flows, as options of a TCP sender (each off by default).

Morris (1997) traces TCP's loss rate with many flows to its abrupt jump from one packet per
time-out back to one or more packets per round trip, and to the fast relative growth of small
windows. He proposes (Section 7.1) larger back-off constants, and a linear decrease of the
inter-packet time after a time-out instead of that jump; (Section 7.2) a window that doubles
at most every 100 packets when it is small; (Section 9) rate control below one packet per
round trip. :class:`RemedyConfig` adds the first three to :class:`~tcplab.packet.tcp.TcpConfig`
and :class:`RemedySender` implements them on top of the plain sender, whose code it does not
copy: with every option off it sends exactly the same packets (tests/test_morris_senders.py).

* ``backoff_factor = k``: each repeated time-out multiplies the time-out by k instead of 2
  (it stays capped at ``max_rto``).
* ``pace_steps = K``: after a time-out of T seconds the sender sends its retransmission, then
  one packet at a time, each acknowledged before the next, the gaps between them falling
  linearly, T(1 - 1/K), T(1 - 2/K), ..., until a gap is down to its smoothed RTT; then windows
  and slow start resume (K = 1 is standard TCP). A time-out during the ramp restarts it from
  twice the current gap or the expired time-out, whichever is longer: the interval backs off
  exponentially and recovers linearly, "the same exponential/linear approach for retransmit
  backoff as for window size" (Sec. 9).
* ``doubling_packets = D``: the window grows by at most a factor 2^(acked/D) for ``acked``
  packets acknowledged, i.e. it doubles at most every D packets. Standard TCP's increase is
  kept when it is smaller, so the cap binds only for small windows (in congestion avoidance
  with delayed ACKs, below about 8.5 packets for D = 100; in slow start below about 72).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from ..checks import check_choice, check_int, check_range
from .sched import Call, call_at
from .tcp import TcpConfig, TcpSender

__all__ = ["RemedyConfig", "RemedySender", "REMEDIES", "remedy_config"]

#: the chapter's settings of each remedy, by name (``tcplab morris --tcp tahoe-<name>``)
REMEDIES: dict[str, dict[str, Any]] = {
    "backoff4": {"backoff_factor": 4.0},
    "paced": {"pace_steps": 4},
    "slowgrowth": {"doubling_packets": 100.0},
}


@dataclass(frozen=True)
class RemedyConfig(TcpConfig):
    """:class:`TcpConfig` plus Morris's remedies (see the module docstring); the defaults
    (``backoff_factor`` 2, ``pace_steps`` 0, ``doubling_packets`` None) are standard TCP."""

    backoff_factor: float = 2.0
    pace_steps: int = 0
    doubling_packets: float | None = None

    def __post_init__(self) -> None:
        super().__post_init__()
        check_range("backoff_factor", self.backoff_factor, 1.0, 64.0, low_open=True)
        check_int("pace_steps", self.pace_steps, 0, 1000)
        if self.doubling_packets is not None:
            check_range("doubling_packets", self.doubling_packets, 0.0, low_open=True)

    @property
    def remedies(self) -> tuple[str, ...]:
        """The names of the remedies switched on."""
        on = []
        if self.backoff_factor != 2.0:
            on.append("backoff")
        if self.pace_steps:
            on.append("paced")
        if self.doubling_packets is not None:
            on.append("slowgrowth")
        return tuple(on)


def remedy_config(name: str, base: TcpConfig) -> RemedyConfig:
    """``base`` with the remedy ``name`` of :data:`REMEDIES` switched on."""
    check_choice("remedy", name, REMEDIES)
    fields = {f: getattr(base, f) for f in TcpConfig.__dataclass_fields__}
    return RemedyConfig(**fields, **REMEDIES[name])


class RemedySender(TcpSender):
    """A :class:`TcpSender` with the remedies its :class:`RemedyConfig` switches on (a plain
    :class:`TcpConfig` gives standard TCP)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        config = self.config
        self._factor = float(getattr(config, "backoff_factor", 2.0))
        self._steps = int(getattr(config, "pace_steps", 0))
        doubling = getattr(config, "doubling_packets", None)
        self._ln2_per_packet = None if doubling is None else math.log(2.0) / doubling
        self._gap = 0.0  # pacing: the gap before the next packet (0: not pacing)
        self._step = 0.0  # ... and how much shorter each gap is than the one before
        self._next_send = 0.0
        self._wake_at = math.inf  # a pending wake-up of the pacing clock
        self._mark_cwnd = self.cwnd  # growth cap: the window and snd_una at the last send
        self._mark_una = 0
        self.paced = 0  # packets sent while pacing

    @property
    def rto(self) -> float:
        """The current time-out: the base RTO times ``backoff_factor`` per back-off."""
        if self._factor == 2.0:
            return min(self.base_rto * self.backoff, self.config.max_rto)
        exponent = self.backoff.bit_length() - 1
        return min(self.base_rto * self._factor**exponent, self.config.max_rto)

    def _timeout(self) -> None:
        if self._steps:
            expired = self.rto
            interval = max(expired, 2.0 * self._gap)
            self._gap, self._step = interval, interval / self._steps
            self._next_send = self.env._now
        super()._timeout()

    def _send_window(self) -> None:
        if self._ln2_per_packet is not None:
            self._cap_growth()
        if self._gap > 0.0:
            self._send_paced()
            return
        super()._send_window()

    def _cap_growth(self) -> None:
        acked = self.snd_una - self._mark_una
        if self.cwnd > self._mark_cwnd and not self.in_recovery:
            assert self._ln2_per_packet is not None
            allowed = self._mark_cwnd * math.exp(self._ln2_per_packet * acked)
            if self.cwnd > allowed:
                self.cwnd = allowed
        self._mark_cwnd, self._mark_una = self.cwnd, self.snd_una

    def _send_paced(self) -> None:
        """One packet at a time, and not before the pacing clock allows."""
        if self.stopped:
            return
        self.cwnd = 1.0  # the window stays one packet until the ramp ends
        if self.snd_nxt > self.snd_una or self.snd_nxt >= self._end:
            return  # a packet is outstanding (or nothing to send): its ACK comes back here
        now = self.env._now
        if now < self._next_send:
            self._deadline = None  # nothing outstanding: no timer while the clock waits
            if self._wake_at != self._next_send:
                self._wake_at = self._next_send
                call_at(self.env, self._next_send, self._wake, self._next_send)
            return
        self._gap -= self._step
        srtt = self.srtt if self.srtt is not None else 0.0
        if self._gap <= srtt:
            self._gap = 0.0  # down to one packet per round trip: windows resume
        self._next_send = now + self._gap
        self.paced += 1
        self._transmit(self.snd_nxt)
        self.snd_nxt += 1

    def _wake(self, event: Call) -> None:
        if event._value == self._wake_at:
            self._wake_at = math.inf
            self._send_window()
