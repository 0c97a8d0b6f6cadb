"""Every chart offers its data as a table (the reader's report, section 3: "there is no
data-table alternative per chart"): a closed "The chart's data, as a table" after the chart,
one table per data set of its spec, and each whole data set to save as CSV.

The expectation is read from the page's own spec (the JSON the chart is drawn from) with
Python's csv module, not from the script that builds the tables."""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path

import pytest

from browser_tools import Visit

pytestmark = pytest.mark.browser

#: a chapter whose first chart has several data sets, one of them longer than the rows shown,
#: and one whose chart is drawn on a canvas (a dense scatter: its data matter most)
PAGES = ("chapters/sawtooth.html", "chapters/parallel-transfers.html")
SHOWN_ROWS = 200  # the rows a table shows before "the first 200 shown"


def _specs(built_book: Path, path: str) -> list[dict]:
    text = (built_book / path).read_text(encoding="utf-8")
    found = re.findall(
        r'<script type="application/json" id="tcplab-chart-[^"]+-spec">(.*?)</script>', text, re.S
    )
    return [json.loads(spec.replace("<\\/", "</")) for spec in found]


def _data_sets(spec: dict) -> list[list[list[str]]]:
    """The spec's data sets as rows of text, the header first, without one-value helpers."""
    sets = []
    for data in spec.get("datasets", {}).values():
        values = data.get("values", data) if isinstance(data, dict) else data
        if isinstance(values, str):
            rows = list(csv.reader(io.StringIO(values)))
        else:
            columns = list(values[0])
            rows = [columns] + [[_text(record[c]) for c in columns] for record in values]
        if len(rows) > 1 and not (len(rows) == 2 and len(rows[0]) == 1):
            sets.append(rows)
    return sets


def _text(value) -> str:
    return "" if value is None else str(value)


TABLES = """(details) => [...details.querySelectorAll('table')].map(table => [
  table.caption.textContent,
  [...table.rows].map(row => [...row.cells].map(cell => cell.textContent)),
])"""
SAVED = """(details) => Promise.all([...details.querySelectorAll('a[download]')]
  .map(link => fetch(link.href).then(response => response.text())))"""


@pytest.mark.parametrize("path", PAGES)
def test_every_chart_offers_its_data_as_tables(built_book: Path, site: str, browser, path) -> None:
    specs = _specs(built_book, path)
    visit = Visit(browser, site, path)
    try:
        count = visit.wait_for_charts()
        assert count == len(specs) > 0
        offers = visit.page.locator(".tcplab-chart + .tcplab-chart-data")
        assert offers.count() == count  # one after every chart
        first = offers.first
        assert first.get_attribute("open") is None  # closed until asked for
        first.locator("summary").click()
        # the tables are written on the details' toggle event, which comes after the click
        first.locator("table").first.wait_for(state="attached", timeout=10_000)
        tables = first.evaluate(TABLES)
        wanted = _data_sets(specs[0])
        assert len(tables) == len(wanted) > 0
        for (caption, rows), data in zip(tables, wanted, strict=True):
            assert rows == data[: SHOWN_ROWS + 1]
            body = len(data) - 1
            assert f"{body} row" in caption
            assert ("the first 200 shown" in caption) == (body > SHOWN_ROWS)
        saved = first.evaluate(SAVED)
        assert [list(csv.reader(io.StringIO(text))) for text in saved] == wanted
        assert not visit.errors, visit.errors
    finally:
        visit.close()


def test_the_data_tables_are_left_out_of_a_print(site: str, browser) -> None:
    visit = Visit(browser, site, PAGES[0])
    try:
        visit.wait_for_charts()
        visit.page.emulate_media(media="print")
        shown = visit.page.locator(".tcplab-chart-data").first.evaluate(
            "(el) => getComputedStyle(el).display"
        )
        assert shown == "none"
    finally:
        visit.close()


def _drawn_for(params: list[dict], values: dict) -> str:
    """What a chart with these controls says it is drawn for, written from the spec."""
    return ", ".join(f"{p['bind']['name'].strip()} = {values[p['name']]:g}" for p in params)


def test_a_chart_with_sliders_says_what_it_is_drawn_for(built_book: Path, site: str, browser):
    """The reader's report, section 3: the descriptions "do not change when a slider moves".
    The sawtooth's first chart (sliders for beta and eta): its name ends with the sliders'
    values, and after a key moves beta one step its name and a polite live region say the
    new value (the values and the step are the spec's)."""
    path = PAGES[0]
    spec = _specs(built_book, path)[0]
    params = [p for p in spec["params"] if isinstance(p.get("bind"), dict)]
    assert [p["bind"]["input"] for p in params] == ["range", "range"]
    values = {p["name"]: p["value"] for p in params}
    visit = Visit(browser, site, path)
    try:
        visit.wait_for_charts()
        svg = visit.page.locator(".tcplab-chart .marks").first
        label = svg.get_attribute("aria-label") or ""
        assert label.endswith(f"Drawn for {_drawn_for(params, values)}."), label
        beta = params[0]
        values[beta["name"]] += beta["bind"]["step"]
        visit.page.locator(f".tcplab-chart input[name={beta['name']}]").first.press("ArrowRight")
        now = visit.page.locator(".tcplab-chart-data + .tcplab-chart-now").first
        assert now.get_attribute("aria-live") == "polite"
        visit.page.wait_for_function(
            "(el) => el.textContent.length > 0", arg=now.element_handle(), timeout=5_000
        )
        assert now.text_content() == f"The chart now shows: {_drawn_for(params, values)}."
        label = svg.get_attribute("aria-label") or ""
        assert label.endswith(f"Drawn for {_drawn_for(params, values)}."), label
    finally:
        visit.close()
