"""Live panel of the packet chapter: the dumbbell of Altman et al.'s Section V, rerun.

Pick N, the queue (DropTail, RED, the threshold-dropper and its policy), the buffer and how
many seconds to watch; the panel runs the packet model in the chapter's set-up (5 Mb/s,
120 ms, 1000-byte packets) and redraws the windows and their sum, with the utilisation
beside Theorem 1 and the number of connections signalled per congestion event. Like every
panel of the book (:mod:`tcplab.widgets`) it reruns the model when a Jupyter kernel is
attached; on the static page the same :class:`~tcplab.panels.PanelSpec` runs in the reader's
browser (:mod:`tcplab.inbrowser`, Pyodide).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import altair as alt
import numpy as np
import pandas as pd

from tcplab.checks import check_choice, check_range
from tcplab.packet import QUEUES, SELECTIONS
from tcplab.panels import Control, PanelSpec
from tcplab.theory import altman

from . import experiments as packets
from .charts import windows_chart
from .signals import congestion_events, loss_signals, window_frame

if TYPE_CHECKING:
    from tcplab.widgets import LivePanel

__all__ = ["draw", "dumbbell_live", "packets_panel", "packets_spec"]

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


def draw(
    flows: int, queue: str, buffer: int, select: str, seconds: int, seed: int
) -> alt.TopLevelMixin:
    """The windows (Figs. 9 and 12) of a fresh run, titled with its utilisation beside
    Theorem 1, the connections signalled per congestion event and the time-outs."""
    n, b, seconds = int(flows), int(buffer), int(seconds)
    frame, numbers = dumbbell_live(n, queue, b, select, seconds, int(seed))
    title = [  # two lines: the chart is narrower than the sentence
        f"N = {n}, {queue}, b = {b}: {numbers['utilisation']:.1%} of the link "
        f"(Theorem 1: {numbers['theorem1']:.1%})",
        f"{numbers['mean_signalled']:.1f} connections signalled per congestion event, "
        f"{numbers['timeouts']} time-outs",
    ]
    return windows_chart(frame, queue, b, n, span=seconds, title=title)


def packets_spec(flows: int = 10, queue: str = "droptail", buffer: int = 5) -> PanelSpec:
    """The panel's controls (N, the queue, its buffer, the dropper's policy, the span, the
    seed) and its drawing."""
    return PanelSpec(
        (
            Control("flows", "N", 1, 20, 1, flows, kind="int"),
            Control.choice("queue", "queue", tuple(QUEUES), queue),
            Control("buffer", "buffer b", 3, 150, 1, buffer, kind="int"),
            Control.choice("select", "dropper picks", tuple(SELECTIONS), "random"),
            Control("seconds", "seconds", 2, 60, 1, 10, kind="int"),
            Control("seed", "seed", 0, 9, 1, 0, kind="int"),
        ),
        draw,
        "Choose N, the queue and its buffer; the packet model reruns the dumbbell.",
    )


def packets_panel(flows: int = 10, queue: str = "droptail", buffer: int = 5) -> LivePanel:
    """Controls for N, the queue, its buffer, the dropper's policy, the span and the seed;
    redraws the windows (Figs. 9 and 12) of a fresh run. On the static page it can run in
    the reader's browser."""
    from tcplab.widgets import spec_panel

    return spec_panel(packets_spec(flows, queue, buffer), browser=packets_spec)
