"""Live panel of the Lu et al. chapter: TameParallelTCP in any scenario, from the recorded
curves or (scenario 1) from fresh packet runs.

Pick the scenario, the cross traffic, the probe pair, the impact limit and the marginal-gain
floor; the panel runs the advisor (:func:`tcplab.tame.tame_parallel_tcp`) and draws its
predicted curve and impact beside the simulated ones, with the number of flows it chose. With
"simulate" it probes scenario 1 in the packet model (a run takes a fraction of a second);
with "yours" it takes the reader's own measured throughputs (n:BW pairs, any one unit; a
repeated n is a repeat) and runs the measured advisor (:func:`tcplab.advisor.advise`) with its
guards, whose one-line refusals the panel shows; otherwise it reads the probes from the
chapter's table. Like every panel of the book
(:mod:`tcplab.widgets`) it reruns with a kernel; on the static page the same
:class:`~tcplab.panels.PanelSpec` runs in the reader's browser (:mod:`tcplab.inbrowser`).
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any

import altair as alt
import numpy as np
import pandas as pd

from tcplab.advisor import advise as advise_measured
from tcplab.advisor import parse_pairs
from tcplab.charts import FORMULA, OURS, PAPER, ROLE_COLOURS
from tcplab.checks import check_choice
from tcplab.panels import Control, PanelSpec
from tcplab.tame import PacketProbe, table_probe, tame_parallel_tcp

from .analysis import CROSS, PARALLEL

if TYPE_CHECKING:
    from tcplab.widgets import LivePanel

__all__ = [
    "advise",
    "advise_mine",
    "advice_chart",
    "draw",
    "recorded_table",
    "tame_spec",
    "tame_panel",
]

WHAT = (
    "Choose a scenario, the cross traffic, the probes and the impact you allow; the advisor "
    "answers from the recorded curves, probes scenario 1 in the packet model, or takes your "
    "own measured throughputs (n:BW pairs)."
)
#: the recorded tables the panel reads (the book ships them with tcplab for the browser)
RECORDED = ("lu-scenarios", "lu-gigabit")

PAIRS = {"(1, 8)": (1, 8), "(1, 10)": (1, 10), "(1, 15)": (1, 15), "(1, 2)": (1, 2)}
SOURCES = ("recorded", "simulate", "yours")
#: the reader's probes to start from (a path where 10 connections get 6 times one's throughput)
MINE = "1:100 10:600"


def advise(
    table: pd.DataFrame,
    scenario: int = 1,
    cross: int = 10,
    max_impact: float = 0.2,
    probes: str = "(1, 10)",
    min_gain: float = 0.01,
    source: str = "recorded",
    seed: int = 0,
) -> tuple[pd.DataFrame, dict[str, Any]]:
    """Run the advisor and return (curve, numbers): the curve has, per number of flows, the
    predicted throughput and impact and (where simulated) the measured ones; the numbers are
    the choice, its predicted and simulated values and what stopped the search."""
    check_choice("probes", probes, PAIRS)
    check_choice("source", source, SOURCES)
    runs = table[
        (table["scenario"] == scenario) & (table["queue"] == "droptail")
        & (table["cross"] == cross) & (table["replica"] == 0)
    ].set_index("flows").sort_index()  # fmt: skip
    if source == "simulate":
        if scenario != 1:
            raise ValueError(f"scenario={scenario}: only scenario 1 is simulated live (1.5 Mb/s)")
        probe: Any = PacketProbe(1, cross, seed=seed)
    else:
        if runs.empty:
            raise ValueError(f"cross={cross} is not recorded for scenario {scenario}")
        if not all(n in runs.index for n in PAIRS[probes]):
            raise ValueError(f"probes={probes} are not both recorded for scenario {scenario}")
        probe = table_probe(dict(runs[PARALLEL]))
    advice = tame_parallel_tcp(probe, max_impact, probes=PAIRS[probes], min_gain=min_gain)
    curve = advice.curve()
    if source == "simulate":
        done = probe.run(advice.flows)
        base = probe.run(1)
        measured = {n: r.parallel_bytes_per_s for n, r in probe.runs.items()}
        impact = {n: 1 - r.cross_bytes_per_s / base.cross_bytes_per_s if cross else np.nan
                  for n, r in probe.runs.items()}  # fmt: skip
        simulated = (done.parallel_bytes_per_s, impact[advice.flows])
    else:
        measured = dict(runs[PARALLEL])
        impact = dict(1 - runs[CROSS] / runs.loc[1, CROSS]) if cross and 1 in runs.index else {}
        simulated = (measured.get(advice.flows, np.nan), impact.get(advice.flows, np.nan))
    curve["measured"] = curve["flows"].map(measured)
    curve["measured_impact"] = curve["flows"].map(impact) if impact else np.nan
    numbers = {
        "flows": advice.flows,
        "predicted": advice.throughput,
        "predicted_impact": advice.impact,
        "simulated": float(simulated[0]),
        "simulated_impact": float(simulated[1]),
        "stopped_by": advice.stopped_by,
        "probes": advice.probes,
    }
    return curve, numbers


def advise_mine(
    mine: str, max_impact: float = 0.2, min_gain: float = 0.01
) -> tuple[pd.DataFrame, dict[str, Any]]:
    """The measured advisor on the reader's probes ``mine`` ("n:BW n:BW ..."): the curve
    (predicted throughput and impact per n, no measurements) and the numbers of the choice.
    Probes outside the model's domain raise its one-line refusal."""
    advice = advise_measured(parse_pairs(mine, "your probes"), max_impact, min_gain=min_gain)
    curve = advice.result.curve()
    curve["measured"] = np.nan
    curve["measured_impact"] = np.nan
    numbers = {
        "flows": advice.result.flows,
        "predicted": advice.result.throughput,
        "predicted_impact": advice.result.impact,
        "simulated": np.nan,
        "simulated_impact": np.nan,
        "stopped_by": advice.result.stopped_by,
        "probes": advice.result.probes,
    }
    return curve, numbers


