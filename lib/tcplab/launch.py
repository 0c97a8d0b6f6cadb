"""A chapter as a notebook that runs outside a clone: downloaded from the book's site, or opened
in Google Colab.

Colab opens notebooks (``.ipynb``) from a GitHub repository, and a reader who downloads a page's
notebook gets a file with nothing beside it; the book's chapters are MyST-Markdown files that
import ``tcplab`` and read the results shipped in ``data/``. :func:`colab_notebook` writes a
chapter as a notebook with no outputs whose first cell (:func:`setup_cell_source`) installs what
the chapter needs where ``tcplab`` is missing: the run-time pins this machine lacks, then
``tcplab`` itself from the first of

1. the book's wheel next to the notebook (``tcplab-VERSION-py3-none-any.whl``: the site's
   ``notebooks/`` folder and its zip hold one, :mod:`tcplab.offline`), which carries the
   shipped results in ``tcplab/_data``;
2. the same wheel fetched from the book's site (``html.baseurl`` of _config.yml, baked in when
   the notebook is written; empty when the book does not say where it is published);
3. a clone of the repository (its code and ``data/``), as the Colab notebooks have always done;

and points the chapter at the results it installed (``TCPLAB_DATA``). Where ``tcplab`` is
already importable (a clone, Binder, the book's build) it only does that last step, and only
for a ``tcplab`` that carries its results. ``make colab`` writes these notebooks for the
repository's :data:`NOTEBOOK_BRANCH` (``tools/publish-colab``), and every book build writes them
into the site (:mod:`tcplab.offline`), where each chapter page's download button offers them.
"""

from __future__ import annotations

import re
from pathlib import Path

import jupytext
import nbformat

from tcplab.plain_myst import GLUE_NOTE, Rendering, plain_cells
from tcplab.syllabus import exercise_numbers

__all__ = [
    "NOTEBOOK_BRANCH",
    "RUNTIME_PACKAGES",
    "COLAB",
    "DATA_FOLDER",
    "wheel_name",
    "runtime_pins",
    "WHEELHOUSE",
    "setup_cell_source",
    "drop_solutions",
    "colab_notebook",
    "colab_url",
    "notebook_chapters",
]

#: the branch of the repository that holds the chapters as notebooks (tools/publish-colab)
NOTEBOOK_BRANCH = "notebooks"
#: the distributions the chapters need at run time (live panels draw SVG with vl-convert);
#: their pins come from requirements.txt
RUNTIME_PACKAGES = ("numpy", "pandas", "simpy", "altair", "ipywidgets", "tqdm", "vl-convert-python")
COLAB = "https://colab.research.google.com"
#: where the book's wheel for notebooks (tcplab.offline) carries the results of data/
DATA_FOLDER = "_data"


def wheel_name() -> str:
    """The file name of tcplab's wheel, as the site ships it and the set-up cell looks for it."""
    from tcplab import __version__

    return f"tcplab-{__version__}-py3-none-any.whl"


def runtime_pins(
    requirements: Path, packages: tuple[str, ...] = RUNTIME_PACKAGES
) -> dict[str, str]:
    """The pinned version of each of ``packages`` (:data:`RUNTIME_PACKAGES`: what a chapter
    needs) in ``requirements`` (a requirements.txt of ``name==version`` lines); a package
    without a pin is an error."""
    pinned = {}
    for line in requirements.read_text(encoding="utf-8").splitlines():
        line = line.split("#", 1)[0].strip()
        if "==" in line:
            name, version = line.split("==", 1)
            pinned[name.strip().lower()] = version.strip()
    missing = [name for name in packages if name not in pinned]
    if missing:
        raise ValueError(f"{requirements}: no pin for {', '.join(missing)}")
    return {name: pinned[name] for name in packages}


