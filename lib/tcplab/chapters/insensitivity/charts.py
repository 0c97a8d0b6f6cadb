"""Charts of parallel AIMD throughput and its insensitivity to the loss policy.

The explorers carry Vega-Lite sliders, so they work on a static page: every closed form is a
Vega expression of the slider's value (the curve moves with no kernel), and every simulated
point is picked from the grid computed when the book was built. Our simulation is drawn in the
OURS colour, closed forms in the FORMULA colour and the paper's own numbers as PAPER diamonds.
"""

from __future__ import annotations

from collections.abc import Sequence

import altair as alt
import pandas as pd

from tcplab.charts import (
    FORMULA,
    OURS,
    PALETTE,
    PAPER,
    describe,
    fraction,
    grid_step,
    role_colour,
    slider,
)
from tcplab.tables import significant

__all__ = [
    "throughput_explorer",
    "example1_explorer",
    "example1_chart",
    "sample_paths_chart",
    "multtcp_chart",
    "rtt_chart",
    "heterogeneous_chart",
]

_THEOREM1 = "1 - 1 / (1 + {n} * (1 + beta) / (1 - beta))"  # Vega expression of eq. (5)
_ON_BETA = "abs(datum.beta - beta) < 1e-6"
_PAPER_BETA = "abs(beta - 0.5) < 1e-6 ? 1 : 0.25"  # the paper's numbers are for beta = 1/2
_GROUP_LABELS = {
    "class 1 (connections 1-2)": "class 1",
    "class 2 (connections 3-4)": "class 2",
    "aggregate": "aggregate",
}


def _slim(table: pd.DataFrame, columns: list[str]) -> pd.DataFrame:
    """Only the columns a chart reads, rounded: the spec is embedded in the page."""
    return table[columns].round(8)


def _roles(*roles: str) -> alt.Color:
    """The ``role`` colour channel of a chart that draws ``roles`` (its legend lists them, in
    the order ours, formula, paper)."""
    drawn = [role for role in (OURS, FORMULA, PAPER) if role in roles]
    return role_colour(drawn, legend=alt.Legend(symbolOpacity=1))


def _paper_points(points: list[dict], colour: alt.Color, fade: str | None = None) -> alt.Chart:
    chart = alt.Chart(pd.DataFrame(points)).transform_calculate(role=f"'{PAPER}'")
    if fade is not None:
        chart = chart.transform_calculate(fade=fade)
    return chart.mark_point(shape="diamond", size=170, filled=False, strokeWidth=2.5).encode(
        color=colour,
        opacity=alt.Opacity("fade:Q", scale=None) if fade is not None else alt.value(1.0),
        tooltip=[alt.Tooltip("note:N", title="paper")],
    )


# ---- Fig. 2 -----------------------------------------------------------------------------------


