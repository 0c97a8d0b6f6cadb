"""The dumbbell: N greedy TCP senders, each on its own access link, share one bottleneck.

Sender i feeds access link i (its own rate and delay, unlimited buffer), which feeds the
bottleneck queue and link (rate R, one-way delay D); receivers ACK every packet over an
uncongested reverse path of delay ``D + d_i``. The wiring is a
:class:`~tcplab.packet.network.Network` of single-path connections; connections with several
paths (BMC) are built on a Network directly.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from ..checks import check_int, check_per_flow
from .link import Link
from .network import Network
from .setup import DumbbellTopology, PacketSetup, Probes, QueueSetup, RunLength, streams
from .tcp import Receiver, TcpConfig, TcpSender

__all__ = ["Dumbbell", "DumbbellResult", "run_dumbbell", "simulate", "jain_index", "queue_counters"]


def jain_index(values: ArrayLike) -> float:
    """Jain's fairness index (sum x)^2 / (n sum x^2): 1 for equal shares, 1/n for one winner."""
    x = np.asarray(values, dtype=float)
    denominator = len(x) * float(np.sum(x * x))
    return float(np.sum(x) ** 2 / denominator) if denominator > 0 else float("nan")


class Dumbbell:
    """The wired-up network; :func:`simulate` (of a set-up) is the usual entry point.

    A :class:`~tcplab.packet.network.Network` of N single-path connections, connection i
    over ``[access{i}, bottleneck]``. ``configs`` holds one :class:`TcpConfig` per flow;
    ``access_delays`` and ``delayed_ack`` (the receivers' delayed-ACK timer, ``None`` to ACK
    every packet) are seconds, as is ``overhead``, the random extra transmission time on
    access links (see ``Link.jitter``; all access links draw from the one ``rng``).
    """

    def __init__(
        self,
        configs: Sequence[TcpConfig],
        queue: Any,
        rate_bps: float,
        delay: float,
        access_bps: float,
        access_delays: Sequence[float],
        *,
        trace: bool = True,
        delayed_ack: float | None = None,
        overhead: float = 0.0,
        rng: np.random.Generator | None = None,
    ) -> None:
        self.network = net = Network()
        self.env = env = net.env
        n = len(configs)
        self.bottleneck = net.attach(
            Link(env, rate_bps, delay, queue, name="bottleneck", trace=trace)
        )
        self.access = [
            net.attach(
                Link(env, access_bps, access_delays[i], None, name=f"access{i}",
                     jitter=overhead, rng=rng)
            )
            for i in range(n)
        ]  # fmt: skip
        self.connections = [
            net.add_connection(
                [[f"access{i}", "bottleneck"]], configs[i], name=f"flow{i}", start=None,
                delayed_ack=delayed_ack, trace=trace,
            )
            for i in range(n)
        ]  # fmt: skip
        self.senders: list[TcpSender] = net.senders
        self.receivers: list[Receiver] = [s.receiver for s in net.subflows]
        self.reverse: list[Link] = [s.ack_path for s in net.subflows]

    def start(self, times: Iterable[float]) -> None:
        """Start sender i at simulated time ``times[i]``."""
        for connection, t in zip(self.connections, times, strict=True):
            connection.start(t)

    def stop(self) -> None:
        """Stop every sender (no new packets, timers ignored); packets in flight continue."""
        self.network.stop()

    def drain(self) -> None:
        """Stop the senders and run until every packet and ACK has arrived."""
        self.network.drain()

    def counts(self) -> dict[str, int]:
        """Packet counters: sent by senders, received by receivers, dropped on any link."""
        return self.network.counts()


