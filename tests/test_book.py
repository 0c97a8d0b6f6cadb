"""The book builds with warnings as errors, and loads nothing from the internet."""

from __future__ import annotations

from html.parser import HTMLParser
from pathlib import Path

import pytest

pytestmark = pytest.mark.book

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
    return sorted(p for p in html.rglob("*.html") if "_static" not in p.parts)


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
        assert f'href="../_sources/chapters/{stem}.ipynb"' in page, f"{stem}: no .ipynb download"
        assert (built_book / "_sources" / "chapters" / f"{stem}.ipynb").exists()
        assert "mybinder.org" in page, f"{stem}: no launch button"
