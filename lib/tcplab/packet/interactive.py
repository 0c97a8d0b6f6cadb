"""Interactive (telnet-like) sources: a TCP sender whose application writes now and then.

:class:`InteractiveSender` is a :class:`~tcplab.packet.tcp.TcpSender` that is not greedy: its
application hands it one packet at a time, at exponentially distributed gaps (a Poisson
process of keystrokes), like ns-2's ``Application/Telnet`` with its ``interval_`` (mean gap,
1 s by default there). Each write lets the sender send one more new packet; TCP's window, ACKs
and timers work as for any sender, and when everything written is acknowledged the sender
simply waits for the next write (it never finishes). Morris (1997) ran five such sessions
beside his greedy flows "to help avoid deterministic behavior".
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..checks import check_range
from .sched import Call, call_at
from .tcp import TcpSender

__all__ = ["InteractiveSender"]

_BLOCK = 256  # exponential gaps drawn at a time


class InteractiveSender(TcpSender):
    """A sender with nothing to send until :meth:`type_at` schedules its writes.

    Takes :class:`TcpSender`'s arguments (so a :class:`~tcplab.packet.network.Network` can
    build it); ``writes`` counts the packets written so far.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._end = 0  # packets written by the application: the sender may send up to here
        self.writes = 0
        self._rng: np.random.Generator | None = None
        self._mean_gap = 1.0
        self._gaps = np.empty(0)
        self._next_gap = 0

    def type_at(self, start: float, mean_gap: float, rng: np.random.Generator) -> None:
        """Write one packet at ``start`` plus an exponential gap of mean ``mean_gap`` seconds,
        and again after each further gap, drawn from ``rng``, for as long as the run lasts."""
        self._mean_gap = check_range("mean_gap", mean_gap, 0.0, low_open=True)
        self._rng = rng
        start = check_range("start", start, self.env.now)
        call_at(self.env, start + self._gap(), self._write, None)

    def _gap(self) -> float:
        if self._next_gap >= len(self._gaps):
            assert self._rng is not None  # type_at sets it before the first gap
            self._gaps = self._rng.exponential(self._mean_gap, _BLOCK)
            self._next_gap = 0
        self._next_gap += 1
        return float(self._gaps[self._next_gap - 1])

    def _write(self, _event: Call) -> None:
        if self.stopped:  # the run is draining: no more keystrokes
            return
        self.writes += 1
        self._end += 1
        self._send_window()  # sends it if the window allows (and arms the timer)
        call_at(self.env, self.env._now + self._gap(), self._write, None)

    def _finish(self) -> None:
        """Everything written is acknowledged: wait for the next write (never stop)."""
