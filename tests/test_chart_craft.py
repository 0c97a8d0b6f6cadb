"""Chart craft from the reader's second pass (issue 36, the figures' smaller defects): series
colours that read on white, a palette still safe for colour-blind readers, and the figures the
reader named. Each test checks the altair spec (``chart.to_dict()``) or the chart as Vega draws
it (vl_convert, no browser); the survey of every chart of the book reads the built book's specs.

Expectations come from outside the code: WCAG 2.1's contrast formula and its 3:1 for graphical
objects (success criterion 1.4.11), Machado, Oliveira and Fernandes (2009)'s matrices for
simulated colour vision deficiencies (severity 1), CIE 1976 L*a*b* differences, and Okabe and
Ito (2008)'s palette as the colour-blind-safe reference.
"""

from __future__ import annotations

import itertools
import json
import math
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from spec_tools import units, views

from tcplab import charts

# ---- colour arithmetic, by the published formulas ------------------------------------------

WHITE = "#FFFFFF"
#: WCAG 2.1 SC 1.4.11: graphical objects needed to understand the content, 3:1
NON_TEXT_CONTRAST = 3.0
#: Okabe & Ito (2008), "Color Universal Design", their eight colours less black (the book's
#: palette before issue 36): the colour-blind-safe reference the book's palette must match
OKABE_ITO = ["#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442"]

#: Machado, Oliveira & Fernandes (2009), severity 1.0, on linear RGB
CVD = {
    "deuteranopia": ((0.367322, 0.860646, -0.227968), (0.280085, 0.672501, 0.047413),
                     (-0.011820, 0.042940, 0.968881)),
    "protanopia": ((0.152286, 1.052583, -0.204868), (0.114503, 0.786281, 0.099216),
                   (-0.003882, -0.048116, 1.051998)),
    "tritanopia": ((1.255528, -0.076749, -0.178779), (-0.078411, 0.930809, 0.147602),
                   (0.004733, 0.691367, 0.303900)),
}  # fmt: skip


def _linear(colour: str) -> tuple[float, float, float]:
    """sRGB ``#RRGGBB`` to linear RGB (IEC 61966-2-1)."""
    channels = [int(colour[i : i + 2], 16) / 255 for i in (1, 3, 5)]
    r, g, b = (c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels)
    return r, g, b


def luminance(colour: str) -> float:
    """WCAG 2.1 relative luminance."""
    r, g, b = _linear(colour)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(one: str, other: str = WHITE) -> float:
    """WCAG 2.1 contrast ratio, (L1 + 0.05) / (L2 + 0.05) with L1 the lighter."""
    high, low = sorted((luminance(one), luminance(other)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def _lab(rgb: tuple[float, float, float]) -> tuple[float, float, float]:
    """Linear sRGB to CIE L*a*b* (D65)."""
    r, g, b = rgb
    x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047
    y = 0.2126 * r + 0.7152 * g + 0.0722 * b
    z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883

    def f(t: float) -> float:
        return t ** (1 / 3) if t > 216 / 24389 else (24389 / 27 * t + 16) / 116

    return 116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))


def _seen(colour: str, vision: str) -> tuple[float, float, float]:
    rgb = _linear(colour)
    if vision == "normal":
        return _lab(rgb)
    m = CVD[vision]
    moved = [min(max(sum(m[i][j] * rgb[j] for j in range(3)), 0.0), 1.0) for i in range(3)]
    return _lab((moved[0], moved[1], moved[2]))


def smallest_difference(colours: list[str]) -> float:
    """The smallest CIE76 difference between two of ``colours``, with normal vision or any of
    the three simulated deficiencies."""
    return min(
        math.dist(_seen(a, vision), _seen(b, vision))
        for vision in ("normal", *CVD)
        for a, b in itertools.combinations(colours, 2)
    )


def test_the_colour_formulas_give_the_published_values() -> None:
    """The checker checked: WCAG's extremes, and a grey whose ratio is published (#767676 is
    the lightest grey with 4.5:1 on white, 4.54:1)."""
    assert contrast("#000000") == pytest.approx(21.0)
    assert contrast("#FFFFFF") == pytest.approx(1.0)
    assert contrast("#767676") == pytest.approx(4.54, abs=0.01)
    assert contrast("#F0E442") < NON_TEXT_CONTRAST  # the reader's yellow, 1.3:1
    assert _seen("#FFFFFF", "normal") == pytest.approx((100.0, 0.0, 0.0), abs=0.05)
    # red and green, told apart with normal vision, run together for a deuteranope
    assert math.dist(_seen("#E15759", "normal"), _seen("#59A14F", "normal")) > 50
    assert math.dist(_seen("#E15759", "deuteranopia"), _seen("#59A14F", "deuteranopia")) < 5


