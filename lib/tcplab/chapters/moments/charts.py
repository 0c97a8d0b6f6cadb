"""Charts of the second moments, the rate distributions, largest-rate and beatdown.

Ours (the exact fluid model) is always a filled dot in the OURS colour, a closed form a tick in
the FORMULA colour, the paper's printed value an open diamond in the PAPER colour. The
distribution chart has a policy selector (a Vega-Lite param bound to radio buttons), so it
works on a static page with no kernel.
"""

from __future__ import annotations

import altair as alt
import pandas as pd

from tcplab.charts import FORMULA, OURS, PALETTE, PAPER, ROLE_COLOURS, describe, role_scale
from tcplab.tables import significant

__all__ = [
    "second_moment_chart",
    "distribution_chart",
    "largest_rate_chart",
    "beatdown_chart",
]

_ROLES = [OURS, FORMULA, PAPER]


def _panels(table: pd.DataFrame) -> pd.DataFrame:
    """One row per (panel, policy, role): identical cases show connection 1, others each."""
    rows = []
    for row in table.itertuples():
        if row.identical and row.flow != 1:
            continue
        panel = row.case if row.identical else f"{row.case}, connection {row.flow}"
        base = {"panel": panel, "policy": row.policy}
        ci = row.second_moment_ci
        rows.append(
            {
                **base,
                "role": OURS,
                "value": row.second_moment,
                "low": row.second_moment - ci,
                "high": row.second_moment + ci,
            }
        )
        for role, column in ((FORMULA, "exact"), (PAPER, "paper")):
            value = getattr(row, column)
            if pd.notna(value):
                rows.append({**base, "role": role, "value": value, "low": value, "high": value})
    return pd.DataFrame(rows)


def second_moment_chart(table: pd.DataFrame, policies: tuple[str, ...]) -> alt.VConcatChart:
    """E[X_i^2]/c^2 per policy, one panel per case: ours with its 95% CI, closed form, paper.

    ``table`` is :func:`tcplab.chapters.moments.experiments.with_exact` of the moments-table
    result. The panels are stacked, each with its own scale fitted to its values (no empty
    layer, so Vega computes no infinite extent), and titled above.
    """
    data = _panels(table)
    drawn = set(data["role"])  # a closed form or the paper's value only where there is one
    roles = [role for role in _ROLES if role in drawn]
    colour = alt.Color("role:N", title=None, scale=role_scale(roles))
    y = alt.Y("policy:N", title=None, sort=list(policies))
    tooltip = ["panel:N", "policy:N", "role:N", alt.Tooltip("value:Q", format=".5f")]
    panels = []
    for number, (panel, rows) in enumerate(data.groupby("panel", sort=False)):
        low, high = float(rows["low"].min()), float(rows["high"].max())
        pad = 0.08 * (high - low) or 0.01
        x = alt.X(
            "value:Q",
            title="E[X²] / c²" if number == data["panel"].nunique() - 1 else None,
            scale=alt.Scale(domain=[round(low - pad, 4), round(high + pad, 4)], nice=False),
        )
        layers = []
        ours = rows[rows["role"] == OURS]
        layers.append(
            alt.Chart(ours).mark_rule(strokeWidth=2).encode(x=x, x2="high:Q", y=y, color=colour)
        )
        layers.append(
            alt.Chart(ours)
            .mark_point(filled=True, size=60)
            .encode(x=x, y=y, color=colour, tooltip=tooltip)
        )
        formula = rows[rows["role"] == FORMULA]
        if len(formula):
            layers.append(
                alt.Chart(formula)
                .mark_tick(thickness=3, size=22)
                .encode(x=x, y=y, color=colour, tooltip=tooltip)
            )
        paper = rows[rows["role"] == PAPER]
        if len(paper):
            layers.append(
                alt.Chart(paper)
                .mark_point(shape="diamond", size=160, filled=False, strokeWidth=2)
                .encode(x=x, y=y, color=colour, tooltip=tooltip)
            )
        title = alt.Title(panel, fontSize=13, fontWeight="normal", anchor="start")
        panels.append(alt.layer(*layers).properties(title=title, width=420, height=110))
    chart = alt.vconcat(*panels).properties(
        title="Time-stationary second moment of one connection's rate"
    )
    return describe(chart, _second_moment_description(table, policies))


