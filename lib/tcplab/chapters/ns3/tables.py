"""The ns-3 appendix's tables in the book's table style (:func:`tcplab.tables.show`): headers
in words with units, the two simulators side by side, numbers to the digits that matter.

Besides the comparison tables, :func:`sack_trace_table` shows the packet model's NewReno and
SACK senders recovering from one scripted loss pattern (:func:`tcplab.packet.run_trace`), and
:func:`provenance_table` what the metadata of ns-3's shipped results says of how they were
made."""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from tcplab.packet import run_trace
from tcplab.tables import Table, show

from . import charts, claims, grid

__all__ = [
    "matched_table",
    "side_by_side_table",
    "heavy_table",
    "probe_table",
    "sack_trace",
    "sack_trace_table",
    "provenance_table",
    "PROVENANCE",
]

#: how each of claims.METRICS is printed
_FORMATS: dict[str, int | str] = {
    "goodput_mbps": 2,
    "drop_rate": "2%",
    "timeouts_per_s": 1,
    "fast_retransmits_per_s": 1,
    "jain_index": 3,
    "mean_queue": 1,
    "duplicate_share": "2%",
}
_TCP = {"newreno": "NewReno", "sack": "SACK", "reno": "Reno"}
_TIMER = {"bsd": "BSD", "rfc6298": "RFC 6298"}
_TIMERS = (
    "tcplab's timer: BSD restarts it at a fast retransmit (tcplab's default), RFC 6298 does "
    "not (as ns-3)"
)


def matched_table() -> Table:
    """The parameters both simulators get (:data:`grid.MATCHED`)."""
    frame = pd.DataFrame(
        {"parameter": list(grid.MATCHED), "value": [str(v) for v in grid.MATCHED.values()]}
    )
    return show(frame, {"parameter": "parameter (name in the grid)", "value": "value"})


def side_by_side_table(
    table: pd.DataFrame, metrics: Sequence[str] | None = None, fold: str | None = None
) -> Table:
    """Every scenario, ns-3 and tcplab side by side for each quantity (means over the seeds).

    ``metrics`` (keys of :data:`claims.METRICS`, default all) picks the quantities shown;
    with ``fold`` the table is folded under a summary with that text (a ``<details>`` the
    reader opens), so that a long table does not stand in the page's way."""
    chosen = list(claims.METRICS) if metrics is None else list(metrics)
    unknown = [metric for metric in chosen if metric not in claims.METRICS]
    if unknown:
        raise ValueError(f"metrics={unknown}: not among {list(claims.METRICS)}")
    frame = table.assign(
        scenario=table.apply(charts.scenario_label, axis=1),
        timer=table["timer"].map(_TIMER),
    )
    columns = {"scenario": "scenario", "timer": "tcplab's timer"}
    formats: dict[str, int | str] = {}
    for metric in chosen:
        words = claims.METRICS[metric]
        for simulator, name in (("ns3", "ns-3"), ("tcplab", "tcplab")):
            columns[f"{metric}_{simulator}"] = f"{words}, {name}"
            formats[f"{metric}_{simulator}"] = _FORMATS.get(metric, "3 sig")
    what = (
        "every quantity"
        if len(chosen) == len(claims.METRICS)
        else ", ".join(claims.METRICS[metric] for metric in chosen)
    )
    caption = f"ns-3 and tcplab side by side, {what}. {_TIMERS}"
    shown = show(frame, columns, formats, caption=caption)
    if fold is None:
        return shown
    return Table(
        f'<details class="tcplab-folded"><summary>{html.escape(fold)}</summary>'
        f"{shown.html}</details>"
    )


def heavy_table(table: pd.DataFrame) -> Table:
    """The heavy-loss cases (:func:`claims.heavy_cases`): ratios tcplab / ns-3."""
    frame = claims.heavy_cases(table)
    frame = frame.assign(
        **{"tcplab timer": frame["tcplab timer"].map(_TIMER), "tcp": frame["tcp"].map(_TCP)}
    )
    columns = {
        "case": "case",
        "tcp": "TCP",
        "tcplab timer": "tcplab's timer",
        "drops tcplab/ns-3": "drops, tcplab / ns-3",
        "time-outs tcplab/ns-3": "time-outs, tcplab / ns-3",
        "forced drops tcplab/ns-3": "RED's forced drops, tcplab / ns-3",
        "Jain tcplab": "Jain's index, tcplab",
        "Jain ns-3": "Jain's index, ns-3",
    }
    return show(
        frame, columns, 2, caption="Ratios tcplab / ns-3 of the means over three seeds. " + _TIMERS
    )


