"""Charts of the packet-level validation (Altman et al. 2006, Section V).

Throughput against N with a buffer selector (a Vega-Lite param bound to a drop-down, so it
works on a static page), the threshold-dropper's policies and hold time, congestion windows
over time, the distribution of the number of connections signalled per congestion event, and
who is signalled given the window.
"""

from __future__ import annotations

from typing import Any

import altair as alt
import pandas as pd

from tcplab.charts import (
    FORMULA,
    HIGHLIGHT_ABOVE,
    OURS,
    PALETTE,
    PALETTE_10,
    PAPER,
    ROLE_COLOURS,
    category_range,
    describe,
    highlight,
    role_colour,
    role_scale,
)
from tcplab.packet.queues import SELECTION_NAMES

#: the width (px) of a single view that fills the book's column on a desktop (784 px, with
#: room for the y axis and its title)
FULL_WIDTH = 690
#: the colour of each connection's line when there are too many to tell apart by colour
MANY_LINES = "#6b6b6b"

__all__ = [
    "throughput_chart",
    "threshold_chart",
    "hold_chart",
    "sum_windows_chart",
    "windows_chart",
    "events_chart",
    "loss_chart",
    "signalled_chart",
    "loss_variants_chart",
    "signalled_variants_chart",
]

_QUEUE = {"droptail": "DropTail", "red": "RED", "threshold": "the threshold-dropper"}


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
    colour = role_colour([OURS, FORMULA, PAPER] if paper else [OURS, FORMULA])
    others = (
        base.mark_line(strokeWidth=1, color="#8c8c8c")  # 3.3:1 on white
        .encode(x=x, y=y, detail=f"{key}:N", tooltip=[f"{key}:N", "flows:Q", "utilisation:Q"])
        .add_params(pick)
    )
    mine = base.transform_filter(f"datum.{key} == pick_{key}").transform_calculate(role=f"'{OURS}'")
    line = mine.mark_line(strokeWidth=2.5).encode(x=x, y=y, color=colour)
    dots = mine.mark_point(filled=True, size=50).encode(
        x=x, y=y, color=colour, tooltip=[f"{key}:N", "flows:Q", "utilisation:Q"]
    )
    theory = (
        alt.Chart(data[["flows", "theorem1"]].drop_duplicates())
        .transform_calculate(role=f"'{FORMULA}'")
        .mark_line(strokeDash=[6, 3], strokeWidth=2)
        .encode(x=x, y=alt.Y("theorem1:Q"), color=colour)
    )
    layers = [others, theory, line, dots]
    if paper:
        layers.append(
            alt.Chart(pd.DataFrame(paper))
            .transform_calculate(role=f"'{PAPER}'")
            .mark_point(shape="diamond", size=170, filled=False, strokeWidth=2.5)
            .encode(x=x, y=y, color=colour, tooltip=["note:N"])
        )
    chart = alt.layer(*layers).properties(width=420, height=260)
    return describe(chart, _throughput_description(data, key, label, title))


