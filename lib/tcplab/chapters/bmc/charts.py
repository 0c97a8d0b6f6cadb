"""Charts of weighted AIMD and BMC (Honda 2009): the response function, Figs. 5.2-5.11, Fig. 3.3,
and the proportion manager over time (fluid and packet, and a fluid grid behind sliders).

Every chart draws the thesis's value (or its ideal) beside ours, in the house colours, and
carries a text description computed from its table (:func:`tcplab.charts.describe`).
"""

from __future__ import annotations

import altair as alt
import numpy as np
import pandas as pd

from tcplab.charts import (
    FORMULA,
    OURS,
    PAPER,
    ROLE_COLOURS,
    describe,
    fraction,
    grid_step,
    highlight,
    role_colour,
    role_scale,
    slider,
)
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
    "mixes_per_flow_chart",
    "jk_chart",
    "fig33_chart",
    "manager_chart",
    "fluid_grid_chart",
]


def _span(values: pd.Series, form: str = ".3f") -> str:
    """``low to high`` of ``values`` (one number when they are all equal)."""
    low, high = format(float(values.min()), form), format(float(values.max()), form)
    return low if low == high else f"{low} to {high}"


def _listed(values: pd.Series) -> str:
    return ", ".join(str(v) for v in dict.fromkeys(values))


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
    colour = role_colour([OURS, FORMULA])  # the ticks and the dots: no paper value here
    ticks = base.transform_filter(f"datum.role == '{FORMULA}'").mark_tick(thickness=3, size=30)
    dots = base.transform_filter(f"datum.role == '{OURS}'").mark_point(filled=True, size=60)
    chart = alt.layer(
        ticks.encode(x=x, y=y, color=colour, tooltip=tip),
        dots.encode(x=x, y=y, color=colour, tooltip=tip),
    ).properties(width=360, height=240)
    per = "; ".join(
        f"{pair}: eq. (3.2) {rows['weight_eq32'].iloc[0]:.3f}, ours {_span(rows['vs_tcp'])}"
        for pair, rows in data.groupby("pair", sort=False)
    )
    return describe(
        chart,
        "One AIMD(a, b) flow alone under random loss: its throughput over TCP's at the same "
        f"loss rate p (p = {_listed(data['p'].map(lambda v: f'{v:g}'))}), one column per pair; "
        f"ticks: eq. (3.2)'s weight, dots: our runs, one per p. {per}.",
    )


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
    chart = alt.layer(cells, text).properties(width=240, height=200)
    low, high = data.loc[data["vs_eq32"].idxmin()], data.loc[data["vs_eq32"].idxmax()]
    flows = _listed(table["flows"].astype(int)) if "flows" in table else "N"
    return describe(
        chart,
        f"A heat map over the increase a ({_listed(data['a_label'])}) and the decrease b "
        f"({_listed(data['b_label'])}): {flows} AIMD(a, b) flows against as many TCP flows, "
        "the ratio of their mean throughputs over eq. (3.2)'s weight, written in each cell "
        f"(1: the response function holds). It runs from {low['vs_eq32']:.2f} at "
        f"AIMD({low['a_label']}, {low['b_label']}) to {high['vs_eq32']:.2f} at "
        f"AIMD({high['a_label']}, {high['b_label']}).",
    )


