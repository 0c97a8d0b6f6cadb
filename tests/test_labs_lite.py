"""The labs in the browser (tools/labs.py lite, tcplab.labs_lite): in headless Chromium with
every host but 127.0.0.1 cut off, the JupyterLite site opens a lab's student notebook, the
Pyodide kernel starts from the site's own files, and with the reference solutions filled in
every ``grader.check`` cell (Otter's own, in Pyodide) reports its question passed; with one
typical mistake made in the same notebook and all its cells run again (the link rate taken as
10 b/s instead of 10 Mb/s: 10 / (8 * 576) packets per second, which Morris's public test bounds
below by 1000) that question's check fails and only that one. No request leaves the site.

The site is built once per session (about 10 s of `jupyter lite build`) and the lab opened
once: the kernel's first start in Chromium took about 60 s here on a loaded two-core machine
(Pyodide and every wheel are loaded then); the whole file takes about 90 s.
"""

from __future__ import annotations

import importlib.util
import json
import re
import sys
import time
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("tcplab_labs_tool_lite", ROOT / "tools" / "labs.py")
assert _spec and _spec.loader
labs = importlib.util.module_from_spec(_spec)
sys.modules["tcplab_labs_tool_lite"] = labs
_spec.loader.exec_module(labs)

pytestmark = [
    pytest.mark.browser,
    pytest.mark.xdist_group("labs-lite"),
    pytest.mark.timeout(600),
]

LAB = "morris"
#: (the reference solution's text, the same with the mistake): question 1's units
MISTAKE = ("packet_rate = 10e6 / (8 * 576)", "packet_rate = 10 / (8 * 576)")
#: the kernel's first start (Pyodide and every wheel) and one run of all cells, ms
START_MS = 240_000
RUN_MS = 180_000


def _solved(
    student: Path, autograder: Path, mistake: tuple[str, str] | None
) -> nbformat.NotebookNode:
    """The student notebook with each code cell's source from the reference solution (the
    cells line up one to one), and, if given, ``mistake`` made in it."""
    notebook = nbformat.read(student, as_version=4)
    reference = nbformat.read(autograder, as_version=4)
    assert len(notebook.cells) == len(reference.cells)
    for cell, solved in zip(notebook.cells, reference.cells, strict=True):
        if cell.cell_type == "code":
            cell.source = solved.source
    if mistake is not None:
        hits = [c for c in notebook.cells if mistake[0] in c.source]
        assert len(hits) == 1, f"{mistake[0]!r} is in {len(hits)} cells"
        hits[0].source = hits[0].source.replace(*mistake)
    return notebook


@pytest.fixture(scope="session")
def lite_site(tmp_path_factory: pytest.TempPathFactory):
    """The lite site of one lab, built as `make labs` builds it, with a copy of the lab's
    notebook with the reference solutions filled in (solved/), served on 127.0.0.1."""
    from tcplab import labs_lite
    from tcplab.localsite import serve

    folder = tmp_path_factory.mktemp("labs-lite")
    labs.build(folder / "labs", (LAB,))
    started = time.monotonic()
    site = labs_lite.build(folder / "labs", folder / "lite", ROOT, [LAB])
    built_s = time.monotonic() - started
    student = folder / "labs" / LAB / "student" / f"{LAB}.ipynb"
    autograder = folder / "labs" / LAB / "autograder" / f"{LAB}.ipynb"
    notebooks = {LAB: student}
    target = folder / "solved" / f"{LAB}.ipynb"
    target.parent.mkdir()
    nbformat.write(_solved(student, autograder, None), target)
    notebooks["solved"] = target
    labs_lite.write_contents(site, notebooks)
    # the test drives JupyterLab through its API: expose the app object (the shipped site
    # does not); nothing else in the site changes
    config_path = site / "jupyter-lite.json"
    config = json.loads(config_path.read_text(encoding="utf-8"))
    config["jupyter-config-data"]["exposeAppInBrowser"] = "true"
    config_path.write_text(json.dumps(config), encoding="utf-8")
    with serve(site) as url:
        yield url, built_s, site