def _throughput_description(data: pd.DataFrame, key: str, label: str, title: str) -> str:
    by = data.groupby(key)["utilisation"]
    ranges = "; ".join(
        f"{key[0]} = {value:g}: {low:.3f} to {high:.3f}"
        for value, low, high in zip(by.min().index, by.min(), by.max(), strict=True)
    )
    return (
        f"{title + ': ' if title else ''}time-average throughput over capacity against the "
        f"number of connections N, one line per {label}; a drop-down picks the line drawn in "
        "colour, the others are grey; Theorem 1's 1 − 1/(1 + 3N) is dashed. Throughput from "
        f"its lowest to its highest over N, by {label}: {ranges}."
    )


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
            tooltip=["policy:N", "setting:N", "flows:Q", "utilisation:Q", "theorem1:Q"],
        )
    )
    theory = (
        alt.Chart()
        .mark_line(strokeDash=[6, 3], strokeWidth=2, color=ROLE_COLOURS[FORMULA])
        .encode(x=x, y=_utilisation_axis("theorem1"))
    )
    settings = data["setting"].nunique()
    lines = lines.encode(
        color=alt.Color("setting:N", title=None, scale=alt.Scale(range=category_range(settings)))
    )
    chart = (
        alt.layer(theory, lines, data=data)
        .properties(width=250, height=220)
        .facet(
            column=alt.Column("policy:N", title=None, sort=order, header=alt.Header(labelLimit=250))
        )
    )
    few = data[data["flows"] <= 5]
    gap = float((few["utilisation"] - few["theorem1"]).abs().median())
    full = int(data.loc[data["utilisation"] >= 0.985, "flows"].min())
    return describe(
        chart,
        "Three panels, one per way the threshold-dropper picks the connection to signal: "
        "throughput over capacity against the number of connections N, one line per setting "
        "of threshold Th and buffer cap b, and Theorem 1 dashed. For N up to 5 the points lie "
        f"on Theorem 1 (median distance {gap:.3f}); from about N = {full} they reach the "
        "capacity.",
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
    first = table[table["flows"] == table["flows"].min()].set_index(["select", "hold_rtts"])
    shortest, longest = data["hold_rtts"].min(), data["hold_rtts"].max()
    return describe(
        alt.vconcat(
            util.facet(column=column),
            alt.layer(outs, data=data).facet(column=column),
        ),
        "The threshold-dropper's hold time, from "
        f"{shortest:g} to {longest:g} round-trip times, one panel per number of connections "
        "N and one line per selection rule: throughput over capacity (top, Theorem 1 dashed) "
        f"and the time-outs in the run (bottom). With N = {int(data['flows'].min())} and "
        "largest-rate, a hold of one round trip gives "
        f"{first.loc[('largest', 1.0), 'utilisation']:.3f} of the link with "
        f"{int(first.loc[('largest', 1.0), 'timeouts'])} time-outs; longer holds remove the "
        "time-outs, and for larger N push the throughput towards the capacity.",
    )


def sum_windows_chart(table: pd.DataFrame, queue: str = "droptail") -> alt.FacetChart:
    """The paper's Fig. 8: the sum of the congestion windows over time, one panel per
    (N, buffer), in rows of one N (panels wrap on a narrow page)."""
    data = table[(table["flow"] == -1) & (table["queue"] == queue)]
    data = data[["flows", "buffer", "time", "cwnd"]].round(4)
    # the panel names are made in the browser: a column of strings would double the page
    swings = data.groupby([data["flows"], data["buffer"]])["cwnd"].agg(lambda w: w.max() / w.min())
    chart = (
        alt.Chart(data)
        .transform_calculate(
            role=f"'{OURS}'",
            panel="'N = ' + datum.flows + ', b = ' + datum.buffer",
            key="datum.flows * 1e6 + datum.buffer",
        )
        .mark_line(strokeWidth=1.2, interpolate="step-after")
        .encode(
            x=alt.X("time:Q", title="time after warm-up (s)"),
            y=alt.Y("cwnd:Q", title="sum of windows (packets)"),
            color=alt.Color("role:N", title=None, scale=role_scale([OURS]), legend=None),
        )
        .properties(width=200, height=120)
        .facet(
            facet=alt.Facet(
                "panel:N",
                title=None,
                sort=alt.EncodingSortField(field="key", op="min"),
                header=alt.Header(labelFontSize=12, labelAngle=0, labelAnchor="start"),
            ),
            columns=int(data["buffer"].nunique()),
        )
        .resolve_scale(y="independent")
        .properties(
            title=f"Sum of the windows, {_QUEUE[queue]}: one row per N, buffer b in packets"
        )
    )
    spread = ", ".join(
        f"N = {flows}, b = {buffer}: {swing:.1f}" for (flows, buffer), swing in swings.items()
    )
    return describe(
        chart,
        f"One panel per number of connections N and {_QUEUE[queue]} buffer b: the sum of all "
        "connections' congestion windows over time after the warm-up. Small buffers give "
        "one large sawtooth, as one connection would; larger buffers a sum that varies less. "
        f"Largest over smallest sum, per panel: {spread}.",
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
    connections = data[data["flow"] >= 0].assign(connection=lambda d: d["flow"] + 1)
    count = int(connections["connection"].nunique())
    coloured = count <= len(PALETTE_10)
    if coloured:  # one colour per connection, and a legend of them
        colour: Any = alt.Color(
            "connection:N",
            title="connection",
            scale=alt.Scale(range=category_range(count)),
            legend=alt.Legend(columns=5, orient="bottom", symbolStrokeWidth=3),
        )
    else:  # more than ten cannot be told apart by colour: one grey line each, no legend
        colour = alt.value(MANY_LINES)
    each = (
        alt.Chart(connections, title=title)
        .mark_line(
            strokeWidth=1.1,
            interpolate="step-after",
            opacity=1 if coloured else 0.7,
        )
        .encode(
            x=x,
            y=alt.Y("cwnd:Q", title="window (packets)"),
            color=colour,
            detail="connection:N",
            tooltip=["connection:N", "time:Q", "cwnd:Q"],
        )
        .properties(width=460, height=170)
    )
    if coloured and count > HIGHLIGHT_ABOVE:  # a click on a connection's legend entry
        chosen, opacity = highlight("connection")
        each = each.add_params(chosen).encode(opacity=opacity)
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
    sums = data[data["flow"] < 0]["cwnd"]
    cuts = _cuts_per_drop(data[data["flow"] >= 0])
    return describe(
        alt.vconcat(each, total).resolve_scale(color="independent"),
        f"{count} connections' congestion windows over {span:g} s after the warm-up"
        f"{'' if coloured else ' (one grey line each: too many to colour)'}, "
        f"{_QUEUE[queue]} with a buffer of {buffer} packets (top), and their sum "
        f"(bottom), which swings between {sums.min():.0f} and {sums.max():.0f} packets. When "
        f"the sum drops, {cuts} of the connections halve at once, on average.",
    )


def _cuts_per_drop(windows: pd.DataFrame, gap: float = 0.06) -> str:
    """How many connections cut their window in one clump of cuts (cuts less than ``gap``
    seconds apart), on average, as words for a chart's description."""
    cuts = []
    for _, one in windows.sort_values("time").groupby("flow"):
        down = one["cwnd"].diff() < 0
        cuts.extend(one.loc[down, "time"].tolist())
    if not cuts:
        return "none"
    times = sorted(cuts)
    clumps, size, sizes = [times[0]], 1, []
    for t in times[1:]:
        if t - clumps[-1] < gap:
            size += 1
        else:
            sizes.append(size)
            size = 1
        clumps.append(t)
    sizes.append(size)
    return f"{sum(sizes) / len(sizes):.1f}"


def events_chart(table: pd.DataFrame) -> alt.Chart:
    """Fig. 15: P(M >= m), M the connections signalled in one congestion event."""
    data = table.assign(setting=table["queue"] + ", b = " + table["buffer"].astype(str))[
        ["setting", "m", "ccdf", "mean_m", "events"]
    ].round(4)
    settings = data["setting"].nunique()
    means = data.groupby("setting", sort=False)["mean_m"].first()
    return describe(
        alt.Chart(data)
        .mark_line(point=True)
        .encode(
            x=alt.X("m:Q", title="connections signalled in one event, m"),
            y=alt.Y("ccdf:Q", title="P(M ≥ m)", scale=alt.Scale(domain=[0, 1])),
            color=alt.Color(
                "setting:N", title=None, scale=alt.Scale(range=category_range(settings))
            ),
            tooltip=["setting:N", "m:Q", "ccdf:Q", "mean_m:Q", "events:Q"],
        )
        .properties(width=420, height=240),
        "The complementary distribution P(M ≥ m) of the number M of connections signalled "
        "in one congestion event, ten connections, one line per queue and buffer. Mean M: "
        + "; ".join(f"{setting} {mean:.2f}" for setting, mean in means.items())
        + ".",
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
        legend=alt.Legend(labelLimit=360, columns=1),
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
    small = table[table["p"] <= 0.01]
    return describe(
        alt.layer(lines, dots).properties(width=420, height=260),
        "Goodput of one connection against the loss probability p, both on log scales, from "
        f"p = {table['p'].min():g} to {table['p'].max():g}: the packet model (dots), the "
        "square-root law of Mathis et al. and the formula of Padhye et al. with time-outs "
        "(dashed lines). Up to p = 0.01 the model is "
        f"{small['vs_mathis'].min():.2f} to {small['vs_mathis'].max():.2f} times the "
        f"square-root law; at p = {table['p'].max():g} only "
        f"{table['vs_mathis'].iloc[-1]:.2f} of it, while the formula with time-outs stays "
        f"within {abs(table['vs_padhye'] - 1).max():.0%}.",
    )


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
    rho = data.groupby(["queue", "buffer"])["rho"].first()
    listed = "; ".join(
        f"{queue}, b = {buffer}: {value:.2f}" for (queue, buffer), value in rho.items()
    )
    return describe(
        alt.layer(flat, lines, data=data)
        .properties(width=300, height=240)
        .facet(column=alt.Column("queue:N", title=None, sort=order)),
        "Two panels, DropTail and RED, ten connections: the empirical probability that a "
        "connection is signalled in a congestion event given its window w just before it, one "
        "line per buffer, with the overall fraction signalled as a dotted line (what a "
        "rate-independent policy would give at every w). Larger windows are hit more often; "
        f"rank correlations of the probability with w: {listed}.",
    )


_TCP_COLOURS = alt.Scale(domain=["NewReno", "SACK"], range=PALETTE[:2])


def loss_variants_chart(table: pd.DataFrame) -> alt.LayerChart | alt.FacetChart:
    """One flow under random loss with NewReno and with SACK (same seeds): goodput against p
    (log-log), dots per variant, with the formulas of Mathis et al. and Padhye et al. dashed;
    ``table`` has the rows of both variants and a ``tcp`` column (:func:`.variants.both`)."""
    data = table[["tcp", "p", "rate_pps", "vs_mathis", "vs_padhye", "timeouts"]].round(5)
    formulas = table[table["tcp"] == table["tcp"].iloc[0]][["p", "mathis_pps", "padhye_pps"]]
    curves = formulas.rename(columns={"mathis_pps": MATHIS, "padhye_pps": PADHYE}).melt(
        id_vars=["p"], var_name="formula", value_name="rate_pps"
    )
    x = alt.X("p:Q", title="loss probability p", scale=alt.Scale(type="log"))
    y = alt.Y("rate_pps:Q", title="goodput (packets/s)", scale=alt.Scale(type="log"))
    # the two formulas apart by colour and by dash (green long dashes, purple dots)
    formulas = [MATHIS, PADHYE]
    legend = alt.Legend(labelLimit=400, columns=1, symbolStrokeWidth=2.5, symbolSize=400)
    lines = (
        alt.Chart(curves.round(5))
        .mark_line(strokeWidth=2.2)
        .encode(
            x=x,
            y=y,
            stroke=alt.Stroke(  # not color: the dots' TCP has that scale and its legend
                "formula:N",
                title="formula",
                scale=alt.Scale(domain=formulas, range=[ROLE_COLOURS[FORMULA], PALETTE[4]]),
                legend=legend,
            ),
            strokeDash=alt.StrokeDash(
                "formula:N",
                title="formula",
                scale=alt.Scale(domain=formulas, range=[[8, 4], [2, 3]]),
                legend=legend,
            ),
            tooltip=["formula:N", "p:Q", alt.Tooltip("rate_pps:Q", format=".1f")],
        )
    )
    # the two variants' dots often coincide: NewReno as large rings, SACK as small dots inside
    colour = alt.Color("tcp:N", title="TCP", scale=_TCP_COLOURS)
    tooltip = ["tcp:N", "p:Q", alt.Tooltip("rate_pps:Q", format=".1f"), "timeouts:Q"]
    rings = (
        alt.Chart(data[data["tcp"] == "NewReno"])
        .mark_point(filled=False, size=160, strokeWidth=2)
        .encode(x=x, y=y, color=colour, tooltip=tooltip)
    )
    dots = (
        alt.Chart(data[data["tcp"] == "SACK"])
        .mark_point(filled=True, size=35)
        .encode(x=x, y=y, color=colour, tooltip=tooltip)
    )
    by = {tcp: part for tcp, part in data.groupby("tcp")}
    told = "; ".join(
        f"{tcp}: {part['vs_padhye'].min():.2f} to {part['vs_padhye'].max():.2f} times the "
        f"formula with time-outs, {int(part['timeouts'].sum())} time-outs in all"
        for tcp, part in by.items()
    )
    chart = alt.layer(lines, rings, dots).properties(width=FULL_WIDTH, height=300)
    return describe(
        chart,
        "Goodput of one connection against the loss probability p, both on log scales, from "
        f"p = {table['p'].min():g} to {table['p'].max():g}, with NewReno (rings) and with SACK "
        "(dots; same "
        "seeds: the same packets are dropped while the two send alike), and the square-root "
        "law of Mathis et al. (green, long dashes) and the formula of Padhye et al. (purple, "
        f"dots). {told}.",
    )


def signalled_variants_chart(table: pd.DataFrame, min_samples: int = 30) -> alt.FacetChart:
    """Figs. 13 and 14 with NewReno and with SACK (same seeds): P(signalled | window w)
    against w, one panel per queue and buffer, one line per variant, for the windows seen
    at least ``min_samples`` times; ``table`` has both variants' rows and a ``tcp`` column."""
    data = table[table["samples"] >= min_samples]
    data = data[["tcp", "queue", "buffer", "window", "samples", "z", "rho"]].copy()
    data["panel"] = data["queue"].map({"droptail": "DropTail", "red": "RED"}) + data["buffer"].map(
        lambda b: f" b = {b}"
    )
    data = data.round(4)
    order = list(dict.fromkeys(data["panel"]))
    chart = (
        alt.Chart(data)
        .mark_line(point=True, strokeWidth=1.6)
        .encode(
            x=alt.X("window:Q", title="window w (packets)"),
            y=alt.Y("z:Q", title="P(signalled | w)", scale=alt.Scale(domain=[0, 1])),
            color=alt.Color("tcp:N", title="TCP", scale=_TCP_COLOURS),
            strokeDash=alt.StrokeDash("tcp:N", legend=None),
            tooltip=["panel:N", "tcp:N", "window:Q", "samples:Q", "z:Q", "rho:Q"],
        )
        .properties(width=170, height=150)
        .facet(alt.Facet("panel:N", title=None, sort=order), columns=4)
    )
    rho = data.groupby(["tcp", "panel"], sort=False)["rho"].first()
    listed = "; ".join(
        f"{tcp}: "
        + ", ".join(
            f"{panel} {rho[(tcp, panel)]:.2f}" for panel in order if (tcp, panel) in rho.index
        )
        for tcp in dict.fromkeys(data["tcp"])
    )
    return describe(
        chart,
        "Panels, one per queue and buffer, ten connections: the empirical probability that a "
        "connection is signalled in a congestion event given its window w just before it, "
        "with NewReno and with SACK (same seeds). Rank correlations of the probability with "
        f"w, {listed}.",
    )
