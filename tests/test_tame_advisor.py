"""The measured advisor (issue 35): guards, repeats and band, validation, and its command-line
layer on a parser built here (the command module wires the same functions in).

Expectations: the fit by hand (eqs. 13-14 of Lu et al.: a' = (y2 - y1) / (n2^2 - n1^2) with
y = n^2 / BW^2, b' = y1 - a' n1^2), the impact by hand (eq. 18: 1 - sqrt(p'_1 / p'_n)), the
referee's probe pairs (B.3, B.4 of the 2026-11-27 review), Student's t from tables.
"""

from __future__ import annotations

import argparse
import json
import math
import re

import pytest

from tcplab.advisor import (
    ASSUMPTIONS,
    OutOfModel,
    ProbeError,
    advise,
    parse_host,
    parse_iperf3,
    parse_pairs,
    t_quantile,
)
from tcplab.advisor_cli import (
    add_predict_arguments,
    add_tame_arguments,
    impact_lines,
    is_measured,
    predict_impacts,
)
from tcplab.cli import main
from tcplab.tame import is_prefix, table_probe, tame_parallel_tcp
from tcplab.theory.lu import fit_probes

UNCONGESTED = "the path looks uncongested or window-limited: the loss model does not apply"


def _by_hand(n1: int, bw1: float, n2: int, bw2: float) -> tuple[float, float]:
    y1, y2 = n1**2 / bw1**2, n2**2 / bw2**2
    a = (y2 - y1) / (n2**2 - n1**2)
    return a, y1 - a * n1**2


def tame_parser() -> argparse.ArgumentParser:
    """Today's ``tcplab tame`` flags (with --scenario optional) plus the measured ones."""
    parser = argparse.ArgumentParser(prog="tcplab tame")
    parser.add_argument("--scenario", type=int)
    parser.add_argument("--max-impact", type=float, required=True)
    parser.add_argument("--probes", default="1,10")
    parser.add_argument("--max-flows", type=int, default=31)
    parser.add_argument("--min-gain", type=float, default=0.01)
    parser.add_argument("--json", action="store_true")
    add_tame_arguments(parser)
    return parser


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """``tcplab tame ARGV`` through the real entry point (its one error line, its status)."""
    assert is_measured(tame_parser().parse_args(argv))
    status = main(["tame", *argv])
    out, err = capsys.readouterr()
    return status, out, err


def test_the_advice_is_the_hand_computed_largest_n_within_the_limit() -> None:
    a, b = _by_hand(1, 100.0, 10, 600.0)
    impact = {n: 1 - math.sqrt((a + b) / (a * n * n + b)) for n in range(1, 32)}
    want = max(n for n, v in impact.items() if v <= 0.2)
    advice = advise({1: 100.0, 10: 600.0}, 0.2, min_gain=0.0)
    assert (advice.result.fit.a, advice.result.fit.b) == pytest.approx((a, b), rel=1e-12)
    assert advice.result.flows == want == 5 and advice.result.stopped_by == "impact"
    assert advice.impact[7] == pytest.approx(impact[7], rel=1e-12)
    assert advice.predicted[7] == pytest.approx(7 / math.sqrt(49 * a + b), rel=1e-12)
    assert advice.band is None and advice.warning is None and advice.result.monotone


@pytest.mark.parametrize(
    "probes, says",
    [
        ({1: 50.0, 10: 520.0}, UNCONGESTED),  # B.4-1: 4% above linear
        ({1: 100.0, 10: 1050.0}, UNCONGESTED),  # B.3, exercise 8.2: 5% above linear
        ({1: 100.0, 10: 90.0}, "does not rise"),
        ({1: 100.0, 2: 190.0}, "too close"),
        ({1: 100.0, 4: 400.0, 10: 150.0}, "b' = "),  # least squares: b' < 0
    ],
)
def test_probes_outside_the_models_domain_are_refused_in_one_line(probes, says) -> None:
    with pytest.raises(OutOfModel, match=re.escape(says)) as caught:
        advise(probes, 0.2)
    assert "\n" not in str(caught.value)
    with pytest.raises(OutOfModel):
        tame_parallel_tcp(table_probe(probes), 0.2, probes=sorted(probes), guard=True)
    forced = advise(probes, 0.2, force=True)
    assert forced.warning == str(caught.value)


