"""`tcplab transfers` (issue 13's command line): JSON keys, agreement with the Python API for
the same seed, the paper's definitions of aggregate and per-flow throughput, and one-line
errors naming the flag."""

from __future__ import annotations

import json

import pytest

from tcplab.chapters.lee.experiments import repetition_seed
from tcplab.chapters.lee.transfer import Repetition, path_model, run_repetition
from tcplab.cli import main


def test_transfers_json(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["transfers", "--flows", "4", "--bytes", "300000", "--rtt-ms", "38", "--path",
            "shaped", "--repetitions", "2", "--seed", "5", "--json"]  # fmt: skip
    assert main(argv) == 0
    out = json.loads(capsys.readouterr().out)
    keys = {"aggregate_bytes_per_s", "per_flow_bytes_per_s", "completion_s",
            "bytes_delivered", "wall_s"}  # fmt: skip
    assert keys <= set(out)
    assert len(out["aggregate_bytes_per_s"]) == 2
    assert [len(x) for x in out["completion_s"]] == [4, 4]
    assert out["bytes_delivered"] == 2 * 4 * 300_000
    for r, times in enumerate(out["completion_s"]):
        # the definitions: bytes / completion per flow, total / last completion
        assert out["per_flow_bytes_per_s"][r] == pytest.approx([300_000 / t for t in times])
        assert out["aggregate_bytes_per_s"][r] == pytest.approx(4 * 300_000 / max(times))
        rep = Repetition(path_model("shaped"), 4, 300_000, 38.0, repetition_seed(5, "shaped", 4, r))
        assert list(run_repetition(rep)["completion_s"]) == times


def test_transfers_text(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["transfers", "--flows", "2", "--bytes", "30000", "--path", "window"]) == 0
    assert "aggregate_bytes_per_s" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("argv", "flag"),
    [
        (["--flows", "0"], "--flows"),
        (["--flows", "2", "--bytes", "0"], "--bytes"),
        (["--flows", "2", "--bytes", "1.5"], "--bytes"),
        (["--flows", "2", "--rtt-ms", "0"], "--rtt-ms"),
        (["--flows", "2", "--path", "lossy"], "--path"),
        (["--flows", "2", "--repetitions", "0"], "--repetitions"),
        (["--flows", "2", "--seed", "-1"], "--seed"),
    ],
)
def test_transfers_bad_input(
    argv: list[str], flag: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["transfers", *argv]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and flag in err