def fig510_chart(weighted: pd.DataFrame) -> alt.LayerChart | alt.FacetChart:
    """Fig. 5.10: the ratio of the AIMD(D^2, 1/2) flows' mean throughput to TCP's against
    N, one colour per D; dashed: the ideal D (the thesis's design target)."""
    data = ratios(weighted, ["D", "flows"])
    data["D_label"] = data["D"].map(label)
    x = alt.X("flows:Q", title="N (flows of each kind)", scale=alt.Scale(type="log", base=2))
    y = alt.Y("value:Q", title="AIMD / TCP throughput")
    colour = alt.Color("D_label:N", title="weight D", sort=None)
    chosen, opacity = highlight("D_label")  # eight weights: a legend click brings one forward
    ours = alt.Chart(data.assign(value=data["ratio"])).mark_line(point=True).encode(
        x=x, y=y, color=colour, opacity=opacity,
        tooltip=["D_label:N", "flows:Q", alt.Tooltip("ratio:Q", format=".3f"),
                 alt.Tooltip("aimd_timeouts:Q", format=".1f", title="time-outs per AIMD flow")],
    ).add_params(chosen)  # fmt: skip
    ideal = alt.Chart(data.assign(value=data["D"])).mark_line(strokeDash=[5, 4])
    _, faint = highlight("D_label", shown=0.6, faded=0.08)
    chart = alt.layer(ideal.encode(x=x, y=y, color=colour, opacity=faint), ours)
    per = "; ".join(
        f"D = {d}: {_span(rows['ratio'], '.2f')} (mean {rows['ratio'].mean():.3f})"
        for d, rows in data.groupby("D_label", sort=False)
    )
    return describe(
        chart.properties(width=420, height=280),
        "Fig. 5.10: the ratio of the AIMD(D², 1/2) flows' mean throughput to TCP's against "
        f"N = {_listed(data['flows'])} (log scale), one line per weight D, dashed the ideal D. "
        f"Ours over N: {per}.",
    )


# short legend labels: on a phone both fit side by side in the column (per packet: the y axis)
_DROPS, _LOSS_EVENTS = "drops, whole run", "loss events"


def fig511_chart(weighted: pd.DataFrame) -> alt.LayerChart | alt.FacetChart:
    """Fig. 5.11: against N, one colour per D, our drops per packet over the whole run, slow
    start included (solid), and our loss events per packet (dashed); diamonds: the
    thesis's ranges at N = 1, 2, 4 and what eq. (3.3) allows a full link at N = 1."""
    data = ratios(weighted, ["D", "flows"])
    data["D_label"] = data["D"].map(label)
    long = pd.concat(
        [
            data.assign(measure=_LOSS_EVENTS, percent=100 * data["loss_event_rate"]),
            data.assign(measure=_DROPS, percent=100 * data["drop_rate"]),
        ]
    )[["D_label", "flows", "measure", "percent"]]
    x = alt.X("flows:Q", title="N (flows of each kind)", scale=alt.Scale(type="log", base=2))
    y = alt.Y("percent:Q", title="per packet (%)", scale=alt.Scale(type="log"))
    chosen, opacity = highlight("D_label")  # eight weights: a legend click brings one forward
    ours = (
        alt.Chart(long)
        .mark_line(point=True)
        .add_params(chosen)
        .encode(
            x=x,
            y=y,
            opacity=opacity,
            color=alt.Color("D_label:N", title="weight D", sort=None),
            strokeDash=alt.StrokeDash(
                "measure:N",
                title=None,
                scale=alt.Scale(domain=[_DROPS, _LOSS_EVENTS], range=[[1, 0], [5, 4]]),
            ),
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
                scale=role_scale([FORMULA, PAPER]),
            ),
            stroke=alt.value(None),
            tooltip=["role:N", alt.Tooltip("percent:Q", format=".4f")],
        )
    )
    chart = alt.layer(ours, refs).properties(width=420, height=280)
    first = data[data["flows"] == data["flows"].min()]
    thesis = "; ".join(f"N = {n}: {100 * lo:.3f} to {100 * hi:.3f}%"
                       for n, (lo, hi) in THESIS_LOSS_EVENT.items())  # fmt: skip
    return describe(
        chart,
        "Fig. 5.11 on log scales: against N, one colour per weight D, our drops per packet over "
        "the whole run (solid) and loss events per packet (dashed); diamonds: the thesis's "
        f"ranges ({thesis}) and eq. (3.3)'s loss-event rate for a full link at N = 1, "
        f"D = 4/5 ({100 * by_hand_loss_event_rate(4 / 5):.4f}%). Ours at N = "
        f"{int(first['flows'].iloc[0])}: drops {_span(100 * first['drop_rate'], '.3f')}%, "
        f"loss events {_span(100 * first['loss_event_rate'], '.4f')}%; at N = "
        f"{int(data['flows'].max())}: drops "
        f"{_span(100 * data[data['flows'] == data['flows'].max()]['drop_rate'], '.3f')}%.",
    )


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
    chart = alt.layer(dots, mean, ideal).properties(width=420, height=260)
    means = data.groupby(["D_label", "kind"], sort=False)["normalised"].mean().unstack()
    ideal_of = data.drop_duplicates("D_label").set_index("D_label")["D"]
    per = "; ".join(
        f"D = {d}: TCP {means.loc[d, 'tcp']:.2f} (ideal {2 / (1 + ideal_of[d]):.2f}), "
        f"AIMD {means.loc[d, 'aimd']:.2f} (ideal {2 * ideal_of[d] / (1 + ideal_of[d]):.2f})"
        for d in values
    )
    return describe(
        chart,
        "Figs. 5.2-5.9, with a drop-down for the weight D: every flow's throughput over "
        f"capacity / (2N) against N = {_listed(data['flows'])} (log scale), TCP and the "
        "weighted AIMD flows as dots, their means dashed, the ideals 2/(1 + D) and 2D/(1 + D) "
        f"dotted. Mean over all flows and N: {per}.",
    )


