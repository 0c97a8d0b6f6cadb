"""Live panel of the insensitivity chapter: Example 1 for any sigma, N and beta.

Like every panel of the book (:mod:`tcplab.widgets`), it reruns the model when a Jupyter
kernel is attached and shows a short note on the static page. The curves are the exact
rate-independent closed form; the points at the chosen sigma are a fresh simulation.
"""

from __future__ import annotations

import altair as alt
import ipywidgets as w
import numpy as np
import pandas as pd

from tcplab import fluid, policies
from tcplab.theory import altman
from tcplab.theory import parallel as theory_parallel
from tcplab.widgets import LivePanel, live_panel

from .charts import example1_chart

__all__ = ["example1_frame", "example1_panel"]


def example1_frame(
    sigma: float, flows: int = 4, beta: float = 0.5, events: int = 5_000, seed: int = 0
) -> pd.DataFrame:
    """Example 1 with N connections in two classes of N/2: the exact curves on a sigma grid
    and the simulated point at ``sigma`` (NaN elsewhere), in the layout of the
    ``insensitivity-example1`` experiment."""
    probs = theory_parallel.two_class_probs(sigma, flows)  # validates sigma and flows
    half = flows // 2
    groups = (f"class 1 (connections 1-{half})", f"class 2 (connections {half + 1}-{flows})")
    result = fluid.simulate(
        flows,
        policies.RateIndependent(probs),
        beta=beta,
        events=events,
        replicas=16,
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


def example1_panel(sigma: float = 0.125, flows: int = 4, beta: float = 0.5) -> LivePanel:
    """Sliders for sigma, N (even) and beta; redraws Fig. 3 with a simulation at sigma."""
    style = {"description_width": "initial"}
    sigma_slider = w.FloatSlider(
        sigma, min=0.01, max=0.99, step=0.005, description="σ", readout_format=".3f", style=style
    )
    n_slider = w.IntSlider(flows, min=2, max=12, step=2, description="N", style=style)
    beta_slider = w.FloatSlider(beta, min=0.05, max=0.95, step=0.05, description="β", style=style)

    def redraw() -> alt.TopLevelMixin:
        s, n, b = sigma_slider.value, n_slider.value, beta_slider.value
        frame = example1_frame(s, n, b)
        at = frame[frame["simulated"].notna()].set_index("group")["simulated"]
        title = (
            f"N = {n}, β = {b:.2f}, σ = {s:.3f}: aggregate {at['aggregate']:.4f} "
            f"(Theorem 1: {altman.parallel_throughput(n, b):.4f})"
        )
        chart = example1_chart(frame, sigma=s, title=title)
        return chart

    return live_panel(
        [sigma_slider, n_slider, beta_slider],
        redraw,
        "Move σ, the number of connections N and β; the exact curves are recomputed and the "
        "fluid model is rerun at σ.",
    )
