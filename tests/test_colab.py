"""A chapter as a notebook that runs outside a clone (tcplab.launch): downloaded from the site
or opened in Colab, its first cell installs the book where it is missing; the pages' Colab
links. The replay of a reader's download (tools/notebook-check: the notebook downloaded from
its page, alone, a fresh venv that reaches nothing but the site) is the release check's
(tests/site_check.py, run by make site)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import jupytext
import pytest

from tcplab.launch import (
    NOTEBOOK_BRANCH,
    RUNTIME_PACKAGES,
    colab_notebook,
    colab_url,
    drop_solutions,
    notebook_chapters,
    runtime_pins,
    setup_cell_source,
    wheel_name,
)
from tcplab.plain_myst import GLUE_NOTE

ROOT = Path(__file__).resolve().parents[1]
REPOSITORY = "https://github.com/tcplab/tcplab"
PINS = runtime_pins(ROOT / "requirements.txt")


def test_every_notebook_chapter_becomes_a_colab_notebook_with_the_setup_first() -> None:
    """The set-up cell first, then the chapter's code cells in order, without outputs; its
    Markdown plain (tcplab.plain_myst: no MyST role or directive left; without the build's
    glued values, the note on ⟨name⟩ second); the chapter and the site in its metadata."""
    chapters = notebook_chapters(ROOT)
    assert len(chapters) >= 10
    for chapter in chapters:
        notebook = colab_notebook(chapter, REPOSITORY, PINS)
        source = jupytext.read(chapter)
        assert notebook.cells[0].source == setup_cell_source(REPOSITORY, PINS), chapter.name
        if "{glue:text}`" in chapter.read_text(encoding="utf-8"):
            assert notebook.cells[1].source == GLUE_NOTE, chapter.name
        code = [c for c in notebook.cells[1:] if c.cell_type == "code"]
        assert [c.source for c in code] == [
            c.source for c in source.cells if c.cell_type == "code"
        ], chapter.name
        assert all(c.outputs == [] and c.execution_count is None for c in code), chapter.name
        markdown = "\n".join(c.source for c in notebook.cells if c.cell_type == "markdown")
        assert not re.findall(r"^(?:```|:::)\{[a-z-]+\}", markdown, re.M), chapter.name
        assert "jupytext" not in notebook.metadata
        assert notebook.metadata["tcplab"] == {"chapter": chapter.stem, "site": ""}


def test_the_setup_pins_every_runtime_package_from_requirements() -> None:
    pinned = dict(
        line.split("==", 1)
        for line in (ROOT / "requirements.txt").read_text().splitlines()
        if "==" in line
    )
    assert set(RUNTIME_PACKAGES) <= set(pinned)
    assert PINS == {name: pinned[name] for name in RUNTIME_PACKAGES}
    cell = setup_cell_source(REPOSITORY, PINS, site="https://book.example/tcplab/")
    assert "'https://github.com/tcplab/tcplab'" in cell
    assert "SITE = 'https://book.example/tcplab/'" in cell
    assert f"WHEEL = {wheel_name()!r}" in cell
    assert all(f"{name!r}: {version!r}" in cell for name, version in PINS.items())


def test_a_package_without_a_pin_is_named(tmp_path: Path) -> None:
    requirements = tmp_path / "requirements.txt"
    requirements.write_text("numpy==2.0.0\n")
    with pytest.raises(ValueError, match="no pin for pandas"):
        runtime_pins(requirements)


def test_the_students_notebooks_keep_the_exercises_and_drop_every_solution() -> None:
    """Counted on the Markdown: each chapter's exercises stay, numbered as in the book, and no
    solution (plain or gated, with its code cells) is left; the full notebooks fold each."""
    solutions = 0
    for chapter in notebook_chapters(ROOT):
        text = chapter.read_text(encoding="utf-8")
        solutions += text.count("```{solution")
        exercises = text.count("```{exercise}")
        student = colab_notebook(chapter, REPOSITORY, PINS, solutions=False)
        kept = "".join(cell.source for cell in student.cells)
        assert kept.count("**Exercise ") == exercises, chapter.name
        assert "Solution to Exercise" not in kept and "{solution" not in kept, chapter.name
        assert "```{solution" not in drop_solutions(text), chapter.name
        full = "".join(c.source for c in colab_notebook(chapter, REPOSITORY, PINS).cells)
        assert full.count("Solution to Exercise") == text.count("```{solution}") + text.count(
            "```{solution-start}"
        ), chapter.name
    assert solutions >= 30  # the book has 56 exercises, nearly all with a solution
    sample = "a\n```{solution} x\n:class: dropdown\n\nsecret\n```\nb\n"
    assert drop_solutions(sample) == "a\nb\n"


def test_the_setup_cell_installs_from_the_site_first() -> None:
    """Where the notebook knows its site, the pins come from the site's copies alone first
    (pip without an index, the copies' page as its links), and PyPI only if that fails; a
    plain-HTTP site is trusted by name; the wheel comes from the site's notebooks folder."""
    cell = setup_cell_source(REPOSITORY, PINS, site="http://127.0.0.1:8000/book")
    assert "SITE = 'http://127.0.0.1:8000/book/'" in cell  # a folder: urljoin keeps "book"
    assert "WHEELS = 'notebooks/wheels/'" in cell
    assert '["--no-index", "--find-links", wheels]' in cell
    assert 'pip += ["--trusted-host", urllib.parse.urlsplit(SITE).hostname]' in cell
    assert 'urllib.parse.urljoin(SITE, "notebooks/" + WHEEL)' in cell
    student = setup_cell_source(REPOSITORY, PINS, site="", wheels="../notebooks/wheels/")
    assert "WHEELS = '../notebooks/wheels/'" in student and "SITE = ''" in student


def test_the_setup_cell_does_nothing_where_tcplab_is_installed(tmp_path: Path) -> None:
    """Run here (tcplab importable, from this clone: no results in the package) from an empty
    folder with an unreachable repository and site: it must neither clone, fetch nor install
    (each would fail and raise), nor point TCPLAB_DATA anywhere."""
    env = {**os.environ, "TCPLAB_REPOSITORY": str(tmp_path / "no-such-repository")}
    env.pop("TCPLAB_DATA", None)
    cell = setup_cell_source(REPOSITORY, PINS, site="http://127.0.0.1:9/")
    done = subprocess.run(
        [sys.executable, "-c", cell + "\nprint('TCPLAB_DATA', os.environ.get('TCPLAB_DATA'))"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert list(tmp_path.iterdir()) == []
    assert done.stdout.strip() == "TCPLAB_DATA None"


def test_colab_links_open_the_notebooks_branch() -> None:
    assert colab_url(REPOSITORY, "chapters/sawtooth") == (
        "https://colab.research.google.com/github/tcplab/tcplab/blob/"
        f"{NOTEBOOK_BRANCH}/chapters/sawtooth.ipynb"
    )
    assert colab_url(REPOSITORY + "/", "chapters/ns3").endswith(
        "/tcplab/tcplab/blob/notebooks/chapters/ns3.ipynb"
    )


@pytest.mark.parametrize("repository", ["https://gitlab.com/a/b", "https://github.com/a", "x"])
def test_colab_refuses_a_repository_it_cannot_open(repository: str) -> None:
    with pytest.raises(ValueError, match="repository="):
        colab_url(repository, "chapters/sawtooth")


def test_no_chapter_runs_the_tcplab_command_through_path() -> None:
    """A kernel started without activating its venv (Colab, Jupyter's own) has no ``tcplab``
    on its PATH: chapters run ``[sys.executable, "-m", "tcplab", ...]`` instead."""
    for chapter in notebook_chapters(ROOT):
        text = chapter.read_text(encoding="utf-8")
        assert '["tcplab"' not in text and "['tcplab'" not in text, chapter.name
