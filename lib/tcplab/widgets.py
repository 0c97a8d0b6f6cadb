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

__all__ = ["LivePanel", "live_panel", "show_chart"]

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


def live_panel(controls: list[w.Widget], redraw: Callable[[], None], what: str) -> LivePanel:
    """A panel whose ``redraw`` runs once now and again whenever a control changes."""
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


def show_chart(chart: Any) -> None:
    """Draw an altair chart in a panel's output as SVG (no JavaScript needed)."""
    from . import charts

    display(SVG(charts.to_svg(chart)))
