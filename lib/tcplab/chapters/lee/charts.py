"""Charts in the form of Lee et al.'s Figs. 2-4 (box plots against the number of flows, and
per-flow throughput per repetition), and the meeting of the three parallel-TCP papers."""

from __future__ import annotations

import altair as alt
import pandas as pd

from tcplab.charts import PALETTE, dense, describe

from .analysis import aggregates, meeting, per_flow, saturation_curves

__all__ = [
    "READINGS",
    "aggregate_boxes",
    "per_flow_boxes",
    "repetitions_chart",
    "meeting_chart",
    "saturation_chart",
]


#: the median of every box: a thick dark bar across it, drawn whatever the box's spread, so
#: that a box whose repetitions (nearly) agree is a bar, not a hairline that reads as missing
MEDIAN = {"color": "#000000", "thickness": 3}

#: how the charts name the two readings of the aggregate (analysis.DEFINITIONS)
READINGS = {
    "aggregate_bytes_per_s": "A: bytes / last completion",
    "sum_of_rates_bytes_per_s": "B: sum of the transfers' rates",
}


def _boxes(table: pd.DataFrame, columns: dict[str, str], axis: str, what: str) -> alt.FacetChart:
    """Box plots of each of ``columns`` (bytes/s, drawn in KB/s; the value names the facet
    row) per number of flows, one panel per path model, described by each box's median."""
    agg = aggregates(table)
    data = pd.concat(
        [
            agg.assign(kbps=agg[c] / 1e3, reading=name)[["path", "flows", "reading", "kbps"]]
            for c, name in columns.items()
        ],
        ignore_index=True,
    )
    chart = (
        alt.Chart(data, width=160, height=180)
        .mark_boxplot(
            extent="min-max",
            size=16,
            box={"color": PALETTE[0], "opacity": 0.55},
            median=MEDIAN,
            rule={"color": MEDIAN["color"]},
        )
        .encode(
            x=alt.X("flows:O", title="parallel flows"),
            y=alt.Y("kbps:Q", title=axis),
        )
        .facet(
            column=alt.Column("path:N", title="path model"),
            row=alt.Row("reading:N", title=None),
        )
        .resolve_scale(y="independent")
    )
    med = data.groupby(["reading", "path", "flows"])["kbps"].median().round(0)
    text = "; ".join(f"{r}, {p} {n} flows median {v:.0f} KB/s" for (r, p, n), v in med.items())
    return describe(chart, f"Box plots of {what} per number of flows: {text}.")


def aggregate_boxes(table: pd.DataFrame) -> alt.FacetChart:
    """Fig. 2's form, both readings of the aggregate (KB/s), one box per number of flows, one
    panel per path model."""
    return _boxes(table, READINGS, "aggregate (KB/s)", "the aggregate throughput")


def per_flow_boxes(table: pd.DataFrame) -> alt.FacetChart:
    """Fig. 3's form: box plots of the mean throughput per flow (aggregate A / N)."""
    return _boxes(table, {"mean_per_flow_bytes_per_s": "aggregate A / N"},
                  "mean per flow (KB/s)", "the mean throughput per flow")  # fmt: skip


def repetitions_chart(table: pd.DataFrame, flows: int) -> alt.FacetChart:
    """Fig. 4's form: every flow's throughput (KB/s) against the repetition index, at
    ``flows`` flows; flows that had a time-out in another colour."""
    pf = per_flow(table)
    pf = pf[pf["flows"] == flows]
    share = pf.groupby("path")["timeouts"].apply(lambda s: (s > 0).mean())
    drawn = pd.DataFrame({  # only what is drawn: 15,000 points at the paper's scale
        "path": pf["path"],
        "repetition": pf["repetition"],
        "kbps": (pf["bytes_per_s"] / 1e3).round(1),
        "timeout": (pf["timeouts"] > 0).map({True: "had a time-out", False: "none"}),
    })  # fmt: skip
    chart = (
        alt.Chart(drawn, width=200, height=220)
        .mark_circle(size=12, opacity=0.6)
        .encode(
            x=alt.X("repetition:Q", title="repetition"),
            y=alt.Y("kbps:Q", title="throughput per flow (KB/s)"),
            color=alt.Color("timeout:N", title="time-outs"),
        )
        .facet(column=alt.Column("path:N", title="path model"))
    )
    text = "; ".join(f"{p}: {v:.0%} of flows had a time-out" for p, v in share.items())
    text = f"Throughput of every flow at {flows} flows per repetition; {text}."
    return dense(describe(chart, text))  # 15,000 points at the paper's scale: a canvas


def meeting_chart(table: pd.DataFrame, path: str, capacity_bytes_per_s: float) -> alt.Chart:
    """The measured median aggregate / capacity beside Altman's Theorem 1 and Lu's
    two-probe prediction (probes at the two smallest numbers of flows)."""
    data = meeting(table, path, capacity_bytes_per_s).melt(
        "flows", var_name="curve", value_name="share"
    )
    names = {"measured": "measured (median)", "altman": "Altman Theorem 1",
             "lu": "Lu two-probe"}  # fmt: skip
    data["curve"] = data["curve"].map(names)
    chart = (
        alt.Chart(data)
        .mark_line(point=True)
        .encode(
            x=alt.X("flows:Q", title="parallel flows"),
            y=alt.Y("share:Q", title="aggregate / bottleneck capacity"),
            color=alt.Color("curve:N", title=None),
        )
    )
    wide = data.pivot(index="flows", columns="curve", values="share")
    text = "; ".join(
        f"{n} flows: " + ", ".join(f"{c} {v:.2f}" for c, v in row.items())
        for n, row in wide.iterrows()
    )
    return describe(chart, f"The {path} path's aggregate as a share of the bottleneck: {text}.")


def saturation_chart(table: pd.DataFrame, capacity_bytes_per_s: float) -> alt.HConcatChart:
    """The shared path and its variants: the median aggregate as a share of the bottleneck
    against the number of flows, beside the share of transfers that had a time-out."""
    data = saturation_curves(table, capacity_bytes_per_s).rename(columns={"path": "variant"})
    data["variant"] = data["variant"].replace({"shared": "shared (as shipped)"})
    colour = alt.Color("variant:N", title="path")

    def one(column: str, title: str) -> alt.Chart:
        return (
            alt.Chart(data, width=260, height=220)
            .mark_line(point=True)
            .encode(
                x=alt.X("flows:Q", title="parallel flows"),
                y=alt.Y(f"{column}:Q", title=title, scale=alt.Scale(domain=[0, 1])),
                color=colour,
                tooltip=["variant:N", "flows:Q", alt.Tooltip(f"{column}:Q", format=".2f")],
            )
        )

    chart = alt.hconcat(
        one("share", "median aggregate / bottleneck"),
        one("with_timeout", "transfers with a time-out"),
    )
    text = "; ".join(
        f"{v}: "
        + ", ".join(f"{n} flows {s:.2f}" for n, s in zip(part.flows, part.share, strict=True))
        for v, part in data.groupby("variant", sort=False)
    )
    return describe(chart, f"Median aggregate as a share of the bottleneck per variant: {text}.")