def throughput_explorer(
    table: pd.DataFrame,
    gains: pd.DataFrame,
    paper: Sequence[tuple[int, float, str]] = (),
    paper_gain: tuple[float, str] | None = None,
) -> alt.VConcatChart:
    """Fig. 2 with the ALL comparison: throughput against N, and the gain of ONE over ALL.

    ``table`` is the ``insensitivity-throughput`` experiment, ``gains`` its
    :func:`tcplab.chapters.insensitivity.experiments.gains`. A beta slider moves the formulas
    and picks the simulated points; an N slider highlights one N. ``paper`` holds the paper's
    (N, value, quote) for beta = 1/2 and ``paper_gain`` its (limit, quote) of the gain, drawn
    as diamonds (the chapter's claims module has them).
    """
    table = _slim(table, ["beta", "flows", "policy", "simulated", "formula"])
    gains = _slim(gains, ["beta", "flows", "simulated", "formula", "limit"])
    betas = table["beta"]
    beta = slider("beta", "decrease factor β", betas.min(), betas.max(), grid_step(betas), 0.5)
    n_max = 20
    pick_n = slider("N", "connections N", 1, n_max, 1, 3)
    drawn = (OURS, FORMULA, PAPER) if (paper or paper_gain is not None) else (OURS, FORMULA)
    roles = _roles(*drawn)
    kinds = alt.Shape(
        "kind:N",
        title=None,
        scale=alt.Scale(
            domain=["ONE (Theorem 1)", "ALL (synchronised)"],
            range=["circle", "square"],
        ),
    )
    dashes = alt.StrokeDash(
        "kind:N",
        title=None,
        scale=alt.Scale(
            domain=["ONE (Theorem 1)", "ALL (synchronised)"],
            range=[[1, 0], [6, 4]],
        ),
        legend=None,
    )
    x = alt.X("flows:Q", title="number of connections N", scale=alt.Scale(domain=[0, n_max + 0.5]))
    y = alt.Y("value:Q", title="mean aggregate rate / c", scale=alt.Scale(domain=[0.5, 1.0]))

    one_curve = (
        alt.Chart(alt.sequence(1, n_max + 0.01, 0.05, as_="flows"))
        .transform_calculate(
            value=_THEOREM1.format(n="datum.flows"),
            role=f"'{FORMULA}'",
            kind="'ONE (Theorem 1)'",
        )
        .mark_line()
        .encode(x=x, y=y, color=roles, strokeDash=dashes)
    )
    all_curve = (
        alt.Chart(alt.sequence(1, n_max + 0.01, n_max - 1, as_="flows"))
        .transform_calculate(
            value="(1 + beta) / 2", role=f"'{FORMULA}'", kind="'ALL (synchronised)'"
        )
        .mark_line()
        .encode(x=x, y=y, color=roles, strokeDash=dashes)
    )
    sim = alt.Chart(table).transform_filter(f"{_ON_BETA} && datum.flows <= {n_max}")
    dots = (
        sim.transform_calculate(
            value="datum.simulated",
            role=f"'{OURS}'",
            kind="datum.policy === 'one' ? 'ONE (Theorem 1)' : 'ALL (synchronised)'",
        )
        .mark_point(filled=True, size=45)
        .encode(
            x=x,
            y=y,
            color=roles,
            shape=kinds,
            tooltip=[
                alt.Tooltip("flows:Q", title="N"),
                alt.Tooltip("beta:Q", title="β"),
                alt.Tooltip("kind:N", title="policy"),
                alt.Tooltip("simulated:Q", title="simulated", format=".6f"),
                alt.Tooltip("formula:Q", title="formula", format=".6f"),
            ],
        )
    )
    points = [{"flows": n, "value": value, "note": note} for n, value, note in paper]
    marker = (
        alt.Chart(pd.DataFrame({"z": [0]}))
        .transform_calculate(n="N")
        .mark_rule(color="gray", strokeDash=[4, 4])
        .encode(x=x)
    )
    label = (
        sim.transform_filter("datum.flows === N && datum.policy === 'one'")
        .transform_calculate(
            text="'N = ' + N + ', β = ' + format(beta, '.2f') + ': Theorem 1 '"
            f" + format({_THEOREM1.format(n='N')}, '.2%') + ',|simulated '"
            " + format(datum.simulated, '.2%') + '; ALL ' + format((1 + beta) / 2, '.2%')"
        )
        # Vega sets the first line on the baseline and the next ones below it: lift the
        # two-line note by one line so that its second line clears the x-axis
        .mark_text(
            align="left",
            baseline="bottom",
            dx=8,
            dy=-8 - 16,
            fontSize=13,
            lineHeight=16,
            lineBreak="|",
        )
        .encode(x=alt.value(0), y=alt.value(260), text="text:N")
    )
    # the curve first: a page test waits for the first mark, and a flat line has no height
    layers = [one_curve, all_curve, dots]
    if points:
        layers.append(_paper_points(points, roles, fade=_PAPER_BETA).encode(x=x, y=y))
    top = alt.layer(*layers, marker, label).properties(
        title="N AIMD connections, one signalled per event",
        width=520,
        height=260,
    )

    gx = alt.X(
        "flows:Q",
        title="number of connections N (log scale)",
        scale=alt.Scale(type="log", domain=[1, 1000]),
    )
    gy = alt.Y("gain:Q", title="gain of ONE over ALL", scale=alt.Scale(zero=False))
    gain_curve = (
        alt.Chart(alt.sequence(0, 3.001, 0.02, as_="k"))
        .transform_calculate(
            n="pow(10, datum.k)",
            gain=f"({_THEOREM1.format(n='pow(10, datum.k)')}) / ((1 + beta) / 2)",
            role=f"'{FORMULA}'",
        )
        .mark_line()
        .encode(x=gx, y=gy, color=roles)
    )
    limit = (
        alt.Chart(pd.DataFrame({"z": [0]}))
        .transform_calculate(gain="2 / (1 + beta)", role=f"'{FORMULA}'")
        .mark_rule(strokeDash=[6, 4])
        .encode(y=gy, color=roles, tooltip=[alt.Tooltip("gain:Q", title="2/(1 + β)")])
    )
    gain_dots = (
        alt.Chart(gains)
        .transform_filter(_ON_BETA)
        .transform_calculate(gain="datum.simulated", role=f"'{OURS}'")
        .mark_point(filled=True, size=40)
        .encode(
            x=gx,
            y=gy,
            color=roles,
            tooltip=[
                alt.Tooltip("flows:Q", title="N"),
                alt.Tooltip("simulated:Q", title="simulated gain", format=".5f"),
                alt.Tooltip("formula:Q", title="formula", format=".5f"),
                alt.Tooltip("limit:Q", title="limit 2/(1 + β)", format=".5f"),
            ],
        )
    )
    gain_layers = [gain_curve, limit, gain_dots]
    if paper_gain is not None:
        value, note = paper_gain
        point = {"flows": float(gains["flows"].max()), "gain": value, "note": note}
        gain_layers.append(_paper_points([point], roles, fade=_PAPER_BETA).encode(x=gx, y=gy))
    gain_marker = (
        alt.Chart(pd.DataFrame({"z": [0]}))
        .transform_calculate(n="N")
        .mark_rule(color="gray", strokeDash=[4, 4])
        .encode(x=gx)
    )
    bottom = alt.layer(*gain_layers, gain_marker).properties(
        title="Gain of ONE over ALL, and its limit 2/(1 + β)", width=520, height=170
    )
    chart = alt.vconcat(top, bottom).add_params(beta, pick_n).resolve_scale(shape="independent")
    return describe(chart, _throughput_description(table, gains))


