"""Opening a chapter in Google Colab.

Colab opens notebooks (``.ipynb``) from a GitHub repository, not the book's MyST-Markdown
chapters. ``make colab`` writes each chapter as a notebook with no outputs whose first cell
fetches the book's repository (its code and the results shipped in ``data/``) and installs
the ``tcplab`` package and whatever of its run-time pins the machine lacks; ``tools/publish-colab``
commits them to the repository's :data:`NOTEBOOK_BRANCH`, and each chapter page's launch menu
links to its notebook there (:func:`colab_url`). Where ``tcplab`` is already importable (a
clone, Binder, the book's build) the first cell does nothing.
"""

from __future__ import annotations

from pathlib import Path

import jupytext
import nbformat

__all__ = [
    "NOTEBOOK_BRANCH",
    "RUNTIME_PACKAGES",
    "COLAB",
    "setup_cell_source",
    "colab_notebook",
    "colab_url",
    "notebook_chapters",
]

#: the branch of the repository that holds the chapters as notebooks (tools/publish-colab)
NOTEBOOK_BRANCH = "notebooks"
#: the distributions the chapters need at run time (live panels draw SVG with vl-convert);
#: their pins come from the clone's requirements.txt
RUNTIME_PACKAGES = ("numpy", "pandas", "simpy", "altair", "ipywidgets", "tqdm", "vl-convert-python")
COLAB = "https://colab.research.google.com"

_SETUP = """\
# Outside a clone of the book (Colab, a bare Jupyter): fetch the book's repository, with its
# code and the results shipped in data/, and install the tcplab package and the run-time pins
# this machine lacks. Where tcplab is already installed this cell does nothing.
import importlib.metadata
import importlib.util
import os
import subprocess
import sys

if importlib.util.find_spec("tcplab") is None:
    REPOSITORY = os.environ.get("TCPLAB_REPOSITORY", {repository!r})
    BOOK = os.path.abspath("tcplab-book")
    if not os.path.isdir(BOOK):
        subprocess.run(["git", "clone", "--quiet", "--depth", "1", REPOSITORY, BOOK], check=True)
    with open(os.path.join(BOOK, "requirements.txt")) as pins:
        pinned = dict(line.strip().split("==", 1) for line in pins if "==" in line)
    wanted = []
    for name in {packages!r}:
        try:
            if importlib.metadata.version(name) != pinned[name]:
                wanted.append(f"{{name}}=={{pinned[name]}}")
        except importlib.metadata.PackageNotFoundError:
            wanted.append(f"{{name}}=={{pinned[name]}}")
    pip = [sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
    if wanted:
        subprocess.run(pip + wanted, check=True)
    subprocess.run(pip + ["--no-deps", BOOK], check=True)
    os.environ["TCPLAB_DATA"] = os.path.join(BOOK, "data")  # the shipped results
    importlib.invalidate_caches()
    if "google.colab" in sys.modules:  # Colab draws ipywidgets 8 through its own manager
        from google.colab import output

        output.enable_custom_widget_manager()
    stale = sorted(n for n in ("numpy", "pandas") if n in sys.modules and any(
        w.startswith(n + "==") for w in wanted))
    if stale:
        print("Installed new", " and ".join(stale), "- restart the runtime, then run all cells.")
"""


def setup_cell_source(repository: str) -> str:
    """The code of a Colab notebook's first cell, fetching ``repository`` (a git URL)."""
    return _SETUP.format(repository=repository, packages=RUNTIME_PACKAGES)


def colab_notebook(chapter: Path, repository: str) -> nbformat.NotebookNode:
    """The MyST-Markdown ``chapter`` as a notebook without outputs, with the set-up cell first."""
    notebook = jupytext.read(chapter)
    setup = nbformat.v4.new_code_cell(setup_cell_source(repository))
    setup.metadata["tags"] = ["tcplab-colab-setup"]
    notebook.cells.insert(0, setup)
    for cell in notebook.cells:
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
    notebook.metadata.pop("jupytext", None)
    nbformat.validate(notebook)
    return notebook


def colab_url(repository: str, pagename: str) -> str:
    """Colab's address of the page ``pagename`` (e.g. ``chapters/sawtooth``) as a notebook on
    the :data:`NOTEBOOK_BRANCH` of the GitHub ``repository`` (``https://github.com/ORG/REPO``)."""
    prefix = "https://github.com/"
    if not repository.startswith(prefix) or repository.rstrip("/").count("/") != 4:
        raise ValueError(
            f"repository={repository!r}: Colab opens notebooks from GitHub only; "
            "expected https://github.com/ORG/REPO"
        )
    org_repo = repository.removeprefix(prefix).rstrip("/").removesuffix(".git")
    return f"{COLAB}/github/{org_repo}/blob/{NOTEBOOK_BRANCH}/{pagename}.ipynb"


def notebook_chapters(root: Path) -> list[Path]:
    """The chapters under ``root``/chapters that are notebooks (jupytext front matter)."""
    return sorted(
        path
        for path in (root / "chapters").glob("*.md")
        if path.read_text(encoding="utf-8").startswith("---\njupytext:")
    )
