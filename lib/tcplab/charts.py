"""One house style for every chart in the book, and a renderer that needs no internet.

Charts are altair (Vega-Lite) specs. In the built book each chart is a ``<div>`` plus its spec
in a JSON script tag; ``_static/tcplab-charts.js`` draws it with the Vega bundle the book serves
itself, so sliders (Vega-Lite params) work on a static page with no kernel and no CDN. In a live
Jupyter kernel the same output also carries the Vega-Lite MIME type for JupyterLab to draw.
Colours are a colour-blind-safe palette after Okabe and Ito whose every colour reads on white
(:data:`PALETTE`, seven colours) or, for eight to ten series, :data:`PALETTE_10`; the paper's
values are always drawn in the same colour and mark (open diamonds), beside ours. Captions
name marks by their shape and legend entry, never by a colour alone.

The book fits every chart to the width of its column (``_static/tcplab-charts.js``): a chart
is written for a wide column (views up to about 520 px wide, legends below), and on a narrow
screen facets wrap, side-by-side views stack and widths shrink. Every chart carries a short
text description (:func:`describe`: what it shows and its key numbers), which becomes the
accessible name of its SVG; in dark mode the colours of :data:`DARK` replace their light
counterparts.

A chart's table travels inside the page as CSV with a parse directive (:func:`csv_values`),
not as JSON records that repeat every field name on every row: a page with ten thousand
points stays light enough for a phone.
"""

from __future__ import annotations

import hashlib
import html
import itertools
import json
from fractions import Fraction
from typing import Any, TypeVar

import altair as alt
import pandas as pd

__all__ = [
    "PALETTE",
    "PALETTE_10",
    "DARK",
    "OURS",
    "FORMULA",
    "PAPER",
    "ROLE_COLOURS",
    "enable",
    "category_range",
    "describe",
    "to_html",
    "to_svg",
    "role_scale",
    "role_colour",
    "slider",
    "grid_step",
    "fraction",
    "csv_values",
    "dense",
    "HIGHLIGHT_ABOVE",
    "highlight",
]

# Okabe & Ito (2008)'s blue, bluish green, vermillion and reddish purple, and black; their
# orange, sky blue and yellow (2.3:1, 2.3:1 and 1.3:1 on white) replaced by a dark brown and
# a violet, so that every series reads on white at 3:1 or more (WCAG 1.4.11, graphical
# objects). Brown, violet and black were chosen, among the colours of 3:1 or more, for the
# largest smallest colour difference (CIELAB) from the others and each other, as seen with
# normal vision and simulated deuteranopia, protanopia and tritanopia (Machado et al. 2009):
# at least 17, where Okabe-Ito's own seven reach 16 (tests/test_chart_craft.py). In dark
# mode, black and the dark colours become the light ones of DARK.
PALETTE = ["#0072B2", "#663311", "#009E73", "#D55E00", "#CC79A7", "#7733DD", "#000000"]
OURS = "simulation (ours)"
FORMULA = "formula"
PAPER = "paper"
ROLE_COLOURS = {OURS: "#0072B2", FORMULA: "#009E73", PAPER: "#D55E00"}
# For eight to ten series, such as ten connections' windows, where seven colours would
# repeat: PALETTE and three more chosen the same way (3:1 or more on white, the largest
# smallest difference under the three simulated colour vision deficiencies: 17 or more).
# Ten colours still read apart only with care: such charts highlight a series on a click on
# its legend entry (highlight_series).
PALETTE_10 = PALETTE + ["#EE0055", "#BB66FF", "#993377"]
# Dark-mode replacements for the colours that are too dark on a dark page (contrast >= 4.5:1
# on #14181e); the rest of both palettes read on either background.
DARK = {
    "#000000": "#E0E0E0",
    "#663311": "#C08850",
    "#7733DD": "#B08CF0",
    "#EE0055": "#FF4D88",
    "#993377": "#C77AA8",
    "#0072B2": "#3A9CE6",
    "#D55E00": "#FF7A2E",
    "#009E73": "#19C795",
    "#CC79A7": "#E89BC6",
}

# altair 6 names it "application/vnd.vegalite.v6.json", which nbformat rejects for JSON data.
VEGALITE_MIME_TYPE = "application/vnd.vegalite.v6+json"  # also in tcplab.book
_chart_numbers = itertools.count(1)
ChartT = TypeVar("ChartT", bound=alt.TopLevelMixin)


def _theme() -> alt.theme.ThemeConfig:
    return {
        "config": {
            "background": "transparent",
            "view": {"continuousWidth": 520, "continuousHeight": 280, "stroke": None},
            "range": {"category": PALETTE},
            "font": "system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif",
            # labels at least 6 px apart: Vega drops the ones that would run together
            # ("1,0002,000"), on a narrowed panel too
            "axis": {
                "labelFontSize": 12,
                "titleFontSize": 13,
                "gridOpacity": 0.35,
                "labelSeparation": 6,
            },
            "legend": {"labelFontSize": 12, "titleFontSize": 12, "orient": "bottom"},
            "title": {"fontSize": 15, "anchor": "start"},
            "line": {"strokeWidth": 2},
        }
    }