def fig518_chart(mixes: pd.DataFrame) -> alt.HConcatChart:
    """Fig. 5.18 (left): the weighted flows' mean over TCP's against N, one colour per mix;
    dashed: the ideal, one over the mix's size. Right: each weight of each mix, its flows'
    mean over TCP's (mean over N) against the weight; the diagonal is the ideal."""
    found = mix_ratios(mixes)
    whole = found[found["weight"] == "all"]
    x = alt.X("flows:Q", title="N (flows of each kind)", scale=alt.Scale(type="log", base=2))
    colour = alt.Color("mix:N", title="mix", sort=None, legend=alt.Legend(labelLimit=240))
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
    chart = alt.hconcat(
        alt.layer(ideal, ours).properties(width=300, height=240),
        alt.layer(diagonal, dots).properties(width=240, height=240),
    )
    left = "; ".join(
        f"{mix}: {_span(rows['ratio'], '.2f')} (ideal {fraction(rows['D'].iloc[0])})"
        for mix, rows in whole.groupby("mix", sort=False)
    )
    right = "; ".join(f"{w}: {r:.2f}" for w, r in zip(per["weight"], per["ratio"], strict=True))
    return describe(
        chart,
        "Fig. 5.18, two charts. Left: the weighted flows' mean throughput over TCP's against "
        f"N = {_listed(whole['flows'])} (log scale), one line per mix, dashed the ideal, one "
        f"over the mix's size: {left}. Right: each weight's flows over TCP (mean over N) "
        f"against the weight, the diagonal the ideal: {right}.",
    )


def _flow_group(kind: str, weight: float) -> str:
    return "TCP" if kind == "tcp" else f"D = {label(weight)}"


