"""Charts of Morris (1997) on the packet model: one flow's seconds (Figs. 3, 5), the fairness
histograms with a drop-down for N (Figs. 4, 6), loss against N with confidence intervals (Figs.
7, 8; Fig. 7 also linked to the histogram of the N clicked on it), back-off stages against Lemma
3, the buffer sweeps (Figs. 9, 10), the remedies and the paper-silent choices. The paper's
values are drawn in the paper's colour beside ours.
"""

from __future__ import annotations

import altair as alt
import numpy as np
import pandas as pd

from tcplab.charts import FORMULA, OURS, PAPER, describe, highlight, role_colour
from tcplab.theory import morris as theory

from .analysis import HISTOGRAM_EDGES
from .claims import SAWTOOTH_N, SMALL_N, by_flows, slope

__all__ = [
    "series_chart",
    "histogram_chart",
    "loss_chart",
    "loss_histogram_chart",
    "detail_chart",
    "stages_chart",
    "buffers_few_chart",
    "buffers_many_chart",
    "variants_chart",
    "choices_chart",
    "rtt_chart",
    "delay_chart",
]

_PAPER_MARK = {"shape": "diamond", "size": 90, "color": "#D55E00"}
#: Fig. 7's points the paper states in its text (loss rate at N flows)
_FIG7_PAPER = pd.DataFrame(
    {"flows": [30, 1500, 250, 350], "mean": [0.007, 0.17, 0.06, 0.08],
     "note": ["Sec. 4", "Sec. 5", "DEC (Sec. 6)", "Harvard (Sec. 6)"], "role": PAPER}
)  # fmt: skip


def _percent(value: float) -> str:
    return f"{100 * value:.1f}%"


def _on_curve(data: pd.DataFrame, flows: float) -> float:
    """Fig. 7's line of means at ``flows``: straight between its points on the log N axis."""
    return float(np.interp(np.log(flows), np.log(data["flows"]), data["mean"]))


def series_chart(series: pd.DataFrame, flows: int, flow: int = 0) -> alt.LayerChart:
    """Figs. 3 and 5: one flow's bandwidth per second in fair shares, with the fair share."""
    data = series[(series["flows"] == flows) & (series["flow"] == flow)]
    data = data[["second", "share"]].round(4).assign(role=OURS)
    line = (
        alt.Chart(data, title=f"{flows} flows: flow {flow}")
        .mark_line(interpolate="step-before")
        .encode(
            x=alt.X("second:Q", title="time (s)"),
            y=alt.Y("share:Q", title="bandwidth (fair shares)"),
            color=role_colour([OURS]),
        )
    )
    fair = alt.Chart(pd.DataFrame({"y": [1.0]})).mark_rule(strokeDash=[4, 3]).encode(y="y:Q")
    share = data["share"]
    return describe(
        (line + fair).properties(width=300, height=180),
        f"{flows} flows: the bandwidth of flow {flow} in each of {len(data)} seconds, in fair "
        f"shares (the fair share, 1, dashed). It ranges from {share.min():.2f} to "
        f"{share.max():.2f} fair shares, {share.mean():.2f} on average; "
        f"{_percent(float((share == 0).mean()))} of its seconds deliver nothing.",
    )


def _histograms(loss: pd.DataFrame) -> pd.DataFrame:
    columns = [c for c in loss.columns if c.startswith("h") and c[1:].isdigit()]
    mean = loss.groupby("flows")[columns].mean()
    edges = HISTOGRAM_EDGES[: len(columns)]
    long = mean.reset_index().melt(id_vars="flows", var_name="bin", value_name="probability")
    long["share"] = long["bin"].map(dict(zip(columns, edges, strict=True)))
    return long[["flows", "share", "probability"]].round(5)