def _throughput_description(table: pd.DataFrame, gains: pd.DataFrame) -> str:
    tcp = table[(table["beta"] - 0.5).abs() < 1e-9].set_index(["policy", "flows"])
    gain = gains[(gains["beta"] - 0.5).abs() < 1e-9]
    big = gain[gain["flows"] == gain["flows"].max()].iloc[0]
    return (
        "Two charts with sliders for β and N. Top: the mean aggregate rate of N AIMD "
        "connections against N, one connection signalled per congestion event (ONE, the "
        "formula 1 − 1/(1 + Nρ) as a line, simulations as dots) and all signalled (ALL, a flat "
        f"line at (1 + β)/2). For β = 1/2, N = 3 gives {tcp.loc[('one', 3), 'simulated']:.4f} "
        f"and N = 6 gives {tcp.loc[('one', 6), 'simulated']:.4f}, beside the paper's 90% and "
        "almost 95% (diamonds); ALL stays at 0.75. Bottom: the gain of ONE over ALL against N "
        f"on a log scale, {big['simulated']:.4f} at N = {int(big['flows'])}, approaching its "
        "limit 2/(1 + β), 4/3 for β = 1/2."
    )


# ---- Example 1: Figs. 3 and 4 -----------------------------------------------------------------


def _example1_layers(table: pd.DataFrame, colour: alt.Color) -> tuple[alt.Chart, ...]:
    x = alt.X("sigma:Q", title="bias σ (chance class 1 is hit)")
    y = alt.Y("value:Q", title="mean rate / c", scale=alt.Scale(domain=[0, 1]))
    base = alt.Chart(table).transform_calculate(
        label="datum.group === 'aggregate' ? 'aggregate' : substring(datum.group, 0, 7)"
    )
    groups = alt.Shape(
        "label:N",
        title=None,
        scale=alt.Scale(
            domain=["class 1", "class 2", "aggregate"], range=["circle", "square", "triangle-up"]
        ),
    )
    lines = (
        base.transform_calculate(value="datum.formula", role=f"'{FORMULA}'")
        .mark_line()
        .encode(x=x, y=y, color=colour, detail="label:N")
    )
    bars = (
        base.transform_calculate(
            low="datum.simulated - datum.ci", high="datum.simulated + datum.ci", role=f"'{OURS}'"
        )
        .mark_rule()
        .encode(x=x, y="low:Q", y2="high:Q", color=colour)
    )
    dots = (
        base.transform_calculate(value="datum.simulated", role=f"'{OURS}'")
        .mark_point(filled=True, size=36)
        .encode(
            x=x,
            y=y,
            color=colour,
            shape=groups,
            tooltip=[
                alt.Tooltip("sigma:Q", title="σ"),
                alt.Tooltip("group:N"),
                alt.Tooltip("simulated:Q", format=".5f"),
                alt.Tooltip("ci:Q", title="95% half-width", format=".1e"),
                alt.Tooltip("formula:Q", title="exact", format=".5f"),
            ],
        )
    )
    names = (
        base.transform_filter("datum.sigma === " + repr(float(table["sigma"].max())))
        .transform_calculate(value="datum.formula")
        .mark_text(align="left", dx=8, fontSize=12)
        .encode(x=x, y=y, text="label:N")
    )
    return lines, bars, dots, names


