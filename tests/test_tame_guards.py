"""Each of the advisor's guards at its boundary (issue 56, item 6): probes too close, the
margin around linear growth, the gain per added connection over a gap of candidates, the
validation's band when there is none, the flags of the other mode, the search's monotone
precondition. Each was seen failing with its guard broken (the commit message says how).

Expectations: a known curve BW(n) = n / sqrt(a n^2 + b) (eq. 10 with eq. 7's profile), its
gains by hand, the ratio rule of CLOSEST_PROBES (4) and the margin's closed form
(1 - 1.96 s) / (1 + 1.96 s) for the assumed 5% spread per run.
"""

from __future__ import annotations

import math

import pytest

from tcplab.advisor import OutOfModel, advise
from tcplab.cli import main
from tcplab.impact_band import near_linear_factor
from tcplab.tame import CLOSEST_PROBES, search, table_probe, tame_parallel_tcp
from tcplab.theory.lu import fit_probes

A, B = 1e-3, 1e-2  # curved enough that no pair below is near linear


def _bw(n: float, a: float = A, b: float = B) -> float:
    return n / math.sqrt(a * n * n + b)


@pytest.mark.parametrize(
    ("low", "high", "close"),
    [
        (1, 4, False),  # ratio 4 = CLOSEST_PROBES, difference 3: allowed
        (5, 20, False),  # ratio 4 exactly
        (5, 19, True),  # ratio 3.8, just under
        (5, 21, False),  # ratio 4.2, just over
        (5, 10, True),  # difference 5 (more than 1 and 4's 3), ratio 2: too close
        (3, 11, True),  # ratio 3.67
    ],
)
def test_probes_too_close_is_a_ratio_at_four(low: int, high: int, close: bool) -> None:
    assert CLOSEST_PROBES == 4.0
    probes = {low: _bw(low), high: _bw(high)}
    if close:
        with pytest.raises(OutOfModel, match=r"too close \(ratio"):
            advise(probes, 0.3)
    else:
        assert advise(probes, 0.3).result.flows >= 1


def _probes(share: float) -> dict[int, float]:
    """Probes at 1 and 10 flows whose growth is ``share`` of linear."""
    return {1: 100.0, 10: 1000.0 * share}


def test_the_margin_around_linear_growth_at_just_under_and_just_over_its_factor() -> None:
    factor = near_linear_factor()
    assert factor == pytest.approx(0.902 / 1.098)
    assert advise(_probes(factor * (1 - 1e-6)), 0.2).result.flows >= 1
    for share in (factor * (1 + 1e-6), 0.9, 0.96, 0.99):
        with pytest.raises(OutOfModel, match="undecidable"):
            advise(_probes(share), 0.2)
    with pytest.raises(OutOfModel, match="grow at least linearly"):
        advise(_probes(1.0), 0.2)


def test_the_referees_knife_edge_and_window_limited_probes_get_no_impact(capsys) -> None:
    """1:100 with 10:990 must not open 31 connections while 10:1000 is refused; 50 -> 480
    must not open 16 at 10% (the book's scenario 5, window-limited, shows no impact)."""
    for argv, says in [
        (["--probe", "1:100", "--probe", "10:990", "--max-impact", "0.2"], "undecidable"),
        (["--probe", "1:100", "--probe", "10:1000", "--max-impact", "0.2"], "linearly"),
        (["--probe", "1:50", "--probe", "10:480", "--max-impact", "0.1"], "window-limited"),
    ]:
        assert main(["tame", *argv]) == 2
        out, err = capsys.readouterr()
        assert out == "" and err.count("\n") == 1 and says in err and "open" not in err


def test_repeats_replace_the_assumed_spread_in_the_margin() -> None:
    # 96% of linear: undecidable from one run each, decided from tight repeats (sd 0.5%)
    tight = {1: [49.75, 50.0, 50.25], 10: [477.6, 480.0, 482.4]}
    assert advise(tight, 0.1).result.flows >= 1
    # repeats that agree exactly measure no spread: the assumed one stays (no knife edge)
    with pytest.raises(OutOfModel, match="undecidable"):
        advise({1: [100.0, 100.0, 100.0], 10: [990.0, 990.0, 990.0]}, 0.2)
    with pytest.raises(OutOfModel, match="within their 95% intervals"):
        advise({1: [45.0, 50.0, 55.0], 10: [470.0, 480.0, 490.0]}, 0.1)


