"""Live panel of the sawtooth chapter: the exact path of one AIMD connection for any beta, eta.

Like every panel of the book (:mod:`tcplab.widgets`), it reruns the model when a Jupyter
kernel is attached and shows a short note on the static page; there the note offers to run
the same panel in the reader's browser (:mod:`tcplab.inbrowser`, Pyodide), built from the
same :class:`~tcplab.panels.PanelSpec`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import altair as alt

from tcplab import fluid, policies
from tcplab.panels import Control, PanelSpec
from tcplab.theory import altman

from .charts import sawtooth_path_chart

if TYPE_CHECKING:
    from tcplab.widgets import LivePanel

__all__ = ["draw", "sawtooth_spec", "sawtooth_panel"]

WHAT = "Move β, η and the number of congestion events; the exact fluid path is recomputed."


def draw(beta: float, eta: float, events: int) -> alt.TopLevelMixin:
    """The exact fluid path of one connection for ``events`` congestion events, titled with
    its long-run mean rate (1000 events) beside the formula (1 + beta)/2."""
    events = int(events)
    path = fluid.sample_path(
        1, policies.AllFlows(), beta=beta, eta=eta, events=events, start=[beta]
    )
    result = fluid.simulate(1, policies.AllFlows(), beta=beta, eta=eta, events=1000, replicas=1)
    title = (
        f"β = {beta:.2f}, η = {eta:.3g}: mean {result.aggregate:.2%} of c "
        f"(formula {altman.sawtooth_utilisation(beta):.2%})"
    )
    chart = sawtooth_path_chart(path.to_frame()[["time", "rate"]], title=title)
    return chart.properties(width=520, height=220)


def sawtooth_spec(beta: float = 0.5, eta: float = 1.0, events: int = 8) -> PanelSpec:
    """The panel's sliders (beta, eta on a log2 scale, events) and its drawing."""
    return PanelSpec(
        (
            Control("beta", "β", 0.05, 0.95, 0.01, beta),
            Control("eta", "η", -3, 3, 0.25, eta, kind="log2"),
            Control("events", "events", 1, 40, 1, events, kind="int"),
        ),
        draw,
        WHAT,
    )


def sawtooth_panel(beta: float = 0.5, eta: float = 1.0, events: int = 8) -> LivePanel:
    """Sliders for beta, eta and the number of congestion events; redraws the exact path.
    On the static page it can run in the reader's browser."""
    from tcplab.widgets import spec_panel

    return spec_panel(sawtooth_spec(beta, eta, events), browser=sawtooth_spec)