def example1_explorer(table: pd.DataFrame, paper_value: float) -> alt.VConcatChart:
    """Fig. 3: per-class and aggregate throughput against sigma, with a sigma slider.

    ``table`` is the ``insensitivity-example1`` experiment; ``paper_value`` the paper's
    aggregate (Theorem 1 for N = 4, 12/13), drawn as a diamond at the chosen sigma.
    """
    sigmas = table["sigma"]
    start = 0.125 if (sigmas - 0.125).abs().min() < 1e-9 else float(sigmas.iloc[0])
    sigma = slider("sigma", "bias σ", sigmas.min(), sigmas.max(), grid_step(sigmas), start)
    x = alt.X("sigma:Q", title="bias σ (chance class 1 is hit)")
    y = alt.Y("value:Q", title="mean rate / c", scale=alt.Scale(domain=[0, 1]))
    colour = _roles(OURS, FORMULA, PAPER)
    lines, bars, dots, names = _example1_layers(table, colour)
    paper = (
        alt.Chart(pd.DataFrame({"value": [paper_value]}))
        .transform_calculate(
            sigma="sigma", role=f"'{PAPER}'", note="'Theorem 1, N = 4: aggregate 12/13'"
        )
        .mark_point(shape="diamond", size=170, filled=False, strokeWidth=2.5)
        .encode(x=x, y=y, color=colour, tooltip=[alt.Tooltip("note:N", title="paper")])
    )
    marker = (
        alt.Chart(pd.DataFrame({"z": [0]}))
        .transform_calculate(sigma="sigma")
        .mark_rule(color="gray", strokeDash=[4, 4])
        .encode(x=x)
    )
    plot = alt.layer(lines, bars, dots, names, paper, marker).properties(
        title="Example 1: four connections in two classes", width=520, height=260
    )
    line = alt.Y("line:O", axis=None)
    numbers = (
        alt.Chart(table)
        .transform_filter("abs(datum.sigma - sigma) < 1e-6")
        .transform_calculate(
            line="datum.group === 'aggregate' ? 3 : (substring(datum.group, 6, 7) === '1' ? 1 : 2)",
            text="(datum.group === 'aggregate' ? 'aggregate' : substring(datum.group, 0, 7))"
            " + ': ' + format(datum.simulated, '.5f') + ' ± ' + format(datum.ci, '.5f')"
            " + ' (exact ' + format(datum.formula, '.5f') + ')'",
        )
        .mark_text(align="left", fontSize=12)
        .encode(y=line, x=alt.value(0), text="text:N")
    )
    heading = (
        alt.Chart(pd.DataFrame({"line": [0]}))
        .transform_calculate(text="'σ = ' + format(sigma, '.3f') + ': simulated ± 95% (exact)'")
        .mark_text(align="left", fontSize=12, fontWeight="bold")
        .encode(y=line, x=alt.value(0), text="text:N")
    )
    readout = alt.layer(heading, numbers).properties(width=520, height=72)
    chart = alt.vconcat(plot, readout).add_params(sigma)
    return describe(chart, _example1_description(table, paper_value))


