"""The book as a reader sees it, in headless Chromium: on a wide screen and on a phone, in dark
mode, and to a screen reader. Every page and every chart, so that chapters added later are
held to the same rules.

* At 1400 px and at 400 px no chart is wider than its column, printed on A4 none is cut,
  none is shrunk as a picture below :data:`MIN_SCALE` (its text would become too small to
  read), and at 400 px no page scrolls sideways; no label a chart writes on its plot runs
  into an axis, a legend or a title, and no axis, legend or facet label is cut short.
* Every chart's SVG has an accessible name that says what it shows (not Vega's default), and
  its save menu a label.
* axe-core (pinned in package-lock.json, injected from node_modules) finds no serious or
  critical violation of the book's own making, at 1400 px in light mode and at 400 px in dark
  mode. Violations made by
  the theme are listed in :data:`THEIRS` with the reason; nothing else is excused.

Each page is loaded once per look and every check reads that load (browser_tools.survey, the
``wide_survey`` and ``night_survey`` fixtures in conftest.py).
"""

from __future__ import annotations

import json

import pytest

from browser_tools import AXE, LOOKS, MIN_SCALE, PageSurvey, Visit, axe_violations

pytestmark = pytest.mark.browser

WIDTHS = (1400, 400)
#: Vega's name for a chart without a description: no name at all for a reader
VEGA_DEFAULT_NAME = "Vega visualization"

#: (axe rule, a class or selector in the offending node's target or HTML, why it is not ours to
#: fix). Keep it short: everything else axe finds fails the test.
THEIRS: tuple[tuple[str, str, str], ...] = ()  # the theme's buttons: tcplab-page.js names them


def _stopped(surveys: list[PageSurvey]) -> list[str]:
    return [f"{s.width} px, {s.path}: survey stopped: {s.failed}" for s in surveys if s.failed]


@pytest.mark.parametrize("look_survey", LOOKS, indirect=True)
def test_every_chart_fits_its_column_and_no_page_scrolls_sideways(
    look_survey: list[PageSurvey],
) -> None:
    """At 1400 px and at 400 px, in light mode and (400 px) in dark mode: one test per look."""
    problems = _stopped(look_survey)
    charts_seen = 0
    for record in look_survey:
        look = f"{record.width} px{' dark' if record.dark else ''}"
        path, layout = record.path, record.layout
        if not layout:
            continue
        if len(layout["charts"]) != record.charts:
            problems.append(f"{look}, {path}: laid out {len(layout['charts'])} charts")
        for chart in layout["charts"]:
            charts_seen += 1
            if chart["sticksOut"] > 1 or chart["svg"] > chart["column"] + 1:
                problems.append(f"{look}, {path}, {chart['figure']}: {chart}")
            if chart["scale"] < MIN_SCALE:
                problems.append(f"{look}, {path}, {chart['figure']}: shrunk to {chart['scale']}")
        if record.width <= 400 and layout["pageWidth"] > layout["viewport"]:
            problems.append(
                f"{look}, {path}: the page scrolls sideways "
                f"({layout['pageWidth']} px in a {layout['viewport']} px window)"
            )
    assert charts_seen, "no chart found"
    assert not problems, "\n".join(problems)


