"""One TCP flow on an otherwise idle path, a loss script, and every sender event: a trace.

:func:`run_trace` is the microscope behind ``tcplab trace``: one finite transfer of
``packets`` packets over one link (``rate_mbps``, one-way delay ``rtt_ms / 2``, a DropTail
buffer) to a receiver that acknowledges every packet over a delay line of ``rtt_ms / 2``.
Nothing is lost except what the loss script says (``drops``: sequence numbers, each listing
dropping one more transmission of that packet), so the trace shows exactly how a sender
reacts to a chosen pattern of losses: the cases of Fall and Floyd (1996), say, are one, two,
three and four drops from one window. The round-trip time of a packet on the idle path is
``rtt_ms`` plus its transmission time.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd
import simpy

from ..checks import check_choice, check_int, check_range
from .events import RecordingSender
from .link import Link
from .queues import DropTail
from .sack import RecordingSackSender, SackReceiver
from .script import LossScript
from .tcp import VARIANTS, Receiver, TcpConfig

__all__ = ["Trace", "run_trace"]

FLOW = 0  # the one flow's id: the loss script's pairs are (FLOW, seq)


@dataclass(frozen=True, eq=False)
class Trace:
    """What :func:`run_trace` saw. ``events`` is tidy: one row per sender event, columns
    ``time, event, seq, cwnd, ssthresh, rto, rtt_sample`` (see :mod:`tcplab.packet.events`;
    ``ssthresh`` is ``inf`` before the first loss, ``rtt_sample`` NaN where none was taken).
    ``retransmits`` counts every retransmitted packet, fast retransmits included;
    ``completion_s`` is when the last packet was acknowledged."""

    params: dict[str, Any]
    events: pd.DataFrame
    records: list[dict[str, Any]]
    fast_retransmits: int
    timeouts: int
    retransmits: int
    completion_s: float | None

    @property
    def totals(self) -> dict[str, Any]:
        return {
            "fast_retransmits": self.fast_retransmits,
            "timeouts": self.timeouts,
            "retransmits": self.retransmits,
            "completion_s": self.completion_s,
        }

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: the parameters, ``events`` (``t`` for the time; an infinite
        ``ssthresh`` and a missing ``rtt_sample`` are ``None``) and the totals."""
        return {**self.params, "events": self.records, **self.totals}


def run_trace(
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
    restart_rto_at_fast_retransmit: bool = True,
) -> Trace:
    """Send ``packets`` packets with sender ``tcp`` (at most ``window`` in flight) and drop the
    transmissions ``drops`` lists; return the :class:`Trace`. ``a`` and ``beta`` make it AIMD
    (a packets added per RTT, the window multiplied by beta on a loss); any variant honours
    them, and ``tcp="aimd"`` is NewReno with them. Times are seconds except ``rtt_ms``; the
    timer values (``granularity``, ``min_rto``, ``max_rto``, ``initial_rto``) are seconds;
    ``restart_rto_at_fast_retransmit`` is :class:`~tcplab.packet.tcp.TcpConfig`'s. The
    trace ends when the last packet is acknowledged, or at simulated time ``until`` if that
    comes first (``completion_s`` is then None)."""
    check_choice("tcp", tcp, VARIANTS)
    packets = check_int("packets", packets, 1)
    window = check_int("window", window, 1)
    rtt = check_range("rtt_ms", rtt_ms, 0.0) / 1e3
    rate = check_range("rate_mbps", rate_mbps, 0.0, low_open=True) * 1e6
    buffer = check_int("buffer", buffer, 1)
    initial_window = check_int("initial_window", initial_window, 1, window)
    check_range("granularity", granularity, 0.0, low_open=True)
    check_range("min_rto", min_rto, 0.0, low_open=True)
    check_range("max_rto", max_rto, min_rto)
    seqs = [check_int("drop", seq, 0, packets - 1) for seq in drops]
    until = check_range("until", until, 0.0, low_open=True)
    config = TcpConfig(
        variant=tcp,
        a=a,
        beta=beta,
        packet_bytes=packet_bytes,
        max_window=window,
        initial_window=initial_window,
        initial_ssthresh=initial_ssthresh,
        granularity=granularity,
        min_rto=min_rto,
        max_rto=max_rto,
        initial_rto=initial_rto,
        packets=packets,
        restart_rto_at_fast_retransmit=restart_rto_at_fast_retransmit,
    )
    env = simpy.Environment()
    back = Link(env, None, rtt / 2.0, name="ack")
    path = Link(env, rate, rtt / 2.0, DropTail(buffer), name="path")
    sack = tcp == "sack"
    sender = (RecordingSackSender if sack else RecordingSender)(env, FLOW, config, path.send)
    receiver = (SackReceiver if sack else Receiver)(env, FLOW, back.send)
    path.dst, back.dst = receiver.on_packet, sender.on_ack
    LossScript([(FLOW, seq) for seq in seqs]).attach(sender)
    done = env.event()
    sender.on_complete = lambda _sender: done.succeed()
    sender.start()
    env.run(until=env.any_of([done, env.timeout(until)]))
    params = {
        "tcp": tcp,
        "drops": seqs,
        "packets": packets,
        "window": window,
        "rtt_ms": rtt * 1e3,
        "rate_mbps": rate / 1e6,
        "buffer": buffer,
        "initial_window": initial_window,
        "granularity": granularity,
        "min_rto": min_rto,
        "max_rto": max_rto,
        "a": a,
        "beta": beta,
        "packet_bytes": packet_bytes,
    }
    return Trace(
        params=params,
        events=sender.log.frame(),
        records=sender.log.records(),
        fast_retransmits=sender.fast_retransmits,
        timeouts=sender.timeouts,
        retransmits=sender.retransmits,
        completion_s=sender.completed_at,
    )
