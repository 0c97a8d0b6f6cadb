"""The microscope's runs: Fall and Floyd's cases and a repeated time-out, on the trace's path.

Each run is :func:`tcplab.packet.trace.run_trace`: one finite transfer over an idle path
(10 Mb/s, 100 ms of propagation, 1500 B packets, a receiver that acknowledges every packet)
with a loss script. Nothing is random, so ``seed`` is accepted for the registry's sake and
ignored; the quick scale sends 60 packets instead of 100 (all the runs take well under a
second either way).
:func:`traces` keeps every sender event of Fall and Floyd's twelve cases (three senders, one
to four drops from one window) for the charts, :func:`cases` their totals for the table, and
:func:`rto` the events of one transfer whose lost retransmissions make the timer fire again
and again.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pandas as pd

from tcplab.packet.trace import Trace, run_trace

from .rules import CASES, RWND, SENDERS

__all__ = ["ACKS", "MicroscopeParams", "case_label", "cases", "recovery_time", "rto", "traces"]

#: the events that are an ACK arriving
ACKS = ("ack", "dupack", "partial_ack", "recovery_exit")


@dataclass(frozen=True)
class MicroscopeParams:
    """The cases (ns-2's test-suite-tcpVariants.tcl: window 28, the drops of :data:`CASES`),
    the path (``tcplab trace``'s defaults) and the repeated time-out: packet 14 lost
    ``rto_losses`` times by ``rto_tcp``, first found by a fast retransmit."""

    senders: tuple[str, ...] = SENDERS
    drops: tuple[tuple[int, ...], ...] = tuple(CASES.values())
    packets: int = 100
    window: int = RWND
    rtt_ms: float = 100.0
    rate_mbps: float = 10.0
    rto_tcp: str = "newreno"
    rto_losses: int = 4
    rto_packets: int = 60

    @classmethod
    def quick(cls) -> MicroscopeParams:
        return cls(packets=60)  # every recovery is over by packet 45; all runs take ms anyway

    def path(self) -> dict[str, Any]:
        """The keyword arguments of ``run_trace`` that every run shares."""
        return {"window": self.window, "rtt_ms": self.rtt_ms, "rate_mbps": self.rate_mbps}

    def rto_drops(self) -> tuple[int, ...]:
        return (14,) * self.rto_losses


def case_label(drops: tuple[int, ...]) -> str:
    """How the book names a drop list: ``"14, 26, 28"``."""
    return ", ".join(str(d) for d in drops)


def _runs(params: MicroscopeParams) -> Iterator[tuple[str, tuple[int, ...], Trace]]:
    for tcp in params.senders:
        for drops in params.drops:
            yield tcp, drops, run_trace(tcp, drops, packets=params.packets, **params.path())


def _tidy(events: pd.DataFrame, tcp: str, drops: tuple[int, ...]) -> pd.DataFrame:
    head = {"tcp": tcp, "losses": len(drops), "drops": case_label(drops)}
    return events.assign(**head)[[*head, *events.columns]]


def traces(params: MicroscopeParams, seed: int = 0) -> pd.DataFrame:
    """Every sender event of every (sender, case): tcp, losses (how many drops), drops, then
    the trace's columns time, event, seq, cwnd, ssthresh (inf before the first loss), rto,
    rtt_sample (NaN where none was taken)."""
    frames = [_tidy(trace.events, tcp, drops) for tcp, drops, trace in _runs(params)]
    return pd.concat(frames, ignore_index=True)


def recovery_time(events: pd.DataFrame) -> float:
    """From the first loss response to the first ACK that covers every packet sent before it
    (the whole window in which the losses fell), in seconds; NaN if none comes."""
    responses = events.index[events["event"].isin(["fast_retransmit", "timeout"])]
    if len(responses) == 0:
        return float("nan")
    first = responses[0]
    sent = events.loc[: first - 1]
    highest = sent.loc[sent["event"] == "send", "seq"].max()
    later = events.loc[first:]
    covering = later[later["event"].isin(ACKS) & (later["seq"] > highest)]
    if covering.empty:
        return float("nan")
    return float(covering["time"].iloc[0] - events.loc[first, "time"])


def cases(params: MicroscopeParams, seed: int = 0) -> pd.DataFrame:
    """One row per (sender, case): what the model did in a transfer of ``packets`` packets.
    ``resent`` lists the retransmitted packets in order; ``recovery_s`` is
    :func:`recovery_time`, ``completion_s`` when the last packet was acknowledged."""
    rows = []
    for tcp, drops, trace in _runs(params):
        events = trace.events
        resent = events.loc[events["event"] == "retransmit", "seq"]
        rows.append(
            {
                "tcp": tcp,
                "losses": len(drops),
                "drops": case_label(drops),
                "packets": params.packets,
                "fast_retransmits": trace.fast_retransmits,
                "partial_acks": int((events["event"] == "partial_ack").sum()),
                "timeouts": trace.timeouts,
                "retransmits": trace.retransmits,
                "resent": " ".join(str(s) for s in resent),
                "recovery_s": recovery_time(events),
                "completion_s": trace.completion_s,
            }
        )
    return pd.DataFrame(rows)


def rto(params: MicroscopeParams, seed: int = 0) -> pd.DataFrame:
    """Every sender event of the repeated time-out (the layout of :func:`traces`)."""
    drops = params.rto_drops()
    trace = run_trace(params.rto_tcp, drops, packets=params.rto_packets, **params.path())
    return _tidy(trace.events, params.rto_tcp, drops)
