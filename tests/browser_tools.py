"""Headless Chromium with the network cut off, for the browser tiers (test_browser.py and
test_reader.py): one page of the built book (served on 127.0.0.1 by tcplab.localsite) opened
at a time with every console error and every request that leaves 127.0.0.1 recorded.

Loading a page is what the browser tiers spend their time on, so each content page is loaded
once per look (:func:`survey`: 1400 px in light mode, 400 px in dark mode) and everything the
tests check on it is read from that one load: console errors, layout, chart names, axe-core's
findings and, last, the layout printed on A4. The tests then judge the recorded
:class:`PageSurvey`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
AXE = ROOT / "node_modules" / "axe-core" / "axe.min.js"  # pinned in package-lock.json

#: every chart on the page has finished drawing (tcplab-charts.js sets data-drawn after fitting):
#: an SVG with marks, or the canvas of a dense chart (charts.dense)
ALL_DRAWN = (
    "() => [...document.querySelectorAll('.tcplab-chart')]"
    ".every(c => c.dataset.drawn === 'true'"
    " && (c.querySelector('svg .role-mark') || c.querySelector('canvas.marks')))"
)


def pages(built_book: Path) -> list[str]:
    """Every HTML page of the book (not the static files or the sources)."""
    return sorted(
        p.relative_to(built_book).as_posix()
        for p in built_book.rglob("*.html")
        if "_static" not in p.parts and "_sources" not in p.parts
    )


def content_pages(built_book: Path) -> list[str]:
    """:func:`pages` without the redirects (the root index.html only forwards to the intro)."""
    return [
        path
        for path in pages(built_book)
        if 'http-equiv="Refresh"' not in (built_book / path).read_text(encoding="utf-8")[:2000]
    ]


#: the looks each content page is surveyed in (:func:`survey`), each with the session fixture
#: of conftest.py that holds its survey; each survey is also the xdist group of the tests that
#: read it, so that the two workers share the surveys. A phone is surveyed in dark mode only:
#: at 400 px the light page is the dark page with other colours and less padding (the theme
#: pads HTML outputs in dark mode), so what fits and draws in the dark fits in the light; a
#: light look at 400 px cost some 120 s of a core per run and found nothing the dark one missed
LOOKS = {
    "1400px-light": "wide_survey",
    "400px-dark": "night_survey",
}

#: how long a page may take to load (ms): see :class:`Visit`
PAGE_LOAD_MS = 120_000


class Visit:
    """One page opened offline, with every console error and outside request recorded."""

    def __init__(
        self,
        browser,
        site: str,
        path: str,
        width: int = 1400,
        dark: bool = False,
        keep_cache: bool = False,
    ) -> None:
        """``keep_cache``: let the browser keep what it loads from one page to the next, as a
        reader's does. Playwright's request routing, which aborts a request to another host,
        turns the browser's cache off; with ``keep_cache`` an outside request is only recorded
        (the browser's flags, :data:`tcplab.localsite.CHROMIUM_FLAGS`, resolve no other host, so
        it fails anyway). A survey of every page loads them 40% faster this way."""
        self.errors: list[str] = []
        self.warnings: list[str] = []
        self.outside: list[str] = []
        self.context = browser.new_context(
            viewport={"width": width, "height": 900},
            color_scheme="dark" if dark else "light",
        )
        self.page = self.context.new_page()
        self.page.on("console", self._console)
        self.page.on("pageerror", lambda e: self.errors.append(f"uncaught: {e}"))
        if keep_cache:
            self.context.on("request", self._record_outside(site))
        else:
            self.context.route("**/*", self._only_local(site))
        self.site = site
        self.goto(path)

    def goto(self, path: str) -> None:
        """Open another page of the site in the same tab, as a reader following a link would
        (what the browser keeps - caches, a shared worker - stays); the errors and outside
        requests recorded start again."""
        self.errors.clear()
        self.warnings.clear()
        self.outside.clear()
        # A page loads in 2-10 s here; the limit is generous because the browser tier shares
        # two cores with a pytest worker running the model tiers (one load of a 5 MB page once
        # took over Playwright's default 30 s in CI; the pages now weigh under 2 MB)
        self.page.goto(f"{self.site}/{path}", wait_until="load", timeout=PAGE_LOAD_MS)

    def _console(self, message) -> None:
        if message.type == "error":
            self.errors.append(message.text)
        elif message.type == "warning":
            self.warnings.append(message.text)

    def _record_outside(self, site: str):
        def record(request) -> None:
            if not request.url.startswith((site, "data:", "blob:")):
                self.outside.append(request.url)

        return record

    def _only_local(self, site: str):
        def handle(route) -> None:
            if route.request.url.startswith(site):
                route.continue_()
            else:
                self.outside.append(route.request.url)
                route.abort()

        return handle

    def wait_for_charts(self) -> int:
        """Wait until every chart has drawn and fitted itself; returns how many there are."""
        count = self.page.locator(".tcplab-chart").count()
        if count:
            self.page.wait_for_function(ALL_DRAWN, timeout=30_000)
        self.page.wait_for_timeout(300)  # let MathJax and late scripts report errors
        return count

    def close(self) -> None:
        self.context.close()


LAYOUT = """() => {
  const root = document.documentElement;
  const article = document.querySelector('article.bd-article') || document.body;
  const style = getComputedStyle(article);
  const box = article.getBoundingClientRect();
  const right = box.right - parseFloat(style.paddingRight);
  // a text mark (a label the chart draws) that runs into an axis's labels or title, a
  // legend or the chart's title: "label | guide" for each such pair
  const shown = el => !el.closest('[opacity="0"]') && el.getBoundingClientRect().width > 0;
  const GUIDES = ['g.role-axis-label text', 'g.role-axis-title text', 'g.role-legend-label text',
                  'g.role-legend-title text', 'g.role-title text'].join(', ');
  // two boxes that share more than a pixel across and `down` pixels down
  const overlap = (a, b, down = 1) => Math.min(a.right, b.right) - Math.max(a.left, b.left) > 1
    && Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top) > down;
  const clashes = svg => {  // a dense chart's canvas has no text nodes to compare: none found
    if (svg.tagName.toLowerCase() !== 'svg') return [];
    const labels = [...svg.querySelectorAll('g.role-mark text')]
      .filter(t => t.textContent.trim() && shown(t));
    const guides = [...svg.querySelectorAll(GUIDES)].filter(shown);
    const found = [];
    for (const label of labels) for (const guide of guides) {
      if (overlap(label.getBoundingClientRect(), guide.getBoundingClientRect(), 0.5)) {
        found.push(`${label.textContent} | ${guide.textContent}`);
      }
    }
    return found;
  };
  const charts = [...document.querySelectorAll('.tcplab-chart')].map((chart, index) => {
    const svg = chart.querySelector('.marks');
    const own = chart.getBoundingClientRect();
    const drawn = svg.getBoundingClientRect();
    return {
      index,
      figure: chart.closest('figure')?.id || chart.id,
      svg: Math.round(drawn.width),
      column: Math.round(Math.min(own.width, right - own.left)),
      sticksOut: Math.round(Math.max(drawn.right - Math.min(own.right, right), 0)),
      scale: chart.dataset.fitScale ? parseFloat(chart.dataset.fitScale) : 1,
      clashes: clashes(svg),
      // legend symbols drawn black (on a dark page they vanish)
      black: svg.tagName.toLowerCase() !== 'svg' ? 0 : [...svg.querySelectorAll(
        'g.role-legend-symbol path')].filter(p => ['black', '#000', '#000000'].includes(
        p.getAttribute('fill')) || ['black', '#000', '#000000'].includes(
        p.getAttribute('stroke'))).length,
      // the chart's title where the save menu's button (floating over the chart's top right
      // corner) covers it
      underMenu: (() => {
        const summary = chart.querySelector('details > summary');
        if (!summary || svg.tagName.toLowerCase() !== 'svg') return [];
        const menu = summary.getBoundingClientRect();
        return [...svg.querySelectorAll('g.role-title text')].filter(shown)
          .filter(t => overlap(t.getBoundingClientRect(), menu)).map(t => t.textContent);
      })(),
      // a guide's label Vega cut at its label limit (it ends in an ellipsis)
      cut: svg.tagName.toLowerCase() !== 'svg' ? [] : [...svg.querySelectorAll(
        GUIDES + ', g.role-column-header text, g.role-row-header text')]
        .filter(t => shown(t) && t.textContent.trim().endsWith('\u2026')).map(t => t.textContent),
    };
  });
  // each display equation: the share of its size it is drawn at (one drawn smaller to fit
  // the column), and whether it or its box scrolls sideways or is a tab stop
  const equations = [...document.querySelectorAll('mjx-container[display="true"]')]
    .map((box, index) => {
      const svg = box.querySelector('svg');
      const scrolls = [box, box.parentElement].some(e => e.scrollWidth > e.clientWidth + 1);
      const natural = svg ? svg.width.baseVal.value : 0;
      return {index, scale: natural ? svg.getBoundingClientRect().width / natural : 1,
              scrolls, tabStop: box.tabIndex >= 0 || box.parentElement.tabIndex >= 0,
              tex: (box.parentElement.textContent || '').slice(0, 80)};
    });
  // tables wider than the article's column (they scroll sideways in their box)
  const tables = [...article.querySelectorAll('table')].filter(t => t.offsetParent)
    .map(t => ({width: Math.round(t.getBoundingClientRect().width),
                column: Math.round(right - box.left),
                caption: (t.querySelector('caption') || t).textContent.trim().slice(0, 60)}))
    .filter(t => t.width > t.column + 1);
  // the theme's search buttons a reader sees (fields and icons)
  const searches = [...document.querySelectorAll('.search-button__button')]
    .filter(b => b.getBoundingClientRect().width > 0 && b.checkVisibility()).length;
  return {pageWidth: root.scrollWidth, viewport: root.clientWidth, charts, equations, tables,
          searches};
}"""

NAMES = """() => [...document.querySelectorAll('.tcplab-chart')].map(chart => {
  const svg = chart.querySelector('.marks');
  const summary = chart.querySelector('details > summary');
  return {
    id: chart.closest('figure')?.id || chart.id,
    role: svg && svg.getAttribute('role'),
    name: svg && (svg.getAttribute('aria-label') || ''),
    menu: summary ? summary.getAttribute('aria-label') || '' : null,
  };
})"""

#: a chart shrunk as a whole picture keeps at least this share of its size (12 px text stays
#: above 10.8 px); below it, the chart must restack instead (tcplab-charts.js)
MIN_SCALE = 0.9

#: an A4 page (210 mm at 96 px per inch, 794 px) less Chromium's default print margins
A4_PRINTABLE = 794 - 2 * 38


def axe_violations(visit: Visit) -> list[dict]:
    """axe-core's serious and critical violations on the page as it is now."""
    visit.page.add_script_tag(path=str(AXE))
    result = visit.page.evaluate(
        "async () => (await axe.run(document, {resultTypes: ['violations']})).violations"
    )
    return [v for v in result if v["impact"] in ("serious", "critical")]