# ---- item 2: series colours that read on white, still colour-blind safe --------------------


@pytest.mark.parametrize("count", range(1, 11))
def test_every_series_colour_reads_on_white(count: int) -> None:
    """No series gets a colour below 3:1 on white (the yellow #F0E442 had 1.3:1, the orange
    and sky blue 2.3:1, Tableau's yellow 1.6:1)."""
    faint = {c: round(contrast(c), 2) for c in charts.category_range(count)}
    assert all(ratio >= NON_TEXT_CONTRAST for ratio in faint.values()), faint


def test_the_theme_gives_unscaled_series_the_palette() -> None:
    theme = charts._theme()["config"]["range"]["category"]
    assert all(contrast(c) >= NON_TEXT_CONTRAST for c in theme), theme


@pytest.mark.parametrize("count", range(2, 11))
def test_the_series_colours_stay_as_far_apart_as_okabe_ito_s(count: int) -> None:
    """Colour-blind safety kept: any two series colours differ, for a reader with normal vision
    and with each simulated deficiency, at least as much as the closest two of Okabe and Ito's
    seven do (16 CIELAB units: their orange and yellow seen by a deuteranope)."""
    reference = smallest_difference(OKABE_ITO)
    assert 15 < reference < 17
    assert smallest_difference(charts.category_range(count)) >= reference


def test_dark_mode_replaces_every_palette_colour_too_dark_for_a_dark_page() -> None:
    page = "#14181e"  # pydata-sphinx-theme's dark background
    for colour in charts.PALETTE_10:
        shown = charts.DARK.get(colour, colour)
        assert contrast(shown, page) >= 4.5, (colour, shown)


# ---- the survey: every chart of the built book ----------------------------------------------

#: marks that draw a series (not reference rules, shaded bands or boxes' fills)
SERIES_MARKS = {"line", "point", "circle", "square", "trail", "tick", "boxplot"}
HEX = re.compile(r"^#[0-9A-Fa-f]{6}$")
SPEC = re.compile(r'<script type="application/json" id="([^"]+)-spec">(.*?)</script>', re.S)


def series_colours(spec: dict[str, Any]) -> Iterator[tuple[str, str]]:
    """(where, colour) of every colour a series is drawn in: the range of a colour, fill or
    stroke scale of a data field (or the theme's category range when it has none), and the
    fixed colour of a line or point mark."""
    theme = spec.get("config", {}).get("range", {}).get("category", charts.PALETTE)
    for view in views(spec):
        mark = view["mark"] if isinstance(view["mark"], dict) else {"type": view["mark"]}
        for channel in ("color", "fill", "stroke"):
            encoding = view.get("encoding", {}).get(channel)
            if not isinstance(encoding, dict) or "field" not in encoding:
                continue
            if encoding.get("type") not in ("nominal", "ordinal", None):
                continue
            scale = encoding.get("scale") or {}
            colours = scale.get("range", theme)
            if isinstance(colours, list):
                for colour in colours:
                    if isinstance(colour, str) and HEX.match(colour):
                        yield f"{channel} scale of {encoding['field']}", colour
        if mark.get("type") in SERIES_MARKS:
            colour = mark.get("color") or mark.get("stroke")
            if isinstance(colour, str) and HEX.match(colour) and mark.get("opacity", 1) >= 0.5:
                yield f"{mark['type']} mark", colour


def _book_specs(html: Path) -> Iterator[tuple[str, dict[str, Any]]]:
    for page in sorted((html / "chapters").glob("*.html")):
        text = page.read_text(encoding="utf-8")
        for found in SPEC.finditer(text):
            yield f"{page.name} {found.group(1)}", json.loads(found.group(2).replace("<\\/", "</"))


