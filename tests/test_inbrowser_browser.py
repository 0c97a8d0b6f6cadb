"""The chapters' panels run in headless Chromium by Pyodide, with the network cut to
127.0.0.1: the click starts Python from the book's own files, the chart draws, changing a
control (slider, number box, drop-down, text field) reruns the model and redraws it, nothing
is requested from another host; and where the browser cannot run it (no WebAssembly, a file
missing) one line points to Binder."""

from __future__ import annotations

import gzip
import hashlib
import json
import re
import struct
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from tcplab.localsite import serve

from browser_tools import PAGE_LOAD_MS, Visit

#: the panels are one xdist work unit of their own (conftest.xdist_group): each starts Pyodide,
#: so they take as long as a survey, and run on whichever worker is free
pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("panels")]

#: a cold start here took about 10 s (benchmarks/bench_inbrowser.py); a loaded CI machine more
START_MS = 120_000
RERUN_MS = 30_000


def _state(visit: Visit, state: str, timeout: int) -> None:
    visit.page.wait_for_function(
        f"() => document.querySelector('.tcplab-inbrowser').dataset.state === '{state}'"
        " || document.querySelector('.tcplab-inbrowser').dataset.state === 'failed'",
        timeout=timeout,
    )
    box = visit.page.locator(".tcplab-inbrowser").first
    found = box.get_attribute("data-state")
    assert found == state, box.text_content()


def _drawn(visit: Visit, timeout: int) -> str:
    visit.page.wait_for_function(
        "() => document.querySelector('.tcplab-inbrowser-view .tcplab-chart')"
        ".dataset.drawn === 'true'",
        timeout=timeout,
    )
    return visit.page.locator(".tcplab-inbrowser-view svg.marks").first.inner_html()


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

PAGE = PANELS["sawtooth"][0]  # where the download test starts a panel first
OTHER = PANELS["insensitivity"][0]  # and where it starts one next


def _title(visit: Visit) -> str:
    titles = visit.page.locator(".tcplab-inbrowser-view svg .role-title")
    return " ".join(titles.all_text_contents())


def _change(visit: Visit, name: str, value: str) -> None:
    """Set a control as a reader would: it fires input and change, and the model reruns."""
    field = visit.page.locator(f".tcplab-inbrowser-controls [name={name}]").first
    kind = field.evaluate("(element) => element.type")
    if kind == "select-one":
        field.select_option(value, timeout=10_000)
    elif kind in ("text", "number"):
        field.fill(value, timeout=10_000)  # fires input only: the box acts on Enter or blur
        field.press("Enter")
    else:
        field.fill(value, timeout=10_000)  # a range input: fill fires input and change


def _ran(visit: Visit, runs: int, ready: bool = True) -> None:
    """Wait until the panel has made ``runs`` runs (and is ready again)."""
    visit.page.wait_for_function(
        f"() => document.querySelector('.tcplab-inbrowser').dataset.runs === '{runs}'",
        timeout=RERUN_MS,
    )
    if ready:
        _state(visit, "ready", RERUN_MS)


def _reruns(visit: Visit, chapter: str) -> None:
    """The panel of ``chapter``'s page, started: its chart drew with the title of the default
    controls, and moving one control reruns the model and redraws it with the new title."""
    _, control, value, first, then = PANELS[chapter]
    before = _drawn(visit, 30_000)
    assert first in _title(visit), _title(visit)
    _change(visit, control, value)
    _ran(visit, 2)
    after = _drawn(visit, 30_000)
    assert then in _title(visit), _title(visit)
    assert after != before


def _microscope_a_and_beta(visit: Visit) -> None:
    """The microscope's AIMD knobs a and beta act only for AIMD, and a script that names no
    packet is one line in the panel (after :func:`_reruns` switched it to AIMD)."""
    a = visit.page.locator(".tcplab-inbrowser-controls [name=a]").first
    assert a.is_enabled()
    _change(visit, "tcp", "reno")
    assert a.is_disabled()
    _ran(visit, 3)
    _change(visit, "tcp", "aimd")
    assert a.is_enabled()
    _ran(visit, 4)
    _change(visit, "drops", "14, x")
    _ran(visit, 5, ready=False)
    error = visit.page.locator(".tcplab-inbrowser-view .tcplab-panel-error").first.text_content()
    assert "is not a packet number" in (error or "")
    _state(visit, "refused", RERUN_MS)  # a refused run never reports success
    status = visit.page.locator(".tcplab-inbrowser-status").first.text_content() or ""
    assert "did not run" in status and "is not a packet number" in status and "Ran" not in status


