"""Charts of the Lu et al. chapter: the six scenarios, the predictions from two probes and
their errors, the impact on cross traffic, the advisor against brute force, and the
emulated paths. Drop-downs are Vega-Lite params, so every chart works on a static page.

Throughputs are drawn in MB/s (10^6 bytes per second), as the paper's figures draw bytes/s.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import altair as alt
import numpy as np
import pandas as pd

from tcplab.charts import FORMULA, OURS, PALETTE, PAPER, ROLE_COLOURS, highlight

from .analysis import CROSS, PARALLEL

__all__ = [
    "advisor_chart",
    "elasticity_chart",
    "error_chart",
    "impact_cdf_chart",
    "impact_chart",
    "levels_chart",
    "model_check_chart",
    "paths_chart",
    "prediction_chart",
    "scenarios_chart",
    "sensitivity_chart",
    "trace_chart",
]

MB = 1e6
SERIES = {"parallel": "parallel TCP", "cross": "cross traffic", "total": "overall"}
PAIR_COLOURS = {"(1, 8)": PALETTE[2], "(1, 10)": PALETTE[0], "(1, 15)": PALETTE[4],
                "(1, 2)": PALETTE[3]}  # fmt: skip


def _cross_pick(values: Sequence[int], value: int, name: str = "pick_cross") -> alt.Parameter:
    options = sorted(int(v) for v in set(values))
    start = value if value in options else options[0]
    return alt.param(
        name=name,
        value=start,
        bind=alt.binding_select(options=options, name="cross-traffic flows "),
    )


def _grid(panels: Sequence[Any], columns: int = 3) -> alt.VConcatChart:
    rows = [alt.hconcat(*panels[i : i + columns]) for i in range(0, len(panels), columns)]
    return alt.vconcat(*rows)


def _flows_x(title: str = "parallel TCP flows n") -> alt.X:
    return alt.X("flows:Q", title=title, scale=alt.Scale(domain=[0, 32]))


def _mean_curves(table: pd.DataFrame) -> pd.DataFrame:
    """DropTail curves averaged over replicas, long form (scenario, cross, flows, series,
    mbps)."""
    drop = table[table["queue"] == "droptail"]
    mean = drop.groupby(["scenario", "cross", "flows"], as_index=False)[[PARALLEL, CROSS]].mean()
    mean["total"] = mean[PARALLEL] + mean[CROSS]
    long = mean.rename(columns={PARALLEL: "parallel", CROSS: "cross_"}).melt(
        id_vars=["scenario", "cross", "flows"], value_vars=["parallel", "cross_", "total"],
        var_name="series", value_name="value",
    )  # fmt: skip
    long["series"] = long["series"].map({"parallel": SERIES["parallel"], "cross_":
                                         SERIES["cross"], "total": SERIES["total"]})  # fmt: skip
    long["mbps"] = (long["value"] / MB).round(4)
    return long.drop(columns="value")


def scenarios_chart(table: pd.DataFrame, cross: int = 10) -> alt.VConcatChart:
    """Figs. 3-8: parallel, cross-traffic and overall throughput against n, one panel per
    scenario (DropTail, mean over replicas), the cross-traffic level chosen in a drop-down;
    the dashed line is the bottleneck's capacity."""
    long = _mean_curves(table)
    pick = _cross_pick(long["cross"], cross)
    colour = alt.Color(
        "series:N", title=None, sort=list(SERIES.values()),
        scale=alt.Scale(domain=list(SERIES.values()), range=PALETTE[:3]),
    )  # fmt: skip
    capacity = table.groupby("scenario")["capacity_bytes_per_s"].first() / MB
    panels: list[Any] = []
    for k in sorted(long["scenario"].unique()):
        part = long[long["scenario"] == k]
        base = alt.Chart(part, title=f"scenario {k}").transform_filter(
            f"datum.cross == {pick.name}"
        )
        lines = base.mark_line(point=True).encode(
            x=_flows_x(),
            y=alt.Y("mbps:Q", title="throughput (MB/s)"),
            color=colour,
            tooltip=["series:N", "flows:Q", "mbps:Q", "cross:Q"],
        )
        cap = (
            alt.Chart(pd.DataFrame({"mbps": [round(float(capacity[k]), 4)]}))
            .mark_rule(strokeDash=[4, 3], color="#888888")
            .encode(y="mbps:Q")
        )
        layer = alt.layer(lines, cap).properties(width=230, height=170)
        panels.append(layer.add_params(pick) if not panels else layer)
    return _grid(panels)


