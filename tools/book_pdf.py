"""The whole book as one PDF (`make pdf`), offline: headless Chromium opens every page of the
built HTML book in the order of _toc.yml at the width of an A4 page, lets the charts draw and
fit themselves and MathJax typeset, then prints the articles, one after the other, to A4.

Usage: python tools/book_pdf.py _build/html _build/pdf/tcplab.pdf
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
A4_WIDTH_PX = 794  # 210 mm at 96 px per inch
MARGIN = "14mm"
DRAWN = "() => [...document.querySelectorAll('.tcplab-chart')].every(c => c.dataset.drawn)"
TYPESET = "() => (window.MathJax?.startup?.promise || Promise.resolve()).then(() => true)"


def toc_pages() -> list[str]:
    """The book's pages in reading order, as paths of the built HTML."""
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf-8"))
    files = [toc["root"]]
    for part in toc.get("parts", []):
        files += [chapter["file"] for chapter in part.get("chapters", [])]
    return [f"{name}.html" for name in files]


def main(html: Path, target: Path) -> None:
    from playwright.sync_api import sync_playwright

    from tcplab.localsite import CHROMIUM_FLAGS, serve

    chromium = os.environ.get("CHROMIUM") or shutil.which("chromium")
    if not chromium:
        sys.exit("book_pdf: Chromium not found (make browser installs Debian's chromium)")
    articles = []
    with serve(html) as site, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium, args=CHROMIUM_FLAGS)
        page = browser.new_page(viewport={"width": A4_WIDTH_PX, "height": 1100})
        page.route("**/*", lambda r: r.continue_() if r.request.url.startswith(site) else r.abort())
        for path in toc_pages():
            page.goto(f"{site}/{path}", wait_until="load")
            page.wait_for_function(DRAWN, timeout=60_000)
            page.evaluate(TYPESET)
            print(f"book_pdf: {path}", file=sys.stderr)
            articles.append(
                page.evaluate(
                    """() => {
                    const copy = document.querySelector('article.bd-article').cloneNode(true);
                    const drop = 'script, .tcplab-chart details, .headerlink';
                    copy.querySelectorAll(drop).forEach(n => n.remove());
                    return copy.outerHTML;
                }"""
                )
            )
        # one document: the first chapter's styles, every article, each on a new page
        page.goto(f"{site}/{toc_pages()[1]}", wait_until="load")
        page.evaluate(
            """(articles) => {
            document.querySelectorAll('script').forEach(n => n.remove());
            const main = document.querySelector('main') || document.body;
            main.innerHTML = articles.map(a => '<section style="break-before: page">' + a
                + '</section>').join('');
            document.querySelectorAll('.bd-header, .bd-sidebar-primary, .bd-sidebar-secondary,'
                + ' .bd-footer, .bd-footer-article, .prev-next-area')
                .forEach(n => n.remove());
        }""",
            articles,
        )
        page.emulate_media(media="print")
        target.parent.mkdir(parents=True, exist_ok=True)
        page.pdf(
            path=str(target),
            format="A4",
            print_background=True,
            margin={"top": MARGIN, "bottom": MARGIN, "left": MARGIN, "right": MARGIN},
        )
        browser.close()
    print(f"book_pdf: wrote {target} ({target.stat().st_size // 1024} KB)", file=sys.stderr)


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]))
