"""Live panel of the weighted-AIMD chapter: the fluid proportion manager, rerun on each move.

Pick the scenario (Figs. 3.1-3.2 or Fig. 4.1), J, K, the two link rates the scenario varies
and how long to watch; the panel runs :func:`tcplab.multipath.manage` (exact, milliseconds)
and redraws the weights and each source's Mb/s per period. Like every panel of the book
(:mod:`tcplab.widgets`) it needs a kernel and shows a note on the static page.
"""

from __future__ import annotations

import altair as alt
import ipywidgets as w
import pandas as pd

from tcplab import multipath as mp
from tcplab.checks import check_choice, check_range
from tcplab.widgets import LivePanel, live_panel

__all__ = ["manager_series", "series_chart", "manager_panel"]


def _scene(scenario: str, first: float, second: float) -> mp.Scenario:
    check_choice("scenario", scenario, mp.SCENARIOS)
    if scenario == "shared":
        return mp.shared(spare=(first, second))
    return mp.pooling((first, second))


def manager_series(
    scenario: str = "pooling",
    j_s: float = 10.0,
    k: float = 0.5,
    first: float = 8.0,
    second: float = 10.0,
    duration: float = 400.0,
) -> pd.DataFrame:
    """The fluid manager from weights 1/2, 1/2: long rows (t, series, value, kind), series
    the weights D1, D2 and each source's Mb/s at the weights of that period. ``first`` and
    ``second`` are the spare rates of the disjoint links (``shared``) or the two bottlenecks
    (``pooling``)."""
    duration = check_range("duration", duration, j_s)
    scene = _scene(scenario, first, second)
    run = mp.manage(scene, j_s=j_s, k=k, duration=duration)
    rows = []
    for _, part in run.history.groupby("period"):
        weights = part.sort_values("subflow")["weight"].to_numpy()
        t = float(part["t"].iloc[0])
        rows += [
            {"t": t, "series": f"D{i + 1}", "value": float(d), "kind": "weight"}
            for i, d in enumerate(weights)
        ]
        sources: dict[str, float] = {}
        for (s, _, _), x in zip(scene.flows(), mp.allocate(scene, weights), strict=True):
            sources[s] = sources.get(s, 0.0) + float(x)
        rows += [{"t": t, "series": s, "value": v, "kind": "Mb/s"} for s, v in sources.items()]
    return pd.DataFrame(rows)


def series_chart(series: pd.DataFrame) -> alt.HConcatChart:
    """The weights and the sources' Mb/s over time, side by side."""

    def one(kind: str, title: str) -> alt.Chart:
        return (
            alt.Chart(series[series["kind"] == kind])
            .mark_line(point=True)
            .encode(
                x=alt.X("t:Q", title="time (s)"),
                y=alt.Y("value:Q", title=title),
                color=alt.Color("series:N", title=None),
                tooltip=["series:N", "t:Q", alt.Tooltip("value:Q", format=".3f")],
            )
            .properties(width=280, height=180)
        )

    return alt.hconcat(one("weight", "weight"), one("Mb/s", "Mb/s per source"))


def manager_panel(scenario: str = "pooling") -> LivePanel:
    """Controls for the scenario, J, K, the two link rates and the span; redraws the fluid
    manager's weights and rates."""
    style = {"description_width": "initial"}
    menu = w.Dropdown(options=list(mp.SCENARIOS), value=scenario, description="scenario")
    j = w.FloatSlider(10.0, min=1.0, max=30.0, step=1.0, description="J (s)", style=style)
    k = w.FloatSlider(0.5, min=0.05, max=1.0, step=0.05, description="K", style=style)
    first = w.FloatSlider(8.0, min=1.0, max=20.0, step=0.5, description="link 1 (Mb/s)")
    second = w.FloatSlider(10.0, min=1.0, max=20.0, step=0.5, description="link 2 (Mb/s)")
    span = w.IntSlider(400, min=50, max=2000, step=50, description="seconds", style=style)
    first.style, second.style = style, style

    def redraw() -> alt.HConcatChart:
        return series_chart(
            manager_series(menu.value, j.value, k.value, first.value, second.value, span.value)
        )

    what = "The fluid proportion manager of Figs. 3.1-3.2 and 4.1 for any J, K and link rates."
    return live_panel([menu, j, k, first, second, span], redraw, what)