def _second_moment_description(table: pd.DataFrame, policies: tuple[str, ...]) -> str:
    two = table[(table["flows"] == 2) & table["identical"] & (table["flow"] == 1)]
    two = two.set_index("policy")
    values = ", ".join(
        f"{name} {two.loc[name, 'second_moment']:.4f} (paper {two.loc[name, 'paper']:.4f})"
        for name in policies
    )
    return (
        "The time-stationary second moment E[X²]/c² of one connection's rate under four loss "
        "policies, one panel per case: simulation with its 95% interval (dot and bar), the "
        "closed form where there is one (a tick) and the paper's value (a diamond). Two "
        f"identical connections, β = 1/2, Theorem 2's case: {values}. The other panels: three "
        "and four identical connections, in the same order of the policies, and two "
        "connections with β = 0.5 and 0.8, where the order differs between them."
    )


def distribution_chart(dist: pd.DataFrame, policies: tuple[str, ...]) -> alt.VConcatChart:
    """Exact density and CDF of X_1/c for N = 2 under each policy, with a policy selector.

    For beatdown the dashed line (the paper's role) is the density the paper's 1/3 implies
    (X uniform on [0, c]); the top-left label gives E[X²]/c² of the selected policy.
    """
    pick = alt.param(
        name="policy",
        value=policies[1],
        bind=alt.binding_radio(options=list(policies), name="loss policy "),
    )
    roles = alt.Color("role:N", title=None, scale=role_scale([OURS, PAPER]))
    chosen = "datum.policy == policy"
    density = (
        alt.Chart(dist)
        .transform_filter(chosen)
        .transform_calculate(role=f"'{OURS}'")
        .mark_rect(opacity=0.75)
        .encode(
            x=alt.X("lower:Q", title="rate x / c", scale=alt.Scale(domain=[0, 1])),
            x2="upper:Q",
            y=alt.Y("density:Q", title="time-stationary density"),
            y2=alt.datum(0),
            color=roles,
            tooltip=[
                alt.Tooltip("lower:Q", format=".2f"),
                alt.Tooltip("upper:Q", format=".2f"),
                alt.Tooltip("density:Q", format=".3f"),
            ],
        )
    )
    pinned = (  # always drawn, seen only for beatdown: an empty layer has an infinite extent
        alt.Chart(pd.DataFrame({"low": [0.0], "high": [1.0], "density": [1.0]}))
        .transform_calculate(role=f"'{PAPER}'", seen="policy == 'beatdown' ? 1 : 0")
        .mark_rule(strokeDash=[6, 3], strokeWidth=2.5)
        .encode(
            x="low:Q",
            x2="high:Q",
            y="density:Q",
            color=roles,
            opacity=alt.Opacity("seen:Q", scale=None, legend=None),
        )
    )
    label = (
        alt.Chart(dist)
        .transform_filter(chosen)
        .transform_aggregate(second="max(second_moment)")
        .transform_calculate(text="'E[X²]/c² = ' + format(datum.second, '.4f')")
        .mark_text(align="left", baseline="top", dx=6, dy=6, fontSize=13)
        .encode(x=alt.value(0), y=alt.value(0), text="text:N")
    )
    top = alt.layer(density, pinned, label).properties(
        title="How one of two connections' rate is spread over time", width=520, height=220
    )
    cdf = (
        alt.Chart(dist)
        .mark_line(interpolate="linear")
        .encode(
            x=alt.X("upper:Q", title="rate x / c", scale=alt.Scale(domain=[0, 1])),
            y=alt.Y("cdf:Q", title="P(X ≤ x)", scale=alt.Scale(domain=[0, 1])),
            detail="policy:N",
            color=alt.condition(chosen, alt.value(ROLE_COLOURS[OURS]), alt.value("#999999")),
            strokeWidth=alt.condition(chosen, alt.value(3), alt.value(1.2)),
            opacity=alt.condition(chosen, alt.value(1.0), alt.value(0.6)),
            tooltip=["policy:N", alt.Tooltip("upper:Q", format=".2f"), "cdf:Q"],
        )
        .properties(
            title="Distribution functions: the selected policy bold, the others thin",
            width=520,
            height=200,
        )
    )
    moments = dist.groupby("policy")["second_moment"].max()
    listed = ", ".join(f"{name} {moments[name]:.4f}" for name in policies if name in moments)
    return describe(
        alt.vconcat(top, cdf).add_params(pick),
        "Two charts with a selector of the loss policy. Top: the exact time-stationary "
        "density of one of two connections' rate (β = 1/2) under the selected policy; for "
        "beatdown a dashed line shows the uniform density on [0, c] that the paper's 1/3 "
        "implies. Bottom: the distribution functions of all four policies. Largest-rate is "
        "uniform on [2/7, 4/7], the narrowest; beatdown spreads over all of [0, c]. The second "
        f"moments E[X²]/c²: {listed}.",
    )


