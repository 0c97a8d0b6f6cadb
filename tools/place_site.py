"""Assemble the site to publish (`make site`, after it built the book, the students' edition,
the PDF, the labs and the copies of the notebooks' packages): the students' edition into
<html>/student/, the PDF to <html>/tcplab.pdf, the packages into <html>/notebooks/wheels/,
the five labs into <html>/labs/ (each student notebook with a first cell that installs what
it needs, and the labs in the browser, labs/lite/; never the autograders, which hold the
hidden tests), and the downloads page of both editions rewritten to link them
(tcplab.offline); then check that every link of those pages lands on a file of the site.

Usage: python tools/place_site.py <html> <students' edition html> <pdf> <labs> <wheels>
"""

from __future__ import annotations

import re
import shutil
import sys
from pathlib import Path

import nbformat
import yaml

from tcplab.book import STUDENT_FOLDER, site_config
from tcplab.course import LAB_CHAPTERS
from tcplab.launch import RUNTIME_PACKAGES, WHEELHOUSE, runtime_pins
from tcplab.offline import (
    DOWNLOADS,
    LABS,
    PDF,
    STUDENT,
    lab_notebook,
    write_downloads_page,
    write_wheelhouse,
)

ROOT = Path(__file__).resolve().parents[1]
#: what a lab's notebook installs besides a chapter's packages
LAB_PACKAGES = ("otter-grader",)


def broken_links(page: Path) -> list[str]:
    """The relative links of ``page`` that land on no file."""
    hrefs = re.findall(r'href="([^"#?]+)', page.read_text(encoding="utf-8"))
    return [h for h in hrefs if "://" not in h and not (page.parent / h).resolve().is_file()]


def place_labs(labs: Path, target: Path, repository: str, site: str) -> list[Path]:
    """Each lab's student notebook (with its set-up cell) and the lite site into ``target``."""
    if target.exists():
        shutil.rmtree(target)
    target.mkdir(parents=True)
    pins = runtime_pins(ROOT / "requirements.txt", RUNTIME_PACKAGES + LAB_PACKAGES)
    placed = []
    for lab in LAB_CHAPTERS:
        student = labs / lab / "student" / f"{lab}.ipynb"
        notebook = lab_notebook(student, repository, pins, site)
        nbformat.write(notebook, target / student.name)
        placed.append(target / student.name)
    shutil.copytree(labs / "lite", target / "lite")
    return placed


def main(html: Path, student: Path, pdf: Path, labs: Path, wheels: Path) -> int:
    needed = [html / "index.html", student / "index.html", pdf, labs / "lite" / "index.html"]
    needed += [labs / lab / "student" / f"{lab}.ipynb" for lab in LAB_CHAPTERS]
    for path in needed:
        if not path.exists():
            print(f"site: {path} is missing (make site builds it)", file=sys.stderr)
            return 1
    copies = sorted(wheels.glob("*.whl"))
    if not copies:
        print(f"site: no wheels in {wheels} (make site downloads them)", file=sys.stderr)
        return 1
    config = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))
    target = html / STUDENT_FOLDER
    if target.exists():
        shutil.rmtree(target)
    shutil.copytree(student, target)
    shutil.copyfile(pdf, html / PDF)
    write_wheelhouse(copies, html / WHEELHOUSE)
    made = site_config(config)  # as the builds wrote the notebooks
    site = made["html"]["baseurl"]
    place_labs(labs, html / LABS, config["repository"]["url"], site)
    titles = (site_config(config, student=True)["title"], made["title"])
    write_downloads_page(
        target, titles[0], student=True, site=site_config(config, True)["html"]["baseurl"]
    )
    write_downloads_page(html, titles[1], site=site)
    problems = [
        f"{p}: {h}" for p in (html / DOWNLOADS, target / DOWNLOADS) for h in broken_links(p)
    ]
    for problem in problems:
        print(f"site: broken link {problem}", file=sys.stderr)
    if not problems:
        size = sum(p.stat().st_size for p in html.rglob("*") if p.is_file())
        print(
            f"site: {html} holds the book, {STUDENT}, {PDF}, {LABS}/, {WHEELHOUSE} and "
            f"{DOWNLOADS} ({size / 1e6:.0f} MB)"
        )
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(*(Path(a) for a in sys.argv[1:6])))
