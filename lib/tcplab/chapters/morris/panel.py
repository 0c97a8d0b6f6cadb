"""Live panel of the many-flows chapter: one Morris run with N, the buffer, the queue and the
sender chosen by the reader.

The panel runs Figure 2's set-up (:func:`~tcplab.chapters.morris.runs.morris_setup`) for a
short span and redraws the fairness histogram of that run (Figs. 4 and 6) with its loss rate,
goodput and time-outs in the title. Like every panel of the book (:mod:`tcplab.widgets`) it
reruns the model when a Jupyter kernel is attached; on the static page the same
:class:`~tcplab.panels.PanelSpec` runs in the reader's browser (:mod:`tcplab.inbrowser`,
Pyodide).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import altair as alt
import numpy as np
import pandas as pd

from tcplab.checks import check_range
from tcplab.panels import Control, PanelSpec

from .analysis import HISTOGRAM_EDGES
from .measures import summarise
from .runs import SENDERS, morris_setup
from .topology import run_morris

if TYPE_CHECKING:
    from tcplab.widgets import LivePanel

__all__ = ["draw", "morris_live", "morris_panel", "morris_spec"]

WARMUP = 10.0  # seconds before the measures start (slow start and the first time-outs)


def morris_live(
    flows: int = 100,
    buffer: int = 217,
    queue: str = "red",
    sender: str = "tahoe",
    seconds: float = 20.0,
    seed: int = 0,
) -> dict[str, Any]:
    """One run of ``WARMUP + seconds`` of Morris's set-up; its measures with the histogram."""
    seconds = check_range("seconds", seconds, 1.0, 300.0)
    setup = morris_setup(flows, buffer=buffer, queue=queue, sender=sender,
                         seconds=WARMUP + seconds, warmup=WARMUP, seed=seed)  # fmt: skip
    return summarise(run_morris(setup), histogram=True)


def _histogram(out: dict[str, Any], title: list[str]) -> alt.Chart:
    probability = np.asarray(out["hist"], dtype=float)
    data = pd.DataFrame({"share": HISTOGRAM_EDGES[:-1], "probability": probability})
    data["end"] = data["share"] + 0.25
    return (
        alt.Chart(data.round(5), title=title)
        .mark_bar(color="#0072B2")
        .encode(
            x=alt.X("share:Q", bin="binned", title="bandwidth in one second (fair shares)"),
            x2="end:Q",
            y=alt.Y("probability:Q", title="probability"),
        )
        .properties(width=420, height=200)
    )


def draw(
    flows: int, buffer: int, queue: str, sender: str, seconds: int, seed: int
) -> alt.TopLevelMixin:
    """The fairness histogram of a fresh run, titled with its loss rate, goodput, empty
    flow-seconds and time-outs."""
    out = morris_live(int(flows), int(buffer), queue, sender, int(seconds), int(seed))
    title = [
        f"N = {out['flows']}, {out['queue']} b = {out['buffer']}, {sender}: "
        f"loss {out['loss_rate']:.1%}, goodput {out['goodput_fraction']:.1%}",
        f"{out['zero_seconds']:.0%} of flow-seconds empty, {out['timeouts']} time-outs",
    ]
    return _histogram(out, title)


def morris_spec(flows: int = 30, buffer: int = 217) -> PanelSpec:
    """The panel's controls (N, the buffer, the queue, the sender, the span, the seed) and
    its drawing."""
    return PanelSpec(
        (
            Control("flows", "flows N", 1, 3000, 1, flows, kind="number"),
            Control("buffer", "buffer b", 4, 10000, 1, buffer, kind="number"),
            Control.choice("queue", "queue", ("red", "droptail"), "red"),
            Control.choice("sender", "sender", tuple(SENDERS), "tahoe"),
            Control("seconds", "seconds", 5, 120, 1, 10, kind="int"),
            Control("seed", "seed", 0, 9, 1, 0, kind="int"),
        ),
        draw,
        "Choose N, the buffer, the queue and the sender; Morris's set-up reruns.",
    )


def morris_panel(flows: int = 30, buffer: int = 217) -> LivePanel:
    """Controls for N, the buffer, the queue, the sender, the span and the seed; redraws the
    fairness histogram of a fresh run. On the static page it can run in the reader's
    browser."""
    from tcplab.widgets import spec_panel

    return spec_panel(morris_spec(flows, buffer), browser=morris_spec)