def _histogram_bars(data: pd.DataFrame) -> alt.Chart:
    return (
        alt.Chart(data, title="Fairness histogram")
        .mark_bar(color="#0072B2")
        .encode(
            x=alt.X("share:Q", title="bandwidth in one second (fair shares)", bin="binned"),
            x2=alt.X2("end:Q"),
            y=alt.Y("probability:Q", title="probability"),
            tooltip=["share:Q", "probability:Q"],
        )
        .transform_calculate(end="datum.share + 0.25")
        .properties(width=420, height=200)
    )


def histogram_chart(loss: pd.DataFrame, first: int = 30) -> alt.Chart:
    """Figs. 4 and 6 for every N of the loss sweep: the probability of a flow-second at each
    bandwidth (bins of a quarter fair share; the last holds 8 and more); a drop-down picks N."""
    data = _histograms(loss)
    values = sorted(int(n) for n in data["flows"].unique())
    shown = first if first in values else values[0]
    pick = alt.param(
        name="pick_flows",
        value=shown,
        bind=alt.binding_select(options=values, name="flows N "),
    )
    chart = _histogram_bars(data).transform_filter("datum.flows == pick_flows").add_params(pick)
    return describe(chart, _histogram_description(data, shown))


def _histogram_description(data: pd.DataFrame, first: int) -> str:
    def low_and_fair(n: int) -> str:
        bins = data[data["flows"] == n]
        low = bins.loc[bins["share"] < 0.25, "probability"].sum()
        fair = bins.loc[(bins["share"] >= 0.5) & (bins["share"] < 1.5), "probability"].sum()
        return (
            f"With N = {n}, {low:.2f} of the flow-seconds lie under a quarter of the fair "
            f"share and {fair:.2f} between half and one and a half fair shares"
        )

    values = sorted(int(n) for n in data["flows"].unique())
    shown = [first] + ([values[-1]] if values[-1] != first else [])
    return (
        "Fairness histogram: the probability that a flow moves a given bandwidth in one "
        "second, in bins of a quarter fair share (the last bin holds 8 and more); a drop-down "
        f"picks the number of flows N, from {values[0]} to {values[-1]}. "
        + ". ".join(low_and_fair(n) for n in shown)
        + "."
    )


def _flows_x(title: str = "flows N", log: bool = True) -> alt.X:
    return alt.X("flows:Q", title=title, scale=alt.Scale(type="log" if log else "linear"))


def _mean_ci(table: pd.DataFrame, column: str, extra: tuple[str, ...] = ()) -> pd.DataFrame:
    if extra:
        parts = [by_flows(g, column).assign(**dict(zip(extra, k if isinstance(k, tuple) else (k,),
                 strict=True))) for k, g in table.groupby(list(extra))]  # fmt: skip
        data = pd.concat(parts, ignore_index=True)
    else:
        data = by_flows(table, column)
    half = data["half"].fillna(0.0)
    return data.assign(low=data["mean"] - half, high=data["mean"] + half).round(6)


def _loss_layers(loss: pd.DataFrame) -> tuple[list[alt.Chart], pd.DataFrame]:
    data = _mean_ci(loss, "loss_rate").assign(role=OURS)
    x, y = _flows_x(), alt.Y("mean:Q", title="loss rate")
    tips = ["flows", "mean", "count"]
    colour = role_colour([OURS, PAPER])  # the 50% bound is a plain rule, not in the legend
    ours = alt.Chart(data).mark_line(point=True).encode(x=x, y=y, color=colour, tooltip=tips)
    bars = alt.Chart(data).mark_errorbar().encode(x=x, y=alt.Y("low:Q", title="loss rate"),
                                                  y2="high:Q")  # fmt: skip
    points = (
        alt.Chart(_FIG7_PAPER)
        .mark_point(filled=True, shape="diamond", size=90)
        .encode(x=x, y=y, color=colour, tooltip=["note", "flows", "mean"])
    )
    bound = (
        alt.Chart(pd.DataFrame({"y": [theory.lemma_bound()]}))
        .mark_rule(strokeDash=[4, 3], color="#009E73")
        .encode(y="y:Q")
    )
    storage = (
        alt.Chart(pd.DataFrame({"flows": [theory.network_storage(217)]}))
        .mark_rule(strokeDash=[2, 2], color="#999999")
        .encode(x="flows:Q")
    )
    return [ours, bars, points, bound, storage], data


