"""A sender's event log: every transmission, ACK and loss response, with the state after it.

:class:`RecordingSender` is a :class:`~tcplab.packet.tcp.TcpSender` that writes one row per
event into an :class:`EventLog`. The plain sender holds no recording code at all, so the runs
that do not ask for a log pay nothing for it. The recorder classifies an ACK by what the
sender *did* with it (the state before and after), never by re-deriving the sender's rules,
so a change to a rule shows up in the log instead of being hidden by a second copy of it.

The events, in the order they happen at one instant:

* ``ack``, ``dupack``, ``partial_ack``, ``recovery_exit``: an ACK arrived; ``seq`` is the
  cumulative ACK (the next packet the receiver expects). ``partial_ack`` is a new ACK that
  leaves NewReno in fast recovery, ``recovery_exit`` one that ends it; ``rtt_sample`` is the
  RTT measured on this ACK, if one was;
* ``fast_retransmit`` (after the ``dupack`` that caused it) and ``timeout``: a loss response;
  ``seq`` is the packet it retransmits, the state is after the window cut;
* ``send`` and ``retransmit``: a packet leaves (new data or not); every retransmission,
  fast retransmissions included, is one ``retransmit`` row.

``cwnd``, ``ssthresh`` and ``rto`` are the values after the event (``ssthresh`` is ``inf``
until the first loss). ACKs that change nothing (the sender has stopped, or nothing is
outstanding) are not logged.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from .sched import Call
from .tcp import TcpSender

__all__ = ["EVENTS", "EventLog", "RecordingSender"]

#: every event name a log can hold
EVENTS = (
    "send",
    "retransmit",
    "ack",
    "dupack",
    "fast_retransmit",
    "partial_ack",
    "recovery_exit",
    "timeout",
)
COLUMNS = ("time", "event", "seq", "cwnd", "ssthresh", "rto", "rtt_sample")

Row = tuple[float, str, int, float, float, float, float | None]


class EventLog:
    """Rows ``(time, event, seq, cwnd, ssthresh, rto, rtt_sample)`` in the order they happened."""

    def __init__(self) -> None:
        self.rows: list[Row] = []

    def __len__(self) -> int:
        return len(self.rows)

    def frame(self) -> pd.DataFrame:
        """The log as a tidy DataFrame (``rtt_sample`` is NaN where no sample was taken)."""
        if not self.rows:
            return pd.DataFrame({c: pd.Series(dtype=_DTYPES[c]) for c in COLUMNS})
        columns = list(zip(*self.rows, strict=True))
        table = {c: np.asarray(v, dtype=_DTYPES[c]) for c, v in zip(COLUMNS, columns, strict=True)}
        table["rtt_sample"] = np.array([np.nan if v is None else v for v in columns[-1]])
        return pd.DataFrame(table)

    def records(self) -> list[dict[str, Any]]:
        """The log as JSON-ready dicts: ``t`` for the time, ``None`` for an infinite ``ssthresh``
        and for ``rtt_sample`` where no sample was taken."""
        return [
            {
                "t": float(t),
                "event": event,
                "seq": seq,
                "cwnd": cwnd,
                "ssthresh": None if ssthresh == float("inf") else ssthresh,
                "rto": rto,
                "rtt_sample": rtt,
            }
            for t, event, seq, cwnd, ssthresh, rto, rtt in self.rows
        ]


_DTYPES = {
    "time": float,
    "event": object,
    "seq": np.int64,
    "cwnd": float,
    "ssthresh": float,
    "rto": float,
    "rtt_sample": float,
}


class RecordingSender(TcpSender):
    """A :class:`TcpSender` that logs every event in ``self.log`` (see the module docstring).

    Takes the sender's arguments, plus ``log`` (an :class:`EventLog` to append to; a new one
    by default).
    """

    def __init__(self, *args: Any, log: EventLog | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.log = EventLog() if log is None else log
        self._sample: float | None = None  # RTT sample taken by the ACK being processed
        self._third_dupack: Row | None = None  # the dupack row, taken before its fast retransmit

    def _row(self, event: str, seq: int, rtt: float | None = None) -> Row:
        return (self.env._now, event, seq, self.cwnd, self.ssthresh, self.rto, rtt)

    def _transmit(self, seq: int) -> None:
        self.log.rows.append(self._row("send" if seq >= self.maxseq else "retransmit", seq))
        super()._transmit(seq)

    def _rtt_sample(self, rtt: float) -> None:
        self._sample = rtt
        super()._rtt_sample(rtt)

    def _timeout(self) -> None:
        at = len(self.log.rows)  # the time-out row goes before the retransmissions it causes
        super()._timeout()
        self.log.rows.insert(at, self._row("timeout", self.snd_una))

    def _fast_retransmit(self) -> None:
        self._third_dupack = self._row("dupack", self.snd_una)
        at = len(self.log.rows)
        super()._fast_retransmit()
        self.log.rows.insert(at, self._row("fast_retransmit", self.snd_una))

    def on_ack(self, event: Call) -> None:
        if self.stopped:
            return super().on_ack(event)
        ack = event._value[1]
        una, recovering, dupacks = self.snd_una, self.in_recovery, self.dupacks
        self._sample, self._third_dupack = None, None
        at = len(self.log.rows)  # the ACK row goes before everything it causes
        super().on_ack(event)
        if self.snd_una > una:
            if not recovering:
                kind = "ack"
            else:
                kind = "partial_ack" if self.in_recovery else "recovery_exit"
            row = self._row(kind, ack, self._sample)
        elif self.dupacks > dupacks:
            row = self._third_dupack or self._row("dupack", ack)
        else:
            return
        self.log.rows.insert(at, row)