_SETUP = """\
# Outside a clone of the book (a downloaded notebook, Colab, a bare Jupyter): install the
# run-time pins this machine lacks (from the book's site where it has them for this machine,
# else from PyPI), then tcplab with the book's results, from the first of: its wheel next to
# this notebook, the same wheel from the book's site, a clone of the repository. Where
# tcplab is already installed this cell installs nothing.
import importlib.metadata
import importlib.util
import os
import subprocess
import sys
import tempfile
import urllib.parse
import urllib.request

PINS = {pins!r}
WHEEL = {wheel!r}
SITE = {site!r}  # the book's site (the page's download button writes where it came from)
WHEELS = {wheels!r}  # the site's copies of the pinned packages, relative to SITE

if importlib.util.find_spec("tcplab") is None:
    wanted = []
    for name, version in PINS.items():
        try:
            if importlib.metadata.version(name) != version:
                wanted.append(f"{{name}}=={{version}}")
        except importlib.metadata.PackageNotFoundError:
            wanted.append(f"{{name}}=={{version}}")
    pip = [sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
    if SITE.startswith("http://"):  # pip trusts a plain-HTTP site only when told to
        pip += ["--trusted-host", urllib.parse.urlsplit(SITE).hostname]
    if wanted and SITE:  # the site's copies only: it may be the one host this machine reaches
        wheels = urllib.parse.urljoin(SITE, WHEELS)
        local = subprocess.run(pip + ["--no-index", "--find-links", wheels] + wanted,
                               capture_output=True, text=True, timeout=900)
        if local.returncode == 0:
            wanted = []
        else:
            print("The book's site has no copies of the pinned packages for this machine:",
                  "installing them from PyPI.")
    if wanted:
        subprocess.run(pip + wanted, check=True, timeout=900)
    if os.path.isfile(WHEEL):  # downloaded with the notebook (the site's notebooks zip)
        book = WHEEL
    elif SITE:  # fetched from the book's site
        book = os.path.join(tempfile.mkdtemp(), WHEEL)
        urllib.request.urlretrieve(urllib.parse.urljoin(SITE, "notebooks/" + WHEEL), book)
    else:  # a clone of the repository: its code and the results shipped in data/
        book = os.path.abspath("tcplab-book")
        if not os.path.isdir(book):
            repository = os.environ.get("TCPLAB_REPOSITORY", {repository!r})
            clone = ["git", "clone", "--quiet", "--depth", "1", repository, book]
            subprocess.run(clone, check=True, timeout=600)
        os.environ["TCPLAB_DATA"] = os.path.join(book, "data")
    local = ["--no-index"] if book.endswith(".whl") else []  # a clone is built: setuptools
    subprocess.run(pip + ["--no-deps", *local, book], check=True, timeout=600)
    importlib.invalidate_caches()
    if "google.colab" in sys.modules:  # Colab draws ipywidgets 8 through its own manager
        from google.colab import output

        output.enable_custom_widget_manager()
    stale = sorted(n for n in ("numpy", "pandas") if n in sys.modules and any(
        w.startswith(n + "==") for w in wanted))
    if stale:
        print("Installed new", " and ".join(stale), "- restart the runtime, then run all cells.")
# the results the book's wheel carries (a clone's tcplab has none: it reads the clone's data/)
SHIPPED = os.path.join(os.path.dirname(importlib.util.find_spec("tcplab").origin), {data!r})
if os.path.isdir(SHIPPED) and not os.environ.get("TCPLAB_DATA"):
    os.environ["TCPLAB_DATA"] = SHIPPED
"""

#: where the site keeps its copies of the pinned packages (``make site``: tcplab.offline),
#: relative to the site's root
WHEELHOUSE = "notebooks/wheels/"


def setup_cell_source(
    repository: str, pins: dict[str, str], site: str = "", wheels: str = WHEELHOUSE
) -> str:
    """The code of a notebook's first cell: ``pins`` (:func:`runtime_pins`; from the site's
    copies at ``wheels``, relative to ``site``, else PyPI), then tcplab from its wheel beside
    the notebook, from ``site`` (the book's address; empty: unknown) or from a clone of
    ``repository`` (a git URL)."""
    if site and not site.endswith("/"):
        site += "/"
    return _SETUP.format(
        repository=repository, pins=pins, site=site, wheel=wheel_name(), data=DATA_FOLDER,
        wheels=wheels,
    )  # fmt: skip


#: an exercise's solution as sphinx-exercise writes it: ```{solution} LABEL ... ```
SOLUTION = re.compile(r"^```\{solution\}[^\n]*\n.*?^```[ \t]*(?:\n|$)", re.MULTILINE | re.DOTALL)


def drop_solutions(text: str) -> str:
    """The MyST-Markdown ``text`` without its exercises' solutions, plain or gated (the
    students' edition's notebooks)."""
    from tcplab.book import drop_gated_solutions

    return SOLUTION.sub("", drop_gated_solutions(text))


def colab_notebook(
    chapter: Path,
    repository: str,
    pins: dict[str, str],
    site: str = "",
    solutions: bool = True,
    rendering: Rendering | None = None,
    wheels: str = WHEELHOUSE,
) -> nbformat.NotebookNode:
    """The MyST-Markdown ``chapter`` as a notebook without outputs, with the set-up cell first
    (:func:`setup_cell_source`) and its MyST as plain Markdown (:mod:`tcplab.plain_myst`: the
    numbers the build glued where ``rendering`` has them, else ⟨name⟩ and a note saying so);
    with ``solutions`` false, without the exercises' solutions. Its metadata records the
    site it was written for (``tcplab.site``; the page's download button writes the site it
    came from there and into the set-up cell)."""
    text = chapter.read_text(encoding="utf-8")
    notebook = jupytext.reads(text if solutions else drop_solutions(text), fmt="md:myst")
    for cell in notebook.cells:
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
    glued = any("{glue:text}`" in c.source for c in notebook.cells if c.cell_type == "markdown")
    notebook.cells = plain_cells(notebook.cells, chapter, exercise_numbers(chapter), rendering)
    setup = nbformat.v4.new_code_cell(setup_cell_source(repository, pins, site, wheels))
    setup.metadata["tags"] = ["tcplab-colab-setup"]
    notebook.cells.insert(0, setup)
    if glued and rendering is None:
        notebook.cells.insert(1, nbformat.v4.new_markdown_cell(GLUE_NOTE))
    notebook.metadata.pop("jupytext", None)
    notebook.metadata["tcplab"] = {"chapter": chapter.stem, "site": site}
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