def _loss_description(data: pd.DataFrame) -> str:
    pairs = "; ".join(
        f"{note}, N = {n}: paper {_percent(p)}, ours {_percent(_on_curve(data, n))}"
        for note, n, p in zip(_FIG7_PAPER["note"], _FIG7_PAPER["flows"], _FIG7_PAPER["mean"],
                              strict=True)
    )  # fmt: skip
    return (
        "Fig. 7: the loss rate at router A against the number of flows N (log axis), the mean "
        f"of {int(data['count'].max())} runs per N with its 95% interval, from "
        f"{_percent(float(data['mean'].iloc[0]))} at N = {int(data['flows'].iloc[0])} to "
        f"{_percent(float(data['mean'].iloc[-1]))} at N = {int(data['flows'].iloc[-1])}; the "
        f"paper's stated points are diamonds ({pairs}); "
        f"the back-off lemma's bound of {_percent(theory.lemma_bound())} is dashed, and N = "
        f"{theory.network_storage(217):.0f}, where windows of one packet fill the network, "
        "dotted."
    )


def loss_chart(loss: pd.DataFrame) -> alt.LayerChart:
    """Fig. 7: the loss rate against N (mean of the runs and its 95% interval), the paper's
    stated points (30 and 1500 flows, DEC and Harvard), the 50% bound and N = 434."""
    layers, data = _loss_layers(loss)
    chart = alt.LayerChart(layer=layers).properties(
        width=460, height=260, title="Loss rate against N"
    )
    return describe(chart, _loss_description(data))


def loss_histogram_chart(loss: pd.DataFrame, first: int = 1500) -> alt.VConcatChart:
    """Fig. 7 above the fairness histogram (Figs. 4 and 6) of the N picked on it: a click on
    a point of Fig. 7 or the drop-down picks N, and the picked point is drawn larger."""
    layers, data = _loss_layers(loss)
    bins = _histograms(loss)
    values = sorted(int(n) for n in bins["flows"].unique())
    shown = first if first in values else values[0]
    pick = alt.selection_point(
        name="fig7_pick",
        fields=["flows"],
        value=[{"flows": shown}],
        bind=alt.binding_select(options=values, name="flows N "),
        on="click",
        clear=False,
        nearest=True,
    )
    picked = (
        alt.Chart(data)
        .mark_point(filled=True, color="#0072B2")
        .encode(
            x=_flows_x(),
            y=alt.Y("mean:Q", title="loss rate"),
            size=alt.condition(pick, alt.value(160), alt.value(0)),
            tooltip=["flows", "mean", "count"],
        )
        .add_params(pick)
    )
    top = alt.LayerChart(layer=[*layers, picked]).properties(
        width=460, height=260, title="Loss rate against N (click a point)"
    )
    bottom = _histogram_bars(bins).transform_filter(pick)
    text = (
        _loss_description(data)
        + " Below it, the fairness histogram of the N picked by a click on a point of the "
        "loss curve or from the drop-down: " + _histogram_description(bins, shown)
    )
    return describe(alt.vconcat(top, bottom), text)


