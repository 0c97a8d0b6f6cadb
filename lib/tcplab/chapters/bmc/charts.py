"""Charts of weighted AIMD and BMC (Honda 2009): the response function, Figs. 5.2-5.11, Fig. 3.3,
and the proportion manager over time (fluid and packet, and a fluid grid behind sliders).

Every chart draws the thesis's value (or its ideal) beside ours, in the house colours.
"""

from __future__ import annotations

import altair as alt
import numpy as np
import pandas as pd

from tcplab.charts import FORMULA, OURS, PAPER, ROLE_COLOURS, grid_step, role_colour, slider
from tcplab.theory import bmc

from .claims import THESIS_LOSS_EVENT, by_hand_loss_event_rate
from .experiments import label, ratios
from .mixes import mix_ratios

__all__ = [
    "weights_chart",
    "competition_chart",
    "fig510_chart",
    "fig511_chart",
    "per_flow_chart",
    "fig518_chart",
    "fig33_chart",
    "manager_chart",
    "fluid_grid_chart",
]

_ROLE = role_colour([OURS, FORMULA, PAPER])


def weights_chart(response: pd.DataFrame) -> alt.LayerChart | alt.FacetChart:
    """One flow under random loss: each AIMD(a, b)'s throughput over TCP's at the same p
    (ours, one point per p) against eq. (3.2)'s weight and the random-loss weight."""
    data = response[~(np.isclose(response["a"], 1.0) & np.isclose(response["b"], 0.5))].copy()
    data["pair"] = [
        f"AIMD({label(a)}, {label(b)})" for a, b in zip(data["a"], data["b"], strict=True)
    ]
    long = pd.concat(
        [
            data.assign(role=OURS, weight=data["vs_tcp"]),
            data.drop_duplicates("pair").assign(role=FORMULA, weight=data["weight_eq32"]),
        ]
    )[["pair", "p", "role", "weight"]]
    x = alt.X("pair:N", title=None, sort=None)
    y = alt.Y("weight:Q", title="throughput over TCP's at the same p")
    tip = ["pair:N", "p:Q", "role:N", alt.Tooltip("weight:Q", format=".3f")]
    base = alt.Chart(long)
    ticks = base.transform_filter(f"datum.role == '{FORMULA}'").mark_tick(thickness=3, size=30)
    dots = base.transform_filter(f"datum.role == '{OURS}'").mark_point(filled=True, size=60)
    return alt.layer(
        ticks.encode(x=x, y=y, color=_ROLE, tooltip=tip),
        dots.encode(x=x, y=y, color=_ROLE, tooltip=tip),
    ).properties(width=360, height=240)


def competition_chart(table: pd.DataFrame) -> alt.LayerChart | alt.FacetChart:
    """N AIMD(a, b) flows against N TCP flows: the measured ratio over eq. (3.2)'s weight
    as a heat map over (a, b) (1 = the response function holds in competition)."""
    data = table[["a", "b", "steady_ratio", "weight_eq32", "vs_eq32"]].copy()
    data["a_label"] = data["a"].map(label)
    data["b_label"] = data["b"].map(label)
    x = alt.X("a_label:O", title="increase a", sort=None)
    y = alt.Y("b_label:O", title="decrease b (window cut to (1 - b) W)", sort=None)
    base = alt.Chart(data).encode(x=x, y=y)
    cells = base.mark_rect().encode(
        color=alt.Color(
            "vs_eq32:Q",
            title="ours / eq. (3.2)",
            scale=alt.Scale(scheme="blueorange", domainMid=1.0),
        ),  # fmt: skip
        tooltip=[
            "a_label:N",
            "b_label:N",
            alt.Tooltip("steady_ratio:Q", format=".3f"),
            alt.Tooltip("weight_eq32:Q", format=".3f"),
            alt.Tooltip("vs_eq32:Q", format=".2f"),
        ],  # fmt: skip
    )
    text = base.mark_text(fontSize=11).encode(text=alt.Text("vs_eq32:Q", format=".2f"))
    return alt.layer(cells, text).properties(width=240, height=200)