def mixes_per_flow_chart(mixes: pd.DataFrame) -> alt.LayerChart | alt.FacetChart:
    """Figs. 5.12-5.17: every flow's throughput normalised by capacity / (2N) against N, for
    the mix a drop-down picks; one colour for TCP and one per weight of the mix, dashed their
    means, dotted the ideals. With N TCP flows and N weighted flows cycling through a mix of
    m weights summing to 1, TCP's ideal is 2m/(m + 1) and a weight w's is 2mw/(m + 1)."""
    data = mixes[["mix", "size", "flows", "kind", "weight", "normalised"]].copy()
    data["group"] = [_flow_group(k, w) for k, w in zip(data["kind"], data["weight"], strict=True)]
    share = 1.0 / (data["size"] + 1.0) * 2.0 * data["size"]
    data["ideal"] = np.where(data["kind"] == "tcp", share, share * data["weight"])
    mixes_found = list(dict.fromkeys(data["mix"]))
    pick = alt.param(name="pick_mix", value=mixes_found[0],
                     bind=alt.binding_select(options=mixes_found, name="mix "))  # fmt: skip
    x = alt.X("flows:Q", title="N (flows of each kind)", scale=alt.Scale(type="log", base=2))
    y = alt.Y("normalised:Q", title="throughput / (capacity / 2N)")
    colour = alt.Color("group:N", title=None, sort=None)
    base = alt.Chart(data).transform_filter("datum.mix == pick_mix")
    dots = (
        base.mark_circle(size=18, opacity=0.5)
        .encode(
            x=x,
            y=y,
            color=colour,
            tooltip=["group:N", "flows:Q", alt.Tooltip("normalised:Q", format=".2f")],
        )
        .add_params(pick)
    )
    mean = base.mark_line(strokeDash=[5, 4]).encode(x=x, y="mean(normalised):Q", color=colour)
    ideal = base.mark_line(strokeDash=[1, 3]).encode(x=x, y="mean(ideal):Q", color=colour)
    chart = alt.layer(dots, mean, ideal).properties(width=420, height=260)
    groups = data.groupby(["mix", "group"], sort=False)[["normalised", "ideal"]].mean()
    per = "; ".join(
        f"{mix}: "
        + ", ".join(
            f"{group} {row['normalised']:.2f} (ideal {row['ideal']:.2f})"
            for group, row in groups.loc[mix].iterrows()
        )
        for mix in mixes_found
    )
    return describe(
        chart,
        "The thesis's Figs. 5.12-5.17, with a drop-down for the mix: every flow's throughput "
        f"over capacity / (2N) against N = {_listed(data['flows'])} (log scale), TCP and each "
        "weight of the mix in its own colour, their means dashed and the ideals (2m/(m + 1) "
        "for TCP, 2mw/(m + 1) for weight w in a mix of m weights) dotted. Mean over all "
        f"flows and N: {per}.",
    )


def jk_chart(jk: pd.DataFrame) -> alt.HConcatChart:
    """The fluid proportion manager against K (J = 1 s: J only sets the time scale): the
    periods until D1 first comes near its fixed set (left) and D1's standard deviation over
    the second half (right), one line per scenario."""
    fluid = jk[jk["model"] == "fluid"][["scenario", "k", "reach_s", "sd_d1"]]
    x = alt.X("k:Q", title="K")
    colour = alt.Color("scenario:N", title="scenario")
    base = alt.Chart(fluid).mark_line(point=True)
    left = base.encode(
        x=x, y=alt.Y("reach_s:Q", title="periods to reach the fixed set"), color=colour,
        tooltip=["scenario:N", "k:Q", "reach_s:Q"],
    ).properties(width=260, height=220)  # fmt: skip
    right = base.encode(
        x=x, y=alt.Y("sd_d1:Q", title="std. dev. of D1, 2nd half"), color=colour,
        tooltip=["scenario:N", "k:Q", alt.Tooltip("sd_d1:Q", format=".3f")],
    ).properties(width=260, height=220)  # fmt: skip
    per = "; ".join(
        f"{name}: {_span(part['reach_s'], '.0f')} periods, standard deviation "
        f"{_span(part['sd_d1'], '.3f')}"
        for name, part in fluid.groupby("scenario", sort=False)
    )
    return describe(
        alt.hconcat(left, right),
        "The fluid proportion manager against K = "
        f"{_span(fluid['k'], '.2f')}, two charts, one line per scenario. Left: the periods "
        "until the first weight comes near its fixed set; right: its standard deviation over "
        "the second half of the run. Over K: " + per + ".",
    )


