"""Every live panel draws its chart into an HTML widget and never captures output in an
``Output`` widget (see tcplab.widgets: a runner mimicking a front end for ``Output`` widgets
writes to the kernel's shell channel mid-cell, which can leave papermill waiting forever)."""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Iterator

import altair as alt
import ipywidgets as w
import pandas as pd
import pytest

from tcplab import cache, widgets
from tcplab.chapters.bmc import lawpanel as bmc_lawpanel
from tcplab.chapters.bmc import panel as bmc_panel
from tcplab.chapters.insensitivity import panel as insensitivity_panel
from tcplab.chapters.lee import panel as lee_panel
from tcplab.chapters.lu import panel as lu_panel
from tcplab.chapters.microscope import panel as microscope_panel
from tcplab.chapters.morris import panel as morris_panel
from tcplab.chapters.packets import panel as packets_panel
from tcplab.chapters.sawtooth import panel as sawtooth_panel

PANELS: dict[str, Callable[[], widgets.LivePanel]] = {
    "sawtooth": sawtooth_panel.sawtooth_panel,
    "insensitivity": insensitivity_panel.example1_panel,
    "packets": lambda: packets_panel.packets_panel(flows=3, buffer=10),
    "microscope": microscope_panel.microscope_panel,
    "morris": lambda: morris_panel.morris_panel(flows=5),
    "lu": lambda: lu_panel.tame_panel(cache.load(cache.Entry("lu-scenarios"))[0]),
    "bmc": bmc_panel.manager_panel,
    "bmc-law": bmc_lawpanel.law_panel,
    "lee": lambda: lee_panel.transfers_panel(flows=3),
}


def _tree(widget: w.Widget) -> Iterator[w.Widget]:
    yield widget
    for child in getattr(widget, "children", ()):
        yield from _tree(child)


@pytest.mark.parametrize("name", sorted(PANELS))
def test_a_panel_draws_its_chart_into_an_html_widget_not_an_output(name: str) -> None:
    panel = PANELS[name]()
    parts = list(_tree(panel.widget))
    assert not [p for p in parts if isinstance(p, w.Output)], "an Output widget captures output"
    views = [p for p in parts if isinstance(p, w.HTML)]
    assert len(views) == 1 and views[0].value.lstrip().startswith("<svg")
    assert "tcplab-live-note" in panel._repr_mimebundle_()["text/html"]


def test_moving_a_control_redraws_the_chart() -> None:
    panel = sawtooth_panel.sawtooth_panel()
    view = next(p for p in _tree(panel.widget) if isinstance(p, w.HTML))
    slider = next(p for p in _tree(panel.widget) if getattr(p, "description", "") == "events")
    before = view.value
    slider.value = 3
    assert view.value != before and view.value.lstrip().startswith("<svg")


def test_a_bad_value_shows_one_line_and_the_panel_recovers() -> None:
    slider = w.IntSlider(1, min=0, max=5)

    def redraw() -> alt.Chart:
        if slider.value == 0:
            raise ValueError("flows=0 is outside the allowed range [1, inf)")
        return alt.Chart(pd.DataFrame({"x": [slider.value]})).mark_point().encode(x="x:Q")

    panel = widgets.live_panel([slider], redraw, "A test panel.")
    view = next(p for p in _tree(panel.widget) if isinstance(p, w.HTML))
    slider.value = 0
    assert "error: flows=0 is outside the allowed range" in view.value
    slider.value = 2
    assert view.value.lstrip().startswith("<svg")


def test_the_packets_panel_draws_at_the_largest_n_it_offers() -> None:
    """A panel's control never offers a value its drawing refuses (issue 36, defect 1: N up to
    20 was offered, and more than ten connections failed for want of colours)."""
    spec = packets_panel.packets_spec()
    control = {c.name: c for c in spec.controls}
    most = int(control["flows"].maximum)
    shortest = int(control["seconds"].minimum)
    chart = spec.draw(most, "droptail", 5, "random", shortest, 0).to_dict()
    assert "connection" in str(chart) and f"{most} connections" in chart["description"]


@pytest.mark.parametrize("name", sorted(PANELS))
def test_the_live_chart_has_a_name_that_says_what_it_was_drawn_for(name: str) -> None:
    """A live chart has no figure caption to be named by: its description (the SVG's
    aria-label in the page) says what it shows and carries the controls' values, in the
    notebook's panel and in the page's runtime (the reader's report: the live charts of
    weighted-aimd and taming-parallel-tcp had an empty name)."""
    from tcplab.inbrowser import load_spec

    panel = PANELS[name]()
    target = re.search(r'data-panel="([^"]+)"', panel.browser)
    assert target, f"{name}: the panel does not run in a browser"
    spec = load_spec(html.unescape(target.group(1)))
    changed = {  # the last option of each drop-down, the least value of each number
        c.name: c.options[-1] if c.kind == "choice" else c.minimum
        for c in spec.controls
        if c.kind in ("choice", "int", "float")
    }
    for values in (spec.values(), {**spec.values(), **changed}):
        try:
            described = spec.chart(**values).to_dict().get("description", "")
        except ValueError:  # a combination the model refuses: the panel shows one line
            continue
        assert len(described) > 40, f"{name}: {described!r}"
        shown = [v for v in values.values() if str(v) in described]
        assert shown, f"{name}: none of {values} in {described!r}"
