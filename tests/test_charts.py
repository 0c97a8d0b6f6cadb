import re

import altair as alt
import pandas as pd
import pytest

from tcplab import charts


def _chart() -> alt.Chart:
    frame = pd.DataFrame({"x": [1, 2], "label": ["</script><script>alert(1)</script>", "b"]})
    return alt.Chart(frame).mark_point().encode(x="x:Q", tooltip="label:N")


def test_the_book_renderer_loads_nothing_from_the_network() -> None:
    bundle = _chart()._repr_mimebundle_()
    page = bundle["text/html"]
    assert 'class="tcplab-chart"' in page
    assert not re.search(r"<script[^>]+src=", page)
    assert "http://" not in page and "https://" not in page.replace("https://vega.github.io", "")
    assert "</script><script>alert" not in page  # data cannot break out of the JSON tag


def test_charts_render_to_svg_in_the_kernel() -> None:
    svg = charts.to_svg(_chart())
    assert svg.startswith("<svg") and "<path" in svg


def test_role_colours_are_fixed() -> None:
    scale = charts.role_scale([charts.PAPER, charts.OURS])
    assert scale.range == [charts.ROLE_COLOURS[charts.PAPER], charts.ROLE_COLOURS[charts.OURS]]


def _spec_of(page: str) -> dict:
    import json

    found = re.search(r'<script type="application/json"[^>]*>(.*)</script>', page, re.S)
    return json.loads(found.group(1).replace("<\\/", "</"))


def test_every_chart_gets_a_description_and_the_dark_colours() -> None:
    titled = _chart().properties(title="Goodput against p")
    spec = _spec_of(titled._repr_mimebundle_()["text/html"])
    assert spec["description"] == "Goodput against p"  # the title, when nothing better
    assert spec["usermeta"]["tcplab"]["dark"] == charts.DARK
    described = charts.describe(titled, "Goodput falls as 1/sqrt(p):  from 900 to 40 packets/s.")
    spec = _spec_of(described._repr_mimebundle_()["text/html"])
    assert spec["description"] == "Goodput falls as 1/sqrt(p): from 900 to 40 packets/s."
    with pytest.raises(ValueError, match="description"):
        charts.describe(titled, "  ")


def test_ten_series_get_ten_colours() -> None:
    assert len(set(charts.category_range(10))) == 10
    assert charts.category_range(4) == charts.PALETTE[:4]
    with pytest.raises(ValueError, match="count=11"):
        charts.category_range(11)


def test_dark_mode_colours_read_on_a_dark_page() -> None:
    def luminance(colour: str) -> float:
        channels = [int(colour[i : i + 2], 16) / 255 for i in (1, 3, 5)]
        linear = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
        return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]

    page = luminance("#14181e")  # pydata-sphinx-theme's dark background
    for light, dark in charts.DARK.items():
        assert (luminance(dark) + 0.05) / (page + 0.05) >= 4.5, (light, dark)


def _labels(svg: str) -> list[str]:
    """The marks' accessible labels (each names its values), sorted."""
    return sorted(re.findall(r'aria-label="([^"]*)"', svg))


def test_a_chart_drawn_from_csv_shows_the_same_values_as_from_json_records() -> None:
    """The book's data transformer (CSV and a parse directive) must give Vega the values JSON
    records give: numbers, missing and infinite numbers (null in both), booleans, strings with
    commas and quotes, categories. vl_convert draws both; every mark's label must agree."""
    import numpy as np

    frame = pd.DataFrame(
        {
            "x": [0.1, 0.2, 0.30000000000000004, 1e-9, 12345.678],
            "y": [1.5, np.nan, 4.0, -np.inf, 3.25],
            "on": [True, False, True, True, False],
            "name": ['a, "b"', "c", "d", 'a, "b"', "e"],
            "group": pd.Categorical(["p", "q", "p", "q", "p"]),
        }
    )

    def chart() -> alt.Chart:
        return (
            alt.Chart(frame)
            .mark_point()
            .encode(x="x:Q", y="y:Q", shape="on:N", color="group:N", tooltip=["name:N", "on:N"])
            .transform_filter("datum.x > 0.15")
        )

    with alt.data_transformers.enable("default"):
        from_json = charts.to_svg(chart())
    spec = chart().to_dict()
    assert isinstance(next(iter(spec["datasets"].values())), str)  # the CSV went in
    from_csv = charts.to_svg(chart())
    assert _labels(from_csv) == _labels(from_json)
    assert "on: true" in from_csv and "on: false" in from_csv  # the marks kept are there


def test_a_chart_s_table_weighs_under_half_its_json_records() -> None:
    import json

    frame = pd.DataFrame({"flows": range(3000), "throughput_kb_s": [i / 7 for i in range(3000)]})
    chart = alt.Chart(frame).mark_point().encode(x="flows:Q", y="throughput_kb_s:Q")
    with alt.data_transformers.enable("default"):
        records = len(json.dumps(chart.to_dict()))
    assert len(json.dumps(chart.to_dict())) < records / 2


def test_a_dense_chart_asks_the_book_for_a_canvas_and_keeps_its_dark_colours() -> None:
    spec = _spec_of(charts.to_html(charts.dense(charts.describe(_chart(), "points")).to_dict()))
    assert spec["usermeta"]["tcplab"]["canvas"] is True
    assert spec["usermeta"]["tcplab"]["dark"] == charts.DARK
    plain = _spec_of(charts.to_html(_chart().to_dict()))
    assert "canvas" not in plain["usermeta"]["tcplab"]
