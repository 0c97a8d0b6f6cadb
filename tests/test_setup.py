"""The README's two commands set up a fresh Debian machine: tools/ensure-system, as the
Makefile calls it, installs what is missing (as root) or stops at once with one line.

The script runs with a PATH of stand-ins: an ``apt-get`` that records its arguments, an ``id``
that says who we are, and no ``chromium`` (nor ``iperf3``) unless a test puts one there.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "tools" / "ensure-system"


def _stand_in(folder: Path, name: str, body: str) -> None:
    path = folder / name
    path.write_text(f"#!/bin/sh\n{body}\n")
    path.chmod(0o755)


def _machine(
    tmp_path: Path, *, uid: int, chromium: bool, npm: bool = True, iperf3: bool = True
) -> Path:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for tool in ("timeout", "cat", "dirname"):
        found = shutil.which(tool)
        assert found, tool
        (bin_dir / tool).symlink_to(found)
    (bin_dir / "python3").symlink_to(sys.executable)
    _stand_in(bin_dir, "id", f"echo {uid}")
    _stand_in(bin_dir, "apt-get", f'echo "$@" >> {tmp_path / "apt.log"}')
    if npm:
        _stand_in(bin_dir, "npm", "exit 0")
    if chromium:
        _stand_in(bin_dir, "chromium", "exit 0")
    if iperf3:
        _stand_in(bin_dir, "iperf3", "exit 0")
    return bin_dir


def _ensure(bin_dir: Path, *args: str) -> subprocess.CompletedProcess:
    env = {"PATH": str(bin_dir), "HOME": os.environ.get("HOME", "/tmp")}
    return subprocess.run(
        ["/bin/bash", str(SCRIPT), *args], env=env, capture_output=True, text=True, timeout=60
    )


def _apt_calls(tmp_path: Path) -> list[str]:
    log = tmp_path / "apt.log"
    return log.read_text().splitlines() if log.exists() else []


def test_as_root_without_chromium_it_installs_chromium_from_apt(tmp_path: Path) -> None:
    done = _ensure(_machine(tmp_path, uid=0, chromium=False), "--browser")
    assert done.returncode == 0, done.stderr
    calls = _apt_calls(tmp_path)
    assert calls[0].startswith("update")
    assert calls[1].startswith("install") and calls[1].split()[-1] == "chromium"


def test_as_root_without_iperf3_it_installs_iperf3_for_the_advisors_test(tmp_path: Path) -> None:
    done = _ensure(_machine(tmp_path, uid=0, chromium=True, iperf3=False), "--browser")
    assert done.returncode == 0, done.stderr
    assert _apt_calls(tmp_path)[1].split()[-1] == "iperf3"
    assert _apt_calls(tmp_path)[1].split().count("chromium") == 0


def test_not_root_it_stops_at_once_with_one_line_saying_what_to_run(tmp_path: Path) -> None:
    done = _ensure(_machine(tmp_path, uid=1000, chromium=False, npm=False), "--browser")
    assert done.returncode == 1
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "sudo apt-get install npm chromium" in lines[0]
    assert _apt_calls(tmp_path) == []


def test_nothing_is_installed_when_everything_is_there(tmp_path: Path) -> None:
    done = _ensure(_machine(tmp_path, uid=0, chromium=True), "--browser")
    assert done.returncode == 0 and done.stderr == ""
    assert _apt_calls(tmp_path) == []


def test_the_book_alone_does_not_need_chromium(tmp_path: Path) -> None:
    done = _ensure(_machine(tmp_path, uid=1000, chromium=False))
    assert done.returncode == 0, done.stderr


def _planned(target: str) -> list[str]:
    done = subprocess.run(
        ["make", "-n", "-C", str(ROOT), target], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


@pytest.mark.parametrize(("target", "flag"), [("test", "--browser"), ("book", "")])
def test_the_readme_commands_run_the_system_check_first(target: str, flag: str) -> None:
    lines = _planned(target)
    checks = [i for i, line in enumerate(lines) if "tools/ensure-system" in line]
    assert checks, f"make {target} never calls tools/ensure-system"
    assert any(line.rstrip().endswith(f"ensure-system {flag}".rstrip()) for line in lines)
    last = "pytest" if target == "test" else "jupyter-book build"
    work = [i for i, line in enumerate(lines) if last in line]
    assert work and max(checks) < min(work), f"make {target} runs {last} before the check"
    assert all(line.startswith("timeout ") for line in lines if "jupyter-book build" in line)


def test_ci_runs_only_the_readme_command() -> None:
    script = (ROOT / ".ci" / "run").read_text()
    commands = [
        line.strip()
        for line in script.splitlines()
        if line.strip() and not line.lstrip().startswith("#")
    ]
    assert "make test </dev/null" in commands
    assert not any("apt-get" in line for line in commands)
