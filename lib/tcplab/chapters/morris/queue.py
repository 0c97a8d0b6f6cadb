"""RED without forced drops above its maximum threshold: a what-if for the paper's RED.

ns-2's RED (:class:`~tcplab.packet.queues.RED`, the book's) drops every arrival while its
average queue is above ``max_th`` ("forced" drops). With Morris's ``max_p`` of 0.002, RED's
early drops cannot supply the loss rate many flows need (at most about 0.4%), so the average
settles at ``max_th`` and RED drops in bursts there. :class:`CappedRED` keeps the drop
probability at ``max_p`` above ``max_th`` instead, so that only the full buffer forces drops:
one reading of an early RED the paper may have run. The chapter uses it only to show how much
this choice moves the results; every other run is ns-2's RED.
"""

from __future__ import annotations

from tcplab.packet.queues import RED, red_drop_probability

__all__ = ["CappedRED", "capped"]


class CappedRED(RED):
    """:class:`RED` whose base probability stays at ``max_p`` from ``max_th`` on; arrivals are
    forced out only when the buffer is full."""

    def _decide(self, waiting: int) -> bool:
        if waiting >= self.buffer:
            self.forced_drops += 1
            self.count = 0
            return True
        min_th: float = self.min_th  # type: ignore[assignment]  # set in __post_init__
        max_th: float = self.max_th  # type: ignore[assignment]
        if self.avg < min_th:
            self.count = 0
            return False
        self.count += 1
        p_b = self.max_p * min(1.0, (self.avg - min_th) / (max_th - min_th))
        if self._uniform() < red_drop_probability(p_b, self.count, self.wait):
            self.early_drops += 1
            self.count = 0
            return True
        return False


def capped(red: RED) -> CappedRED:
    """A :class:`CappedRED` with ``red``'s parameters and random stream."""
    return CappedRED(
        red.buffer, red.min_th, red.max_th, red.max_p, red.w_q, red.wait, red.gentle,
        red.mean_pkt_time, red.rng,
    )  # fmt: skip