def advice_chart(
    curve: pd.DataFrame,
    numbers: dict[str, Any],
    title: str | list[str] = "",
    unit: tuple[str, float] = ("MB/s", 1e6),
) -> alt.VConcatChart:
    """The advisor's predicted throughput and impact (lines), the simulated ones (dots), the
    probes (diamonds) and the chosen number of flows (rule); ``unit`` is (label, divisor)."""
    label, scale = unit
    data = curve.assign(
        predicted_mbps=curve["throughput"] / scale, measured_mbps=curve["measured"] / scale
    ).round(5)
    x = alt.X("flows:Q", title="parallel TCP flows n", scale=alt.Scale(domain=[0, 32]))
    chosen = alt.Chart(pd.DataFrame({"flows": [numbers["flows"]]})).mark_rule(
        color="#888888", strokeDash=[4, 3]
    ).encode(x="flows:Q")  # fmt: skip
    probes = pd.DataFrame(
        {"flows": list(numbers["probes"]), "mbps": [v / scale for v in numbers["probes"].values()]}
    )
    top = alt.layer(
        alt.Chart(data).mark_line(color=ROLE_COLOURS[FORMULA]).encode(
            x=x, y=alt.Y("predicted_mbps:Q", title=f"parallel TCP ({label})")),
        alt.Chart(data).mark_point(filled=True, color=ROLE_COLOURS[OURS]).encode(
            x=x, y="measured_mbps:Q"),
        alt.Chart(probes).mark_point(shape="diamond", size=150, color=ROLE_COLOURS[PAPER],
                                     filled=False, strokeWidth=2).encode(x=x, y="mbps:Q"),
        chosen,
    ).properties(width=420, height=200, title=title)  # fmt: skip
    bottom = alt.layer(
        alt.Chart(data).mark_line(color=ROLE_COLOURS[FORMULA]).encode(
            x=x, y=alt.Y("impact:Q", title="impact on cross traffic")),
        alt.Chart(data).mark_point(filled=True, color=ROLE_COLOURS[OURS]).encode(
            x=x, y="measured_impact:Q"),
        chosen,
    ).properties(width=420, height=140)  # fmt: skip
    return alt.vconcat(top, bottom)


def draw(
    table: pd.DataFrame,
    scenario: str,
    cross: str,
    probes: str,
    max_impact: float,
    min_gain: float,
    source: str,
    mine: str = MINE,
) -> alt.TopLevelMixin:
    """The advisor's answer for the controls' values (drop-downs give strings)."""
    if source == "yours":
        curve, numbers = advise_mine(mine, max_impact, min_gain)
        title = [
            f"your probes: open {numbers['flows']} flows (stopped by {numbers['stopped_by']})",
            f"predicted {numbers['predicted']:.4g} (your unit), impact "
            f"{numbers['predicted_impact']:.1%} against one connection (Reno-like cross traffic)",
        ]
        return advice_chart(curve, numbers, title=title, unit=("your unit", 1.0))
    curve, numbers = advise(table, int(scenario), int(cross), max_impact, probes, min_gain, source)
    title = [
        f"scenario {scenario}, {cross} cross flows: open "
        f"{numbers['flows']} flows (stopped by {numbers['stopped_by']})",
        f"predicted {numbers['predicted'] / 1e6:.3g} MB/s, impact "
        f"{numbers['predicted_impact']:.1%}; simulated {numbers['simulated'] / 1e6:.3g} MB/s,"
        f" {numbers['simulated_impact']:.1%}",
    ]
    return advice_chart(curve, numbers, title=title)


def recorded_table() -> pd.DataFrame:
    """The chapter's table of every recorded run (lu-scenarios with lu-gigabit's 1 Gb/s runs),
    read from data/ (in the reader's browser: from the copy the book ships with tcplab)."""
    from tcplab.inbrowser import recorded

    from .claims import scenario_table

    return scenario_table({name: recorded(name) for name in RECORDED})


def tame_spec(table: pd.DataFrame | None = None) -> PanelSpec:
    """The panel's controls (scenario, cross traffic, probes, impact limit, gain floor, where
    the probes come from) and its drawing, over ``table`` (default: the recorded one)."""
    table = recorded_table() if table is None else table
    scenarios = [str(s) for s in sorted(table["scenario"].unique().tolist())]
    levels = [str(c) for c in sorted(table["cross"].unique().tolist())]
    return PanelSpec(
        (
            Control.choice("scenario", "scenario", tuple(scenarios), "1"),
            Control.choice(
                "cross", "cross flows", tuple(levels), "10" if "10" in levels else levels[-1]
            ),  # fmt: skip
            Control.choice("probes", "probes", tuple(PAIRS), "(1, 10)"),
            Control("max_impact", "max impact", 0.05, 0.6, 0.05, 0.2),
            Control("min_gain", "min gain", 0.0, 0.05, 0.005, 0.01, readout=".3f"),
            Control.choice("source", "probes from", SOURCES, "recorded"),
            Control(
                "mine", "your probes n:BW", 0, 0, 0, MINE, kind="text", when=("source", "yours")
            ),
        ),
        functools.partial(draw, table),
        WHAT,
    )


def tame_panel(table: pd.DataFrame) -> LivePanel:
    """Controls for the scenario, cross traffic, probes, impact limit, gain floor and the
    source of the probes; redraws the advisor's answer. On the static page it runs in the
    reader's browser, over the recorded table the book ships."""
    from tcplab.widgets import spec_panel

    return spec_panel(tame_spec(table), browser=tame_spec)
