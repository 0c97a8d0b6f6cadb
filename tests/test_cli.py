import json
import subprocess
import sys
from pathlib import Path

import pytest

TCPLAB = str(Path(sys.executable).parent / "tcplab")


def _run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([TCPLAB, *args], capture_output=True, text=True, timeout=120)


def test_help_lists_the_commands() -> None:
    done = _run("--help")
    assert done.returncode == 0
    for command in ("sawtooth", "run", "data", "list"):
        assert command in done.stdout


def test_sawtooth_json() -> None:
    done = _run("sawtooth", "--beta", "0.5", "--events", "100", "--json")
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["utilisation"] == pytest.approx(0.75, abs=1e-9)


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["frobnicate"], ["invalid choice", "frobnicate"]),
        (["sawtooth", "--beta", "1.5"], ["beta=1.5", "(0, 1)"]),
        (["sawtooth", "--eta", "-1"], ["eta=-1", "(0, inf)"]),
        (["sawtooth", "--events", "0"], ["events=0", "[1, inf)"]),
        (["sawtooth", "--beta", "abc"], ["--beta", "abc"]),
        (["run", "no-such-experiment"], ["experiment='no-such-experiment'"]),
    ],
)
def test_bad_input_is_one_line_naming_the_parameter(args: list[str], words: list[str]) -> None:
    done = _run(*args)
    assert done.returncode != 0
    assert "Traceback" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    for word in words:
        assert word in lines[0]