@pytest.mark.book
def test_no_chart_of_the_book_draws_a_series_below_3_to_1_on_white(built_book: Path) -> None:
    """WCAG 1.4.11 on the built book: every series colour of every chart (all chapters, each
    chart's spec as the page carries it) reads on white at 3:1 or more."""
    faint: dict[str, set[str]] = {}
    count = 0
    for name, spec in _book_specs(built_book):
        count += 1
        for where, colour in series_colours(spec):
            if contrast(colour) < NON_TEXT_CONTRAST:
                faint.setdefault(f"{colour} ({contrast(colour):.1f}:1)", set()).add(
                    f"{name.split(' ')[0]} {where}"
                )
    assert count > 50, f"only {count} charts found in the built book"
    assert not faint, "\n".join(f"{c}: {sorted(w)}" for c, w in faint.items())


# ---- item 1: a box with no spread is a visible bar, not a hairline --------------------------


def _marks(node: Any) -> Iterator[dict[str, Any]]:
    """Every mark (not group) of a Vega scenegraph, depth first."""
    if isinstance(node, dict):
        if "marktype" in node and node["marktype"] != "group":
            yield node
        for key in ("items", "scenegraph"):
            if key in node:
                yield from _marks(node[key])
    elif isinstance(node, list):
        for child in node:
            yield from _marks(child)


def _scene(chart: Any) -> dict[str, Any]:
    import vl_convert

    return vl_convert.vegalite_to_scenegraph(chart.to_dict())


def _colour(value: str) -> str:
    named = {"black": "#000000", "white": "#FFFFFF"}
    return named.get(value, value if len(value) == 7 else "#" + "".join(2 * c for c in value[1:]))


@pytest.mark.parametrize("figure", ["aggregate_boxes", "per_flow_boxes"])
def test_every_box_shows_its_median_as_a_bar_that_reads_on_white(figure: str) -> None:
    """Figs. 9.1 and 9.2 as Vega draws them from the shipped table: every box (path x flows x
    reading) has its median tick at least 3 px thick, in a colour of 3:1 or more on white and
    on the box. The shaped and window paths' boxes at 10 to 30 flows have (nearly) no spread:
    before, their box and their 1 px median were a hairline in the box's colour."""
    from tcplab import registry
    from tcplab.chapters.lee import analysis
    from tcplab.chapters.lee import charts as lee

    table = registry.run("lee-transfers", scale="full", seed=0)
    chart = getattr(lee, figure)(table)
    boxes = analysis.aggregates(table)[["path", "flows"]].drop_duplicates().shape[0]
    boxes *= 2 if figure == "aggregate_boxes" else 1  # two readings
    rects = [m for m in _marks(_scene(chart)) if m["marktype"] == "rect"]
    # a tick has a height and no y2; the boxes span y..y2
    ticks = [i for m in rects for i in m["items"] if i.get("y2") is None and i.get("height")]
    box_fill = {i["fill"] for m in rects for i in m["items"] if i.get("y2") is not None}
    assert len(ticks) == boxes, (len(ticks), boxes)
    for tick in ticks:
        assert tick["height"] >= 3, tick
        assert contrast(_colour(tick["fill"])) >= NON_TEXT_CONTRAST, tick
        for fill in box_fill:
            assert contrast(_colour(tick["fill"]), _colour(fill)) >= NON_TEXT_CONTRAST


# ---- item 7: the live microscope chart's title stays apart from its views' titles -----------


def _titles(node: Any, x: float = 0, y: float = 0) -> Iterator[dict[str, Any]]:
    """Every title text of a scenegraph, with its top-left corner in the chart's frame."""
    if isinstance(node, list):
        for child in node:
            yield from _titles(child, x, y)
    elif isinstance(node, dict):
        if node.get("marktype") == "text" and node.get("role") == "title-text":
            for item in node["items"]:
                yield {**item, "top": y + item.get("y", 0), "left": x + item.get("x", 0)}
        elif node.get("marktype") == "group":
            for item in node.get("items", []):
                yield from _titles(
                    item.get("items", []), x + item.get("x", 0), y + item.get("y", 0)
                )
        elif "scenegraph" in node:
            yield from _titles(node["scenegraph"], x, y)


def test_the_live_microscope_chart_s_title_keeps_apart_from_its_views_titles() -> None:
    """The panel's chart (a two-line title over three titled views): Vega draws the title's last
    line at least 8 px above the first view's title, and the views' titles smaller, so that
    "...give the same trace" and "packets against time" never read as one title."""
    from tcplab.chapters.microscope import panel

    chart = panel.draw("14, 26, 28", "reno", 28, 60, 1.0, 0.5)
    titles = list(_titles(_scene(chart)))
    main = [t for t in titles if isinstance(t["text"], list)]
    assert len(main) == 1 and len(main[0]["text"]) == 2
    top = main[0]
    assert top.get("baseline") == "top"
    size = top["fontSize"]
    bottom = top["top"] + (len(top["text"]) - 1) * (top.get("lineHeight") or size + 2) + size
    views = [t for t in titles if t is not top and isinstance(t["text"], str)]
    assert {t["text"] for t in views} >= {"packets against time", "retransmission time-out"}
    assert min(t["top"] for t in views) - bottom >= 8
    assert all(t["fontSize"] < size for t in views)