def probe_table(table: pd.DataFrame) -> Table:
    """The delayed-ACK probe (:func:`claims.probe_frame`): each simulator at the matched RTO
    floor and at the probe's."""
    frame = claims.probe_frame(table)
    frame = frame.assign(
        simulator=frame["simulator"]
        .str.replace("bsd", "BSD timer")
        .str.replace("rfc6298", "RFC 6298 timer")
    )
    columns = {
        "floor_ms": "RTO floor (ms)",
        "simulator": "simulator",
        "drop_rate": "drop rate",
        "timeouts_per_s": "time-outs per second",
        "jain_index": "Jain's index",
    }
    caption = "30 SACK connections with delayed ACKs, means over three seeds"
    formats: dict[str, int | str] = {
        "floor_ms": 0, "drop_rate": "2%", "timeouts_per_s": 1, "jain_index": 2,
    }  # fmt: skip
    return show(frame, columns, formats, caption=caption)


def sack_trace(
    pattern: Sequence[int], packets: int = 100, window: int = 28, rtt_ms: float = 100.0
) -> pd.DataFrame:
    """NewReno and SACK on :func:`tcplab.packet.run_trace`'s path (10 Mb/s, ``rtt_ms`` of
    propagation) losing the transmissions ``pattern`` lists: one row per TCP with the packets
    it retransmitted, its recovery's length (first fast retransmit to the end of recovery) in
    round trips, its time-outs and when the last packet was acknowledged."""
    rows = []
    for tcp in ("newreno", "sack"):
        trace = run_trace(tcp, pattern, packets=packets, window=window, rtt_ms=rtt_ms)
        ev = trace.events
        round_trip = rtt_ms / 1e3 + 1500 * 8 / 10e6  # propagation plus one packet's time
        start = ev.loc[ev["event"] == "fast_retransmit", "time"].iloc[0]
        end = ev.loc[ev["event"] == "recovery_exit", "time"].iloc[0]
        resent = ev.loc[ev["event"] == "retransmit", "seq"]
        rows.append({
            "tcp": _TCP[tcp],
            "retransmitted": ", ".join(str(int(seq)) for seq in resent),
            "recovery_rtts": (end - start) / round_trip,
            "timeouts": int(trace.timeouts),
            "completed_s": trace.completion_s,
        })  # fmt: skip
    return pd.DataFrame(rows)


def sack_trace_table(pattern: Sequence[int], packets: int = 100, window: int = 28) -> Table:
    """:func:`sack_trace` as a book table."""
    frame = sack_trace(pattern, packets, window)
    columns = {
        "tcp": "TCP",
        "retransmitted": "packets retransmitted",
        "recovery_rtts": "recovery (round trips)",
        "timeouts": "time-outs",
        "completed_s": "last packet acknowledged at (s)",
    }
    lost = ", ".join(str(seq) for seq in pattern)
    caption = f"Packets {lost} of {packets} lost, at most {window} in flight"
    return show(frame, columns, {"recovery_rtts": 2, "completed_s": 3}, caption=caption)


#: the provenance fields the appendix prints, with their names in words
PROVENANCE = {
    "ns3_version": "ns-3 version",
    "ns3_install": "how ns-3 was installed",
    "script": "the scenario script",
    "script_sha256": "its SHA-256",
    "command": "the command",
    "made": "made on",
    "rows": "runs (rows)",
    "missing": "scenarios missing",
    "earlier_runs": "rows kept from earlier runs",
}


def provenance_table(provenance: Mapping[str, Any]) -> Table:
    """What the metadata of data/ns3-dumbbell.csv says of how it was made."""
    values = []
    for key in PROVENANCE:
        value = provenance.get(key)
        if key == "missing":
            value = f"{len(value or [])}" + ("" if not value else ": " + "; ".join(map(str, value)))
        if key == "earlier_runs":
            value = (
                "; ".join(
                    f"{run['rows']} rows, made on {run['made']} by {run['command']}"
                    for run in value or []
                )
                or "none (all made by the command above)"
            )
        values.append("—" if value is None else str(value))
    frame = pd.DataFrame({"field": list(PROVENANCE.values()), "value": values})
    return show(frame, {"field": "field", "value": "value"}, "text")
