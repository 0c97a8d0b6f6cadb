"""Live panels: ipywidgets that rerun a model when a Jupyter kernel is attached.

A panel is a widget box wrapped so that, on a static page of the book (no kernel), it shows a
short note saying how to get the live version instead of dead sliders. Charts in a panel are
rendered to SVG in the kernel, so they work in any Jupyter front end with no JavaScript.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import ipywidgets as w
from IPython.display import SVG, display

from . import charts, fluid, policies
from .charts.sawtooth import sawtooth_path_chart
from .theory import altman

__all__ = ["LivePanel", "sawtooth_panel"]

_NOTE = (
    '<div class="tcplab-live-note"><strong>Live panel.</strong> {what} It reruns the model '
    "when the page runs in Jupyter: use the launch button (rocket icon) at the top of the page, "
    "or clone the book and open this chapter in JupyterLab. The static sliders above need no "
    "kernel.</div>"
)


class LivePanel:
    """A widget that shows itself in Jupyter and falls back to a note on a static page."""

    def __init__(self, widget: w.Widget, what: str) -> None:
        self.widget = widget
        self.what = what

    def _repr_mimebundle_(self, **kwargs: Any) -> dict[str, Any]:
        bundle = self.widget._repr_mimebundle_(**kwargs) or {}
        return {**bundle, "text/html": _NOTE.format(what=self.what)}


def _panel(controls: list[w.Widget], redraw: Callable[[], None], what: str) -> LivePanel:
    output = w.Output()

    def update(_: Any = None) -> None:
        with output:
            output.clear_output(wait=True)
            try:
                redraw()
            except ValueError as error:  # an out-of-range value: say so, keep the panel alive
                print(f"error: {error}")

    for control in controls:
        control.observe(update, names="value")
    update()
    return LivePanel(w.VBox([w.HBox(controls), output]), what)


def sawtooth_panel(beta: float = 0.5, eta: float = 1.0, events: int = 8) -> LivePanel:
    """Sliders for beta, eta and the number of congestion events; redraws the exact path."""
    style = {"description_width": "initial"}
    beta_slider = w.FloatSlider(beta, min=0.05, max=0.95, step=0.01, description="β", style=style)
    eta_slider = w.FloatLogSlider(
        eta, base=2, min=-3, max=3, step=0.25, description="η", style=style
    )
    events_slider = w.IntSlider(events, min=1, max=40, description="events", style=style)

    def redraw() -> None:
        b, e, k = beta_slider.value, eta_slider.value, events_slider.value
        path = fluid.sample_path(1, policies.AllFlows(), beta=b, eta=e, events=k, start=[b])
        result = fluid.simulate(1, policies.AllFlows(), beta=b, eta=e, events=1000, replicas=1)
        title = (
            f"β = {b:.2f}, η = {e:.3g}: mean {result.aggregate:.2%} of c "
            f"(formula {altman.sawtooth_utilisation(b):.2%})"
        )
        chart = sawtooth_path_chart(path.to_frame()[["time", "rate"]], title=title)
        display(SVG(charts.to_svg(chart.properties(width=520, height=220))))

    return _panel(
        [beta_slider, eta_slider, events_slider],
        redraw,
        "Move β, η and the number of congestion events; the exact fluid path is recomputed.",
    )