def test_every_chart_prints_whole_on_a4(wide_survey: list[PageSurvey]) -> None:
    """Charts fitted to a wide screen, then printed: on the narrower A4 column each shrinks
    to fit whole (tcplab.css, @media print), none is cut at the page's edge."""
    problems = _stopped(wide_survey)
    printed = 0
    for record in wide_survey:
        layout = record.printed
        if layout is None:
            continue
        printed += 1
        for chart in layout["charts"]:
            if chart["sticksOut"] > 1 or chart["svg"] > chart["column"] + 1:
                problems.append(f"A4, {record.path}, {chart['figure']}: {chart}")
        if layout["pageWidth"] > layout["viewport"]:
            wide = f"{layout['pageWidth']} px on a {layout['viewport']} px page"
            problems.append(f"A4, {record.path}: {wide}")
    assert printed, "no page with charts was printed"
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("look_survey", LOOKS, indirect=True)
def test_no_chart_label_runs_into_an_axis_a_legend_or_a_title(
    look_survey: list[PageSurvey],
) -> None:
    """A note a chart writes on its plot (a text mark) must not overlap the axes' labels and
    titles, a legend or the chart's title: on screen at both widths, in dark mode and on A4
    (a two-line note set from its bottom once ran its second line through an x-axis); one
    test per look, the A4 print with the 1400 px light look it is printed from."""
    problems = _stopped(look_survey)
    looks = [(f"{r.width} px{' dark' if r.dark else ''}", r.path, r.layout) for r in look_survey]
    looks += [("A4", r.path, r.printed) for r in look_survey if r.printed]
    for look, path, layout in looks:
        for chart in (layout or {}).get("charts", []):
            problems += [f"{look}, {path}, {chart['figure']}: {c}" for c in chart["clashes"]]
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("look_survey", LOOKS, indirect=True)
def test_no_axis_legend_or_header_label_is_cut(look_survey: list[PageSurvey]) -> None:
    """A category label, legend entry or facet header is shown whole: Vega cuts a label
    longer than its limit and ends it with an ellipsis ("RED: no forced drops above...",
    Fig. 6.1, reader's report defect 9); one test per look."""
    problems = _stopped(look_survey)
    for record in look_survey:
        look = f"{record.width} px{' dark' if record.dark else ''}"
        for chart in (record.layout or {}).get("charts", []):
            problems += [f"{look}, {record.path}, {chart['figure']}: {t!r}" for t in chart["cut"]]
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("look_survey", LOOKS, indirect=True)
def test_the_save_menu_covers_no_chart_title(look_survey: list[PageSurvey]) -> None:
    """The chart's save button floats over its top right corner: a title that runs to the
    right edge must break before it, not under it ("...one signalled per event" on a phone,
    reader's report, section 1); one test per look."""
    problems = _stopped(look_survey)
    for record in look_survey:
        look = f"{record.width} px{' dark' if record.dark else ''}"
        for chart in (record.layout or {}).get("charts", []):
            under = chart["underMenu"]
            problems += [f"{look}, {record.path}, {chart['figure']}: {t!r}" for t in under]
    assert not problems, "\n".join(problems)


#: a display equation drawn smaller to fit a phone's column keeps at least this share of its
#: size (a formula of 16 px type stays above 11 px); a longer one is written on more lines
MIN_EQUATION_SCALE = 0.7


def test_no_equation_scrolls_or_is_a_tab_stop_on_a_phone(night_survey: list[PageSurvey]) -> None:
    """On a phone a display equation wider than the column is drawn smaller to fit it: no
    equation scrolls sideways in a box of its own, so none is a tab stop (14 were, on six
    pages, in the reader's report of 2026-12-02: Chromium makes a scrolling box a tab stop),
    and none is drawn at less than MIN_EQUATION_SCALE of its size."""
    problems = _stopped(night_survey)
    fitted = 0
    for record in night_survey:
        for equation in (record.layout or {}).get("equations", []):
            fitted += equation["scale"] < 0.999
            if equation["scrolls"] or equation["tabStop"]:
                problems.append(f"{record.path}: a scrolling equation {equation}")
            if equation["scale"] < MIN_EQUATION_SCALE:
                problems.append(f"{record.path}: an equation drawn too small {equation}")
    assert fitted, "no equation is wider than a phone's column: the test checks nothing"
    assert not problems, "\n".join(problems)


#: the pages whose tables the reader's report found wider than a phone (2026-12-02)
PHONE_TABLES = (
    "chapters/instructors.html",
    "chapters/reproduces.html",
    "chapters/tcp-microscope.html",
)


