"""Live panel of the packet chapter: the dumbbell of Altman et al.'s Section V, rerun.

Pick N, the queue (DropTail, RED, the threshold-dropper and its policy), the buffer and how
many seconds to watch; the panel runs the packet model in the chapter's set-up (5 Mb/s,
120 ms, 1000-byte packets) and redraws the windows and their sum, with the utilisation
beside Theorem 1 and the number of connections signalled per congestion event. Like every
panel of the book (:mod:`tcplab.widgets`) it needs a kernel and shows a note on the static
page.
"""

from __future__ import annotations

from typing import Any

import altair as alt
import ipywidgets as w
import numpy as np
import pandas as pd

from tcplab.checks import check_choice, check_range
from tcplab.packet import QUEUES, SELECTIONS
from tcplab.theory import altman
from tcplab.widgets import LivePanel, live_panel

from . import experiments as packets
from .charts import windows_chart
from .signals import congestion_events, loss_signals, window_frame

__all__ = ["dumbbell_live", "packets_panel"]

WARMUP = 20.0  # seconds run before the windows are shown (slow start and the first losses)


def dumbbell_live(
    flows: int = 10,
    queue: str = "droptail",
    buffer: int = 20,
    select: str = "random",
    seconds: float = 10.0,
    seed: int = 0,
) -> tuple[pd.DataFrame, dict[str, Any]]:
    """Run the chapter's dumbbell for ``WARMUP + seconds`` and return the windows after the
    warm-up (the layout of the ``packets-windows`` experiment) and the run's numbers:
    utilisation, Theorem 1, mean connections signalled per congestion event, time-outs."""
    check_choice("select", select, SELECTIONS)  # the queue is checked by run_dumbbell
    seconds = check_range("seconds", seconds, 1.0, 300.0)
    extra: dict[str, Any] = {"threshold": 3, "select": select} if queue == "threshold" else {}
    params = packets.PacketsParams()
    run = packets.run_setup(
        params, flows, queue, buffer, duration=WARMUP + seconds, warmup=WARMUP, seed=seed,
        **extra,
    )  # fmt: skip
    cwnd = run.cwnd()
    frame = window_frame(cwnd, WARMUP, seconds, params.sync_step)
    frame = frame.assign(queue=queue, buffer=buffer, flows=flows)
    per_event = congestion_events(loss_signals(cwnd[cwnd["time"] >= WARMUP]))
    summary = run.summary()
    numbers = {
        "utilisation": summary["utilisation"],
        "theorem1": float(altman.parallel_throughput(flows, 0.5)),
        "mean_signalled": float(np.mean(per_event)) if len(per_event) else float("nan"),
        "events": len(per_event),
        "timeouts": summary["timeouts"],
    }
    return frame, numbers


def packets_panel(flows: int = 10, queue: str = "droptail", buffer: int = 5) -> LivePanel:
    """Controls for N, the queue, its buffer, the dropper's policy, the span and the seed;
    redraws the windows (Figs. 9 and 12) of a fresh run."""
    style = {"description_width": "initial"}
    n_slider = w.IntSlider(flows, min=1, max=20, description="N", style=style)
    queue_menu = w.Dropdown(options=list(QUEUES), value=queue, description="queue", style=style)
    buffer_slider = w.IntSlider(buffer, min=3, max=150, description="buffer b", style=style)
    select_menu = w.Dropdown(
        options=list(SELECTIONS), value="random", description="dropper picks", style=style
    )
    seconds_slider = w.IntSlider(10, min=2, max=60, description="seconds", style=style)
    seed_slider = w.IntSlider(0, min=0, max=9, description="seed", style=style)

    def redraw() -> alt.TopLevelMixin:
        n, q, b = n_slider.value, queue_menu.value, buffer_slider.value
        frame, numbers = dumbbell_live(
            n, q, b, select_menu.value, seconds_slider.value, seed_slider.value
        )
        title = [  # two lines: the chart is narrower than the sentence
            f"N = {n}, {q}, b = {b}: {numbers['utilisation']:.1%} of the link "
            f"(Theorem 1: {numbers['theorem1']:.1%})",
            f"{numbers['mean_signalled']:.1f} connections signalled per congestion event, "
            f"{numbers['timeouts']} time-outs",
        ]
        chart = windows_chart(frame, q, b, n, span=seconds_slider.value, title=title)
        return chart

    controls = [n_slider, queue_menu, buffer_slider, select_menu, seconds_slider, seed_slider]
    return live_panel(
        controls,
        redraw,
        "Choose N, the queue and its buffer; the packet model reruns the dumbbell.",
    )
