"""`tcplab predict`, `tcplab tame` and `tcplab lu` (issue 12's command line), and the paper's
grid one parameter away (`tcplab data --scale paper`).

Expectations: the fit by hand (eqs. 13-14, 10), the Python API's runs for the same seed, and
the issue's list of bad inputs, each one line naming the flag and the allowed range.
"""

from __future__ import annotations

import json
import math

import pandas as pd
import pytest

from tcplab import cache, registry
from tcplab.chapters.lu.experiments import LuParams
from tcplab.chapters.lu.scenarios import run_scenario
from tcplab.cli import main


def _json(args: list[str], capsys: pytest.CaptureFixture[str]) -> dict:
    assert main(args) == 0
    return json.loads(capsys.readouterr().out)


def test_predict_gives_the_fit_and_every_prediction(capsys) -> None:
    out = _json(
        ["predict", "--probe", "1:30000", "--probe", "10:120000", "--flows", "1-31", "--json"],
        capsys,
    )
    a = (100 / 120_000**2 - 1 / 30_000**2) / 99
    b = 1 / 30_000**2 - a
    assert (out["a"], out["b"]) == pytest.approx((a, b), rel=1e-12)
    assert list(out["predicted"]) == [str(n) for n in range(1, 32)]
    assert out["predicted"]["5"] == pytest.approx(5 / math.sqrt(25 * a + b), rel=1e-12)
    assert out["predicted"]["10"] == pytest.approx(120_000, rel=1e-12)
    linear = _json(
        ["predict", "--probe", "2:10", "--probe", "4:16", "--flows", "2,3", "--model", "linear",
         "--json"],
        capsys,
    )  # fmt: skip
    a_lin = (16 / 256 - 4 / 100) / 2  # y = n^2/BW^2 = a n + b through (2, 0.04), (4, 0.0625)
    assert linear["a"] == pytest.approx(a_lin)
    assert linear["predicted"]["3"] == pytest.approx(3 / math.sqrt(3 * a_lin + 0.04 - 2 * a_lin))


def test_predict_full2_gives_all_three_parameters(capsys) -> None:
    # y = n^2 / BW^2 = 0.01 n^2 + 0.1 n + 1 (eq. 6 in the units of eq. 9), sampled at 1, 8, 15
    y = {n: 0.01 * n * n + 0.1 * n + 1.0 for n in (1, 8, 15, 20)}
    probes = [arg for n in (1, 8, 15) for arg in ("--probe", f"{n}:{n / math.sqrt(y[n])!r}")]
    out = _json(["predict", *probes, "--model", "full2", "--flows", "20", "--json"], capsys)
    assert (out["a"], out["b"], out["c"]) == pytest.approx((0.01, 0.1, 1.0), rel=1e-9)
    assert out["predicted"]["20"] == pytest.approx(20 / math.sqrt(y[20]), rel=1e-9)
    two = _json(["predict", *probes[:4], "--json"], capsys)
    assert "c" not in two


def test_an_undefined_prediction_is_null(capsys) -> None:
    out = _json(
        ["predict", "--probe", "1:10", "--probe", "2:30", "--flows", "2,3", "--json", "--force"],
        capsys,
    )
    assert out["predicted"]["3"] is None and out["predicted"]["2"] == pytest.approx(30.0)


def test_lu_is_one_run_of_the_python_api(capsys) -> None:
    out = _json(
        ["lu", "--scenario", "1", "--flows", "6", "--cross", "5", "--seed", "3", "--json"], capsys
    )
    want = run_scenario(1, 6, 5, "droptail", 3).summary()
    for key in ("parallel_bytes_per_s", "cross_bytes_per_s", "loss_rate", "rtt_s"):
        assert out[key] == want[key]
    assert {"wall_s", "timeouts", "packets"} <= set(out)
    red = _json(["lu", "--scenario", "1", "--flows", "6", "--cross", "5", "--queue", "red",
                 "--seed", "3", "--json"], capsys)  # fmt: skip
    assert red["parallel_bytes_per_s"] == run_scenario(1, 6, 5, "red", 3).parallel_bytes_per_s
    assert red["parallel_bytes_per_s"] != out["parallel_bytes_per_s"]


def test_lu_gives_the_chapters_table_row(capsys) -> None:
    table = registry.run("lu-scenarios", scale="quick")
    row = table[(table["queue"] == "droptail") & (table["cross"] == 5) & (table["flows"] == 8)]
    out = _json(["lu", "--scenario", "1", "--flows", "8", "--cross", "5", "--json"], capsys)
    assert out["parallel_bytes_per_s"] == row["parallel_bytes_per_s"].item()
    assert out["cross_bytes_per_s"] == row["cross_bytes_per_s"].item()