def fig33_chart(ks: tuple[float, ...] = (0.25, 0.5, 0.75, 1.0)) -> alt.Chart:
    """Fig. 3.3: the weight reduction ``(D - D^2) K`` of eq. (3.8) against D, one line per K."""
    d = np.linspace(0.0, 1.0, 101)
    data = pd.concat(
        [pd.DataFrame({"D": d, "reduction": bmc.weight_reduction(d, k), "K": str(k)}) for k in ks]
    )
    chart = (
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
    top = [rows.iloc[int(np.argmax(rows["reduction"]))] for _, rows in data.groupby("K")]
    peaks = "; ".join(
        f"K = {row['K']}: {row['reduction']:.4f} at D = {row['D']:.2f}" for row in top
    )
    ends = data[data["D"].isin([0.0, 1.0])]["reduction"].abs().max()
    return describe(
        chart,
        "Fig. 3.3: the weight reduction (D − D²) K of eq. (3.8) against the weight D from 0 to "
        f"1, one line per K. Each line is {ends:.0f} at D = 0 and D = 1 and largest at the "
        f"middle: {peaks}.",
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
    chart = (
        alt.layer(band, lines, data=data)
        .properties(width=300, height=200)
        .facet(column=alt.Column("scenario:N", title=None))
    )
    late = data[data["t"] > data["t"].max() / 2]
    per = []
    for name, rows in data.groupby("scenario", sort=False):
        low, high = fixed[name]
        fluid = rows[rows["model"] == "fluid"].sort_values("t")["weight"]
        packet = late[(late["scenario"] == name) & (late["model"] != "fluid")]["weight"]
        band_text = f"{low:.3f}" if abs(high - low) < 1e-9 else f"{low:.3f} to {high:.3f}"
        per.append(
            f"{name}: band {band_text}, the fluid model's last weight {fluid.iloc[-1]:.3f}, "
            f"the packet model's over the second half {_span(packet, '.2f')}"
        )
    return describe(
        chart,
        "The weight D1 of subflow 1 over time, one panel per scenario, from 1/2, for the "
        f"fluid and the packet model ({_listed(data['model'])}); the shaded band is the fluid "
        f"model's fixed set. {'; '.join(per)}.",
    )


def fluid_grid_chart(grid: pd.DataFrame, scenario: str, j_s: float) -> alt.HConcatChart:
    """The fluid proportion manager behind sliders: K and the first link's rate pick a
    precomputed run of ``scenario``; the weights and each source's Mb/s per period
    (time = period x J)."""
    data = grid[grid["scenario"] == scenario].copy()
    data["t"] = data["period"] * j_s
    data["kind"] = np.where(data["series"].isin(["D1", "D2"]), "weights", "Mb/s per source")
    data = data[["k", "rate", "t", "series", "kind", "value", "period"]]
    ks, rates = data["k"], data["rate"]
    k0, rate0 = float(ks.max() / 2), float(rates.min())  # where the sliders start
    k = slider(f"{scenario}_k", "K ", float(ks.min()), float(ks.max()), grid_step(ks), k0)
    rate = slider(f"{scenario}_rate", "first link (Mb/s) ", float(rates.min()), float(rates.max()),
                  grid_step(rates), rate0)  # fmt: skip
    picked = (
        alt.Chart(data.drop(columns="period").round({"value": 4}))
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
                tooltip=["series:N", "t:Q", alt.Tooltip("value:Q", format=".3f")],
            )
            .properties(width=280, height=180)
        )

    both = alt.hconcat(panel("weights", "weight"), panel("Mb/s per source", "Mb/s"))
    start = data[np.isclose(data["k"], k0) & np.isclose(data["rate"], rate0)]
    last = start[start["period"] == start["period"].max()].set_index("series")["value"]
    weights = ", ".join(f"{n} {last[n]:.3f}" for n in ("D1", "D2"))
    sources = ", ".join(f"{n} {v:.2f}" for n, v in last.drop(["D1", "D2"]).items())
    return describe(
        both.add_params(k, rate),
        f"Two charts with sliders for K ({_span(ks, 'g')}) and the first link's rate "
        f"({_span(rates, 'g')} Mb/s): the fluid proportion manager in the {scenario} scenario, "
        f"the weights D1 and D2 (left) and each source's Mb/s (right) per period of {j_s:g} s. "
        f"At K = {k0:g} and {rate0:g} Mb/s, after "
        f"{start['t'].max():g} s: weights {weights}; Mb/s {sources}.",
    )
