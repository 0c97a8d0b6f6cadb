"""Shared fixtures: the built book (one build per test session) and where things are."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent


@pytest.fixture(scope="session")
def root() -> Path:
    return ROOT


@pytest.fixture(scope="session")
def built_book(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Build the book once, warnings as errors, into a fresh folder; return its html folder."""
    out = tmp_path_factory.mktemp("book")
    command = [
        str(BIN / "jupyter-book"),
        "build",
        str(ROOT),
        "--path-output",
        str(out),
        "--warningiserror",
        "--nitpick",
        "--keep-going",
    ]
    done = subprocess.run(command, capture_output=True, text=True, cwd=ROOT, env=os.environ)
    log = done.stdout + done.stderr
    reports = out / "_build" / "html" / "reports"
    if done.returncode != 0:
        if reports.exists():  # execution reports of failed notebooks: keep them for the reader
            shutil.copytree(reports, ROOT / "_build" / "failed-reports", dirs_exist_ok=True)
        pytest.fail(f"jupyter-book build failed (exit {done.returncode}):\n{log[-6000:]}")
    return out / "_build" / "html"
