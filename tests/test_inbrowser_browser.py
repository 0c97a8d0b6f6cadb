"""The chapters' panels run in headless Chromium by Pyodide, with the network cut to
127.0.0.1: the click starts Python from the book's own files, the chart draws, moving a slider
reruns the model and redraws it, nothing is requested from another host; and where the
browser cannot run it (no WebAssembly, a file missing) one line points to Binder."""

from __future__ import annotations

import pytest

from browser_tools import Visit

pytestmark = pytest.mark.browser

PAGE = "chapters/sawtooth.html"
#: a cold start here took about 10 s (benchmarks/bench_inbrowser.py); a loaded CI machine more
START_MS = 120_000
RERUN_MS = 30_000


def _state(visit: Visit, state: str, timeout: int) -> None:
    visit.page.wait_for_function(
        f"() => document.querySelector('.tcplab-inbrowser').dataset.state === '{state}'"
        " || document.querySelector('.tcplab-inbrowser').dataset.state === 'failed'",
        timeout=timeout,
    )
    box = visit.page.locator(".tcplab-inbrowser")
    found = box.get_attribute("data-state")
    assert found == state, box.text_content()


def _drawn(visit: Visit, timeout: int) -> str:
    visit.page.wait_for_function(
        "() => document.querySelector('.tcplab-inbrowser-view .tcplab-chart')"
        ".dataset.drawn === 'true'",
        timeout=timeout,
    )
    return visit.page.locator(".tcplab-inbrowser-view svg.marks").inner_html()


#: chapter page, the control moved and its new value, the chart's title before and after
PANELS = {
    "sawtooth": ("chapters/sawtooth.html", "beta", "0.8", "mean 75.00% of c", "mean 90.00% of c"),
    "insensitivity": ("chapters/insensitivity.html", "sigma", "0.3", "σ = 0.125", "σ = 0.300"),
}


@pytest.mark.parametrize("chapter", sorted(PANELS))
def test_the_panel_runs_in_browser_offline_and_a_slider_reruns_it(
    site: str, browser, chapter: str
) -> None:
    page, control, value, first, then = PANELS[chapter]
    visit = Visit(browser, site, page)
    try:
        visit.page.locator(".tcplab-inbrowser-run").click(timeout=10_000)
        _state(visit, "ready", START_MS)
        before = _drawn(visit, 30_000)
        title = visit.page.locator(".tcplab-inbrowser-view svg .role-title").text_content()
        assert first in (title or ""), title
        slider = visit.page.locator(f".tcplab-inbrowser-controls input[name={control}]")
        slider.fill(value)  # fires input and change: the model reruns in Pyodide
        visit.page.wait_for_function(
            "() => document.querySelector('.tcplab-inbrowser').dataset.runs === '2'",
            timeout=RERUN_MS,
        )
        _state(visit, "ready", RERUN_MS)
        after = _drawn(visit, 30_000)
        title = visit.page.locator(".tcplab-inbrowser-view svg .role-title").text_content()
        assert then in (title or ""), title
        assert after != before
        assert not visit.outside, visit.outside
        assert not visit.errors, visit.errors
    finally:
        visit.close()


def test_without_webassembly_the_in_browser_panel_points_to_binder(site: str, browser) -> None:
    visit = Visit(browser, site, PAGE)
    try:
        visit.page.evaluate("() => { delete window.WebAssembly; }")
        visit.page.locator(".tcplab-inbrowser-run").click(timeout=10_000)
        _state(visit, "failed", 10_000)
        line = visit.page.locator(".tcplab-inbrowser-status").text_content() or ""
        assert "no WebAssembly" in line and "Binder" in line
        assert not visit.outside, visit.outside
    finally:
        visit.close()


@pytest.mark.parametrize(
    "missing", ["pyodide.js", "pypi/simpy-4.1.2-py3-none-any.whl", "pyodide.asm.wasm"]
)
def test_a_missing_runtime_file_in_browser_points_to_binder(
    site: str, browser, missing: str
) -> None:
    visit = Visit(browser, site, PAGE)
    try:
        visit.context.route(f"**/_static/pyodide/{missing}", lambda route: route.abort())
        visit.page.locator(".tcplab-inbrowser-run").click(timeout=10_000)
        _state(visit, "failed", START_MS)
        line = visit.page.locator(".tcplab-inbrowser-status").text_content() or ""
        assert "could not run the panel" in line and "Binder" in line
    finally:
        visit.close()
