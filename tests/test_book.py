"""The book builds with warnings as errors, and loads nothing from the internet."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
import yaml

from tcplab.launch import colab_url

pytestmark = pytest.mark.book

ROOT = Path(__file__).resolve().parents[1]
REPOSITORY = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))["repository"]["url"]
LOADING_LINKS = {"stylesheet", "preload", "modulepreload", "icon", "manifest"}


class _Resources(HTMLParser):
    """Collects the URLs a page makes the browser load: scripts, images, frames, styles."""

    def __init__(self) -> None:
        super().__init__()
        self.urls: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        if tag in ("script", "img", "iframe", "audio", "video", "source") and values.get("src"):
            self.urls.append(values["src"] or "")
        rel = set((values.get("rel") or "").lower().split())
        if tag == "link" and rel & LOADING_LINKS and values.get("href"):
            self.urls.append(values["href"] or "")


def external_resources(page: str) -> list[str]:
    parser = _Resources()
    parser.feed(page)
    return [url for url in parser.urls if url.startswith(("http:", "https:", "//"))]


def _pages(html: Path) -> list[Path]:
    """The book's pages; in a site that make site assembled, not the students' edition's
    (student/: a second book with the same numbers, checked by tools/check_student.py)."""
    return sorted(
        p
        for p in html.rglob("*.html")
        if "_static" not in p.parts and p.relative_to(html).parts[0] != "student"
    )


def test_book_builds_with_every_page(built_book: Path) -> None:
    names = {p.relative_to(built_book).as_posix() for p in _pages(built_book)}
    assert {"index.html", "chapters/intro.html", "chapters/sawtooth.html"} <= names


def test_no_page_loads_anything_from_the_network(built_book: Path) -> None:
    offenders = {}
    for page in _pages(built_book):
        found = external_resources(page.read_text(encoding="utf-8"))
        if found:
            offenders[page.relative_to(built_book).as_posix()] = found
    assert not offenders, f"pages load resources from the network: {offenders}"


def test_the_external_resource_check_can_fail() -> None:
    assert external_resources('<script src="https://cdn.example/vega.js"></script>')
    assert external_resources("<link rel='stylesheet' href='//cdn.example/x.css'>")
    assert not external_resources('<script src="../_static/tcplab-vega.js"></script>')
    assert not external_resources('<a href="https://example.org">a link is fine</a>')


def test_the_sawtooth_chapter_has_its_figure_table_panel_and_exercises(built_book: Path) -> None:
    page = (built_book / "chapters" / "sawtooth.html").read_text(encoding="utf-8")
    assert "Figure 1" in page
    assert page.count('class="tcplab-chart"') == 1
    assert 'class="tcplab-claims' in page and "tcplab-off" not in page
    assert "tcplab-live-note" in page
    assert page.count('class="solution') >= 4 and "dropdown" in page
    assert "Traceback" not in page


def test_every_notebook_chapter_offers_its_notebook_for_download(built_book: Path) -> None:
    chapters = Path(__file__).resolve().parents[1] / "chapters"
    notebooks = [
        p.stem for p in chapters.glob("*.md") if p.read_text().startswith("---\njupytext:")
    ]
    assert notebooks
    for stem in notebooks:
        page = (built_book / "chapters" / f"{stem}.html").read_text(encoding="utf-8")
        # the notebook as the site offers it: it installs the book (tcplab.offline), no clone
        assert f'href="../notebooks/{stem}.ipynb"' in page, f"{stem}: no .ipynb download"
        notebook = json.loads((built_book / "notebooks" / f"{stem}.ipynb").read_text())
        assert notebook["cells"][0]["metadata"]["tags"] == ["tcplab-colab-setup"], stem
        assert "_sources/chapters/" not in page.split("download-notebook-button")[0][-400:]
        assert "mybinder.org" in page, f"{stem}: no launch button"
        colab = colab_url(REPOSITORY, f"chapters/{stem}")
        assert f'href="{colab}"' in page, f"{stem}: no Colab link to its notebook"


_CAPTION_NUMBER = re.compile(r'<span class="caption-number">Figure ([0-9.]+)')


def test_figures_are_numbered_per_chapter(built_book: Path) -> None:
    """Figure c.n: one chapter number c per page, n = 1, 2, ... in order, and no two pages
    share c, so that "Figure 15" can never be mistaken for the paper's Fig. 15."""
    chapters = {}
    for page in _pages(built_book):
        numbers = _CAPTION_NUMBER.findall(page.read_text(encoding="utf-8"))
        if not numbers:
            continue
        name = page.relative_to(built_book).as_posix()
        parts = [number.split(".") for number in dict.fromkeys(numbers)]
        assert all(len(p) == 2 for p in parts), f"{name}: {numbers} are not chapter.figure"
        assert len({p[0] for p in parts}) == 1, f"{name}: figures of two chapters: {numbers}"
        assert [int(p[1]) for p in parts] == list(range(1, len(parts) + 1)), f"{name}: {numbers}"
        chapters[name] = parts[0][0]
    assert chapters, "no numbered figure in the book"
    assert len(set(chapters.values())) == len(chapters), chapters