def _example1_description(table: pd.DataFrame, paper_value: float) -> str:
    aggregate = table[table["group"] == "aggregate"]
    worst = float((aggregate["simulated"] / paper_value - 1).abs().max())
    low, high = table["sigma"].min(), table["sigma"].max()
    ends = table[table["sigma"].isin([low, high])].set_index(["sigma", "group"])["formula"]
    one, two = (f"class {k} (connections {2 * k - 1}-{2 * k})" for k in (1, 2))
    return (
        "A chart with a slider for the bias σ, and the numbers at the chosen σ below it. Mean "
        "rate of each class of two connections and of all four against σ, the probability "
        f"that class 1 is the one signalled. As σ goes from {low:g} to {high:g}, class 1 falls "
        f"from {ends[(low, one)]:.3f} to {ends[(high, one)]:.3f} and class 2 rises from "
        f"{ends[(low, two)]:.3f} to {ends[(high, two)]:.3f} (straight lines, exact), while the "
        f"aggregate stays at 12/13 = {paper_value:.4f}, the paper's value (diamond), to within "
        f"{worst:.2%} in every simulation."
    )


def example1_chart(
    table: pd.DataFrame, sigma: float | None = None, title: str = ""
) -> alt.LayerChart | alt.FacetChart:
    """Fig. 3 without sliders (for live panels): per-class and aggregate against sigma."""
    layers = list(_example1_layers(table, _roles(OURS, FORMULA)))
    if sigma is not None:  # drawn first, under the points
        layers.insert(
            0,
            alt.Chart(pd.DataFrame({"sigma": [sigma]}))
            .mark_rule(color="gray", strokeDash=[4, 4])
            .encode(x="sigma:Q"),
        )
    return alt.layer(*layers).properties(title=title, width=520, height=260)


def sample_paths_chart(paths: pd.DataFrame) -> alt.FacetChart:
    """Fig. 4: the four rates of Example 1 over time, one panel per sigma."""
    frame = _slim(paths, ["sigma", "time", "flow", "rate"])
    frame = frame.assign(k=range(len(frame)))  # breakpoint order: a drop is two rows, one time
    domain = [f"connection {f} (class {1 if f <= 2 else 2})" for f in range(1, 5)]
    colours = [PALETTE[0], PALETTE[5], PALETTE[3], PALETTE[1]]
    return (
        alt.Chart(frame)
        .transform_calculate(
            connection="'connection ' + datum.flow + ' (class ' + (datum.flow <= 2 ? 1 : 2) + ')'",
            panel="abs(datum.sigma - 0.5) < 1e-9 ? 'σ = 1/2: every connection equally likely'"
            " : 'σ = ' + (abs(datum.sigma - 0.125) < 1e-9 ? '1/8' : format(datum.sigma, '.3~f'))"
            " + ': connections 1-2 picked less often'",
        )
        .mark_line(strokeWidth=1.6)
        .encode(
            x=alt.X(
                "time:Q",
                title="time (units of c/η)",
                scale=alt.Scale(nice=False),
                axis=alt.Axis(tickCount=4, labelFlush=True),
            ),
            y=alt.Y("rate:Q", title="rate xᵢ(t) / c", scale=alt.Scale(domain=[0, 1])),
            color=alt.Color(
                "connection:N", title=None, scale=alt.Scale(domain=domain, range=colours)
            ),
            order="k:Q",
        )
        .properties(width=255, height=220)
        .facet(
            column=alt.Column(
                "panel:N",
                title=None,
                sort=alt.EncodingSortField(field="sigma", op="max", order="descending"),
                header=alt.Header(labelLimit=300),
            )
        )
        .properties(
            title="Sample paths of the four rates (exact breakpoints)",
            description=(
                "Two panels of four connections' rates over time, between 0 and c. With σ = 1/2 "
                "the four sawtooths overlap and share the link; with σ = 1/8 connections 1 and "
                "2, signalled less often, climb higher and hold most of the link while "
                "connections 3 and 4 stay low."
            ),
        )
    )


