"""Probes for runs with many flows: every loss response of a sender, every drop of a queue.

:class:`LossRecorder` is a sender mixin that logs each loss response (fast retransmit or
time-out) with the window it cut, and for a time-out how long the timer waited and its
back-off stage: stage i is a time-out backed off i times (2^i times the base time-out, Morris's
"2^i second time-out"), and ``progress`` says whether any new data was acknowledged since the
sender's previous time-out (Morris's lemma assumes not: a flow leaves stage i only by a
successful retransmission). :class:`DropLog` wraps a queue discipline and logs the time and
flow of every packet it refuses. Both cost one append per loss, nothing per packet sent.
"""

from __future__ import annotations

from array import array
from typing import Any

import numpy as np

from .tcp import TcpSender

__all__ = ["LossRecorder", "DropLog", "FAST_RETRANSMIT", "TIMEOUT"]

FAST_RETRANSMIT, TIMEOUT = 0, 1  # LossRecorder.loss_kind


class LossRecorder(TcpSender):
    """Mixin (put it first among the bases): logs every loss response in arrays ``loss_time``,
    ``loss_kind`` (:data:`FAST_RETRANSMIT` or :data:`TIMEOUT`), ``loss_window`` (the window
    before the cut), ``loss_wait`` (seconds the timer waited; 0 for a fast retransmit),
    ``loss_stage`` (back-offs before this time-out; -1 for a fast retransmit) and
    ``loss_progress`` (new data acknowledged since the previous time-out)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.loss_time = array("d")
        self.loss_kind = array("b")
        self.loss_window = array("d")
        self.loss_wait = array("d")
        self.loss_stage = array("b")
        self.loss_progress = array("b")
        self._una_at_timeout = -1

    def _window(self) -> float:
        return min(self.cwnd, self.ssthresh) if self.in_recovery else self.cwnd

    def _timeout(self) -> None:
        self.loss_time.append(self.env._now)
        self.loss_kind.append(TIMEOUT)
        self.loss_window.append(self._window())
        self.loss_wait.append(self.rto)
        self.loss_stage.append(self.backoff.bit_length() - 1)
        self.loss_progress.append(self.snd_una != self._una_at_timeout)
        self._una_at_timeout = self.snd_una
        super()._timeout()

    def _fast_retransmit(self) -> None:
        self.loss_time.append(self.env._now)
        self.loss_kind.append(FAST_RETRANSMIT)
        self.loss_window.append(self._window())
        self.loss_wait.append(0.0)
        self.loss_stage.append(-1)
        self.loss_progress.append(1)
        super()._fast_retransmit()

    def losses(self) -> dict[str, np.ndarray]:
        """The log as numpy arrays."""
        return {
            "time": np.array(self.loss_time, dtype=float),
            "kind": np.array(self.loss_kind, dtype=np.int8),
            "window": np.array(self.loss_window, dtype=float),
            "wait": np.array(self.loss_wait, dtype=float),
            "stage": np.array(self.loss_stage, dtype=np.int8),
            "progress": np.array(self.loss_progress, dtype=bool),
        }


class DropLog:
    """A queue discipline that asks ``inner`` and logs every arrival it refuses (``time``,
    ``flow``). ``inner``'s counters stay reachable as ``inner`` (like RandomLoss)."""

    def __init__(self, inner: Any) -> None:
        if not callable(getattr(inner, "admit", None)):
            raise ValueError(f"inner={inner!r} is not a queue discipline (no admit())")
        self.inner = inner
        self.buffer: int = int(inner.buffer)
        self._admit = inner.admit
        self.time = array("d")
        self.flow = array("l")

    def admit(self, waiting: int, now: float, idle_since: float, flow: int = -1) -> bool:
        if self._admit(waiting, now, idle_since, flow):
            return True
        self.time.append(now)
        self.flow.append(flow)
        return False

    def drops(self) -> dict[str, np.ndarray]:
        """The log as numpy arrays ``time`` and ``flow``."""
        return {
            "time": np.array(self.time, dtype=float),
            "flow": np.array(self.flow, dtype=np.int64),
        }
