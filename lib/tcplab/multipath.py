"""Multipath topologies of Honda's thesis and their fluid model: weighted max-min shares.

A :class:`Scenario` is named links (rate, one-way delay) and sources, each with one path
(a list of links) or several (the multipath connection, whose subflows BMC weights). The
same scenario is run by the packet model (:mod:`tcplab.packet.multipath`) and here.

The fluid model is the thesis's own arithmetic (Sec. 3.2, Sec. 4.1): AIMD flows that share a
link share it in proportion to their weights, ``D / R`` for a BMC subflow of weight D and
RTT R and ``1 / R`` for TCP (eq. 3.4), and a flow held back by another link leaves its unused
share to the others. That is weighted max-min fairness, computed exactly by progressive
filling (:func:`weighted_maxmin`). The proportion manager then runs on these rates, one move
per J seconds (:func:`manage`): the rates are reached at once, so J only sets the time scale.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from .checks import check_choice, check_int, check_range
from .theory import bmc

__all__ = [
    "SCENARIOS",
    "CONTROLLERS",
    "LinkSpec",
    "Source",
    "Scenario",
    "FluidRun",
    "shared",
    "pooling",
    "scenario",
    "check_weights",
    "weighted_maxmin",
    "allocate",
    "manage",
]

SCENARIOS = ("shared", "pooling")
#: how the multipath connection's subflows are driven: BMC's proportion manager, BMC with
#: its weights held, or TCP on every subflow (uncoupled)
CONTROLLERS = ("bmc", "fixed", "uncoupled")
#: the weights must sum to 1 to this precision (eq. 3.1)
WEIGHT_SUM_TOLERANCE = 1e-9


@dataclass(frozen=True)
class LinkSpec:
    """A link: its rate in Mb/s and its one-way propagation delay in ms."""

    name: str
    rate_mbps: float
    delay_ms: float = 10.0

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name:
            raise ValueError(f"name={self.name!r} must be a non-empty string")
        object.__setattr__(
            self, "rate_mbps", check_range("rate_mbps", self.rate_mbps, 0.0, low_open=True)
        )
        object.__setattr__(self, "delay_ms", check_range("delay_ms", self.delay_ms, 0.0))


@dataclass(frozen=True)
class Source:
    """A sender and its paths (tuples of link names); two or more make it multipath."""

    name: str
    paths: tuple[tuple[str, ...], ...]

    @property
    def multipath(self) -> bool:
        return len(self.paths) > 1


@dataclass(frozen=True)
class Scenario:
    """Links and sources; exactly one source is multipath. Every path has the same one-way
    propagation delay ``one_way_ms`` (the thesis takes equal RTTs): the packet model pads
    each path's access link up to it."""

    name: str
    links: tuple[LinkSpec, ...]
    sources: tuple[Source, ...]
    one_way_ms: float = 25.0

    def __post_init__(self) -> None:
        names = [link.name for link in self.links]
        if len(set(names)) != len(names):
            raise ValueError(f"links={names} repeat a name")
        for source in self.sources:
            for path in source.paths:
                unknown = [n for n in path if n not in names]
                if not path or unknown:
                    raise ValueError(f"source {source.name!r}: path {path} names unknown links")
                delay = sum(self.link(n).delay_ms for n in path)
                if delay > self.one_way_ms:
                    raise ValueError(
                        f"one_way_ms={self.one_way_ms:g} is shorter than path {path} ({delay:g} ms)"
                    )
        if sum(source.multipath for source in self.sources) != 1:
            raise ValueError("a scenario has exactly one multipath source")

    def link(self, name: str) -> LinkSpec:
        return next(link for link in self.links if link.name == name)

    @property
    def connection(self) -> Source:
        """The multipath source."""
        return next(source for source in self.sources if source.multipath)

    @property
    def subflows(self) -> int:
        return len(self.connection.paths)

    @property
    def rtt_s(self) -> float:
        """The propagation round-trip time of every path."""
        return 2.0 * self.one_way_ms / 1e3

    def flows(self) -> list[tuple[str, int, tuple[str, ...]]]:
        """Every (source, subflow index, path), sources in order, subflows in path order."""
        return [(s.name, i, p) for s in self.sources for i, p in enumerate(s.paths)]


