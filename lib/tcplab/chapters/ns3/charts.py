"""Charts of the ns-3 cross-check: how far apart the two simulators are, and how fast.

:func:`ratio_chart` puts one dot per scenario and quantity at tcplab's mean over ns-3's (1 is
agreement; the bar is the 95% interval of the difference, divided by ns-3's mean; the axis is
linear, as a ratio can be 0), with the packet model's two timers as two colours and a
drop-down to choose the quantity (a Vega-Lite param, so it works on a static page).
:func:`speed_chart` draws bottleneck packets per wall-second against N for both simulators.
Each chart carries a description computed from its data (:func:`tcplab.charts.describe`).
"""

from __future__ import annotations

import altair as alt
import numpy as np
import pandas as pd

from tcplab.charts import PALETTE, PAPER, ROLE_COLOURS, describe

from .claims import METRICS
from .grid import MATCHED

__all__ = ["ratio_chart", "speed_chart", "scenario_label"]

TIMER_NAMES = {
    "bsd": "tcplab, timer restarted at fast retransmit",
    "rfc6298": "tcplab, RFC 6298 timer (as ns-3)",
}

SIMULATORS = ["tcplab (simpy)", "ns-3 3.44 (C++, from Python)"]

#: the height of one scenario's row in :func:`ratio_chart` (px): its label has up to 4 lines
#: of LABEL_LINE px, and a clear gap to the next row's (at 56 px with 11 px type a four-line
#: label sat on the next one: the reader's report of 2026-12-02)
LABEL_SIZE = 12
LABEL_LINE = 13
ROW_STEP = 4 * LABEL_LINE + 16


def scenario_label(row: pd.Series) -> str:
    """A short name for a scenario: queue, buffer, N, TCP, delayed ACKs, the RTO floor when it
    is not the matched one."""
    delack = ", delayed ACKs" if row["delayed_ack_ms"] else ""
    floor = row.get("min_rto_ms", MATCHED["min_rto_ms"])
    if floor != MATCHED["min_rto_ms"]:
        delack += f", min RTO {floor:.0f} ms"
    return f"{row['queue']} b={int(row['buffer'])} N={int(row['flows'])} {row['tcp']}{delack}"


def _ratios(table: pd.DataFrame) -> pd.DataFrame:
    rows = []
    for _, row in table.iterrows():
        for metric, name in METRICS.items():
            theirs = row[f"{metric}_ns3"]
            if not theirs:
                continue
            rows.append(
                {
                    "scenario": scenario_label(row),
                    "flows": int(row["flows"]),
                    "timer": TIMER_NAMES[row["timer"]],
                    "quantity": name,
                    "ratio": row[f"{metric}_tcplab"] / theirs,
                    "low": (row[f"{metric}_tcplab"] - row[f"{metric}_tolerance"]) / theirs,
                    "high": (row[f"{metric}_tcplab"] + row[f"{metric}_tolerance"]) / theirs,
                }
            )
    out = pd.DataFrame(rows)
    return out.replace([np.inf, -np.inf], np.nan).dropna(subset=["ratio"])


def ratio_chart(table: pd.DataFrame) -> alt.LayerChart | alt.FacetChart:
    """tcplab / ns-3 per scenario for the quantity chosen in the drop-down.

    The axis is linear: a ratio can be 0 (tcplab had none of an event ns-3 had) and an
    interval's lower end can lie below 0, neither of which a log axis can show. Each
    scenario's name is written on two to four lines (queue and buffer; N and TCP; delayed
    ACKs; the RTO floor), so that the chart fits a phone's column."""
    data = _ratios(table)
    names = list(METRICS.values())
    pick = alt.param(
        name="quantity",
        value=names[1],
        bind=alt.binding_select(options=names, name="quantity "),
    )
    order = sorted(
        data["scenario"].unique(),
        key=lambda s: (s.split()[0], int(s.split("N=")[1].split()[0]), s),
    )
    y = alt.Y(
        "scenario:N",
        sort=order,
        title=None,
        axis=alt.Axis(
            # a string pattern would replace only the first ", " (JavaScript's replace)
            labelExpr=(
                "split(replace(replace(datum.label, ' N=', '|N='), regexp(', ', 'g'), '|'), '|')"
            ),
            # a label of up to four lines sits in the middle of its row, the row's dots beside
            # it: a row is ROW_STEP px, four lines with a gap to the next row's fit in it
            labelBaseline="middle",
            labelFontSize=LABEL_SIZE,
            labelLineHeight=LABEL_LINE,
            grid=False,
            domain=False,
            ticks=False,
            labelPadding=6,
        ),
    )
    # a faint band behind every other row, so that a row's dots and its label read as one
    shade = (
        alt.Chart(pd.DataFrame({"scenario": order[::2]}))
        .mark_rect(color="#8a8a8a", opacity=0.12)
        .encode(y=alt.Y("scenario:N", sort=order, title=None))
    )
    colour = alt.Color(
        "timer:N",
        scale=alt.Scale(domain=list(TIMER_NAMES.values()), range=PALETTE[:2]),
        legend=alt.Legend(
            title=None, orient="bottom", direction="vertical", columns=1, labelLimit=320
        ),
    )
    # the two timers' dots 8 px above and below their row's middle, where its label is: a
    # pixel offset of each timer's marks (an offset *scale* would make the y axis's row height
    # a second claim on the same scale, which Vega reports as a conflict)
    base = alt.Chart(data).transform_filter(alt.datum.quantity == pick)
    # few ticks: on a phone's narrow plot "-0.5" and "0.0" ran into each other
    x = alt.X("ratio:Q", title="tcplab / ns-3", axis=alt.Axis(tickCount=4, labelOverlap=True))
    marks = []
    for timer, shift in zip(TIMER_NAMES.values(), (-8, 8), strict=True):
        own = base.transform_filter(alt.datum.timer == timer)
        marks.append(
            own.mark_rule(strokeWidth=2, opacity=0.5, yOffset=shift).encode(
                x=alt.X("low:Q"), x2="high:Q", y=y, color=colour
            )
        )
        marks.append(
            own.mark_point(filled=True, size=70, yOffset=shift).encode(
                x=x,
                y=y,
                color=colour,
                tooltip=["scenario", "timer", "quantity", alt.Tooltip("ratio:Q", format=".3f")],
            )  # fmt: skip
        )
    one = (
        alt.Chart(pd.DataFrame({"ratio": [1.0]}))
        .mark_rule(color=ROLE_COLOURS[PAPER])
        .encode(x="ratio:Q")
    )
    chart = (
        alt.layer(shade, *marks, one)
        .add_params(pick)
        .properties(width=420, height=alt.Step(ROW_STEP), title="The packet model over ns-3")
    )
    return describe(chart, _ratio_description(data, names[1]))


