"""The appendix's scenarios: the book's dumbbells, described once for both simulators.

Every scenario shares the matched parameters (:data:`MATCHED`: a 10 Mb/s, 20 ms bottleneck,
100 Mb/s access links, 1500-byte packets, an initial window of one packet, a 200 ms RTO floor
with a 10 ms clock, starts spread over the first second, 30 s of warm-up and 40 s measured)
and varies the queue, the buffer, the number of flows, the TCP and the delayed ACKs; one
probe (:data:`PROBE_MIN_RTO_MS`) also raises the RTO floor, with delayed ACKs at 30 flows. The
tcplab side reads it in :mod:`tcplab.chapters.ns3.experiments`; ``tools/ns3/run.py`` hands the
same values, as JSON, to ns-3 (``tools/ns3/dumbbell.py``). This module imports no model and
nothing from ns-3.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

__all__ = ["MATCHED", "PROBE_MIN_RTO_MS", "Scenario", "SCENARIOS", "SEEDS", "scenario_key"]

#: what every scenario shares, in both simulators
MATCHED: dict[str, Any] = {
    "rate_mbps": 10.0,
    "delay_ms": 20.0,
    "access_mbps": 100.0,
    "packet_bytes": 1500,
    "initial_window": 1,
    "min_rto_ms": 200.0,
    "granularity_ms": 10.0,
    "start_spread": 1.0,
    "warmup": 30.0,
    "duration": 70.0,
    "red_max_p": 0.1,
    "red_w_q": 0.002,
}
SEEDS = (1, 2, 3)
SMALL, LARGE = 25, 100  # buffers: 0.75 and 3 bandwidth-delay products (33 packets)
DELAYED_ACK_MS = 200.0  # ns-3's default delayed-ACK timeout
#: the delayed-ACK probe's RTO floor: twice the matched one, above the longest wait for an ACK
#: that was not lost (a 40 ms round trip, 120 ms behind a full queue of 100 packets and the
#: receiver's 200 ms delayed-ACK wait)
PROBE_MIN_RTO_MS = 400.0


@dataclass(frozen=True)
class Scenario:
    """One dumbbell: ``tcp`` is ``newreno`` or ``sack`` (NewReno with SACK recovery);
    ``min_rto_ms`` is the RTO's floor (the matched one unless a probe changes it)."""

    queue: str
    buffer: int
    flows: int
    tcp: str
    delayed_ack_ms: float | None = None
    min_rto_ms: float = MATCHED["min_rto_ms"]

    def params(self, seed: int) -> dict[str, Any]:
        """Everything one run of this scenario depends on, as plain values."""
        return {**MATCHED, **asdict(self), "sack": self.tcp == "sack", "seed": seed}


def scenario_key(row: Any) -> tuple:
    """The fields that name a scenario, from a Scenario, a dict or a table row."""

    def get(name: str) -> Any:
        return row.get(name) if isinstance(row, dict) else getattr(row, name)

    delack = get("delayed_ack_ms")
    delack = None if delack is None or delack != delack else float(delack)  # NaN: none
    floor = float(get("min_rto_ms"))
    return (get("queue"), int(get("buffer")), int(get("flows")), get("tcp"), delack, floor)


def _scenarios() -> tuple[Scenario, ...]:
    both = ("sack", "newreno")
    out = [Scenario("droptail", LARGE, n, tcp) for n in (1, 10, 30, 100) for tcp in both]
    out += [Scenario("droptail", LARGE, 300, "sack")]
    out += [Scenario("droptail", SMALL, 30, tcp) for tcp in both]
    out += [Scenario("red", LARGE, n, tcp) for n in (30, 100) for tcp in both]
    out += [Scenario("droptail", LARGE, 30, tcp, DELAYED_ACK_MS) for tcp in both]
    out += [Scenario("droptail", LARGE, 30, tcp, DELAYED_ACK_MS, PROBE_MIN_RTO_MS) for tcp in both]
    return tuple(out)


#: the grid both simulators run, each scenario with every seed of :data:`SEEDS`
SCENARIOS = _scenarios()