#: what a chapter's panel is checked for beyond :func:`_reruns` (a page with two panels - the
#: weighted-aimd page has a second, for when the weight law holds - is checked at its first)
MORE = {"microscope": _microscope_a_and_beta}
#: each start of Pyodide costs some 30 s of a core here: the two chapters whose panels the
#: download test starts anyway (PAGE, then OTHER) are checked there, not started again
STARTED_ELSEWHERE = {"sawtooth", "insensitivity"}


@pytest.fixture(scope="module")
def reader(site: str, browser) -> Iterator[Visit]:
    """One reader's tab, going from chapter to chapter: the first panel started starts Python,
    in the shared worker that the next pages find running (as the download test checks), so
    the other panels are checked without a start each."""
    visit = Visit(browser, site, "index.html")
    yield visit
    visit.close()


@pytest.mark.parametrize("chapter", sorted(set(PANELS) - STARTED_ELSEWHERE))
def test_the_panel_runs_in_browser_offline_and_a_control_reruns_it(
    reader: Visit, chapter: str
) -> None:
    reader.goto(PANELS[chapter][0])
    reader.page.locator(".tcplab-inbrowser-run").first.click(timeout=10_000)
    _state(reader, "ready", START_MS)
    _reruns(reader, chapter)
    MORE.get(chapter, lambda visit: None)(reader)
    assert not reader.outside, reader.outside
    assert not reader.errors, reader.errors


#: the page's thread is free if a 50 ms timer keeps firing: the longest gap between two of
#: its ticks from the click until the panel is ready, and how long that took
GAPS = """() => new Promise(resolve => {
  const box = document.querySelector('.tcplab-inbrowser');
  const began = performance.now();
  let last = began, longest = 0;
  const tick = () => {
    const now = performance.now();
    longest = Math.max(longest, now - last);
    last = now;
    if (box.dataset.state === 'ready' || box.dataset.state === 'failed') {
      resolve([longest, now - began, box.dataset.state]);
    } else {
      setTimeout(tick, 50);
    }
  };
  box.querySelector('.tcplab-inbrowser-run').click();
  setTimeout(tick, 50);
})"""


def test_without_webassembly_the_in_browser_panel_points_to_binder(site: str, browser) -> None:
    visit = Visit(browser, site, PAGE)
    try:
        visit.page.evaluate("() => { delete window.WebAssembly; }")
        visit.page.locator(".tcplab-inbrowser-run").first.click(timeout=10_000)
        _state(visit, "failed", 10_000)
        line = visit.page.locator(".tcplab-inbrowser-status").first.text_content() or ""
        assert "no WebAssembly" in line and "Binder" in line
        assert not visit.outside, visit.outside
    finally:
        visit.close()


@pytest.mark.parametrize(
    "missing",
    ["pyodide.js", "tcplab-worker.js", "pypi/simpy-4.1.2-py3-none-any.whl", "pyodide.asm.wasm"],
)
def test_a_missing_runtime_file_in_browser_points_to_binder(
    built_book: Path, browser, missing: str
) -> None:
    """The site answers 404 for one runtime file (through the service worker, as a reader's
    browser would ask for it). A wheel is only read by a normal start: the snapshot, which
    holds the packages already, is missing too there."""
    gone = {f"_static/pyodide/{missing}"}
    if missing.endswith(".whl"):
        gone.add("_static/pyodide/tcplab-snapshot.gz")
    with serve(built_book, missing=gone) as site:
        visit = Visit(browser, site, PAGE)
        try:
            visit.page.locator(".tcplab-inbrowser-run").first.click(timeout=10_000)
            _state(visit, "failed", START_MS)
            line = visit.page.locator(".tcplab-inbrowser-status").first.text_content() or ""
            assert "could not run the panel" in line and "Binder" in line
        finally:
            visit.close()


