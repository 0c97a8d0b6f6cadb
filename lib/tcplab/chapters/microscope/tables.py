"""The microscope chapter's result table in the book's table style (:func:`tcplab.tables.show`)."""

from __future__ import annotations

import pandas as pd

from tcplab.tables import Table, show

from .claims import DEPARTURES

__all__ = ["comparison_table", "departures_table"]

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


def comparison_table(comparison: pd.DataFrame) -> Table:
    """:func:`.claims.comparison_frame` (a "rules / model" cell per quantity, per sender and
    drop list) in the book's table style: one card per case on a phone, where the frame's
    own HTML ran to 779 px in a 368 px column (the reader's report of 2026-12-02)."""
    frame = comparison.reset_index()
    frame["agree"] = frame["agree"].map({True: "yes", False: "no"})
    caption = "Each case: what the rules say / what the model did"
    return show(frame, list(frame.columns), 4, caption=caption)
