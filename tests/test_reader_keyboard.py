"""The reader's second pass (issue 36), where a browser can see it: formulas out of the tab
order, a "Skip to the live panel" path, a visible focus ring on the theme's buttons, and
paper-vs-book tables a phone reads without scrolling sideways, captions never cut.

Each test failed on the book before its fix (checked on the build of 194ddda).
"""

from __future__ import annotations

import pytest

from browser_tools import Visit

pytestmark = pytest.mark.browser

#: the chapter with the most formulas before its first control (59 tab stops, the reader said)
FORMULAS = "chapters/insensitivity.html"
#: every chapter page with a paper-vs-book table
TABLES = (
    "chapters/sawtooth.html",
    "chapters/tcp-microscope.html",
    "chapters/many-flows.html",
    "chapters/ns3.html",
)


def test_formulas_are_not_tab_stops_and_the_panel_is_two_keys_away(site: str, browser) -> None:
    visit = Visit(browser, site, FORMULAS)
    page = visit.page
    page.wait_for_function("() => window.MathJax && MathJax.startup && MathJax.startup.promise")
    page.evaluate("() => MathJax.startup.promise")
    page.wait_for_timeout(500)
    inline = page.locator('mjx-container:not([display="true"])')
    assert inline.count() > 50
    stops = page.locator('mjx-container:not([display="true"])[tabindex="0"]').count()
    assert stops == 0, f"{stops} inline formulas are tab stops"
    page.keyboard.press("Tab")  # the theme's "Skip to main content"
    page.keyboard.press("Tab")
    said = page.evaluate("() => document.activeElement.textContent")
    assert said == "Skip to the live panel"
    page.keyboard.press("Enter")
    focused = page.evaluate(
        "() => [document.activeElement.tagName, document.activeElement.className]"
    )
    assert focused == ["BUTTON", "tcplab-inbrowser-run"], focused
    visit.close()


def test_the_themes_buttons_show_where_the_focus_is(site: str, browser) -> None:
    visit = Visit(browser, site, "chapters/sawtooth.html")
    button = visit.page.locator(".bd-header-article .btn").first
    button.focus()
    width = button.evaluate(
        "(el) => el.matches(':focus-visible') ? getComputedStyle(el).outlineWidth : 'no focus'"
    )
    assert width not in ("0px", "no focus"), width
    visit.close()


@pytest.mark.parametrize("path", TABLES)
def test_paper_vs_book_tables_fit_a_phone_with_their_captions(
    site: str, browser, path: str
) -> None:
    visit = Visit(browser, site, path, width=400)
    found = visit.page.evaluate(
        """() => Array.from(document.querySelectorAll('table.tcplab-claims')).map((t) => {
             const box = t.closest('.tcplab-table-box');
             const caption = t.querySelector('caption').getBoundingClientRect();
             return {sideways: box.scrollWidth - box.clientWidth,
                     caption: caption.right - box.getBoundingClientRect().right};
           })"""
    )
    assert found, f"{path}: no paper-vs-book table"
    for table in found:
        assert table["sideways"] <= 1, f"{path}: a table scrolls sideways by {table['sideways']}"
        assert table["caption"] <= 1, f"{path}: a caption runs {table['caption']} px past"
    visit.close()


#: pydata-sphinx-theme's titles of its colour-mode icons, by the page's data-mode
MODE_WORDS = {"light": "Light", "dark": "Dark", "auto": "System Settings"}


def test_the_themes_buttons_are_named_by_what_they_show(site: str, browser) -> None:
    """The report's one serious axe hit: the theme's search and colour-mode buttons showed
    words their names lacked (WCAG 2.5.3). Each visible search button's name is its visible
    text, and the mode button's name says the mode it shows, also after a click changes it
    (the surveys run axe's rule on every page, in both looks)."""
    visit = Visit(browser, site, "chapters/sawtooth.html")
    try:
        page = visit.page
        for button in page.locator(".search-button__button").all():
            if button.is_visible() and button.inner_text().strip():
                shown = " ".join(button.inner_text().split())
                assert button.get_attribute("aria-label") == shown
        mode = page.locator(".theme-switch-button").first
        for _ in range(2):
            word = MODE_WORDS[page.evaluate("() => document.documentElement.dataset.mode")]
            assert mode.get_attribute("aria-label") == f"Color mode: {word}"
            mode.click()
            page.wait_for_timeout(200)
    finally:
        visit.close()
