"""Live panel of the sawtooth chapter: the exact path of one AIMD connection for any beta, eta.

Like every panel of the book (:mod:`tcplab.widgets`), it reruns the model when a Jupyter
kernel is attached and shows a short note on the static page.
"""

from __future__ import annotations

import altair as alt
import ipywidgets as w

from tcplab import fluid, policies
from tcplab.theory import altman
from tcplab.widgets import LivePanel, live_panel

from .charts import sawtooth_path_chart

__all__ = ["sawtooth_panel"]


def sawtooth_panel(beta: float = 0.5, eta: float = 1.0, events: int = 8) -> LivePanel:
    """Sliders for beta, eta and the number of congestion events; redraws the exact path."""
    style = {"description_width": "initial"}
    beta_slider = w.FloatSlider(beta, min=0.05, max=0.95, step=0.01, description="β", style=style)
    eta_slider = w.FloatLogSlider(
        eta, base=2, min=-3, max=3, step=0.25, description="η", style=style
    )
    events_slider = w.IntSlider(events, min=1, max=40, description="events", style=style)

    def redraw() -> alt.TopLevelMixin:
        b, e, k = beta_slider.value, eta_slider.value, events_slider.value
        path = fluid.sample_path(1, policies.AllFlows(), beta=b, eta=e, events=k, start=[b])
        result = fluid.simulate(1, policies.AllFlows(), beta=b, eta=e, events=1000, replicas=1)
        title = (
            f"β = {b:.2f}, η = {e:.3g}: mean {result.aggregate:.2%} of c "
            f"(formula {altman.sawtooth_utilisation(b):.2%})"
        )
        chart = sawtooth_path_chart(path.to_frame()[["time", "rate"]], title=title)
        return chart.properties(width=520, height=220)

    return live_panel(
        [beta_slider, eta_slider, events_slider],
        redraw,
        "Move β, η and the number of congestion events; the exact fluid path is recomputed.",
    )