def fig510_chart(weighted: pd.DataFrame) -> alt.LayerChart | alt.FacetChart:
    """Fig. 5.10: the ratio of the AIMD(D^2, 1/2) flows' mean throughput to TCP's against
    N, one colour per D; dashed: the ideal D (the thesis's design target)."""
    data = ratios(weighted, ["D", "flows"])
    data["D_label"] = data["D"].map(label)
    x = alt.X("flows:Q", title="N (flows of each kind)", scale=alt.Scale(type="log", base=2))
    y = alt.Y("value:Q", title="AIMD / TCP throughput")
    colour = alt.Color("D_label:N", title="weight D", sort=None)
    ours = alt.Chart(data.assign(value=data["ratio"])).mark_line(point=True).encode(
        x=x, y=y, color=colour,
        tooltip=["D_label:N", "flows:Q", alt.Tooltip("ratio:Q", format=".3f"),
                 alt.Tooltip("aimd_timeouts:Q", format=".1f", title="time-outs per AIMD flow")],
    )  # fmt: skip
    ideal = alt.Chart(data.assign(value=data["D"])).mark_line(strokeDash=[5, 4], opacity=0.6)
    return alt.layer(ideal.encode(x=x, y=y, color=colour), ours).properties(width=420, height=280)


def fig511_chart(weighted: pd.DataFrame) -> alt.LayerChart | alt.FacetChart:
    """Fig. 5.11: against N, one colour per D, our drops per packet over the whole run, slow
    start included (solid), and our loss events per packet (dashed); diamonds: the
    thesis's ranges at N = 1, 2, 4 and what eq. (3.3) allows a full link at N = 1."""
    data = ratios(weighted, ["D", "flows"])
    data["D_label"] = data["D"].map(label)
    long = pd.concat(
        [
            data.assign(measure="loss events per packet", percent=100 * data["loss_event_rate"]),
            data.assign(measure="drops per packet, whole run", percent=100 * data["drop_rate"]),
        ]
    )[["D_label", "flows", "measure", "percent"]]
    x = alt.X("flows:Q", title="N (flows of each kind)", scale=alt.Scale(type="log", base=2))
    y = alt.Y("percent:Q", title="rate (%)", scale=alt.Scale(type="log"))
    ours = (
        alt.Chart(long)
        .mark_line(point=True)
        .encode(
            x=x,
            y=y,
            color=alt.Color("D_label:N", title="weight D", sort=None),
            strokeDash=alt.StrokeDash("measure:N", title=None),
            tooltip=["D_label:N", "measure:N", "flows:Q", alt.Tooltip("percent:Q", format=".4f")],
        )
    )
    marks = [
        {"flows": n, "percent": 100 * v, "role": PAPER}
        for n, pair in THESIS_LOSS_EVENT.items()
        for v in pair
    ]
    marks.append({"flows": 1, "percent": 100 * by_hand_loss_event_rate(4 / 5), "role": FORMULA})
    refs = (
        alt.Chart(pd.DataFrame(marks))
        .mark_point(shape="diamond", size=90, filled=True)
        .encode(
            x=x,
            y=y,
            fill=alt.Fill(
                "role:N",
                title=None,
                scale=alt.Scale(
                    domain=[PAPER, FORMULA], range=[ROLE_COLOURS[PAPER], ROLE_COLOURS[FORMULA]]
                ),
            ),
            stroke=alt.value(None),
            tooltip=["role:N", alt.Tooltip("percent:Q", format=".4f")],
        )
    )
    return alt.layer(ours, refs).properties(width=420, height=280)


