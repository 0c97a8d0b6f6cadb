"""`tcplab morris`: the issue's JSON keys, answers known without the model, one-line errors."""

from __future__ import annotations

import json

import pytest

from tcplab import cli
from tcplab.theory import morris as theory

KEYS = ("loss_rate", "goodput_fraction", "jain", "under_5pct", "zero_seconds", "timeouts",
        "backoff_stages", "packets", "wall_s")  # fmt: skip


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> dict:
    assert cli.main(["morris", *argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_the_issue_keys_and_their_ranges(capsys: pytest.CaptureFixture[str]) -> None:
    out = _run(capsys, "--flows", "8", "--seconds", "20", "--warmup", "5")
    assert set(KEYS) <= set(out)
    for key in ("loss_rate", "goodput_fraction", "under_5pct", "zero_seconds"):
        assert 0.0 <= out[key] <= 1.0, key
    assert 1 / 8 <= out["jain"] <= 1.0  # Jain's index of 8 flows lies in [1/N, 1]
    assert len(out["backoff_stages"]) == 7  # time-outs of 1, 2, ..., 64 s
    assert out["flows"] == 8 and out["buffer"] == 217 and out["queue"] == "red"


def test_a_buffer_larger_than_every_window_loses_nothing(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """One flow with a 64 KB window (113 packets) and 5 telnet sessions cannot have more than
    a few hundred packets in the network: a 1000-packet DropTail buffer never overflows, so
    nothing is dropped and nothing times out."""
    out = _run(capsys, "--flows", "1", "--queue", "droptail", "--buffer", "1000",
               "--seconds", "20", "--warmup", "5")  # fmt: skip
    assert out["loss_rate"] == 0.0 and out["timeouts"] == 0
    # a window smaller than the pipe sends 113 packets per round trip; the longest round trip
    # is 2 x (25 + 50) ms, so at least 113 / (2170 x 0.15) of the link (10% slack: slow start)
    most = theory.link_storage(10.0, 0.15)
    assert out["goodput_fraction"] <= 1.0
    assert out["goodput_fraction"] >= min(113 / most, 1.0) * 0.9


def test_the_telnet_sessions_can_be_switched_off(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ("--flows", "3", "--seconds", "15", "--warmup", "5")
    with_telnet = _run(capsys, *argv)
    without = _run(capsys, *argv, "--telnet", "0")
    assert with_telnet["telnet"] == 5 and without["telnet"] == 0
    assert with_telnet["packets"] != without["packets"]


@pytest.mark.parametrize("tcp", ["tahoe", "reno", "newreno", "sack"])
def test_every_tcp_variant_runs_and_is_reported(
    capsys: pytest.CaptureFixture[str], tcp: str
) -> None:
    """Every variant of the packet model runs Morris's set-up (issue 14: --tcp sack on every
    command that takes --tcp); ten flows through RED lose packets and recover them."""
    out = _run(capsys, "--flows", "10", "--tcp", tcp, "--seconds", "20", "--warmup", "5")
    assert out["tcp"] == tcp
    assert out["drops"] > 0 and out["loss_rate"] > 0.0
    assert 0.9 <= out["goodput_fraction"] <= 1.0  # ten greedy flows keep the link busy


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["--flows", "0"], "--flows=0"),
        (["--flows", "4", "--buffer", "2"], "--buffer=2"),
        (["--flows", "4", "--tcp", "vegas"], "--tcp='vegas'"),
        (["--flows", "4", "--queue", "fq"], "--queue='fq'"),
        (["--flows", "4", "--warmup", "300"], "--warmup=300"),
        (["--flows", "4", "--seconds", "-1"], "--seconds=-1"),
        (["--flows", "4", "--telnet", "-1"], "--telnet=-1"),
        (["--flows", "4", "--seed", "-1"], "--seed=-1"),
        ([], "--flows"),
    ],
)
def test_bad_input_is_one_line_naming_the_flag(
    capsys: pytest.CaptureFixture[str], argv: list[str], words: str
) -> None:
    assert cli.main(["morris", *argv]) == 2
    err = capsys.readouterr().err.strip()
    assert words in err and "\n" not in err and "Traceback" not in err
