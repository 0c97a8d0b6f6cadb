"""A chart's role legend (ours, formula, paper) lists exactly the roles its layers draw.

Each chart is built from the shipped tables (as the chapter notebooks build it) or small data,
and its Vega-Lite spec is walked: the roles a layer sets (a ``calculate`` of ``role``, or the
``role`` column of its data) against the domain of every ``role`` colour scale.
"""

from __future__ import annotations

import io
from collections.abc import Callable
from typing import Any

import altair as alt
import pandas as pd
import pytest
from spec_tools import units

from tcplab import cache
from tcplab.charts import FORMULA, OURS, PAPER, ROLE_COLOURS


def _table(name: str) -> pd.DataFrame:
    loaded = cache.load(cache.Entry(name))
    assert loaded is not None, f"{name} is not shipped in data/"
    return loaded[0]


def _values(data: Any, datasets: dict[str, Any]) -> pd.DataFrame | None:
    """The rows of a spec's ``data`` (inline or named), or None when it has none."""
    if not isinstance(data, dict):
        return None
    values = datasets.get(data["name"]) if "name" in data else data.get("values")
    if values is None:
        return None
    if isinstance(values, str):  # the book's CSV data transformer
        return pd.read_csv(io.StringIO(values), dtype=str) if values.strip() else pd.DataFrame()
    return pd.DataFrame(values)


def _set_roles(unit: dict[str, Any], data: Any, datasets: dict[str, Any]) -> set[str]:
    """The roles a view draws: the last ``calculate`` of ``role``, else its data's roles."""
    roles: set[str] = set()
    for step in unit.get("transform", []):
        if step.get("as") == "role" and "calculate" in step:
            roles = {step["calculate"].strip().strip("'\"")}
    if roles:
        return roles
    rows = _values(data, datasets)
    if rows is not None and "role" in rows.columns:
        return set(rows["role"].dropna())
    return set()


def _role_colour(unit: dict[str, Any]) -> dict[str, Any] | None:
    for channel in ("color", "fill", "stroke"):
        encoding = unit.get("encoding", {}).get(channel)
        if isinstance(encoding, dict) and encoding.get("field") == "role":
            return encoding
    return None


def _check(chart: alt.TopLevelMixin) -> list[str]:
    """The roles each legend lists: asserts they are drawn, in order and their colours."""
    spec = chart.to_dict()
    datasets = spec.get("datasets", {})
    views = list(units(spec))
    drawn = set().union(*(_set_roles(unit, data, datasets) for unit, data in views))
    domains: list[str] = []
    for unit, data in views:
        colour = _role_colour(unit)
        if colour is None:
            continue
        domain = colour["scale"]["domain"]
        assert set(domain) <= drawn, f"the legend lists {set(domain) - drawn}, never drawn"
        assert _set_roles(unit, data, datasets) <= set(domain)
        assert domain == [role for role in ROLE_COLOURS if role in domain]  # ours, formula, paper
        assert colour["scale"]["range"] == [ROLE_COLOURS[role] for role in domain]
        domains += [role for role in domain if role not in domains]
    assert domains, "no role legend"
    return domains


def _bmc() -> dict[str, Callable[[], alt.TopLevelMixin]]:
    from tcplab.chapters.bmc import charts, claims

    def fig511() -> alt.TopLevelMixin:
        names = ("bmc-weighted", "bmc-weighted-35")
        return charts.fig511_chart(claims.weighted_grid({name: _table(name) for name in names}))

    return {
        "bmc.weights_chart": lambda: charts.weights_chart(_table("bmc-response")),
        "bmc.fig511_chart": fig511,
    }


def _morris() -> dict[str, Callable[[], alt.TopLevelMixin]]:
    from tcplab.chapters.morris import charts

    return {
        "morris.series_chart": lambda: charts.series_chart(_table("morris-series"), 30),
        "morris.loss_chart": lambda: charts.loss_chart(_table("morris-loss")),
        "morris.loss_histogram_chart": lambda: charts.loss_histogram_chart(_table("morris-loss")),
        "morris.detail_chart": lambda: charts.detail_chart(_table("morris-loss")),
        "morris.stages_chart": lambda: charts.stages_chart(
            _table("morris-loss"), (60, 300, 350, 1500)
        ),
        "morris.buffers_few_chart": lambda: charts.buffers_few_chart(_table("morris-buffers-few")),
    }


def _packets() -> dict[str, Callable[[], alt.TopLevelMixin]]:
    from tcplab.chapters.packets import charts

    paper = [{"flows": 1, "utilisation": 0.75, "note": "Sec. I: 75% for one connection"}]
    return {
        "packets.throughput_chart": lambda: charts.throughput_chart(
            _table("packets-droptail"), title="DropTail", paper=paper
        ),
        "packets.throughput_chart (no paper)": lambda: charts.throughput_chart(
            _table("packets-red"), title="RED"
        ),
    }


