"""Charts of the AIMD sawtooth: the path of one connection and its utilisation.

Both are driven by two Vega-Lite sliders (beta and eta) that pick one precomputed simulation
from the grid, so they work on a static page; the formula (1 + beta)/2 is evaluated in the
browser from the slider's value.
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
    grid_step,
    role_scale,
    slider,
)
from tcplab.tables import significant

__all__ = ["sawtooth_explorer", "sawtooth_path_chart"]

_PICK = "abs(datum.beta - beta) < 1e-6 && abs(datum.eta - eta) < 1e-6"


def sawtooth_path_chart(path: pd.DataFrame, title: str = "") -> alt.Chart:
    """One sawtooth path (columns time, rate), no sliders: for live panels and exports."""
    return (
        alt.Chart(path, title=title)
        .mark_line(color=ROLE_COLOURS[OURS])
        .encode(
            x=alt.X("time:Q", title="time (units of c/η)"),
            y=alt.Y("rate:Q", title="rate x(t) / c", scale=alt.Scale(domain=[0, 1.05])),
        )
    )


def sawtooth_explorer(
    paths: pd.DataFrame, utilisation: pd.DataFrame, paper_value: float, paper_beta: float = 0.5
) -> alt.VConcatChart:
    """Sawtooth path and utilisation vs beta, linked by beta and eta sliders.

    ``paper_value`` is the paper's utilisation at ``paper_beta``, drawn as a diamond.
    """
    betas, etas = paths["beta"], paths["eta"]
    beta = slider("beta", "decrease factor β", betas.min(), betas.max(), grid_step(betas), 0.5)
    eta = slider("eta", "increase rate η", etas.min(), etas.max(), grid_step(etas), 1.0)
    roles = alt.Color("role:N", title=None, scale=role_scale([OURS, FORMULA, PAPER]))

    base = alt.Chart(paths).transform_filter(_PICK)
    path = (
        base.mark_line()
        .transform_calculate(role=f"'{OURS}'")
        .encode(
            x=alt.X("time:Q", title="time"),
            y=alt.Y("rate:Q", title="rate x(t) / c", scale=alt.Scale(domain=[0, 1.05])),
            color=roles,
        )
    )
    mean = (
        alt.Chart(utilisation)
        .transform_filter(_PICK)
        .transform_calculate(role=f"'{OURS}'")
        .mark_rule(strokeDash=[6, 3])
        .encode(y="simulated:Q", color=roles)
    )
    formula = (
        alt.Chart(utilisation)
        .transform_filter(_PICK)
        .transform_calculate(role=f"'{FORMULA}'", formula="(1 + beta) / 2")
        .mark_rule(strokeDash=[2, 2], strokeWidth=3, opacity=0.8)
        .encode(y="formula:Q", color=roles)
    )
    label = (
        alt.Chart(utilisation)
        .transform_filter(_PICK)
        .transform_calculate(
            text="'mean rate: ' + format(datum.simulated, '.2%') + ' of c (simulated)|'"
            " + format((1 + beta) / 2, '.2%') + ' = (1 + β)/2 (formula)'"
        )
        .mark_text(align="left", baseline="top", dx=4, dy=4, fontSize=13, lineBreak="|")
        .encode(x=alt.value(0), y=alt.value(0), text="text:N")
    )
    top = alt.layer(path, mean, formula, label).properties(
        title="One AIMD connection: the sawtooth and its mean", width=520, height=260
    )

    curve = (
        alt.Chart(utilisation)
        .transform_filter("abs(datum.eta - eta) < 1e-6")
        .transform_calculate(role=f"'{FORMULA}'")
        .mark_line()
        .encode(
            x=alt.X("beta:Q", title="decrease factor β"),
            y=alt.Y("formula:Q", title="mean rate / c", scale=alt.Scale(domain=[0.5, 1])),
            color=roles,
        )
    )
    dots = (
        alt.Chart(utilisation)
        .transform_filter("abs(datum.eta - eta) < 1e-6")
        .transform_calculate(role=f"'{OURS}'")
        .mark_point(filled=True, size=40)
        .encode(x="beta:Q", y="simulated:Q", color=roles, tooltip=["beta", "eta", "simulated"])
    )
    paper = (
        alt.Chart(pd.DataFrame({"beta": [paper_beta], "value": [paper_value]}))
        .transform_calculate(role=f"'{PAPER}'")
        .mark_point(shape="diamond", size=160, filled=False, strokeWidth=2)
        .encode(x="beta:Q", y="value:Q", color=roles, tooltip=["beta", "value"])
    )
    marker = (
        alt.Chart(pd.DataFrame({"x": [0]}))
        .transform_calculate(beta="beta")
        .mark_rule(color="gray", strokeDash=[4, 4])
        .encode(x="beta:Q")
    )
    bottom = alt.layer(curve, dots, paper, marker).properties(
        title="Utilisation against β, and the paper's 75%",
        width=520,
        height=200,
    )
    return describe(
        alt.vconcat(top, bottom).add_params(beta, eta), _description(utilisation, paper_value)
    )


def _description(utilisation: pd.DataFrame, paper_value: float) -> str:
    tcp = utilisation[np.isclose(utilisation["beta"], 0.5)]
    worst = float((utilisation["simulated"] - utilisation["formula"]).abs().max())
    return (
        "Two linked charts with sliders for β and η. Top: one AIMD connection's rate climbs "
        "from β c to c and drops, a sawtooth; its simulated mean and the formula (1 + β)/2 are "
        "drawn as horizontal lines. Bottom: the simulated utilisation for every β on the grid "
        f"lies on the formula (largest difference {significant(worst, 1)}); at β = 1/2 it is "
        f"{tcp['simulated'].mean():.6f} of the link, the paper's {paper_value:.0%}."
    )
