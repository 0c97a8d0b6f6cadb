"""The proportion manager (Honda 2009, Secs. 3.2 and 4.1) in the fluid and the packet model.

The thesis's worked examples at fixed weights (:func:`examples`), the manager over time
(:func:`manager`), its convergence and stability against J and K (:func:`jk`), how often one
J-long measurement orders two subflows' Twr wrongly (:func:`order`, the thesis's rule that J
must hold a congestion epoch), BMC against uncoupled subflows and MPTCP's linked increases
(:func:`compare`), and a fluid grid for the static sliders (:func:`fluid_grid`). The fluid
model is exact; packet runs are seeded from ``SeedSequence(seed).spawn``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from tcplab import multipath as mp
from tcplab.packet import RunLength
from tcplab.packet.multipath import MultipathRun, MultipathSetup
from tcplab.theory import bmc

from .experiments import label
from .params import BmcParams
from .runs import Job, job, run_jobs

__all__ = [
    "CASES",
    "fixed_set",
    "reach_time",
    "examples",
    "manager",
    "jk",
    "order",
    "compare",
    "fluid_grid",
]

#: the worked examples: (scenario, controller, weights), Figs. 3.1, 3.2 and 4.1
CASES: tuple[tuple[str, str, tuple[float, ...] | None], ...] = (
    ("shared", "uncoupled", None),
    ("shared", "fixed", (0.5, 0.5)),
    ("shared", "fixed", (0.25, 0.75)),
    ("pooling", "uncoupled", None),
    ("pooling", "fixed", (0.5, 0.5)),
    ("pooling", "fixed", (1 / 3, 2 / 3)),
    ("pooling", "fixed", (0.25, 0.75)),
)
#: a weight counts as near the fixed set within this distance (for the packet model's noise)
NEAR = 0.05


def _case(controller: str, weights: Sequence[float] | None) -> str:
    if weights is None:
        return controller
    return "D = " + ", ".join(label(d) for d in weights)


def fixed_set(scene: mp.Scenario) -> tuple[float, float]:
    """The weights D1 at which the fluid manager stops moving (both Twr equal): an interval
    for ``shared`` (Figs. 3.1-3.2), the point ``(2 c1 - c2) / (c1 + c2)`` for ``pooling``."""
    if scene.name == "shared":
        spare = (scene.link("disjoint1").rate_mbps, scene.link("disjoint2").rate_mbps)
        return bmc.shared_fixed_interval(scene.link("shared").rate_mbps, spare)
    capacities = (scene.link("bottleneck1").rate_mbps, scene.link("bottleneck2").rate_mbps)
    d1 = bmc.pooling_fixed_point(capacities)
    return d1, d1


def reach_time(t: np.ndarray, d1: np.ndarray, low: float, high: float, near: float) -> float:
    """The first time ``d1`` is within ``near`` of [low, high] or on its other side from
    where it started; NaN if never."""
    start = d1[0]
    side = np.sign(start - (low + high) / 2.0)
    crossed = np.sign(d1 - (low + high) / 2.0) != side
    close = (d1 >= low - near) & (d1 <= high + near)
    hit = np.flatnonzero(close | crossed)
    return float(t[hit[0]]) if len(hit) else float("nan")


def _flows(scene: mp.Scenario, mbps: Sequence[float]) -> list[dict[str, Any]]:
    return [
        {"source": source, "subflow": i, "mbps": float(x)}
        for (source, i, _), x in zip(scene.flows(), mbps, strict=True)
    ]


def _packet_flows(work: Job, run: MultipathRun) -> list[dict[str, Any]]:
    table = run.flows
    return [
        {**work.label, "source": r.connection, "subflow": int(r.subflow), "mbps": r.goodput_mbps}
        for r in table.itertuples()
    ]


def _length(duration: float) -> RunLength:
    return RunLength(duration, duration / 2.0)


def examples(params: BmcParams, seed: int = 0) -> pd.DataFrame:
    """Figs. 3.1, 3.2 and 4.1 at fixed weights (and uncoupled): Mb/s of every flow in the
    fluid model (exact) and the packet model (the second half of each run, ``seeds`` runs);
    one row per (model, case, replica, flow)."""
    rows: list[dict[str, Any]] = []
    for name, controller, weights in (CASES[i] for i in params.example_cases):
        scene = mp.scenario(name)
        mbps = mp.allocate(scene, weights, "uncoupled" if controller == "uncoupled" else "bmc")
        labels = {"model": "fluid", "scenario": name, "case": _case(controller, weights)}
        rows += [{**labels, "replica": 0, **flow} for flow in _flows(scene, mbps)]  # type: ignore[arg-type]
    jobs = [
        job(
            MultipathSetup(
                mp.scenario(name),
                controller,
                weights,
                params.j_s,
                params.k,
                length=_length(params.examples_duration),
            ),
            model="packet",
            scenario=name,
            case=_case(controller, weights),
            replica=r,
        )  # fmt: skip
        for name, controller, weights in (CASES[i] for i in params.example_cases)
        for r in range(params.seeds)
    ]
    for flows in run_jobs(jobs, params.workers, seed, "examples", _packet_flows):
        rows += flows
    return pd.DataFrame(rows)


def _history(work: Job, run: MultipathRun) -> pd.DataFrame:
    frame = run.history_frame()
    for key, value in reversed(list(work.label.items())):
        frame.insert(0, key, value)
    return frame


def manager(params: BmcParams, seed: int = 0) -> pd.DataFrame:
    """The proportion manager from weights 1/2, 1/2 with the chapter's J and K, in both
    scenarios: one row per (model, scenario, replica, period, subflow) with the weight it
    was measured at, its Twr and Mb/s (t is the end of the period)."""
    frames = []
    for name in mp.SCENARIOS:
        run = mp.manage(
            mp.scenario(name), j_s=params.j_s, k=params.k, duration=params.manager_duration
        )
        frame = run.history.drop(columns="period")
        frame.insert(0, "replica", 0)
        frame.insert(0, "scenario", name)
        frame.insert(0, "model", "fluid")
        frames.append(frame.assign(period=run.history["period"]))
    jobs = [
        job(
            MultipathSetup(
                mp.scenario(name),
                "bmc",
                None,
                params.j_s,
                params.k,
                length=_length(params.manager_duration),
            ),
            model="packet",
            scenario=name,
            replica=r,
        )  # fmt: skip
        for name in mp.SCENARIOS
        for r in range(params.seeds)
    ]
    frames += run_jobs(jobs, params.workers, seed, "manager", _history)
    table = pd.concat(frames, ignore_index=True)
    return table[
        ["model", "scenario", "replica", "period", "t", "subflow", "weight", "twr", "mbps"]
    ]


def _metrics(scene: mp.Scenario, t: np.ndarray, d1: np.ndarray) -> dict[str, float]:
    low, high = fixed_set(scene)
    half = d1[len(d1) // 2 :]
    distance = np.maximum(np.maximum(low - half, half - high), 0.0)
    return {
        "reach_s": reach_time(t, d1, low, high, NEAR),
        "mean_d1": float(half.mean()),
        "sd_d1": float(half.std()),
        "range_d1": float(half.max() - half.min()),
        "distance": float(distance.mean()),
        "fixed_low": low,
        "fixed_high": high,
    }


def _jk_row(work: Job, run: MultipathRun) -> dict[str, Any]:
    frame = run.history_frame()
    first = frame[frame["subflow"] == 0]
    metrics = _metrics(run.setup.scenario, first["t"].to_numpy(), first["weight"].to_numpy())
    return {**work.label, **metrics, **{f"{k}_mbps": v for k, v in run.sources.items()}}


def jk(params: BmcParams, seed: int = 0) -> pd.DataFrame:
    """Convergence and stability against J and K. Fluid: every K of ``fluid_k`` (J only sets
    the time scale there: the metrics are in periods, ``reach_s`` for J = 1 s). Packet: J
    varied at the chapter's K and K at its J, ``jk_seeds`` runs each. Per run: when the
    weight D1 first comes within 0.05 of the fluid fixed set (``reach_s``), its mean,
    standard deviation and range over the second half, its mean distance to the fixed set,
    and each source's Mb/s over the second half."""
    rows = []
    for name in mp.SCENARIOS:
        scene = mp.scenario(name)
        for k in params.fluid_k:
            run = mp.manage(scene, j_s=1.0, k=k, duration=float(params.fluid_periods))
            first = run.history[run.history["subflow"] == 0]
            metrics = _metrics(scene, first["t"].to_numpy(), first["weight"].to_numpy())
            sources = {f"{s}_mbps": v for s, v in run.sources.items()}
            rows.append({"model": "fluid", "scenario": name, "j_s": 1.0, "k": k, "replica": 0,
                         **metrics, **sources})  # fmt: skip
    combos = sorted({(j, params.k) for j in params.jk_j} | {(params.j_s, k) for k in params.jk_k})
    jobs = [
        job(
            MultipathSetup(
                mp.scenario(name), "bmc", None, j, k, length=_length(params.jk_duration)
            ),
            model="packet",
            scenario=name,
            j_s=j,
            k=k,
            replica=r,
        )  # fmt: skip
        for name in mp.SCENARIOS
        for j, k in combos
        for r in range(params.jk_seeds)
    ]
    rows += run_jobs(jobs, params.workers, seed, "jk", _jk_row)
    return pd.DataFrame(rows)


