"""Headless Chromium, with the network cut off, opens every page of the built book.

It fails on any console error or any request that leaves 127.0.0.1, checks that every chart
drew (an SVG with marks in it), and on the first chapter moves the beta slider and checks that
the chart changed.
"""

from __future__ import annotations

import functools
import http.server
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from conftest import chromium_executable

pytestmark = pytest.mark.browser

FLAGS = [
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
]


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture(scope="module")
def site(built_book: Path) -> Iterator[str]:
    handler = functools.partial(_QuietHandler, directory=str(built_book))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=chromium_executable(), args=FLAGS)
        yield chromium
        chromium.close()


class _Visit:
    """One page opened offline, with every console error and outside request recorded."""

    def __init__(self, browser, site: str, path: str) -> None:
        self.errors: list[str] = []
        self.outside: list[str] = []
        self.context = browser.new_context(offline=False)
        self.page = self.context.new_page()
        self.page.on("console", lambda m: m.type == "error" and self.errors.append(m.text))
        self.page.on("pageerror", lambda e: self.errors.append(f"uncaught: {e}"))
        self.context.route("**/*", self._only_local(site))
        self.page.goto(f"{site}/{path}", wait_until="load")

    def _only_local(self, site: str):
        def handle(route) -> None:
            if route.request.url.startswith(site):
                route.continue_()
            else:
                self.outside.append(route.request.url)
                route.abort()

        return handle

    def wait_for_charts(self) -> int:
        charts = self.page.locator(".tcplab-chart")
        count = charts.count()
        for index in range(count):
            charts.nth(index).locator("svg .role-mark").first.wait_for(timeout=15_000)
        self.page.wait_for_timeout(300)  # let MathJax and late scripts report errors
        return count

    def close(self) -> None:
        self.context.close()


def _pages(built_book: Path) -> list[str]:
    return sorted(
        p.relative_to(built_book).as_posix()
        for p in built_book.rglob("*.html")
        if "_static" not in p.parts and "_sources" not in p.parts
    )


def test_every_page_loads_offline_without_errors_and_draws_its_charts(
    built_book: Path, site: str, browser
) -> None:
    problems = {}
    charts_seen = 0
    for path in _pages(built_book):
        visit = _Visit(browser, site, path)
        try:
            charts_seen += visit.wait_for_charts()
        except Exception as error:  # a chart that never drew
            visit.errors.append(f"chart did not draw: {error}")
        if visit.errors or visit.outside:
            problems[path] = {"console": visit.errors, "outside": visit.outside}
        visit.close()
    assert not problems, problems
    assert charts_seen >= 1


def test_math_renders_offline(site: str, browser) -> None:
    visit = _Visit(browser, site, "chapters/sawtooth.html")
    visit.page.locator("mjx-container svg").first.wait_for(timeout=15_000)
    visit.close()


def test_moving_the_beta_slider_redraws_the_sawtooth(site: str, browser) -> None:
    visit = _Visit(browser, site, "chapters/sawtooth.html")
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
    visit = _Visit(browser, site, "chapters/tcp-microscope.html")
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