def prediction_chart(pred: pd.DataFrame, cross: int = 10) -> alt.VConcatChart:
    """Figs. 9 and 11 on the scenarios: the simulated curve (dots) and its prediction from
    each probe pair (lines), one panel per scenario, DropTail, replica 0."""
    data = pred[(pred["queue"] == "droptail") & (pred["replica"] == 0)].copy()
    data["measured_mbps"] = (data["measured"] / MB).round(4)
    data["predicted_mbps"] = (data["predicted"] / MB).round(4)
    pick = _cross_pick(data["cross"], cross)
    pairs = [p for p in PAIR_COLOURS if p in set(data["probes"])]
    colour = alt.Color(
        "probes:N", title="probes", sort=pairs,
        scale=alt.Scale(domain=pairs, range=[PAIR_COLOURS[p] for p in pairs]),
    )  # fmt: skip
    panels: list[Any] = []
    for k in sorted(data["scenario"].unique()):
        part = data[data["scenario"] == k][
            ["scenario", "cross", "flows", "probes", "measured_mbps", "predicted_mbps"]
        ]
        top = prediction_top(part["measured_mbps"])
        scale = alt.Scale(domain=[0, top], nice=False)
        y = alt.Y("measured_mbps:Q", title="parallel TCP (MB/s)", scale=scale)
        base = alt.Chart(part, title=f"scenario {k}").transform_filter(
            f"datum.cross == {pick.name}"
        )
        measured = (
            base.transform_filter("datum.probes == '(1, 10)'")
            .mark_point(filled=True, size=45, color=ROLE_COLOURS[OURS])
            .encode(x=_flows_x(), y=y, tooltip=["flows:Q", "measured_mbps:Q"])
        )
        lines = base.mark_line(strokeWidth=1.8, clip=True).encode(
            x=_flows_x(), y=alt.Y("predicted_mbps:Q", scale=scale), color=colour,
            tooltip=["probes:N", "flows:Q", "predicted_mbps:Q"],
        )  # fmt: skip
        # a prediction above the panel: a triangle on its top edge, the value in the tooltip
        off = (
            base.transform_filter(f"datum.predicted_mbps > {top}")
            .transform_calculate(edge=f"{top}")
            .mark_point(shape="triangle-up", filled=True, size=90, opacity=1)
            .encode(
                x=_flows_x(), y=alt.Y("edge:Q", scale=scale), color=colour,
                tooltip=["probes:N", "flows:Q",
                         alt.Tooltip("predicted_mbps:Q", title="predicted (off the scale)")],
            )
        )  # fmt: skip
        layer = alt.layer(lines, off, measured).properties(width=230, height=170)
        panels.append(layer.add_params(pick) if not panels else layer)
    return _grid(panels)


#: a panel of :func:`prediction_chart` reaches this multiple of its largest measured throughput
PREDICTION_HEADROOM = 1.5


def prediction_top(measured_mbps: pd.Series) -> float:
    """The top of a prediction panel's y scale (MB/s): :data:`PREDICTION_HEADROOM` times the
    largest measured throughput at any cross-traffic level, rounded up to 2 significant
    figures. A prediction above it leaves the panel; the chart marks where."""
    peak = float(measured_mbps.max()) * PREDICTION_HEADROOM
    if not np.isfinite(peak) or peak <= 0:
        raise ValueError(f"measured_mbps: its largest value ({peak:g}) must be above 0")
    digits = 1 - int(np.floor(np.log10(peak)))
    return float(np.ceil(peak * 10**digits) / 10**digits)