# ---- item 6: the ns-3 speed chart's legend labels are not cut --------------------------------

#: an upper estimate of a sans-serif character's mean width, in em (system-ui and Roboto set
#: "ns-3 3.44 (C++, from Python)" in about 0.5 em per character)
EM_PER_CHARACTER = 0.6


def test_the_ns3_speed_chart_s_legend_labels_fit_their_limit() -> None:
    """Vega cuts a legend label at its labelLimit (160 px unless set) with an ellipsis: the
    reader saw "ns-3 3.44 (C++, from Py...". Every label fits its legend's limit at 0.6 em per
    character (12 px labels)."""
    from tcplab import registry
    from tcplab.chapters.ns3 import charts as ns3
    from tcplab.chapters.ns3 import experiments

    theirs, _ = experiments.ns3_table()
    spec = ns3.speed_chart(registry.run("ns3-tcplab", scale="full", seed=0), theirs).to_dict()
    size = spec["config"]["legend"]["labelFontSize"]
    checked = 0
    for channel in ("color", "shape"):
        encoding = spec["encoding"][channel]
        limit = (encoding.get("legend") or {}).get("labelLimit", 160)
        labels = encoding.get("scale", {}).get("domain") or sorted(
            set(ns3.SIMULATORS if channel == "color" else ("newreno", "sack"))
        )
        for label in labels:
            checked += 1
            assert len(label) * EM_PER_CHARACTER * size <= limit, (label, limit)
    assert checked >= 4


# ---- item 4: Fig. 4.13's two formulas apart, the chart as wide as the column -----------------

#: the article column of the book on a desktop (1400 px window), as the reader measured it
DESKTOP_COLUMN = 784


def _sack_loss_chart() -> Any:
    from tcplab import registry
    from tcplab.chapters.packets import charts as packets
    from tcplab.chapters.packets import variants

    tables = {
        n: registry.run(n, scale="full", seed=0) for n in ("packets-loss", "packets-sack-loss")
    }
    return packets.loss_variants_chart(variants.both(tables, "packets-loss"))


def test_fig_4_13_draws_its_two_formulas_apart_and_fills_the_column() -> None:
    """The formulas of Mathis et al. and Padhye et al. were two greens (one at 45% opacity),
    in a chart about half the column wide. Now: colours as far apart as Okabe-Ito's closest
    two (normal vision and the three deficiencies), different dashes, and the chart (as Vega
    draws it) at least 85% of the desktop column and no wider than it."""
    chart = _sack_loss_chart()
    spec = chart.to_dict()
    lines = [layer for layer in spec["layer"] if layer["mark"]["type"] == "line"]
    assert len(lines) == 1
    encoding = lines[0]["encoding"]
    coloured = [encoding[c] for c in ("color", "stroke") if "field" in encoding.get(c, {})]
    assert coloured, f"the formulas share one colour: {encoding.get('color')}"
    colour, dash = coloured[0], encoding["strokeDash"]
    assert colour["field"] == dash["field"] == "formula"
    colours, dashes = colour["scale"]["range"], dash["scale"]["range"]
    assert len(set(colours)) == 2 and dashes[0] != dashes[1]
    assert smallest_difference(colours) >= smallest_difference(OKABE_ITO)
    assert all(contrast(c) >= NON_TEXT_CONTRAST for c in colours)
    width = _scene(chart)["width"]
    assert 0.85 * DESKTOP_COLUMN <= width <= DESKTOP_COLUMN, width


# ---- item 5: a prediction that leaves its panel is marked at the edge ------------------------


