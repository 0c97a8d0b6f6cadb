"""Packet-level simulation of TCP over a bottleneck, on a simpy clock.

One scheduled event per packet hop (no per-packet processes): links compute departures in
closed form, queues decide admission on arrival, senders implement Tahoe/Reno/NewReno and
weighted AIMD (increase ``a``, decrease factor ``beta``). :class:`Network` wires any topology
of named links and connections with one or more paths (subflows). A run is described by a
frozen, checked :class:`PacketSetup` (topology, queue, TCP, run length, probes) and run by
:func:`run`; the standard N-connection dumbbell is :class:`DumbbellTopology`
(:func:`run_dumbbell` is its keyword form). :func:`run_trace` runs one flow with a
:class:`LossScript` of chosen drops and logs every sender event (a :class:`RecordingSender`),
for looking at TCP under a microscope.
"""

from __future__ import annotations

from .dumbbell import Dumbbell, DumbbellResult, jain_index, run_dumbbell, simulate
from .events import EVENTS, EventLog, RecordingSender
from .link import Link
from .network import Connection, Network, NetworkResult, Subflow
from .queues import QUEUES, RED, SELECTIONS, DropTail, RandomLoss, ThresholdDropper, make_queue
from .sched import Call, call_at
from .script import LossScript
from .setup import (
    DumbbellTopology,
    MisplacedOptions,
    PacketSetup,
    Probes,
    QueueSetup,
    RunLength,
    Topology,
    run,
)
from .tcp import VARIANTS, Receiver, TcpConfig, TcpSender
from .trace import Trace, run_trace

__all__ = [
    "Call",
    "Connection",
    "Dumbbell",
    "DumbbellResult",
    "DumbbellTopology",
    "MisplacedOptions",
    "PacketSetup",
    "Probes",
    "QueueSetup",
    "RunLength",
    "Topology",
    "DropTail",
    "EVENTS",
    "EventLog",
    "Link",
    "LossScript",
    "Network",
    "NetworkResult",
    "QUEUES",
    "RED",
    "RandomLoss",
    "Receiver",
    "RecordingSender",
    "SELECTIONS",
    "Subflow",
    "TcpConfig",
    "TcpSender",
    "ThresholdDropper",
    "Trace",
    "VARIANTS",
    "call_at",
    "jain_index",
    "make_queue",
    "run",
    "run_dumbbell",
    "run_trace",
    "simulate",
]