def detail_chart(loss: pd.DataFrame) -> alt.LayerChart:
    """Fig. 8: N <= 60 on log-log axes, each run with a loss, the power law fitted from
    N = :data:`SAWTOOTH_N` on, and Section 4's sawtooth estimate (a closed form growing as
    N^2)."""
    small = loss[(loss["flows"] <= SMALL_N) & (loss["loss_rate"] > 0)]
    small = small[["flows", "loss_rate"]].assign(role=OURS)
    s, _, _ = slope(loss)
    fitted = small[small["flows"] >= SAWTOOTH_N]  # the runs slope() fits
    grid = np.unique(np.geomspace(SAWTOOTH_N, SMALL_N, 40))
    lx, ly = np.log(fitted["flows"]), np.log(fitted["loss_rate"])
    fit = np.exp(ly.mean() + s * (np.log(grid) - lx.mean()))
    lines = pd.concat(
        [
            pd.DataFrame({"flows": grid, "loss_rate": fit, "role": OURS, "what": "fit"}),
            pd.DataFrame({"flows": grid, "loss_rate": theory.sawtooth_loss(grid),
                          "role": FORMULA, "what": "Sec. 4 estimate"}),
        ]
    ).round(7)  # fmt: skip
    x = _flows_x()
    y = alt.Y("loss_rate:Q", title="loss rate", scale=alt.Scale(type="log"))
    colour = role_colour([OURS, FORMULA, PAPER])
    dots = alt.Chart(small).mark_point().encode(x=x, y=y, color=colour)
    curve = alt.Chart(lines).mark_line().encode(x=x, y=y, color=colour, strokeDash="what:N")
    paper = pd.DataFrame({"flows": [30], "loss_rate": [0.007], "role": PAPER})
    mark = (
        alt.Chart(paper)
        .mark_point(filled=True, shape="diamond", size=90)
        .encode(x=x, y=y, color=colour)
    )
    chart = (dots + curve + mark).properties(width=420, height=240, title="N ≤ 60, log-log")
    ours_30 = small.loc[small["flows"] == 30, "loss_rate"]
    at_30 = (
        f"; ours at N = 30, {_percent(float(ours_30.mean()))} against the paper's "
        f"{_percent(float(paper['loss_rate'].iloc[0]))} (diamond) and Section 4's "
        f"{_percent(float(theory.sawtooth_loss(30)))}"
        if len(ours_30)
        else ""
    )
    return describe(
        chart,
        f"Fig. 8: the loss rate against the number of flows N up to {SMALL_N}, on log-log "
        f"axes: each of the {len(small)} runs with a loss (points), the power law fitted from "
        f"N = {SAWTOOTH_N} on (slope {s:.2f}), and Section 4's sawtooth estimate, which grows "
        f"as N squared{at_30}.",
    )


def stages_chart(loss: pd.DataFrame, flows: tuple[int, ...]) -> alt.LayerChart:
    """Back-off stages: flows in a 2^i-second time-out, measured (points) and Lemma 3's
    (2p)^i n_0 with the run's p and n_0 (lines), for each N of ``flows``."""
    stages = [c for c in loss.columns if c.startswith("n") and c[1:].isdigit()]
    rows = []
    for n in flows:
        runs = loss[loss["flows"] == n]
        if not len(runs):
            continue
        measured = runs[stages].mean().to_numpy()
        p = float(runs["loss_rate"].mean())
        lemma = theory.backoff_occupancy(measured[0], p, len(stages))
        for i, (m, t) in enumerate(zip(measured, lemma, strict=True)):
            for value, role in ((m, OURS), (t, FORMULA)):
                rows.append(
                    {"n": n, "flows": f"N = {n}", "stage": i, "flows_in_stage": value, "role": role}
                )
    data = pd.DataFrame(rows)
    data = data[data["flows_in_stage"] > 1e-3].round(5)
    x = alt.X("stage:O", title="back-off stage i (time-out of 2ⁱ s)")
    y = alt.Y("flows_in_stage:Q", title="flows in stage", scale=alt.Scale(type="log"))
    base = alt.Chart(data.drop(columns="n"))
    colour = role_colour([role for role in (OURS, FORMULA) if role in set(data["role"])])
    dots = (
        base.transform_filter(f"datum.role == '{OURS}'")
        .mark_point(filled=True)
        .encode(x=x, y=y, color=colour, shape="flows:N")
    )
    lines = (
        base.transform_filter(f"datum.role == '{FORMULA}'")
        .mark_line()
        .encode(x=x, y=y, color=colour, detail="flows:N")
    )
    chart = (dots + lines).properties(width=380, height=240, title="Lemma 3: nᵢ = (2p)ⁱ n₀")
    return describe(chart, _stages_description(data))


