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

import fcntl
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
from hypothesis import settings

from browser_tools import LOOKS

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
_GROUPS = "TCPLAB_XDIST_GROUPS"  # the folder where the workers write each test's xdist group
_GROUPS_FOLDER = pytest.StashKey[str]()


def pytest_configure(config: pytest.Config) -> None:
    """One scratch folder for quick-scale results per test run, named in the environment, so
    that the xdist workers (started after this hook) and the chapters' notebook kernels
    (started by papermill) inherit it: each quick table is computed once per run, not once by
    the golden net, once by the claims tests and once by its chapter's notebook. Under
    `--dist loadgroup`, a second folder passes the tests' xdist groups from the workers to
    the scheduler (pytest_collection_modifyitems)."""
    if QUICK_CACHE not in os.environ:
        folder = tempfile.mkdtemp(prefix="tcplab-quick-")
        os.environ[QUICK_CACHE] = folder
        config.stash[_QUICK_FOLDER] = folder
    if getattr(config.option, "dist", "no") == "loadgroup" and _GROUPS not in os.environ:
        folder = tempfile.mkdtemp(prefix="tcplab-groups-")  # see pytest_collection_modifyitems
        os.environ[_GROUPS] = folder
        config.stash[_GROUPS_FOLDER] = folder


def pytest_unconfigure(config: pytest.Config) -> None:
    for key, variable in ((_QUICK_FOLDER, QUICK_CACHE), (_GROUPS_FOLDER, _GROUPS)):
        folder = config.stash.get(key, None)
        if folder:
            shutil.rmtree(folder, ignore_errors=True)
            os.environ.pop(variable, None)


#: the fixtures that need the built book (each browser fixture needs it too); a test that
#: needs one runs in an xdist group, so that the book and browser tiers split into a few large
#: work units (see :class:`BookAware` for how they are handed out)
BOOK_FIXTURES = {"built_book", "site", "browser"}
#: the group of the test that builds the book (and of every book test without a group of its
#: own): the first unit handed out; the other groups wait until it has built the book
BOOK_GROUP = "book"


