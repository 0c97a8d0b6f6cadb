"""The chapters' panels run in headless Chromium by Pyodide, with the network cut to
127.0.0.1: the click starts Python from the book's own files, the chart draws, changing a
control (slider, number box, drop-down, text field) reruns the model and redraws it, nothing
is requested from another host; and where the browser cannot run it (no WebAssembly, a file
missing) one line points to Binder."""

from __future__ import annotations

import pytest

from browser_tools import Visit

#: the panels are one xdist work unit of their own (conftest.xdist_group): each starts Pyodide,
#: so they take as long as a survey, and run on whichever worker is free
pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("panels")]

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


#: chapter page, the control moved (a slider, number box, drop-down or text field) and its
#: new value, the chart's title before and after ("": the chart has no title)
PANELS = {
    "sawtooth": ("chapters/sawtooth.html", "beta", "0.8", "mean 75.00% of c", "mean 90.00% of c"),
    "insensitivity": ("chapters/insensitivity.html", "sigma", "0.3", "σ = 0.125", "σ = 0.300"),
    "microscope": ("chapters/tcp-microscope.html", "tcp", "aimd", "reno, drops", "aimd, drops"),
    "packets": ("chapters/fluid-to-packets.html", "queue", "red", "droptail, b = 5", "red, b = 5"),
    "morris": ("chapters/many-flows.html", "flows", "10", "N = 30, red", "N = 10, red"),
    "lee": ("chapters/parallel-transfers.html", "path", "window", "shared, 10 x", "window, 10 x"),
    "bmc": ("chapters/weighted-aimd.html", "k", "0.25", "", ""),
    "lu": ("chapters/taming-parallel-tcp.html", "scenario", "2", "scenario 1,", "scenario 2,"),
}


def _title(visit: Visit) -> str:
    titles = visit.page.locator(".tcplab-inbrowser-view svg .role-title")
    return " ".join(titles.all_text_contents())


def _change(visit: Visit, name: str, value: str) -> None:
    """Set a control as a reader would: it fires input and change, and the model reruns."""
    field = visit.page.locator(f".tcplab-inbrowser-controls [name={name}]")
    kind = field.evaluate("(element) => element.type")
    if kind == "select-one":
        field.select_option(value, timeout=10_000)
    elif kind in ("text", "number"):
        field.fill(value, timeout=10_000)  # fires input only: the box acts on Enter or blur
        field.press("Enter")
    else:
        field.fill(value, timeout=10_000)  # a range input: fill fires input and change


@pytest.mark.parametrize("chapter", sorted(PANELS))
def test_the_panel_runs_in_browser_offline_and_a_control_reruns_it(
    site: str, browser, chapter: str
) -> None:
    page, control, value, first, then = PANELS[chapter]
    visit = Visit(browser, site, page)
    try:
        visit.page.locator(".tcplab-inbrowser-run").click(timeout=10_000)
        _state(visit, "ready", START_MS)
        before = _drawn(visit, 30_000)
        assert first in _title(visit), _title(visit)
        _change(visit, control, value)
        visit.page.wait_for_function(
            "() => document.querySelector('.tcplab-inbrowser').dataset.runs === '2'",
            timeout=RERUN_MS,
        )
        _state(visit, "ready", RERUN_MS)
        after = _drawn(visit, 30_000)
        assert then in _title(visit), _title(visit)
        assert after != before
        assert not visit.outside, visit.outside
        assert not visit.errors, visit.errors
    finally:
        visit.close()


def test_the_microscopes_a_and_beta_act_only_for_aimd_in_browser(site: str, browser) -> None:
    visit = Visit(browser, site, "chapters/tcp-microscope.html")
    try:
        visit.page.locator(".tcplab-inbrowser-run").click(timeout=10_000)
        _state(visit, "ready", START_MS)
        a = visit.page.locator(".tcplab-inbrowser-controls [name=a]")
        assert a.is_disabled()
        _change(visit, "tcp", "aimd")
        assert a.is_enabled()
        _state(visit, "ready", RERUN_MS)
        _change(visit, "drops", "14, x")
        visit.page.wait_for_function(
            "() => document.querySelector('.tcplab-inbrowser').dataset.runs === '3'",
            timeout=RERUN_MS,
        )
        error = visit.page.locator(".tcplab-inbrowser-view .tcplab-panel-error").text_content()
        assert "is not a packet number" in (error or "")
        assert not visit.outside, visit.outside
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
