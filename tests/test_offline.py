"""What the site offers to take away (tcplab.offline): the wheel a downloaded notebook installs
carries the package as pip would install it and every shipped result, byte for byte; the
notebooks folder and its zip; the downloads page links only what is there and says how to get
the rest; tools/place_site.py finds a broken link. The replay of a download: tests/test_colab.py."""

from __future__ import annotations

import runpy
import subprocess
import zipfile
from pathlib import Path

import pytest

from tcplab.launch import DATA_FOLDER, notebook_chapters, wheel_name
from tcplab.offline import (
    NOTEBOOKS,
    PDF,
    STUDENT,
    ZIP,
    downloads_page,
    notebook_wheel,
    write_notebooks,
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
    assert page.count("<code>make site</code>") == 2
    assert "<code>html.baseurl</code>" in page  # no address: the notebooks clone, it says so
    named = downloads_page(site, "tcplab", site="https://book.example/")
    assert "else from this site (https://book.example/)" in named and "baseurl" not in named
    (site / "student").mkdir(exist_ok=True)
    (site / STUDENT).write_text("<html></html>")
    (site / PDF).write_bytes(b"%PDF-1.4")
    page = downloads_page(site, "tcplab")
    assert f'href="../{STUDENT}"' in page and f'href="../{PDF}"' in page
    assert "<code>make site</code>" not in page
    student = downloads_page(site, "tcplab", student=True)
    assert "Without the exercises' solutions" in student and "This is the students'" in student
    assert f'href="../{PDF}"' not in student


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


def test_make_site_builds_both_editions_and_the_pdf_each_with_a_time_limit() -> None:
    lines = _planned("site")
    work = [
        line
        for line in lines
        if any(k in line for k in ("jupyter-book build", "book_pdf.py", "place_site.py"))
    ]
    assert len(work) == 4, work  # the book, the students' edition, the PDF, the placing
    assert all(line.startswith("timeout ") for line in work), work
    assert "--path-output _build/student" in work[1] and work[-1].endswith("tcplab.pdf")


def test_make_book_builds_neither_the_pdf_nor_the_students_edition() -> None:
    planned = "\n".join(_planned("book"))
    assert "jupyter-book build" in planned
    assert "book_pdf" not in planned and "student" not in planned
