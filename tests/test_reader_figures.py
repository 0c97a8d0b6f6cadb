"""The reader's second pass (issue 36), figures: panels that stay side by side on a desktop,
every figure numbered and captioned, the ns-3 comparison legible (row labels apart, each dot
beside one label, its table no wider than the column), and no one-line helper call shown
above a chart or a table. Each test failed on the book before its fix (the build of 608430a's
parent, main's at 21:28 on 2026-11-27); the phone's layout stays checked by test_reader.py.
"""

from __future__ import annotations

import json
import re

import pytest

from browser_tools import MIN_SCALE, Visit

pytestmark = pytest.mark.browser

#: figures of panels side by side (a 3 x 2 grid, or two views in a row) that fit a desktop's
#: 784 px column at a readable width: the fitter keeps at least two panels in their first row
SIDE_BY_SIDE = {
    "chapters/taming-parallel-tcp.html": (
        "fig-lu-scenarios",
        "fig-lu-predictions",
        "fig-lu-profile",
        "fig-lu-impact",
    ),
    "chapters/tcp-microscope.html": (
        "fig-microscope-trace",
        "fig-microscope-overview",
        "fig-microscope-rto",
    ),
}
#: the chapters of this pass (their figures, captions and code cells)
CHAPTERS = (
    "chapters/ns3.html",
    "chapters/tcp-microscope.html",
    "chapters/taming-parallel-tcp.html",
    "chapters/weighted-aimd.html",
)
#: the input of a cell that only calls a display helper: hidden (issue 36, item 4)
HELPER = re.compile(
    r"^\s*(?:\w+_tables\.\w+|charts\.\w+|HTML\(claims_html|claims\.comparison_frame|panel\.)"
)

#: per chart: the first row's count of distinct panels (a panel is a view's background)
PANELS = """(id) => {
  const chart = document.getElementById(id).querySelector('.tcplab-chart');
  const svg = chart.querySelector('svg.marks');
  const rows = new Map();
  for (const path of svg.querySelectorAll('path.background')) {
    const r = path.getBoundingClientRect();
    if (r.width < 40 || r.height < 20) continue;
    const top = Math.round(r.top / 4);
    if (!rows.has(top)) rows.set(top, new Set());
    rows.get(top).add(Math.round(r.left / 4));
  }
  const tops = [...rows.keys()].sort((a, b) => a - b);
  return {
    perRow: tops.map(t => rows.get(t).size),
    svg: Math.round(svg.getBoundingClientRect().width),
    column: Math.round(chart.getBoundingClientRect().width),
  };
}"""


#: each chart's figure number and caption length
FIGURES = """() => [...document.querySelectorAll('.tcplab-chart')].map(chart => {
  const figure = chart.closest('figure');
  const caption = figure && figure.querySelector('figcaption');
  return {
    id: chart.id,
    number: caption ? (caption.querySelector('.caption-number') || {}).textContent : null,
    words: caption ? caption.textContent.replace(/\\s+/g, ' ').trim().length : 0,
    weight: caption ? +getComputedStyle(caption).fontWeight : null,
  };
})"""


@pytest.fixture(scope="module")
def desktop(site: str, browser) -> dict[str, dict]:
    """One load of each chapter of this pass at 1400 px, its charts drawn: what every test
    here reads of it (a page load with its charts takes 5-15 s, so each page is loaded once)."""
    read = {}
    for path in CHAPTERS:
        visit = Visit(browser, site, path, width=1400)
        try:
            visit.wait_for_charts()
            page = visit.page
            read[path] = {
                "panels": {f: page.evaluate(PANELS, f) for f in SIDE_BY_SIDE.get(path, ())},
                "figures": page.evaluate(FIGURES),
                "inputs": page.evaluate(
                    "() => [...document.querySelectorAll('.cell_input')].map(c => c.innerText)"
                ),
                "ns3": page.evaluate(NS3) if path == "chapters/ns3.html" else None,
            }
        finally:
            visit.close()
    return read


@pytest.mark.parametrize("path", sorted(SIDE_BY_SIDE))
def test_panels_stay_side_by_side_on_a_desktop(desktop: dict[str, dict], path: str) -> None:
    problems = []
    for figure in SIDE_BY_SIDE[path]:
        found = desktop[path]["panels"][figure]
        if not found["perRow"] or found["perRow"][0] < 2:
            problems.append(f"{figure}: panels per row {found['perRow']}")
        if found["svg"] > found["column"] + 1:
            problems.append(f"{figure}: {found['svg']} px in a {found['column']} px column")
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("path", CHAPTERS)
def test_every_chart_is_a_numbered_captioned_figure(desktop: dict[str, dict], path: str) -> None:
    found = desktop[path]["figures"]
    assert found, f"{path}: no chart"
    bare = [c for c in found if not (c["number"] or "").startswith("Fig") or c["words"] < 40]
    assert not bare, bare


