"""Live panel of the many-flows chapter: one Morris run with N, the buffer, the queue and the
sender chosen by the reader.

The panel runs Figure 2's set-up (:func:`~tcplab.chapters.morris.runs.morris_setup`) for a
short span and redraws the fairness histogram of that run (Figs. 4 and 6) with its loss rate,
goodput and time-outs in the title. Like every panel of the book (:mod:`tcplab.widgets`) it
needs a kernel and shows a note on the static page.
"""

from __future__ import annotations

from typing import Any

import altair as alt
import ipywidgets as w
import numpy as np
import pandas as pd

from tcplab.checks import check_range
from tcplab.widgets import LivePanel, live_panel

from .analysis import HISTOGRAM_EDGES
from .measures import summarise
from .runs import SENDERS, morris_setup
from .topology import run_morris

__all__ = ["morris_live", "morris_panel"]

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


def morris_panel(flows: int = 30, buffer: int = 217) -> LivePanel:
    """Controls for N, the buffer, the queue, the sender, the span and the seed; redraws the
    fairness histogram of a fresh run."""
    style = {"description_width": "initial"}
    n_box = w.BoundedIntText(flows, min=1, max=3000, description="flows N", style=style)
    buffer_box = w.BoundedIntText(buffer, min=4, max=10000, description="buffer b", style=style)
    queue_menu = w.Dropdown(options=["red", "droptail"], value="red", description="queue")
    sender_menu = w.Dropdown(options=list(SENDERS), value="tahoe", description="sender")
    seconds_slider = w.IntSlider(10, min=5, max=120, description="seconds", style=style)
    seed_slider = w.IntSlider(0, min=0, max=9, description="seed", style=style)

    def redraw() -> alt.TopLevelMixin:
        out = morris_live(n_box.value, buffer_box.value, queue_menu.value, sender_menu.value,
                          seconds_slider.value, seed_slider.value)  # fmt: skip
        title = [
            f"N = {out['flows']}, {out['queue']} b = {out['buffer']}, {sender_menu.value}: "
            f"loss {out['loss_rate']:.1%}, goodput {out['goodput_fraction']:.1%}",
            f"{out['zero_seconds']:.0%} of flow-seconds empty, {out['timeouts']} time-outs",
        ]
        return _histogram(out, title)

    controls = [n_box, buffer_box, queue_menu, sender_menu, seconds_slider, seed_slider]
    return live_panel(
        controls, redraw, "Choose N, the buffer, the queue and the sender; Morris's set-up reruns."
    )
