"""One house style for every chart in the book, and a renderer that needs no internet.

Charts are altair (Vega-Lite) specs. In the built book each chart is a ``<div>`` plus its spec
in a JSON script tag; ``_static/tcplab-charts.js`` draws it with the Vega bundle the book serves
itself, so sliders (Vega-Lite params) work on a static page with no kernel and no CDN. In a live
Jupyter kernel the same output also carries the Vega-Lite MIME type for JupyterLab to draw.
Colours are the Okabe-Ito colour-blind-safe palette; the paper's values are always drawn in
the same colour and mark, beside ours.
"""

from __future__ import annotations

import hashlib
import html
import itertools
import json
from fractions import Fraction
from typing import Any

import altair as alt
import pandas as pd

__all__ = [
    "PALETTE",
    "OURS",
    "FORMULA",
    "PAPER",
    "ROLE_COLOURS",
    "enable",
    "to_html",
    "to_svg",
    "role_scale",
    "role_colour",
    "slider",
    "grid_step",
    "fraction",
]

# Okabe & Ito (2008), without black so every colour reads on light and dark backgrounds.
PALETTE = ["#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442"]
OURS = "simulation (ours)"
FORMULA = "formula"
PAPER = "paper"
ROLE_COLOURS = {OURS: "#0072B2", FORMULA: "#009E73", PAPER: "#D55E00"}

# altair 6 names it "application/vnd.vegalite.v6.json", which nbformat rejects for JSON data.
VEGALITE_MIME_TYPE = "application/vnd.vegalite.v6+json"  # also in tcplab.book
_chart_numbers = itertools.count(1)


def _theme() -> alt.theme.ThemeConfig:
    return {
        "config": {
            "background": "transparent",
            "view": {"continuousWidth": 520, "continuousHeight": 280, "stroke": None},
            "range": {"category": PALETTE},
            "font": "system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif",
            "axis": {"labelFontSize": 12, "titleFontSize": 13, "gridOpacity": 0.35},
            "legend": {"labelFontSize": 12, "titleFontSize": 12, "orient": "bottom"},
            "title": {"fontSize": 15, "anchor": "start"},
            "line": {"strokeWidth": 2},
        }
    }


def to_html(spec: dict[str, Any]) -> str:
    """The HTML a chart becomes in the book: a container and its spec as inert JSON."""
    text = json.dumps(spec, sort_keys=True, separators=(",", ":"))
    digest = hashlib.sha1(text.encode()).hexdigest()[:10]
    chart_id = f"tcplab-chart-{digest}-{next(_chart_numbers)}"
    safe = text.replace("</", "<\\/")  # a spec may not close its own script tag
    return (
        f'<div class="tcplab-chart" id="{html.escape(chart_id)}" '
        f'data-spec-id="{html.escape(chart_id)}-spec"></div>\n'
        f'<script type="application/json" id="{html.escape(chart_id)}-spec">{safe}</script>'
    )


def _render(spec: dict[str, Any], **_: Any) -> dict[str, Any]:
    return {
        "text/html": to_html(spec),
        VEGALITE_MIME_TYPE: spec,
        "text/plain": f"<tcplab chart: {spec.get('title', 'untitled')}>",
    }


def to_svg(chart: alt.TopLevelMixin) -> str:
    """Render a chart to SVG in the kernel (no browser), for live panels and exports."""
    import vl_convert

    return vl_convert.vegalite_to_svg(chart.to_dict())


def enable() -> None:
    """Make the house renderer and theme the active ones (done on import)."""
    alt.renderers.register("tcplab", _render)
    alt.renderers.enable("tcplab")
    alt.theme.register("tcplab", enable=True)(_theme)
    alt.data_transformers.disable_max_rows()


def role_scale(roles: list[str] | None = None) -> alt.Scale:
    """Colour scale that gives ours, the formula and the paper their fixed colours."""
    names = roles or list(ROLE_COLOURS)
    return alt.Scale(domain=names, range=[ROLE_COLOURS[name] for name in names])


def role_colour(roles: list[str] | None = None, legend: alt.Legend | None = None) -> alt.Color:
    """The ``role`` colour channel: ours, the formula and the paper in their fixed colours."""
    if legend is None:
        return alt.Color("role:N", title=None, scale=role_scale(roles))
    return alt.Color("role:N", title=None, scale=role_scale(roles), legend=legend)


def grid_step(values: pd.Series) -> float:
    """The smallest gap between the distinct values of a slider's grid (1 for one value)."""
    steps = sorted(set(values.astype(float).round(6)))
    if len(steps) < 2:
        return 1.0
    return round(min(b - a for a, b in zip(steps, steps[1:], strict=False)), 6)


def fraction(value: float, fallback: str | None = "") -> str:
    """``5/24``, ``1/16`` or ``4`` when ``value`` is such a fraction (denominator up to
    100 000, to 1e-12); else ``fallback``, or ``f"{value:g}"`` when ``fallback`` is None."""
    if value == value and abs(value) != float("inf"):  # not NaN, not infinite
        exact = Fraction(value).limit_denominator(100_000)
        if abs(float(exact) - value) < 1e-12:
            return str(exact)
    return f"{value:g}" if fallback is None else fallback


def slider(
    name: str, label: str, minimum: float, maximum: float, step: float, value: float
) -> alt.Parameter:
    """A Vega-Lite param bound to a range slider: moving it redraws the chart, no kernel."""
    return alt.param(
        name=name,
        value=value,
        bind=alt.binding_range(min=minimum, max=maximum, step=step, name=label),
    )


enable()
