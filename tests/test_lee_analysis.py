"""The paper's definitions of aggregate and per-flow throughput, on a table made by hand."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from tcplab.chapters.lee.analysis import (
    aggregates,
    clusters,
    growth,
    meeting,
    per_flow,
    saturation_curves,
    spread,
)


def _table() -> pd.DataFrame:
    rows = []
    # repetition 0: two flows, 1 MB each, done at 1 s and 4 s; repetition 1 has a failed flow
    for rep, times in ((0, (1.0, 4.0)), (1, (2.0, math.nan))):
        for i, t in enumerate(times):
            rows.append({"path": "p", "flows": 2, "repetition": rep, "transfer": i,
                         "completion_s": t, "bytes": 1_000_000, "timeouts": i})  # fmt: skip
    return pd.DataFrame(rows)


def test_definitions_by_hand() -> None:
    agg = aggregates(_table())
    assert list(agg["repetition"]) == [0]  # the failed repetition is left out
    assert agg["aggregate_bytes_per_s"].iloc[0] == pytest.approx(2e6 / 4.0)
    assert agg["mean_per_flow_bytes_per_s"].iloc[0] == pytest.approx(2e6 / 4.0 / 2)
    assert list(per_flow(_table())["bytes_per_s"]) == pytest.approx([1e6, 2.5e5])
    c = clusters(_table(), 2).iloc[0]
    assert (c["share_with_timeout"], c["median_with_timeout"]) == (0.5, 2.5e5)


def test_both_readings_of_the_aggregate_by_hand() -> None:
    """Repetition 0: 2 MB done at 1 s and 2 MB done at 4 s. Bytes over the last completion:
    2 MB / 4 s = 0.5 MB/s; the sum of the flows' own rates: 1 + 0.25 = 1.25 MB/s."""
    agg = aggregates(_table()).iloc[0]
    assert agg["aggregate_bytes_per_s"] == pytest.approx(0.5e6)
    assert agg["sum_of_rates_bytes_per_s"] == pytest.approx(1.25e6)
    assert agg["mean_rate_bytes_per_s"] == pytest.approx(0.625e6)


def test_spread_is_the_ratio_of_quantiles() -> None:
    sizes = (1e5, 2e5, 3e5, 4e5, 5e5)
    rows = [{"path": "p", "flows": 5, "repetition": 0, "transfer": i, "completion_s": 1.0,
             "bytes": b, "timeouts": 0} for i, b in enumerate(sizes)]  # fmt: skip
    out = spread(pd.DataFrame(rows), (0.25, 0.75)).iloc[0]
    assert (out["q25"], out["q75"]) == (2e5, 4e5)  # numpy's linear quantiles of 5 points
    assert out["ratio"] == pytest.approx(2.0)


def test_meeting_uses_theorem1_and_the_probes() -> None:
    rows = [{"path": "p", "flows": n, "repetition": 0, "transfer": 0, "completion_s": 1.0,
             "bytes": b, "timeouts": 0} for n, b in ((10, 6e6), (20, 8e6), (30, 9e6))]  # fmt: skip
    out = meeting(pd.DataFrame(rows), "p", 10e6).set_index("flows")
    assert out.loc[10, "altman"] == pytest.approx(1 - 1 / 31)  # 1 - 1/(1 + 3N)
    assert out.loc[10, "lu"] == pytest.approx(0.6) and out.loc[20, "lu"] == pytest.approx(0.8)
    assert out.loc[30, "measured"] == pytest.approx(0.9)


def test_saturation_curves_and_growth_by_hand() -> None:
    rows = []
    # path q: at 10 flows two repetitions (last completions 2 s and 4 s; medians 1 s and 2 s),
    # at 20 flows one (all done at 1 s); every transfer 1 MB; 3 transfers in 10 at 10 flows
    # had a time-out
    for rep, (fast, slow) in enumerate(((1.0, 2.0), (2.0, 4.0))):
        for i in range(10):
            t = slow if i == 9 else fast
            rows.append({"path": "q", "flows": 10, "repetition": rep, "transfer": i,
                         "completion_s": t, "bytes": 1e6, "timeouts": int(i < 3)})  # fmt: skip
    for i in range(20):
        rows.append({"path": "q", "flows": 20, "repetition": 0, "transfer": i,
                     "completion_s": 1.0, "bytes": 1e6, "timeouts": 0})  # fmt: skip
    curves = saturation_curves(pd.DataFrame(rows), 20e6).set_index("flows")
    # aggregates at 10 flows: 10 MB / 2 s and 10 MB / 4 s; median 3.75 MB/s of 20 MB/s
    assert curves.loc[10, "share"] == pytest.approx((5e6 + 2.5e6) / 2 / 20e6)
    assert curves.loc[20, "share"] == pytest.approx(1.0)
    assert curves.loc[10, "straggle"] == pytest.approx(2.0)  # 2/1 and 4/2
    assert curves.loc[10, "with_timeout"] == pytest.approx(0.3)
    g = growth(curves.reset_index()).iloc[0]
    assert (g["top"], g["growth"]) == (20, pytest.approx(1.0 / 0.1875))
