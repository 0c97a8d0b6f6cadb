"""The Lu chapter's result tables in the book's table style (:func:`tcplab.tables.show`).

Each function takes a frame the chapter already has (from :mod:`.analysis` or the recorded
runs) and returns a :class:`tcplab.tables.Table`: headers in words with units, the index
made a column, numbers to the digits that matter. No numbers are computed here beyond the
grouping the chapter's text describes.
"""

from __future__ import annotations

from collections.abc import Iterable

import pandas as pd

from tcplab.tables import Table, show

from . import scenarios
from .experiments import SMALL_PATH_WINDOW

__all__ = [
    "scenarios_table",
    "grids_table",
    "queue_throughput_table",
    "queue_loss_table",
    "error_table",
    "c1_table",
    "within_table",
    "advisor_table",
    "paths_table",
    "loss_ratio_table",
    "zero_loss_table",
    "within_scenario_table",
    "levels_table",
    "walls_table",
]

_QUEUE = {"droptail": "DropTail", "red": "RED"}

#: probe_pairs' columns, in words (relative errors away from the probes)
_ERRORS = {
    "mean_abs": "mean |error|",
    "median_abs": "median |error|",
    "p90_abs": "90th percentile |error|",
    "mean": "mean error",
    "undefined": "undefined predictions",
    "points": "points",
}
_ERROR_FORMATS: dict[str, int | str] = {
    "mean_abs": 3,
    "median_abs": 3,
    "p90_abs": 3,
    "mean": 3,
    "undefined": "1%",
}


def scenarios_table() -> Table:
    """The paper's Fig. 2: the six scenarios' links and buffers."""
    frame = pd.DataFrame(
        {
            "scenario": number,
            "rate": s.rate_mbps,
            "delay": s.delay_ms,
            "access": s.access_mbps,
            "buffer": "60 KB" if s.window_bytes else "≥ bandwidth × RTT",
            "rtt": 1e3 * s.rtt_s,
            "label": s.label,
        }
        for number, s in scenarios.SCENARIOS.items()
    )
    return show(
        frame,
        {
            "scenario": "scenario",
            "rate": "L3 rate (Mb/s)",
            "delay": "L3 delay (ms)",
            "access": "access and egress links (Mb/s)",
            "buffer": "TCP buffer",
            "rtt": "round trip (ms)",
            "label": "represents",
        },
        {"rate": "3 sig", "delay": "2 sig", "access": "3 sig", "rtt": 0},
    )


def grids_table(grids: Iterable[object]) -> Table:
    """The runs the book's data holds, per scenario."""
    frame = pd.DataFrame(
        {
            "scenario": g.scenario,  # type: ignore[attr-defined]
            "flows": ", ".join(map(str, g.flows)),  # type: ignore[attr-defined]
            "cross": ", ".join(map(str, g.cross)),  # type: ignore[attr-defined]
            "queues": ", ".join(_QUEUE[q] for q in g.queues),  # type: ignore[attr-defined]
            "replicas": g.replicas,  # type: ignore[attr-defined]
        }
        for g in grids
    )
    return show(
        frame,
        {
            "scenario": "scenario",
            "flows": "parallel connections n",
            "cross": "cross-traffic connections m",
            "queues": "queues",
            "replicas": "replicas",
        },
    )


def queue_throughput_table(s1: pd.DataFrame) -> Table:
    """Scenario 1: the parallel connections' throughput under DropTail and RED, mean and
    standard deviation over the replicas, per cross-traffic level and n."""
    stats = s1.groupby(["cross", "flows", "queue"])["parallel_bytes_per_s"].agg(["mean", "std"])
    wide = stats.unstack("queue")
    wide.columns = [f"{stat}_{queue}" for stat, queue in wide.columns]
    frame = (wide / 1e3).reset_index()
    headers = {"cross": "cross-traffic connections", "flows": "parallel connections"}
    for queue, name in (("droptail", "DropTail"), ("red", "RED")):
        headers[f"mean_{queue}"] = f"{name}: mean (kB/s)"
        headers[f"std_{queue}"] = f"{name}: std. dev. (kB/s)"
    return show(frame, headers, 1)


def queue_loss_table(s1: pd.DataFrame) -> Table:
    """Scenario 1: the loss rates of the parallel connections and of the cross traffic under
    DropTail and RED, means over n and the replicas."""
    rates = s1.groupby(["cross", "queue"])[["loss_rate", "cross_loss_rate"]].mean()
    wide = rates.unstack("queue")
    wide.columns = [f"{rate}_{queue}" for rate, queue in wide.columns]
    frame = wide.reset_index()
    headers = {"cross": "cross-traffic connections"}
    for rate, whose in (("loss_rate", "parallel"), ("cross_loss_rate", "cross traffic")):
        for queue, name in (("droptail", "DropTail"), ("red", "RED")):
            headers[f"{rate}_{queue}"] = f"{whose}, {name}"
    return show(frame, headers, dict.fromkeys(list(headers)[1:], "1%"))


def error_table(errors: pd.DataFrame, by: dict[str, str]) -> Table:
    """An :func:`.analysis.probe_pairs` frame; ``by`` names its grouping columns in words."""
    return show(errors, {**by, **_ERRORS}, _ERROR_FORMATS)


def c1_table(check: pd.DataFrame) -> Table:
    """The time-out factor c1 of eq. (4) per scenario: smallest, median, largest."""
    frame = check.groupby("scenario")["c1"].agg(["min", "median", "max"]).reset_index()
    return show(
        frame,
        {"scenario": "scenario", "min": "smallest c₁", "median": "median c₁", "max": "largest c₁"},
        2,
    )


