"""Charts of Morris (1997) on the packet model: one flow's seconds (Figs. 3, 5), the fairness
histograms with a drop-down for N (Figs. 4, 6), loss against N with confidence intervals
(Figs. 7, 8), back-off stages against Lemma 3, the buffer sweeps (Figs. 9, 10), the remedies
and the paper-silent choices. The paper's values are drawn in the paper's colour beside ours.
"""

from __future__ import annotations

import altair as alt
import numpy as np
import pandas as pd

from tcplab.charts import FORMULA, OURS, PAPER, role_colour
from tcplab.theory import morris as theory

from .analysis import HISTOGRAM_EDGES
from .claims import SAWTOOTH_N, SMALL_N, by_flows, slope

__all__ = [
    "series_chart",
    "histogram_chart",
    "loss_chart",
    "detail_chart",
    "stages_chart",
    "buffers_few_chart",
    "buffers_many_chart",
    "variants_chart",
    "choices_chart",
]

_ROLE = role_colour([OURS, FORMULA, PAPER])
_PAPER_MARK = {"shape": "diamond", "size": 90, "color": "#D55E00"}


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
            color=_ROLE,
        )
    )
    fair = alt.Chart(pd.DataFrame({"y": [1.0]})).mark_rule(strokeDash=[4, 3]).encode(y="y:Q")
    return (line + fair).properties(width=300, height=180)


def _histograms(loss: pd.DataFrame) -> pd.DataFrame:
    columns = [c for c in loss.columns if c.startswith("h") and c[1:].isdigit()]
    mean = loss.groupby("flows")[columns].mean()
    edges = HISTOGRAM_EDGES[: len(columns)]
    long = mean.reset_index().melt(id_vars="flows", var_name="bin", value_name="probability")
    long["share"] = long["bin"].map(dict(zip(columns, edges, strict=True)))
    return long[["flows", "share", "probability"]].round(5)