def per_flow_chart(weighted: pd.DataFrame) -> alt.LayerChart | alt.FacetChart:
    """Figs. 5.2-5.9: every flow's throughput normalised by capacity / (2N) against N, TCP
    and AIMD apart, for the D a drop-down picks; dashed: the means the thesis plots, dotted:
    the ideal (2/(1+D) for TCP, 2D/(1+D) for AIMD)."""
    data = weighted[["D", "flows", "kind", "normalised"]].copy()
    data["D_label"] = data["D"].map(label)
    values = list(dict.fromkeys(data["D_label"]))
    pick = alt.param(name="pick_D", value=values[0],
                     bind=alt.binding_select(options=values, name="weight D "))  # fmt: skip
    x = alt.X("flows:Q", title="N (flows of each kind)", scale=alt.Scale(type="log", base=2))
    y = alt.Y("normalised:Q", title="throughput / (capacity / 2N)")
    colour = alt.Color("kind:N", title=None, scale=alt.Scale(domain=["tcp", "aimd"]))
    base = alt.Chart(data).transform_filter("datum.D_label == pick_D")
    dots = base.mark_circle(size=18, opacity=0.5).encode(x=x, y=y, color=colour).add_params(pick)
    mean = base.mark_line(strokeDash=[5, 4]).encode(x=x, y="mean(normalised):Q", color=colour)
    ideal = (
        base.transform_calculate(
            ideal="datum.kind == 'tcp' ? 2 / (1 + datum.D) : 2 * datum.D / (1 + datum.D)"
        )
        .mark_line(strokeDash=[1, 3], color="#666666")
        .encode(x=x, y="mean(ideal):Q", detail="kind:N")
    )
    return alt.layer(dots, mean, ideal).properties(width=420, height=260)


def fig518_chart(mixes: pd.DataFrame) -> alt.HConcatChart:
    """Fig. 5.18 (left): the weighted flows' mean over TCP's against N, one colour per mix;
    dashed: the ideal, one over the mix's size. Right: each weight of each mix, its flows'
    mean over TCP's (mean over N) against the weight; the diagonal is the ideal."""
    found = mix_ratios(mixes)
    whole = found[found["weight"] == "all"]
    x = alt.X("flows:Q", title="N (flows of each kind)", scale=alt.Scale(type="log", base=2))
    colour = alt.Color("mix:N", title="mix", sort=None)
    ours = (
        alt.Chart(whole)
        .mark_line(point=True)
        .encode(
            x=x,
            y=alt.Y("ratio:Q", title="weighted / TCP throughput"),
            color=colour,
            tooltip=["mix:N", "flows:Q", alt.Tooltip("ratio:Q", format=".3f")],
        )
    )
    ideal = (
        alt.Chart(whole)
        .mark_line(strokeDash=[5, 4], opacity=0.6)
        .encode(x=x, y="D:Q", color=colour)
    )
    per = found[found["weight"] != "all"].groupby(["mix", "weight", "D"], sort=False)["ratio"]
    per = per.mean().reset_index()
    axis = alt.Scale(domain=[0, 1])
    dots = (
        alt.Chart(per)
        .mark_point(filled=True, size=70)
        .encode(
            x=alt.X("D:Q", title="weight D", scale=axis),
            y=alt.Y("ratio:Q", title="its flows / TCP (mean over N)", scale=axis),
            color=colour,
            tooltip=["mix:N", "weight:N", alt.Tooltip("ratio:Q", format=".3f")],
        )
    )
    diagonal = (
        alt.Chart(pd.DataFrame({"D": [0.0, 1.0], "ratio": [0.0, 1.0]}))
        .mark_line(strokeDash=[5, 4], color="#888888")
        .encode(x="D:Q", y="ratio:Q")
    )
    return alt.hconcat(
        alt.layer(ideal, ours).properties(width=300, height=240),
        alt.layer(diagonal, dots).properties(width=240, height=240),
    )