def within_table(impacts: pd.DataFrame, limit: float = 0.25) -> Table:
    """The share of cross-traffic estimates within ``limit`` of the simulation, per n."""
    away = impacts[~impacts["probe"]]
    share = (away["error"].abs() <= limit).groupby(away["flows"]).mean()
    frame = share.rename("within").reset_index()
    return show(
        frame,
        {"flows": "parallel connections n", "within": f"estimates within {limit:g}"},
        {"within": "0%"},
    )


def advisor_table(advice: pd.DataFrame) -> Table:
    """The advisor against brute force, per impact limit (means over the curves)."""
    frame = advice.groupby("max_impact")[["within", "throughput_ratio"]].mean().reset_index()
    return show(
        frame,
        {
            "max_impact": "impact limit",
            "within": "simulated impact within the limit",
            "throughput_ratio": "throughput / brute force's",
        },
        {"max_impact": "0%", "within": "0%", "throughput_ratio": 2},
    )


def paths_table(path_table: pd.DataFrame) -> Table:
    """The emulated paths (:func:`.analysis.path_summary`): error and set-up per path."""
    frame = path_table.assign(
        window=path_table["window"].map(
            lambda w: "64 KB" if w == SMALL_PATH_WINDOW else "≥ bandwidth × RTT"
        ),
        path_queue=path_table["path_queue"].map(_QUEUE),
    )
    return show(
        frame,
        {
            "path": "path",
            "mean": "mean error",
            "std": "std. dev. of the error",
            "rate_mbps": "bottleneck (Mb/s)",
            "delay_ms": "delay (ms)",
            "buffer": "buffer (packets)",
            "path_cross": "cross-traffic connections",
            "path_queue": "queue",
            "window": "TCP buffer",
        },
        {"mean": 3, "std": 3, "rate_mbps": 1, "delay_ms": 0},
    )


def loss_ratio_table(summary: pd.DataFrame) -> Table:
    """Sec. V.A's assumption: :func:`.section5.loss_ratio_summary` in words."""
    frame = summary.assign(queue=summary["queue"].map(_QUEUE))
    return show(
        frame,
        {
            "scenario": "scenario",
            "queue": "queue",
            "runs": "runs with cross traffic",
            "no_cross_loss": "runs without any cross-traffic loss",
            "median": "median loss ratio, parallel / cross",
            "geometric_mean": "geometric mean",
            "max": "largest",
        },
        {"median": 2, "geometric_mean": 2, "max": 1},
    )


def zero_loss_table(zero: pd.DataFrame) -> Table:
    """Where the cross traffic lost nothing: per scenario and cross-traffic level, the
    numbers of parallel connections (:func:`.section5.zero_cross_loss`)."""
    grouped = zero.groupby(["scenario", "cross"])["flows"].apply(
        lambda n: ", ".join(str(int(v)) for v in sorted(n))
    )
    frame = grouped.rename("flows").reset_index()
    return show(
        frame,
        {"scenario": "scenario", "cross": "cross-traffic connections", "flows": "at n ="},
    )


def within_scenario_table(by_scenario: pd.DataFrame, limit: float = 0.25) -> Table:
    """Fig. 14's statistic per scenario (:func:`.section5.within_by_scenario`)."""
    return show(
        by_scenario,
        {
            "scenario": "scenario",
            "estimates": "estimates",
            "within": f"within {limit:g}",
            "mean_error": "mean error",
        },
        {"within": "0%", "mean_error": 3},
    )


def levels_table(table: pd.DataFrame, readings: Iterable[object]) -> Table:
    """The paper's plot readings (:data:`.section5.PAPER_LEVELS`) beside the book's runs
    without cross traffic (:func:`.section5.book_level`; blank where the book has no run)."""
    from .section5 import book_level

    rows = []
    for r in readings:
        book = book_level(table, r)  # type: ignore[arg-type]
        rows.append(
            {
                "scenario": r.scenario,  # type: ignore[attr-defined]
                "flows": str(r.flows),  # type: ignore[attr-defined]
                "figure": r.figure,  # type: ignore[attr-defined]
                "paper": r.value / 1e6,  # type: ignore[attr-defined]
                "resolution": r.resolution / 1e6,  # type: ignore[attr-defined]
                "book": (book / 1e6) if book is not None else float("nan"),
            }
        )
    return show(
        pd.DataFrame(rows),
        {
            "scenario": "scenario",
            "flows": "parallel connections",
            "figure": "read off",
            "paper": "paper, read (MB/s)",
            "resolution": "± (MB/s)",
            "book": "book (MB/s)",
        },
        {"paper": 2, "resolution": 2, "book": 2},
    )


def walls_table(names: Iterable[str]) -> Table:
    """The wall time each stored table took (its ``.meta.json``), for the tables in data/."""
    from tcplab import cache

    rows = []
    for name in names:
        found = cache.load(cache.Entry(name))
        if found is None:
            continue
        meta = found[1]
        rows.append({"table": name, "rows": int(meta.get("rows", 0)),
                     "wall": float(meta.get("wall_s", float("nan"))) / 60.0})  # fmt: skip
    return show(
        pd.DataFrame(rows, columns=["table", "rows", "wall"]),
        {"table": "table", "rows": "runs (rows)", "wall": "wall time (min)"},
        {"wall": 1},
    )