@pytest.fixture(scope="session")
def lite_browser(browser):
    """The suite's Chromium (tests/conftest.py): one Playwright per process, since a second
    sync_playwright in a worker that already runs one (xdist hands this group to a worker
    that may hold the book's browser) fails ("Sync API inside the asyncio loop"). This
    module's own xdist_group mark keeps it out of the book's group."""
    return browser


_RUN_ALL = """async () => {
  const app = window.jupyterapp;
  const panel = app.shell.currentWidget;
  await panel.sessionContext.ready;
  await app.commands.execute('notebook:run-all-cells');
}"""

_OUTPUTS = """() => {
  const panel = window.jupyterapp.shell.currentWidget;
  const cells = panel.content.model.cells;
  const found = [];
  for (let i = 0; i < cells.length; i++) {
    const cell = cells.get(i);
    if (cell.type !== 'code') continue;
    const texts = [], types = [];
    const outputs = cell.outputs;
    for (let j = 0; j < outputs.length; j++) {
      const data = outputs.get(j).toJSON();
      types.push(data.output_type);
      texts.push(JSON.stringify(data));
    }
    found.push({source: cell.sharedModel.getSource(), count: cell.executionCount,
                types: types, outputs: texts.join('\\n')});
  }
  return found;
}"""


_RERUN = """async ([find, replace, limit]) => {
  const app = window.jupyterapp;
  const cells = app.shell.currentWidget.content.model.cells;
  let edited = 0;
  for (let i = 0; i < cells.length; i++) {
    const shared = cells.get(i).sharedModel;
    if (shared.getSource().includes(find)) {
      shared.setSource(shared.getSource().replace(find, replace));
      edited += 1;
    }
  }
  if (edited !== 1) return `the text is in ${edited} cells`;
  const timeout = new Promise((resolve) => setTimeout(() => resolve('timed out'), limit));
  const ran = app.commands.execute('notebook:run-all-cells').then(() => 'ran');
  return await Promise.race([ran, timeout]);
}"""


def _run_lab(
    browser, url: str, path: str, mistake: tuple[str, str]
) -> tuple[list[dict], list[dict], list[str], float, float]:
    """Open ``path`` in the lite site, run all its cells, then make ``mistake`` in it and run
    all its cells again in the same kernel; returns each code cell's source, execution count
    and outputs after each run, the requests that left 127.0.0.1, the seconds from opening the
    page to the first cell's result and to the last's."""
    outside: list[str] = []
    context = browser.new_context(viewport={"width": 1400, "height": 900})

    def only_local(route) -> None:
        if route.request.url.startswith(url):
            route.continue_()
        else:
            outside.append(route.request.url)
            route.abort()

    context.route("**/*", only_local)
    page = context.new_page()
    try:
        opened = time.monotonic()
        page.goto(f"{url}/lab/index.html?path={path}", wait_until="load", timeout=120_000)
        page.wait_for_function(
            "() => window.jupyterapp && window.jupyterapp.shell.currentWidget"
            " && window.jupyterapp.shell.currentWidget.content"
            " && window.jupyterapp.shell.currentWidget.content.model",
            timeout=START_MS,
        )
        page.evaluate(_RUN_ALL)
        first = (
            "() => { const c = window.jupyterapp.shell.currentWidget.content.model.cells;"
            " for (let i = 0; i < c.length; i++) { const x = c.get(i);"
            " if (x.type === 'code') return x.executionCount !== null; } return false; }"
        )
        page.wait_for_function(first, timeout=START_MS)
        first_s = time.monotonic() - opened
        # every cell ran, or one raised (run-all stops there): then the kernel is idle
        done = (
            "() => { const c = window.jupyterapp.shell.currentWidget.content.model.cells;"
            " let pending = false, raised = false;"
            " for (let i = 0; i < c.length; i++) { const x = c.get(i);"
            " if (x.type !== 'code') continue;"
            " if (x.executionCount === null) pending = true;"
            " for (let j = 0; j < x.outputs.length; j++)"
            " if (x.outputs.get(j).type === 'error') raised = true; }"
            " return (!pending || raised) && window.jupyterapp.shell.currentWidget"
            ".sessionContext.session.kernel.status === 'idle'; }"
        )
        page.wait_for_function(done, timeout=RUN_MS, polling=500)
        last_s = time.monotonic() - opened
        cells = page.evaluate(_OUTPUTS)
        rerun = page.evaluate(_RERUN, [*mistake, RUN_MS])
        assert rerun == "ran", rerun
        wrong = page.evaluate(_OUTPUTS)
    finally:
        context.close()
    return cells, wrong, outside, first_s, last_s