def test_every_prediction_above_its_panel_is_marked_on_the_top_edge() -> None:
    """Fig. 8.5 (the paper's Figs. 9 and 11): in scenario 1 the (1, 2) pair's prediction rises
    to 1.09 MB/s at n = 10, where the measured curve stays near 0.1: its line left the plot
    with no mark. Every panel now has a fixed y scale and clips its lines, and every
    prediction above the top (at the drop-down's first cross-traffic level, as Vega draws the
    page) has a triangle on the top edge, in its pair's colour, its value in the tooltip."""
    from tcplab import registry
    from tcplab.chapters.lu import analysis, claims
    from tcplab.chapters.lu import charts as lu

    tables = {name: registry.run(name, scale="full", seed=0) for name in claims.table_names("full")}
    pred = analysis.predictions(claims.scenario_table(tables))
    chart = lu.prediction_chart(pred, cross=10)
    spec = chart.to_dict()
    panels = [view for row in spec["vconcat"] for view in row["hconcat"]]
    shown = pred[(pred["queue"] == "droptail") & (pred["replica"] == 0) & (pred["cross"] == 10)]
    expected = 0
    for number, panel in enumerate(panels, start=1):
        assert {view.get("title") for view in panel["layer"]} == {f"scenario {number}"}
        (line,) = [view for view in panel["layer"] if view["mark"]["type"] == "line"]
        assert line["mark"].get("clip") is True
        low, top = line["encoding"]["y"]["scale"]["domain"]
        assert low == 0
        rows = shown[shown["scenario"] == number]
        assert rows["measured"].max() / 1e6 <= top  # the measured curve stays inside
        above = rows[rows["predicted"] / 1e6 > top]
        expected += len(above)
        marks = [view for view in panel["layer"] if view["mark"].get("shape") == "triangle-up"]
        assert len(marks) == 1
        tips = [t["field"] for t in marks[0]["encoding"]["tooltip"]]
        assert "predicted_mbps" in tips and "probes" in tips
    scenario_1 = shown[(shown["scenario"] == 1) & (shown["probes"] == "(1, 2)")]
    assert scenario_1["predicted"].max() > 1e6  # the reader's case is among them
    triangles = [
        item
        for mark in _marks(_scene(chart))
        if mark["marktype"] == "symbol"
        for item in mark["items"]
        if item.get("shape") == "triangle-up"
    ]
    assert expected >= 1 and len(triangles) == expected
    assert all(abs(item["y"]) < 0.5 for item in triangles)  # on the top edge


# ---- item 3: charts of more than six series let the reader bring one forward -----------------


def _highlighted_charts() -> dict[str, Any]:
    """The book's charts of seven or more series, built from the shipped tables as their
    chapters build them."""
    from tcplab import registry
    from tcplab.chapters.bmc import charts as bmc
    from tcplab.chapters.bmc import claims as bmc_claims
    from tcplab.chapters.lu import charts as lu
    from tcplab.chapters.morris import charts as morris
    from tcplab.chapters.packets import charts as packets
    from tcplab.chapters.packets import experiments as packets_experiments

    def table(name: str) -> Any:
        return registry.run(name, scale="full", seed=0)

    flows = max(packets_experiments.PacketsParams().sync_flows)
    weighted = bmc_claims.weighted_grid({n: table(n) for n in ("bmc-weighted", "bmc-weighted-35")})
    return {
        "Fig. 4.4": packets.windows_chart(table("packets-windows"), "droptail", 5, flows),
        "Fig. 4.8": packets.windows_chart(table("packets-windows"), "threshold", 100, flows),
        "Fig. 6.12": morris.variants_chart(table("morris-remedies")),
        "Fig. 7.4": bmc.fig510_chart(weighted),
        "Fig. 7.5": bmc.fig511_chart(weighted),
        "Fig. 8.4": lu.sensitivity_chart(table("lu-sensitivity")),
    }


def _params(spec: dict[str, Any]) -> Iterator[dict[str, Any]]:
    yield from spec.get("params", [])
    for key in ("layer", "vconcat", "hconcat", "concat"):
        for child in spec.get(key, []):
            yield from _params(child)
    if isinstance(spec.get("spec"), dict):
        yield from _params(spec["spec"])


def highlight_faults(spec: dict[str, Any], field: str) -> list[str]:
    """What keeps ``field``'s series from being highlighted: a point selection on it bound to
    the legend, and every series mark's opacity conditioned on that selection."""
    chosen = [
        p["name"]
        for p in _params(spec)
        if isinstance(p.get("select"), dict)
        and p["select"].get("type") == "point"
        and p["select"].get("fields") == [field]
        and p.get("bind") == "legend"
    ]
    if not chosen:
        return [f"no point selection of {field} bound to the legend"]
    faults = []
    for view in views(spec):
        mark = view["mark"] if isinstance(view["mark"], dict) else {"type": view["mark"]}
        colour = view.get("encoding", {}).get("color", {})
        if mark["type"] not in SERIES_MARKS | {"errorbar"} or colour.get("field") != field:
            continue
        opacity = view["encoding"].get("opacity", {})
        condition = opacity.get("condition", {})
        if condition.get("param") not in chosen or opacity.get("value", 1) >= condition["value"]:
            faults.append(f"a {mark['type']} of {field} whose opacity ignores the selection")
    return faults


