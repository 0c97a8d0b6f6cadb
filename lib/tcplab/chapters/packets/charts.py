"""Charts of the packet-level validation (Altman et al. 2006, Section V).

Throughput against N with a buffer selector (a Vega-Lite param bound to a drop-down, so it
works on a static page), the threshold-dropper's policies and hold time, congestion windows
over time, the distribution of the number of connections signalled per congestion event, and
who is signalled given the window.
"""

from __future__ import annotations

import altair as alt
import pandas as pd

from tcplab.charts import FORMULA, OURS, PALETTE, PAPER, ROLE_COLOURS, role_colour, role_scale
from tcplab.packet.queues import SELECTION_NAMES

__all__ = [
    "throughput_chart",
    "threshold_chart",
    "hold_chart",
    "sum_windows_chart",
    "windows_chart",
    "events_chart",
    "loss_chart",
    "signalled_chart",
]

_ROLES = [OURS, FORMULA, PAPER]
_ROLE = role_colour(_ROLES)


def throughput_chart(
    table: pd.DataFrame,
    key: str = "buffer",
    label: str = "buffer b (packets)",
    title: str = "",
    paper: list[dict] | None = None,
) -> alt.LayerChart | alt.FacetChart:
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
    x = _flows_axis(data)
    y = _utilisation_axis()
    base = alt.Chart(data, title=title)
    others = (
        base.mark_line(strokeWidth=1, color="#bbbbbb")
        .encode(x=x, y=y, detail=f"{key}:N", tooltip=[f"{key}:N", "flows:Q", "utilisation:Q"])
        .add_params(pick)
    )
    mine = base.transform_filter(f"datum.{key} == pick_{key}").transform_calculate(role=f"'{OURS}'")
    line = mine.mark_line(strokeWidth=2.5).encode(x=x, y=y, color=_ROLE)
    dots = mine.mark_point(filled=True, size=50).encode(
        x=x, y=y, color=_ROLE, tooltip=[f"{key}:N", "flows:Q", "utilisation:Q"]
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
            .encode(x=x, y=y, color=_ROLE, tooltip=["note:N"])
        )
    return alt.layer(*layers).properties(width=420, height=260)


def _flows_axis(data: pd.DataFrame) -> alt.X:
    top = int(data["flows"].max()) + 1
    return alt.X("flows:Q", title="number of connections N", scale=alt.Scale(domain=[0, top]))


def _utilisation_axis(field: str = "utilisation") -> alt.Y:
    scale = alt.Scale(domain=[0.6, 1.01])
    return alt.Y(f"{field}:Q", title="throughput / capacity", scale=scale)


_WHERE = {"random": "Fig. 11 left", "largest": "Fig. 11 right", "first": "the paper's wording"}
SELECTION_TITLES = {s: f"{SELECTION_NAMES[s]} ({_WHERE[s]})" for s in _WHERE}


def threshold_chart(table: pd.DataFrame) -> alt.FacetChart:
    """Fig. 11: utilisation against N under the threshold-dropper, one panel per selection
    rule, one line per (Th, b), Theorem 1 dashed."""
    data = table[["flows", "utilisation", "theorem1", "threshold", "buffer", "select"]].copy()
    data["setting"] = (
        "Th = " + data["threshold"].astype(str) + ", b = " + data["buffer"].astype(str)
    )
    data["policy"] = data["select"].map(SELECTION_TITLES)
    data = data.drop(columns=["threshold", "buffer", "select"]).round(5)
    order = [SELECTION_TITLES[s] for s in SELECTION_TITLES if s in set(table["select"])]
    x, y = _flows_axis(data), _utilisation_axis()
    lines = (
        alt.Chart()
        .mark_line(point=True, strokeWidth=1.8)
        .encode(
            x=x,
            y=y,
            color=alt.Color("setting:N", title=None, scale=alt.Scale(range=PALETTE)),
            tooltip=["policy:N", "setting:N", "flows:Q", "utilisation:Q", "theorem1:Q"],
        )
    )
    theory = (
        alt.Chart()
        .mark_line(strokeDash=[6, 3], strokeWidth=2, color=ROLE_COLOURS[FORMULA])
        .encode(x=x, y=_utilisation_axis("theorem1"))
    )
    return (
        alt.layer(theory, lines, data=data)
        .properties(width=250, height=220)
        .facet(column=alt.Column("policy:N", title=None, sort=order))
    )


