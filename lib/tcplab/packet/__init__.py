"""Packet-level simulation of TCP over a bottleneck, on a simpy clock.

One scheduled event per packet hop (no per-packet processes): links compute departures in
closed form, queues decide admission on arrival, senders implement Tahoe/Reno/NewReno and
weighted AIMD(a, b). :func:`run_dumbbell` runs the standard N-flow dumbbell.
"""

from __future__ import annotations

from .dumbbell import Dumbbell, DumbbellResult, jain_index, run_dumbbell
from .link import Link
from .queues import QUEUES, RED, DropTail, ThresholdDropper, make_queue
from .sched import Call, call_at
from .tcp import VARIANTS, Receiver, TcpConfig, TcpSender

__all__ = [
    "Call",
    "Dumbbell",
    "DumbbellResult",
    "DropTail",
    "Link",
    "QUEUES",
    "RED",
    "Receiver",
    "TcpConfig",
    "TcpSender",
    "ThresholdDropper",
    "VARIANTS",
    "call_at",
    "jain_index",
    "make_queue",
    "run_dumbbell",
]
