"""What the site offers to take away (tcplab.offline): the wheel a downloaded notebook installs
carries the package as pip would install it and every shipped result, byte for byte; the
notebooks folder and its zip; the downloads page links only what is there and says how to get
the rest; the site's copies of the pins and its labs; tools/place_site.py finds a broken link.
The replay of a download from the built site: tests/site_check.py (make site-check)."""

from __future__ import annotations

import runpy
import subprocess
import zipfile
from pathlib import Path

import pytest

from tcplab.launch import DATA_FOLDER, WHEELHOUSE, notebook_chapters, wheel_name
from tcplab.offline import (
    LABS,
    NOTEBOOKS,
    PDF,
    STUDENT,
    ZIP,
    downloads_page,
    lab_notebook,
    notebook_wheel,
    write_notebooks,
    write_wheelhouse,
)

ROOT = Path(__file__).resolve().parents[1]

REPOSITORY = "https://github.com/tcplab/tcplab"


@pytest.fixture(scope="module")
def notebooks(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("site") / NOTEBOOKS
    write_notebooks(ROOT, folder, REPOSITORY, site="https://book.example/")
    return folder


def test_the_wheel_carries_every_module_package_file_and_shipped_result(notebooks: Path) -> None:
    wheel = zipfile.ZipFile(notebooks / wheel_name())
    names = set(wheel.namelist())
    modules = {p.relative_to(ROOT / "lib").as_posix() for p in (ROOT / "lib").rglob("*.py")}
    modules = {m for m in modules if "__pycache__" not in m}
    assert modules <= names
    ledgers = {
        p.relative_to(ROOT / "lib").as_posix()
        for p in ROOT.glob("lib/tcplab/chapters/*/ledger.toml")
    }
    assert ledgers and ledgers <= names
    shipped = sorted(p for p in (ROOT / "data").iterdir() if p.is_file())
    assert len(shipped) > 100
    for path in shipped:
        assert wheel.read(f"tcplab/{DATA_FOLDER}/{path.name}") == path.read_bytes(), path.name
    entry = wheel.read("tcplab-0.1.0.dist-info/entry_points.txt").decode()
    assert "tcplab = tcplab.cli:main" in entry
    assert wheel.testzip() is None


def test_the_wheel_is_byte_identical_when_built_twice(tmp_path: Path, notebooks: Path) -> None:
    again = notebook_wheel(ROOT, tmp_path)
    assert again.read_bytes() == (notebooks / wheel_name()).read_bytes()


def test_the_zip_holds_every_notebook_and_the_wheel_in_one_folder(notebooks: Path) -> None:
    names = zipfile.ZipFile(notebooks / ZIP).namelist()
    stems = [p.stem for p in notebook_chapters(ROOT)]
    assert sorted(names) == sorted(
        [f"tcplab-notebooks/{s}.ipynb" for s in stems] + [f"tcplab-notebooks/{wheel_name()}"]
    )
    assert all((notebooks / f"{s}.ipynb").exists() for s in stems)


def test_the_downloads_page_says_how_to_get_what_this_build_lacks(notebooks: Path) -> None:
    site = notebooks.parent
    page = downloads_page(site, "tcplab")
    assert f'href="../{NOTEBOOKS}/sawtooth.ipynb"' in page
    assert f'href="../{NOTEBOOKS}/{ZIP}"' in page
    assert 'href="../student' not in page and f'href="../{PDF}"' not in page
    assert page.count("<code>make site</code>") == 3  # the students' edition, the PDF, the labs
    assert "from PyPI: this build has no copies" in page
    assert "does not know the site, and clones" in page  # no address baked in: it says so
    assert 'src="../_static/tcplab-download.js"' in page  # the download writes the site in
    named = downloads_page(site, "tcplab", site="https://book.example/")
    assert "fetches them from https://book.example/" in named and "clones" not in named
    (site / "student").mkdir(exist_ok=True)
    (site / STUDENT).write_text("<html></html>")
    (site / PDF).write_bytes(b"%PDF-1.4")
    (site / LABS).mkdir(exist_ok=True)
    (site / LABS / "morris.ipynb").write_text("{}")
    (site / WHEELHOUSE).mkdir(parents=True, exist_ok=True)
    page = downloads_page(site, "tcplab")
    assert f'href="../{STUDENT}"' in page and f'href="../{PDF}"' in page
    assert f'href="../{LABS}/morris.ipynb"' in page
    assert "<code>make site</code>" not in page and "this site's copies, for Linux" in page
    (site / "student" / NOTEBOOKS).mkdir(parents=True, exist_ok=True)
    student = downloads_page(site / "student", "tcplab", student=True)
    assert "This is the students'" in student
    assert f'href="../../{PDF}"' in student and f'href="../../{LABS}/morris.ipynb"' in student


def test_the_wheelhouse_page_links_every_copy_with_its_hash(tmp_path: Path) -> None:
    """pip's --find-links reads the page: a link to every wheel, its sha256 in the link (pip
    checks the file against it)."""
    import hashlib

    wheels = []
    for name in (
        "numpy-2.4.6-cp311-cp311-manylinux_2_28_x86_64.whl",
        "tqdm-4.70.1-py3-none-any.whl",
    ):
        wheels.append(tmp_path / name)
        wheels[-1].write_bytes(name.encode())
    page = write_wheelhouse(wheels, tmp_path / "site" / WHEELHOUSE).read_text(encoding="utf-8")
    for wheel in wheels:
        digest = hashlib.sha256(wheel.read_bytes()).hexdigest()
        assert f'href="{wheel.name}#sha256={digest}"' in page
        assert (tmp_path / "site" / WHEELHOUSE / wheel.name).read_bytes() == wheel.read_bytes()


def test_a_lab_on_the_site_installs_what_it_needs_first(tmp_path: Path) -> None:
    """The site's copy of a lab is the student notebook with the set-up cell first (the
    book's pins and Otter-Grader's), its public tests untouched."""
    import nbformat

    student = tmp_path / "morris.ipynb"
    lab = nbformat.v4.new_notebook()
    lab.cells = [nbformat.v4.new_code_cell("import otter")]
    lab.metadata["otter"] = {"tests": {"q1": {}}}
    nbformat.write(lab, student)
    pins = {"numpy": "1", "otter-grader": "7.0.0"}
    placed = lab_notebook(student, REPOSITORY, pins, site="https://book.example/")
    assert placed.cells[0].metadata["tags"] == ["tcplab-colab-setup"]
    assert "'otter-grader': '7.0.0'" in placed.cells[0].source
    assert "SITE = 'https://book.example/'" in placed.cells[0].source
    assert [c.source for c in placed.cells[1:]] == ["import otter"]
    assert placed.metadata["otter"] == {"tests": {"q1": {}}}


def test_the_site_check_finds_a_broken_link(tmp_path: Path) -> None:
    (tmp_path / "downloads").mkdir()
    (tmp_path / "there.pdf").write_bytes(b"%PDF")
    page = tmp_path / "downloads" / "index.html"
    page.write_text(
        '<a href="../there.pdf">ok</a> <a href="../gone.pdf">no</a> <a href="https://x/">out</a>'
    )
    broken_links = runpy.run_path(str(ROOT / "tools" / "place_site.py"))["broken_links"]
    assert broken_links(page) == ["../gone.pdf"]


def _planned(target: str) -> list[str]:
    done = subprocess.run(
        ["make", "-n", "-C", str(ROOT), target], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    return [line.strip() for line in done.stdout.replace("\\\n", " ").splitlines()]


def test_make_site_builds_both_editions_the_pdf_and_the_labs_each_with_a_time_limit() -> None:
    lines = _planned("site")
    keys = ("jupyter-book build", "book_pdf.py", "labs.py", "place_site.py", "site_config.py")
    work = [line for line in lines if any(k in line for k in keys)]
    # the two configurations, the book, the students' edition, the PDF, the labs (2), placing
    assert len(work) == 8, work
    assert all(line.startswith("timeout ") for line in work), work
    assert "--path-output _build/student" in work[3] and "tcplab.pdf" in work[4]
    assert work[-1].startswith("timeout 300") and ".notebook-wheels-cache" in work[-1]
    assert any("pytest" in line and "tests/site_check.py" in line for line in lines)  # release


def test_make_book_builds_neither_the_pdf_nor_the_students_edition() -> None:
    planned = "\n".join(_planned("book"))
    assert "jupyter-book build" in planned
    assert "book_pdf" not in planned and "student" not in planned