def hold_chart(table: pd.DataFrame) -> alt.VConcatChart:
    """Utilisation (top, Theorem 1 dashed) and time-outs (bottom) against the threshold-
    dropper's hold time, one panel per N, one line per selection rule."""
    data = table[["flows", "select", "hold_rtts", "utilisation", "theorem1", "timeouts"]].copy()
    data["policy"] = data["select"].map(SELECTION_TITLES)
    data = data.drop(columns="select").round(5)
    x = alt.X("hold_rtts:Q", title="hold time (RTTs)")
    colour = alt.Color(
        "policy:N", title=None, scale=alt.Scale(range=PALETTE), legend=alt.Legend(labelLimit=320)
    )
    tooltip = ["policy:N", "flows:Q", "hold_rtts:Q", "utilisation:Q", "timeouts:Q"]
    util = alt.layer(  # lines first: a lone horizontal rule has an empty bounding box
        alt.Chart()
        .mark_line(point=True)
        .encode(x=x, y=_utilisation_axis(), color=colour, tooltip=tooltip),
        alt.Chart()
        .mark_rule(strokeDash=[6, 3], strokeWidth=2, color=ROLE_COLOURS[FORMULA])
        .encode(y=alt.Y("mean(theorem1):Q", scale=alt.Scale(domain=[0.6, 1.01]))),
        data=data,
    ).properties(width=200, height=180)
    outs = (
        alt.Chart()
        .mark_line(point=True)
        .encode(
            x=x,
            y=alt.Y("timeouts:Q", title="time-outs in the run"),
            color=colour,
            tooltip=tooltip,
        )
        .properties(width=200, height=120)
    )
    column = alt.Column("flows:O", title="N")
    return alt.vconcat(
        util.facet(column=column),
        alt.layer(outs, data=data).facet(column=column),
    )


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
    table: pd.DataFrame,
    queue: str,
    buffer: int,
    flows: int,
    span: float = 5.0,
    title: str | list[str] = "",
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


def loss_chart(table: pd.DataFrame) -> alt.LayerChart | alt.FacetChart:
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


QUEUE_TITLES = {"droptail": "DropTail (Fig. 13)", "red": "RED (Fig. 14)"}


def signalled_chart(table: pd.DataFrame, min_samples: int = 30) -> alt.FacetChart:
    """Figs. 13 and 14: P(signalled | window w) against w, one panel per queue, one line per
    buffer, for the windows seen at least ``min_samples`` times; dotted: the overall
    fraction signalled (what a rate-independent policy would give at every w)."""
    data = table[table["samples"] >= min_samples]
    data = data[["queue", "buffer", "window", "samples", "z", "rho", "mean_z"]].copy()
    data["queue"] = data["queue"].map(QUEUE_TITLES)
    data = data.round(4)
    colour = alt.Color("buffer:O", title="buffer b", scale=alt.Scale(range=PALETTE))
    x = alt.X("window:Q", title="window w before the event (packets)")
    y = alt.Y("z:Q", title="P(signalled | w)", scale=alt.Scale(domain=[0, 1]))
    lines = (
        alt.Chart()
        .mark_line(point=True)
        .encode(
            x=x,
            y=y,
            color=colour,
            tooltip=["queue:N", "buffer:O", "window:Q", "samples:Q", "z:Q", "rho:Q"],
        )
    )
    flat = (
        alt.Chart()
        .mark_rule(strokeDash=[2, 3], strokeWidth=1.5)
        .encode(y="mean(mean_z):Q", color=colour)
    )
    order = [QUEUE_TITLES[q] for q in QUEUE_TITLES]
    return (
        alt.layer(flat, lines, data=data)
        .properties(width=300, height=240)
        .facet(column=alt.Column("queue:N", title=None, sort=order))
    )