def test_the_referees_superlinear_case_is_what_force_shows() -> None:
    # B.4-1: without the guard the advisor says 31 flows at an impact of -93%
    forced = advise({1: 50.0, 10: 520.0}, 0.2, force=True)
    assert forced.result.flows == 31 and forced.result.impact == pytest.approx(-0.93, abs=0.005)
    assert forced.result.fit.a < 0


def test_the_search_precondition_is_checked() -> None:
    assert is_prefix([True, True, False, False]) and is_prefix([False]) and is_prefix([])
    assert not is_prefix([True, False, True])
    # a' > 0, b' > 0: impact rises and the gain falls with n, so both tests hold on a prefix
    assert tame_parallel_tcp(table_probe({1: 100.0, 10: 600.0}), 0.2, guard=True).monotone


def test_repeats_give_the_spread_and_a_t_band_through_the_probes() -> None:
    advice = advise({1: [100.0, 102.0, 104.0], 10: [600.0, 620.0, 640.0]}, 0.2)
    assert advice.result.probes == {1: 102.0, 10: 620.0}
    assert advice.spread[10] == pytest.approx(20.0)  # sd of 600, 620, 640
    # the fit goes through its probes, so at n = 10 the band is the probe's own t interval:
    half = 4.303 * 20 / math.sqrt(3)  # t(0.975, 2 df) sd / sqrt(k)
    assert advice.band is not None
    assert advice.band[10] == pytest.approx((620 - half, 620 + half), rel=1e-4)
    low, high = advice.band[5]
    assert low < advice.predicted[5] < high
    assert advice.summary()["band_coverage"] == pytest.approx(0.9025)
    assert t_quantile(2) == 4.303 and t_quantile(100) == pytest.approx(1.984, abs=5e-4)


def test_two_repeats_too_wide_to_exclude_linear_growth_are_undecidable() -> None:
    # t(0.975, 1 df) = 12.706: the intervals 102 +- 25.4 and 620 +- 254 reach 10 x 76.6 < 874
    with pytest.raises(OutOfModel, match="within their 95% intervals that could be linear growth"):
        advise({1: [100.0, 104.0], 10: [600.0, 640.0]}, 0.2)


def test_validation_measures_once_more_at_the_chosen_n() -> None:
    a, b = 2e-6, 1e-4  # a path that follows the model exactly
    calls: list[int] = []

    def probe(n: int) -> float:
        calls.append(n)
        return n / math.sqrt(a * n * n + b)

    advice = advise(probe, 0.2, validate=True)
    assert calls == [1, 10, advice.result.flows]
    assert advice.validation is not None
    assert advice.validation["error"] == pytest.approx(0, abs=1e-9)
    with pytest.raises(ValueError, match="needs a probe function"):
        advise({1: 1.0, 10: 5.0}, 0.2, validate=True)


def test_the_cli_layer_prints_the_simulator_runs_fields_and_the_assumptions(capsys) -> None:
    status, out, err = _run(
        ["--probe", "1:100", "--probe", "10:600", "--max-impact", "0.2", "--min-gain", "0",
         "--json"], capsys)  # fmt: skip
    assert status == 0 and not err
    got = json.loads(out)
    a, b = _by_hand(1, 100.0, 10, 600.0)
    assert got["flows"] == 5 and got["stopped_by"] == "impact"
    assert (got["a"], got["b"]) == pytest.approx((a, b), rel=1e-12)
    assert got["probes"] == {"1": 100.0, "10": 600.0}
    assert got["predicted"]["10"] == pytest.approx(600.0)
    assert got["predicted_impact"] == pytest.approx(1 - math.sqrt((a + b) / (25 * a + b)))
    assert got["assumptions"] == ASSUMPTIONS and "connections instead of one" in ASSUMPTIONS
    status, out, _ = _run(["--probe", "1:100", "--probe", "10:600", "--max-impact", "0.2"], capsys)
    assert status == 0 and "open 5 connections" in out and "<- chosen" in out
    assert "Reno-like" in out


