"""Shared fixtures: the built book (one build per test session) and where things are.

Hypothesis runs under the profile named by ``HYPOTHESIS_PROFILE`` (default ``ci``):

* ``ci``: derandomized (the examples are a fixed function of each test, so ``make test`` is
  reproducible and a CI failure reproduces locally), no example database, no deadline (the
  models' run time varies with the drawn parameters and the machine's load). Tests whose
  examples are whole simulations pin a smaller ``max_examples`` next to the test, which wins
  over the profile; the others get Hypothesis's default of 100.
* ``dev``: randomized, with the local example database, 100 examples unless a test pins its
  own; run it now and then to look beyond the fixed examples:
  ``HYPOTHESIS_PROFILE=dev make test-fast`` (or any pytest command).
  A failure prints the reproducing ``@reproduce_failure`` blob.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from hypothesis import settings

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
#: the whole book build; each notebook cell has its own limit (_config.yml: execute.timeout)
BOOK_TIMEOUT = 800  # under pytest-timeout's 900 s, so this message is the one a reader sees


def chromium_executable() -> str:
    """Debian's Chromium for the browser tier: $CHROMIUM if set, else `chromium` on PATH (the
    same rule as tools/ensure-system, which `make test` runs first to install it)."""
    found = os.environ.get("CHROMIUM") or shutil.which("chromium")
    if not found or not Path(found).exists():
        pytest.fail("Chromium not found: run `make test` (it installs Debian's chromium as root)")
    return found


QUICK_CACHE = "TCPLAB_QUICK_CACHE"  # tcplab.registry.QUICK_CACHE, not imported here
_QUICK_FOLDER = pytest.StashKey[str]()  # the folder this run made (and removes at its end)


def pytest_configure(config: pytest.Config) -> None:
    """One scratch folder for quick-scale results per test run, named in the environment, so
    that the xdist workers (started after this hook) and the chapters' notebook kernels
    (started by papermill) inherit it: each quick table is computed once per run, not once by
    the golden net, once by the claims tests and once by its chapter's notebook."""
    if QUICK_CACHE not in os.environ:
        folder = tempfile.mkdtemp(prefix="tcplab-quick-")
        os.environ[QUICK_CACHE] = folder
        config.stash[_QUICK_FOLDER] = folder


def pytest_unconfigure(config: pytest.Config) -> None:
    folder = config.stash.get(_QUICK_FOLDER, None)
    if folder:
        shutil.rmtree(folder, ignore_errors=True)
        os.environ.pop(QUICK_CACHE, None)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Under pytest-xdist (`make test` runs two workers), every test that needs the built book
    or the browser runs on one worker, so the book is built once per session, not per worker
    (`--dist loadgroup`); without xdist the marker does nothing."""
    for item in items:
        needs = set(getattr(item, "fixturenames", ()))
        if needs & {
            "built_book",
            "site",
            "browser",
            "wide_survey",
            "narrow_survey",
            "night_survey",
        }:
            item.add_marker(pytest.mark.xdist_group("book"))


settings.register_profile(
    "ci", derandomize=True, database=None, deadline=None, max_examples=100, print_blob=True
)
settings.register_profile("dev", derandomize=False, deadline=None, print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


@pytest.fixture(scope="session")
def root() -> Path:
    return ROOT


@pytest.fixture(scope="session")
def built_book(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Build the book once, warnings as errors, into a fresh folder; return its html folder.

    With ``TCPLAB_BOOK_HTML`` set to a built book's html folder, the book and browser tiers
    check that build instead (to rerun them without building again)."""
    given = os.environ.get("TCPLAB_BOOK_HTML")
    if given:
        if not (Path(given) / "index.html").exists():
            pytest.fail(f"TCPLAB_BOOK_HTML={given}: no index.html there")
        return Path(given)
    out = tmp_path_factory.mktemp("book")
    command = [
        str(BIN / "jupyter-book"),
        "build",
        str(ROOT),
        "--path-output",
        str(out),
        "--warningiserror",
        "--nitpick",
        "--keep-going",
    ]
    try:
        done = subprocess.run(
            command, capture_output=True, text=True, cwd=ROOT, env=os.environ, timeout=BOOK_TIMEOUT
        )
    except subprocess.TimeoutExpired as expired:
        out_text = expired.stdout or b""  # bytes, whatever text= says
        log = out_text.decode(errors="replace") if isinstance(out_text, bytes) else out_text
        log = log[-6000:]
        pytest.fail(f"jupyter-book build took over {BOOK_TIMEOUT} s:\n{log}")
    log = done.stdout + done.stderr
    reports = out / "_build" / "html" / "reports"
    if done.returncode != 0:
        if reports.exists():  # execution reports of failed notebooks: keep them for the reader
            shutil.copytree(reports, ROOT / "_build" / "failed-reports", dirs_exist_ok=True)
        pytest.fail(f"jupyter-book build failed (exit {done.returncode}):\n{log[-6000:]}")
    return out / "_build" / "html"


@pytest.fixture(scope="session")
def site(built_book: Path):
    """The built book served on 127.0.0.1, for the browser tiers."""
    from browser_tools import serve

    with serve(built_book) as url:
        yield url


@pytest.fixture(scope="session")
def browser():
    """Debian's Chromium, headless, with every host but 127.0.0.1 unreachable."""
    from playwright.sync_api import sync_playwright

    from browser_tools import FLAGS

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=chromium_executable(), args=FLAGS)
        yield chromium
        chromium.close()


@pytest.fixture(scope="session")
def wide_survey(built_book: Path, site: str, browser) -> list:
    """Every content page loaded once at 1400 px in light mode (browser_tools.survey): console,
    layout, chart names, axe-core and the A4 print, for test_browser.py and test_reader.py."""
    from browser_tools import content_pages, survey

    return survey(browser, site, content_pages(built_book), width=1400, dark=False)


@pytest.fixture(scope="session")
def narrow_survey(built_book: Path, site: str, browser) -> list:
    """Every content page loaded once at 400 px (a phone) in light mode: the same readings as
    :func:`wide_survey` but the print and axe-core (whose verdicts are read at 1400 px light
    and at 400 px dark)."""
    from browser_tools import content_pages, survey

    return survey(browser, site, content_pages(built_book), width=400, dark=False, axe=False)


@pytest.fixture(scope="session")
def night_survey(built_book: Path, site: str, browser) -> list:
    """Every content page loaded once at 400 px in dark mode (a phone at night): axe-core's
    contrast checks in the dark theme, and the layout checks again (the theme pads HTML
    outputs in dark mode; tcplab.css takes the padding off the book's own outputs)."""
    from browser_tools import content_pages, survey

    return survey(browser, site, content_pages(built_book), width=400, dark=True)