def elasticity_chart(flows: Sequence[int] = tuple(range(1, 32))) -> alt.Chart:
    """Why close probes amplify noise: the weight ``w = (n^2 - 1) / (n2^2 - 1)`` by which the
    second probe's ``y = n2^2 / BW^2`` enters the prediction at n (eq. 13), per probe pair
    (log scale). A probe off by a fraction e moves ``y(n)`` by about ``2 e w y2``."""
    rows = [
        {"probes": f"(1, {n2})", "flows": n, "weight": (n * n - 1) / (n2 * n2 - 1)}
        for n2 in (2, 8, 10, 15)
        for n in flows
        if n > 1
    ]
    pairs = [p for p in PAIR_COLOURS]
    return (
        alt.Chart(pd.DataFrame(rows))
        .mark_line(strokeWidth=2)
        .encode(
            x=_flows_x(),
            y=alt.Y("weight:Q", title="weight of the second probe", scale=alt.Scale(type="log")),
            color=alt.Color("probes:N", sort=pairs, scale=alt.Scale(
                domain=pairs, range=[PAIR_COLOURS[p] for p in pairs])),
            tooltip=["probes:N", "flows:Q", alt.Tooltip("weight:Q", format=".1f")],
        )
        .properties(width=420, height=220)
    )  # fmt: skip


def error_chart(pred: pd.DataFrame, by_flows: pd.DataFrame, r: float) -> alt.HConcatChart:
    """Left: the distribution of relative errors (eq. 15) away from the probes, every
    scenario and cross-traffic level; right: Fig. 12, the mean relative error at each n
    (the paper's PlanetLab errors stayed within the shaded band of +-0.1)."""
    errors = pred[~pred["probe"] & np.isfinite(pred["error"])][["error"]].clip(-1.0, 1.0)
    hist = (
        alt.Chart(errors.round(4))
        .mark_bar(color=ROLE_COLOURS[OURS])
        .encode(
            x=alt.X("error:Q", bin=alt.Bin(step=0.05), title="relative error (clipped to +-1)"),
            y=alt.Y("count():Q", title="predictions"),
        )
        .properties(width=300, height=220)
    )
    band = (
        alt.Chart(pd.DataFrame({"lo": [-0.1], "hi": [0.1]}))
        .mark_rect(opacity=0.15, color=ROLE_COLOURS[PAPER])
        .encode(y="lo:Q", y2="hi:Q")
    )
    dots = (
        alt.Chart(by_flows.round(4), title=f"R = {r:.2f} (paper: below 0.1)")
        .mark_point(filled=True, size=60, color=ROLE_COLOURS[OURS])
        .encode(
            x=_flows_x(),
            y=alt.Y("mean:Q", title="mean relative error"),
            tooltip=["flows:Q", "mean:Q", "mean_abs:Q", "curves:Q"],
        )
    )
    return alt.hconcat(hist, alt.layer(band, dots).properties(width=300, height=220))


def impact_chart(imp: pd.DataFrame, table: pd.DataFrame, cross: int = 10) -> alt.VConcatChart:
    """Fig. 13: per scenario, the parallel TCP and cross-traffic throughput simulated, and the
    cross traffic estimated from the two probes (eq. 18), DropTail, replica 0."""
    data = imp[(imp["queue"] == "droptail") & (imp["replica"] == 0)]
    runs = table[(table["queue"] == "droptail") & (table["replica"] == 0)]
    merged = data.merge(runs[["scenario", "cross", "flows", PARALLEL]],
                        on=["scenario", "cross", "flows"])  # fmt: skip
    long = pd.concat(
        [
            merged.assign(series="parallel TCP", mbps=merged[PARALLEL] / MB),
            merged.assign(series="cross traffic", mbps=merged["cross_measured"] / MB),
            merged.assign(series="estimated cross traffic", mbps=merged["cross_predicted"] / MB),
        ]
    )[["scenario", "cross", "flows", "series", "mbps"]].round(4)
    order = ["parallel TCP", "cross traffic", "estimated cross traffic"]
    colour = alt.Color(
        "series:N",
        title=None,
        sort=order,
        scale=alt.Scale(domain=order, range=[PALETTE[0], PALETTE[1], PALETTE[3]]),
    )
    pick = _cross_pick(long["cross"], cross)
    panels: list[Any] = []
    for k in sorted(long["scenario"].unique()):
        part = long[long["scenario"] == k]
        chart = (
            alt.Chart(part, title=f"scenario {k}")
            .transform_filter(f"datum.cross == {pick.name}")
            .mark_line(point=True)
            .encode(
                x=_flows_x(), y=alt.Y("mbps:Q", title="throughput (MB/s)"), color=colour,
                strokeDash=alt.condition("datum.series == 'estimated cross traffic'",
                                         alt.value([5, 3]), alt.value([1, 0])),
                tooltip=["series:N", "flows:Q", "mbps:Q"],
            )
            .properties(width=230, height=170)
        )  # fmt: skip
        panels.append(chart.add_params(pick) if not panels else chart)
    return _grid(panels)


