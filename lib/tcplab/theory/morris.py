"""Morris (1997), "TCP Behavior with Many Flows": the closed forms behind its arguments.

The network stores packets on its links (the delay-bandwidth product) and in the router's
buffer; N windows of at least one packet need N packets of storage, so beyond that many flows
some must sit in a retransmission time-out (Section 7). Below it, fast retransmit needs a
window of four packets, and Section 4's sawtooth gives a loss rate growing as N^2 (Sections
4 and 7.2). Above it, the back-off lemma (Section 7.1): with p the loss rate, the number of
flows in a 2^i-second time-out is n_i = (2p)^i n_0, whose sum diverges only for p >= 1/2.
Pure functions of numbers and numpy arrays; the chapter checks the simulation against them.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike

from ..checks import check_int, check_range

__all__ = [
    "packet_rate",
    "link_storage",
    "network_storage",
    "one_packet_rate_bps",
    "fast_retransmit_flows",
    "fast_retransmit_buffer",
    "sawtooth_loss",
    "sawtooth_min_flows",
    "backoff_occupancy",
    "timeout_population",
    "lemma_bound",
]


def packet_rate(rate_mbps: float = 10.0, packet_bytes: int = 576) -> float:
    """Packets per second a link of ``rate_mbps`` forwards (2170 for 10 Mb/s and 576 B)."""
    rate = check_range("rate_mbps", rate_mbps, 0.0, low_open=True)
    size = check_int("packet_bytes", packet_bytes, 1)
    return rate * 1e6 / (8.0 * size)


def link_storage(rate_mbps: float = 10.0, rtt_s: float = 0.1, packet_bytes: int = 576) -> float:
    """Packets in flight on the links when a window fills the pipe: the delay-bandwidth
    product, rate x round-trip propagation (217 packets in Morris's set-up: Section 3)."""
    rtt = check_range("rtt_s", rtt_s, 0.0, low_open=True)
    return packet_rate(rate_mbps, packet_bytes) * rtt


def network_storage(
    buffer: int = 217, rate_mbps: float = 10.0, rtt_s: float = 0.1, packet_bytes: int = 576
) -> float:
    """Everything the network can hold: the links' packets plus the router's buffer (Section 7:
    217 + 217 = 434 packets, so at most 434 windows of one packet can coexist)."""
    b = check_int("buffer", buffer, 0)
    return link_storage(rate_mbps, rtt_s, packet_bytes) + b


def one_packet_rate_bps(max_rtt_s: float = 0.2, packet_bytes: int = 576) -> float:
    """The slowest a window flow can send without a time-out: one packet per round trip,
    queueing included (Section 7: 576 B every 0.2 s is 23,040 b/s, 1/434 of 10 Mb/s)."""
    rtt = check_range("max_rtt_s", max_rtt_s, 0.0, low_open=True)
    return 8.0 * check_int("packet_bytes", packet_bytes, 1) / rtt


def fast_retransmit_flows(storage: float, window: float = 4.0) -> float:
    """The number of flows whose fair window is ``window`` packets when they share
    ``storage`` packets: fewer flows than this can recover by fast retransmit, which needs a
    window of four (Section 7.2: 'much less than the total buffering divided by four')."""
    s = check_range("storage", storage, 0.0, low_open=True)
    return s / check_range("window", window, 0.0, low_open=True)


def fast_retransmit_buffer(
    flows: int,
    window: float = 4.0,
    rate_mbps: float = 10.0,
    rtt_s: float = 0.1,
    packet_bytes: int = 576,
) -> float:
    """The buffer at which ``flows`` flows have windows of ``window`` packets each: beyond it
    most can recover by fast retransmit (Section 8's explanation of Fig. 10's irregularity;
    500 flows x 4 packets - 217 on the links = 1783 packets)."""
    n = check_int("flows", flows, 1)
    w = check_range("window", window, 0.0, low_open=True)
    return n * w - link_storage(rate_mbps, rtt_s, packet_bytes)


def sawtooth_loss(
    flows: ArrayLike,
    buffer: int = 217,
    min_th: float = 54.0,
    max_th: float = 108.0,
    rate_mbps: float = 10.0,
    rtt_s: float = 0.1,
    packet_bytes: int = 576,
    increase: float = 0.5,
) -> np.ndarray | float:
    """Section 4's estimate of the loss rate of N flows that never time out.

    RED holds the queue near ``(min_th + max_th) / 2`` (81 packets), so the N windows share the
    links' storage plus that queue (217 + 81 = 298 packets): each averages W = 298/N and saws
    between 2W/3 and 4W/3 (7 and 13 for N = 30), halving at each loss. Growing back by
    ``increase`` packets per round trip (1/2: the receivers ACK every other packet) takes
    (2W/3) / increase round trips of ``rtt_s`` plus the queueing delay. One drop per flow per
    cycle gives N drops per cycle out of ``packet_rate`` packets per second: a loss rate of
    ``N / (cycle x rate)``, which grows as N^2 (Section 7.2). For N = 30: 0.76% (the paper,
    rounding the windows to 7 and 13 and the cycle to 12 round trips: 0.8%).
    """
    n = np.asarray(flows, dtype=float)
    for value in np.atleast_1d(n):
        check_range("flows", value, 0.0, low_open=True)
    check_int("buffer", buffer, 1)
    queue = 0.5 * (check_range("min_th", min_th, 0.0) + check_range("max_th", max_th, min_th))
    rate = packet_rate(rate_mbps, packet_bytes)
    window = (link_storage(rate_mbps, rtt_s, packet_bytes) + queue) / n
    rtt = rtt_s + queue / rate
    cycle = (2.0 * window / 3.0) / check_range("increase", increase, 0.0, low_open=True) * rtt
    loss = n / (cycle * rate)
    return float(loss) if loss.ndim == 0 else loss


def sawtooth_min_flows(
    max_window: float = 65536 // 576,
    min_th: float = 54.0,
    max_th: float = 108.0,
    rate_mbps: float = 10.0,
    rtt_s: float = 0.1,
    packet_bytes: int = 576,
) -> float:
    """The fewest flows whose sawtooth of :func:`sawtooth_loss` fits under the maximum window:
    its peak 4W/3, with W = (link storage + RED's mean queue) / N, must not exceed
    ``max_window`` (113 packets of 576 B in 64 KB), so N >= 4 x 298 / (3 x 113) = 3.5. Fewer
    flows are held by the window limit and lose packets only in slow start."""
    w = check_range("max_window", max_window, 0.0, low_open=True)
    queue = 0.5 * (check_range("min_th", min_th, 0.0) + check_range("max_th", max_th, min_th))
    return 4.0 * (link_storage(rate_mbps, rtt_s, packet_bytes) + queue) / (3.0 * w)


def backoff_occupancy(
    n0: float, p: float, stages: int = 7, factor: float = 2.0, cap: bool = True
) -> np.ndarray:
    """Lemma 3: the number of flows in each back-off stage, n_i = (factor p)^i n_0.

    Stage i is a time-out of factor^i times the first (Morris: 2^i seconds). Flows enter
    stage i from stage i-1 at rate p n_{i-1} / T_{i-1} and stay T_i = factor T_{i-1}
    (Little's law). With ``cap`` the last stage is TCP's ceiling on the time-out (64 s: 2^6
    with a 1 s first time-out): a flow there stays another period with probability p, so
    n_last = (factor p)^last n_0 / (1 - p).
    """
    n0 = check_range("n0", n0, 0.0)
    p = check_range("p", p, 0.0, 1.0, high_open=True)
    m = check_int("stages", stages, 1)
    k = check_range("factor", factor, 1.0, low_open=True)
    occupancy = n0 * (k * p) ** np.arange(m, dtype=float)
    if cap:
        occupancy[-1] /= 1.0 - p
    return occupancy


def timeout_population(p: float, stages: int | None = 7, factor: float = 2.0) -> float:
    """Lemma 4: flows in time-out per flow in the first stage, sum_i (factor p)^i.

    With ``stages=None`` the time-out grows without limit and the sum is 1 / (1 - factor p),
    infinite from p = 1/factor on: that divergence is the proof that the loss rate must
    approach 1/2 as N grows. With TCP's ceiling on the time-out (``stages`` of them, the last
    absorbing: :func:`backoff_occupancy`) the sum stays finite for every p < 1.
    """
    p = check_range("p", p, 0.0, 1.0, high_open=True)
    k = check_range("factor", factor, 1.0, low_open=True)
    if stages is None:
        return math.inf if k * p >= 1.0 else 1.0 / (1.0 - k * p)
    return float(backoff_occupancy(1.0, p, stages, k).sum())


def lemma_bound(factor: float = 2.0) -> float:
    """The loss rate the back-off lemma says N flows approach as N grows: 1/factor (50% for
    TCP's doubling; a back-off constant of 4 would lower it to 25%: Section 7.1)."""
    return 1.0 / check_range("factor", factor, 1.0, low_open=True)
