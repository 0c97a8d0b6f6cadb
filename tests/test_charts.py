import re

import altair as alt
import pandas as pd

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