def impact_cdf_chart(imp: pd.DataFrame) -> alt.LayerChart | alt.FacetChart:
    """Fig. 14: the distribution function of the relative error of the cross traffic's
    predicted throughput, every scenario and cross-traffic level, away from the probes; the
    diamond is the paper's "90% of predictions within 0.25"."""
    errors = np.sort(imp.loc[~imp["probe"], "error"].to_numpy())
    cdf = pd.DataFrame({"error": errors, "share": np.arange(1, len(errors) + 1) / len(errors)})
    line = (
        alt.Chart(cdf.round(4))
        .mark_line(interpolate="step-after", color=ROLE_COLOURS[OURS], strokeWidth=2)
        .encode(
            x=alt.X("error:Q", title="relative error of the estimated cross traffic",
                    scale=alt.Scale(domain=[-1, 1], clamp=True)),
            y=alt.Y("share:Q", title="probability (error < x)"),
            tooltip=["error:Q", "share:Q"],
        )
    )  # fmt: skip
    paper = (
        alt.Chart(pd.DataFrame({"error": [0.25], "share": [0.9], "note": ["paper: 90% < 0.25"]}))
        .mark_point(shape="diamond", size=170, filled=False, strokeWidth=2.5,
                    color=ROLE_COLOURS[PAPER])
        .encode(x="error:Q", y="share:Q", tooltip=["note:N"])
    )  # fmt: skip
    return alt.layer(line, paper).properties(width=420, height=240)


def advisor_chart(adv: pd.DataFrame, max_impact: float = 0.2) -> alt.LayerChart | alt.FacetChart:
    """TameParallelTCP's choice against brute force, one point per scenario and
    cross-traffic level (DropTail, replica 0), the impact limit chosen in a drop-down."""
    data = adv[(adv["queue"] == "droptail") & (adv["replica"] == 0)][
        ["scenario", "cross", "max_impact", "advisor_flows", "brute_flows", "simulated_impact",
         "throughput_ratio", "stopped_by"]
    ].round(4)  # fmt: skip
    data["scenario"] = "scenario " + data["scenario"].astype(str)
    limits = sorted(data["max_impact"].unique().tolist())
    pick = alt.param(name="pick_limit", value=max_impact if max_impact in limits else limits[0],
                     bind=alt.binding_select(options=limits, name="max impact "))  # fmt: skip
    points = (
        alt.Chart(data)
        .transform_filter("datum.max_impact == pick_limit")
        .mark_point(filled=True, size=70)
        .encode(
            x=alt.X("brute_flows:Q", title="best n by brute force (simulated impact within)",
                    scale=alt.Scale(domain=[0, 32])),
            y=alt.Y("advisor_flows:Q", title="n chosen by TameParallelTCP",
                    scale=alt.Scale(domain=[0, 32])),
            color=alt.Color("scenario:N", title=None),
            shape=alt.Shape("stopped_by:N", title="stopped by"),
            tooltip=["scenario:N", "cross:Q", "advisor_flows:Q", "brute_flows:Q",
                     "simulated_impact:Q", "throughput_ratio:Q", "stopped_by:N"],
        )
        .add_params(pick)
    )  # fmt: skip
    diagonal = (
        alt.Chart(pd.DataFrame({"x": [0, 32], "y": [0, 32]}))
        .mark_line(strokeDash=[4, 3], color="#888888")
        .encode(x="x:Q", y="y:Q")
    )
    return alt.layer(diagonal, points).properties(width=380, height=300)


