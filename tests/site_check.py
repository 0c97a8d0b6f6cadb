"""The release check of the published site (`make site` runs it as `make site-check`, on
_build/html; TCPLAB_SITE_HTML names the site). Not part of `make test` (its name is not a
test file's: pytest collects it only when given it): a built site takes the book twice and
the PDF, and the replay of a download installs the packages into a fresh venv (minutes);
`make test` checks the pieces on the book it builds (tests/test_published.py,
test_offline.py, test_course.py, test_labs.py).

* every link of every page of the site (both editions, the downloads pages, the labs' start
  page) lands on a file, and every #anchor of the book's own pages on its target;
* in headless Chromium, offline (tcplab.localsite: no host but 127.0.0.1), the introduction's
  links to the students' edition, the PDF, a lab's notebook and the labs in the browser all
  load, and none asks another host for anything;
* the site carries no autograder and no hidden test;
* a chapter's notebook downloaded from its page runs in a fresh venv that reaches nothing but
  the site (tools/notebook-check), and reads like the page.
"""

from __future__ import annotations

import html
import json
import os
import re
import subprocess
import urllib.parse
from pathlib import Path

import pytest

from tcplab.course import LAB_CHAPTERS

from browser_tools import Visit

ROOT = Path(__file__).resolve().parents[1]
#: the site's links of the introduction's "for a course" list (tcplab.course.site_links)
LINKS = "ul.tcplab-site-links a"
#: the replay of a download: the fresh venv's packages, the chapter's run (seconds)
REPLAY_TIMEOUT = 2400


@pytest.fixture(scope="session")
def published() -> Path:
    given = os.environ.get("TCPLAB_SITE_HTML")
    if not given or not (Path(given) / "student" / "index.html").exists():
        pytest.fail(f"TCPLAB_SITE_HTML={given!r}: not a site make site built (run make site)")
    return Path(given)


@pytest.fixture(scope="session")
def served(published: Path):
    from tcplab.localsite import serve

    with serve(published) as url:
        yield url


_HREF = re.compile(r'(?:href|src)="([^"]+)"')


def _pages(site: Path) -> list[Path]:
    """Every HTML page of the site but the themes' templates in _static (Jinja, not pages)
    and JupyterLite's own app pages (labs/lite/lab/...: its bundles are loaded by its
    scripts, which the browser check below runs)."""
    lite = site / "labs" / "lite"
    return sorted(
        p
        for p in site.rglob("*.html")
        if "_sources" not in p.parts
        and "_static" not in p.parts
        and not (p.is_relative_to(lite) and p != lite / "index.html")
    )


def test_every_link_of_the_site_lands(published: Path) -> None:
    problems = []
    ids: dict[Path, set[str]] = {}
    pages = _pages(published)
    assert len(pages) > 30, len(pages)  # the book's pages, twice, and the site's own
    for page in pages:
        text = page.read_text(encoding="utf-8", errors="replace")
        for href in _HREF.findall(text):
            parts = urllib.parse.urlsplit(html.unescape(href))
            if parts.scheme or parts.netloc or href.startswith(("#", "mailto:", "data:")):
                continue
            target = (page.parent / urllib.parse.unquote(parts.path)).resolve()
            if target.is_dir():
                target = target / "index.html"
            if not target.is_file():
                problems.append(f"{page.relative_to(published)}: {href}")
                continue
            if parts.fragment and target.suffix == ".html" and "labs" not in target.parts:
                if target not in ids:
                    found = re.findall(r'id="([^"]+)"', target.read_text(errors="replace"))
                    ids[target] = set(found)
                if parts.fragment not in ids[target]:
                    problems.append(f"{page.relative_to(published)}: {href} (no such anchor)")
    assert not problems, f"{len(problems)} broken links:\n" + "\n".join(problems[:40])


def test_the_site_carries_no_autograder_and_no_hidden_test(published: Path) -> None:
    found = [p for p in published.rglob("*") if "autograder" in p.name.lower()]
    assert not found, found[:5]
    for lab in LAB_CHAPTERS:
        for notebook in (
            published / "labs" / f"{lab}.ipynb",
            *published.glob(f"labs/lite/files/{lab}/*.ipynb"),
        ):
            text = notebook.read_text(encoding="utf-8")
            tests = json.loads(text)["metadata"]["otter"]["tests"]
            cases = [c for t in tests.values() for s in t["suites"] for c in s["cases"]]
            assert cases and not any(c["hidden"] for c in cases), notebook
            assert "BEGIN SOLUTION" not in text and "hidden: true" not in text, notebook


