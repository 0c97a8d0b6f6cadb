"""TameParallelTCP (tcplab.tame): binary search, the impact limit, the marginal-gain stop, and
the three kinds of probe.

On a curve made from a known profile p'_n = a n^2 + b the advisor's answer has a closed form:
eq. 18 is at most X while a n^2 + b <= (a + b) / (1 - X)^2, so n* = floor(sqrt(((a + b) /
(1 - X)^2 - b) / a)).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from tcplab import tame
from tcplab.chapters.lu.scenarios import run_scenario


def _curve(a: float, b: float):  # noqa: ANN202
    calls: list[int] = []

    def probe(n: int) -> float:
        calls.append(n)
        return n / math.sqrt(a * n * n + b)

    return probe, calls


@given(st.integers(0, 40), st.integers(0, 40))
def test_binary_search_finds_the_end_of_a_true_prefix(length: int, prefix: int) -> None:
    candidates = list(range(3, 3 + 2 * length, 2))
    cut = min(prefix, length)
    found = tame.largest_true(lambda n: candidates.index(n) < cut, candidates)
    assert found == (candidates[cut - 1] if cut else None)


@pytest.mark.parametrize(
    ("a", "b", "limit"), [(1e-4, 1e-2, 0.2), (5e-4, 1e-3, 0.5), (2e-5, 4e-2, 0.05)]
)
def test_the_choice_is_the_closed_form_largest_n(a: float, b: float, limit: float) -> None:
    probe, calls = _curve(a, b)
    advice = tame.tame_parallel_tcp(probe, limit, max_flows=200, min_gain=0.0)
    expected = min(200, math.floor(math.sqrt(((a + b) / (1 - limit) ** 2 - b) / a)))
    assert advice.flows == expected
    assert advice.impact <= limit < float(advice.fit.impact(expected + 1))
    assert advice.throughput == pytest.approx(probe(expected), rel=1e-9)
    assert advice.stopped_by == "impact"
    assert sorted(calls[:2]) == [1, 10] and advice.probes == pytest.approx(
        {1: probe(1), 10: probe(10)}
    )


def test_probes_are_sent_once_each() -> None:
    probe, calls = _curve(1e-4, 1e-2)
    tame.tame_parallel_tcp(probe, 0.3, probes=(2, 12))
    assert calls == [2, 12]


def test_the_search_stops_where_one_more_flow_gains_too_little() -> None:
    # a saturated link: BW constant, so no flow after the first gains anything
    advice = tame.tame_parallel_tcp(lambda n: 1e6, 0.9, min_gain=0.01)
    assert (advice.flows, advice.stopped_by) == (1, "gain")
    # a curve that flattens: the relative gain (n+1)/n sqrt((a n^2 + b)/(a (n+1)^2 + b)) - 1
    a, b = 1e-4, 1e-2
    probe, _ = _curve(a, b)
    advice = tame.tame_parallel_tcp(probe, 0.99, min_gain=0.02, max_flows=100)
    gains = [probe(n + 1) / probe(n) - 1 for n in range(1, 100)]
    first_small = next(n for n, g in zip(range(1, 100), gains, strict=False) if g < 0.02)
    assert (advice.flows, advice.stopped_by) == (first_small, "gain")


def test_no_limit_reached_is_said() -> None:
    linear = tame.tame_parallel_tcp(lambda n: 1e5 * n, 0.5, max_flows=31)
    assert (linear.flows, linear.stopped_by) == (31, "limit")
    assert linear.impact == pytest.approx(0.0, abs=1e-12)
    curve = linear.curve()
    assert list(curve["flows"]) == list(range(1, 32))
    assert curve["throughput"].to_numpy() == pytest.approx(1e5 * np.arange(1, 32), rel=1e-9)


def test_candidates_restrict_the_choice() -> None:
    probe, _ = _curve(1e-4, 1e-2)
    free = tame.tame_parallel_tcp(probe, 0.2, min_gain=0.0)
    grid = [1, 2, 5, 10, 15, 20, 31]
    held = tame.tame_parallel_tcp(probe, 0.2, min_gain=0.0, candidates=grid)
    assert held.flows == max(n for n in grid if n <= free.flows)


@pytest.mark.parametrize(
    ("kwargs", "probe", "words"),
    [
        ({"max_impact": 0.0}, None, ["max_impact=0", "(0, 1)"]),
        ({"max_impact": 1.0}, None, ["max_impact=1", "(0, 1)"]),
        ({"max_impact": 0.2, "probes": (4, 4)}, None, ["probes=[4, 4]", "same number"]),
        ({"max_impact": 0.2}, lambda n: 0.0, ["probe(1)=0", "(0, inf)"]),
        ({"max_impact": 0.2}, lambda n: -5.0 if n == 10 else 1.0, ["probe(10)=-5"]),
        ({"max_impact": 0.2}, lambda n: math.inf, ["probe(1)=inf"]),
        ({"max_impact": 0.2, "min_gain": -0.1}, None, ["min_gain=-0.1"]),
    ],
)
def test_bad_input_is_named(kwargs, probe, words) -> None:
    with pytest.raises(ValueError) as error:
        tame.tame_parallel_tcp(probe or (lambda n: float(n)), **kwargs)
    for word in words:
        assert word in str(error.value)


def test_a_recorded_table_is_a_probe() -> None:
    table = pd.DataFrame({"flows": [1, 5, 10], "bw": [1.0, 4.0, 6.0]})
    probe = tame.table_probe(table, "bw")
    assert (probe(1), probe(10)) == (1.0, 6.0)
    with pytest.raises(ValueError, match=r"flows=2 is not in the recorded table \(\[1, 5, 10\]\)"):
        probe(2)
    assert tame.table_probe({1: 2.0, 10: 9.0})(10) == 9.0
    with pytest.raises(ValueError, match="several rows"):
        tame.table_probe(pd.concat([table, table]), "bw")


def test_the_packet_model_is_a_probe() -> None:
    probe = tame.PacketProbe(1, cross=3, seed=2)
    value = probe(4)
    assert value == run_scenario(1, 4, 3, "droptail", 2).parallel_bytes_per_s
    assert probe.run(4) is probe.runs[4]  # run once, kept
    with pytest.raises(ValueError, match="scenario=9"):
        tame.PacketProbe(9)


def test_a_real_transfer_is_a_probe() -> None:
    """Paced at 1 MB/s per connection on this machine's loopback: 3 connections move about
    three times what one does (a loose bound: the machine may be busy)."""
    with tame.serve_bytes(rate=1e6) as port:
        probe = tame.transfer_probe("127.0.0.1", port, seconds=1.0)
        one, three = probe(1), probe(3)
    assert 0.3e6 < one < 1.5e6
    assert 1.8 < three / one < 4.0