def paths_chart(summary: pd.DataFrame, paper: pd.DataFrame) -> alt.LayerChart | alt.FacetChart:
    """Fig. 10: per path, the mean relative error with one standard deviation either side,
    paths sorted by the standard deviation; ours (emulated) beside the paper's 41 PlanetLab
    paths, each on its own rank scale (0 to 1)."""
    frames = []
    for role, table in ((OURS, summary), (PAPER, paper)):
        t = table.sort_values("std").reset_index(drop=True)
        frames.append(pd.DataFrame({
            "role": role, "rank": (np.arange(len(t)) + 0.5) / len(t),
            "mean": t["mean"], "lo": t["mean"] - t["std"], "hi": t["mean"] + t["std"],
        }))  # fmt: skip
    data = pd.concat(frames).round(4)
    domain = [OURS, PAPER]
    colour = alt.Color(
        "role:N",
        title=None,
        scale=alt.Scale(domain=domain, range=[ROLE_COLOURS[r] for r in domain]),
    )
    x = alt.X("rank:Q", title="paths, by the spread of their errors (rank / count)")
    bars = alt.Chart(data).mark_rule(opacity=0.5).encode(x=x, y="lo:Q", y2="hi:Q", color=colour)
    dots = alt.Chart(data).mark_point(filled=True, size=40).encode(
        x=x, y=alt.Y("mean:Q", title="mean relative error (+- one std)"), color=colour,
        tooltip=["role:N", "mean:Q", "lo:Q", "hi:Q"],
    )  # fmt: skip
    return alt.layer(bars, dots).properties(width=420, height=240)


def sensitivity_chart(sens: pd.DataFrame) -> alt.HConcatChart:
    """The parallel connections' throughput against n under each choice the paper leaves
    open (and two more seeds), scenarios side by side."""
    data = sens.assign(mbps=(sens[PARALLEL] / MB).round(4))[
        ["scenario", "variant", "flows", "mbps"]
    ]
    panels: list[Any] = []
    chosen, opacity = highlight("variant")  # seven variants: a legend click brings one forward
    for k in sorted(data["scenario"].unique()):
        part = data[data["scenario"] == k]
        panel = (
            alt.Chart(part, title=f"scenario {k}, {int(sens['cross'].iloc[0])} cross flows")
            .mark_line(point=True, strokeWidth=1.5)
            .encode(
                x=_flows_x(),
                y=alt.Y("mbps:Q", title="parallel TCP (MB/s)"),
                color=alt.Color("variant:N", title=None, sort=list(dict.fromkeys(part["variant"]))),
                opacity=opacity,
                tooltip=["variant:N", "flows:Q", "mbps:Q"],
            )
            .properties(width=300, height=220)
        )
        panels.append(panel.add_params(chosen) if not panels else panel)
    return alt.hconcat(*panels)


def model_check_chart(check: pd.DataFrame, pred: pd.DataFrame, cross: int = 10) -> alt.VConcatChart:
    """Is ``p_n RTT_n^2`` a partial order-2 polynomial in n? Per scenario: the measured
    ``p_n RTT_n^2`` (dots) and the profile fitted to the probes (1, 10) (line), both divided
    by their value at n = 1, DropTail, replica 0, log scale."""
    main = pred[(pred["probes"] == "(1, 10)") & (pred["queue"] == "droptail")
                & (pred["replica"] == 0)]  # fmt: skip
    rows = check[(check["queue"] == "droptail") & (check["replica"] == 0)]
    frames = []
    for (k, m), part in rows.groupby(["scenario", "cross"]):
        base = part[part["flows"] == 1]["profile"]
        fit = main[(main["scenario"] == k) & (main["cross"] == m)]
        if base.empty or fit.empty:
            continue
        a, b = float(fit["a"].iloc[0]), float(fit["b"].iloc[0])
        n = part["flows"].to_numpy(dtype=float)
        fitted = (a * n * n + b) / (a + b) if a + b > 0 else np.full_like(n, np.nan)
        frames.append(pd.DataFrame({
            "scenario": k, "cross": m, "flows": n,
            "measured": part["profile"].to_numpy() / float(base.iloc[0]), "fitted": fitted,
        }))  # fmt: skip
    data = pd.concat(frames).replace([np.inf, -np.inf], np.nan).dropna().round(5)
    pick = _cross_pick(data["cross"], cross)
    panels: list[Any] = []
    for k in sorted(data["scenario"].unique()):
        part = data[data["scenario"] == k]
        base = alt.Chart(part, title=f"scenario {k}").transform_filter(
            f"datum.cross == {pick.name}"
        )
        y = alt.Y("measured:Q", title="p·RTT² / (p·RTT² at n = 1)", scale=alt.Scale(type="log"))
        dots = base.mark_point(filled=True, size=40, color=ROLE_COLOURS[OURS]).encode(
            x=_flows_x(), y=y, tooltip=["flows:Q", "measured:Q", "fitted:Q"]
        )
        line = base.mark_line(color=ROLE_COLOURS[FORMULA], strokeDash=[5, 3]).encode(
            x=_flows_x(), y="fitted:Q"
        )
        layer = alt.layer(dots, line).properties(width=230, height=170)
        panels.append(layer.add_params(pick) if not panels else layer)
    return _grid(panels)