def xdist_group(item: pytest.Item) -> str | None:
    """The xdist group of a test: its own ``xdist_group`` mark, else the survey it reads (the
    look it is parametrized with, :func:`look_survey`, or a survey fixture), else
    :data:`BOOK_GROUP` if it needs the book; ``None``: the test runs on its own."""
    mark = item.get_closest_marker("xdist_group")
    if mark is not None:
        return str(mark.args[0] if mark.args else mark.kwargs.get("name", "default"))
    callspec = getattr(item, "callspec", None)
    look = callspec.params.get("look_survey") if callspec is not None else None
    needs = set(getattr(item, "fixturenames", ()))
    surveys = [LOOKS[look]] if look in LOOKS else [f for f in LOOKS.values() if f in needs]
    if len(surveys) == 1:
        return surveys[0]
    if surveys or needs & BOOK_FIXTURES:
        return BOOK_GROUP
    return None


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Under pytest-xdist (`make test` runs two workers) the tests that need the built book or
    the browser run in a few groups (:func:`xdist_group`), each on one worker, and the book is
    built once per run. The groups go to the controller's scheduler (:class:`BookAware`) in
    a file: pytest-xdist 3.8 marks a group by renaming the test, which pytest 9.2's node ids
    no longer allow (pytest-dev/pytest-xdist#1386), so `--dist loadgroup` alone would scatter
    them. Without xdist nothing changes."""
    folder = os.environ.get(_GROUPS)
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    if not folder or not worker:
        return
    groups = {}
    for item in items:
        group = xdist_group(item)
        if group is not None:
            item.add_marker(pytest.mark.xdist_group(group))
            groups[item.nodeid] = group
    scratch = Path(folder) / f"{worker}.json.tmp"
    scratch.write_text(json.dumps(groups), encoding="utf-8")
    scratch.replace(Path(folder) / f"{worker}.json")


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log):
    """`--dist loadgroup` with the groups of :func:`xdist_group` (:class:`BookAware`)."""
    if getattr(config.option, "dist", "no") != "loadgroup" or _GROUPS not in os.environ:
        return None
    from xdist.scheduler import LoadGroupScheduling

    class BookAware(LoadGroupScheduling):
        """pytest-xdist's `loadgroup` scheduling, with the groups read from the workers' files
        and one order: the book group first (it builds the book), then each test or group in
        collection order, except that the other groups, which need the book too, go to a
        worker only once the book is built (the book group's first test has finished), and
        then before the single tests: they are the longest units, and a long unit handed out
        last keeps one worker busy while the other has nothing left to do."""

        groups: dict[str, str] | None = None
        book_built = False

        def _split_scope(self, nodeid: str) -> str:
            if self.groups is None:
                found = sorted(Path(os.environ[_GROUPS]).glob("*.json"))
                self.groups = json.loads(found[0].read_text(encoding="utf-8")) if found else {}
            return self.groups.get(nodeid) or super()._split_scope(nodeid)

        def _grouped(self, scope: str) -> bool:
            return scope in set((self.groups or {}).values())

        def _assign_work_unit(self, node) -> None:
            if BOOK_GROUP in self.workqueue:  # the book is built first, on the first worker
                self.workqueue.move_to_end(BOOK_GROUP, last=False)
            elif not any(BOOK_GROUP in work for work in self.assigned_work.values()):
                self.book_built = True  # no book group in this run: nothing to wait for
            ready = [
                scope
                for scope in self.workqueue
                if scope == BOOK_GROUP or self.book_built or not self._grouped(scope)
            ]
            if not ready:
                return  # only groups that need the book are left: wait until it is built
            grouped = [scope for scope in ready if self._grouped(scope)]
            self.workqueue.move_to_end((grouped or ready)[0], last=False)
            super()._assign_work_unit(node)

        def mark_test_complete(self, node, item_index: int, duration: float = 0) -> None:
            nodeid = self.registered_collections[node][item_index]
            if self._split_scope(nodeid) == BOOK_GROUP:
                self.book_built = True
            super().mark_test_complete(node, item_index, duration)
            for other in self.nodes:  # a worker left idle by the wait gets work now
                if other is not node and self.workqueue:
                    self._reschedule(other)

    return BookAware(config, log)


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
    """Build the book once per run, warnings as errors, into a fresh folder; return its html
    folder. Under pytest-xdist the workers share one build: the first to need the book builds
    it while holding a lock, the others wait for it and use it (or fail with its message).

    With ``TCPLAB_BOOK_HTML`` set to a built book's html folder, the book and browser tiers
    check that build instead (to rerun them without building again)."""
    given = os.environ.get("TCPLAB_BOOK_HTML")
    if given:
        if not (Path(given) / "index.html").exists():
            pytest.fail(f"TCPLAB_BOOK_HTML={given}: no index.html there")
        return Path(given)
    base = tmp_path_factory.getbasetemp()
    out = (base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base) / "book"
    out.mkdir(exist_ok=True)
    with (out / "lock").open("w") as lock:
        deadline = time.monotonic() + BOOK_TIMEOUT + 30
        while True:  # another worker may be building it: wait, but not forever
            try:
                fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() > deadline:
                    pytest.fail(f"waited over {BOOK_TIMEOUT} s for another worker's book build")
                time.sleep(1)
        failed = out / "failed.txt"
        if failed.exists():
            pytest.fail(failed.read_text(encoding="utf-8"))
        if not (out / "built").exists():
            problem = _build_book(out)
            if problem:
                failed.write_text(problem, encoding="utf-8")
                pytest.fail(problem)
            (out / "built").touch()
    return out / "_build" / "html"


def _build_book(out: Path) -> str | None:
    """Build the book into ``out``; returns what went wrong (None: it built)."""
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
        return f"jupyter-book build took over {BOOK_TIMEOUT} s:\n{log}"
    log = done.stdout + done.stderr
    reports = out / "_build" / "html" / "reports"
    if done.returncode != 0:
        if reports.exists():  # execution reports of failed notebooks: keep them for the reader
            shutil.copytree(reports, ROOT / "_build" / "failed-reports", dirs_exist_ok=True)
        return f"jupyter-book build failed (exit {done.returncode}):\n{log[-6000:]}"
    return None


@pytest.fixture(scope="session")
def site(built_book: Path):
    """The built book served on 127.0.0.1, for the browser tiers."""
    from tcplab.localsite import serve

    with serve(built_book) as url:
        yield url


@pytest.fixture(scope="session")
def browser():
    """Debian's Chromium, headless, with every host but 127.0.0.1 unreachable."""
    from playwright.sync_api import sync_playwright

    from tcplab.localsite import CHROMIUM_FLAGS

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(
            executable_path=chromium_executable(), args=CHROMIUM_FLAGS
        )
        yield chromium
        chromium.close()


@pytest.fixture(scope="session")
def wide_survey(built_book: Path, site: str, browser) -> list:
    """Every content page loaded once at 1400 px in light mode (browser_tools.survey): console,
    layout, chart names, axe-core and the A4 print, for test_browser.py and test_reader.py."""
    from browser_tools import content_pages, survey

    return survey(browser, site, content_pages(built_book), width=1400, dark=False)


@pytest.fixture(scope="session")
def night_survey(built_book: Path, site: str, browser) -> list:
    """Every content page loaded once at 400 px in dark mode (a phone at night): axe-core's
    contrast checks in the dark theme, and the layout checks again (the theme pads HTML
    outputs in dark mode; tcplab.css takes the padding off the book's own outputs)."""
    from browser_tools import content_pages, survey

    return survey(browser, site, content_pages(built_book), width=400, dark=True)


@pytest.fixture
def look_survey(request: pytest.FixtureRequest) -> list:
    """The survey of one look, for a test parametrized over looks:
    ``@pytest.mark.parametrize("look_survey", [...], indirect=True)`` with keys of
    :data:`LOOKS`. Each look is then a test of its own, in the xdist group of its survey."""
    return request.getfixturevalue(LOOKS[request.param])
