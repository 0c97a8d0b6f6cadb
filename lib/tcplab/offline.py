"""What the book's site offers to take away, for a reader or an instructor without a clone.

Every book build (the ``tcplab.book`` extension) writes ``notebooks/`` into the site: each
chapter as a notebook that installs the book where it is missing
(:func:`tcplab.launch.colab_notebook`, the same notebooks ``make colab`` writes for Colab),
the wheel of ``tcplab`` it installs from (its code, its package data and every result of
``data/`` in ``tcplab/_data``: :func:`notebook_wheel`), and both in one zip; and
``downloads/index.html``, the page the introduction links, which lists them with the
students' edition and the whole-book PDF that ``make site`` adds (:func:`downloads_page`;
where they are absent it says how to get them). The students' edition writes its notebooks
without the exercises' solutions.
"""

from __future__ import annotations

import html
import shutil
import tomllib
import zipfile
from collections.abc import Callable
from pathlib import Path

from tcplab.launch import (
    DATA_FOLDER,
    WHEELHOUSE,
    colab_notebook,
    notebook_chapters,
    runtime_pins,
    setup_cell_source,
    wheel_name,
)
from tcplab.plain_myst import Rendering

__all__ = [
    "NOTEBOOKS",
    "ZIP",
    "DOWNLOADS",
    "STUDENT",
    "PDF",
    "notebook_wheel",
    "write_notebooks",
    "downloads_page",
    "write_downloads_page",
    "write_wheelhouse",
    "lab_notebook",
    "glued_values",
]

#: the site's folders and files, relative to its root
NOTEBOOKS = "notebooks"
ZIP = "tcplab-notebooks.zip"
DOWNLOADS = "downloads/index.html"
STUDENT = "student/index.html"
PDF = "tcplab.pdf"


def _package_files(root: Path) -> dict[str, bytes]:
    """lib/tcplab's modules and the package data pyproject.toml declares, by archive path."""
    lib = root / "lib"
    project = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))
    globs = project["tool"]["setuptools"]["package-data"]["tcplab"]
    paths = {p for p in (lib / "tcplab").rglob("*.py") if "__pycache__" not in p.parts}
    for pattern in globs:
        paths.update((lib / "tcplab").glob(pattern))
    return {path.relative_to(lib).as_posix(): path.read_bytes() for path in sorted(paths)}


def notebook_wheel(root: Path, target: Path) -> Path:
    """Write into ``target`` the wheel of tcplab that a chapter's notebook installs: the
    package as ``pip install`` of ``root`` (a checkout of the book) would install it, its
    ``tcplab`` command, and every file of ``root``/data in ``tcplab/_data``, where the set-up
    cell points ``TCPLAB_DATA``. Byte-identical for identical input."""
    from tcplab import __version__
    from tcplab.pyodide_site import write_wheel

    files = _package_files(root)
    data = sorted(p for p in (root / "data").iterdir() if p.is_file())
    if not any(p.suffix == ".csv" for p in data):
        raise FileNotFoundError(f"{root / 'data'}: no results to ship")
    for path in data:
        files[f"tcplab/{DATA_FOLDER}/{path.name}"] = path.read_bytes()
    project = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))
    scripts = "".join(f"{k} = {v}\n" for k, v in project["project"]["scripts"].items())
    files[f"tcplab-{__version__}.dist-info/entry_points.txt"] = (
        f"[console_scripts]\n{scripts}".encode()
    )
    target.mkdir(parents=True, exist_ok=True)
    wheel = write_wheel(target, "tcplab", __version__, files)
    assert wheel.name == wheel_name(), (wheel.name, wheel_name())
    return wheel


def glued_values(executed: Path, chapter: Path) -> dict[str, str]:
    """The values the book's run of ``chapter`` glued (name -> text/plain), from myst-nb's
    record beside the executed notebook in ``executed`` (the build's jupyter_execute/); none
    where the build has not run the chapter."""
    import json

    record = executed / chapter.parent.name / f"{chapter.stem}.glue.json"
    if not record.exists():
        return {}
    values = json.loads(record.read_text(encoding="utf-8"))
    return {k: v["data"]["text/plain"] for k, v in values.items() if "text/plain" in v["data"]}