def test_without_the_compiled_modules_the_panel_still_starts_in_browser(
    built_book: Path, browser
) -> None:
    """The bytecode archive only saves time: a site that does not serve it (a host that
    drops a file, a partial upload) still gets a working panel, Python compiling the sources.
    The memory snapshot is not served either (it holds the compiled modules too): without it
    Python starts the normal way."""
    missing = {"_static/pyodide/tcplab-pycache.zip", "_static/pyodide/tcplab-snapshot.gz"}
    with serve(built_book, missing=missing) as site:
        visit = Visit(browser, site, PAGE)
        try:
            visit.page.locator(".tcplab-inbrowser-run").first.click(timeout=10_000)
            _state(visit, "ready", START_MS)
            steps = json.loads(
                visit.page.locator(".tcplab-inbrowser").first.get_attribute("data-timings")
            )
            assert "bytecode" not in steps and "import" in steps, steps
            assert "snapshot-failed" in steps and "packages" in steps, steps
            box = visit.page.locator(".tcplab-inbrowser").first
            assert box.get_attribute("data-start") == "full"
            _drawn(visit, 30_000)
            assert PANELS["sawtooth"][3] in _title(visit), _title(visit)
        finally:
            visit.close()


def _bundle(built_book: Path, change) -> bytes:
    """The book's snapshot bundle (tcplab-restore.js reads it) with its meta changed: updated
    with what ``change(meta)`` returns."""
    runtime = built_book / "_static" / "pyodide"
    manifest = json.loads((runtime / "tcplab-inbrowser.json").read_text(encoding="utf-8"))
    bundle = gzip.decompress((runtime / manifest["snapshot"]["file"]).read_bytes())
    (length,) = struct.unpack("<I", bundle[:4])
    header = json.loads(bundle[4 : 4 + length])
    header["meta"].update(change(header["meta"]))
    changed = json.dumps(header).encode()
    changed += b" " * ((8 - (4 + len(changed)) % 8) % 8)  # the snapshot aligned, as the build does
    return gzip.compress(struct.pack("<I", len(changed)) + changed + bundle[4 + length :], 1)


@pytest.mark.parametrize("broken", ["garbled", "refused"])
def test_a_broken_snapshot_falls_back_to_a_normal_start_in_browser(
    built_book: Path, browser, broken: str
) -> None:
    """The memory snapshot only saves time. A garbled file (its sha256 is not the manifest's)
    or one the restore refuses (here its record of the function table's size is off by one,
    as a snapshot of another runtime's would be; the manifest names its digest, so only the
    restore can tell) leaves a normal start, which works: never a panel that says it ran
    when it did not."""
    runtime = "_static/pyodide/"
    manifest = json.loads((built_book / runtime / "tcplab-inbrowser.json").read_text())
    replaced: dict[str, bytes] = {}
    if broken == "garbled":
        replaced[runtime + manifest["snapshot"]["file"]] = b"\x1f\x8b not the snapshot"
    else:
        bundle = _bundle(built_book, lambda meta: {"tableBefore": meta["tableBefore"] + 1})
        manifest["snapshot"]["sha256"] = hashlib.sha256(bundle).hexdigest()
        replaced[runtime + manifest["snapshot"]["file"]] = bundle
        replaced[runtime + "tcplab-inbrowser.json"] = json.dumps(manifest).encode()
    with serve(built_book, replaced=replaced) as site:
        visit = Visit(browser, site, PAGE)
        try:
            visit.page.locator(".tcplab-inbrowser-run").first.click(timeout=10_000)
            _state(visit, "ready", START_MS)
            box = visit.page.locator(".tcplab-inbrowser").first
            steps = json.loads(box.get_attribute("data-timings"))
            assert "snapshot-failed" in steps and "snapshot" not in steps, steps
            assert "packages" in steps and "bytecode" in steps, steps
            assert box.get_attribute("data-start") == "full"
            _reruns(visit, "sawtooth")
            assert not visit.outside, visit.outside
        finally:
            visit.close()


def _runtime_requests(requests: list[str]) -> list[str]:
    return [line for line in requests if " /_static/pyodide/" in line]


#: where Python looks for the compiled tcplab.inbrowser, and whether it is there
COMPILED = """
import importlib.util, os, sys
import tcplab.inbrowser
cached = importlib.util.cache_from_source(tcplab.inbrowser.__file__)
f"{sys.pycache_prefix} {cached} {os.path.exists(cached)}"
"""


def _uses_bytecode(visit: Visit) -> None:
    """The start put the modules compiled ahead where Python's import looks for them
    (tests/test_inbrowser.py checks that they are used without their sources): from the
    bytecode archive, or with the files of the memory snapshot."""
    steps = json.loads(visit.page.locator(".tcplab-inbrowser").first.get_attribute("data-timings"))
    assert "bytecode" in steps or "snapshot" in steps, steps
    prefix, cached, there = visit.page.evaluate(
        "(code) => window.tcplabPython.run(code)", COMPILED
    ).split()
    assert prefix == "/pycache" and cached.startswith("/pycache/") and there == "True", cached


