"""Live panel of the parallel-transfers chapter: one repetition of Lee et al.'s measurement,
rerun with the reader's path model, number of connections, transfer size and RTT.

The panel runs :func:`~tcplab.chapters.lee.transfer.run_repetition` with ``trace=True`` (the
senders then record the packets acknowledged at every ACK that acknowledges new data) and
redraws each connection's acknowledged bytes over time beside its completion time, with the
repetition's aggregate and per-connection throughput, by the paper's definitions, in the
title. Like every panel of the book (:mod:`tcplab.widgets`) it reruns the model when a Jupyter
kernel is attached; on the static page the same :class:`~tcplab.panels.PanelSpec` runs in
the reader's browser (:mod:`tcplab.inbrowser`, Pyodide).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import altair as alt
import numpy as np
import pandas as pd

from tcplab.checks import check_choice, check_int, check_range
from tcplab.panels import Control, PanelSpec

from .experiments import NBYTES, PATH_RTTS
from .transfer import PACKET_BYTES, PATHS, Repetition, path_model, run_repetition

if TYPE_CHECKING:
    from tcplab.widgets import LivePanel

__all__ = [
    "draw",
    "transfers_live",
    "progress_chart",
    "transfers_panel",
    "transfers_spec",
    "sample_steps",
    "POINTS",
]

#: points per connection's progress line (the trace has one per new ACK); 50 x 80 rows stay
#: under altair's default limit of 5000
POINTS = 80
MAX_FLOWS = 50  # the paper's largest number of parallel flows
MAX_CROSS = 20  # cross-traffic connections the panel offers
MAX_BUFFER = 2000  # bottleneck buffer (packets) the panel offers
SENDERS = ("newreno", "sack")  # the transfers' TCP the panel offers
#: the cross-traffic control: the path's own random number, or a fixed one
CROSS_CHOICES = ("path's own", "0", "2", "5", "10", "20")
TIMEOUT_LABELS = {False: "none", True: "had a time-out"}


def sample_steps(
    times: np.ndarray, values: np.ndarray, points: int
) -> tuple[np.ndarray, np.ndarray]:
    """The step function ``values`` (each held from its time to the next) at ``points``
    evenly spaced times from the first to the last (both kept exact): a stall stays a flat
    stretch, whatever the thinning."""
    if len(times) <= points:
        return times, values
    grid = np.linspace(times[0], times[-1], points)
    held = values[np.searchsorted(times, grid, side="right") - 1]
    return grid, held


def transfers_live(
    path: str = "shared",
    flows: int = 10,
    nbytes: int = NBYTES,
    rtt_ms: float = 49.0,
    seed: int = 0,
    *,
    sender: str = "newreno",
    cross: int | None = None,
    buffer: int | None = None,
) -> tuple[pd.DataFrame, pd.DataFrame, dict[str, Any]]:
    """One repetition of ``flows`` transfers of ``nbytes`` bytes on the chapter's path model
    ``path`` at ``rtt_ms``, with the transfers' TCP ``sender`` (NewReno or SACK), ``cross``
    cross-traffic connections (None: the path's own random number) and a bottleneck of
    ``buffer`` packets (None: the path's). Returns the progress (rows transfer, t, bytes
    acknowledged in order, at most :data:`POINTS` per transfer; a SACK transfer records no
    trace, so its line joins its start and its end), one row per transfer (completion_s, NaN
    if not done by the time limit; bytes_per_s; timeouts) and the repetition's numbers:
    aggregate by reading A (total bytes / last completion, NaN if a transfer failed) and B
    (the sum of the rates), median rate of a transfer, capacity, time-outs, cross-traffic
    connections, failed transfers."""
    check_choice("path", path, PATHS)
    check_choice("sender", sender, SENDERS)
    flows = check_int("flows", flows, 1, MAX_FLOWS)
    check_range("rtt_ms", rtt_ms, 1.0, 500.0)
    changes: dict[str, Any] = {"tcp": sender}
    if cross is not None:
        cross = check_int("cross", cross, 0, MAX_CROSS)
        changes["cross"] = (cross, cross)
    if buffer is not None:
        changes["buffer"] = check_int("buffer", buffer, 1, MAX_BUFFER)
    traced = sender != "sack"
    rep = Repetition(path_model(path, **changes), flows, nbytes, rtt_ms, seed, trace=traced)
    out = run_repetition(rep)
    completion = np.asarray(out["completion_s"], dtype=float)
    frames = []
    if traced:
        for i, (times, packets) in enumerate(out["progress"]):
            t, p = sample_steps(np.asarray(times), np.asarray(packets), POINTS)
            delivered = np.minimum(p * PACKET_BYTES, rep.nbytes)
            frames.append(pd.DataFrame({"transfer": i, "t": t, "bytes": delivered}))
    else:
        for i in range(flows):
            end = completion[i] if np.isfinite(completion[i]) else float(out["end_s"])
            t = np.array([out["start_s"][i], end])
            frames.append(pd.DataFrame({"transfer": i, "t": t, "bytes": [0, out["bytes"][i]]}))
    progress = pd.concat(frames, ignore_index=True)
    done = pd.DataFrame(
        {
            "transfer": np.arange(flows),
            "completion_s": completion,
            "bytes_per_s": out["bytes"] / completion,
            "timeouts": out["timeouts"],
        }
    )
    failed = int(np.isnan(completion).sum())
    aggregate = float(out["bytes"].sum() / completion.max()) if not failed else float("nan")
    rates = float(done["bytes_per_s"].sum()) if not failed else float("nan")
    numbers = {
        "aggregate_bytes_per_s": aggregate,
        "sum_of_rates_bytes_per_s": rates,
        "median_per_flow_bytes_per_s": float(np.nanmedian(done["bytes_per_s"])),
        "capacity_bytes_per_s": rep.path.capacity_bytes_per_s,
        "timeouts": int(out["timeouts"].sum()),
        "with_timeout": int((out["timeouts"] > 0).sum()),
        "cross": int(out["cross"]),
        "failed": failed,
    }
    return progress, done, numbers


def progress_chart(
    progress: pd.DataFrame, done: pd.DataFrame, title: list[str] | str = ""
) -> alt.HConcatChart:
    """Each connection's acknowledged MB over time (a dot where it completed) beside the
    completion times in order; connections that had a time-out in the second colour."""
    label = (done.set_index("transfer")["timeouts"] > 0).map(TIMEOUT_LABELS)
    colour = alt.Color(
        "timeout:N",
        title="time-outs",
        scale=alt.Scale(domain=list(TIMEOUT_LABELS.values()), range=["#0072B2", "#D55E00"]),
    )
    lines = progress.assign(
        MB=progress["bytes"] / 1e6, timeout=progress["transfer"].map(label)
    ).round(6)
    ends = done.dropna(subset=["completion_s"]).assign(timeout=lambda d: d["transfer"].map(label))
    ends = ends.sort_values("completion_s").assign(order=lambda d: np.arange(1, len(d) + 1))
    ends = ends.assign(MB=float(progress["bytes"].max()) / 1e6).round(6)
    x = alt.X("t:Q", title="time since the common start (s)")
    curves = (
        alt.Chart(lines)
        .mark_line(opacity=0.7, strokeWidth=1, interpolate="step-after")
        .encode(
            x=x, y=alt.Y("MB:Q", title="acknowledged (MB)"), detail="transfer:N", color=colour
        )  # fmt: skip
    )
    dots = (
        alt.Chart(ends)
        .mark_point(filled=True, size=25)
        .encode(x=alt.X("completion_s:Q"), y="MB:Q", color=colour)
    )
    order = (
        alt.Chart(ends)
        .mark_point(filled=True, size=30)
        .encode(
            x=alt.X("order:Q", title="connections in order of completion"),
            y=alt.Y("completion_s:Q", title="completion time (s)"),
            color=colour,
            tooltip=["transfer:Q", alt.Tooltip("completion_s:Q", format=".2f")],
        )
    )
    left = (curves + dots).properties(width=320, height=220)
    return alt.hconcat(left, order.properties(width=220, height=220), title=title)


def _title(path: str, flows: int, nbytes: int, rtt_ms: float, numbers: dict[str, Any]) -> list[str]:
    aggregate = numbers["aggregate_bytes_per_s"]
    share = aggregate / numbers["capacity_bytes_per_s"]
    rates = numbers["sum_of_rates_bytes_per_s"]
    first = (
        f"{path}, {flows} x {nbytes / 1e6:g} MB, RTT {rtt_ms:g} ms: aggregate A "
        f"{aggregate / 1e3:.0f} KB/s ({share:.0%} of the bottleneck), B {rates / 1e3:.0f} KB/s"
        if not numbers["failed"]
        else f"{path}, {flows} x {nbytes / 1e6:g} MB: {numbers['failed']} transfers not done "
        "by the time limit (a failed repetition)"
    )
    second = (
        f"median rate of a transfer {numbers['median_per_flow_bytes_per_s'] / 1e3:.0f} KB/s; "
        f"{numbers['with_timeout']} connections had a time-out; "
        f"{numbers['cross']} cross-traffic connections"
    )
    return [first, second]


def draw(
    path: str,
    flows: int,
    sender: str,
    cross: str,
    buffer: int,
    size_mb: float,
    rtt_ms: int,
    seed: int,
) -> alt.HConcatChart:
    """One repetition of ``flows`` transfers of ``size_mb`` MB each on ``path`` at ``rtt_ms``,
    with the ``sender``, ``cross`` (one of :data:`CROSS_CHOICES`) and a bottleneck ``buffer``
    (packets): the progress and completion chart, titled with its throughputs."""
    check_choice("cross", cross, CROSS_CHOICES)
    nbytes = int(round(size_mb * 1e6))
    args = (path, int(flows), nbytes, int(rtt_ms))
    fixed = None if cross == CROSS_CHOICES[0] else int(cross)
    progress, done, numbers = transfers_live(
        *args, seed=int(seed), sender=sender, cross=fixed, buffer=int(buffer)
    )
    return progress_chart(progress, done, _title(*args, numbers))


def transfers_spec(path: str = "shared", flows: int = 10) -> PanelSpec:
    """The panel's controls (the path model, the connections, the sender, the cross traffic,
    the bottleneck buffer, the size, the RTT, the seed) and its drawing; the notebook's
    sliders act when released."""
    rtts = dict(PATH_RTTS)
    return PanelSpec(
        (
            Control.choice("path", "path model", tuple(PATHS), path),
            Control("flows", "connections", 1, MAX_FLOWS, 1, flows, kind="int"),
            Control.choice("sender", "sender", SENDERS, "newreno"),
            Control.choice("cross", "cross traffic", CROSS_CHOICES, CROSS_CHOICES[0]),
            Control(
                "buffer", "buffer (packets)", 10, MAX_BUFFER, 10, PATHS[path].buffer, kind="int"
            ),
            Control("size_mb", "MB each", 0.1, 8.0, 0.1, NBYTES / 1e6),
            Control("rtt_ms", "RTT (ms)", 10, 200, 1, int(rtts[path]), kind="int"),
            Control("seed", "seed", 0, 9, 1, 0, kind="int"),
        ),
        draw,
        "Choose the path model, the number of connections, the sender, the cross traffic, the "
        "bottleneck buffer, the transfers' size and the RTT; one repetition reruns.",
        continuous=False,
    )


def transfers_panel(path: str = "shared", flows: int = 10) -> LivePanel:
    """Controls for the path model, the number of connections, the sender, the cross
    traffic, the buffer, the transfer size, the RTT and the seed; redraws one repetition
    (each control acts when released). On the static page it can run in the reader's
    browser."""
    from tcplab.widgets import spec_panel

    return spec_panel(transfers_spec(path, flows), browser=transfers_spec)