@pytest.mark.parametrize("path", CHAPTERS)
def test_no_helper_call_is_shown_above_a_chart_or_a_table(
    desktop: dict[str, dict], path: str
) -> None:
    inputs = desktop[path]["inputs"]
    lines = [text.strip().splitlines() for text in inputs]
    # a call with its parameters named teaches (the model's inputs): it stays
    shown = [
        code[0] for code in lines if len(code) == 1 and HELPER.match(code[0]) and "=" not in code[0]
    ]
    assert not shown, shown


#: the ns-3 comparison chart: its row labels, the dots and the table boxes of the page
NS3 = """() => {
  // the figure (before it had a name: the page's first chart)
  const figure = document.getElementById('fig-ns3-ratios') || document;
  const chart = figure.querySelector('.tcplab-chart');
  const svg = chart.querySelector('svg.marks');
  const box = el => { const r = el.getBoundingClientRect(); return [r.top, r.bottom]; };
  // the y axis's labels: the axis whose labels are the scenarios (queue names first)
  const labels = [...svg.querySelectorAll('g.role-axis-label text')]
    .filter(t => /droptail|red/.test(t.textContent)).map(box);
  const dots = [...svg.querySelectorAll('g.mark-symbol.role-mark path')]
    .map(p => { const r = p.getBoundingClientRect(); return (r.top + r.bottom) / 2; });
  const tables = [...document.querySelectorAll('.tcplab-table-box')]
    .filter(b => !b.closest('details:not([open])'))
    .map(b => ({wide: b.scrollWidth, shown: b.clientWidth}));
  return {labels, dots, tables};
}"""


def test_the_ns3_comparison_is_legible(desktop: dict[str, dict]) -> None:
    """Row labels never overlap, each dot sits beside exactly one label, and no table of the
    page (the long one folded) is wider than the column on a desktop."""
    found = desktop["chapters/ns3.html"]["ns3"]
    labels = sorted(found["labels"])
    assert len(labels) >= 10, labels
    overlaps = [(a, b) for a, b in zip(labels, labels[1:], strict=False) if b[0] < a[1] - 0.5]
    assert not overlaps, f"{len(overlaps)} row labels overlap the next: {overlaps[:3]}"
    assert found["dots"], "no dot drawn"
    astray = [y for y in found["dots"] if sum(a - 4 <= y <= b + 4 for a, b in labels) != 1]
    assert not astray, (
        f"{len(astray)} of {len(found['dots'])} dots beside no label or two: {astray}"
    )
    wide = [t for t in found["tables"] if t["wide"] > t["shown"] + 1]
    assert not wide, f"tables that scroll sideways at 1400 px: {wide}"


def test_the_live_packets_chart_fits_a_phone_at_a_readable_size(site: str, browser) -> None:
    """The fluid-to-packets panel's chart (the HTML the in-browser run returns, drawn the way
    the panel draws it) on a 400 px phone: its two-line title breaks again where a line is
    too long, so the panels narrow instead of the whole chart shrinking as a picture (it was
    drawn at about 60% with 6 px text: reader's report, defect 10)."""
    from tcplab.inbrowser import chart_html

    html = chart_html("tcplab.chapters.packets.panel:packets_spec", json.dumps({"flows": 10}))
    visit = Visit(browser, site, "chapters/fluid-to-packets.html", width=400)
    visit.wait_for_charts()
    found = visit.page.evaluate(
        """async (html) => {
          // where the panel puts its chart once Python has started (tcplab-inbrowser.js)
          const view = document.createElement('div');
          view.className = 'tcplab-inbrowser-view';
          document.querySelector('.tcplab-inbrowser').appendChild(view);
          view.innerHTML = html;
          const chart = view.querySelector('.tcplab-chart');
          window.tcplabDrawChart(chart);
          for (let i = 0; i < 200 && chart.dataset.drawn !== 'true'; i++)
            await new Promise(r => setTimeout(r, 50));
          const svg = chart.querySelector('.marks');
          return {drawn: chart.dataset.drawn, scale: chart.dataset.fitScale || '1',
                  svg: svg ? svg.getBoundingClientRect().width : 0,
                  column: chart.getBoundingClientRect().width};
        }""",
        html,
    )
    visit.close()
    assert found["drawn"] == "true", found
    assert float(found["scale"]) >= MIN_SCALE, found
    assert found["svg"] <= found["column"] + 1, found


@pytest.mark.parametrize("path", CHAPTERS)
def test_captions_are_set_in_a_regular_weight(desktop: dict[str, dict], path: str) -> None:
    """The theme sets captions at weight 300 in grey: faint, worst as long blocks on a phone
    (the reader's report, accessibility); the book sets them at 400 at least."""
    light = [
        f["id"] for f in desktop[path]["figures"] if f["weight"] is not None and f["weight"] < 400
    ]
    assert not light, light