def test_no_table_is_wider_than_a_phone_on_the_reported_pages(
    night_survey: list[PageSurvey],
) -> None:
    """The instructors' course map (604 px), the ledger's count table (545 px) and the
    microscope's rules-vs-model table (779 px) scrolled sideways in a 368 px column: each
    becomes cards, or a layout of its own, on a phone."""
    problems = _stopped(night_survey)
    seen = {record.path for record in night_survey}
    assert set(PHONE_TABLES) <= seen, sorted(set(PHONE_TABLES) - seen)
    for record in night_survey:
        if record.path in PHONE_TABLES:
            problems += [f"{record.path}: {t}" for t in (record.layout or {}).get("tables", [])]
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("look_survey", LOOKS, indirect=True)
def test_a_page_shows_one_search_field(look_survey: list[PageSurvey]) -> None:
    """One way to search on every page of the book, on a laptop and on a phone: at 1400 px
    the theme showed a top bar holding only a second search field, the sidebar's twin
    (reader's report, section 1). The downloads page is the site's own, without the theme."""
    problems = _stopped(look_survey)
    for record in look_survey:
        shown = (record.layout or {}).get("searches")
        if shown != (0 if record.path.startswith("downloads/") else 1):
            problems.append(f"{record.width} px, {record.path}: {shown} search fields")
    assert not problems, "\n".join(problems)


def test_no_legend_symbol_is_black_on_a_dark_page(night_survey: list[PageSurvey]) -> None:
    """In dark mode a legend without a colour scale (shapes: "class 1", "class 2",
    "aggregate" in Fig. 2.2) drew its symbols black on the near-black page (reader's report,
    section 3): they are light grey there."""
    problems = _stopped(night_survey)
    for record in night_survey:
        for chart in (record.layout or {}).get("charts", []):
            if chart["black"]:
                problems.append(f"{record.path}, {chart['figure']}: {chart['black']} black symbols")
    assert not problems, "\n".join(problems)


def test_every_chart_has_an_accessible_name(wide_survey: list[PageSurvey]) -> None:
    problems = _stopped(wide_survey)
    for record in wide_survey:
        if len(record.names) != record.charts:
            problems.append(f"{record.path}: {len(record.names)} names for {record.charts} charts")
        for chart in record.names:
            name = " ".join((chart["name"] or "").split())
            if chart["role"] != "img" or len(name) < 20 or name == VEGA_DEFAULT_NAME:
                problems.append(
                    f"{record.path}, {chart['id']}: role {chart['role']}, name {name!r}"
                )
            if chart["menu"] is not None and not chart["menu"].strip():
                problems.append(f"{record.path}, {chart['id']}: the save menu has no label")
    assert not problems, "\n".join(problems)


def _ours(violation: dict) -> list[str]:
    """The nodes of a violation that THEIRS does not excuse, each with what axe says."""
    excused = [selector for rule, selector, _ in THEIRS if rule == violation["id"]]
    found = []
    for node in violation["nodes"]:
        target = " ".join(map(str, node["target"]))
        if not any(selector in target + node["html"] for selector in excused):
            summary = " ".join(node.get("failureSummary", "").split())[:240]
            found.append(f"{target} | {node['html'][:160]} | {summary}")
    return found


@pytest.mark.parametrize("look_survey", ["1400px-light", "400px-dark"], indirect=True)
def test_axe_finds_no_serious_violation_of_our_making(look_survey: list[PageSurvey]) -> None:
    assert AXE.exists(), f"{AXE} is missing: run `npm ci` (make setup does)"
    found: dict[str, object] = {}
    if _stopped(look_survey):
        found["survey stopped"] = _stopped(look_survey)
    for record in look_survey:
        if record.axe is None:
            found[f"{record.path}: axe-core did not run"] = []
        for violation in record.axe or []:
            nodes = _ours(violation)
            if nodes:
                found[f"{record.path}: {violation['id']} ({violation['impact']})"] = nodes[:5]
    assert not found, json.dumps(found, indent=1, ensure_ascii=False)


def test_axe_sees_a_violation_when_there_is_one(site: str, browser) -> None:
    """The checker can fail: an unlabelled chart menu and grey-on-grey text are caught."""
    visit = Visit(browser, site, "chapters/intro.html")
    visit.page.evaluate(
        """() => {
        const p = document.createElement('p');
        p.textContent = 'too faint to read';
        p.style.color = '#bbbbbb';
        document.querySelector('article').prepend(p);
        const d = document.createElement('details');
        d.innerHTML = '<summary><svg width=14 height=14><circle r=5 cx=7 cy=7></svg></summary>x';
        document.querySelector('article').prepend(d);
    }"""
    )
    rules = {v["id"] for v in axe_violations(visit)}
    visit.close()
    assert {"color-contrast", "summary-name"} <= rules, rules
