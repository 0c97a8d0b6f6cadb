"""The page "What this book reproduces", as built and in headless Chromium.

Its counts are the ledger's (the same numbers `tcplab claims --summary` prints: per paper, its
items and, apart, the book's own claims), every row links to an id that exists on its
chapter's built page, and the filters show exactly the rows of the chosen status, kind, paper
and origin, offline.
"""

from __future__ import annotations

import re
from collections import Counter
from html.parser import HTMLParser
from pathlib import Path

import pytest

from tcplab import ledger
from tcplab.ledger import verdicts

from browser_tools import Visit


class _Ledger(HTMLParser):
    """The counts tables' numbers per (paper, origin), and every ledger row's status, kind,
    origin and link."""

    def __init__(self) -> None:
        super().__init__()
        self.counts: dict[tuple[str, str], list[int]] = {}
        self.rows: list[dict[str, str]] = []
        self._paper: tuple[str, str] | None = None
        self._cell = False
        self._row: dict[str, str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        if tag == "tr" and "data-status" in a:
            self._row = {"status": a["data-status"], "kind": a["data-kind"],
                         "paper": a["data-paper"], "origin": a["data-origin"],
                         "href": ""}  # fmt: skip
            self.rows.append(self._row)
        elif tag == "tr" and "data-paper" in a:
            self._paper = (a["data-paper"], a["data-origin"])
            self.counts[self._paper] = []
        elif tag == "tr":
            self._paper = self._row = None
        elif tag == "td" and self._paper and "tcplab-num" in a.get("class", ""):
            self._cell = True
        if tag == "a" and self._row is not None and ".html" in a.get("href", ""):
            self._row["href"] = a["href"]

    def handle_data(self, data: str) -> None:
        if self._cell and self._paper:
            self.counts[self._paper].append(int(data))
            self._cell = False


def _page(built_book: Path) -> _Ledger:
    parsed = _Ledger()
    parsed.feed((built_book / "chapters" / "reproduces.html").read_text(encoding="utf-8"))
    return parsed


def _judged() -> list[ledger.Judged]:
    return [j for chapter in ledger.CHAPTERS for j in ledger.evaluate(chapter)]


@pytest.mark.book
def test_the_pages_counts_are_the_ledgers(built_book: Path) -> None:
    found = _page(built_book)
    judged = _judged()
    expected = {
        (paper, origin): [counts[name][s] for s in ledger.STATUSES] + [counts[name]["total"]]
        for paper, by_origin in verdicts.summary(judged).items()
        for origin, name in (("paper", "items"), ("book", "book"))
        if (counts := by_origin) and counts[name]["total"]
    }
    assert found.counts == expected
    assert len(found.rows) == len(ledger.entries())
    assert Counter(r["status"] for r in found.rows) == Counter(j.status for j in judged)
    assert Counter(r["origin"] for r in found.rows) == Counter(e.origin for e in ledger.entries())


@pytest.mark.book
def test_every_link_of_the_ledger_lands_on_an_id_of_its_chapter(built_book: Path) -> None:
    ids: dict[str, set[str]] = {}
    broken = []
    for row in _page(built_book).rows:
        if not row["href"]:
            continue
        page, _, anchor = row["href"].partition("#")
        if page not in ids:
            text = (built_book / "chapters" / page).read_text(encoding="utf-8")
            ids[page] = set(re.findall(r'\bid="([^"]+)"', text))
        if anchor and anchor not in ids[page]:
            broken.append(row["href"])
    assert not broken, f"links to ids that are not on their page: {sorted(set(broken))}"
    assert ids, "no row links anywhere"


@pytest.mark.book
def test_every_paper_vs_book_table_links_to_the_ledger(built_book: Path) -> None:
    pages = sorted((built_book / "chapters").glob("*.html"))
    with_tables = [p for p in pages if 'class="tcplab-claims' in p.read_text(encoding="utf-8")]
    assert len(with_tables) >= len(ledger.CHAPTERS)
    for path in with_tables:
        text = path.read_text(encoding="utf-8")
        links = re.findall(r'class="tcplab-ledger-link">[^<]*<a href="([^"]+)"', text)
        assert len(links) == text.count('class="tcplab-claims'), path
        assert set(links) == {"reproduces.html"}, path


@pytest.mark.browser
def test_the_filters_show_the_rows_of_the_chosen_status_kind_and_paper(site: str, browser) -> None:
    visit = Visit(browser, site, "chapters/reproduces.html")
    page = visit.page
    rows = page.locator("table.tcplab-ledger tbody tr")
    total = rows.count()
    assert total == len(ledger.entries())

    def shown() -> int:
        return page.locator("table.tcplab-ledger tbody tr:not([hidden])").count()

    status = page.locator("select[name=status]")
    kind = page.locator("select[name=kind]")
    paper = page.locator("select[name=paper]")
    origin = page.locator("select[name=origin]")
    judged = _judged()
    assert shown() == total
    for word in ledger.STATUSES:
        status.select_option(word)
        assert shown() == sum(j.status == word for j in judged), word
    status.select_option("")
    origin.select_option("book")
    assert shown() == sum(e.origin == "book" for e in ledger.entries())
    origin.select_option("")
    kind.select_option("shape")
    paper.select_option("altman")
    expected = sum(e.kind == "shape" and e.paper == "altman" for e in ledger.entries())
    assert shown() == expected
    said = page.locator(".tcplab-ledger-shown").text_content() or ""
    assert said.startswith(f"{expected} of {total}")
    kind.select_option("")
    paper.select_option("")
    assert shown() == total
    first = page.locator("table.tcplab-ledger tbody tr a").first
    href = first.get_attribute("href") or ""
    first.click()
    page.wait_for_load_state("load")
    assert page.url.endswith(href.split("/")[-1])
    anchor = href.partition("#")[2]
    if anchor:
        assert page.locator(f"[id='{anchor}']").count() == 1
    assert not visit.errors and not visit.outside
    visit.close()
