"""Charts of the packet-level validation (Altman et al. 2006, Section V).

Throughput against N with a buffer selector (a Vega-Lite param bound to a drop-down, so it
works on a static page), congestion windows over time, and the distribution of the number
of connections signalled per congestion event.
"""

from __future__ import annotations

import altair as alt
import pandas as pd

from . import FORMULA, OURS, PALETTE, PAPER, role_scale

__all__ = ["throughput_chart", "sum_windows_chart", "windows_chart", "events_chart"]

_ROLES = [OURS, FORMULA, PAPER]


def _roles() -> alt.Color:
    return alt.Color("role:N", title=None, scale=role_scale(_ROLES))


def throughput_chart(
    table: pd.DataFrame,
    key: str = "buffer",
    label: str = "buffer b (packets)",
    title: str = "",
    paper: list[dict] | None = None,
) -> alt.LayerChart:
    """Utilisation against N for every value of ``key``; a drop-down highlights one value.

    ``table`` has columns flows, utilisation, theorem1 and ``key``. ``paper`` is a list of
    {flows, utilisation, note} the paper states, drawn as diamonds.
    """
    data = table[["flows", "utilisation", "theorem1", key]].round(5)
    values = sorted(data[key].unique().tolist())
    pick = alt.param(
        name=f"pick_{key}",
        value=values[0],
        bind=alt.binding_select(options=values, name=f"{label} "),
    )
    x = alt.X("flows:Q", title="number of connections N", scale=alt.Scale(domain=[0, 11]))
    y = alt.Y("utilisation:Q", title="throughput / capacity", scale=alt.Scale(domain=[0.7, 1.01]))
    base = alt.Chart(data, title=title)
    others = (
        base.mark_line(strokeWidth=1, color="#bbbbbb")
        .encode(x=x, y=y, detail=f"{key}:N", tooltip=[f"{key}:N", "flows:Q", "utilisation:Q"])
        .add_params(pick)
    )
    mine = base.transform_filter(f"datum.{key} == pick_{key}").transform_calculate(role=f"'{OURS}'")
    line = mine.mark_line(strokeWidth=2.5).encode(x=x, y=y, color=_roles())
    dots = mine.mark_point(filled=True, size=50).encode(
        x=x, y=y, color=_roles(), tooltip=[f"{key}:N", "flows:Q", "utilisation:Q"]
    )
    theory = (
        alt.Chart(data[["flows", "theorem1"]].drop_duplicates())
        .transform_calculate(role=f"'{FORMULA} (Theorem 1)'")
        .mark_line(strokeDash=[6, 3], strokeWidth=2, color="#009E73")
        .encode(x=x, y=alt.Y("theorem1:Q"))
    )
    layers = [others, theory, line, dots]
    if paper:
        layers.append(
            alt.Chart(pd.DataFrame(paper))
            .transform_calculate(role=f"'{PAPER}'")
            .mark_point(shape="diamond", size=170, filled=False, strokeWidth=2.5)
            .encode(x=x, y=y, color=_roles(), tooltip=["note:N"])
        )
    return alt.layer(*layers).properties(width=420, height=260)


def sum_windows_chart(table: pd.DataFrame, queue: str = "droptail") -> alt.FacetChart:
    """Fig. 8: the sum of the congestion windows over time, one panel per (N, buffer)."""
    data = table[(table["flow"] == -1) & (table["queue"] == queue)]
    data = data[["flows", "buffer", "time", "cwnd"]].round(4)
    return (
        alt.Chart(data)
        .transform_calculate(role=f"'{OURS}'")
        .mark_line(strokeWidth=1.2, interpolate="step-after")
        .encode(
            x=alt.X("time:Q", title="time after warm-up (s)"),
            y=alt.Y("cwnd:Q", title="sum of windows (packets)"),
            color=alt.Color("role:N", title=None, scale=role_scale([OURS]), legend=None),
        )
        .properties(width=260, height=120)
        .facet(
            row=alt.Row("flows:O", title="N"),
            column=alt.Column("buffer:O", title="DropTail buffer b (packets)"),
        )
        .resolve_scale(y="independent")
    )


def windows_chart(
    table: pd.DataFrame, queue: str, buffer: int, flows: int, span: float = 5.0, title: str = ""
) -> alt.VConcatChart:
    """Figs. 9 and 12: each connection's window (top) and their sum (bottom) for ``span`` s."""
    data = table[
        (table["queue"] == queue)
        & (table["buffer"] == buffer)
        & (table["flows"] == flows)
        & (table["time"] <= span)
    ][["time", "flow", "cwnd"]].round(4)
    x = alt.X("time:Q", title="time after warm-up (s)")
    each = (
        alt.Chart(data[data["flow"] >= 0], title=title)
        .mark_line(strokeWidth=1.1, interpolate="step-after")
        .encode(
            x=x,
            y=alt.Y("cwnd:Q", title="window (packets)"),
            color=alt.Color("flow:N", title="connection", scale=alt.Scale(range=PALETTE)),
        )
        .properties(width=460, height=170)
    )
    total = (
        alt.Chart(data[data["flow"] < 0])
        .transform_calculate(role=f"'{OURS}'")
        .mark_line(strokeWidth=1.5, interpolate="step-after")
        .encode(
            x=x,
            y=alt.Y("cwnd:Q", title="sum of windows"),
            color=alt.Color("role:N", title=None, scale=role_scale([OURS]), legend=None),
        )
        .properties(width=460, height=110)
    )
    return alt.vconcat(each, total).resolve_scale(color="independent")


def events_chart(table: pd.DataFrame) -> alt.Chart:
    """Fig. 15: P(M >= m), M the connections signalled in one congestion event."""
    data = table.assign(setting=table["queue"] + ", b = " + table["buffer"].astype(str))[
        ["setting", "m", "ccdf", "mean_m", "events"]
    ].round(4)
    return (
        alt.Chart(data)
        .mark_line(point=True)
        .encode(
            x=alt.X("m:Q", title="connections signalled in one event, m"),
            y=alt.Y("ccdf:Q", title="P(M ≥ m)", scale=alt.Scale(domain=[0, 1])),
            color=alt.Color("setting:N", title=None, scale=alt.Scale(range=PALETTE)),
            tooltip=["setting:N", "m:Q", "ccdf:Q", "mean_m:Q", "events:Q"],
        )
        .properties(width=420, height=240)
    )
