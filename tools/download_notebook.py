"""Download a chapter's notebook from its page as a reader does: headless Chromium (Debian's,
every host but 127.0.0.1 unreachable: tcplab.localsite) opens the page, opens the theme's
download menu and clicks its .ipynb, and the file the browser saves is written to the folder
given (the page's script has written the site it came from into it). A request to any other
host, or no download, is an error. tools/notebook-check uses it.

Usage: python tools/download_notebook.py PAGE_URL FOLDER
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

from tcplab.localsite import CHROMIUM_FLAGS

#: how long the page and the download may take (ms)
LIMIT_MS = 120_000


def download(page_url: str, folder: Path) -> Path:
    """The notebook the page's download button gives, saved into ``folder``."""
    from playwright.sync_api import sync_playwright

    chromium = os.environ.get("CHROMIUM") or shutil.which("chromium")
    if not chromium:
        raise FileNotFoundError("no chromium on PATH (make browser installs Debian's)")
    site = page_url.split("/chapters/", 1)[0]
    outside: list[str] = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium, args=CHROMIUM_FLAGS)
        context = browser.new_context(accept_downloads=True)
        context.on(
            "request",
            lambda r: None if r.url.startswith((site, "data:", "blob:")) else outside.append(r.url),
        )
        page = context.new_page()
        page.goto(page_url, wait_until="load", timeout=LIMIT_MS)
        page.locator(".dropdown-download-buttons > button").first.click()
        button = page.locator("a.btn-download-notebook-button").first
        with page.expect_download(timeout=LIMIT_MS) as started:
            button.click()
        saved = started.value
        target = folder / saved.suggested_filename
        saved.save_as(target)
        browser.close()
    if outside:
        raise RuntimeError(f"the page asked other hosts: {outside[:5]}")
    return target


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    folder = Path(argv[1])
    folder.mkdir(parents=True, exist_ok=True)
    print(download(argv[0], folder))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