# ---- MultTCP ----------------------------------------------------------------------------------


def multtcp_chart(table: pd.DataFrame, paper_value: float, paper_n: int, paper_ratio: float):
    """MultTCP vs N TCP-like connections: throughputs, and the ratio with the paper's bound.

    ``paper_value`` is the paper's 1 - 1/(4N) at ``paper_n``; ``paper_ratio`` its bound 1.025.
    """
    colour = _roles(OURS, FORMULA, PAPER)
    x = alt.X("flows:Q", title="connections N (emulated)")
    series = {
        "MultTCP: one connection, β = 1 − 1/(2N)": ("multtcp_simulated", "multtcp_formula"),
        "N connections under ONE": ("one_simulated", "one_formula"),
        "one connection, β = 1 − 2/(1 + 3N)": ("matching_simulated", "one_formula"),
    }
    frames = [
        pd.DataFrame(
            {"flows": table["flows"], "what": what, "simulated": table[sim], "formula": table[form]}
        )
        for what, (sim, form) in series.items()
    ]
    long = _slim(pd.concat(frames, ignore_index=True), ["flows", "what", "simulated", "formula"])
    what = alt.Shape(
        "what:N",
        title=None,
        scale=alt.Scale(domain=list(series), range=["square", "circle", "triangle-up"]),
        legend=alt.Legend(labelLimit=320, orient="bottom", columns=1),
    )
    y = alt.Y("value:Q", title="mean rate / c", scale=alt.Scale(domain=[0.7, 1.0]))
    lines = (
        alt.Chart(long)
        .transform_filter("datum.what !== '" + list(series)[2] + "'")
        .transform_calculate(value="datum.formula", role=f"'{FORMULA}'")
        .mark_line()
        .encode(x=x, y=y, color=colour, detail="what:N")
    )
    dots = (
        alt.Chart(long)
        .transform_calculate(value="datum.simulated", role=f"'{OURS}'")
        .mark_point(size=50, filled=False, strokeWidth=1.5)
        .encode(
            x=x,
            y=y,
            color=colour,
            shape=what,
            tooltip=["flows:Q", "what:N", alt.Tooltip("simulated:Q", format=".6f")],
        )
    )
    paper = _paper_points(
        [{"flows": paper_n, "value": paper_value, "note": "MultTCP: 1 − 1/(4N)"}], colour
    ).encode(x=x, y=y)
    top = alt.layer(lines, dots, paper).properties(
        title="MultTCP and the N connections it emulates", width=520, height=220
    )
    ratios = _slim(table, ["flows", "ratio_simulated", "ratio_formula"])
    ry = alt.Y("ratio:Q", title="MultTCP / N connections", scale=alt.Scale(domain=[0.995, 1.03]))
    ratio_line = (
        alt.Chart(ratios)
        .transform_calculate(ratio="datum.ratio_formula", role=f"'{FORMULA}'")
        .mark_line()
        .encode(x=x, y=ry, color=colour)
    )
    ratio_dots = (
        alt.Chart(ratios)
        .transform_calculate(ratio="datum.ratio_simulated", role=f"'{OURS}'")
        .mark_point(filled=True, size=45)
        .encode(
            x=x,
            y=ry,
            color=colour,
            tooltip=["flows:Q", alt.Tooltip("ratio_simulated:Q", title="simulated", format=".6f")],
        )
    )
    bound = (
        alt.Chart(pd.DataFrame({"ratio": [paper_ratio]}))
        .transform_calculate(role=f"'{PAPER}'")
        .mark_rule(strokeDash=[6, 4])
        .encode(y=ry, color=colour)
    )
    best = int(table.loc[table["ratio_simulated"].idxmax(), "flows"])
    paper_bound = _paper_points(
        [{"flows": best, "ratio": paper_ratio, "note": "'less than 1.025' (an upper bound)"}],
        colour,
    ).encode(x=x, y=ry)
    bottom = alt.layer(ratio_line, ratio_dots, bound, paper_bound).properties(
        title="How much MultTCP overshoots, and the paper's bound", width=520, height=170
    )
    worst = table.loc[table["ratio_simulated"].idxmax()]
    return describe(
        alt.vconcat(top, bottom),
        "Two charts against the number of connections N that MultTCP emulates. Top: the mean "
        "rate of one MultTCP connection (squares) lies on 1 − 1/(4N), above the N connections "
        "it emulates (circles, on 1 − 1/(1 + 3N)); one connection with decrease factor "
        "1 − 2/(1 + 3N) (triangles) sits on the circles. Bottom: the ratio of MultTCP to N "
        f"connections peaks at {worst['ratio_simulated']:.4f} for N = {int(worst['flows'])} and "
        f"then falls towards 1, below the paper's bound {paper_ratio} (dashed line).",
    )