def fig33_chart(ks: tuple[float, ...] = (0.25, 0.5, 0.75, 1.0)) -> alt.Chart:
    """Fig. 3.3: the weight reduction ``(D - D^2) K`` of eq. (3.8) against D, one line per K."""
    d = np.linspace(0.0, 1.0, 101)
    data = pd.concat(
        [pd.DataFrame({"D": d, "reduction": bmc.weight_reduction(d, k), "K": str(k)}) for k in ks]
    )
    return (
        alt.Chart(data)
        .mark_line()
        .encode(
            x=alt.X("D:Q", title="weight D"),
            y=alt.Y("reduction:Q", title="weight reduction (D - D²) K"),
            color=alt.Color("K:N", title="K"),
            tooltip=[
                "K:N",
                alt.Tooltip("D:Q", format=".2f"),
                alt.Tooltip("reduction:Q", format=".3f"),
            ],
        )
        .properties(width=360, height=220)
    )


def manager_chart(manager: pd.DataFrame, fixed: dict[str, tuple[float, float]]) -> alt.FacetChart:
    """The weight D1 of the first subflow over time, fluid and packet, per scenario; the
    shaded band is the fluid model's fixed set (the weights at which both Twr are equal)."""
    data = manager[manager["subflow"] == 0][["model", "scenario", "replica", "t", "weight"]].copy()
    data["low"] = data["scenario"].map(lambda s: fixed[s][0])
    data["high"] = data["scenario"].map(lambda s: fixed[s][1])
    x = alt.X("t:Q", title="time (s)")
    y = alt.Y("weight:Q", title="weight D1 of subflow 1", scale=alt.Scale(domain=[0, 1]))
    base = alt.Chart()
    band = base.mark_area(opacity=0.25, color=ROLE_COLOURS[FORMULA]).encode(
        x=x, y="min(low):Q", y2="max(high):Q"
    )
    lines = base.mark_line(point=True).encode(
        x=x, y=y, color=alt.Color("model:N", title=None), detail="replica:N",
        tooltip=["model:N", "t:Q", alt.Tooltip("weight:Q", format=".3f")],
    )  # fmt: skip
    return (
        alt.layer(band, lines, data=data)
        .properties(width=300, height=200)
        .facet(column=alt.Column("scenario:N", title=None))
    )


def fluid_grid_chart(grid: pd.DataFrame, scenario: str, j_s: float) -> alt.HConcatChart:
    """The fluid proportion manager behind sliders: K and the first link's rate pick a
    precomputed run of ``scenario``; the weights and each source's Mb/s per period
    (time = period x J)."""
    data = grid[grid["scenario"] == scenario].copy()
    data["t"] = data["period"] * j_s
    data["kind"] = np.where(data["series"].isin(["D1", "D2"]), "weights", "Mb/s per source")
    ks, rates = data["k"], data["rate"]
    k = slider(
        f"{scenario}_k", "K ", float(ks.min()), float(ks.max()), grid_step(ks), float(ks.max() / 2)
    )
    rate = slider(f"{scenario}_rate", "first link (Mb/s) ", float(rates.min()), float(rates.max()),
                  grid_step(rates), float(rates.min()))  # fmt: skip
    picked = (
        alt.Chart(data)
        .transform_filter(f"abs(datum.k - {scenario}_k) < 1e-6")
        .transform_filter(f"abs(datum.rate - {scenario}_rate) < 1e-6")
    )

    def panel(kind: str, title: str) -> alt.Chart:
        return (
            picked.transform_filter(f"datum.kind == '{kind}'")
            .mark_line(point=True)
            .encode(
                x=alt.X("t:Q", title="time (s)"),
                y=alt.Y("value:Q", title=title),
                color=alt.Color("series:N", title=None),
                tooltip=["scenario:N", "series:N", "t:Q", alt.Tooltip("value:Q", format=".3f")],
            )
            .properties(width=280, height=180)
        )

    both = alt.hconcat(panel("weights", "weight"), panel("Mb/s per source", "Mb/s"))
    return both.add_params(k, rate)