def test_tame_runs_the_advisor_against_the_packet_model(capsys) -> None:
    out = _json(
        ["tame", "--scenario", "1", "--cross", "5", "--max-impact", "0.3", "--json"], capsys
    )
    assert set(out["probes"]) == {"1", "10"}
    n = out["flows"]
    assert 1 <= n <= 31 and out["predicted_impact"] <= 0.3
    chosen, one = run_scenario(1, n, 5), run_scenario(1, 1, 5)
    assert out["simulated_bytes_per_s"] == chosen.parallel_bytes_per_s
    assert out["simulated_impact"] == pytest.approx(
        1 - chosen.cross_bytes_per_s / one.cross_bytes_per_s, rel=1e-12
    )
    assert out["probes"]["10"] == run_scenario(1, 10, 5).parallel_bytes_per_s
    assert out["stopped_by"] in {"impact", "gain", "limit"}


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["predict", "--probe", "10:5", "--probe", "10:7"], ["--probe", "flows=10", "[1, 10000]"]),
        (["predict", "--probe", "1:5", "--probe", "10:0"], ["--probe 10:0", "(0, inf)"]),
        (["predict", "--probe", "1:5", "--probe", "10:-3"], ["throughput=-3", "(0, inf)"]),
        (["predict", "--probe", "1:5"], ["--probe", "2 probes"]),
        (["predict", "--probe", "1:x", "--probe", "2:3"], ["--probe '1:x'", "N:THROUGHPUT"]),
        (
            ["predict", "--probe", "1:5", "--probe", "2:9", "--flows", "0-4"],
            ["--flows", "[1, 10000]"],
        ),
        (["tame", "--scenario", "1", "--max-impact", "1.5"], ["--max-impact=1.5", "(0, 1)"]),
        (["tame", "--scenario", "1", "--max-impact", "0"], ["--max-impact=0", "(0, 1)"]),
        (["tame", "--scenario", "7", "--max-impact", "0.2"], ["--scenario=7", "1, 2, 3, 4, 5, 6"]),
        (["tame", "--scenario", "1", "--max-impact", "0.2", "--probes", "5,5"], ["--probes"]),
        (["lu", "--scenario", "0", "--flows", "1", "--cross", "0"], ["--scenario=0", "1, 2, 3"]),
        (["lu", "--scenario", "2", "--flows", "0", "--cross", "0"], ["flows=0", "[1, 1000]"]),
        (["lu", "--scenario", "2", "--flows", "1", "--cross", "-1"], ["cross=-1", "[0, 1000]"]),
        (["lu", "--scenario", "2", "--flows", "1", "--cross", "0", "--queue", "sfq"], ["--queue"]),
    ],
)
def test_bad_input_is_one_line_naming_the_flag(args, words, capsys) -> None:
    status = main(args)
    lines = capsys.readouterr().err.strip().splitlines()
    assert status == 2 and len(lines) == 1, lines
    for word in words:
        assert word in lines[0]


def test_the_papers_grid_is_one_parameter_away(tmp_path, monkeypatch) -> None:
    experiment = registry.REGISTRY["lu-scenarios"]
    assert experiment.parameters("paper") == LuParams.paper()
    grids = {g.scenario: g for g in LuParams.paper().grids}
    assert all(g.flows == tuple(range(1, 32)) and g.replicas == 2 for g in grids.values())
    assert grids[1].queues == ("droptail", "red") and set(grids) == {1, 2, 3, 4, 5, 6}
    assert all(g.cross == (0, 5, 10, 15, 20, 25, 30) for g in grids.values())
    # the sensitivity runs add scenario 2 at the paper's scale
    assert registry.REGISTRY["lu-sensitivity"].parameters("paper").scenarios == (1, 2)
    # an experiment without a larger grid runs its defaults
    assert registry.REGISTRY["sawtooth-paths"].parameters("paper") == registry.REGISTRY[
        "sawtooth-paths"
    ].parameters("full")
    # a paper-scale result is stored beside the book's, never in its place
    table = cache.cached(
        "demo", lambda: pd.DataFrame({"x": [1]}), params={}, seed=0, scale="paper",
        modules=["tcplab.checks"], folder=tmp_path,
    )  # fmt: skip
    assert len(table) == 1
    assert (tmp_path / "demo.paper.csv").exists() and not (tmp_path / "demo.csv").exists()