# ---- round-trip times, and connections that differ -------------------------------------------


def rtt_chart(
    table: pd.DataFrame, paper_value: float, tolerance: float
) -> alt.LayerChart | alt.FacetChart:
    """Aggregate of four identical connections for several common eta, per policy, with the
    band of +- ``tolerance`` around ``paper_value`` (12/13)."""
    colour = _roles(OURS, FORMULA, PAPER)
    frame = _slim(table, ["eta", "policy", "simulated"])
    labels = {eta: fraction(eta, fallback=None) for eta in sorted(frame["eta"].unique())}
    frame["η"] = frame["eta"].map(labels)
    order = list(labels.values())
    x = alt.X(
        "η:N", title="common increase rate η = 1/RTT²", sort=order, axis=alt.Axis(labelAngle=0)
    )
    scale = alt.Scale(domain=[paper_value - 2 * tolerance, paper_value + 2 * tolerance])
    y = alt.Y("value:Q", title="mean aggregate rate / c", scale=scale, axis=alt.Axis(format=".4f"))
    band = (
        alt.Chart(
            pd.DataFrame({"value": [paper_value - tolerance], "high": [paper_value + tolerance]})
        )
        .mark_rect(opacity=0.12, color="gray")
        .encode(y=y, y2="high:Q")
    )
    rule = (
        alt.Chart(pd.DataFrame({"value": [paper_value]}))
        .transform_calculate(role=f"'{FORMULA}'")
        .mark_rule()
        .encode(y=y, color=colour)
    )
    dots = (
        alt.Chart(frame)
        .transform_calculate(value="datum.simulated", role=f"'{OURS}'")
        .mark_point(filled=True, size=50, opacity=0.85)
        .encode(
            x=x,
            y=y,
            color=colour,
            shape=alt.Shape("policy:N", title=None),
            xOffset=alt.XOffset("policy:N"),
            tooltip=["η:N", "policy:N", alt.Tooltip("simulated:Q", format=".7f")],
        )
    )
    paper = _paper_points(
        [{"η": "1", "value": paper_value, "note": "'(5) does not depend on η1': 12/13"}], colour
    ).encode(x=x, y=y)
    spread = float(frame["simulated"].max() - frame["simulated"].min())
    return describe(
        alt.layer(band, rule, dots, paper).properties(
            title="A common RTT does not matter (N = 4, β = 1/2)",
            width=520,
            height=220,
        ),
        "Mean aggregate rate of four identical connections for a common increase rate η from "
        f"{order[0]} to {order[-1]}, under four loss policies (one marker shape each). Every "
        f"point lies on 12/13 = {paper_value:.4f} (line, the paper's value as a diamond): they "
        f"spread over {significant(spread, 1)}, inside the grey band of ±0.2%.",
    )


