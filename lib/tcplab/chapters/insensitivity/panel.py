"""Live panel of the insensitivity chapter: Example 1 for any sigma, N and beta.

Like every panel of the book (:mod:`tcplab.widgets`), it reruns the model when a Jupyter
kernel is attached and shows a short note on the static page; there the note offers to run
the same panel in the reader's browser (:mod:`tcplab.inbrowser`, Pyodide). The curves are the
exact rate-independent closed form; the points at the chosen sigma are a fresh simulation.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import altair as alt
import numpy as np
import pandas as pd

from tcplab import fluid, policies
from tcplab.panels import Control, PanelSpec
from tcplab.theory import altman
from tcplab.theory import parallel as theory_parallel

from .charts import example1_chart

if TYPE_CHECKING:
    from tcplab.widgets import LivePanel

__all__ = ["example1_frame", "draw", "example1_spec", "example1_panel"]


def example1_frame(
    sigma: float,
    flows: int = 4,
    beta: float = 0.5,
    events: int = 1_250,
    seed: int = 0,
    replicas: int = 64,
) -> pd.DataFrame:
    """Example 1 with N connections in two classes of N/2: the exact curves on a sigma grid
    and the simulated point at ``sigma`` (NaN elsewhere), in the layout of the
    ``insensitivity-example1`` experiment.

    The simulation is 64 replicas of 1,250 events: the 80,000 events of 16 x 5,000 in a
    quarter of the steps, as the replicas advance together as numpy vectors (a quarter of a
    second less for the first chart in the reader's browser)."""
    probs = theory_parallel.two_class_probs(sigma, flows)  # validates sigma and flows
    half = flows // 2
    groups = (f"class 1 (connections 1-{half})", f"class 2 (connections {half + 1}-{flows})")
    result = fluid.simulate(
        flows,
        policies.RateIndependent(probs),
        beta=beta,
        events=events,
        replicas=replicas,
        seed=seed,
    )
    per_flow, ci = np.asarray(result.per_flow), np.asarray(result.per_flow_ci)
    simulated = {
        groups[0]: (per_flow[:half].sum(), ci[:half].sum()),
        groups[1]: (per_flow[half:].sum(), ci[half:].sum()),
        "aggregate": (result.aggregate, result.aggregate_ci),
    }
    rows = []
    for s in sorted({*np.round(np.linspace(0.05, 0.95, 19), 3), round(float(sigma), 6)}):
        exact = theory_parallel.rate_independent_throughputs(
            theory_parallel.two_class_probs(s, flows), beta
        )
        formulas = {
            groups[0]: exact[:half].sum(),
            groups[1]: exact[half:].sum(),
            "aggregate": exact.sum(),
        }
        chosen = abs(s - sigma) < 1e-9
        for group, formula in formulas.items():
            value, half_width = simulated[group] if chosen else (np.nan, np.nan)
            rows.append(
                {
                    "sigma": s,
                    "group": group,
                    "simulated": value,
                    "ci": half_width,
                    "formula": formula,
                }
            )
    return pd.DataFrame(rows)


def draw(sigma: float, flows: int, beta: float) -> alt.TopLevelMixin:
    """Fig. 3 for N = ``flows`` and ``beta``: the exact curves, and a simulation at ``sigma``."""
    flows = int(flows)
    frame = example1_frame(sigma, flows, beta)
    at = frame[frame["simulated"].notna()].set_index("group")["simulated"]
    title = (
        f"N = {flows}, β = {beta:.2f}, σ = {sigma:.3f}: aggregate {at['aggregate']:.4f} "
        f"(Theorem 1: {altman.parallel_throughput(flows, beta):.4f})"
    )
    return example1_chart(frame, sigma=sigma, title=title)


def example1_spec(sigma: float = 0.125, flows: int = 4, beta: float = 0.5) -> PanelSpec:
    """The panel's sliders (sigma, N even, beta) and its drawing."""
    return PanelSpec(
        (
            Control("sigma", "σ", 0.01, 0.99, 0.005, sigma, readout=".3f"),
            Control("flows", "N", 2, 12, 2, flows, kind="int"),
            Control("beta", "β", 0.05, 0.95, 0.05, beta),
        ),
        draw,
        "Move σ, the number of connections N and β; the exact curves are recomputed and the "
        "fluid model is rerun at σ.",
    )


def example1_panel(sigma: float = 0.125, flows: int = 4, beta: float = 0.5) -> LivePanel:
    """Sliders for sigma, N (even) and beta; redraws Fig. 3 with a simulation at sigma.
    On the static page it can run in the reader's browser."""
    from tcplab.widgets import spec_panel

    return spec_panel(
        example1_spec(sigma, flows, beta),
        browser=example1_spec,
    )
