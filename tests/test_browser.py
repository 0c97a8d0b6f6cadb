"""Headless Chromium, with the network cut off, opens every page of the built book.

It fails on any console error, any Vega warning (such as "Infinite extent") or any request
that leaves 127.0.0.1, at 1400 px in light mode and 400 px in dark (a phone; browser_tools.LOOKS
says why not also in light), checks that every chart drew (an SVG with marks in it), and on the
first chapter moves the beta slider and checks that the chart changed. Layout and
accessibility: test_reader.py. The pages are loaded once for both files (the survey fixtures
of conftest.py, browser_tools.survey).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from browser_tools import LOOKS, Visit, content_pages, pages

pytestmark = pytest.mark.browser


@pytest.mark.parametrize("look_survey", LOOKS, indirect=True)
def test_every_page_loads_offline_without_errors_and_draws_its_charts(look_survey: list) -> None:
    """Every content page as surveyed at 1400 px (light) and 400 px (dark); one
    test per look, so that the surveys run on both xdist workers."""
    problems = {}
    charts_seen = 0
    for record in look_survey:
        charts_seen += record.charts
        warnings = [w for w in record.warnings if w.startswith("WARN")]  # Vega's own warnings
        if record.errors or record.outside or warnings or record.failed:
            problems[f"{record.path} at {record.width} px"] = {
                "console": record.errors,
                "vega warnings": warnings,
                "outside": record.outside,
                "survey stopped": record.failed,
            }
    assert not problems, problems
    assert charts_seen >= 1


def test_the_pages_that_are_not_content_load_offline_without_errors(
    built_book: Path, site: str, browser
) -> None:
    """The pages the surveys leave out (the root's redirect), loaded here."""
    problems = {}
    content = set(content_pages(built_book))
    others = [path for path in pages(built_book) if path not in content]
    assert others, "no page besides the content pages: is the root's redirect gone?"
    for path in others:
        visit = Visit(browser, site, path)
        try:
            visit.wait_for_charts()
        except Exception as error:
            visit.errors.append(f"chart did not draw: {error}")
        if visit.errors or visit.outside:
            problems[path] = {"console": visit.errors, "outside": visit.outside}
        visit.close()
    assert not problems, problems


def test_math_renders_offline(site: str, browser) -> None:
    visit = Visit(browser, site, "chapters/sawtooth.html")
    visit.page.locator("mjx-container svg").first.wait_for(timeout=15_000)
    visit.close()


def test_moving_the_beta_slider_redraws_the_sawtooth(site: str, browser) -> None:
    visit = Visit(browser, site, "chapters/sawtooth.html")
    assert visit.wait_for_charts() >= 1
    chart = visit.page.locator(".tcplab-chart").first
    line = chart.locator("svg .mark-line path").first
    before = line.get_attribute("d")
    slider = chart.locator("input[type=range][name=beta]")
    assert slider.count() == 1, "the beta slider is missing"
    slider.fill("0.8")
    visit.page.wait_for_function(
        "([el, d]) => el.getAttribute('d') !== d",
        arg=[line.element_handle(), before],
        timeout=5_000,
    )
    after = line.get_attribute("d")
    label = chart.locator("svg .mark-text text", has_text="mean rate").first.text_content()
    assert after != before
    assert "90.00%" in label  # (1 + 0.8)/2, simulated and from the formula
    assert not visit.errors and not visit.outside
    visit.close()


def test_the_microscope_drop_downs_pick_another_trace(site: str, browser) -> None:
    visit = Visit(browser, site, "chapters/tcp-microscope.html")
    assert visit.wait_for_charts() >= 3
    chart = visit.page.locator(".tcplab-chart").first
    selects = chart.locator("select")
    assert selects.count() == 2, "the sender and drop-list menus are missing"
    resent = chart.locator("svg .mark-symbol path")
    before = resent.count()
    selects.nth(0).select_option("newreno")
    selects.nth(1).select_option("1")
    visit.page.wait_for_function(
        "([el, n]) => el.querySelectorAll('.mark-symbol path').length !== n",
        arg=[chart.element_handle(), before],
        timeout=5_000,
    )
    assert resent.count() != before
    assert not visit.errors and not visit.outside
    visit.close()


def test_a_click_on_fig7_picks_the_fairness_histogram_of_that_n(site: str, browser) -> None:
    """Many flows: Fig. 7 and the histogram under it share one selection of N; a click on a
    point of the loss curve and the menu both move it (the menu follows the click)."""
    visit = Visit(browser, site, "chapters/many-flows.html")
    assert visit.wait_for_charts() >= 1
    chart = visit.page.locator(".tcplab-chart", has=visit.page.locator("select")).filter(
        has_text="click a point"
    )
    assert chart.count() == 1, "Fig. 7 with its linked histogram is missing"
    menu = chart.locator("select")
    bars = chart.locator("svg .mark-rect path")

    def heights() -> list[str]:
        return [bars.nth(i).get_attribute("d") or "" for i in range(bars.count())]

    first = heights()
    menu.select_option("30")
    visit.page.wait_for_function(
        "([el, n]) => [...el.querySelectorAll('.mark-rect path')].map(p => p.getAttribute('d'))"
        ".join('|') !== n",
        arg=[chart.element_handle(), "|".join(first)],
        timeout=5_000,
    )
    at_30 = heights()
    assert at_30 != first
    # a click near the leftmost point of the curve (N = 1) picks it, menu included
    chart.scroll_into_view_if_needed()  # a mouse click lands in the viewport
    dots = chart.locator("svg .mark-symbol.role-mark path")  # the marks, not the legend's
    box = min((dots.nth(i).bounding_box() for i in range(dots.count())), key=lambda b: b["x"])
    visit.page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    visit.page.wait_for_function(
        "el => el.value !== '30'", arg=menu.element_handle(), timeout=5_000
    )
    assert menu.input_value() == "1"
    assert heights() != at_30
    assert not visit.errors and not visit.outside
    visit.close()
