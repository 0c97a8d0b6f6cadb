"""The Colab route (tcplab.launch): each chapter as a notebook whose first cell installs the
book where it is missing, the pages' links to those notebooks, and a replay of a reader's
Colab session (tools/colab-check: a fresh kernel with nothing of the book installed)."""

from __future__ import annotations

import os
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
    notebook_chapters,
    setup_cell_source,
)

ROOT = Path(__file__).resolve().parents[1]
REPOSITORY = "https://github.com/tcplab/tcplab"


def test_every_notebook_chapter_becomes_a_colab_notebook_with_the_setup_first() -> None:
    chapters = notebook_chapters(ROOT)
    assert len(chapters) >= 10
    for chapter in chapters:
        notebook = colab_notebook(chapter, REPOSITORY)
        source = jupytext.read(chapter)
        assert notebook.cells[0].source == setup_cell_source(REPOSITORY), chapter.name
        assert [c.source for c in notebook.cells[1:]] == [c.source for c in source.cells]
        code = [c for c in notebook.cells if c.cell_type == "code"]
        assert all(c.outputs == [] and c.execution_count is None for c in code), chapter.name
        assert "jupytext" not in notebook.metadata


def test_the_setup_pins_every_runtime_package_from_requirements() -> None:
    pinned = {
        line.split("==")[0]
        for line in (ROOT / "requirements.txt").read_text().splitlines()
        if "==" in line
    }
    assert set(RUNTIME_PACKAGES) <= pinned
    assert "'https://github.com/tcplab/tcplab'" in setup_cell_source(REPOSITORY)


def test_the_setup_cell_does_nothing_where_tcplab_is_installed(tmp_path: Path) -> None:
    """Run here (tcplab importable) from an empty folder with an unreachable repository: it
    must neither clone nor install (a clone would fail and raise)."""
    env = {**os.environ, "TCPLAB_REPOSITORY": str(tmp_path / "no-such-repository")}
    done = subprocess.run(
        [sys.executable, "-c", setup_cell_source(REPOSITORY)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert list(tmp_path.iterdir()) == []


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


@pytest.mark.notebooks
def test_a_chapter_runs_in_a_colab_like_kernel_with_nothing_installed(tmp_path: Path) -> None:
    """tools/colab-check: fresh venv with only ipykernel and papermill, the sawtooth notebook
    from an empty folder; its first cell clones this repository (committed HEAD) and installs;
    the chapter must read the clone's shipped results (none stored elsewhere)."""
    done = subprocess.run(
        [str(ROOT / "tools" / "colab-check"), str(tmp_path / "colab")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-4000:]
    assert "nothing installed, on the shipped results" in done.stdout


def test_no_chapter_runs_the_tcplab_command_through_path() -> None:
    """A kernel started without activating its venv (Colab, Jupyter's own) has no ``tcplab``
    on its PATH: chapters run ``[sys.executable, "-m", "tcplab", ...]`` instead."""
    for chapter in notebook_chapters(ROOT):
        text = chapter.read_text(encoding="utf-8")
        assert '["tcplab"' not in text and "['tcplab'" not in text, chapter.name
