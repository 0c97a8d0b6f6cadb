"""Live panel of the many-flows chapter: one Morris run with N, the buffer, the queue and the
sender chosen by the reader.

The panel runs Figure 2's set-up (:func:`~tcplab.chapters.morris.runs.morris_setup`) with the
shipped runs' warm-up (20 s) and start spread (every sender starts in the first 10 s, the
paper's 5% of 200 s, whatever span the reader picks), then draws two views of that run: the
fairness histogram (Figs. 4 and 6) over the shipped runs' histogram at the nearest N of
``morris-loss`` (a line; where that table is not available, as in the reader's browser when the
book did not ship it, the run is drawn alone), and the number of flows in each back-off stage
second by second (Section 7.1). Like every panel of the book (:mod:`tcplab.widgets`) it reruns
the model when a Jupyter kernel is attached; on the static page the same
:class:`~tcplab.panels.PanelSpec` runs in the reader's browser (:mod:`tcplab.inbrowser`,
Pyodide).
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

import altair as alt
import numpy as np
import pandas as pd

from tcplab.checks import check_range
from tcplab.packet.probes import TIMEOUT
from tcplab.panels import Control, PanelSpec

from .analysis import HISTOGRAM_EDGES
from .measures import STAGES, summarise
from .runs import SENDERS, morris_setup
from .topology import MorrisRun, run_morris

if TYPE_CHECKING:
    from tcplab.widgets import LivePanel

__all__ = [
    "WARMUP",
    "SPREAD",
    "draw",
    "morris_live",
    "morris_panel",
    "morris_spec",
    "stage_series",
    "shipped_histogram",
]

WARMUP = 20.0  # seconds before the measures start, as in the shipped runs
SPREAD = 10.0  # seconds over which the senders start, as in the shipped runs (5% of 200 s)


def stage_series(run: MorrisRun) -> pd.DataFrame:
    """Flows in each back-off stage at each whole second of ``run`` (from t = 0): a time-out
    that fired at t after waiting w held its flow in its stage during [t - w, t). Rows
    (second, stage, flows); stage 6 and above count as 6 (TCP's 64 s ceiling)."""
    losses = run.losses
    outs = losses[losses["kind"] == TIMEOUT]
    seconds = np.arange(0.0, run.setup.length.duration + 1e-9, 1.0)
    fired = outs["time"].to_numpy(dtype=float) if len(outs) else np.zeros(0)
    start = fired - (outs["wait"].to_numpy(dtype=float) if len(outs) else np.zeros(0))
    stage = np.minimum(outs["stage"].to_numpy(dtype=int), STAGES - 1) if len(outs) else fired
    rows = []
    for s in range(STAGES):
        mine = stage == s
        begin, end = np.sort(start[mine]), np.sort(fired[mine])
        held = np.searchsorted(begin, seconds, "right") - np.searchsorted(end, seconds, "right")
        rows.append(pd.DataFrame({"second": seconds, "stage": s, "flows": held}))
    return pd.concat(rows, ignore_index=True)


def morris_live(
    flows: int = 100,
    buffer: int = 217,
    queue: str = "red",
    sender: str = "tahoe",
    seconds: float = 20.0,
    seed: int = 0,
) -> dict[str, Any]:
    """One run of ``WARMUP + seconds`` of Morris's set-up, its senders starting over the first
    :data:`SPREAD` seconds; its measures with the histogram, and ``stages``
    (:func:`stage_series`)."""
    seconds = check_range("seconds", seconds, 1.0, 300.0)
    length = WARMUP + seconds
    setup = morris_setup(flows, buffer=buffer, queue=queue, sender=sender, seconds=length,
                         warmup=WARMUP, seed=seed, start_fraction=SPREAD / length)  # fmt: skip
    run = run_morris(setup)
    return {**summarise(run, histogram=True), "stages": stage_series(run)}


#: the recorded table the panel draws under the reader's run (the book ships it in tcplab's
#: wheel for the browser: tcplab.pyodide_site)
RECORDED = ("morris-loss",)


def _shipped_table() -> pd.DataFrame | None:
    """``morris-loss`` as shipped: in the reader's browser the copy in tcplab's wheel (if the
    book shipped it), elsewhere data/morris-loss.csv when it is fresh (never computed here)."""
    if sys.platform == "emscripten":  # Pyodide
        from tcplab.inbrowser import recorded

        try:
            return recorded(RECORDED[0])
        except FileNotFoundError:
            return None
    from tcplab import cache, registry

    found = cache.load(cache.Entry("morris-loss"))
    if found is None or not cache.is_fresh(found[1], registry.REGISTRY["morris-loss"].modules()):
        return None
    return found[0]


def shipped_histogram(flows: int) -> tuple[int, np.ndarray] | None:
    """The shipped runs' mean histogram (``morris-loss``, Morris's set-up as built) at the N
    of that table nearest to ``flows`` on a log scale, or None where the table is not here."""
    loss = _shipped_table()
    if loss is None:
        return None
    ns = np.sort(loss["flows"].unique())
    nearest = int(ns[np.argmin(np.abs(np.log(ns) - np.log(max(flows, 1))))])
    columns = [f"h{k:02d}" for k in range(len(HISTOGRAM_EDGES) - 1)]
    return nearest, loss.loc[loss["flows"] == nearest, columns].mean().to_numpy(dtype=float)


def _histogram(out: dict[str, Any], title: list[str]) -> alt.LayerChart | alt.Chart:
    probability = np.asarray(out["hist"], dtype=float)
    data = pd.DataFrame({"share": HISTOGRAM_EDGES[:-1], "probability": probability})
    data["end"] = data["share"] + 0.25
    x = alt.X("share:Q", bin="binned", title="bandwidth in one second (fair shares)")
    bars = (
        alt.Chart(data.round(5), title=title)
        .mark_bar(color="#0072B2")
        .encode(x=x, x2="end:Q", y=alt.Y("probability:Q", title="probability"))
    )
    shipped = shipped_histogram(int(out["flows"]))
    if shipped is None:
        return bars.properties(width=420, height=200)
    nearest, reference = shipped
    ref = pd.DataFrame({"share": HISTOGRAM_EDGES[:-1] + 0.125, "probability": reference,
                        "what": f"shipped runs, N = {nearest} (as built)"})  # fmt: skip
    line = (
        alt.Chart(ref.round(5))
        .mark_line(point=True, color="#D55E00", interpolate="step-after")
        .encode(x="share:Q", y="probability:Q", tooltip=["what", "share", "probability"])
    )
    return (bars + line).properties(width=420, height=200)


def _stages(out: dict[str, Any]) -> alt.Chart:
    data = out["stages"]
    data = data[data["flows"] > 0] if len(data) else data
    return (
        alt.Chart(data, title="flows in each back-off stage (stage i: a 2ⁱ s time-out)")
        .mark_area()
        .encode(
            x=alt.X("second:Q", title="time (s; the measures start at 20 s)"),
            y=alt.Y("flows:Q", stack=True, title="flows in time-out"),
            color=alt.Color("stage:O", title="stage", scale=alt.Scale(scheme="oranges")),
            tooltip=["second", "stage", "flows"],
        )
        .properties(width=420, height=140)
    )


def draw(
    flows: int, buffer: int, queue: str, sender: str, seconds: int, seed: int
) -> alt.TopLevelMixin:
    """The fairness histogram of a fresh run over the shipped one, titled with its loss rate,
    goodput, empty flow-seconds and time-outs, and its back-off stages over time."""
    out = morris_live(int(flows), int(buffer), queue, sender, int(seconds), int(seed))
    title = [
        f"N = {out['flows']}, {out['queue']} b = {out['buffer']}, {sender}: "
        f"loss {out['loss_rate']:.1%}, goodput {out['goodput_fraction']:.1%}",
        f"{out['zero_seconds']:.0%} of flow-seconds empty, {out['timeouts']} time-outs",
    ]
    return alt.vconcat(_histogram(out, title), _stages(out))


def morris_spec(flows: int = 30, buffer: int = 217) -> PanelSpec:
    """The panel's controls (N, the buffer, the queue, the sender, the span, the seed) and
    its drawing."""
    return PanelSpec(
        (
            Control("flows", "flows N", 1, 3000, 1, flows, kind="number"),
            Control("buffer", "buffer b", 4, 10000, 1, buffer, kind="number"),
            Control.choice("queue", "queue", ("red", "droptail"), "red"),
            Control.choice("sender", "sender", tuple(SENDERS), "tahoe"),
            Control("seconds", "seconds", 5, 120, 1, 10, kind="int"),
            Control("seed", "seed", 0, 9, 1, 0, kind="int"),
        ),
        draw,
        "Choose N, the buffer, the queue and the sender; Morris's set-up reruns.",
    )


def morris_panel(flows: int = 30, buffer: int = 217) -> LivePanel:
    """Controls for N, the buffer, the queue, the sender, the span and the seed; redraws the
    fairness histogram of a fresh run over the shipped one, and its back-off stages. On the
    static page it can run in the reader's browser."""
    from tcplab.widgets import spec_panel

    return spec_panel(morris_spec(flows, buffer), browser=morris_spec)
