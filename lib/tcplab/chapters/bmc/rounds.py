"""A round-by-round model of N weighted AIMD flows against N TCP flows: when does the weight
law hold?

Every flow has the same RTT, so one round is one round trip and a flow's throughput is its
window. Each round every AIMD(a, b) window grows by ``a`` packets; what is lost depends on the
queue:

* ``red``: equal loss per packet. While the windows sum to more than the link's
  bandwidth-delay product ``capacity``, each packet is dropped with the same probability
  ``max_p (S - capacity) / buffer`` (S the windows' sum), so a flow loses with probability
  ``1 - (1 - q)^w``: the loss rate per packet is the same for every flow, as eq. (3.2)
  assumes, and the ratio of an AIMD(D^2, 1/2) flow to TCP tends to D;
* ``droptail``: synchronised drops. When the windows overflow ``capacity + buffer``, every
  flow loses a packet in that round and cuts its window: all flows share the same congestion
  epochs, each grows by a per round trip between the same cuts, and the ratio tends to a, D^2;
* ``random``: each packet is lost with the fixed probability ``loss``, whatever the queue
  (equal loss per packet again: the ratio tends to D).
* ``overflow``: DropTail without synchronisation. When the windows overflow ``capacity +
  buffer``, only the packets beyond it are lost, and they are the ones the windows' growth
  just added: each lost packet falls on a flow with probability proportional to its increase
  ``a``. A flow then loses in proportion to how fast it grows, which pulls the windows
  towards the same size and the ratio from D towards 1 (a phase effect of DropTail with equal
  RTTs).

A cut takes a window from w to (1 - b) w (the thesis's AIMD(a, b)), never below one packet.
The model is small enough to run in the reader's browser (:mod:`tcplab.chapters.bmc.lawpanel`).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from tcplab.checks import check_choice, check_int, check_range

__all__ = ["QUEUES", "rounds_run", "ratio_of"]

#: how packets are lost: equal loss per packet (RED), synchronised drops (DropTail), random,
#: or the growth that overflows the queue (DropTail without synchronisation)
QUEUES = ("red", "droptail", "random", "overflow")


def rounds_run(
    weight: float = 0.5,
    flows: int = 4,
    queue: str = "red",
    rounds: int = 5000,
    capacity: float = 200.0,
    buffer: float = 200.0,
    max_p: float = 0.1,
    loss: float = 0.002,
    seed: int = 0,
) -> pd.DataFrame:
    """``flows`` TCP flows (AIMD(1, 1/2)) and ``flows`` AIMD(D^2, 1/2) flows for ``rounds``
    round trips; one row per round: the mean window of each kind and the ratio of the AIMD
    flows' cumulative mean to TCP's (from the first fifth of the run on)."""
    d = check_range("weight", weight, 0.0, 1.0, low_open=True)
    n = check_int("flows", flows, 1, 64)
    check_choice("queue", queue, QUEUES)
    total = check_int("rounds", rounds, 100, 200_000)
    cap = check_range("capacity", capacity, 1.0)
    buf = check_range("buffer", buffer, 0.0)
    check_range("max_p", max_p, 0.0, 1.0, low_open=True)
    check_range("loss", loss, 0.0, 1.0, low_open=True, high_open=True)
    rng = np.random.default_rng(check_int("seed", seed, 0))
    a = np.array([1.0] * n + [d * d] * n)
    keep = 0.5  # b = 1/2 for both kinds: the window keeps half on a cut
    w = np.full(2 * n, 1.0)
    tcp_mean = np.empty(total)
    aimd_mean = np.empty(total)
    for t in range(total):
        load = w.sum()
        if queue == "red":
            q = min(max(max_p * (load - cap) / max(buf, 1.0), 0.0), 1.0)
            hit = rng.random(2 * n) < 1.0 - (1.0 - q) ** w
        elif queue == "droptail":
            hit = np.full(2 * n, load > cap + buf)
        elif queue == "overflow":
            hit = np.zeros(2 * n, dtype=bool)
            over = int(np.ceil(load - cap - buf)) if load > cap + buf else 0
            if over:
                lost = rng.choice(2 * n, size=min(over, 2 * n), replace=False, p=a / a.sum())
                hit[lost] = True
        else:
            hit = rng.random(2 * n) < 1.0 - (1.0 - loss) ** w
        tcp_mean[t] = w[:n].mean()
        aimd_mean[t] = w[n:].mean()
        w = np.where(hit, np.maximum(keep * w, 1.0), w + a)
    start = total // 5
    steady_tcp = np.cumsum(tcp_mean[start:]) / np.arange(1, total - start + 1)
    steady_aimd = np.cumsum(aimd_mean[start:]) / np.arange(1, total - start + 1)
    ratio = np.full(total, np.nan)
    ratio[start:] = steady_aimd / steady_tcp
    return pd.DataFrame(
        {"round": np.arange(total), "tcp": tcp_mean, "aimd": aimd_mean, "ratio": ratio}
    )


def ratio_of(run: pd.DataFrame) -> float:
    """The AIMD flows' mean window over TCP's, over the run after its first fifth."""
    return float(run["ratio"].iloc[-1])