def test_the_cli_layer_refuses_in_one_line_with_status_2(capsys) -> None:
    status, out, err = _run(["--probe", "1:50", "--probe", "10:520", "--max-impact", "0.2"], capsys)
    assert status == 2 and out == "" and err.count("\n") == 1 and UNCONGESTED in err
    status, out, err = _run(
        ["--probe", "1:50", "--probe", "10:520", "--max-impact", "0.2", "--force"], capsys
    )
    assert status == 0 and out.startswith("WARNING (--force)")
    for argv, says in [
        (["--probe", "1:100", "--max-impact", "0.2"], "two, e.g."),
        (["--probe", "1:100", "--probe", "10:0", "--max-impact", "0.2"], "(0, inf)"),
        (["--probe", "1:100", "--probe", "10:600", "--max-impact", "1.5"], "(0, 1)"),
        (["--probe", "1:1", "--probe", "10:5", "--iperf3", "h", "--max-impact", ".2"], "exclude"),
        (["--probe", "1:1", "--probe", "10:5", "--scenario", "1", "--max-impact", ".2"], "--scen"),
    ]:
        status, out, err = _run(argv, capsys)
        assert status == 2 and out == "" and err.count("\n") == 1 and says in err, err


def test_predict_gets_an_impact_column() -> None:
    parser = argparse.ArgumentParser()
    add_predict_arguments(parser)
    assert parser.parse_args(["--impact"]).impact and not parser.parse_args([]).impact
    a, b = _by_hand(1, 100.0, 10, 600.0)
    fit = fit_probes({1: 100.0, 10: 600.0})
    fields = predict_impacts(fit, [1, 5])
    assert fields["impact"]["1"] == 0.0
    assert fields["impact"]["5"] == pytest.approx(1 - math.sqrt((a + b) / (25 * a + b)))
    lines = impact_lines(fit, fit.predict([5]))
    assert "impact 16.4%" in lines[0] and lines[-1].startswith("assumes:")


def test_parsing_pairs_hosts_and_iperf3_json() -> None:
    assert parse_pairs("1:100 10:800, 10:760") == {1: [100.0], 10: [800.0, 760.0]}
    for bad, says in [("1:100 x", "not N:THROUGHPUT"), ("0:5 1:3", "[1, inf)"), ("1:5", "two")]:
        with pytest.raises(ValueError, match=re.escape(says)):
            parse_pairs(bad)
    assert parse_host("h") == ("h", None) and parse_host("h:5202") == ("h", 5202)
    assert parse_host("[::1]:5201") == ("::1", 5201) and parse_host("::1") == ("::1", None)
    with pytest.raises(ValueError, match="port"):
        parse_host("h:99999")
    total = {"bits_per_second": 2.5e8, "bytes": 31_250_000, "seconds": 1}
    ok = {"start": {"connected": [{}, {}]}, "end": {"sum_received": total}}
    assert parse_iperf3(json.dumps(ok), "h", 2) == 250.0
    with pytest.raises(ProbeError, match="2 streams connected, 3 asked"):
        parse_iperf3(json.dumps(ok), "h", 3)
    refused = {"start": {"connected": []}, "end": {}, "error": "unable to connect to server"}
    with pytest.raises(ProbeError, match="iperf3 to h:1 with 1 streams failed: unable"):
        parse_iperf3(json.dumps(refused), "h:1", 1)
    with pytest.raises(ProbeError, match="not JSON"):
        parse_iperf3("iperf3: error", "h", 1)


def test_the_simulator_mode_flags_a_simulated_impact_over_the_limit(capsys) -> None:
    """The referee's case (scenario 1, 10 cross flows, 20%): the simulated impact of the
    chosen n is over the limit, and the JSON and the text say so; over_limit is exactly
    simulated_impact > max_impact."""
    argv = ["tame", "--scenario", "1", "--cross", "10", "--max-impact", "0.2"]
    assert main([*argv, "--json"]) == 0
    got = json.loads(capsys.readouterr().out)
    assert got["over_limit"] == (got["simulated_impact"] > got["max_impact"])
    assert got["over_limit"], got  # 26.3% in the referee's run
    assert f"{got['simulated_impact']:.1%}" in got["warning"] and "20%" in got["warning"]
    assert got["model_warning"] is None  # probes (1, 10) in the model's domain
    assert main(argv) == 0
    assert "exceeds the limit" in capsys.readouterr().out
    assert main(["tame", "--scenario", "1", "--cross", "10", "--max-impact", "0.5", "--json"]) == 0
    loose = json.loads(capsys.readouterr().out)
    assert loose["over_limit"] == (loose["simulated_impact"] > 0.5) and (
        "warning" in loose) == loose["over_limit"]  # fmt: skip
