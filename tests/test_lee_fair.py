"""The fair-share what-if (tcplab.chapters.lee.fair): the FIFO run is the shipped repetition,
and the per-flow share admits and drops as a hand count says."""

from __future__ import annotations

import numpy as np
import pytest

from tcplab.chapters.lee.fair import FairShare, run_fair
from tcplab.chapters.lee.transfer import Repetition, path_model, run_repetition

pytestmark = pytest.mark.timeout(300)


def test_fifo_gives_the_shipped_repetition() -> None:
    rep = Repetition(path_model("shaped"), 6, 200_000, 38.0, 11)
    shipped, fifo = run_repetition(rep), run_fair(rep, fair=False)
    assert np.array_equal(shipped["completion_s"], fifo["completion_s"])
    assert shipped["drops"] == fifo["drops"] and shipped["cross"] == fifo["cross"]
    assert fifo["fair_drops"] == 0


class _Clock:
    """A stand-in link: one packet leaves every ``service`` seconds after the last admitted."""

    def __init__(self, service: float) -> None:
        self.service = service
        self.busy_until = 0.0

    def offer(self, queue: FairShare, now: float, flow: int, waiting: int) -> bool:
        ok = queue.admit(waiting, now, -1.0, flow)
        if ok:
            self.busy_until = max(now, self.busy_until) + self.service
        return ok


def test_a_flow_gets_at_most_an_equal_share_of_the_buffer() -> None:
    # a buffer of 8, two flows: once flow 1 has a packet in, flow 0 may hold at most 8 // 2 = 4
    link = _Clock(service=1.0)
    queue = FairShare(8, link=link)  # type: ignore[arg-type]
    assert link.offer(queue, 0.0, flow=1, waiting=0)
    admitted = [link.offer(queue, 0.0, flow=0, waiting=1 + i) for i in range(6)]
    assert admitted == [True, True, True, True, False, False]
    assert queue.fair_drops == 2
    # flow 1 still has its share: it is admitted up to 4 packets too
    assert [link.offer(queue, 0.0, flow=1, waiting=5 + i) for i in range(4)] == [
        True, True, True, False,
    ]  # fmt: skip


def test_departed_packets_free_the_share() -> None:
    # one flow alone may fill the buffer; once its packets have left, it may send again
    link = _Clock(service=1.0)
    queue = FairShare(4, link=link)  # type: ignore[arg-type]
    assert all(link.offer(queue, 0.0, flow=0, waiting=i) for i in range(4))
    assert not link.offer(queue, 0.0, flow=0, waiting=4)  # the buffer is full (DropTail)
    assert queue.fair_drops == 0
    # at t = 10 all four have left (departures at 1, 2, 3, 4)
    assert link.offer(queue, 10.0, flow=0, waiting=0)


def test_a_share_needs_its_link() -> None:
    with pytest.raises(ValueError, match="FairShare.link"):
        FairShare(4).admit(0, 0.0, -1.0, 0)
    with pytest.raises(ValueError, match="min_share"):
        FairShare(4, min_share=5)