def _insensitivity() -> dict[str, Callable[[], alt.TopLevelMixin]]:
    from tcplab.chapters.insensitivity import charts, claims, experiments

    def throughput(paper: bool) -> alt.TopLevelMixin:
        table = _table("insensitivity-throughput")
        gains = experiments.gains(table)
        if paper:
            return charts.throughput_explorer(table, gains, claims.FIG2_PAPER, claims.GAIN_PAPER)
        return charts.throughput_explorer(table, gains)

    def heterogeneous(eq5: bool) -> alt.TopLevelMixin:
        table = _table("insensitivity-heterogeneous")
        return charts.heterogeneous_chart(table if eq5 else table.assign(eq5=float("nan")))

    example1 = "insensitivity-example1"
    return {
        "insensitivity.throughput_explorer": lambda: throughput(True),
        "insensitivity.throughput_explorer (no paper)": lambda: throughput(False),
        "insensitivity.example1_explorer": lambda: charts.example1_explorer(
            _table(example1), claims.PAPER_EXAMPLE1
        ),
        "insensitivity.example1_chart": lambda: charts.example1_chart(_table(example1), 0.25),
        "insensitivity.multtcp_chart": lambda: charts.multtcp_chart(
            _table("insensitivity-multtcp"),
            claims.PAPER_MULTTCP,
            claims.PAPER_MULTTCP_N,
            claims.PAPER_MULTTCP_RATIO,
        ),
        "insensitivity.rtt_chart": lambda: charts.rtt_chart(
            _table("insensitivity-rtt"), claims.PAPER_RTT, claims.TOL_EXAMPLE1
        ),
        "insensitivity.heterogeneous_chart": lambda: heterogeneous(True),
        "insensitivity.heterogeneous_chart (no eq. 5)": lambda: heterogeneous(False),
    }


def _moments() -> dict[str, Callable[[], alt.TopLevelMixin]]:
    from tcplab.chapters.moments import charts, experiments

    def second_moment(paper: bool) -> alt.TopLevelMixin:
        table = experiments.with_exact(_table("moments-table"))
        if not paper:
            table = table.assign(paper=float("nan"))
        return charts.second_moment_chart(table, experiments.POLICIES)

    return {
        "moments.second_moment_chart": lambda: second_moment(True),
        "moments.second_moment_chart (no paper)": lambda: second_moment(False),
        "moments.distribution_chart": lambda: charts.distribution_chart(
            _table("moments-distributions"), experiments.POLICIES
        ),
        "moments.largest_rate_chart": lambda: charts.largest_rate_chart(
            _table("moments-largest-rate")
        ),
        "moments.beatdown_chart": lambda: charts.beatdown_chart(
            _table("moments-beatdown-path"), _table("moments-beatdown-tags")
        ),
    }


def _sawtooth() -> dict[str, Callable[[], alt.TopLevelMixin]]:
    from tcplab.chapters.sawtooth import charts, claims

    return {
        "sawtooth.sawtooth_explorer": lambda: charts.sawtooth_explorer(
            _table("sawtooth-paths"),
            _table("sawtooth-utilisation"),
            paper_value=claims.PAPER_TCP_UTILISATION,
        )
    }


CHARTS = {**_bmc(), **_morris(), **_packets(), **_insensitivity(), **_moments(), **_sawtooth()}

#: the legend each chart should show
EXPECTED = {
    "bmc.weights_chart": [OURS, FORMULA],
    "bmc.fig511_chart": [FORMULA, PAPER],
    "morris.series_chart": [OURS],
    "morris.loss_chart": [OURS, PAPER],
    "morris.loss_histogram_chart": [OURS, PAPER],
    "morris.detail_chart": [OURS, FORMULA, PAPER],
    "morris.stages_chart": [OURS, FORMULA],
    "morris.buffers_few_chart": [OURS],
    "packets.throughput_chart": [OURS, FORMULA, PAPER],
    "packets.throughput_chart (no paper)": [OURS, FORMULA],
    "insensitivity.throughput_explorer": [OURS, FORMULA, PAPER],
    "insensitivity.throughput_explorer (no paper)": [OURS, FORMULA],
    "insensitivity.example1_explorer": [OURS, FORMULA, PAPER],
    "insensitivity.example1_chart": [OURS, FORMULA],
    "insensitivity.multtcp_chart": [OURS, FORMULA, PAPER],
    "insensitivity.rtt_chart": [OURS, FORMULA, PAPER],
    "insensitivity.heterogeneous_chart": [OURS, FORMULA, PAPER],
    "insensitivity.heterogeneous_chart (no eq. 5)": [OURS, FORMULA],
    "moments.second_moment_chart": [OURS, FORMULA, PAPER],
    "moments.second_moment_chart (no paper)": [OURS, FORMULA],
    "moments.distribution_chart": [OURS, PAPER],
    "moments.largest_rate_chart": [OURS, PAPER],
    "moments.beatdown_chart": [OURS, FORMULA, PAPER],
    "sawtooth.sawtooth_explorer": [OURS, FORMULA, PAPER],
}


@pytest.mark.parametrize("name", list(CHARTS))
def test_a_role_legend_lists_only_the_roles_its_chart_draws(name: str) -> None:
    assert _check(CHARTS[name]()) == EXPECTED[name]