def _stages_description(data: pd.DataFrame) -> str:
    text = (
        "Lemma 3: the mean number of flows in back-off stage i (a time-out of 2^i s, log "
        "axis), measured (filled points, one shape per N) and Lemma 3's (2p)^i n_0 with the "
        "runs' loss rate p and n_0 (lines), for N = "
        + ", ".join(str(n) for n in data["n"].unique())
        + "."
    )
    first = data[data["stage"] == 1].pivot_table(index="n", columns="role",
                                                 values="flows_in_stage")  # fmt: skip
    if {OURS, FORMULA} <= set(first.columns) and len(first.dropna()):
        row = first.dropna().sort_index().iloc[-1]
        text += (
            f" With N = {row.name}, stage 1 holds {row[OURS]:.1f} flows, "
            f"{row[OURS] / row[FORMULA]:.2f} times the lemma's {row[FORMULA]:.1f}."
        )
    return text


def buffers_few_chart(few: pd.DataFrame) -> alt.LayerChart:
    """Fig. 9: 30 flows, goodput against the buffer (the delay-bandwidth product 217 marked)."""
    data = few.groupby("buffer")[["goodput_fraction", "utilisation"]].mean().reset_index()
    data = data.round(5).assign(role=OURS)
    x = alt.X("buffer:Q", title="buffer b (packets)", scale=alt.Scale(type="log"))
    line = alt.Chart(data).mark_line(point=True).encode(
        x=x, y=alt.Y("goodput_fraction:Q", title="goodput (fraction of the link)",
                     scale=alt.Scale(zero=False)), color=role_colour([OURS]),
        tooltip=["buffer", "goodput_fraction", "utilisation"],
    )  # fmt: skip
    product = theory.link_storage()
    rule = (
        alt.Chart(pd.DataFrame({"buffer": [round(product)]}))
        .mark_rule(strokeDash=[4, 3])
        .encode(x="buffer:Q")
    )
    chart = (line + rule).properties(width=380, height=220, title="30 TCPs")
    flows = ", ".join(str(n) for n in sorted(few["flows"].unique()))
    points = "; ".join(
        f"b = {b:g}: {g:.3f}" for b, g in zip(data["buffer"], data["goodput_fraction"],
                                               strict=True)
    )  # fmt: skip
    rising = data["goodput_fraction"].is_monotonic_increasing
    trend = "grows with" if rising else "against"
    return describe(
        chart,
        f"Fig. 9: {flows} flows, goodput as a fraction of the link against the buffer b "
        f"(packets, log axis), the delay-bandwidth product of {product:.0f} packets dashed. "
        f"Goodput {trend} the buffer: {points}.",
    )


def buffers_many_chart(many: pd.DataFrame) -> alt.LayerChart:
    """Fig. 10: 500 flows, the drop rate and the share of seconds under 5% of the fair share
    against the buffer; rules at 1783 packets (windows of four: fast retransmit works) and at
    ten buffers per TCP."""
    data = many.groupby("buffer")[["loss_rate", "under_5pct"]].mean().reset_index()
    long = data.melt(id_vars="buffer", var_name="measure", value_name="percent")
    long["percent"] = 100.0 * long["percent"]
    long["measure"] = long["measure"].map(
        {"loss_rate": "drop rate", "under_5pct": "seconds under 5% share"}
    )
    x = alt.X("buffer:Q", title="buffer b (packets)")
    lines = alt.Chart(long.round(4)).mark_line(point=True).encode(
        x=x, y=alt.Y("percent:Q", title="percent"), color=alt.Color("measure:N", title=None),
        tooltip=["buffer", "measure", "percent"],
    )  # fmt: skip
    flows = int(many["flows"].max())
    marks = pd.DataFrame({"buffer": [theory.fast_retransmit_buffer(flows), 10.0 * flows]})
    rules = alt.Chart(marks).mark_rule(strokeDash=[4, 3], color="#999999").encode(x="buffer:Q")
    chart = (lines + rules).properties(width=420, height=240, title="500 TCPs")
    first, last = data.iloc[0], data.iloc[-1]
    return describe(
        chart,
        f"Fig. 10: {flows} flows, the drop rate and the share of seconds in which a flow gets "
        "under 5% of its fair share, in percent, against the buffer b (packets); dashed rules "
        f"at {marks['buffer'].iloc[0]:.0f} packets (windows of four, so fast retransmit works) "
        f"and {marks['buffer'].iloc[1]:.0f} (ten buffers per TCP). From b = "
        f"{first['buffer']:g} to {last['buffer']:g} the drop rate falls from "
        f"{_percent(first['loss_rate'])} to {_percent(last['loss_rate'])} and the seconds "
        f"under 5% from {_percent(first['under_5pct'])} to {_percent(last['under_5pct'])}.",
    )