def heterogeneous_chart(table: pd.DataFrame) -> alt.LayerChart | alt.FacetChart:
    """Aggregate per case and policy, the range any ONE policy can give, and the exact value
    for the rate-independent policy; eq. (5) of the paper where the connections are all alike
    but for their RTTs (what 'RTT insensitivity' would predict)."""
    columns = ["case", "policy", "flows", "simulated", "ci", "low", "high", "exact", "eq5"]
    frame = _slim(table, columns)
    eq5 = frame.dropna(subset=["eq5"]).drop_duplicates("case")
    # the paper's eq. (5) only where the connections differ by their RTTs alone
    colour = _roles(OURS, FORMULA, *([PAPER] if len(eq5) else []))
    order = list(dict.fromkeys(frame["case"]))
    y = alt.Y(
        "case:N",
        title=None,
        sort=order,
        # the case names break at " (" onto a second line, so that they stay narrow
        axis=alt.Axis(labelLimit=180, labelExpr="split(replace(datum.label, ' (', '|('), '|')"),
    )
    x = alt.X(
        "value:Q", title="mean aggregate rate / c", scale=alt.Scale(domain=[0.78, 1.0], nice=False)
    )
    ranges = (
        alt.Chart(frame)
        .transform_aggregate(low="min(low)", high="max(high)", groupby=["case"])
        .transform_calculate(role=f"'{FORMULA}'", value="datum.low")
        .mark_rule(strokeWidth=8, opacity=0.3)
        .encode(
            x=x,
            x2="high:Q",
            y=y,
            color=colour,
            tooltip=[
                "case:N",
                alt.Tooltip("low:Q", title="lowest any ONE policy", format=".4f"),
                alt.Tooltip("high:Q", title="highest any ONE policy", format=".4f"),
            ],
        )
    )
    exact = (
        alt.Chart(frame)
        .transform_filter("isValid(datum.exact)")
        .transform_calculate(role=f"'{FORMULA}'", value="datum.exact")
        .mark_tick(thickness=2, size=22)
        .encode(
            x=x,
            y=y,
            color=colour,
            tooltip=["case:N", alt.Tooltip("exact:Q", title="exact, rate-independent")],
        )
    )
    dots = (
        alt.Chart(frame)
        .transform_calculate(role=f"'{OURS}'", value="datum.simulated")
        .mark_point(filled=True, size=55, opacity=0.85)
        .encode(
            x=x,
            y=y,
            color=colour,
            shape=alt.Shape("policy:N", title=None),
            yOffset=alt.YOffset("policy:N"),
            tooltip=[
                "case:N",
                "policy:N",
                alt.Tooltip("simulated:Q", format=".5f"),
                alt.Tooltip("ci:Q", title="95% half-width", format=".1e"),
            ],
        )
    )
    points = [
        {"case": case, "value": value, "note": f"eq. (5), N = {n} (assumes identical connections)"}
        for case, value, n in zip(eq5["case"], eq5["eq5"], eq5["flows"].astype(int), strict=True)
    ]
    layers = [ranges, exact, dots]
    if points:
        layers.append(_paper_points(points, colour).encode(x=x, y=y))
    return describe(
        alt.layer(*layers).properties(
            title="Connections that differ: every ONE policy lands in the bar",
            width=520,
            height=260,
        ),
        _heterogeneous_description(frame),
    )


def _heterogeneous_description(frame: pd.DataFrame) -> str:
    spreads = frame.groupby("case", sort=False)["simulated"].agg(lambda v: v.max() - v.min())
    cases = "; ".join(f"{case}: {significant(spread, 2)}" for case, spread in spreads.items())
    return (
        "Mean aggregate rate under four ONE loss policies (one marker shape each) for identical "
        "connections and for three mixes of connections that differ, each with the range any "
        "ONE policy must land in (a bar), the exact value for the rate-independent policy (a "
        "tick) and the paper's equation (5) for identical connections (a diamond). How far "
        f"the four policies spread, case by case: {cases}."
    )