def category_range(count: int) -> list[str]:
    """Colours for ``count`` series: the seven of :data:`PALETTE`, or the ten of
    :data:`PALETTE_10` for eight to ten.

    More than ten series cannot be told apart by colour: a ``ValueError`` says so."""
    if count <= len(PALETTE):
        return PALETTE[: max(count, 1)]
    if count <= len(PALETTE_10):
        return PALETTE_10[:count]
    raise ValueError(f"count={count}: at most {len(PALETTE_10)} series can be told apart by colour")


def describe(chart: ChartT, text: str) -> ChartT:
    """Give ``chart`` its short text description: what it shows and its key numbers.

    It becomes the accessible name of the chart's SVG in the book (screen readers read it
    instead of the marks); the figure's caption is linked to it as its description."""
    if not text.strip():
        raise ValueError("text='': a chart's description must say what it shows")
    return chart.properties(description=" ".join(text.split()))


def dense(chart: ChartT) -> ChartT:
    """Mark ``chart`` as drawing thousands of marks: the book draws it on a canvas instead of
    as SVG (one DOM node per mark would take tens of seconds on a phone). Its name, size
    checks and dark colours are the same; only its text is not searchable in the page."""
    meta = getattr(chart, "usermeta", None)
    meta = meta if isinstance(meta, dict) else {}
    return chart.properties(usermeta={**meta, "tcplab": {**meta.get("tcplab", {}), "canvas": True}})


def _title_text(title: object) -> str:
    if isinstance(title, dict):
        title = title.get("text", "")
    if isinstance(title, list):
        title = " ".join(map(str, title))
    return str(title or "")


def to_html(spec: dict[str, Any]) -> str:
    """The HTML a chart becomes in the book: a container and its spec as inert JSON.

    The spec gains the dark-mode colours (``usermeta``) and, when it has none, a description
    from its title, so that every chart has an accessible name."""
    spec = dict(spec)
    meta = spec.get("usermeta", {})
    spec["usermeta"] = {**meta, "tcplab": {**meta.get("tcplab", {}), "dark": DARK}}
    if not spec.get("description") and _title_text(spec.get("title")):
        spec["description"] = _title_text(spec.get("title"))
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


def csv_values(data: Any) -> dict[str, Any]:
    """Altair's data transformer for the book: a DataFrame becomes inline CSV and a parse
    directive (numbers to 12 significant digits, booleans as ``true``/``false``), which
    Vega reads back into the same values as JSON records would give, at a third of the size.

    Anything that is not a DataFrame goes through altair's own ``to_values``."""
    if not isinstance(data, pd.DataFrame):
        return alt.utils.data.to_values(data)
    table = pd.DataFrame(index=range(len(data)))
    parse: dict[str, str] = {}
    for name, column in data.items():
        key = str(name)
        column = column.reset_index(drop=True)
        present = column.dropna()
        if pd.api.types.is_bool_dtype(column) or (
            column.dtype == object and len(present) and present.map(type).eq(bool).all()
        ):
            table[key] = column.map({True: "true", False: "false"})
            parse[key] = "boolean"
        elif pd.api.types.is_datetime64_any_dtype(column):
            table[key] = column.map(lambda t: t.isoformat() if pd.notna(t) else "")
            parse[key] = "date"
        elif pd.api.types.is_numeric_dtype(column):
            table[key] = column.replace([float("inf"), float("-inf")], float("nan"))
            parse[key] = "number"
        else:
            table[key] = column.astype("string")
    text = table.to_csv(index=False, float_format="%.12g", lineterminator="\n")
    return {"values": text, "format": {"type": "csv", "parse": parse}}


def enable() -> None:
    """Make the house renderer, theme and data transformer the active ones (done on import)."""
    alt.renderers.register("tcplab", _render)
    alt.renderers.enable("tcplab")
    alt.theme.register("tcplab", enable=True)(_theme)
    alt.data_transformers.register("tcplab", csv_values)
    alt.data_transformers.enable("tcplab")


def role_scale(roles: list[str] | None = None) -> alt.Scale:
    """Colour scale that gives ours, the formula and the paper their fixed colours."""
    names = roles or list(ROLE_COLOURS)
    return alt.Scale(domain=names, range=[ROLE_COLOURS[name] for name in names])


def role_colour(roles: list[str] | None = None, legend: alt.Legend | None = None) -> alt.Color:
    """The ``role`` colour channel: ours, the formula and the paper in their fixed colours."""
    if legend is None:
        return alt.Color("role:N", title=None, scale=role_scale(roles))
    return alt.Color("role:N", title=None, scale=role_scale(roles), legend=legend)


#: a chart with more series than this, told apart by colour alone only with care, lets the
#: reader bring one series forward (:func:`highlight`)
HIGHLIGHT_ABOVE = 6
#: the opacity of the series not chosen while one is highlighted
FADED = 0.12


def highlight(
    field: str, name: str = "highlight", shown: float = 1.0, faded: float = FADED
) -> tuple[alt.Parameter, Any]:
    """A click on a legend entry (or on a mark) of the series ``field`` brings that series
    forward: the others fade to ``faded``; shift-click adds one, a double-click clears it.

    Returns the param (add it to the view whose colour legend lists ``field``) and the
    ``opacity`` encoding for every layer that draws the series (``shown`` when chosen or
    nothing is). A Vega-Lite selection: it works on the static page, no kernel."""
    chosen = alt.selection_point(name=name, fields=[field], bind="legend")
    return chosen, alt.condition(chosen, alt.value(shown), alt.value(faded))


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
