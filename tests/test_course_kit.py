"""The course kit, checked in the chapters' sources (no build): every chapter states its
learning objectives at the top and ends with a summary, hides its set-up cells from the
reader (they stay in the notebook download), and links the glossary; the students' edition
hides the solutions and changes nothing else; Binder installs the package itself."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import jupytext
import pytest
import yaml

from tcplab.book import student_config

ROOT = Path(__file__).resolve().parents[1]
#: the numbered chapters of the table of contents (the back matter - the ledger page, the
#: instructors' page, the glossary - is reference, not a chapter with objectives and exercises)
CHAPTERS = sorted(
    ROOT / f"{entry['file']}.md"
    for part in yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf-8"))["parts"]
    if part.get("numbered")
    for entry in part["chapters"]
)
TERM = re.compile(r"\{term\}`([^`<]+?)(?:\s*<([^>]+)>)?`")


def test_there_are_chapters() -> None:
    assert CHAPTERS


@pytest.mark.parametrize("chapter", CHAPTERS, ids=[p.stem for p in CHAPTERS])
def test_chapter_opens_with_objectives_and_ends_with_a_summary(chapter: Path) -> None:
    text = chapter.read_text(encoding="utf-8")
    objectives = text.find(":::{admonition} Learning objectives")
    first_section = text.find("\n## ")
    assert 0 <= objectives < first_section, f"{chapter.name}: no learning objectives at the top"
    # the reader's report (2026-11-27): chapters 5 and 7 said what they teach, not what they need
    prerequisites = text.find("**Prerequisites:**")
    assert objectives < prerequisites < first_section, (
        f"{chapter.name}: no prerequisites at the top"
    )
    assert "\n## Summary\n" in text, f"{chapter.name}: no '## Summary' section"


@pytest.mark.parametrize("chapter", CHAPTERS, ids=[p.stem for p in CHAPTERS])
def test_set_up_cells_are_hidden_from_the_reader(chapter: Path) -> None:
    """The parameters cell and every cell that only imports and loads are removed from the
    page (tag remove-cell); they stay in the notebook, which the page offers for download."""
    notebook = jupytext.read(chapter)
    code = [cell for cell in notebook.cells if cell.cell_type == "code"]
    first = next(
        (n for n, cell in enumerate(code) if "parameters" in cell.metadata.get("tags", [])), None
    )
    assert first is not None, f"{chapter.name}: no parameters cell"
    setup = code[first : first + 2]  # the parameters, then the imports and the runs
    assert re.match(r"\s*(from \S+ import|import )", setup[1].source), setup[1].source[:60]
    shown = [c.source[:60] for c in setup if "remove-cell" not in c.metadata.get("tags", [])]
    assert not shown, f"{chapter.name}: set-up cells the reader sees: {shown}"


def _glossary_terms() -> set[str]:
    text = (ROOT / "chapters" / "glossary.md").read_text(encoding="utf-8")
    block = text.split("```{glossary}", 1)[1].split("```", 1)[0]
    return {line.strip().lower() for line in block.splitlines() if line and not line[0].isspace()}


def test_every_glossary_term_is_linked_from_a_chapter() -> None:
    terms = _glossary_terms()
    assert {"droptail", "red", "ns-2", "sack", "newreno", "cubic", "gridftp", "planetlab"} <= terms
    linked = set()
    for chapter in (ROOT / "chapters").glob("*.md"):
        for shown, target in TERM.findall(chapter.read_text(encoding="utf-8")):
            linked.add((target or shown).strip().lower())
    assert terms - linked == set(), f"glossary terms no chapter links: {sorted(terms - linked)}"
    assert linked - terms == set(), f"links to terms the glossary lacks: {sorted(linked - terms)}"


def test_the_students_edition_hides_the_solutions_and_nothing_else() -> None:
    config = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))
    student = student_config(config)
    assert student["sphinx"]["config"]["hide_solutions"] is True
    assert "hide_solutions" not in config["sphinx"]["config"]  # the default build keeps them
    for key in set(config) | set(student):
        if key not in ("title", "sphinx"):
            assert student.get(key) == config.get(key), key
    assert student["sphinx"]["extra_extensions"] == config["sphinx"]["extra_extensions"]
    rest = {k: v for k, v in student["sphinx"]["config"].items() if k != "hide_solutions"}
    assert rest == config["sphinx"]["config"]


def test_binder_installs_the_package_itself() -> None:
    """repo2docker runs an executable postBuild after environment.yml: it must install tcplab
    (a dry run of its pip command, in this environment, must name the package)."""
    post_build = ROOT / "postBuild"
    assert post_build.exists() and os.access(post_build, os.X_OK)
    commands = [
        line
        for line in post_build.read_text().splitlines()
        if line.strip() and not line.startswith(("#", "set "))
    ]
    assert commands == ["python -m pip install --no-deps --no-build-isolation -e ."], commands
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--dry-run",
            "--no-deps",
            "--no-build-isolation",
            "--disable-pip-version-check",
            "--quiet",
            "--report",
            "-",
            "-e",
            ".",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    names = [item["metadata"]["name"] for item in json.loads(done.stdout)["install"]]
    assert names == ["tcplab"], names


def test_the_students_edition_check_finds_a_shown_solution(tmp_path: Path) -> None:
    """tools/check_student.py (run by `make book-student` on its output) passes a page with
    exercises and no solution, and fails one that shows a solution or has no exercise."""

    def check(folder: Path) -> tuple[int, str]:
        script = ROOT / "tools" / "check_student.py"
        done = subprocess.run(
            [sys.executable, str(script), str(folder)], capture_output=True, text=True
        )
        return done.returncode, done.stderr.strip()

    pages = tmp_path / "chapters"
    pages.mkdir()
    page = pages / "a.html"
    page.write_text('<div class="exercise admonition">x</div>', encoding="utf-8")
    assert check(tmp_path) == (0, "")
    page.write_text(
        '<div class="exercise admonition">x</div><div class="solution dropdown admonition">y</div>',
        encoding="utf-8",
    )
    assert check(tmp_path) == (1, "a.html: 1 solutions shown")
    page.write_text("<p>no exercise</p>", encoding="utf-8")
    assert check(tmp_path)[0] == 1


def test_the_students_edition_drops_gated_solutions_with_their_code() -> None:
    """sphinx-exercise's hide_solutions leaves a gated solution's code cells and end marker in
    the page (the build fails); tcplab.book drops the whole gate from the source instead."""
    from tcplab.book import drop_gated_solutions

    page = (
        "Text.\n\n```{exercise}\n:label: ex-a\n\nDo it.\n```\n\n"
        "```{solution-start} ex-a\n:class: dropdown\n```\n\nHow:\n\n"
        "```{code-cell} ipython3\nprint(42)\n```\n\n```{solution-end}\n```\n\nAfter.\n"
    )
    out = drop_gated_solutions(page)
    assert out == "Text.\n\n```{exercise}\n:label: ex-a\n\nDo it.\n```\n\n\nAfter.\n"
    for chapter in CHAPTERS:
        text = drop_gated_solutions(chapter.read_text(encoding="utf-8"))
        assert "{solution-start}" not in text and "{solution-end}" not in text, chapter.name
        assert "{exercise}" in text or "{exercise-start}" in text, chapter.name


#: a cell whose whole code is a call of a display helper (a chart, a table, the claims, a panel):
#: it teaches nothing, so the page hides its input (the notebook download keeps it); a call
#: with named parameters shows the model's inputs and may stay (issue 36, item 4)
DISPLAY_CALL = re.compile(
    r"^\s*(?:\w+_tables\.\w+|charts\.\w+|HTML\(claims_html|claims\.comparison_frame|panel\.)"
)


@pytest.mark.parametrize("chapter", CHAPTERS, ids=[p.stem for p in CHAPTERS])
def test_no_display_helper_call_is_shown_above_its_output(chapter: Path) -> None:
    shown = []
    for cell in jupytext.read(chapter).cells:
        code = cell.source.strip().splitlines()
        tags = set(cell.metadata.get("tags", []))
        if cell.cell_type != "code" or tags & {"remove-input", "remove-cell", "hide-input"}:
            continue
        if len(code) == 1 and DISPLAY_CALL.match(code[0]) and "=" not in code[0]:
            shown.append(code[0])
    assert not shown, shown