def write_notebooks(
    root: Path,
    folder: Path,
    repository: str,
    site: str = "",
    solutions: bool = True,
    rendering: Callable[[Path], Rendering | None] | None = None,
    wheels: str = WHEELHOUSE,
) -> list[Path]:
    """Fill ``folder`` (the site's ``notebooks/``) with every notebook chapter of ``root`` as
    NAME.ipynb (:func:`tcplab.launch.colab_notebook`, the book's address ``site`` and its
    copies of the pins ``wheels`` baked in; ``rendering`` of a chapter: what the build knows
    of its numbers), the wheel they install (:func:`notebook_wheel`) and both in :data:`ZIP`;
    returns the notebooks' paths."""
    import nbformat

    folder.mkdir(parents=True, exist_ok=True)
    pins = runtime_pins(root / "requirements.txt")
    written = []
    for chapter in notebook_chapters(root):
        path = folder / f"{chapter.stem}.ipynb"
        notebook = colab_notebook(
            chapter,
            repository,
            pins,
            site=site,
            solutions=solutions,
            rendering=rendering(chapter) if rendering else None,
            wheels=wheels,
        )
        nbformat.write(notebook, path)
        written.append(path)
    wheel = notebook_wheel(root, folder)
    with zipfile.ZipFile(folder / ZIP, "w", zipfile.ZIP_DEFLATED) as archive:
        for path in [*written, wheel]:  # one folder: the wheel beside the notebooks
            info = zipfile.ZipInfo(f"tcplab-notebooks/{path.name}", date_time=(2020, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_STORED if path == wheel else zipfile.ZIP_DEFLATED
            archive.writestr(info, path.read_bytes())
    return written


#: the book's icon (_config.yml html.favicon, which Sphinx copies into _static)
ICON = "_static/tcplab-icon.svg"
#: the script that writes, into a notebook a reader downloads, the site it came from
DOWNLOAD_SCRIPT = "_static/tcplab-download.js"
#: the site's folders for the labs (``make site``: the student notebooks and their lite site)
LABS = "labs"
LITE = "labs/lite/index.html"


def _link(href: str, text: str) -> str:
    return f'<a href="{html.escape(href)}">{html.escape(text)}</a>'


def downloads_page(root: Path, title: str, student: bool = False, site: str = "") -> str:
    """The page :data:`DOWNLOADS` of the built site in ``root`` (an edition's html folder):
    the chapters' notebooks, their wheel and zip, the students' edition, the PDF and the
    labs, each linked where the site has it and otherwise said how to get; ``student``: the
    page of the students' edition (in the site's student/: its notebooks have no solutions);
    ``site``: the address baked into the notebooks (the download on a page writes the one it
    came from)."""
    up = "../"
    top = root.parent if student else root  # the published site's root
    to_top = up + ("../" if student else "")
    notebooks = sorted((root / NOTEBOOKS).glob("*.ipynb"))
    items = []
    if notebooks:
        wheel = _link(f"{up}{NOTEBOOKS}/{wheel_name()}", "wheel of tcplab")
        chapters = ", ".join(_link(f"{up}{NOTEBOOKS}/{p.name}", p.stem) for p in notebooks)
        copies = (top / WHEELHOUSE).is_dir()
        items.append(
            "<li>Each chapter as a Jupyter notebook (also the download button of its page, "
            f"<em>.ipynb</em>): {chapters}. Downloaded from here or from its page, it knows "
            "the site it came from; its first cell installs what it needs from there: the "
            "pinned packages the machine lacks "
            + (
                "(from this site's copies, for Linux on x86-64 with Python 3.11 or 3.12; "
                "elsewhere from PyPI)"
                if copies
                else "(from PyPI: this build has no copies of them)"
            )
            + f", then the book's {wheel} (its code and every result the chapters read). "
            + (
                f"A notebook saved some other way fetches them from {html.escape(site)}. "
                if site
                else "A notebook saved some other way does not know the site, and clones the "
                "book's repository instead. "
            )
            + ("Without the exercises' solutions. " if student else "")
            + "</li>"
        )
        items.append(
            f"<li>{_link(f'{up}{NOTEBOOKS}/{ZIP}', 'All the notebooks and the wheel in one zip')}: "
            "unpack it, start Jupyter in the folder and open any chapter; nothing else to "
            "download but the pinned packages.</li>"
        )
    else:
        items.append("<li>No notebooks in this build.</li>")
    if student:
        items.append("<li>This is the students' edition: the book without the solutions.</li>")
    elif (root / STUDENT).exists():
        items.append(
            f"<li>{_link(up + STUDENT, 'The students’ edition')}: the same book without the "
            "exercises' solutions (its notebooks have none either).</li>"
        )
    else:
        items.append(
            "<li>The students' edition (the book without the exercises' solutions) is not part "
            "of this build: <code>make site</code> in a clone of the book builds it here, "
            "<code>make book-student</code> on its own.</li>"
        )
    if (top / PDF).exists():
        items.append(f"<li>{_link(to_top + PDF, 'The whole book as one PDF')} (A4).</li>")
    else:
        items.append(
            "<li>The whole book as one PDF is not part of this build: <code>make site</code> in "
            "a clone of the book prints it here, <code>make pdf</code> on its own.</li>"
        )
    labs = sorted((top / LABS).glob("*.ipynb"))
    if labs:
        links = ", ".join(_link(f"{to_top}{LABS}/{p.name}", p.stem) for p in labs)
        lite = (
            f" {_link(to_top + LITE, 'The labs in your browser')}: the same notebooks in "
            "JupyterLite, nothing to install, and they work offline."
            if (top / LITE).exists()
            else ""
        )
        items.append(
            f"<li>The course's labs, as notebooks: {links}; the first cell installs what a "
            f"lab needs.{lite}</li>"
        )
    else:
        items.append(
            "<li>The course's labs are not part of this build: <code>make site</code> puts them "
            "here, <code>make labs</code> builds them on their own.</li>"
        )
    body = "\n".join(f"  {item}" for item in items)
    heading = "Off the site: notebooks" + (
        " and the labs" if student else ", the students' edition, the PDF and the labs"
    )
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{html.escape(heading)} - {html.escape(title)}</title>\n"
        f'<link rel="icon" href="{up}{ICON}">\n'
        "<style>body{font-family:system-ui,sans-serif;max-width:46rem;margin:2rem auto;"
        "padding:0 1rem;line-height:1.5}a:focus{outline:3px solid #c0007a}</style>\n"
        f'<script defer src="{up}{DOWNLOAD_SCRIPT}"></script>\n'
        f"</head>\n<body>\n<main>\n<p>{_link(up + 'index.html', title)}</p>\n"
        f"<h1>{html.escape(heading)}</h1>\n<ul>\n{body}\n</ul>\n</main>\n</body>\n</html>\n"
    )


def write_downloads_page(root: Path, title: str, student: bool = False, site: str = "") -> Path:
    """Write :func:`downloads_page` to ``root``/:data:`DOWNLOADS`."""
    page = root / DOWNLOADS
    page.parent.mkdir(parents=True, exist_ok=True)
    page.write_text(downloads_page(root, title, student, site), encoding="utf-8")
    return page


def write_wheelhouse(wheels: list[Path], target: Path) -> Path:
    """Put ``wheels`` (the site's copies of the notebooks' pins, tools/notebook_wheels.py)
    into ``target`` (the site's :data:`tcplab.launch.WHEELHOUSE`) with the page pip's
    ``--find-links`` reads: a link to each, its sha256 in the link (pip checks it)."""
    import hashlib

    if target.exists():
        shutil.rmtree(target)
    target.mkdir(parents=True)
    links = []
    for wheel in sorted(wheels):
        shutil.copyfile(wheel, target / wheel.name)
        digest = hashlib.sha256(wheel.read_bytes()).hexdigest()
        links.append(
            f'<a href="{html.escape(wheel.name)}#sha256={digest}">{html.escape(wheel.name)}</a><br>'
        )
    page = target / "index.html"
    page.write_text(
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        "<title>The pinned packages of the book's notebooks</title></head><body>\n"
        + "\n".join(links)
        + "\n</body></html>\n",
        encoding="utf-8",
    )
    return page


def lab_notebook(student: Path, repository: str, pins: dict[str, str], site: str = "") -> dict:
    """A lab's student notebook (``make labs``) as the site offers it: a first cell that
    installs what the lab needs where it is missing (:func:`tcplab.launch.setup_cell_source`,
    the book's pins and ``pins``' Otter-Grader), then the lab unchanged."""
    import nbformat

    notebook = nbformat.read(student, as_version=4)
    setup = nbformat.v4.new_code_cell(setup_cell_source(repository, pins, site))
    setup.metadata["tags"] = ["tcplab-colab-setup"]
    notebook.cells.insert(0, setup)
    notebook.metadata["tcplab"] = {"lab": student.stem, "site": site}
    nbformat.validate(notebook)
    return notebook