@pytest.mark.parametrize("figure", ["Fig. 4.4", "Fig. 4.8", "Fig. 6.12", "Fig. 7.4", "Fig. 7.5",
                                    "Fig. 8.4"])  # fmt: skip
def test_a_chart_of_many_series_highlights_the_one_clicked_in_its_legend(figure: str) -> None:
    """Ten connections' windows (Figs. 4.4 and 4.8) and the seven or eight series of the
    others: a click on a legend entry keeps that series and fades the rest; Vega compiles it
    (vl_convert draws it)."""
    chart = _highlighted_charts()[figure]
    spec = chart.to_dict()
    fields = {
        view["encoding"]["color"]["field"]
        for view in views(spec)
        if "field" in view.get("encoding", {}).get("color", {})
    }
    (field,) = fields - {"role"}
    assert highlight_faults(spec, field) == []
    assert charts.to_svg(chart).startswith("<svg")


def _rows(data: Any, datasets: dict[str, Any]) -> Any:
    """A view's rows (the book's CSV or records), as strings; None when it has none inline."""
    import io

    import pandas as pd

    if not isinstance(data, dict):
        return None
    values = datasets.get(data["name"]) if "name" in data else data.get("values")
    if isinstance(values, str):
        return pd.read_csv(io.StringIO(values), dtype=str) if values.strip() else None
    return pd.DataFrame(values) if values is not None else None


#: a view's filter on a drop-down (``datum.mix == pick_mix``): it draws one value at a time
PICKED = re.compile(r"datum\.(\w+) == pick_\w+")


def series_drawn_at_once(view: dict[str, Any], rows: Any, field: str) -> int:
    """How many series of ``field`` a view draws at once: its colour domain, else the values in
    its data, per value of a field a drop-down picks."""
    domain = (view["encoding"]["color"].get("scale") or {}).get("domain")
    if isinstance(domain, list):
        return len(domain)
    if rows is None or field not in rows.columns:
        return 0
    picked = [
        found.group(1)
        for step in view.get("transform", [])
        if isinstance(step.get("filter"), str)
        for found in [PICKED.search(step["filter"])]
        if found and found.group(1) in rows.columns
    ]
    if picked:
        return int(rows.groupby(picked)[field].nunique().max())
    return int(rows[field].nunique())


@pytest.mark.book
def test_every_chart_of_more_than_six_series_in_the_book_has_the_highlight(
    built_book: Path,
) -> None:
    """The survey for item 3: every chart of the built book whose lines or points take more
    than six colours at once lets a legend click highlight one of them."""
    missing = []
    for name, spec in _book_specs(built_book):
        datasets = spec.get("datasets", {})
        many = set()
        for view, data in units(spec):
            mark = view["mark"] if isinstance(view["mark"], dict) else {"type": view["mark"]}
            field = view.get("encoding", {}).get("color", {}).get("field")
            if mark["type"] not in SERIES_MARKS or not field:
                continue
            drawn = series_drawn_at_once(view, _rows(data, datasets), field)
            if drawn > charts.HIGHLIGHT_ABOVE:
                many.add(field)
        missing += [f"{name}: {fault}" for f in sorted(many) for fault in highlight_faults(spec, f)]
    assert not missing, "\n".join(missing)


def test_a_prediction_panel_s_top_is_one_and_a_half_times_the_measured_peak() -> None:
    """By hand: 1.5 x 0.1234 = 0.1851, rounded up to two figures 0.19; 1.5 x 40 = 60."""
    import pandas as pd

    from tcplab.chapters.lu import charts as lu

    assert lu.prediction_top(pd.Series([0.05, 0.1234])) == pytest.approx(0.19)
    assert lu.prediction_top(pd.Series([40.0, 12.0])) == pytest.approx(60.0)
    with pytest.raises(ValueError, match="measured_mbps"):
        lu.prediction_top(pd.Series([0.0]))