@dataclass
class PageSurvey:
    """What one load of one page showed (``failed``: why the survey of it stopped early)."""

    path: str
    width: int
    dark: bool
    charts: int = 0
    errors: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    outside: list[str] = field(default_factory=list)
    layout: dict = field(default_factory=dict)
    names: list[dict] = field(default_factory=list)
    axe: list[dict] | None = None  # None: axe-core did not run
    printed: dict | None = None
    failed: str | None = None


def survey(
    browser, site: str, paths: list[str], width: int, dark: bool, axe: bool = True
) -> list[PageSurvey]:
    """Load each page once at ``width`` and read all the browser tiers check from that load
    (axe-core's too, unless ``axe`` is false: it is a third of a page's time, and its
    verdicts are checked at 1400 px light and 400 px dark); at 1400 px in light mode the page
    is printed last (A4, print media)."""
    found = []
    visit = None  # one tab for the whole survey, its cache kept (Visit's keep_cache)
    for path in paths:
        record = PageSurvey(path, width, dark)
        try:
            if visit is None:
                visit = Visit(browser, site, path, width=width, dark=dark, keep_cache=True)
            else:
                visit.goto(path)
            try:
                record.charts = visit.wait_for_charts()
            except Exception as error:  # a chart that never drew
                visit.errors.append(f"chart did not draw: {error}")
            record.errors = list(visit.errors)
            record.warnings = list(visit.warnings)
            record.outside = list(visit.outside)
            record.layout = visit.page.evaluate(LAYOUT)
            record.names = visit.page.evaluate(NAMES)
            record.axe = axe_violations(visit) if axe else None
            if width >= 1400 and not dark and record.charts:
                visit.page.emulate_media(media="print")
                visit.page.set_viewport_size({"width": A4_PRINTABLE, "height": 1100})
                visit.page.wait_for_timeout(200)
                record.printed = visit.page.evaluate(LAYOUT)
                visit.page.emulate_media(media="screen")
                visit.page.set_viewport_size({"width": width, "height": 900})
        except Exception as error:
            record.failed = f"{type(error).__name__}: {error}"
            if visit is not None:  # the next page starts in a new tab
                visit.close()
                visit = None
        found.append(record)
    if visit is not None:
        visit.close()
    return found
