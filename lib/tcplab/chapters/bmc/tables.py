"""The weighted-AIMD chapter's result tables in the book's table style
(:func:`tcplab.tables.show`).

Each function takes a frame the chapter already builds (``sensitivity.red_table``,
``claims.examples_table``, ``compare.compare_table``, ``claims.explain_table``) and returns
a :class:`tcplab.tables.Table`: headers in words with units, numbers to the digits that
matter. Nothing is computed here; this module is outside every experiment's fingerprint.
"""

from __future__ import annotations

import pandas as pd

from tcplab.tables import Table, show

__all__ = [
    "walls",
    "runs_table",
    "red_table",
    "examples_table",
    "compare_table",
    "explain_table",
    "order_table",
    "jk_table",
]

_QUEUES = {
    "ns2": "ns-2 automatic RED (ours)",
    "classic": "classic RED (5/15 of 50)",
    "deep": "deep RED (0.6/0.8 of a BDP)",
    "droptail": "DropTail (one BDP)",
}
_SOURCES = {"tcp": "TCP flow", "bmc": "BMC connection", "s1": "s1", "s2": "s2", "s3": "s3"}


def red_table(frame: pd.DataFrame) -> Table:
    """The thesis's Fig. 5.10 under four bottleneck queues (``sensitivity.red_table``)."""
    shown = frame.assign(queue=frame["queue"].map(_QUEUES))
    return show(
        shown,
        {
            "queue": "bottleneck queue",
            "flows": "N (flows of each kind)",
            "D (ideal)": "D (ideal ratio)",
            "ratio (ours)": "ratio, whole run (ours)",
            "steady ratio (ours)": "ratio from 20 s (ours)",
            "utilisation": "link utilisation",
            "loss_event_rate": "loss events per packet",
            "tcp_timeouts": "time-outs per TCP flow",
            "aimd_timeouts": "time-outs per weighted flow",
        },
        {
            "ratio (ours)": 3,
            "steady ratio (ours)": 3,
            "utilisation": "1%",
            "loss_event_rate": "3%",
            "tcp_timeouts": 1,
            "aimd_timeouts": 1,
        },
    )


def examples_table(frame: pd.DataFrame) -> Table:
    """The worked examples of the thesis's Figs. 3.1, 3.2 and 4.1 at fixed weights, Mb/s
    per source: the thesis's, the fluid model's, the packet model's
    (``claims.examples_table``)."""
    shown = frame.assign(source=frame["source"].map(_SOURCES))
    return show(
        shown,
        {
            "scenario": "scenario",
            "case": "weights",
            "source": "source",
            "thesis": "thesis (Mb/s)",
            "fluid (ours)": "fluid, ours (Mb/s)",
            "packet (ours)": "packet, ours (Mb/s)",
        },
        2,
    )


def compare_table(frame: pd.DataFrame) -> Table:
    """Each source's Mb/s per scenario and multipath controller, fluid beside packet
    (``compare.compare_table``)."""
    shown = frame.assign(source=frame["source"].map(_SOURCES))
    columns = {"scenario": "scenario", "controller": "controller", "source": "source"}
    if "fluid (ours)" in shown.columns:
        columns["fluid (ours)"] = "fluid, ours (Mb/s)"
    columns["packet (ours)"] = "packet, ours (Mb/s)"
    return show(shown, columns, 2)


def explain_table(frame: pd.DataFrame) -> Table:
    """The thesis's explanations tested (``claims.explain_table``): per case, D and N the
    ratio beside D, time-outs and loss events per flow of each kind."""
    return show(
        frame,
        {
            "case": "case",
            "D": "D (ideal ratio)",
            "flows": "N (flows of each kind)",
            "rate_mbps": "bottleneck (Mb/s)",
            "runs": "runs",
            "ratio": "ratio (ours)",
            "ratio_se": "± std. error",
            "aimd_timeouts": "time-outs per weighted flow",
            "tcp_timeouts": "time-outs per TCP flow",
            "aimd_timeout_share": "weighted flows' loss events that are time-outs",
            "aimd_window": "weighted flow's mean window (packets)",
        },
        {
            "D": "fraction",
            "rate_mbps": 0,
            "ratio": 3,
            "ratio_se": 3,
            "aimd_timeouts": 1,
            "tcp_timeouts": 1,
            "aimd_timeout_share": "0%",
            "aimd_window": 1,
        },
    )


def order_table(frame: pd.DataFrame) -> Table:
    """``bmc-order``: per pair of fixed weights and J, the share of J-second measurements
    that order the two subflows' Twr against the fluid model's order, and the longest
    congestion epoch of the two subflows."""
    return show(
        frame,
        {
            "weights": "weights D1, D2",
            "j_s": "J (s)",
            "periods": "measurements",
            "misordered": "misordered (ours)",
            "epoch_s": "longest congestion epoch (s)",
        },
        {"j_s": "3 sig", "misordered": 3, "epoch_s": 1},
    )


def jk_table(frame: pd.DataFrame) -> Table:
    """``bmc-jk``'s packet runs, mean over the seeds per scenario, J and K: when D1 first
    comes near the fluid fixed set, and its mean, standard deviation and distance from that
    set over the second half of the run."""
    packet = frame[frame["model"] == "packet"]
    found = (
        packet.groupby(["scenario", "j_s", "k"], sort=False)[
            ["reach_s", "mean_d1", "sd_d1", "distance"]
        ]
        .mean()
        .reset_index()
    )
    return show(
        found,
        {
            "scenario": "scenario",
            "j_s": "J (s)",
            "k": "K",
            "reach_s": "first near the fixed set (s)",
            "mean_d1": "mean D1, 2nd half",
            "sd_d1": "std. dev. of D1, 2nd half",
            "distance": "mean distance from the fixed set",
        },
        {"j_s": "3 sig", "k": "3 sig", "reach_s": 0, "mean_d1": 3, "sd_d1": 3, "distance": 3},
    )


def walls(names: tuple[str, ...]) -> dict[str, float]:
    """How long each shipped full-scale table took to compute (its ``wall_s``), keyed
    ``wall_<name without bmc->`` with dashes as underscores; 0 where a table is not shipped."""
    from tcplab import cache

    out = {}
    for name in names:
        found = cache.load(cache.Entry(name))
        key = "wall_" + name.removeprefix("bmc-").replace("-", "_")
        out[key] = float(found[1].get("wall_s", 0.0)) if found is not None else 0.0
    return out


def runs_table(frame: pd.DataFrame, decimals: int = 3) -> Table:
    """A what-if summary (``whatif.summary``): every column under its own heading."""
    return show(frame, {c: c for c in frame.columns}, decimals)