def trace_chart(trace: pd.DataFrame, tcp: str = "reno") -> alt.HConcatChart:
    """One connection alone in scenarios 2 and 3: its congestion window and slow-start
    threshold (packets, log scale) against time, as read by ``lu-trace``."""
    run = trace[trace["tcp"] == tcp]
    long = run.melt(
        id_vars=["scenario", "time"], value_vars=["cwnd", "ssthresh"], var_name="variable"
    ).dropna()
    long = long[long["value"] > 0].round(4)
    colours = alt.Scale(domain=["cwnd", "ssthresh"], range=[PALETTE[0], PALETTE[3]])
    panels = []
    for k in sorted(long["scenario"].unique()):
        part = long[long["scenario"] == k]
        panels.append(
            alt.Chart(part, title=f"scenario {k}, one connection alone")
            .mark_line(interpolate="step-after")
            .encode(
                x=alt.X("time:Q", title="time (s)"),
                y=alt.Y("value:Q", title="packets", scale=alt.Scale(type="log")),
                color=alt.Color("variable:N", scale=colours, title=None),
                tooltip=["time:Q", "variable:N", "value:Q"],
            )
            .properties(width=300, height=200)
        )
    return alt.hconcat(*panels)


def levels_chart(table: pd.DataFrame, readings: Sequence[Any]) -> alt.VConcatChart:
    """The paper's Figs. 3a-8a: each scenario's parallel throughput without cross traffic
    (the book's runs, dots and line) and the readings off the paper's plots (diamonds, with
    their resolution as error bars)."""
    alone = table[(table["cross"] == 0) & (table["queue"] == "droptail")]
    ours = alone.groupby(["scenario", "flows"])[PARALLEL].mean().div(MB).rename("MB/s")
    ours = ours.reset_index()
    panels: list[Any] = []
    for k in sorted(ours["scenario"].unique()):
        part = ours[ours["scenario"] == k]
        marks = [r for r in readings if r.scenario == k]
        rows = []
        for r in marks:
            n = int(part.loc[part["MB/s"].idxmax(), "flows"]) if r.flows == "peak" else r.flows
            rows.append({"flows": n, "MB/s": r.value / MB, "low": (r.value - r.resolution) / MB,
                         "high": (r.value + r.resolution) / MB, "reading": r.figure})  # fmt: skip
        line = (
            alt.Chart(part, title=f"scenario {k}")
            .mark_line(point=True, color=ROLE_COLOURS[OURS])
            .encode(
                x=_flows_x(),
                y=alt.Y("MB/s:Q", title="parallel throughput (MB/s)"),
                tooltip=["flows:Q", "MB/s:Q"],
            )  # fmt: skip
        )
        layers: list[Any] = [line]
        if rows:
            paper = pd.DataFrame(rows)
            base = alt.Chart(paper)
            layers.append(
                base.mark_point(
                    shape="diamond", size=90, filled=True, color=ROLE_COLOURS[PAPER]
                ).encode(x="flows:Q", y="MB/s:Q", tooltip=["reading:N", "MB/s:Q"])  # fmt: skip
            )
            layers.append(
                base.mark_rule(color=ROLE_COLOURS[PAPER]).encode(
                    x="flows:Q", y="low:Q", y2="high:Q"
                )  # fmt: skip
            )
        panels.append(alt.layer(*layers).properties(width=230, height=170))
    return _grid(panels)
