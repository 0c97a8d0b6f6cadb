"""`tcplab weighted` and `tcplab bmc`: the documented JSON keys, numbers the thesis prints
(fluid model), and one line naming the flag for every bad input."""

from __future__ import annotations

import contextlib
import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from tcplab.cli import main

TCPLAB = str(Path(sys.executable).parent / "tcplab")


def _json(*argv: str) -> dict:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(list(argv)) == 0
    return json.loads(out.getvalue())


def test_weighted_json_has_the_documented_keys() -> None:
    result = _json("weighted", "--weight", "0.5", "--flows", "2", "--duration", "20", "--json")
    keys = {"ratio", "aimd_mbps", "tcp_mbps", "loss_event_rate", "timeouts", "wall_s"}
    assert keys <= set(result)
    assert result["ratio"] == pytest.approx(result["aimd_mbps"] / result["tcp_mbps"])
    assert 0 < result["aimd_mbps"] + result["tcp_mbps"] <= 60.0 / 2
    # the time-outs of all flows are the AIMD flows' plus the TCP flows' (how many there are is
    # a random outcome with no closed form here: this test checks the keys and how they add up)
    assert isinstance(result["timeouts"], int)
    assert result["timeouts"] == result["aimd_timeouts"] + result["tcp_timeouts"]
    # slow start overruns the bottleneck within a second: a 20 s run has losses
    assert 0 < result["loss_event_rate"] < 1 and 0 < result["drop_rate"] < 1


def test_bmc_fluid_shared_reaches_the_thesis_split() -> None:
    """From 1/2, 1/2 the fluid manager moves weight off the 4 Mb/s path until both subflows
    get their share: the bundle and the TCP flow get 15 Mb/s each (Fig. 3.2)."""
    result = _json("bmc", "--scenario", "shared", "--k", "0.5", "--json")
    assert set(result["sources"]) == {"tcp", "bmc"}
    assert result["sources"]["tcp"] == pytest.approx(15.0)
    assert result["sources"]["bmc"] == pytest.approx(15.0)
    assert 0.2 <= result["weights"][0] <= 4 / 15  # the fixed interval, 4 Mb/s path first
    first = result["history"][0]
    assert first["weights"] == [0.5, 0.5] and first["mbps"] == pytest.approx([4.0, 26 / 3])
    assert {"t", "weights", "twr", "mbps"} == set(first)
    assert len(result["history"]) == 30  # 300 s / 10 s


def test_bmc_fluid_pooling_history_and_keys() -> None:
    result = _json("bmc", "--scenario", "pooling", "--j-s", "5", "--duration", "50", "--json")
    assert set(result["sources"]) == {"s1", "s2", "s3"}
    assert len(result["weights"]) == len(result["subflows"]) == 2
    assert [h["t"] for h in result["history"]] == [5.0 * i for i in range(1, 11)]
    # Fig. 4.1 at 1/2, 1/2: the 8 Mb/s subflow gets 8/3, the 10 Mb/s one 10/3
    assert result["history"][0]["mbps"] == pytest.approx([8 / 3, 10 / 3])
    assert sum(result["weights"]) == pytest.approx(1.0)
    assert "wall_s" in result


def test_bmc_packet_runs_and_moves_weights() -> None:
    result = _json(
        "bmc", "--scenario", "pooling", "--model", "packet", "--duration", "40", "--j-s", "10",
        "--json",
    )  # fmt: skip
    assert set(result["sources"]) == {"s1", "s2", "s3"} and len(result["history"]) == 4
    assert result["history"][0]["weights"] == [0.5, 0.5]
    assert result["history"][1]["weights"] != [0.5, 0.5]
    assert sum(result["weights"]) == pytest.approx(1.0)


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["bmc", "--scenario", "shared", "--weights", "0.5,0.6"], ["--weights=", "sum to 1"]),
        (["bmc", "--scenario", "shared", "--weights", "0.5"], ["--weights=", "one value"]),
        (["bmc", "--scenario", "shared", "--weights", "a,b"], ["--weights=", "a,b"]),
        (["bmc", "--scenario", "shared", "--k", "2"], ["--k=2", "(0, 1]"]),
        (["bmc", "--scenario", "shared", "--k", "0"], ["--k=0", "(0, 1]"]),
        (["bmc", "--scenario", "shared", "--j-s", "0"], ["--j-s=0", "[1e-300, inf)"]),
        (["bmc", "--scenario", "shared", "--j-s", "-5"], ["--j-s=-5", "[1e-300, inf)"]),
        (["bmc", "--scenario", "shared", "--j-s=5e-324", "--duration=1e-320"], ["--j-s=5e-324"]),
        (
            ["bmc", "--scenario", "shared", "--weights=5e-324,0.9999999999999999"],
            ["--weights[0]=5e-324", "[1e-300, 1)"],
        ),
        (["bmc", "--scenario", "shared", "--seed", "5"], ["--seed=5", "--model packet only"]),
        (["bmc", "--scenario", "ring"], ["--scenario", "ring", "pooling"]),
        (["bmc", "--scenario", "shared", "--controller", "lia"], ["--controller lia", "packet"]),
        (["bmc", "--scenario", "shared", "--duration", "5"], ["--duration=5", "[10, 3600]"]),
        (["weighted", "--weight", "1.5", "--flows", "2"], ["--weight=1.5", "[0.00011, 1]"]),
        (["weighted", "--weight=1e-200", "--flows", "2"], ["--weight=1e-200", "[0.00011, 1]"]),
        (["weighted", "--weight", "0.5", "--flows", "0"], ["--flows=0", "[1, 500]"]),
        (["bmc", "--scenario", "shared", "--weights", "0,1"], ["--weights[0]=0", "(0, 1)"]),
        (["bmc", "--scenario", "pooling", "--model", "packet", "--k", "1.5"], ["--k=1.5"]),
        (["weighted", "--weight", "0.5", "--flows", "1", "--duration", "0"], ["--duration=0"]),
        (["weighted", "--flows", "2"], ["--weight"]),
    ],
)
def test_bad_input_is_one_line_naming_the_flag(
    args: list[str], words: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    status = main(args)
    err = capsys.readouterr().err
    assert status == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    for word in words:
        assert word in lines[0]


def test_the_installed_command_prints_one_line() -> None:
    done = subprocess.run(
        [TCPLAB, "bmc", "--scenario", "shared", "--k", "3"],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.strip().count("\n") == 0 and "--k=3" in done.stderr


def test_an_impossible_fluid_result_is_one_line_and_status_1(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A source above the links' total rate (the sum of every link's Mb/s bounds what any
    source can get) is never printed: the command stops at the result check."""
    from dataclasses import replace

    from tcplab import multipath

    manage = multipath.manage

    def inflated(*args: object, **options: object) -> multipath.FluidRun:
        run = manage(*args, **options)  # type: ignore[arg-type]
        return replace(run, sources={name: 1e3 for name in run.sources})

    monkeypatch.setattr(multipath, "manage", inflated)
    assert main(["bmc", "--scenario", "shared", "--duration", "20"]) == 1
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.count("\n") == 1
    assert "the bmc fluid model computed a source's Mb/s 1000.0 outside [0, 46]" in captured.err
