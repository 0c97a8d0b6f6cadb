"""The what-if options of simulate_qiu: a later measurement, a window trace and a delay per
group's access link. Reading the state never changes the run (with the defaults, or with only
a trace, the numbers are the plain run's, to the bit), and a window outside the run is
refused."""

from __future__ import annotations

import dataclasses
import math

import pytest

from tcplab.chapters.lu.rtts import two_rtt_row
from tcplab.chapters.lu.runs import ROW_NUMBERS
from tcplab.chapters.lu.scenarios import PARALLEL_START, scenario_setup
from tcplab.packet import RunLength
from tcplab.packet.qiu import simulate_qiu


def _setup(queue: str = "droptail") -> object:
    setup = scenario_setup(1, 2, 2, queue, seed=7)
    return dataclasses.replace(setup, length=RunLength(25.0, PARALLEL_START))


def _same(a: float, b: float) -> bool:
    return a == b or (math.isnan(a) and math.isnan(b))


@pytest.mark.parametrize("queue", ["droptail", "red"])
def test_a_trace_reads_the_window_without_changing_the_run(queue: str) -> None:
    setup = _setup(queue)
    plain = simulate_qiu(setup).summary()  # type: ignore[arg-type]
    traced = simulate_qiu(setup, times=[10.5, 12.0, 20.0])  # type: ignore[arg-type]
    for name in ROW_NUMBERS:
        assert _same(traced.summary()[name], plain[name]), name
    assert traced.trace is not None and list(traced.trace["time"]) == [10.5, 12.0, 20.0]
    assert (traced.trace["cwnd"] >= 1).all()


def test_a_later_measurement_counts_only_its_window() -> None:
    setup = _setup()
    whole = simulate_qiu(setup)  # type: ignore[arg-type]
    late = simulate_qiu(setup, measure_from=20.0)  # type: ignore[arg-type]
    # the same run: the packets of [10, 25] are those of [10, 20] plus those of [20, 25]
    assert late.packets == whole.packets
    assert late.parallel_bytes_per_s != whole.parallel_bytes_per_s
    assert late.parallel_bytes_per_s > 0


def test_a_window_outside_the_run_is_refused() -> None:
    with pytest.raises(ValueError, match="measure_from=30"):
        simulate_qiu(_setup(), measure_from=30.0)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="times must lie"):
        simulate_qiu(_setup(), times=[5.0])  # type: ignore[arg-type]


@pytest.mark.parametrize("queue", ["droptail", "red"])
def test_two_rtts_with_equal_delays_is_the_plain_run_to_the_bit(queue: str) -> None:
    setup = _setup(queue)
    plain = simulate_qiu(setup).summary()  # type: ignore[arg-type]
    row = two_rtt_row(setup, 4.0, 4.0)  # type: ignore[arg-type]
    for name in ROW_NUMBERS:
        assert _same(row[name], plain[name]), name


def test_a_longer_cross_access_delay_lengthens_only_the_cross_traffic_s_round_trip() -> None:
    setup = _setup()
    same = two_rtt_row(setup, 4.0, 4.0)  # type: ignore[arg-type]
    longer = two_rtt_row(setup, 33.0, 4.0)  # type: ignore[arg-type]
    # 29 ms more each way on L1: the cross traffic's smoothed RTT grows by about 58 ms
    assert longer["cross_rtt_s"] - same["cross_rtt_s"] == pytest.approx(0.058, abs=0.03)
    assert longer["cross_rtt_s"] > longer["rtt_s"]
    with pytest.raises(ValueError, match="cross_access_delay_ms=-1"):
        two_rtt_row(setup, -1.0, 4.0)  # type: ignore[arg-type]
