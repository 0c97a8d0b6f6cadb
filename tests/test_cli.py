import json
import subprocess
import sys
from pathlib import Path

import pytest

from tcplab.cli import main
from tcplab.packet import run_dumbbell

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


def test_fluid_json_has_the_documented_fields() -> None:
    done = _run(
        "fluid",
        "--flows",
        "4",
        "--policy",
        "rate-independent",
        "--events",
        "2000",
        "--replicas",
        "8",
        "--seed",
        "3",
        "--json",
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert {"aggregate", "per_flow", "second_moment", "events", "wall_s"} <= set(result)
    assert len(result["per_flow"]) == 4 and len(result["second_moment"]) == 4
    assert result["events"] == 2000 * 8
    assert result["aggregate"] == pytest.approx(12 / 13, rel=5e-3)
    assert sum(result["per_flow"]) == pytest.approx(result["aggregate"])


def test_packet_json_has_the_documented_fields() -> None:
    done = _run(
        "packet",
        "--flows",
        "5",
        "--queue",
        "red",
        "--buffer",
        "50",
        "--rate-mbps",
        "10",
        "--duration",
        "20",
        "--warmup",
        "5",
        "--seed",
        "1",
        "--json",
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert {"goodput_mbps", "drop_rate", "per_flow_mbps", "packets", "wall_s"} <= set(result)
    assert len(result["per_flow_mbps"]) == 5
    assert 0 < result["goodput_mbps"] <= 10.0
    assert 0 <= result["drop_rate"] < 1
    assert sum(result["per_flow_mbps"]) == pytest.approx(result["goodput_mbps"], rel=1e-6)


def _without_wall_clock(summary: dict) -> dict:
    return {k: v for k, v in summary.items() if k not in ("wall_s", "packets_per_wall_s")}


def test_packet_threshold_dropper_options() -> None:
    common = ["--flows", "3", "--queue", "threshold", "--rate-mbps", "5", "--duration", "40"]
    largest = json.loads(_run("packet", *common, "--select", "largest", "--json").stdout)
    first = json.loads(_run("packet", *common, "--select", "first", "--json").stdout)
    assert largest["drops_after_warmup"] > 0 and first["drops_after_warmup"] > 0
    # the option reaches the dropper: the command gives exactly the run of the Python API
    # with select="largest" (same defaults, seed 0), and that run differs from "first"
    api = run_dumbbell(
        3, queue="threshold", rate_mbps=5.0, duration=40.0, trace=False,
        queue_options={"select": "largest"},
    ).summary()  # fmt: skip
    assert _without_wall_clock(largest) == _without_wall_clock(json.loads(json.dumps(api)))
    assert _without_wall_clock(largest) != _without_wall_clock(first)
    held = _run("packet", *common, "--hold-ms", "1000", "--buffer", "1000", "--json").stdout
    held = json.loads(held)
    # one drop per hold at most (the buffer is out of reach): 30 s after the warm-up, 1 s hold
    assert 0 < held["drops_after_warmup"] <= 31


@pytest.mark.parametrize(
    ("flags", "api"),
    [
        (["--delayed-ack-ms", "40"], {"delayed_ack_ms": 40.0}),
        (["--initial-window", "4"], {"initial_window": 4}),
        (["--min-rto-ms", "1000"], {"min_rto": 1.0}),
        (
            # max_p small enough that RED's average sits above max_th: gentle ramps there
            [
                "--queue",
                "red",
                "--buffer",
                "40",
                "--min-th",
                "5",
                "--max-th",
                "10",
                "--max-p",
                "0.02",
                "--gentle",
            ],
            {
                "queue": "red",
                "buffer": 40,
                "queue_options": {"min_th": 5.0, "max_th": 10.0, "max_p": 0.02, "gentle": True},
            },
        ),
    ],
)
def test_packet_knobs_reach_the_model(flags: list[str], api: dict[str, object]) -> None:
    """Each knob gives exactly the Python API's run with that setting, and a run that differs
    from the default one (so the flag is not silently ignored)."""
    common = ["--flows", "16", "--buffer", "6", "--duration", "30", "--warmup", "5"]
    base = {"buffer": 6, "duration": 30.0, "warmup": 5.0, "trace": False}
    got = json.loads(_run("packet", *common, *flags, "--json").stdout)
    want = run_dumbbell(16, **{**base, **api}).summary()  # type: ignore[arg-type]
    options = {k: v for k, v in api.get("queue_options", {}).items() if k != "gentle"}
    defaults = {**base, **api, "queue_options": options or None}
    defaults = {k: v for k, v in defaults.items() if k in ("queue", "buffer", "queue_options")}
    default = run_dumbbell(16, **{**base, **defaults}).summary()  # type: ignore[arg-type]
    assert _without_wall_clock(got) == _without_wall_clock(json.loads(json.dumps(want)))
    assert _without_wall_clock(got) != _without_wall_clock(json.loads(json.dumps(default)))


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["frobnicate"], ["invalid choice", "frobnicate"]),
        (["sawtooth", "--beta", "1.5"], ["beta=1.5", "(0, 1)"]),
        (["sawtooth", "--eta", "-1"], ["eta=-1", "(0, inf)"]),
        (["sawtooth", "--events", "0"], ["--events", "events=0", "[1, 1e+06]"]),
        (["sawtooth", "--beta", "abc"], ["--beta", "abc"]),
        (["run", "no-such-experiment"], ["experiment='no-such-experiment'"]),
        (["fluid", "--flows", "0"], ["--flows", "flows=0", "[1, 1000]"]),
        (["fluid", "--policy", "fastest"], ["--policy", "fastest", "largest-rate"]),
        (["fluid", "--beta", "1"], ["beta=1", "(0, 1)"]),
        (["fluid", "--capacity", "0"], ["capacity=0", "(0, inf)"]),
        (["fluid", "--flows", "3", "--probs", "0.5,0.5"], ["probs", "3"]),
        (["fluid", "--flows", "2", "--probs", "0.5,0.6"], ["probs"]),
        (["fluid", "--replicas", "0"], ["replicas=0"]),
        (["packet", "--rate-mbps", "0"], ["--rate-mbps", "rate_mbps=0", "(0, 10000]"]),
        (["packet", "--buffer", "0"], ["--buffer", "buffer=0", "[1, 1e+06]"]),
        (["packet", "--queue", "red", "--min-th", "50", "--max-th", "20"], ["max_th=20"]),
        (["packet", "--queue", "red", "--max-p", "1.5"], ["max_p=1.5", "(0, 1]"]),
        (["packet", "--queue", "sfq"], ["--queue", "sfq"]),
        (["packet", "--queue", "threshold", "--threshold", "0"], ["threshold=0", "[1, 100]"]),
        (["packet", "--queue", "threshold", "--hold-ms", "-3"], ["hold_ms=-3", "[0, inf)"]),
        (["packet", "--queue", "threshold", "--select", "slowest"], ["--select", "largest"]),
        (["packet", "--select", "largest"], ["--select", "--queue threshold", "droptail"]),
        (["packet", "--delayed-ack-ms", "0"], ["delayed_ack_ms=0", "(0, inf)"]),
        (["packet", "--initial-window", "0"], ["initial_window=0", "[1, 20000]"]),
        (["packet", "--min-rto-ms", "-1"], ["min_rto_ms=-1", "(0, inf)"]),
        (["packet", "--gentle"], ["--gentle", "--queue red", "droptail"]),
    ],
)
def test_bad_input_is_one_line_naming_the_parameter(
    args: list[str], words: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    """In process (the command is ``main``; a subprocess per case would cost a second of
    imports each): a non-zero status, one line on stderr, no exception escaping."""
    status = main(args)
    err = capsys.readouterr().err
    assert status != 0
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    for word in words:
        assert word in lines[0]


def test_the_installed_command_reports_bad_input_the_same_way() -> None:
    done = _run("packet", "--queue", "threshold", "--select", "slowest")
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "--select" in lines[0] and "largest" in lines[0], done.stderr