@pytest.fixture(scope="session")
def lite_runs(lite_site, lite_browser):
    """The solved lab run in Chromium, then again with :data:`MISTAKE` made in it."""
    url, built_s, _ = lite_site
    cells, wrong, outside, first_s, last_s = _run_lab(
        lite_browser, url, f"solved/{LAB}.ipynb", MISTAKE
    )
    print(f"lite build {built_s:.0f} s; first cell's result {first_s:.0f} s, all {last_s:.0f} s")
    return cells, wrong, outside


def _checks(cells: list[dict]) -> dict[str, str]:
    """Each ``grader.check("qN")`` cell's question and its output."""
    found = {}
    for cell in cells:
        question = re.search(r'grader\.check\("(q\d+)"\)', cell["source"])
        if question:
            found[question.group(1)] = cell["outputs"]
    return found


def test_the_site_holds_everything_it_loads(lite_site) -> None:
    """Every package the kernel loads is a file of the site whose sha256 the lock file states
    (Pyodide checks it), the kernel's Pyodide is the site's own, PyPI is switched off, and the
    start page links the lab."""
    import hashlib

    _, _, site = lite_site
    runtime = site / "static" / "pyodide"
    lock = json.loads((runtime / "pyodide-lock.json").read_text(encoding="utf-8"))
    assert lock["info"]["version"] == "0.27.7"
    for name, entry in lock["packages"].items():
        data = (runtime / entry["file_name"]).read_bytes()
        assert hashlib.sha256(data).hexdigest() == entry["sha256"], name
    settings = json.loads((site / "jupyter-lite.json").read_text(encoding="utf-8"))
    kernel = settings["jupyter-config-data"]["litePluginSettings"][
        "@jupyterlite/pyodide-kernel-extension:kernel"
    ]
    assert kernel["pyodideUrl"] == "./static/pyodide/pyodide.js"
    assert kernel["disablePyPIFallback"] is True
    loaded = set(kernel["loadPyodideOptions"]["packages"])
    needed = {"otter-grader", "tcplab", "numpy", "pandas", "altair"}
    assert needed <= loaded <= set(lock["packages"])
    index = (site / "index.html").read_text(encoding="utf-8")
    assert f"path={LAB}/{LAB}.ipynb" in index


def test_reference_solutions_pass_every_check_in_the_browser(lite_runs) -> None:
    cells, _, outside = lite_runs
    assert outside == [], outside
    errors = [c["outputs"][:2000] for c in cells if "error" in c["types"]]
    assert errors == [], errors
    checks = _checks(cells)
    assert sorted(checks) == ["q1", "q2", "q3", "q4", "q5"], sorted(checks)
    for question, output in checks.items():
        assert "All test cases passed" in output, (question, output)


def test_a_typical_mistake_fails_its_check_in_the_browser(lite_runs) -> None:
    _, wrong, outside = lite_runs
    assert outside == [], outside
    checks = _checks(wrong)
    assert "All test cases passed" not in checks["q1"], checks["q1"]
    assert "q1 results" in checks["q1"] and "failed" in checks["q1"].lower(), checks["q1"]
    for question in ("q2", "q3", "q4", "q5"):
        assert "All test cases passed" in checks[question], (question, checks[question])


def test_a_lab_marked_heavy_is_listed_without_a_link(monkeypatch: pytest.MonkeyPatch) -> None:
    """A lab whose run is too heavy for the browser is named on the start page with the
    reason, not linked (no lab is today: tcplab.labs_lite.BROWSER)."""
    from tcplab import labs_lite

    monkeypatch.setitem(labs_lite.BROWSER, "lu", "its probes run the packet model for minutes")
    page = labs_lite._index_page(["morris", "lu"])
    assert "path=morris/morris.ipynb" in page
    assert "path=lu/lu.ipynb" not in page
    assert "not in the browser: its probes run the packet model for minutes" in page