def histogram_chart(loss: pd.DataFrame, first: int = 30) -> alt.Chart:
    """Figs. 4 and 6 for every N of the loss sweep: the probability of a flow-second at each
    bandwidth (bins of a quarter fair share; the last holds 8 and more); a drop-down picks N."""
    data = _histograms(loss)
    values = sorted(int(n) for n in data["flows"].unique())
    pick = alt.param(
        name="pick_flows",
        value=first if first in values else values[0],
        bind=alt.binding_select(options=values, name="flows N "),
    )
    return (
        alt.Chart(data, title="Fairness histogram")
        .mark_bar(color="#0072B2")
        .encode(
            x=alt.X("share:Q", title="bandwidth in one second (fair shares)", bin="binned"),
            x2=alt.X2("end:Q"),
            y=alt.Y("probability:Q", title="probability"),
            tooltip=["share:Q", "probability:Q"],
        )
        .transform_filter("datum.flows == pick_flows")
        .transform_calculate(end="datum.share + 0.25")
        .add_params(pick)
        .properties(width=420, height=200)
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


def loss_chart(loss: pd.DataFrame) -> alt.LayerChart:
    """Fig. 7: the loss rate against N (mean of the runs and its 95% interval), the paper's
    stated points (30 and 1500 flows, DEC and Harvard), the 50% bound and N = 434."""
    data = _mean_ci(loss, "loss_rate").assign(role=OURS)
    x, y = _flows_x(), alt.Y("mean:Q", title="loss rate")
    tips = ["flows", "mean", "count"]
    ours = alt.Chart(data).mark_line(point=True).encode(x=x, y=y, color=_ROLE, tooltip=tips)
    bars = alt.Chart(data).mark_errorbar().encode(x=x, y=alt.Y("low:Q", title="loss rate"),
                                                  y2="high:Q")  # fmt: skip
    paper = pd.DataFrame(
        {"flows": [30, 1500, 250, 350], "mean": [0.007, 0.17, 0.06, 0.08],
         "note": ["Sec. 4", "Sec. 5", "DEC (Sec. 6)", "Harvard (Sec. 6)"], "role": PAPER}
    )  # fmt: skip
    points = alt.Chart(paper).mark_point(filled=True, shape="diamond", size=90).encode(
        x=x, y=y, color=_ROLE, tooltip=["note", "flows", "mean"]
    )
    bound = alt.Chart(pd.DataFrame({"y": [theory.lemma_bound()]})).mark_rule(
        strokeDash=[4, 3], color="#009E73"
    ).encode(y="y:Q")
    storage = alt.Chart(pd.DataFrame({"flows": [theory.network_storage(217)]})).mark_rule(
        strokeDash=[2, 2], color="#999999"
    ).encode(x="flows:Q")
    return (ours + bars + points + bound + storage).properties(
        width=460, height=260, title="Fig. 7: loss rate against N"
    )


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
    dots = alt.Chart(small).mark_point().encode(x=x, y=y, color=_ROLE)
    curve = alt.Chart(lines).mark_line().encode(x=x, y=y, color=_ROLE, strokeDash="what:N")
    paper = pd.DataFrame({"flows": [30], "loss_rate": [0.007], "role": PAPER})
    mark = alt.Chart(paper).mark_point(filled=True, shape="diamond", size=90).encode(
        x=x, y=y, color=_ROLE
    )
    return (dots + curve + mark).properties(width=420, height=240, title="Fig. 8: N <= 60")


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
            rows.append({"flows": f"N = {n}", "stage": i, "flows_in_stage": m, "role": OURS})
            rows.append({"flows": f"N = {n}", "stage": i, "flows_in_stage": t, "role": FORMULA})
    data = pd.DataFrame(rows)
    data = data[data["flows_in_stage"] > 1e-3].round(5)
    x = alt.X("stage:O", title="back-off stage i (time-out of 2^i s)")
    y = alt.Y("flows_in_stage:Q", title="flows in stage", scale=alt.Scale(type="log"))
    base = alt.Chart(data)
    dots = base.transform_filter(f"datum.role == '{OURS}'").mark_point(filled=True).encode(
        x=x, y=y, color=_ROLE, shape="flows:N"
    )
    lines = base.transform_filter(f"datum.role == '{FORMULA}'").mark_line().encode(
        x=x, y=y, color=_ROLE, detail="flows:N"
    )
    return (dots + lines).properties(width=380, height=240, title="Lemma 3: n_i = (2p)^i n_0")


def buffers_few_chart(few: pd.DataFrame) -> alt.LayerChart:
    """Fig. 9: 30 flows, goodput against the buffer (the delay-bandwidth product 217 marked)."""
    data = few.groupby("buffer")[["goodput_fraction", "utilisation"]].mean().reset_index()
    data = data.round(5).assign(role=OURS)
    x = alt.X("buffer:Q", title="buffer b (packets)", scale=alt.Scale(type="log"))
    line = alt.Chart(data).mark_line(point=True).encode(
        x=x, y=alt.Y("goodput_fraction:Q", title="goodput (fraction of the link)",
                     scale=alt.Scale(zero=False)), color=_ROLE,
        tooltip=["buffer", "goodput_fraction", "utilisation"],
    )  # fmt: skip
    rule = alt.Chart(pd.DataFrame({"buffer": [217]})).mark_rule(strokeDash=[4, 3]).encode(
        x="buffer:Q"
    )
    return (line + rule).properties(width=380, height=220, title="Fig. 9: 30 TCPs")


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
    marks = pd.DataFrame({"buffer": [theory.fast_retransmit_buffer(500), 5000.0]})
    rules = alt.Chart(marks).mark_rule(strokeDash=[4, 3], color="#999999").encode(x="buffer:Q")
    return (lines + rules).properties(width=420, height=240, title="Fig. 10: 500 TCPs")


def variants_chart(remedies: pd.DataFrame) -> alt.LayerChart:
    """Beyond the paper: loss against N for each sender and queue, with 95% intervals."""
    table = remedies.assign(variant=remedies["sender"] + " / " + remedies["queue"])
    data = _mean_ci(table, "loss_rate", ("variant",))
    x = _flows_x()
    base = alt.Chart(data)
    colour = alt.Color("variant:N", title=None)
    lines = base.mark_line(point=True).encode(
        x=x, y=alt.Y("mean:Q", title="loss rate"), color=colour,
        tooltip=["variant", "flows", "mean", "half"],
    )  # fmt: skip
    bars = base.mark_errorbar().encode(x=x, y=alt.Y("low:Q", title="loss rate"), y2="high:Q",
                                       color=colour)  # fmt: skip
    return (lines + bars).properties(width=460, height=260, title="Remedies and variants")


def choices_chart(choices: pd.DataFrame) -> alt.FacetChart | alt.LayerChart:
    """What the paper leaves open: the loss rate under each choice (mean and 95% interval)."""
    data = _mean_ci(choices, "loss_rate", ("choice",))
    data["N"] = "N = " + data["flows"].astype(str)
    y = alt.Y("choice:N", title=None, sort=None)
    base = alt.Chart(data)
    dots = base.mark_point(filled=True).encode(x=alt.X("mean:Q", title="loss rate"), y=y,
                                               color=alt.Color("N:N", title=None))  # fmt: skip
    bars = base.mark_rule().encode(x="low:Q", x2="high:Q", y=y, color="N:N")
    return (dots + bars).properties(width=360, height=220, title="The paper's silences")