def shared(capacity: float = 30.0, spare: tuple[float, float] = (4.0, 12.0)) -> Scenario:
    """Figs. 3.1-3.2: one TCP flow and a two-subflow connection share a ``capacity`` link;
    the subflows first cross disjoint links of ``spare`` Mb/s (the 4 Mb/s one is subflow 0)."""
    links = (
        LinkSpec("disjoint1", spare[0]),
        LinkSpec("disjoint2", spare[1]),
        LinkSpec("shared", capacity),
    )
    sources = (
        Source("tcp", (("shared",),)),
        Source("bmc", (("disjoint1", "shared"), ("disjoint2", "shared"))),
    )
    return Scenario("shared", links, sources)


def pooling(capacities: tuple[float, float] = (8.0, 10.0)) -> Scenario:
    """Fig. 4.1: s1 alone on the first bottleneck, s3 on the second, s2 with one subflow
    through each (the 8 Mb/s one first)."""
    links = (LinkSpec("bottleneck1", capacities[0]), LinkSpec("bottleneck2", capacities[1]))
    sources = (
        Source("s1", (("bottleneck1",),)),
        Source("s2", (("bottleneck1",), ("bottleneck2",))),
        Source("s3", (("bottleneck2",),)),
    )
    return Scenario("pooling", links, sources)


def scenario(name: str, rates: Sequence[float] | None = None) -> Scenario:
    """The scenario ``name`` with its thesis rates, or ``rates``: (capacity, spare1, spare2)
    for ``shared``, (c1, c2) for ``pooling``."""
    check_choice("scenario", name, SCENARIOS)
    if name == "shared":
        if rates is None:
            return shared()
        if len(rates) != 3:
            raise ValueError(f"rates={list(rates)} must be (capacity, spare1, spare2)")
        return shared(rates[0], (rates[1], rates[2]))
    if rates is None:
        return pooling()
    if len(rates) != 2:
        raise ValueError(f"rates={list(rates)} must be (c1, c2)")
    return pooling((rates[0], rates[1]))


def check_weights(weights: ArrayLike, subflows: int) -> np.ndarray:
    """Weights for ``subflows`` subflows: each in (0, 1), summing to 1 (eq. 3.1)."""
    try:
        d = np.asarray(weights, dtype=float).ravel()
    except (TypeError, ValueError):
        raise ValueError(f"weights={weights!r} must be numbers") from None
    shown = [float(x) for x in d]
    if len(d) != subflows:
        raise ValueError(f"weights={shown} must have one value per subflow ({subflows})")
    for i, value in enumerate(d):
        check_range(f"weights[{i}]", value, 0.0, 1.0, low_open=True, high_open=True)
    if abs(d.sum() - 1.0) > WEIGHT_SUM_TOLERANCE:
        raise ValueError(f"weights={shown} sum to {d.sum():g}; they must sum to 1 (eq. 3.1)")
    return d


def weighted_maxmin(
    capacity: Sequence[float], routes: np.ndarray, weights: Sequence[float]
) -> np.ndarray:
    """Weighted max-min rates by progressive filling: every unfrozen flow f gets ``w_f x``
    as the common level x rises; the first link to fill freezes its flows. ``routes`` is a
    boolean (flows, links) incidence matrix; every flow crosses at least one link."""
    cap = np.asarray(capacity, dtype=float)
    on = np.asarray(routes, dtype=bool)
    w = np.asarray(weights, dtype=float)
    if on.shape != (len(w), len(cap)) or not on.any(axis=1).all() or (w <= 0).any():
        raise ValueError("routes must be (flows, links), every flow on a link, weights > 0")
    rate = np.zeros(len(w))
    free = np.ones(len(w), dtype=bool)
    while free.any():
        used = on[~free].T @ rate[~free] if (~free).any() else np.zeros(len(cap))
        demand = on[free].T @ w[free]  # weight of unfrozen flows per link
        busy = demand > 0
        level = np.full(len(cap), np.inf)
        level[busy] = (cap[busy] - used[busy]) / demand[busy]
        full = np.flatnonzero(np.isclose(level, level.min(), rtol=1e-12, atol=0.0) & busy)
        frozen = free & on[:, full].any(axis=1)
        rate[frozen] = w[frozen] * level.min()
        free &= ~frozen
    return rate


