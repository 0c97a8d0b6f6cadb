"""How heavy each page of the built book is, and how long its charts take to draw.

Run from the repository root after ``make book`` with ``python benchmarks/bench_pages.py``
(``--widths 400 1400``). The book is served on 127.0.0.1 with every other host unreachable,
as in the browser tests. Per page and width: the HTML's size, and the seconds from navigation
until every chart has drawn and fitted its column (``data-drawn`` set by tcplab-charts.js) in
a fresh browser context, with Debian's Chromium headless. A chart of thousands of marks is
drawn on a canvas (``tcplab.charts.dense``): as SVG, Lee's Fig. 4 form (15,000 points) took
20-24 s to draw at 400 px on this machine.

This is a script, not a test: it asserts nothing about speed.
"""

from __future__ import annotations

import argparse
import shutil
import time
from pathlib import Path

from playwright.sync_api import sync_playwright

from tcplab.localsite import CHROMIUM_FLAGS, serve

DRAWN = (
    "() => [...document.querySelectorAll('.tcplab-chart')].every(c => c.dataset.drawn === 'true')"
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--html", type=Path, default=Path("_build/html"))
    parser.add_argument("--widths", type=int, nargs="+", default=[400, 1400])
    args = parser.parse_args()
    if not (args.html / "index.html").exists():
        raise SystemExit(f"--html {args.html}: no built book there (run make book)")
    pages = sorted(p.relative_to(args.html) for p in (args.html / "chapters").glob("*.html"))
    chromium = shutil.which("chromium") or "/usr/bin/chromium"
    print(f"{'page':34s} {'HTML kB':>8s}  " + "  ".join(f"{w} px (s)" for w in args.widths))
    with serve(args.html) as site, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium, args=CHROMIUM_FLAGS)
        for page_path in pages:
            times = []
            for width in args.widths:
                context = browser.new_context(viewport={"width": width, "height": 900})
                page = context.new_page()
                started = time.perf_counter()
                page.goto(f"{site}/{page_path}", wait_until="load", timeout=300_000)
                page.wait_for_function(DRAWN, timeout=300_000)
                times.append(time.perf_counter() - started)
                context.close()
            size = (args.html / page_path).stat().st_size / 1e3
            print(f"{str(page_path):34s} {size:8.0f}  " + "  ".join(f"{t:10.1f}" for t in times))
        browser.close()


if __name__ == "__main__":
    main()
