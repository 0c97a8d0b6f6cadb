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
import tomllib
import zipfile
from pathlib import Path

from tcplab.launch import DATA_FOLDER, colab_notebook, notebook_chapters, runtime_pins, wheel_name

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


def write_notebooks(
    root: Path, folder: Path, repository: str, site: str = "", solutions: bool = True
) -> list[Path]:
    """Fill ``folder`` (the site's ``notebooks/``) with every notebook chapter of ``root`` as
    NAME.ipynb (:func:`tcplab.launch.colab_notebook`, the book's address ``site`` baked in),
    the wheel they install (:func:`notebook_wheel`) and both in :data:`ZIP`; returns the
    notebooks' paths."""
    import nbformat

    folder.mkdir(parents=True, exist_ok=True)
    pins = runtime_pins(root / "requirements.txt")
    written = []
    for chapter in notebook_chapters(root):
        path = folder / f"{chapter.stem}.ipynb"
        notebook = colab_notebook(chapter, repository, pins, site=site, solutions=solutions)
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


def _link(href: str, text: str) -> str:
    return f'<a href="{html.escape(href)}">{html.escape(text)}</a>'


def downloads_page(root: Path, title: str, student: bool = False, site: str = "") -> str:
    """The page :data:`DOWNLOADS` of the built site in ``root`` (its html folder): the
    chapters' notebooks, their wheel and zip, the students' edition and the PDF, each linked
    where it is in ``root`` and otherwise said how to get; ``student``: the page of the
    students' edition (its notebooks have no solutions); ``site``: the address the notebooks
    fetch the wheel from (empty: none, they clone the repository)."""
    up = "../"
    notebooks = sorted((root / NOTEBOOKS).glob("*.ipynb"))
    items = []
    if notebooks:
        wheel = _link(f"{up}{NOTEBOOKS}/{wheel_name()}", "wheel of tcplab")
        chapters = ", ".join(_link(f"{up}{NOTEBOOKS}/{p.name}", p.stem) for p in notebooks)
        items.append(
            "<li>Each chapter as a Jupyter notebook (also the download button of its page, "
            f"<em>.ipynb</em>): {chapters}. Its first cell installs what it needs: the pinned "
            f"packages the machine lacks, from PyPI, then the book's {wheel} "
            "(its code and every result the chapters read) from beside the notebook, "
            + (
                f"else from this site ({html.escape(site)}). "
                if site
                else "else from a clone of the book's repository (this build does not know "
                "the site's address: <code>html.baseurl</code> in _config.yml). "
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
    if not student and (root / PDF).exists():
        items.append(f"<li>{_link(up + PDF, 'The whole book as one PDF')} (A4).</li>")
    elif not student:
        items.append(
            "<li>The whole book as one PDF is not part of this build: <code>make site</code> in "
            "a clone of the book prints it here, <code>make pdf</code> on its own.</li>"
        )
    body = "\n".join(f"  {item}" for item in items)
    heading = "Off the site: notebooks" + ("" if student else ", the students' edition and the PDF")
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{html.escape(heading)} - {html.escape(title)}</title>\n"
        f'<link rel="icon" href="{up}{ICON}">\n'
        "<style>body{font-family:system-ui,sans-serif;max-width:46rem;margin:2rem auto;"
        "padding:0 1rem;line-height:1.5}a:focus{outline:3px solid #c0007a}</style>\n"
        f"</head>\n<body>\n<main>\n<p>{_link(up + 'index.html', title)}</p>\n"
        f"<h1>{html.escape(heading)}</h1>\n<ul>\n{body}\n</ul>\n</main>\n</body>\n</html>\n"
    )


def write_downloads_page(root: Path, title: str, student: bool = False, site: str = "") -> Path:
    """Write :func:`downloads_page` to ``root``/:data:`DOWNLOADS`."""
    page = root / DOWNLOADS
    page.parent.mkdir(parents=True, exist_ok=True)
    page.write_text(downloads_page(root, title, student, site), encoding="utf-8")
    return page