#: the worker has kept the snapshot unpacked (it does so after the first chart; the page is a
#: chapter, one folder below the book's root)
KEPT = """async () => {
  const base = new URL('../_static/pyodide/', location.href).href;
  const manifest = await (await fetch(base + 'tcplab-inbrowser.json')).json();
  const name = 'tcplab-snapshot-' + manifest.snapshot.sha256;
  if (!(await caches.has(name))) return false;
  return Boolean(await (await caches.open(name)).match(base + manifest.snapshot.file));
}"""
PRESTARTED = "() => document.body.dataset.tcplabPython === 'ready'"


def _ahead_of_the_click(visit: Visit, path: str, requests: list[str]):
    """Open ``path`` (a chapter whose panel a reader has run before, in this browser), wait
    until its Python has started ahead of a click as its panel came near, then click: the
    panel is ready with no runtime file asked of the site. Returns the panel's box and the
    steps of its start."""
    visit.page.goto(f"{visit.site}/{path}", wait_until="load", timeout=PAGE_LOAD_MS)
    box = visit.page.locator(".tcplab-inbrowser").first
    box.scroll_into_view_if_needed(timeout=10_000)
    visit.page.wait_for_function(PRESTARTED, timeout=START_MS)
    assert box.get_attribute("data-state") == "idle"
    visit.page.locator(".tcplab-inbrowser-run").first.click(timeout=10_000)
    _state(visit, "ready", START_MS)
    assert _runtime_requests(requests) == []
    assert box.get_attribute("data-prestarted") == "true"
    return box, json.loads(box.get_attribute("data-timings"))


def test_the_runtime_is_downloaded_once_and_the_page_stays_responsive_in_browser(
    built_book: Path, browser
) -> None:
    """The first start fetches each runtime file it uses from the site once: Python starts from
    the book's memory snapshot, so Pyodide's wasm, the snapshot and its restoring script, but
    no package or wheel; a start on another page of the book, in the same browser, asks the
    site for none (the service worker keeps them, the worker keeps the snapshot unpacked;
    Playwright's routing turns the browser's HTTP cache off, so it is not that cache): Python
    still runs there (the shared worker outlived the first page), so the click starts nothing;
    in a browser without shared workers, the snapshot kept, a page's Python starts from it as
    its panel comes into view, before the click (on the first visit only the click starts it).
    The two panels started here (sawtooth, insensitivity) are also checked as every other
    chapter's panel is (:func:`_reruns`, offline, no error on the page), and the first start
    imported tcplab with the modules compiled ahead (:func:`_uses_bytecode`).

    During the first start the page's own thread never stops for long, since Python starts
    and runs in a Web Worker. Measured as a share of the start, so that a loaded machine,
    which slows both, does not change the verdict: on the page's thread the import alone held
    it for about half of the start (10-13 s of 20-27 s when it ran there, under load); here no
    stall may reach a quarter."""
    requests: list[str] = []
    manifest = json.loads((built_book / "_static/pyodide/tcplab-inbrowser.json").read_text())
    with serve(built_book, requests=requests) as site:
        visit = Visit(browser, site, PAGE)
        try:
            # what the panel says its start downloads, before it starts
            said = visit.page.locator(".tcplab-inbrowser-status").first.text_content() or ""
            # a first visit: the panel in view starts nothing until the reader clicks
            visit.page.locator(".tcplab-inbrowser").first.scroll_into_view_if_needed()
            visit.page.wait_for_timeout(1500)
            assert visit.page.evaluate("() => document.body.dataset.tcplabPython") is None
            longest, took, state = visit.page.evaluate(GAPS)
            assert state == "ready", visit.page.locator(".tcplab-inbrowser").first.text_content()
            assert longest < 0.25 * took, (longest, took)
            box = visit.page.locator(".tcplab-inbrowser").first
            assert box.get_attribute("data-cache") == "service-worker"
            assert box.get_attribute("data-start") == "snapshot"
            fetched = Counter(
                line.split(" ", 1)[1] for line in _runtime_requests(requests) if line[:4] == "GET "
            )
            snapshot = manifest["snapshot"]
            wanted = ["pyodide.asm.wasm", snapshot["file"], snapshot["restore"]]
            for name in wanted:
                assert fetched[f"/_static/pyodide/{name}"] == 1, (name, fetched)
            for name in manifest["wheels"]:
                assert fetched[f"/_static/pyodide/pypi/{name}"] == 0, (name, fetched)
            assert max(fetched.values()) == 1, fetched
            # the size the panel stated is what the site served for the start (the reader's
            # report of 2026-12-02 measured 63 MB where the page said about 25 MB); within
            # half a MB of rounding and 2% for a file the start asks for after the first chart
            served = sum((built_book / path.lstrip("/")).stat().st_size for path in fetched)
            stated = re.search(r"Pyodide, (\d+) MB, downloaded once", said)
            assert stated, said
            assert abs(int(stated[1]) * 1e6 - served) <= 0.5e6 + 0.02 * served, (said, served)
            _uses_bytecode(visit)
            _reruns(visit, "sawtooth")
            visit.page.wait_for_function(KEPT, timeout=60_000)  # after the first chart
            requests.clear()
            # the next chapter: the shared worker outlived the page, Python runs there already
            box, steps = _ahead_of_the_click(visit, OTHER, requests)
            assert box.get_attribute("data-start") == "kept"
            assert "kept" in steps and "snapshot" not in steps, steps  # no second start
            _reruns(visit, "insensitivity")
            # a browser without shared workers: each page starts its own Python, from the
            # snapshot kept unpacked, as its panel comes near, before the click
            visit.page.add_init_script("delete window.SharedWorker")
            box, steps = _ahead_of_the_click(visit, PAGE, requests)
            assert box.get_attribute("data-start") == "snapshot"
            assert "snapshot-file" not in steps, steps  # the kept bundle: no download, no gunzip
            _drawn(visit, 30_000)
            assert PANELS["sawtooth"][3] in _title(visit), _title(visit)
            assert not visit.outside, visit.outside
            assert not visit.errors, visit.errors
        finally:
            visit.close()