def _follow(visit: Visit, text: str) -> str:
    """The href of the introduction's link whose text starts with ``text``, made absolute."""
    link = visit.page.locator(LINKS, has_text=text).first
    href = link.get_attribute("href") or ""
    return urllib.parse.urljoin(visit.page.url, href)


def test_the_introductions_links_load_offline(served: str, browser, published: Path) -> None:
    """From the introduction: the students' edition opens (its title says so, no solution
    shown), the PDF is served whole, a lab's link downloads the lab with the site it came from
    written in, and the labs in the browser open JupyterLab on a lab; no request leaves
    127.0.0.1."""
    visit = Visit(browser, served, "chapters/intro.html")
    try:
        assert visit.page.locator(LINKS).count() >= 4 + len(LAB_CHAPTERS)
        student = _follow(visit, "The students")
        pdf = _follow(visit, "the whole book as one PDF")
        lite = _follow(visit, "the labs in your browser")
        # the students' edition: its root forwards to its introduction, as the book's does
        visit.page.goto(student, wait_until="load")
        visit.page.wait_for_url("**/student/chapters/intro.html", timeout=60_000)
        visit.page.wait_for_load_state("load")
        assert "students' edition" in visit.page.title(), visit.page.title()
        assert not visit.errors, visit.errors
        # the PDF, as the browser gets it
        answer = visit.context.request.get(pdf, timeout=60_000)
        assert answer.ok and answer.body()[:5] == b"%PDF-", (answer.status, answer.body()[:20])
        assert len(answer.body()) == (published / "tcplab.pdf").stat().st_size
        # a lab: the link downloads the notebook, the site it came from written into it
        visit.goto("chapters/intro.html")
        with visit.page.expect_download(timeout=60_000) as started:
            visit.page.locator(LINKS, has_text="morris").first.click()
        notebook = json.loads(Path(started.value.path()).read_text(encoding="utf-8"))
        assert started.value.suggested_filename == "morris.ipynb"
        assert f'SITE = "{served}/"' in "".join(notebook["cells"][0]["source"])
        code = ["".join(c["source"]) for c in notebook["cells"][1:] if c["cell_type"] == "code"]
        assert "import otter" in code[0], code[0][:300]  # the lab's own first cell follows
        assert notebook["metadata"]["otter"]["tests"], "the public tests are in the notebook"
        # the labs in the browser: the start page, then JupyterLab on the morris lab
        visit.page.goto(lite, wait_until="load")
        lab = visit.page.locator("a", has_text="morris").first
        lab.click()
        visit.page.wait_for_selector(".jp-LabShell, #main", timeout=180_000)
        visit.page.wait_for_selector(".jp-Notebook", timeout=180_000)
        tab = visit.page.locator(".lm-TabBar-tabLabel", has_text="morris.ipynb")
        tab.first.wait_for(timeout=60_000)  # JupyterLab opened the lab, not an empty launcher
        assert not visit.outside, visit.outside
    finally:
        visit.close()


def test_a_downloaded_notebook_runs_with_the_site_its_only_host(
    published: Path, tmp_path: Path
) -> None:
    """tools/notebook-check on the site: the sawtooth notebook downloaded from its page by
    Chromium, alone, run by papermill in a fresh venv with only a kernel, in a network
    namespace where only 127.0.0.1 exists (or, without one, behind a dead proxy): its pins come
    from the site's copies, its wheel from the site, its results from the wheel; its text has
    the page's numbers and no raw MyST; then the zip route."""
    done = subprocess.run(
        [
            str(ROOT / "tools" / "notebook-check"),
            str(tmp_path / "replay"),
            "sawtooth",
            str(published),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=REPLAY_TIMEOUT,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-5000:]
    said = done.stdout
    assert "its text shows no glue placeholder, MyST fence or role" in said
    assert "the zip route installed the wheel beside the notebook" in said
    assert "reached nothing but the site" in said