def test_the_gain_stop_is_per_added_connection_over_a_gap_of_candidates() -> None:
    """Candidates 1, 2, 4, 8, 16, 31: the gain over a gap of s connections counts as the mean
    per connection, (BW(c_i) / BW(c_(i-1)))^(1/s) - 1. A floor between the 4->8 and 8->16
    values stops at 8; at exactly the 8->16 value it goes on to 16 (>=)."""
    pool = [1, 2, 4, 8, 16, 31]
    per_step = {
        c: (_bw(c) / _bw(p)) ** (1 / (c - p)) - 1 for p, c in zip(pool, pool[1:], strict=False)
    }
    assert per_step[8] > per_step[16] > 0
    # over the whole gap both gains are larger than the floor: counting the gap as one step
    # would go on past 8
    assert _bw(16) / _bw(8) - 1 > (per_step[8] + per_step[16]) / 2
    fit = fit_probes({1: _bw(1), 10: _bw(10)})
    floor = (per_step[8] + per_step[16]) / 2
    result = search(fit, 0.99, min_gain=floor, candidates=pool, guard=True)
    assert (result.flows, result.stopped_by) == (8, "gain")
    at_edge = search(fit, 0.99, min_gain=per_step[16] * (1 - 1e-9), candidates=pool)
    assert at_edge.flows == 16
    assert search(fit, 0.99, min_gain=per_step[16] * (1 + 1e-9), candidates=pool).flows == 8


def test_inside_the_band_is_unknown_when_there_is_no_band(capsys) -> None:
    calls: list[int] = []

    def probe(n: int) -> float:
        calls.append(n)
        return _bw(n, 2e-6, 1e-4)

    advice = advise(probe, 0.2, validate=True)  # one run per probe: no band
    assert advice.band is None and advice.validation is not None
    assert advice.validation["inside_band"] is None
    from tcplab.advisor_cli import advice_lines

    assert "no band to compare with" in "\n".join(advice_lines(advice))


@pytest.mark.parametrize(
    ("extra", "names"),
    [
        (["--repeat", "3"], "--repeat"),  # the default value, given: still refused
        (["--duration", "10"], "--duration"),
        (["--omit", "2"], "--omit"),
        (["--no-validate"], "--no-validate"),
        (["--probes", "1,10"], "--probes"),
        (["--probes", "1,2"], "--probes"),
        (["--cross", "10"], "--cross"),
        (["--queue", "droptail"], "--queue"),
        (["--seed", "0"], "--seed"),
    ],
)
def test_flags_of_another_mode_with_probe_are_refused(extra, names, capsys) -> None:
    argv = ["tame", "--max-impact", "0.2", "--probe", "1:100", "--probe", "10:600", *extra]
    assert main(argv) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and names in err


@pytest.mark.parametrize(
    "extra", [["--force"], ["--decide", "upper"], ["--no-validate"], ["--repeat", "3"]]
)
def test_measured_only_flags_with_scenario_are_refused_before_any_run(extra, capsys) -> None:
    assert main(["tame", "--scenario", "1", "--max-impact", "0.2", *extra]) == 2
    out, err = capsys.readouterr()
    assert out == "" and extra[0] in err and "--scenario" in err


def test_a_search_that_is_not_monotone_is_refused() -> None:
    """The full order-2 profile a n^2 + b n + c with c < -b/2 makes the throughput fall from
    1 to 2 flows and rise after: the gain test holds at 3 but not at 2, not a prefix, so the
    binary search's precondition fails. Probes 1, 10, 20 rise overall and stay far from linear
    growth, so only the monotone check can refuse them."""
    a, b, c = 1e-2, 1e-2, -8e-3
    curve = {n: n / math.sqrt(a * n * n + b * n + c) for n in (1, 10, 20)}
    assert 2 / math.sqrt(4 * a + 2 * b + c) < curve[1] < curve[10] < curve[20]
    probe = table_probe(curve)
    with pytest.raises(OutOfModel, match="not monotone"):
        tame_parallel_tcp(probe, 0.3, probes=(1, 10, 20), model="full2", guard=True)
    loose = tame_parallel_tcp(probe, 0.3, probes=(1, 10, 20), model="full2")
    assert not loose.monotone


@pytest.mark.parametrize(
    ("probes", "says"), [("1,2", "too close (ratio 2 < 4)"), ("5,19", "ratio 3.8"),
                         ("1,129", "at most 128 streams")],
)  # fmt: skip
def test_iperf3_probe_levels_are_checked_before_any_run(probes, says, capsys) -> None:
    """Port 9 (discard) is never reached: the levels are refused before iperf3 starts."""
    argv = ["tame", "--iperf3", "127.0.0.1:9", "--max-impact", "0.2", "--probes", probes]
    assert main(argv) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and says in err and "runs of about" not in err
    # levels 4, 16 pass the check, which comes first: the next flag is the one refused
    assert main([*argv[:-1], "4,16", "--duration", "0"]) == 2
    assert "--duration" in capsys.readouterr().err
