"""Headless Chromium with the network cut off, for the browser tiers (test_browser.py and
test_reader.py): the built book served on 127.0.0.1, and one page opened at a time with every
console error and every request that leaves 127.0.0.1 recorded."""

from __future__ import annotations

import functools
import http.server
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
AXE = ROOT / "node_modules" / "axe-core" / "axe.min.js"  # pinned in package-lock.json

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

#: every chart on the page has finished drawing (tcplab-charts.js sets data-drawn after fitting)
ALL_DRAWN = (
    "() => [...document.querySelectorAll('.tcplab-chart')]"
    ".every(c => c.dataset.drawn === 'true' && c.querySelector('svg .role-mark'))"
)


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args: object) -> None:
        pass


@contextmanager
def serve(folder: Path) -> Iterator[str]:
    """Serve ``folder`` on 127.0.0.1 (a free port); yields the site's URL."""
    handler = functools.partial(_QuietHandler, directory=str(folder))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()


def pages(built_book: Path) -> list[str]:
    """Every HTML page of the book (not the static files or the sources)."""
    return sorted(
        p.relative_to(built_book).as_posix()
        for p in built_book.rglob("*.html")
        if "_static" not in p.parts and "_sources" not in p.parts
    )


def content_pages(built_book: Path) -> list[str]:
    """:func:`pages` without the redirects (the root index.html only forwards to the intro)."""
    return [
        path
        for path in pages(built_book)
        if 'http-equiv="Refresh"' not in (built_book / path).read_text(encoding="utf-8")[:2000]
    ]


class Visit:
    """One page opened offline, with every console error and outside request recorded."""

    def __init__(
        self, browser, site: str, path: str, width: int = 1400, dark: bool = False
    ) -> None:
        self.errors: list[str] = []
        self.warnings: list[str] = []
        self.outside: list[str] = []
        self.context = browser.new_context(
            viewport={"width": width, "height": 900},
            color_scheme="dark" if dark else "light",
        )
        self.page = self.context.new_page()
        self.page.on("console", self._console)
        self.page.on("pageerror", lambda e: self.errors.append(f"uncaught: {e}"))
        self.context.route("**/*", self._only_local(site))
        self.page.goto(f"{site}/{path}", wait_until="load")

    def _console(self, message) -> None:
        if message.type == "error":
            self.errors.append(message.text)
        elif message.type == "warning":
            self.warnings.append(message.text)

    def _only_local(self, site: str):
        def handle(route) -> None:
            if route.request.url.startswith(site):
                route.continue_()
            else:
                self.outside.append(route.request.url)
                route.abort()

        return handle

    def wait_for_charts(self) -> int:
        """Wait until every chart has drawn and fitted itself; returns how many there are."""
        count = self.page.locator(".tcplab-chart").count()
        if count:
            self.page.wait_for_function(ALL_DRAWN, timeout=30_000)
        self.page.wait_for_timeout(300)  # let MathJax and late scripts report errors
        return count

    def close(self) -> None:
        self.context.close()
