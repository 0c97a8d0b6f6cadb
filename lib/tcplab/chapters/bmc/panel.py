"""Live panel of the weighted-AIMD chapter: the fluid proportion manager, rerun on each move.

Pick the scenario (Figs. 3.1-3.2 or Fig. 4.1), J, K, the two link rates the scenario varies
and how long to watch; the panel runs :func:`tcplab.multipath.manage` (exact, milliseconds)
and redraws the weights and each source's Mb/s per period. Like every panel of the book
(:mod:`tcplab.widgets`) it reruns the model when a Jupyter kernel is attached; on the static
page the same :class:`~tcplab.panels.PanelSpec` runs in the reader's browser
(:mod:`tcplab.inbrowser`, Pyodide).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import altair as alt
import pandas as pd

from tcplab import multipath as mp
from tcplab.checks import check_choice, check_range
from tcplab.panels import Control, PanelSpec

if TYPE_CHECKING:
    from tcplab.widgets import LivePanel

__all__ = ["draw", "manager_series", "series_chart", "manager_panel", "manager_spec"]


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


def draw(
    scenario: str, j_s: float, k: float, first: float, second: float, duration: int
) -> alt.HConcatChart:
    """The fluid manager's weights and rates for the scenario and its parameters."""
    return series_chart(manager_series(scenario, j_s, k, first, second, float(duration)))


def manager_spec(scenario: str = "pooling") -> PanelSpec:
    """The panel's controls (the scenario, J, K, the two link rates, the span) and its
    drawing."""
    return PanelSpec(
        (
            Control.choice("scenario", "scenario", tuple(mp.SCENARIOS), scenario),
            Control("j_s", "J (s)", 1.0, 30.0, 1.0, 10.0),
            Control("k", "K", 0.05, 1.0, 0.05, 0.5),
            Control("first", "link 1 (Mb/s)", 1.0, 20.0, 0.5, 8.0),
            Control("second", "link 2 (Mb/s)", 1.0, 20.0, 0.5, 10.0),
            Control("duration", "seconds", 50, 2000, 50, 400, kind="int"),
        ),
        draw,
        "The fluid proportion manager of Figs. 3.1-3.2 and 4.1 for any J, K and link rates.",
    )


def manager_panel(scenario: str = "pooling") -> LivePanel:
    """Controls for the scenario, J, K, the two link rates and the span; redraws the fluid
    manager's weights and rates. On the static page it can run in the reader's browser."""
    from tcplab.widgets import spec_panel

    return spec_panel(manager_spec(scenario), browser=manager_spec)
