"""`tcplab data` and `tcplab run` against a scratch data folder: the book's tables are the
book's (another seed is written beside them, a paper grid that does not exist is refused), a
corrupt table is named and never recomputed unasked, and `--only X X` runs X once.

insensitivity-paths is the experiment: its full-scale table takes a fraction of a second.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tcplab import cache

TCPLAB = str(Path(sys.executable).parent / "tcplab")
NAME = "insensitivity-paths"


@pytest.fixture
def data(tmp_path: Path) -> Path:
    """A data folder holding a copy of the book's insensitivity-paths pair."""
    folder = tmp_path / "data"
    folder.mkdir()
    for suffix in (".csv", ".meta.json"):
        shutil.copy(Path(cache.DATA_DIR) / f"{NAME}{suffix}", folder / f"{NAME}{suffix}")
    return folder


def _tcplab(data: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "TCPLAB_DATA": str(data)}
    env.pop("TCPLAB_QUICK_CACHE", None)
    return subprocess.run(
        [TCPLAB, *args], env=env, capture_output=True, text=True, timeout=300, check=False
    )


def _book(data: Path) -> tuple[bytes, bytes]:
    return (data / f"{NAME}.csv").read_bytes(), (data / f"{NAME}.meta.json").read_bytes()


def test_another_seed_never_replaces_the_books_table(data: Path) -> None:
    book = _book(data)
    done = _tcplab(data, "run", NAME, "--scale", "full", "--seed", "1")
    assert done.returncode == 0, done.stderr
    assert _book(data) == book
    assert (data / f"{NAME}.seed1.csv").exists() and (data / f"{NAME}.seed1.meta.json").exists()
    again = _tcplab(data, "data", "--only", NAME, "--seed", "2")
    assert again.returncode == 0 and _book(data) == book
    assert (data / f"{NAME}.seed2.csv").exists()


def test_the_papers_scale_without_a_paper_grid_is_refused(data: Path) -> None:
    for args in (["run", NAME, "--scale", "paper"], ["data", "--only", NAME, "--scale", "paper"]):
        done = _tcplab(data, *args)
        lines = done.stderr.strip().splitlines()
        assert done.returncode == 2 and len(lines) == 1, done.stderr
        assert "has no paper grid" in lines[0]
    assert sorted(p.name for p in data.iterdir()) == [f"{NAME}.csv", f"{NAME}.meta.json"]


def test_a_corrupt_table_is_named_and_recomputed_only_when_asked(data: Path) -> None:
    table = data / f"{NAME}.csv"
    table.write_bytes(table.read_bytes().replace(b"0.", b"5.", 3))  # the review's tampering
    spoiled = _book(data)
    done = _tcplab(data, "run", NAME, "--scale", "full")
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 1 and len(lines) == 1, done.stderr
    assert lines[0] == (
        f"tcplab: error: data/{NAME}.csv is corrupt: its bytes are not the table "
        f"{NAME}.meta.json records (another table_sha256) (the data folder is "
        f"TCPLAB_DATA={str(data)!r}): run `tcplab data --only {NAME}` to compute it"
    )
    assert _book(data) == spoiled and done.stdout == ""
    kept = _tcplab(data, "data", "--only", NAME, "--keep")
    assert kept.returncode == 0, kept.stderr
    assert f"{NAME}: data/{NAME}.csv is corrupt: its bytes are not" in kept.stderr
    assert "computed again" in kept.stderr
    assert cache.read(cache.Entry(NAME, data))[0].equals(
        cache.read(cache.Entry(NAME))[0]
    )  # the same numbers as the book's table


def test_only_x_x_runs_x_once(data: Path) -> None:
    done = _tcplab(data, "data", "--only", NAME, NAME)
    assert done.returncode == 0, done.stderr
    assert done.stderr.count(f"{NAME}: ") == 1


def test_up_to_date_tables_are_kept_and_said_so(data: Path) -> None:
    done = _tcplab(data, "data", "--only", NAME, "--keep")
    assert done.returncode == 0 and f"{NAME}: up to date" in done.stderr


def test_tcplab_claims_names_a_corrupt_table(tmp_path: Path) -> None:
    """The ledger's reader (tcplab claims) says which table is corrupt and what to run, in
    one line, instead of calling it missing."""
    data = tmp_path / "data"
    data.mkdir()
    for name in ("sawtooth-paths", "sawtooth-utilisation"):
        for suffix in (".csv", ".meta.json"):
            shutil.copy(Path(cache.DATA_DIR) / f"{name}{suffix}", data / f"{name}{suffix}")
    spoiled = data / "sawtooth-utilisation.csv"
    spoiled.write_bytes(spoiled.read_bytes().replace(b"0.", b"9.", 1))
    done = _tcplab(data, "claims", "sawtooth")
    lines = done.stderr.strip().splitlines()
    assert done.returncode != 0 and len(lines) == 1, done.stderr
    assert "data/sawtooth-utilisation.csv is corrupt: its bytes are not the table" in lines[0]
    assert "tcplab data --only sawtooth-utilisation" in lines[0]


def test_status_and_restamp_run_here(data: Path) -> None:
    done = _tcplab(data, "data", "--restamp", "--cluster", "local")
    assert done.returncode == 2 and "--restamp runs here" in done.stderr
