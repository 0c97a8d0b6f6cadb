"""Assemble the site to publish (`make site`, after it built the book, the students' edition
and the PDF): the students' edition into <html>/student/, the PDF to <html>/tcplab.pdf, and
the downloads page of both editions rewritten to link them (tcplab.offline); then check that
every link of those pages lands on a file of the site.

Usage: python tools/place_site.py <html> <students' edition html> <pdf>
"""

from __future__ import annotations

import re
import shutil
import sys
from pathlib import Path

import yaml

from tcplab.book import student_config
from tcplab.offline import DOWNLOADS, PDF, STUDENT, write_downloads_page

ROOT = Path(__file__).resolve().parents[1]


def broken_links(page: Path) -> list[str]:
    """The relative links of ``page`` that land on no file."""
    hrefs = re.findall(r'href="([^"#?]+)', page.read_text(encoding="utf-8"))
    return [h for h in hrefs if "://" not in h and not (page.parent / h).resolve().is_file()]


def main(html: Path, student: Path, pdf: Path) -> int:
    for needed in (html / "index.html", student / "index.html", pdf):
        if not needed.exists():
            print(f"site: {needed} is missing (make site builds it)", file=sys.stderr)
            return 1
    config = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))
    target = html / Path(STUDENT).parent
    if target.exists():
        shutil.rmtree(target)
    shutil.copytree(student, target)
    shutil.copyfile(pdf, html / PDF)
    site = (config.get("html") or {}).get("baseurl", "")  # as the builds wrote the notebooks
    write_downloads_page(target, student_config(config)["title"], student=True, site=site)
    write_downloads_page(html, config["title"], site=site)
    problems = [
        f"{p}: {h}" for p in (html / DOWNLOADS, target / DOWNLOADS) for h in broken_links(p)
    ]
    for problem in problems:
        print(f"site: broken link {problem}", file=sys.stderr)
    if not problems:
        print(f"site: {html} holds the book, {STUDENT}, {PDF} and {DOWNLOADS}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3])))