def largest_rate_chart(largest: pd.DataFrame) -> alt.LayerChart | alt.FacetChart:
    """Rates just before congestion under largest-rate: simulation vs eq. (9), per N."""
    roles = alt.Color("role:N", title=None, scale=role_scale([OURS, PAPER]))
    x = alt.X("flows:O", title="number of connections N", axis=alt.Axis(labelAngle=0))
    tip = ["flows:O", "rank:O", alt.Tooltip("simulated:Q", format=".6f"), "formula:Q"]
    ours = (
        alt.Chart(largest)
        .transform_calculate(role=f"'{OURS}'")
        .mark_point(filled=True, size=45)
        .encode(x=x, y=alt.Y("simulated:Q", title="rate before congestion / c"), color=roles)
        .encode(tooltip=tip)
    )
    paper = (
        alt.Chart(largest)
        .transform_calculate(role=f"'{PAPER}'")
        .mark_point(shape="diamond", size=150, filled=False, strokeWidth=2)
        .encode(x=x, y="formula:Q", color=roles, tooltip=tip)
    )
    worst = float((largest["simulated"] - largest["formula"]).abs().max())
    return describe(
        alt.layer(paper, ours).properties(
            title="Largest-rate: the fixed point of eq. (9) and the simulation",
            width=520,
            height=260,
        ),
        "For each number of connections N, the N rates just before a congestion event under "
        "the largest-rate policy at its stationary point: the paper's eq. (9) (open diamonds) "
        f"and the simulation (dots), which agree to {significant(worst, 1)}; the rates are "
        "evenly spaced below the largest, 2c/((1 + β)N + 1 − β).",
    )


def beatdown_chart(path: pd.DataFrame, tags: pd.DataFrame) -> alt.VConcatChart:
    """Fig. 5 (two connections under beatdown) and the rates at tagging times per N.

    Bottom: ours (points), the corrected stationary point 2(N - k)/(N(N - 1)) (green ticks)
    and the paper's printed summary (red diamonds).
    """
    lines = (
        alt.Chart(path)
        .mark_line(strokeWidth=1.5)
        .encode(
            x=alt.X("time:Q", title="time (units of c / η)"),
            y=alt.Y("rate:Q", title="rate x(t) / c", scale=alt.Scale(domain=[0, 1])),
            color=alt.Color("flow:N", title="connection", scale=alt.Scale(range=PALETTE[:2])),
        )
        .properties(title="Beatdown, two connections", width=520, height=220)
    )
    roles = alt.Color("role:N", title=None, scale=role_scale(_ROLES))
    x = alt.X("flows:O", title="number of connections N", axis=alt.Axis(labelAngle=0))
    simulated = alt.Tooltip("simulated:Q", format=".6f")
    tip = ["flows:O", "rank:O", simulated, "corrected:Q", "printed:Q"]
    y = alt.Y("simulated:Q", title="rate at a tagging time / c")
    ours = (
        alt.Chart(tags)
        .transform_calculate(role=f"'{OURS}'")
        .mark_point(filled=True, size=45)
        .encode(x=x, y=y, color=roles, tooltip=tip)
    )
    corrected = (
        alt.Chart(tags)
        .transform_calculate(role=f"'{FORMULA}'")
        .mark_tick(thickness=2, size=24)
        .encode(x=x, y="corrected:Q", color=roles, tooltip=tip)
    )
    printed = (
        alt.Chart(tags)
        .transform_calculate(role=f"'{PAPER}'")
        .mark_point(shape="diamond", size=150, filled=False, strokeWidth=2)
        .encode(x=x, y="printed:Q", color=roles, tooltip=tip)
    )
    bottom = alt.layer(corrected, printed, ours).properties(
        title="Rates at tagging times: simulation, 2(N−k)/(N(N−1)), the paper's summary",
        width=520,
        height=220,
    )
    worst = float((tags["simulated"] - tags["corrected"]).abs().max())
    return describe(
        alt.vconcat(lines, bottom).resolve_scale(color="independent"),
        "Top: two connections' rates over time under beatdown: the tagged connection's rate "
        "shrinks geometrically towards zero at ever shorter intervals while the other climbs "
        "to c, then the roles swap. Bottom: the sorted rates at a tagging time for each number "
        "of connections N: the simulation (dots) lies on 2(N − k)/(N(N − 1)) (ticks) to within "
        f"{significant(worst, 1)}; the paper's printed summary (diamonds) is half of it for the "
        "middle ranks.",
    )
