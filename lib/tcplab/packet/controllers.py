"""Controllers that change a connection's subflows while they run: BMC and MPTCP's LIA.

:class:`ProportionManager` is Honda's proportion manager (Sec. 3.2) on a
:class:`~tcplab.packet.network.Connection`: it gives each subflow its weight D as
AIMD(D^2, 1/2) (the aggressiveness manager, eq. 3.6), measures every J seconds each
subflow's throughput from its acknowledged packets (``T_J``, as Sec. 3.3 suggests), computes
``Twr = R T_J / D`` with R the subflow's smoothed RTT (eq. 3.7), and moves weight from the
smallest Twr to the largest (eqs. 3.8-3.9, :func:`tcplab.theory.bmc.proportion_step`).

:class:`LiaSender` is the coupled increase of MPTCP (RFC 6356, "linked increases"): in
congestion avoidance each ACK on subflow i adds ``min(alpha / cwnd_total, 1 / cwnd_i)``
packets, with ``alpha = cwnd_total max_i(cwnd_i / rtt_i^2) / (sum_i cwnd_i / rtt_i)^2``; slow
start and the loss response are TCP's. It sets the increase before the base sender handles
the ACK, so the sender's own code runs unchanged.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..checks import check_range
from ..theory import bmc
from .network import Connection
from .sched import Call, call_at
from .tcp import TcpSender

__all__ = ["BMC_BETA", "ProportionManager", "LinkedIncreases", "LiaSender", "couple"]

#: the aggressiveness manager's decrease: b = 1/2, so the window is multiplied by 1/2
BMC_BETA = 0.5


def _weights(weights: Sequence[float], subflows: int) -> np.ndarray:
    from ..multipath import check_weights  # the one rule for weights (eq. 3.1)

    return check_weights(weights, subflows)


class ProportionManager:
    """BMC's aggressiveness and proportion managers on ``connection``.

    ``weights`` (one per subflow, summing to 1) are applied at once; measurement periods of
    ``j_s`` seconds start at ``start``. ``adapt=False`` holds the weights (the aggressiveness
    manager alone) but still records the history. ``rtt_s`` gives each subflow's RTT until
    it has a smoothed RTT (its propagation RTT, say). ``history`` has one entry per period:
    ``t`` (its end), the ``weights`` it was measured at, ``twr`` and ``mbps`` per subflow.
    """

    def __init__(
        self,
        connection: Connection,
        weights: Sequence[float],
        *,
        j_s: float,
        k: float,
        start: float = 0.0,
        rtt_s: Sequence[float] | None = None,
        adapt: bool = True,
    ) -> None:
        self.connection = connection
        self.senders = connection.senders
        self.weights = _weights(weights, len(self.senders))
        self.j_s = check_range("j_s", j_s, 0.0, low_open=True)
        self.k = check_range("k", k, *bmc.K_RANGE, low_open=True)
        self.adapt = adapt
        fallback = [0.1] * len(self.senders) if rtt_s is None else list(rtt_s)
        self._fallback = [check_range("rtt_s", r, 0.0, low_open=True) for r in fallback]
        self.history: list[dict[str, Any]] = []
        self._acked = [0] * len(self.senders)
        self._due: float | None = None
        self._apply()
        start = check_range("start", start, connection.env.now)
        call_at(connection.env, start, self._begin, None)

    def _apply(self) -> None:
        for sender, d in zip(self.senders, self.weights, strict=True):
            sender.set_aimd(bmc.increase_for(float(d), 1.0 - BMC_BETA), BMC_BETA)

    def _begin(self, _event: Call) -> None:
        self._acked = [s.snd_una for s in self.senders]
        self._schedule()

    def _schedule(self) -> None:
        env = self.connection.env
        self._due = env.now + self.j_s
        call_at(env, self._due, self._tick, None)

    def finish(self) -> None:
        """Take the reading due at the current time, if any: a run stops before the events
        of its last instant, so the period ending there is read here."""
        if self._due is not None and abs(self._due - self.connection.env.now) < 1e-9:
            self._tick(None)

    def _tick(self, _event: Call | None) -> None:
        env = self.connection.env
        if self._due is None or abs(self._due - env.now) > 1e-9:
            return  # already read by finish()
        self._due = None
        acked = [s.snd_una for s in self.senders]
        mbps = np.array(
            [
                (now - before) * s.config.packet_bytes * 8.0 / self.j_s / 1e6
                for now, before, s in zip(acked, self._acked, self.senders, strict=True)
            ]
        )
        fallback = zip(self.senders, self._fallback, strict=True)
        rtt = np.array([s.srtt if s.srtt is not None else r for s, r in fallback])
        twrs = bmc.twr(mbps, self.weights, rtt)
        self.history.append(
            {
                "t": env.now,
                "weights": [float(d) for d in self.weights],
                "twr": [float(x) for x in twrs],
                "mbps": [float(x) for x in mbps],
            }
        )
        self._acked = acked
        if self.adapt:
            self.weights = bmc.proportion_step(self.weights, twrs, self.k)
            self._apply()
        self._schedule()


class LinkedIncreases:
    """RFC 6356's coupling of one connection's subflows (windows in packets). ``rtt_s``
    stands in for a subflow's smoothed RTT until it has one."""

    def __init__(self, senders: Sequence[TcpSender], rtt_s: Sequence[float]) -> None:
        self.senders = list(senders)
        self.rtt_s = [check_range("rtt_s", r, 0.0, low_open=True) for r in rtt_s]
        if len(self.rtt_s) != len(self.senders):
            raise ValueError(f"rtt_s has {len(self.rtt_s)} values, expected {len(self.senders)}")

    def alpha(self) -> float:
        """``cwnd_total max_i(cwnd_i / rtt_i^2) / (sum_i cwnd_i / rtt_i)^2``."""
        cwnd = [s.cwnd for s in self.senders]
        rtt = [
            s.srtt if s.srtt is not None else r
            for s, r in zip(self.senders, self.rtt_s, strict=True)
        ]
        best = max(w / (r * r) for w, r in zip(cwnd, rtt, strict=True))
        total = sum(w / r for w, r in zip(cwnd, rtt, strict=True))
        return sum(cwnd) * best / (total * total)

    def increase(self, sender: TcpSender) -> float:
        """Packets added to ``sender``'s window by one ACK in congestion avoidance."""
        total = sum(s.cwnd for s in self.senders)
        return min(self.alpha() / total, 1.0 / sender.cwnd)


class LiaSender(TcpSender):
    """A subflow with RFC 6356's coupled increase once :func:`couple` has joined it to its
    connection's other subflows (until then, and in slow start, it is a TcpSender)."""

    coupling: LinkedIncreases | None = None

    def on_ack(self, event: Call) -> None:
        if self.coupling is not None:  # the base adds a / cwnd per ACK in congestion avoidance
            self._a = self.coupling.increase(self) * self.cwnd
        TcpSender.on_ack(self, event)


def couple(connection: Connection, rtt_s: Sequence[float]) -> LinkedIncreases:
    """Couple the subflows of ``connection`` (built with ``sender=LiaSender``)."""
    senders = connection.senders
    if not all(isinstance(s, LiaSender) for s in senders):
        raise ValueError("couple() needs a connection built with sender=LiaSender")
    coupling = LinkedIncreases(senders, rtt_s)
    for sender in senders:
        assert isinstance(sender, LiaSender)
        sender.coupling = coupling
    return coupling
