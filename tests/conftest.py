"""Shared fixtures: the built book (one build per test session) and where things are.

Hypothesis runs under the profile named by ``HYPOTHESIS_PROFILE`` (default ``ci``):

* ``ci``: derandomized (the examples are a fixed function of each test, so ``make test`` is
  reproducible and a CI failure reproduces locally), no example database, no deadline (the
  models' run time varies with the drawn parameters and the machine's load). Tests whose
  examples are whole simulations pin a smaller ``max_examples`` next to the test, which wins
  over the profile; the others get Hypothesis's default of 100.
* ``dev``: randomized, with the local example database, 100 examples unless a test pins its
  own; run it now and then to look beyond the fixed examples:
  ``HYPOTHESIS_PROFILE=dev make test-fast`` (or any pytest command).
  A failure prints the reproducing ``@reproduce_failure`` blob.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import settings

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent

settings.register_profile(
    "ci", derandomize=True, database=None, deadline=None, max_examples=100, print_blob=True
)
settings.register_profile("dev", derandomize=False, deadline=None, print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


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
