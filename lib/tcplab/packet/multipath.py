"""The thesis's multipath scenarios (Figs. 3.1-3.2, Fig. 4.1) on the packet model.

A :class:`MultipathSetup` is a :class:`~tcplab.multipath.Scenario` (links and sources) plus
how its multipath connection is driven (``controller``): ``bmc`` (the proportion manager,
weights moved every ``j_s`` seconds by ``k``), ``fixed`` (BMC's weights held: the
aggressiveness manager alone), ``uncoupled`` (TCP on every subflow) or ``lia`` (MPTCP's
linked increases, RFC 6356). Every source is a Reno sender unless ``tcp`` says otherwise.

Each path starts on its own 100 Mb/s access link, padded so that every path has the
scenario's one-way delay (equal RTTs, as the thesis assumes). Every scenario link queues
with RED as :func:`~tcplab.packet.weighted.ns2_red` sets it, with a buffer of one
bandwidth-delay product of that link, and at least twice RED's ``max_th`` (so that gentle
RED's ramp fits: :func:`~tcplab.packet.weighted.red_buffer`).
Sources start at random times in ``[0, start_spread]``; throughputs are measured from the
set-up's warm-up on (the runs' second half by default).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pandas as pd

from ..checks import check_choice, check_range
from ..multipath import Scenario, check_weights
from ..theory import bmc
from .controllers import LiaSender, ProportionManager, couple
from .network import Network
from .setup import RunLength, streams
from .tcp import TcpConfig, TcpSender
from .weighted import PACKET_BYTES, ns2_red, red_buffer

__all__ = ["CONTROLLERS", "MultipathSetup", "MultipathRun", "run_multipath"]

CONTROLLERS = ("bmc", "fixed", "uncoupled", "lia")


@dataclass(frozen=True)
class MultipathSetup:
    """One packet-level run of a multipath scenario; checked when made."""

    scenario: Scenario
    controller: str = "bmc"
    weights: tuple[float, ...] | None = None  # None: equal weights
    j_s: float = 10.0
    k: float = 0.5
    tcp: TcpConfig = field(default_factory=lambda: TcpConfig("reno", packet_bytes=PACKET_BYTES))
    access_mbps: float = 100.0
    length: RunLength = field(default_factory=lambda: RunLength(300.0, 150.0))
    start_spread: float = 1.0
    sample_interval: float | None = None
    seed: int = 0

    def __post_init__(self) -> None:
        check_choice("controller", self.controller, CONTROLLERS)
        n = self.scenario.subflows
        weights = check_weights(self.weights if self.weights else [1.0 / n] * n, n)
        object.__setattr__(self, "weights", tuple(float(d) for d in weights))
        object.__setattr__(self, "j_s", check_range("j_s", self.j_s, 0.0, low_open=True))
        object.__setattr__(self, "k", check_range("k", self.k, *bmc.K_RANGE, low_open=True))
        check_range("access_mbps", self.access_mbps, 0.0, low_open=True)
        check_range("start_spread", self.start_spread, 0.0)
        if self.sample_interval is not None:
            check_range("sample_interval", self.sample_interval, 0.0, low_open=True)


@dataclass(frozen=True, eq=False)
class MultipathRun:
    """Mb/s after the warm-up per source and per subflow of the multipath connection (path
    order), its final weights, the proportion manager's ``history`` (one entry per period;
    empty for ``uncoupled`` and ``lia``), the goodput per ``sample_interval`` (every flow),
    the links' counters, the wall time."""

    setup: MultipathSetup
    sources: dict[str, float]
    subflows: list[float]
    weights: list[float | None]  # None: the controller has no weights (lia)
    history: list[dict]
    intervals: pd.DataFrame
    links: pd.DataFrame
    flows: pd.DataFrame
    wall_s: float

    def summary(self) -> dict:
        """What ``tcplab bmc --model packet`` prints."""
        setup = self.setup
        return {
            "model": "packet",
            "scenario": setup.scenario.name,
            "controller": setup.controller,
            "j_s": setup.j_s,
            "k": setup.k,
            "duration": setup.length.duration,
            "seed": setup.seed,
            "weights": self.weights,
            "sources": self.sources,
            "subflows": self.subflows,
            "history": self.history,
            "wall_s": self.wall_s,
        }

    def history_frame(self) -> pd.DataFrame:
        """The history, one row per (period, subflow): t, subflow, weight, twr, mbps."""
        rows = [
            {"period": p, "t": h["t"], "subflow": i, "weight": w, "twr": x, "mbps": m}
            for p, h in enumerate(self.history)
            for i, (w, x, m) in enumerate(zip(h["weights"], h["twr"], h["mbps"], strict=True))
        ]
        return pd.DataFrame(rows, columns=["period", "t", "subflow", "weight", "twr", "mbps"])


def run_multipath(setup: MultipathSetup) -> MultipathRun:
    """Build the scenario on a :class:`~tcplab.packet.network.Network` and run it."""
    scene, tcp = setup.scenario, setup.tcp
    rng = streams(setup.seed)
    queue_rngs = rng.queue.spawn(len(scene.links))
    net = Network(setup.seed)
    packet_time = tcp.packet_bytes * 8.0
    for link, queue_rng in zip(scene.links, queue_rngs, strict=True):
        buffer = red_buffer(link.rate_mbps, scene.one_way_ms, tcp.packet_bytes)
        queue = ns2_red(link.rate_mbps, buffer, tcp.packet_bytes)
        discipline = queue.build(queue_rng, rng.loss, packet_time / (link.rate_mbps * 1e6))
        net.add_link(link.name, link.rate_mbps, link.delay_ms, discipline)
    rtt = scene.rtt_s
    connections = {}
    starts = rng.start.uniform(0.0, setup.start_spread, len(scene.sources))
    for source, start in zip(scene.sources, starts, strict=True):
        paths = []
        for i, path in enumerate(source.paths):
            pad = scene.one_way_ms - sum(scene.link(n).delay_ms for n in path)
            access = f"{source.name}.access{i}"
            net.add_link(access, setup.access_mbps, pad)
            paths.append([access, *path])
        sender: type[TcpSender] = TcpSender
        if source.multipath and setup.controller == "lia":
            sender = LiaSender
        connections[source.name] = net.add_connection(
            paths, tcp, name=source.name, start=float(start), sender=sender
        )
    mine = connections[scene.connection.name]
    manager = None
    if setup.controller in ("bmc", "fixed"):
        assert setup.weights is not None  # set in __post_init__
        manager = ProportionManager(
            mine, setup.weights, j_s=setup.j_s, k=setup.k, rtt_s=[rtt] * scene.subflows,
            adapt=setup.controller == "bmc",
        )  # fmt: skip
    elif setup.controller == "lia":
        couple(mine, [rtt] * scene.subflows)
    length = setup.length
    out = net.run(length.duration, length.warmup, setup.sample_interval)
    if manager is not None:
        manager.finish()
    table = out.subflows
    by_source = table.groupby("connection", sort=False)["goodput_mbps"].sum()
    subflows = table[table["connection"] == scene.connection.name]["goodput_mbps"]
    weights: list[float | None] = [None] * scene.subflows
    if manager is not None:
        weights = [float(d) for d in manager.weights]
    elif setup.controller == "uncoupled":
        weights = [1.0] * scene.subflows
    return MultipathRun(
        setup,
        {s.name: float(by_source[s.name]) for s in scene.sources},
        [float(x) for x in subflows],
        weights,
        manager.history if manager is not None else [],
        out.intervals,
        out.links,
        table,
        out.wall_s,
    )
