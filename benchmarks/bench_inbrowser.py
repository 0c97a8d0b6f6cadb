"""Speed and size of the panels that run in the reader's browser (Pyodide), in headless Chromium.

Run from the repository root after ``make book`` with ``python benchmarks/bench_inbrowser.py``
(``--runs``: cold starts to time). The built book is served on 127.0.0.1 and every other host
is unreachable, as in the browser tests. Rows:

* size: what ``_static/pyodide`` adds to the site, and gzip-compressed (level 6, what a server
  that compresses would send; ``make serve`` does not compress);
* click to first chart, cold: a fresh browser context (empty cache), the sawtooth chapter's
  "Run in your browser" clicked, until its chart has drawn (target: under 15 s);
* the same with the runtime kept (the page reloaded in the same context: the book's service
  worker serves the runtime from the browser's Cache Storage; each start prints ``cache``,
  what served it: ``service-worker`` or ``none``);
* a rerun: one slider moved until the chart has redrawn (target: under 5 s): the sawtooth's
  events (the exact fluid path), and the insensitivity chapter's sigma (Example 1: the exact
  curves and a fluid run of 16 replicas x 5,000 events, the panel's configuration), whose
  click to first chart is timed too, in the sawtooth's context (runtime cached);
* every other chapter's panel, in the same context: click to first chart at the panel's
  defaults, and reruns with one control changed (a slider, number box or drop-down);
* the packet model under Pyodide against CPython: one dumbbell run (10 flows, 20 s of
  simulated time, no trace) in the page and in this process, the wall time of its loop.

``--targets`` times only the two figures issue 36 sets targets for (on an idle 2-core machine:
the cold start under 6 s, the second chapter under 3 s), ``--runs`` times each:

* cold: a fresh browser context (nothing kept), the sawtooth chapter's panel clicked, until its
  first chart has drawn;
* second chapter: then, in the same context, the insensitivity chapter's page opened and its
  panel clicked, until its first chart has drawn.

Each start prints its steps and ``start``: ``snapshot`` (Python restored from the memory
snapshot the book ships, tcplab.pyodide_site.write_snapshot), ``full`` (a normal start) or
``kept`` (Python found running in the book's shared worker, which outlived the page before);
``--no-snapshot`` serves no snapshot, to time the normal start under the same load.

This is a script, not a test: it asserts nothing about speed.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import platform
import shutil
import statistics
import time
from pathlib import Path

from playwright.sync_api import sync_playwright

from tcplab.localsite import CHROMIUM_FLAGS, serve
from tcplab.packet import run_dumbbell

PAGE = "chapters/sawtooth.html"
OTHER = "chapters/insensitivity.html"
DRAWN = (
    "() => { const b = document.querySelector('.tcplab-inbrowser');"
    " const c = b.querySelector('.tcplab-inbrowser-view .tcplab-chart');"
    " return b.dataset.state === 'failed' || (b.dataset.runs === '{runs}' && c"
    " && c.dataset.drawn === 'true'); }"
)
#: chapter page, the control changed and its values (a rerun each), at the panel's defaults
OTHERS = {
    "microscope": ("chapters/tcp-microscope.html", "tcp", ["tahoe", "newreno", "reno"]),
    "packets": ("chapters/fluid-to-packets.html", "queue", ["red", "threshold", "droptail"]),
    "morris": ("chapters/many-flows.html", "sender", ["reno", "newreno", "tahoe"]),
    "lee": ("chapters/parallel-transfers.html", "seed", ["1", "2", "3"]),
    "bmc": ("chapters/weighted-aimd.html", "k", ["0.25", "0.75", "0.5"]),
    "lu": ("chapters/taming-parallel-tcp.html", "scenario", ["2", "3", "1"]),
}
PACKET = (
    "import time\nfrom tcplab.packet import run_dumbbell\n"
    "started = time.perf_counter()\n"
    "run_dumbbell(10, duration=20.0, warmup=5.0, trace=False)\n"
    "time.perf_counter() - started\n"
)


def _sizes(folder: Path) -> tuple[int, int, int]:
    files = [p for p in folder.rglob("*") if p.is_file()]
    raw = sum(p.stat().st_size for p in files)
    packed = sum(len(gzip.compress(p.read_bytes(), compresslevel=6)) for p in files)
    return len(files), raw, packed


def _click_to_chart(page, site: str, path: str = PAGE, reading: float = 0.0) -> float:
    """Seconds from the click on the page's first "Run in your browser" to its first chart;
    ``reading``: seconds the panel is in view before the click (a reader reading it)."""
    page.goto(f"{site}/{path}", wait_until="load", timeout=120_000)
    if reading:
        page.locator(".tcplab-inbrowser").first.scroll_into_view_if_needed(timeout=10_000)
        time.sleep(reading)
    began = time.perf_counter()
    page.locator(".tcplab-inbrowser-run").click(timeout=10_000)
    page.wait_for_function(DRAWN.replace("{runs}", "1"), timeout=180_000)
    took = time.perf_counter() - began
    box = page.locator(".tcplab-inbrowser")
    if box.get_attribute("data-state") == "failed":
        raise RuntimeError(page.locator(".tcplab-inbrowser-status").text_content())
    steps = json.loads(box.get_attribute("data-timings") or "{}")
    steps["first chart"] = int(box.get_attribute("data-last-run-ms") or 0)
    steps["cache"] = box.get_attribute("data-cache")
    steps["start"] = box.get_attribute("data-start")
    steps["prestarted"] = box.get_attribute("data-prestarted") == "true"
    print("  steps (ms after the click; first chart: its own run):", steps)
    return took


def _rerun(page, value: str, runs: int, name: str = "events") -> float:
    began = time.perf_counter()
    field = page.locator(f".tcplab-inbrowser-controls [name={name}]")
    if field.evaluate("(element) => element.type") == "select-one":
        field.select_option(value)
    else:
        field.fill(value)  # a range input: input and change
    page.wait_for_function(DRAWN.replace("{runs}", str(runs)), timeout=60_000)
    return time.perf_counter() - began


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--html", type=Path, default=Path("_build/html"), help="the built book")
    parser.add_argument("--runs", type=int, default=3, help="cold starts to time")
    parser.add_argument(
        "--targets", action="store_true", help="only the cold start and the second chapter's"
    )
    parser.add_argument(
        "--no-snapshot",
        action="store_true",
        help="serve no memory snapshot: the normal start, for comparison",
    )
    args = parser.parse_args()
    runtime = args.html / "_static" / "pyodide"
    if not runtime.exists():
        raise SystemExit(f"{runtime} is missing: run `make book` first")
    count, raw, packed = _sizes(runtime)
    print(
        f"Python {platform.python_version()}, {os.cpu_count()} CPUs, load {os.getloadavg()[0]:.1f}"
    )
    print(f"runtime size: {count} files, {raw / 1e6:.1f} MB, gzip -6 {packed / 1e6:.1f} MB")

    missing = {"_static/pyodide/tcplab-snapshot.gz"} if args.no_snapshot else set()
    with serve(args.html, missing=missing) as site:
        if args.targets:
            targets(args, site)
        else:
            measure(args, site)


def _only_local(site: str, outside: list[str]):
    def route(route) -> None:
        if route.request.url.startswith(site):
            route.continue_()
        else:
            outside.append(route.request.url)
            route.abort()

    return route


def _row(label: str, values: list[float]) -> None:
    shown = ", ".join(f"{v:.1f}" for v in values)
    print(f"{label:<44} median {statistics.median(values):6.2f} s   ({shown})")


KEPT = (
    "async () => { const base = new URL('../_static/pyodide/', location.href).href;"
    " const m = await (await fetch(base + 'tcplab-inbrowser.json')).json();"
    " if (!m.snapshot) return true;"
    " const name = 'tcplab-snapshot-' + m.snapshot.sha256;"
    " if (!(await caches.has(name))) return false;"
    " return Boolean(await (await caches.open(name)).match(base + m.snapshot.file)); }"
)


def _kept_after(page) -> float:
    """Seconds until the worker has kept the snapshot unpacked (it does so after the first
    chart; the page is a chapter, one folder down); a reader moves on later than that, the
    benchmark waits for it."""
    began = time.perf_counter()
    while not page.evaluate(KEPT):
        if time.perf_counter() - began > 60:
            raise RuntimeError("the snapshot was not kept within 60 s")
        time.sleep(0.1)
    return time.perf_counter() - began


def targets(args: argparse.Namespace, site: str) -> None:
    """Time the two target figures only: the cold start and the second chapter's start, with
    the click right after the page has loaded and after the panel has been in view 3 s."""
    chromium = os.environ.get("CHROMIUM") or shutil.which("chromium")
    outside: list[str] = []
    cold, second, reading = [], [], []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium, args=CHROMIUM_FLAGS)
        for _ in range(args.runs):
            context = browser.new_context(viewport={"width": 1400, "height": 900})
            context.route("**/*", _only_local(site, outside))
            page = context.new_page()
            cold.append(_click_to_chart(page, site))
            print(f"  the snapshot kept {_kept_after(page):.1f} s after the first chart")
            second.append(_click_to_chart(page, site, OTHER))
            reading.append(_click_to_chart(page, site, OTHER, reading=3.0))
            context.close()
        browser.close()
    _row("cold: click to first chart", cold)
    _row("second chapter, same browser: first chart", second)
    _row("  the same, the panel read 3 s before the click", reading)
    print(f"load now {os.getloadavg()[0]:.1f}; requests that left 127.0.0.1: {len(outside)}")


def measure(args: argparse.Namespace, site: str) -> None:
    """Time the starts and reruns in a browser on ``site``, then the packet model natively."""
    chromium = os.environ.get("CHROMIUM") or shutil.which("chromium")
    outside: list[str] = []
    only_local = _only_local(site, outside)

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium, args=CHROMIUM_FLAGS)
        cold, warm, reruns, packet = [], [], [], []
        other, other_reruns = [], []
        first: dict[str, list[float]] = {name: [] for name in OTHERS}
        again: dict[str, list[float]] = {name: [] for name in OTHERS}
        for _ in range(args.runs):
            context = browser.new_context(viewport={"width": 1400, "height": 900})
            context.route("**/*", only_local)
            page = context.new_page()
            cold.append(_click_to_chart(page, site))
            for runs, value in enumerate(["3", "20", "40"], start=2):
                reruns.append(_rerun(page, value, runs))
            packet.append(page.evaluate(f"() => window.tcplabPython.run({PACKET!r})"))
            warm.append(_click_to_chart(page, site))  # the same context: runtime kept
            other.append(_click_to_chart(page, site, OTHER))
            for runs, value in enumerate(["0.3", "0.6", "0.9"], start=2):
                other_reruns.append(_rerun(page, value, runs, "sigma"))
            for name, (path, control, values) in OTHERS.items():
                first[name].append(_click_to_chart(page, site, path))
                for runs, value in enumerate(values, start=2):
                    again[name].append(_rerun(page, value, runs, control))
            context.close()
        browser.close()
    native = []
    for _ in range(args.runs):
        began = time.perf_counter()
        run_dumbbell(10, duration=20.0, warmup=5.0, trace=False)
        native.append(time.perf_counter() - began)

    row = _row
    row("click to first chart, cold", cold)
    row("click to first chart, runtime kept", warm)
    row("rerun (events slider moved)", reruns)
    row("second chapter (insensitivity), same browser: first chart", other)
    row("insensitivity: rerun (sigma moved)", other_reruns)
    for name, (_, control, _) in OTHERS.items():
        row(f"{name}: click to first chart, warm", first[name])
        row(f"{name}: rerun ({control} changed)", again[name])
    row("packet model under Pyodide (10 flows, 20 s)", packet)
    row("packet model under CPython (same run)", native)
    slower = statistics.median(packet) / statistics.median(native)
    print(f"Pyodide / CPython on the packet model: {slower:.1f}x")
    print(f"requests that left 127.0.0.1: {len(outside)}")


if __name__ == "__main__":
    main()
