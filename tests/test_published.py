"""What the site gives a reader and an instructor, checked on the built book (the book and
browser tiers; the whole published site, `make site`'s, is the release check's:
tests/site_check.py):

* each chapter's notebook reads like its page: every number the page prints from its run is
  in the notebook's text, and no MyST (glue role, directive, role) is left;
* the page's download button gives a notebook that names the site it came from;
* the instructors' plan numbers each exercise as its chapter's page does;
* a live panel's note states the size of the runtime the build ships;
* the search page's quotes show formulas as text, not TeX.
"""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import pytest

from tcplab import syllabus
from tcplab.launch import notebook_chapters
from tcplab.pyodide_site import download_bytes

from browser_tools import Visit

ROOT = Path(__file__).resolve().parents[1]
MYST = re.compile(r"\{glue:[a-z]*\}`[^`]*`|⟨[a-z_0-9]+⟩|^(?:```|:::)\{[a-z-]+\}|\{[a-z:]+\}`", re.M)
#: a number the page pasted from the chapter's run (myst-nb's glue:text)
PASTED = re.compile(r'<span class="pasted-text">(.*?)</span>')


def _markdown(notebook: Path) -> str:
    cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
    return "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")


@pytest.mark.book
@pytest.mark.parametrize("chapter", notebook_chapters(ROOT), ids=lambda p: p.stem)
def test_a_chapters_notebook_prints_the_numbers_its_page_prints(
    built_book: Path, chapter: Path
) -> None:
    page = (built_book / "chapters" / f"{chapter.stem}.html").read_text(encoding="utf-8")
    text = _markdown(built_book / "notebooks" / f"{chapter.stem}.ipynb")
    assert not MYST.findall(text), MYST.findall(text)[:5]
    # the page's quotes are Sphinx's "smart" ones
    quotes = str.maketrans({"’": "'", "‘": "'", "“": '"', "”": '"'})
    pasted = {html.unescape(value).translate(quotes) for value in PASTED.findall(page)}
    missing = sorted(value for value in pasted if value not in text)
    assert not missing, f"numbers on the page, not in the notebook: {missing[:10]}"
    if "{glue:text}`" in chapter.read_text(encoding="utf-8"):
        assert pasted, "the page shows no pasted number: the test checks nothing"


@pytest.mark.book
def test_the_plan_numbers_each_exercise_as_its_page_does(built_book: Path) -> None:
    """Each exercise the instructors' plan links is, on its chapter's page, the exercise of
    that number (sphinx-exercise numbers them when the book is built)."""
    plan = (built_book / "chapters" / "instructors.html").read_text(encoding="utf-8")
    links = re.findall(r'<a [^>]*href="([\w-]+)\.html#(ex-[\w-]+)"[^>]*>(\d+\.\d+)</a>', plan)
    total = sum(len(syllabus.exercises(p.stem, p.read_text())) for p in syllabus.chapters(ROOT))
    assert len(links) == total, (len(links), total)
    for name, label, number in links:
        page = (built_book / "chapters" / f"{name}.html").read_text(encoding="utf-8")
        box = re.search(rf'id="{label}">\s*<p class="admonition-title">(.*?)</p>', page, re.S)
        assert box, (name, label)
        title = html.unescape(re.sub(r"<[^>]+>", "", box[1]))
        assert title.startswith(f"Exercise {number} "), (label, number, title)


@pytest.mark.book
def test_a_live_panel_states_the_download_the_build_ships(built_book: Path) -> None:
    size = download_bytes(built_book / "_static" / "pyodide")
    page = (built_book / "chapters" / "sawtooth.html").read_text(encoding="utf-8")
    assert f"(Pyodide, {size / 1e6:.0f} MB, downloaded once from this site)" in page
    assert "about 25 MB" not in page and "tcplab-download-size" not in page


@pytest.mark.browser
def test_the_download_button_writes_the_site_it_came_from(site: str, browser) -> None:
    """The theme's .ipynb button on a chapter page saves the chapter's notebook with the site
    it came from in its set-up cell and metadata (this build names no address: without the
    page's script the notebook would not know it)."""
    visit = Visit(browser, site, "chapters/sawtooth.html")
    try:
        visit.page.locator(".dropdown-download-buttons > button").first.click()
        with visit.page.expect_download(timeout=60_000) as started:
            visit.page.locator("a.btn-download-notebook-button").first.click()
        saved = Path(started.value.path())
        notebook = json.loads(saved.read_text(encoding="utf-8"))
        assert started.value.suggested_filename == "sawtooth.ipynb"
        setup = "".join(notebook["cells"][0]["source"])
        assert f'SITE = "{site}/"' in setup, setup[:1500]
        assert notebook["metadata"]["tcplab"]["site"] == f"{site}/"
        assert not visit.outside and not visit.errors, (visit.outside, visit.errors)
    finally:
        visit.close()


@pytest.mark.browser
def test_search_quotes_formulas_as_text_not_tex(site: str, browser) -> None:
    """The search page quoted "\\((1+\\beta)/2 = 0.75\\)" (the reader's report of
    2026-12-02) and ran a table's cells together: it quotes formulas as text, "(1+β)/2 c"."""
    visit = Visit(browser, site, "search.html?q=midpoint")
    try:
        quotes = visit.page.locator("#search-results li p.context")
        quotes.first.wait_for(timeout=60_000)
        visit.page.wait_for_timeout(1000)  # every hit's quote, not only the first
        said = quotes.all_text_contents()
        assert said, "no search result"
        tex = [q for q in said if re.search(r"\\[(\[a-zA-Z]|\\\)", q)]
        assert not tex, tex[:3]
        # the sawtooth's mean as the page typesets it: ... = \frac{1+\beta}{2}\,c
        assert any("= (1+β)/2 c" in q for q in said), said[:5]
    finally:
        visit.close()
