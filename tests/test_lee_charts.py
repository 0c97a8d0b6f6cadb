"""The Lee chapter's charts: built from the quick data, described with their numbers."""

from __future__ import annotations

import pandas as pd
import pytest

from tcplab import registry
from tcplab.chapters.lee import charts


@pytest.fixture(scope="module")
def table() -> pd.DataFrame:
    return registry.run("lee-transfers", scale="quick")


def test_charts_carry_a_description(table: pd.DataFrame) -> None:
    for chart in (
        charts.aggregate_boxes(table),
        charts.per_flow_boxes(table),
        charts.repetitions_chart(table, 50),
        charts.meeting_chart(table, "shared", 12.5e6),
    ):
        spec = chart.to_dict()
        assert "flows" in spec["description"] or "flow" in spec["description"]
    assert (
        "Altman Theorem 1" in charts.meeting_chart(table, "shared", 12.5e6).to_dict()["description"]
    )


def test_the_saturation_chart_describes_each_variant(table: pd.DataFrame) -> None:
    from tcplab.chapters.lee.analysis import with_variants

    variants = registry.run("lee-saturation", scale="quick")
    chart = charts.saturation_chart(with_variants(table, variants), 12.5e6)
    text = chart.to_dict()["description"]
    assert "shared (as shipped)" in text and "SACK, no cross traffic" in text
