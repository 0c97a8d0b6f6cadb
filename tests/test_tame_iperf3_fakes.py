"""The advisor's iperf3 path against fake ``iperf3`` executables put first on PATH (issues 55
and 56): every odd output the reliability review tried is one line naming iperf3 and what was
wrong, a non-zero status, no traceback, control characters escaped; a busy server is waited
for within a bound; a server that stops answering is named; a probe that never retransmits is
not taken as loss-limited. No network and no real iperf3: each fake is a small script written
here, which reads ``-P`` and prints what the case needs.

Expectations: the schema of the fields the advisor reads (tcplab/iperf3.py's docstring, from
iperf3 3.12's JSON: ``end.sum_received`` bytes / seconds / bits_per_second, ``start.connected``,
``error``), and iperf3's own busy message.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tcplab.cli import main
from tcplab.iperf3 import Iperf3Probe, ProbeError, printable

WHERE = "127.0.0.1:5201"  # never reached: the fake answers
BUSY = '{"start": {"connected": []}, "end": {}, "error": "the server is busy running a test. try again later"}'  # noqa: E501
REFUSED = '{"start": {"connected": []}, "end": {}, "error": "unable to connect to server: Connection refused"}'  # noqa: E501


def good(streams: int, mbit: float = 100.0, retransmits: int = 3) -> dict:
    """A well-formed iperf3 3.12 report: ``streams`` connected, ``mbit`` Mbit/s over 1 s."""
    count = int(mbit * 1e6 / 8)
    return {
        "start": {"connected": [{"socket": 5 + i} for i in range(streams)]},
        "end": {
            "sum_received": {"bytes": count, "seconds": 1.0, "bits_per_second": 8.0 * count},
            "sum_sent": {"retransmits": retransmits},
        },
    }


def fake(folder: Path, outputs: list[str], status: int = 0) -> Path:
    """An ``iperf3`` in ``folder`` that prints outputs[i] on its i-th call (the last one
    again after that); "{good}" stands for a good report with as many streams as -P asks."""
    (folder / "outputs.json").write_text(json.dumps(outputs), encoding="utf-8")
    script = folder / "iperf3"
    template = json.dumps(good(1))
    script.write_text(
        f"#!{sys.executable}\n"
        + textwrap.dedent(
            f"""
            import json, pathlib, sys
            here = pathlib.Path(__file__).parent
            outputs = json.loads((here / "outputs.json").read_text())
            calls = here / "calls"
            done = int(calls.read_text()) if calls.exists() else 0
            calls.write_text(str(done + 1))
            text = outputs[min(done, len(outputs) - 1)]
            if text == "{{good}}":
                streams = int(sys.argv[sys.argv.index("-P") + 1])
                report = json.loads({template!r})
                report["start"]["connected"] = [{{}}] * streams
                count = int(100e6 * streams**0.5 / 8)  # far from linear growth: in the model
                report["end"]["sum_received"].update(bytes=count, bits_per_second=8.0 * count)
                text = json.dumps(report)
            sys.stdout.write(text)
            sys.exit({status})
            """
        ),
        encoding="utf-8",
    )
    script.chmod(0o755)
    return script


@pytest.fixture
def on_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):  # noqa: ANN201
    """Put ``tmp_path`` first on PATH; returns a function that writes the fake there."""
    monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}{os.environ['PATH']}")
    return lambda outputs, status=0: fake(tmp_path, outputs, status)


ARGV = ["tame", "--iperf3", WHERE, "--max-impact", "0.2", "--duration", "1", "--omit", "0",
        "--repeat", "1"]  # fmt: skip
DEEP_OBJECTS = '{"a":' * 50_000 + "1" + "}" * 50_000
DEEP_ARRAYS = "[" * 100_000 + "]" * 100_000


def _report(**end: object) -> str:
    base = good(1)
    base["end"]["sum_received"].update(end)
    return json.dumps(base)


CASES = [
    ("[]", "its JSON is an array, not an object"),
    ("null", "its JSON is null, not an object"),
    ("42", "its JSON is a number, not an object"),
    ('"text"', "its JSON is a string, not an object"),
    (json.dumps({"start": None, "end": good(1)["end"]}), "start is null, not an object"),
    (json.dumps({"start": {"connected": 3}, "end": good(1)["end"]}), "start.connected is a"),
    (json.dumps({"start": {"connected": [{}]}, "end": []}), "end is an array, not an object"),
    (json.dumps({"start": {"connected": [{}]}}), "its JSON has no end"),
    (json.dumps({**good(1), "end": {"sum_received": {"seconds": 1.0, "bits_per_second": 8.0}}}),
     "end.sum_received has no bytes"),
    (_report(bytes="12"), "end.sum_received.bytes is a string, not a number"),
    (_report(bytes=True), "end.sum_received.bytes is a boolean"),
    (_report(bytes=12.5, bits_per_second=100.0), "bytes = 12.5 is not a whole number"),
    (_report(seconds=0.0), "end.sum_received.seconds = 0 is outside"),
    (_report(seconds=1e300), "end.sum_received.seconds = 1e+300 is outside"),
    (json.dumps({**good(1), "start": {"connected": [{}], "test_start": {"duration": 0}}}),
     "start.test_start.duration = 0, asked for 1 s"),  # iperf3 3.12 ran -t 0.5 so: no end
    (_report(bits_per_second=1e999), "bits_per_second is inf, not a finite number"),
    (_report(bits_per_second=float("nan")), "bits_per_second is nan, not a finite number"),
    (_report(bits_per_second=5e-324), "disagrees with 8 x bytes / seconds"),
    (_report(bytes=0, bits_per_second=0.0), "nothing received"),
    (json.dumps({**good(1), "error": 7}), "its error is a number, not a string"),
    (DEEP_OBJECTS, "nests deeper than 16 levels"),
    (DEEP_ARRAYS, "nests deeper than 16 levels"),
    ("[" * 20 + "]" * 20, "nests deeper than 16 levels"),
    ('{"end": ' + "1" * 5000 + "}", "its JSON is not readable"),
    ("iperf3: garbage", "its output is not JSON"),
    ("x" * 1_000_000, "its output is not JSON"),
    (json.dumps({**good(1), "error": "bad\x1b[31m\nthing\u202e"}),
     "failed: bad\\x1b[31m\\nthing\\u202e"),
]  # fmt: skip


@pytest.mark.parametrize(("output", "says"), CASES, ids=[c[1][:40] for c in CASES])
def test_odd_iperf3_output_is_one_line_naming_iperf3(on_path, output, says, capsys) -> None:
    on_path([output])
    status = main(ARGV)
    out, err = capsys.readouterr()
    said, failed = err.splitlines()  # the runs announced, then the one error line
    assert status == 1 and out == "" and "3 runs" in said
    assert failed.startswith(f"tcplab: error: iperf3 to {WHERE} with 1 streams")
    assert says in failed, failed
    assert "\x1b" not in err and "\u202e" not in err and "Traceback" not in err


def test_the_command_line_itself_prints_no_traceback(tmp_path: Path) -> None:
    """One case through the installed ``tcplab`` (a process of its own, no pytest around it)."""
    fake(tmp_path, [DEEP_OBJECTS])
    env = {**os.environ, "PATH": f"{tmp_path}{os.pathsep}{os.environ['PATH']}"}
    tcplab = Path(sys.executable).with_name("tcplab")
    done = subprocess.run(
        [str(tcplab), *ARGV[0:]], capture_output=True, text=True, timeout=120, env=env
    )
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr.count("\n") == 2 and "nests deeper" in done.stderr
    assert "Traceback" not in done.stderr


def test_a_busy_server_is_tried_again_and_the_advice_completes(on_path, capsys) -> None:
    script = on_path([BUSY, BUSY, "{good}"])
    status = main([*ARGV, "--force", "--json"])
    out, err = capsys.readouterr()
    assert status == 0, err
    got = json.loads(out)
    assert got["runs"] == 3 and sorted(got["samples"]) == ["1", "10"]
    assert int((script.parent / "calls").read_text()) == 5  # 2 busy + 3 runs


def test_a_server_busy_for_longer_than_the_bound_is_one_line(tmp_path: Path) -> None:
    script = fake(tmp_path, [BUSY])
    probe = Iperf3Probe("127.0.0.1", 5201, duration=1, omit=0, repeat=1,
                        executable=str(script), busy_wait_s=1.5)  # fmt: skip
    with pytest.raises(ProbeError) as caught:
        probe(1)  # pauses 0.5 and 1 s fit in 1.5 s; the next, 2 s, does not
    message = str(caught.value)
    assert "busy running a test" in message and "3 tries over 1.5 s" in message
    assert int((tmp_path / "calls").read_text()) == 3 and "\n" not in message


def test_a_server_that_stops_answering_is_named(on_path, capsys) -> None:
    on_path(["{good}", REFUSED])
    status = main(ARGV)
    _, err = capsys.readouterr()
    failed = err.splitlines()[-1]
    assert status == 1 and "refused" in failed and "(run 2 of 3)" in failed
    assert "answered 1 run and has gone" in failed and "iperf3 -s -1" in failed


def test_a_probe_that_never_retransmits_is_not_taken_as_loss_limited(on_path, capsys) -> None:
    """Zero retransmissions at one stream: its window (socket buffer) or a rate it fills
    without loss holds it, not a loss rate; the model has nothing to fit."""
    script = on_path(["{good}"])
    text = (script.parent / "iperf3").read_text()
    (script.parent / "iperf3").write_text(text.replace('"retransmits": 3', '"retransmits": 0'))
    status = main([*ARGV, "--no-validate"])
    _, err = capsys.readouterr()
    assert status == 2 and "retransmitted nothing" in err and "not loss-limited" in err


def test_printable_escapes_control_and_format_characters() -> None:
    assert printable("a\x1b[2Jb\nc\td\u202ee\u00e9") == "a\\x1b[2Jb\\nc\\td\\u202ee\u00e9"
    assert printable("x" * 300, 10) == "x" * 10 + "..."
