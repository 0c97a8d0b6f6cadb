"""Live panel: N weighted AIMD flows against N TCP flows, for a weight D and a queue.

The round-by-round model of :mod:`tcplab.chapters.bmc.rounds` (milliseconds), redrawn on each
move: the ratio of the weighted flows' mean window to TCP's as the run goes on, beside the two
predictions, D (equal loss per packet: RED, random loss) and D^2 (synchronised drops:
DropTail with equal RTTs). Like every panel of the book it reruns the model when a Jupyter
kernel is attached, and in the reader's browser on the static page (Pyodide).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import altair as alt
import pandas as pd

from tcplab.panels import Control, PanelSpec

from .rounds import QUEUES, rounds_run

if TYPE_CHECKING:
    from tcplab.widgets import LivePanel

__all__ = ["law_chart", "draw", "law_spec", "law_panel"]


def law_chart(run: pd.DataFrame, weight: float) -> alt.TopLevelMixin:
    """The running ratio (solid) with the two predictions D and D^2 (dashed rules)."""
    data = run.dropna(subset=["ratio"])
    line = (
        alt.Chart(data)
        .mark_line()
        .encode(
            x=alt.X("round:Q", title="round trip"),
            y=alt.Y("ratio:Q", title="weighted / TCP (mean window so far)"),
            tooltip=["round:Q", alt.Tooltip("ratio:Q", format=".3f")],
        )
    )
    marks = pd.DataFrame(
        {"value": [weight, weight * weight],
         "prediction": ["D (equal loss per packet)", "D² (synchronised drops)"]}
    )  # fmt: skip
    rules = (
        alt.Chart(marks)
        .mark_rule(strokeDash=[4, 3])
        .encode(y="value:Q", color=alt.Color("prediction:N", title=None))
    )
    return alt.layer(line, rules, width=420, height=220)


def draw(weight: float, flows: int, queue: str, rounds: int, seed: int) -> alt.TopLevelMixin:
    """The model's run for the controls, as :func:`law_chart`."""
    return law_chart(rounds_run(weight, flows, queue, rounds, seed=seed), weight)


def law_spec() -> PanelSpec:
    """The panel's controls (D, N, the queue, the run's length, the seed) and its drawing."""
    return PanelSpec(
        (
            Control("weight", "D", 0.1, 1.0, 0.05, 0.5),
            Control("flows", "N of each", 1, 32, 1, 4, kind="int"),
            Control.choice("queue", "queue", QUEUES, "red"),
            Control("rounds", "round trips", 1000, 20000, 1000, 4000, kind="int"),
            Control("seed", "seed", 0, 99, 1, 0, kind="int"),
        ),
        draw,
        "N AIMD(D², 1/2) flows against N TCP flows, round by round: the ratio against D and D².",
    )


def law_panel() -> LivePanel:
    """Controls for D, N, the queue, the length and the seed; redraws the running ratio. On
    the static page it can run in the reader's browser."""
    from tcplab.widgets import spec_panel

    return spec_panel(law_spec(), browser=law_spec)