def allocate(
    scene: Scenario, weights: ArrayLike | None = None, controller: str = "bmc"
) -> np.ndarray:
    """Mb/s of every flow of ``scene.flows()`` in the fluid model: single-path sources have
    weight 1, the multipath subflows ``weights`` (BMC; all equal RTTs, so R drops out) or 1
    each (``uncoupled``)."""
    check_choice("controller", controller, CONTROLLERS)
    flows = scene.flows()
    names = [link.name for link in scene.links]
    routes = np.array([[n in path for n in names] for _, _, path in flows])
    d = iter(
        np.ones(scene.subflows)
        if controller == "uncoupled"
        else check_weights(weights if weights is not None else _equal(scene), scene.subflows)
    )
    w = [next(d) if source == scene.connection.name else 1.0 for source, _, _ in flows]
    return weighted_maxmin([link.rate_mbps for link in scene.links], routes, w)


def _equal(scene: Scenario) -> list[float]:
    return [1.0 / scene.subflows] * scene.subflows


@dataclass(frozen=True)
class FluidRun:
    """The proportion manager in the fluid model: ``history`` has one row per J-period
    (t = end of the period; the weights it was measured at, each subflow's Twr and Mb/s),
    ``sources`` the mean Mb/s of each source over the second half of the run, ``weights``
    the final weights."""

    scenario: Scenario
    history: pd.DataFrame
    sources: dict[str, float]
    subflows: list[float]
    weights: list[float]
    wall_s: float = 0.0
    params: dict = field(default_factory=dict)

    def entries(self) -> list[dict]:
        """The history as one entry per period: t, and lists of weights, twr and mbps."""
        out = []
        for _, part in self.history.groupby("period", sort=True):
            out.append(
                {
                    "t": float(part["t"].iloc[0]),
                    "weights": [float(x) for x in part["weight"]],
                    "twr": [float(x) for x in part["twr"]],
                    "mbps": [float(x) for x in part["mbps"]],
                }
            )
        return out

    def summary(self) -> dict:
        """What ``tcplab bmc --model fluid`` prints."""
        return {
            "model": "fluid",
            "scenario": self.scenario.name,
            **self.params,
            "weights": self.weights,
            "sources": self.sources,
            "subflows": self.subflows,
            "history": self.entries(),
            "wall_s": self.wall_s,
        }


def manage(
    scene: Scenario,
    weights: Sequence[float] | None = None,
    *,
    j_s: float = 10.0,
    k: float = 0.5,
    duration: float = 300.0,
    controller: str = "bmc",
) -> FluidRun:
    """Run the proportion manager on ``scene`` for ``duration`` seconds: every ``j_s``
    seconds it measures the subflows' rates (the fluid allocation at the current weights),
    computes Twr (eq. 3.7) and moves weight (eqs. 3.8-3.9). ``fixed`` holds the weights and
    ``uncoupled`` runs TCP on each subflow (no weights)."""
    began = time.perf_counter()
    check_choice("controller", controller, CONTROLLERS)
    j_s = check_range("j_s", j_s, 0.0, low_open=True)
    k = check_range("k", k, *bmc.K_RANGE, low_open=True)
    duration = check_range("duration", duration, j_s)
    d = (
        np.ones(scene.subflows)
        if controller == "uncoupled"
        else check_weights(weights if weights is not None else _equal(scene), scene.subflows)
    )
    periods = check_int("periods", int(np.floor(duration / j_s + 1e-9)), 1)
    flows = scene.flows()
    mine = [i for i, (source, _, _) in enumerate(flows) if source == scene.connection.name]
    rtt = scene.rtt_s
    rows, rates = [], []
    for period in range(periods):
        rate = allocate(scene, d, "uncoupled" if controller == "uncoupled" else "bmc")
        sub = rate[mine]
        twrs = bmc.twr(sub, d, rtt)
        for i in range(scene.subflows):
            rows.append(
                {
                    "period": period,
                    "t": (period + 1) * j_s,
                    "subflow": i,
                    "weight": float(d[i]),
                    "twr": float(twrs[i]),
                    "mbps": float(sub[i]),
                }
            )
        rates.append(rate)
        if controller == "bmc":
            d = bmc.proportion_step(d, twrs, k)
    half = np.array(rates[periods // 2 :])
    mean = half.mean(axis=0)
    sources = {
        s.name: float(sum(mean[i] for i, f in enumerate(flows) if f[0] == s.name))
        for s in scene.sources
    }
    params = {"j_s": j_s, "k": k, "duration": duration, "controller": controller}
    return FluidRun(
        scene,
        pd.DataFrame(rows),
        sources,
        [float(mean[i]) for i in mine],
        [float(x) for x in d],
        time.perf_counter() - began,
        params,
    )