def _ratio_description(data: pd.DataFrame, first: str) -> str:
    scenarios = data["scenario"].nunique()
    ranges = "; ".join(
        f"{quantity} {rows['ratio'].min():.3g} to {rows['ratio'].max():.3g} "
        f"({int(((rows['low'] <= 1) & (rows['high'] >= 1)).sum())} of {len(rows)} "
        "intervals reach 1)"
        for quantity, rows in data.groupby("quantity", sort=False)
    )
    return (
        f"One row per scenario ({scenarios} scenarios: queue, buffer b, connections N, TCP) "
        "and one dot per tcplab timer rule (restarted at fast retransmit, or RFC 6298 as "
        "ns-3): tcplab's mean over ns-3's for the quantity chosen in the drop-down "
        f"({first} first), with a bar for the 95% interval of the difference divided by "
        "ns-3's mean, on a linear axis; a vertical line at 1 marks agreement. The ratios "
        f"per quantity: {ranges}."
    )


def speed_chart(tcplab: pd.DataFrame, ns3: pd.DataFrame) -> alt.Chart:
    """Bottleneck packets per wall-second against N, each simulator's runs as dots."""
    ours = tcplab[tcplab["timer"] == "bsd"]
    data = pd.concat(
        [
            pd.DataFrame({"flows": ours["flows"], "speed": ours["packets_per_wall_s"],
                          "simulator": SIMULATORS[0], "tcp": ours["tcp"]}),
            pd.DataFrame({"flows": ns3["flows"], "speed": ns3["packets_per_wall_s"],
                          "simulator": SIMULATORS[1], "tcp": ns3["tcp"]}),
        ]
    )  # fmt: skip
    if not (data["flows"] > 0).all() or not (data["speed"] > 0).all():
        raise ValueError("speed_chart: log axes need every N and every speed above 0")
    chart = (
        alt.Chart(data)
        .mark_point(filled=True, opacity=0.7)
        .encode(
            x=alt.X("flows:Q", scale=alt.Scale(type="log"), title="connections N"),
            y=alt.Y(
                "speed:Q", scale=alt.Scale(type="log"), title="bottleneck packets per wall-second"
            ),
            color=alt.Color(
                "simulator:N",
                scale=alt.Scale(domain=SIMULATORS, range=[PALETTE[0], PALETTE[3]]),
                legend=alt.Legend(direction="vertical", labelLimit=320),
            ),
            shape=alt.Shape("tcp:N", legend=alt.Legend(direction="vertical")),
            tooltip=["simulator", "tcp", "flows", alt.Tooltip("speed:Q", format=",.0f")],
        )  # fmt: skip
        .properties(title="Speed on the same machine")
    )
    return describe(chart, _speed_description(data))


def _speed_description(data: pd.DataFrame) -> str:
    speeds = "; ".join(
        f"{simulator}: {len(rows)} runs, {rows['speed'].min():,.0f} to "
        f"{rows['speed'].max():,.0f} (median {rows['speed'].median():,.0f})"
        for simulator, rows in data.groupby("simulator", sort=False)
    )
    return (
        "Bottleneck packets simulated per wall-clock second against the number of "
        f"connections N, from {int(data['flows'].min())} to {int(data['flows'].max())}, both "
        "axes logarithmic; one dot per run, coloured by simulator, shaped by TCP (NewReno or "
        f"SACK). Packets per wall-second: {speeds}."
    )
