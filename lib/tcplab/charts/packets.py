"""Charts of the packet-level validation (Altman et al. 2006, Section V).

Throughput against N with a buffer selector (a Vega-Lite param bound to a drop-down, so it
works on a static page), congestion windows over time, and the distribution of the number
of connections signalled per congestion event.
"""

from __future__ import annotations

import altair as alt
import pandas as pd

from . import FORMULA, OURS, PALETTE, PAPER, ROLE_COLOURS, role_scale

__all__ = [
    "throughput_chart",
    "sum_windows_chart",
    "windows_chart",
    "events_chart",
    "loss_chart",
    "signalled_chart",
]

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


MATHIS = f"{FORMULA}: Mathis et al. 1997"
PADHYE = f"{FORMULA}: Padhye et al. 1998 (time-outs)"


def loss_chart(table: pd.DataFrame) -> alt.LayerChart:
    """One flow under random loss: goodput against p (log-log), with the two formulas."""
    data = table[["p", "rate_pps", "mathis_pps", "padhye_pps", "timeouts"]].round(5)
    names = {"rate_pps": OURS, "mathis_pps": MATHIS, "padhye_pps": PADHYE}
    long = data.melt(id_vars=["p", "timeouts"], var_name="series", value_name="rate")
    long["series"] = long["series"].map(names)
    colour = alt.Color(
        "series:N",
        title=None,
        scale=alt.Scale(
            domain=[OURS, MATHIS, PADHYE],
            range=[ROLE_COLOURS[OURS], ROLE_COLOURS[FORMULA], PALETTE[1]],
        ),
    )
    x = alt.X("p:Q", title="loss probability p", scale=alt.Scale(type="log"))
    y = alt.Y("rate:Q", title="goodput (packets/s)", scale=alt.Scale(type="log"))
    tooltip = ["series:N", "p:Q", alt.Tooltip("rate:Q", format=".1f"), "timeouts:Q"]
    base = alt.Chart(long)
    lines = (
        base.transform_filter(f"datum.series != '{OURS}'")
        .mark_line(strokeDash=[6, 3])
        .encode(x=x, y=y, color=colour, tooltip=tooltip)
    )
    dots = (
        base.transform_filter(f"datum.series == '{OURS}'")
        .mark_point(filled=True, size=60)
        .encode(x=x, y=y, color=colour, tooltip=tooltip)
    )
    return alt.layer(lines, dots).properties(width=420, height=260)


def signalled_chart(table: pd.DataFrame, min_samples: int = 30) -> alt.LayerChart:
    """Fig. 13: P(signalled | window w) against w, one line per DropTail buffer, for the
    windows seen at least ``min_samples`` times; dotted: the overall fraction signalled (what
    a rate-independent policy would give at every w)."""
    data = table[table["samples"] >= min_samples]
    data = data[["buffer", "window", "samples", "z", "rho", "mean_z"]].round(4)
    colour = alt.Color("buffer:O", title="DropTail buffer b", scale=alt.Scale(range=PALETTE))
    x = alt.X("window:Q", title="window w just before the congestion event (packets)")
    y = alt.Y("z:Q", title="P(signalled | w)", scale=alt.Scale(domain=[0, 1]))
    base = alt.Chart(data)
    lines = base.mark_line(point=True).encode(
        x=x,
        y=y,
        color=colour,
        tooltip=["buffer:O", "window:Q", "samples:Q", "z:Q", "rho:Q"],
    )
    flat = (
        alt.Chart(data[["buffer", "mean_z"]].drop_duplicates())
        .mark_rule(strokeDash=[2, 3], strokeWidth=1.5)
        .encode(y="mean_z:Q", color=colour)
    )
    return alt.layer(flat, lines).properties(width=420, height=260)
