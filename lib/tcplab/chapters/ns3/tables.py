"""The ns-3 appendix's result tables in the book's table style (:func:`tcplab.tables.show`):
headers in words with units, the two simulators side by side, numbers to the digits that
matter."""

from __future__ import annotations

import pandas as pd

from tcplab.tables import Table, show

from . import charts, claims, grid

__all__ = ["matched_table", "side_by_side_table", "heavy_table"]

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


def side_by_side_table(table: pd.DataFrame) -> Table:
    """Every scenario, ns-3 and tcplab side by side for each quantity (means over the seeds)."""
    frame = table.assign(
        scenario=table.apply(charts.scenario_label, axis=1),
        timer=table["timer"].map(_TIMER),
    )
    columns = {"scenario": "scenario", "timer": "tcplab's timer"}
    formats: dict[str, int | str] = {}
    for metric, words in claims.METRICS.items():
        for simulator, name in (("ns3", "ns-3"), ("tcplab", "tcplab")):
            columns[f"{metric}_{simulator}"] = f"{words}, {name}"
            formats[f"{metric}_{simulator}"] = _FORMATS.get(metric, "3 sig")
    return show(frame, columns, formats, caption=_TIMERS)


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