def variants_chart(remedies: pd.DataFrame) -> alt.LayerChart:
    """Beyond the paper: loss against N for each sender and queue, with 95% intervals."""
    table = remedies.assign(variant=remedies["sender"] + " / " + remedies["queue"])
    data = _mean_ci(table, "loss_rate", ("variant",))
    x = _flows_x()
    base = alt.Chart(data)
    colour = alt.Color("variant:N", title=None)
    chosen, opacity = highlight("variant")  # seven variants: a legend click brings one forward
    lines = base.mark_line(point=True).encode(
        x=x, y=alt.Y("mean:Q", title="loss rate"), color=colour, opacity=opacity,
        tooltip=["variant", "flows", "mean", "half"],
    ).add_params(chosen)  # fmt: skip
    bars = base.mark_errorbar().encode(x=x, y=alt.Y("low:Q", title="loss rate"), y2="high:Q",
                                       color=colour, opacity=opacity)  # fmt: skip
    chart = (lines + bars).properties(width=460, height=260, title="Remedies and variants")
    top = data[data["flows"] == data["flows"].max()].sort_values("mean")
    ranking = ", ".join(
        f"{v} {_percent(m)}" for v, m in zip(top["variant"], top["mean"], strict=True)
    )
    return describe(
        chart,
        "Remedies and variants: the loss rate against the number of flows N (log axis) for "
        "each sender / queue, the mean of the runs with its 95% interval. At N = "
        f"{int(top['flows'].iloc[0])}, from lowest to highest: {ranking}.",
    )


#: a long category label set on two lines, broken at the last space before its 24th
#: character (Vega would cut it at the axis's label limit instead)
TWO_LINES = (
    "length(datum.label) > 26 ? [substring(datum.label, 0, lastindexof(substring(datum.label, "
    "0, 24), ' ')), substring(datum.label, lastindexof(substring(datum.label, 0, 24), ' ') + 1)]"
    " : datum.label"
)


def choices_chart(choices: pd.DataFrame) -> alt.FacetChart | alt.LayerChart:
    """What the paper leaves open: the loss rate under each choice (mean and 95% interval)."""
    data = _mean_ci(choices, "loss_rate", ("choice",))
    data["N"] = "N = " + data["flows"].astype(str)
    y = alt.Y("choice:N", title=None, sort=None, axis=alt.Axis(labelExpr=TWO_LINES))
    base = alt.Chart(data)
    dots = base.mark_point(filled=True).encode(x=alt.X("mean:Q", title="loss rate"), y=y,
                                               color=alt.Color("N:N", title=None))  # fmt: skip
    bars = base.mark_rule().encode(x="low:Q", x2="high:Q", y=y, color="N:N")
    chart = (dots + bars).properties(width=360, height=220, title="The paper's silences")
    parts = []
    for n, group in data.groupby("flows"):
        low, high = group.loc[group["mean"].idxmin()], group.loc[group["mean"].idxmax()]
        parts.append(
            f"at N = {n} from {_percent(low['mean'])} ({low['choice']}) to "
            f"{_percent(high['mean'])} ({high['choice']})"
        )
    return describe(
        chart,
        "The paper's silences: the loss rate under each choice the paper leaves open, one "
        "row per choice, the mean of the runs (dots) and its 95% interval (rules); it moves "
        + "; ".join(parts)
        + ".",
    )