#: the page asks the browser to look for a new tcplab-sw.js, waits until one takes the page
#: (controllerchange) and has finished its activate step (where it drops the old caches)
UPDATED = """() => {
  const sw = navigator.serviceWorker;
  const taken = new Promise(resolve =>
    sw.addEventListener('controllerchange', () => resolve(sw.controller), {once: true}));
  const activated = worker => worker.state === 'activated' ? true : new Promise(resolve =>
    worker.addEventListener('statechange', () => worker.state === 'activated' && resolve(true)));
  return sw.getRegistration().then(r => r.update()).then(() => taken).then(activated);
}"""


def test_a_new_build_s_runtime_replaces_the_kept_one_in_browser(built_book: Path, browser) -> None:
    """A book rebuilt with another runtime serves another tcplab-sw.js: the browser installs it
    and it drops the old runtime's cache, so the next start fetches the new files, from the
    site even where the browser's HTTP cache still holds the old ones (the site lets them be
    kept 10 minutes, as GitHub Pages does). No routing here: Playwright's turns that cache off;
    the browser reaches no other host anyway (tcplab.localsite.CHROMIUM_FLAGS)."""
    worker = (built_book / "tcplab-sw.js").read_text(encoding="utf-8")
    old = re.search(r'^const VERSION = "([0-9a-f]{16})";$', worker, re.M).group(1)
    new = "0123456789abcdef"
    lock = "/_static/pyodide/pyodide-lock.json"
    fetch = f"() => fetch('{lock}').then(r => r.status)"
    kept = "() => caches.keys()"
    requests: list[str] = []
    replaced: dict[str, bytes] = {}
    with serve(
        built_book, replaced=replaced, requests=requests, cache_control="max-age=600"
    ) as site:
        context = browser.new_context()
        try:
            page = context.new_page()
            page.goto(f"{site}/{PAGE}", wait_until="load", timeout=PAGE_LOAD_MS)
            page.wait_for_function(
                "() => navigator.serviceWorker.controller !== null", timeout=30_000
            )
            assert page.evaluate(fetch) == 200
            assert page.evaluate(kept) == [f"tcplab-pyodide-{old}"]
            assert page.evaluate(fetch) == 200
            assert requests.count(f"GET {lock}") == 1  # the second came from the cache
            replaced["tcplab-sw.js"] = worker.replace(old, new).encode()
            assert page.evaluate(UPDATED)
            assert page.evaluate(fetch) == 200
            assert requests.count(f"GET {lock}") == 2  # the new worker asked the site again
            assert page.evaluate(kept) == [f"tcplab-pyodide-{new}"]
        finally:
            context.close()