@dataclass(frozen=True, eq=False)
class DumbbellResult:
    """Outcome of :func:`run_dumbbell`. Rates in Mb/s. Goodput counts distinct packets
    (``packet_bytes`` each, duplicates excluded) received after the warm-up; ``packets``
    counts every bottleneck arrival of the whole run (the speed measure), ``drop_rate`` only
    those after the warm-up. ``queue_counters`` are the discipline's own counters over the
    whole run (RED's early and forced drops, the threshold-dropper's events and lapses, the
    random losses)."""

    params: dict[str, Any]
    delivered: np.ndarray  # per flow, after warm-up
    arrivals: int  # bottleneck arrivals after warm-up
    drops: int  # bottleneck drops after warm-up
    packets: int
    wall_s: float
    flow_table: pd.DataFrame
    cwnd_trace: pd.DataFrame
    queue_trace: pd.DataFrame
    queue_counters: dict[str, int] = field(default_factory=dict)
    interval_table: pd.DataFrame = field(default_factory=pd.DataFrame)
    setup: PacketSetup | None = None  # what was run

    @property
    def per_flow_mbps(self) -> np.ndarray:
        p = self.params
        span = p["duration"] - p["warmup"]
        return self.delivered * p["packet_bytes"] * 8.0 / span / 1e6

    def summary(self) -> dict[str, Any]:
        per_flow = self.per_flow_mbps
        goodput = float(per_flow.sum())
        return {
            "goodput_mbps": goodput,
            "utilisation": goodput / self.params["rate_mbps"],
            "drop_rate": self.drops / self.arrivals if self.arrivals else 0.0,
            "per_flow_mbps": [float(x) for x in per_flow],
            "jain_index": jain_index(per_flow),
            "packets": self.packets,
            "arrivals_after_warmup": self.arrivals,
            "drops_after_warmup": self.drops,
            "timeouts": int(self.flow_table["timeouts"].sum()),
            "fast_retransmits": int(self.flow_table["fast_retransmits"].sum()),
            "wall_s": self.wall_s,
            "packets_per_wall_s": self.packets / self.wall_s if self.wall_s > 0 else float("nan"),
            **self.queue_counters,
        }

    def flows(self) -> pd.DataFrame:
        """One row per flow: RTT, delivered bytes and goodput after warm-up, loss counters."""
        return self.flow_table.copy()

    def cwnd(self) -> pd.DataFrame:
        """Tidy (time, flow, cwnd) rows, one per window change (empty without ``trace``)."""
        return self.cwnd_trace.copy()

    def queue(self) -> pd.DataFrame:
        """Tidy (time, flow, waiting, dropped) rows, one per bottleneck arrival (empty
        without ``trace``)."""
        return self.queue_trace.copy()

    def dropped(self) -> pd.DataFrame:
        """Tidy (time, flow) rows, one per bottleneck drop (empty without ``trace``)."""
        q = self.queue_trace
        return q.loc[q["dropped"], ["time", "flow"]].reset_index(drop=True)

    def intervals(self) -> pd.DataFrame:
        """Per-flow goodput in consecutive intervals after the warm-up: (start, end, flow,
        packets, goodput_mbps) rows; empty unless ``sample_interval`` was given."""
        columns = ["start", "end", "flow", "packets", "goodput_mbps"]
        table = self.interval_table
        return table[columns].copy() if len(table) else pd.DataFrame(columns=columns)


def run_dumbbell(
    flows: int,
    queue: str = "droptail",
    buffer: int = 100,
    rate_mbps: float = 10.0,
    delay_ms: float = 25.0,
    access_mbps: float = 100.0,
    access_delay_ms: float | Sequence[float] = 0.0,
    duration: float = 60.0,
    warmup: float = 10.0,
    tcp: str = "newreno",
    packet_bytes: int = 1500,
    seed: int = 0,
    *,
    a: float | Sequence[float] = 1.0,
    beta: float | Sequence[float] = 0.5,
    access_jitter_ms: float = 0.0,
    start_spread: float = 1.0,
    max_window: int = 20_000,
    initial_window: int = 1,
    granularity: float = 0.01,
    min_rto: float = 0.2,
    queue_options: dict[str, Any] | None = None,
    delayed_ack_ms: float | None = None,
    overhead_ms: float = 0.0,
    loss_rate: float = 0.0,
    trace: bool = True,
    sample_interval: float | None = None,
) -> DumbbellResult:
    """:func:`simulate` of the :class:`~tcplab.packet.setup.PacketSetup` these keywords
    describe (the keyword form, for short scripts and tests).

    ``a``/``beta`` set the AIMD increase and decrease factor, per flow if sequences;
    ``queue_options`` are the discipline's (:class:`~tcplab.packet.setup.QueueSetup`); the
    rest are the fields of
    :class:`~tcplab.packet.setup.DumbbellTopology`, :class:`~tcplab.packet.setup.RunLength`
    and :class:`~tcplab.packet.setup.Probes` of the same names.
    """
    flows = check_int("flows", flows, 1)
    a_list = check_per_flow("a", a, flows).tolist()  # their ranges: TcpConfig's
    beta_list = check_per_flow("beta", beta, flows).tolist()
    configs = tuple(
        TcpConfig(
            variant=tcp,
            a=ai,
            beta=bi,
            packet_bytes=packet_bytes,
            max_window=max_window,
            initial_window=initial_window,
            granularity=granularity,
            min_rto=min_rto,
        )
        for ai, bi in zip(a_list, beta_list, strict=True)
    )
    delays = access_delay_ms if isinstance(access_delay_ms, int | float) else tuple(access_delay_ms)
    setup = PacketSetup(
        topology=DumbbellTopology(
            flows, rate_mbps, delay_ms, access_mbps, delays, access_jitter_ms, overhead_ms,
            start_spread,
        ),
        queue=replace(QueueSetup.of(queue, buffer, queue_options), loss_rate=loss_rate),
        tcp=configs[0] if len(set(configs)) == 1 else configs,
        length=RunLength(duration, warmup),
        probes=Probes(trace, sample_interval),
        delayed_ack_ms=delayed_ack_ms,
        seed=seed,
    )  # fmt: skip
    return simulate(setup)