def rtt_chart(loss: pd.DataFrame) -> alt.LayerChart:
    """Beyond 1500 flows: the mean smoothed RTT against N (mean and 95% interval), with the
    round trip the paper allows (0.1 s of propagation plus at most 0.1 s in router A's queue)
    and one packet's time on an access link of 100/N Mb/s added to it."""
    data = _mean_ci(loss, "mean_rtt")
    n = data["flows"].to_numpy(dtype=float)
    bound = pd.DataFrame({"flows": n, "mean": 0.2 + 576 * 8 / (100e6 / n)})
    x = _flows_x()
    base = alt.Chart(data)
    lines = base.mark_line(point=True, color="#0072B2").encode(
        x=x, y=alt.Y("mean:Q", title="mean smoothed RTT (s)"), tooltip=["flows", "mean", "half"]
    )
    bars = base.mark_errorbar(color="#0072B2").encode(x=x, y="low:Q", y2="high:Q")
    limit = alt.Chart(bound).mark_line(strokeDash=[4, 3], color="#009E73").encode(x=x, y="mean:Q")
    chart = (lines + bars + limit).properties(width=420, height=240, title="RTT against N")
    first, last = data.iloc[0], data.iloc[-1]
    at1500 = data[data["flows"] == 1500]
    middle = f", {at1500['mean'].iloc[0]:.2f} s at N = 1500" if len(at1500) else ""
    return describe(
        chart,
        "The mean smoothed round-trip time against the number of flows N (log axis), mean of "
        "the runs with its 95% interval; dashed green: 0.2 s (propagation plus a full queue at "
        "router A) plus one packet's transmission on an access link of 100/N Mb/s. It goes "
        f"from {first['mean']:.2f} s at N = {int(first['flows'])}{middle} to "
        f"{last['mean']:.2f} s at N = {int(last['flows'])}.",
    )


def delay_chart(runs: pd.DataFrame) -> alt.LayerChart:
    """Fig. 10's delay cost: the mean smoothed RTT against the buffer (mean and 95% interval
    over the runs), with the propagation round trip plus a full buffer's queueing delay."""
    by_buffer = runs.drop(columns="flows").rename(columns={"buffer": "flows"})
    data = _mean_ci(by_buffer, "mean_rtt").rename(columns={"flows": "buffer"})
    full = pd.DataFrame({"buffer": data["buffer"], "mean": 0.1 + data["buffer"] / 2170.14})
    x = alt.X("buffer:Q", title="buffer b (packets)")
    base = alt.Chart(data)
    lines = base.mark_line(point=True, color="#0072B2").encode(
        x=x, y=alt.Y("mean:Q", title="mean smoothed RTT (s)"), tooltip=["buffer", "mean", "half"]
    )
    bars = base.mark_errorbar(color="#0072B2").encode(x=x, y="low:Q", y2="high:Q")
    limit = alt.Chart(full).mark_line(strokeDash=[4, 3], color="#009E73").encode(x=x, y="mean:Q")
    chart = (lines + bars + limit).properties(width=420, height=220, title="The delay cost")
    first, last = data.iloc[0], data.iloc[-1]
    return describe(
        chart,
        f"{int(runs['flows'].max())} flows: the mean smoothed round-trip time against router "
        "A's buffer b (packets), mean of the runs with its 95% interval; dashed green: 0.1 s "
        "of propagation plus a full buffer's queueing delay (b / 2170 s). It grows from "
        f"{first['mean']:.2f} s at b = {int(first['buffer'])} to {last['mean']:.2f} s at "
        f"b = {int(last['buffer'])}.",
    )
