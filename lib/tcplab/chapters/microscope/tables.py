"""The microscope chapter's result table in the book's table style (:func:`tcplab.tables.show`)."""

from __future__ import annotations

import pandas as pd

from tcplab.tables import Table, show

from .claims import DEPARTURES

__all__ = ["departures_table"]

_SENDER = {"tahoe": "Tahoe", "reno": "Reno", "newreno": "NewReno", "sack": "SACK"}


def departures_table(departures: pd.DataFrame) -> Table:
    """:func:`.claims.departures_frame` (completion times in seconds, per sender and drop
    list) with the sender and the dropped packets as columns, times to the millisecond."""
    frame = departures.reset_index()
    frame["sender"] = frame["sender"].map(lambda s: _SENDER.get(s, s))
    columns = {"sender": "sender", "drops": "packets dropped", "model's choices": "model's choices"}
    columns.update({name: name for name in DEPARTURES})
    caption = "Completion time (s) by the rules, with each departure from the RFCs undone alone"
    return show(frame, columns, 3, caption=caption)