def _order_rows(work: Job, run: MultipathRun) -> list[dict[str, Any]]:
    setup = run.setup
    scene = setup.scenario
    assert setup.weights is not None and setup.sample_interval is not None
    weights = np.array(setup.weights)
    iv = run.intervals
    mine = iv[iv["connection"] == scene.connection.name].pivot_table(
        index="start", columns="subflow", values="goodput_mbps"
    )
    base = setup.sample_interval
    fluid = bmc.twr(mp.allocate(scene, weights)[[1, 2]], weights, scene.rtt_s)
    sign = np.sign(fluid[0] - fluid[1])
    mean_mbps = mine.mean().to_numpy()
    # the longest congestion epoch of the two (Sec. 3.2: b W / a + 1 RTTs), with the peak
    # window W from the mean window 3 W / 4 of the deterministic sawtooth
    windows = mean_mbps * 1e6 / (8.0 * setup.tcp.packet_bytes) * scene.rtt_s / 0.75
    epochs = [
        bmc.congestion_epoch_rtts(w, d * d, 0.5) * scene.rtt_s
        for w, d in zip(windows, weights, strict=True)
    ]
    rows = []
    for j in work.label["j_values"]:
        step = int(round(j / base))
        usable = (len(mine) // step) * step
        periods = mine.iloc[:usable].to_numpy().reshape(-1, step, 2).mean(axis=1)
        twr = periods / weights  # equal RTTs: R drops out of the comparison
        wrong = np.sign(twr[:, 0] - twr[:, 1]) != sign
        rows.append(
            {
                "weights": " , ".join(label(d) for d in weights),
                "d1": float(weights[0]),
                "j_s": float(j),
                "periods": len(periods),
                "misordered": float(wrong.mean()),
                "fluid_twr_gap": float(abs(fluid[0] - fluid[1]) / max(fluid)),
                "epoch_s": float(max(epochs)),
            }
        )
    return rows


def order(params: BmcParams, seed: int = 0) -> pd.DataFrame:
    """How often one J-second measurement orders the two subflows' Twr the wrong way round
    (against the fluid model's order), Fig. 4.1 at fixed weights where the fluid Twr differ
    (``order_weights``):
    one long run per weights, its goodput cut into periods of each J. With it, the longest
    congestion epoch of the two subflows (the thesis: J must hold at least one)."""
    base = min(params.order_j)
    jobs = [
        job(
            MultipathSetup(
                mp.pooling(),
                "fixed",
                w,
                length=RunLength(params.order_duration + 20.0, 20.0),
                sample_interval=base,
            ),
            j_values=tuple(params.order_j),
        )  # fmt: skip
        for w in params.order_weights
    ]
    rows = []
    for out in run_jobs(jobs, params.workers, seed, "order", _order_rows):
        rows += out
    return pd.DataFrame(rows)


def _source_rows(work: Job, run: MultipathRun) -> list[dict[str, Any]]:
    return [{**work.label, "source": s, "mbps": v} for s, v in run.sources.items()]


def compare(params: BmcParams, seed: int = 0) -> pd.DataFrame:
    """BMC against uncoupled subflows (TCP on each), BMC's weights held at 1/2, 1/2, and
    MPTCP's linked increases (RFC 6356), in both scenarios: each source's Mb/s over the
    second half of the run (packet, ``seeds`` runs), with the fluid model's where it has one
    (LIA has none here)."""
    rows = []
    for name in mp.SCENARIOS:
        for controller in (c for c in params.compared if c != "lia"):
            run = mp.manage(
                mp.scenario(name), j_s=params.j_s, k=params.k,
                duration=params.examples_duration, controller=controller,
            )  # fmt: skip
            rows += [
                {
                    "model": "fluid",
                    "scenario": name,
                    "controller": controller,
                    "replica": 0,
                    "source": s,
                    "mbps": v,
                }  # fmt: skip
                for s, v in run.sources.items()
            ]
    jobs = [
        job(
            MultipathSetup(
                mp.scenario(name),
                controller,
                None,
                params.j_s,
                params.k,
                length=_length(params.examples_duration),
            ),
            model="packet",
            scenario=name,
            controller=controller,
            replica=r,
        )  # fmt: skip
        for name in mp.SCENARIOS
        for controller in params.compared
        for r in range(params.seeds)
    ]
    for out in run_jobs(jobs, params.workers, seed, "compare", _source_rows):
        rows += out
    return pd.DataFrame(rows)


def fluid_grid(params: BmcParams, seed: int = 0) -> pd.DataFrame:
    """The fluid manager from 1/2, 1/2 over ``fluid_periods`` periods for every K of
    ``grid_k`` and every rate of the first disjoint link (``shared``) or the first bottleneck
    (``pooling``): long rows (scenario, rate, k, period, series, value), series the two
    weights and each source's Mb/s. J only scales time, so the chart's J slider multiplies
    the period number. Deterministic: ``seed`` is unused."""
    rows = []
    for name, rates in (("shared", params.grid_spare), ("pooling", params.grid_capacity)):
        for rate in rates:
            scene = mp.shared(spare=(rate, 12.0)) if name == "shared" else mp.pooling((rate, 10.0))
            flows = scene.flows()
            for k in params.grid_k:
                run = mp.manage(scene, j_s=1.0, k=k, duration=float(params.fluid_periods))
                for period, part in run.history.groupby("period"):
                    weights = part["weight"].to_numpy()
                    mbps = mp.allocate(scene, weights)
                    series = {"D1": weights[0], "D2": weights[1]}
                    for s in scene.sources:
                        series[s.name] = float(
                            sum(
                                x
                                for (src, _, _), x in zip(flows, mbps, strict=True)
                                if src == s.name
                            )
                        )
                    rows += [
                        {
                            "scenario": name,
                            "rate": rate,
                            "k": k,
                            "period": int(period) + 1,
                            "series": key,
                            "value": float(value),
                        }  # fmt: skip
                        for key, value in series.items()
                    ]
    return pd.DataFrame(rows)