def test_no_two_regions_of_a_page_share_a_name(built_book: Path) -> None:
    """A screen reader lists a page's regions by name: two named alike cannot be told apart
    (axe's landmark-unique; tcp-microscope had three "Paper vs. book" regions)."""
    alike = []
    for page in sorted(built_book.glob("chapters/*.html")):
        text = page.read_text(encoding="utf-8")
        names = re.findall(r'<div[^>]*role="region"[^>]*aria-label="([^"]*)"', text)
        repeated = sorted({n for n in names if names.count(n) > 1})
        alike += [f"{page.name}: {n!r} x{names.count(n)}" for n in repeated]
    assert not alike, "\n".join(alike)


def test_the_site_offers_the_wheel_the_zip_and_a_downloads_page_the_intro_links(
    built_book: Path,
) -> None:
    """Every build (make book too) carries the notebooks' wheel, their zip and the downloads
    page; the introduction's links to them land on files; the page says how to get the
    students' edition and the PDF, which only make site adds (tools/place_site.py)."""
    from tcplab.launch import wheel_name
    from tcplab.offline import DOWNLOADS, PDF, STUDENT, ZIP

    assert (built_book / "notebooks" / wheel_name()).is_file()
    assert (built_book / "notebooks" / ZIP).is_file()
    intro = built_book / "chapters" / "intro.html"
    hrefs = re.findall(r'href="(\.\./(?:notebooks|downloads)/[^"#]+)"', intro.read_text())
    assert {"../downloads/index.html", f"../notebooks/{ZIP}"} <= set(hrefs)
    assert all((intro.parent / h).resolve().is_file() for h in hrefs), hrefs
    page = (built_book / DOWNLOADS).read_text(encoding="utf-8")
    for thing in (STUDENT, PDF):
        if (built_book / thing).exists():  # a site assembled by make site
            assert f'href="../{thing}"' in page, thing
        else:
            assert f'href="../{thing}"' not in page and "make site" in page, thing


def test_no_page_names_a_repository_not_the_book_s(built_book: Path) -> None:
    """sphinx-thebe writes its configuration into every page even with Thebe off; left to
    itself it names its own example repository (binder-examples/jupyter-stacks-datascience),
    which misleads anyone who reads the page's source (the reader's report, appendix)."""
    named = [
        page.name
        for page in _pages(built_book)
        if "binder-examples" in page.read_text(encoding="utf-8")
    ]
    assert not named, named


def test_every_page_names_an_icon_the_site_has(built_book: Path) -> None:
    """Without a <link rel="icon">, a browser asks for /favicon.ico on a first visit and gets
    a 404 in its console (the reader's report, appendix)."""
    for page in _pages(built_book):
        text = page.read_text(encoding="utf-8")
        if text.startswith('<meta http-equiv="Refresh"'):
            continue  # the root's redirect to the introduction: the browser shows that page
        found = re.search(r'<link rel="icon" href="([^"]+)"', text)
        assert found, page.name
        assert (page.parent / found.group(1).split("?")[0]).is_file(), (page.name, found.group(1))