def simulate(setup: PacketSetup) -> DumbbellResult:
    """Simulate the dumbbell ``setup`` describes; see :class:`DumbbellResult`.

    Randomness comes only from ``numpy.random.SeedSequence(setup.seed)``, one stream per
    random choice (:func:`~tcplab.packet.setup.streams`).
    """
    top, length, probes = setup.topology, setup.length, setup.probes
    flows, duration, warmup = top.flows, length.duration, length.warmup
    rate, delay = top.rate_mbps * 1e6, top.delay_ms / 1e3
    configs = setup.configs()
    packet_bytes = configs[0].packet_bytes
    rng = streams(setup.seed)
    discipline = setup.queue.build(rng.queue, rng.loss, setup.mean_packet_time)
    jitter = top.access_jitter_ms
    delays = [
        (d + jitter * u) / 1e3
        for d, u in zip(top.access_delays_ms(), rng.delay.random(flows), strict=True)
    ]
    net = Dumbbell(
        configs, discipline, rate, delay, top.access_mbps * 1e6, delays,
        trace=probes.trace, delayed_ack=setup.delayed_ack, overhead=top.overhead_ms / 1e3,
        rng=rng.overhead,
    )  # fmt: skip
    net.start(rng.start.uniform(0.0, top.start_spread, flows))
    out = net.network.run(duration, warmup, probes.sample_interval)
    delivered = out.subflows["delivered"].to_numpy()
    bottleneck = out.links.set_index("link").loc["bottleneck"]
    span = duration - warmup
    rtts = [2.0 * (delay + d) for d in delays]
    flow_table = pd.DataFrame(
        {
            "flow": np.arange(flows),
            "rtt_prop_s": rtts,
            "a": [c.a for c in configs],
            "beta": [c.beta for c in configs],
            "bytes": delivered * packet_bytes,
            "goodput_mbps": delivered * packet_bytes * 8.0 / span / 1e6,
            "sent": [s.sent for s in net.senders],
            "retransmits": [s.retransmits for s in net.senders],
            "fast_retransmits": [s.fast_retransmits for s in net.senders],
            "timeouts": [s.timeouts for s in net.senders],
        }
    )
    cwnd = pd.DataFrame(
        {
            "time": np.concatenate([np.array(s.trace_time, dtype=float) for s in net.senders]),
            "flow": np.repeat(np.arange(flows), [len(s.trace_time) for s in net.senders]),
            "cwnd": np.concatenate([np.array(s.trace_cwnd, dtype=float) for s in net.senders]),
        }
    )
    q = net.bottleneck.traces()
    queue_trace = pd.DataFrame({k: q[k] for k in ("time", "flow", "waiting", "dropped")})
    params = {
        "flows": flows,
        "queue": setup.queue.kind,
        "buffer": setup.queue.buffer,
        "rate_mbps": rate / 1e6,
        "delay_ms": delay * 1e3,
        "access_mbps": top.access_mbps * 1e6 / 1e6,
        "access_delays_ms": [d * 1e3 for d in delays],
        "duration": duration,
        "warmup": warmup,
        "tcp": configs[0].variant,
        "packet_bytes": packet_bytes,
        "seed": setup.seed,
        "delayed_ack_ms": setup.delayed_ack_ms,
        "overhead_ms": top.overhead_ms / 1e3 * 1e3,
        "loss_rate": setup.queue.loss_rate,
    }
    return DumbbellResult(
        params=params,
        delivered=delivered,
        arrivals=int(bottleneck["arrivals"]),
        drops=int(bottleneck["drops"]),
        packets=net.bottleneck.arrivals,
        wall_s=out.wall_s,
        flow_table=flow_table,
        cwnd_trace=cwnd,
        queue_trace=queue_trace,
        queue_counters=queue_counters(discipline),
        interval_table=out.intervals,
        setup=setup,
    )


_COUNTERS = {
    "random_drops": "random_drops",
    "early_drops": "red_early_drops",
    "forced_drops": "red_forced_drops",
    "events": "dropper_events",
    "lapsed": "dropper_lapsed",
}


def queue_counters(discipline: Any) -> dict[str, int]:
    """The counters a discipline keeps (and those of the one it wraps), under summary names."""
    parts = [discipline, getattr(discipline, "inner", None)]
    return {
        key: int(getattr(part, attr))
        for part in parts
        if part is not None
        for attr, key in _COUNTERS.items()
        if hasattr(part, attr)
    }
