"""Every chapter runs end to end with papermill at quick scale."""

from __future__ import annotations

from pathlib import Path

import jupytext
import papermill
import pytest

ROOT = Path(__file__).resolve().parents[1]
CHAPTERS = sorted(
    path
    for path in (ROOT / "chapters").glob("*.md")
    if path.read_text().startswith("---\njupytext:")
)

pytestmark = pytest.mark.notebooks

#: seconds one cell may run at quick scale before the chapter fails, naming the cell (each
#: chapter takes under a minute in all; the whole test has pytest-timeout's limit too)
CELL_TIMEOUT = 300


def test_there_are_notebook_chapters() -> None:
    assert CHAPTERS, "no MyST notebook chapters found"


@pytest.mark.parametrize("chapter", CHAPTERS, ids=[p.stem for p in CHAPTERS])
def test_chapter_runs_at_quick_scale(chapter: Path, tmp_path: Path) -> None:
    notebook = jupytext.read(chapter)
    tags = [cell.get("metadata", {}).get("tags", []) for cell in notebook.cells]
    assert any("parameters" in t for t in tags), f"{chapter.name} has no `parameters` cell"
    source = tmp_path / f"{chapter.stem}.ipynb"
    jupytext.write(notebook, source)
    papermill.execute_notebook(
        str(source),
        str(tmp_path / f"{chapter.stem}.out.ipynb"),
        parameters={"SCALE": "quick", "SEED": 0},
        cwd=str(chapter.parent),
        kernel_name="python3",
        progress_bar=False,
        execution_timeout=CELL_TIMEOUT,
    )
