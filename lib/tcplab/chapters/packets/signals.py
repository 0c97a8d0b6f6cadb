"""Congestion events in a packet trace: who was signalled, when, and with what window.

The traces are a run's window changes, (time, flow, cwnd) rows; :func:`window_frame` also
reads them on a regular grid for the window charts.

A connection is *signalled* when its window goes down (a fast retransmit or a time-out; the
further deflations of one recovery are merged). Signals less than half an RTT apart belong to
one *congestion event*. Altman et al. (2006) ask how many connections one event signals
(their Fig. 15, assumption ONE is "always one") and whether the signalled ones are those with
the larger windows (Figs. 13 and 14).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

__all__ = [
    "RTT_S",
    "loss_signals",
    "congestion_events",
    "signal_samples",
    "spearman",
    "window_frame",
]

RTT_S = 0.120  # propagation round-trip time of the paper's set-up: the default time scales


def loss_signals(cwnd: pd.DataFrame, merge: float = 2 * RTT_S) -> pd.DataFrame:
    """The times each flow was signalled congestion: its window went down, not within
    ``merge`` seconds of its previous reduction (one fast recovery deflates several times)."""
    rows = []
    for flow, part in cwnd.groupby("flow"):
        values = part["cwnd"].to_numpy()
        times = part["time"].to_numpy()
        down = times[1:][values[1:] < values[:-1]]
        last = -np.inf
        for t in down:
            if t - last > merge:
                rows.append((t, flow))
            last = t
    return pd.DataFrame(rows, columns=["time", "flow"]).sort_values("time", ignore_index=True)


def congestion_events(signals: pd.DataFrame, gap: float = RTT_S / 2) -> np.ndarray:
    """Clump loss signals into congestion events (signals less than ``gap`` apart belong to
    the same event) and return, per event, the number of distinct flows signalled."""
    if signals.empty:
        return np.zeros(0, dtype=int)
    times = signals["time"].to_numpy()
    event = np.concatenate([[0], np.cumsum(np.diff(times) >= gap)])
    return signals.assign(event=event).groupby("event")["flow"].nunique().to_numpy()


def signal_samples(
    cwnd: pd.DataFrame, start: float, gap: float = RTT_S / 2, merge: float = 2 * RTT_S
) -> pd.DataFrame:
    """One row per (congestion event after ``start``, flow): the flow's window just before
    the event began and whether it was signalled in it (events as in :func:`events`)."""
    signals = loss_signals(cwnd[cwnd["time"] >= start], merge)
    if signals.empty:
        return pd.DataFrame({"event": [], "flow": [], "window": [], "signalled": []})
    times = signals["time"].to_numpy()
    event = np.concatenate([[0], np.cumsum(np.diff(times) >= gap)])
    signals = signals.assign(event=event)
    begins = signals.groupby("event")["time"].min().to_numpy()
    hit = set(zip(signals["event"], signals["flow"], strict=True))
    frames = []
    for flow, part in cwnd.groupby("flow"):
        t, w = part["time"].to_numpy(), part["cwnd"].to_numpy()
        index = np.searchsorted(t, begins, side="left") - 1  # last change strictly before
        window = np.where(index >= 0, w[np.clip(index, 0, None)], np.nan)
        signalled = [(e, flow) in hit for e in range(len(begins))]
        frames.append(
            pd.DataFrame(
                {
                    "event": np.arange(len(begins)),
                    "flow": flow,
                    "window": window,
                    "signalled": signalled,
                }
            )  # fmt: skip
        )
    return pd.concat(frames, ignore_index=True).dropna()


def spearman(x: np.ndarray, y: np.ndarray) -> float:
    """Spearman's rank correlation (average ranks for ties); nan for fewer than 3 points."""
    if len(x) < 3:
        return float("nan")
    rx = pd.Series(x).rank().to_numpy()
    ry = pd.Series(y).rank().to_numpy()
    if rx.std() == 0 or ry.std() == 0:
        return float("nan")
    return float(np.corrcoef(rx, ry)[0, 1])


def _resample(cwnd: pd.DataFrame, start: float, span: float, step: float) -> pd.DataFrame:
    """Each flow's window as a step function, read on a grid of ``step`` over ``span``."""
    grid = start + np.arange(0.0, span + step / 2, step)
    frames = []
    for flow, part in cwnd.groupby("flow"):
        times, values = part["time"].to_numpy(), part["cwnd"].to_numpy()
        index = np.searchsorted(times, grid, side="right") - 1
        window = np.where(index >= 0, values[np.clip(index, 0, None)], 0.0)
        frames.append(pd.DataFrame({"time": grid - start, "flow": flow, "cwnd": window}))
    return pd.concat(frames, ignore_index=True)


def window_frame(cwnd: pd.DataFrame, start: float, span: float, step: float) -> pd.DataFrame:
    """(time, flow, cwnd) rows: each flow's window read every ``step`` seconds for ``span``
    seconds from ``start`` (time counted from ``start``), plus their sum as ``flow = -1``."""
    each = _resample(cwnd, start, span, step)
    total = each.groupby("time", as_index=False)["cwnd"].sum().assign(flow=-1)
    return pd.concat([each, total], ignore_index=True)
