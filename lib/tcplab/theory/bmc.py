"""Closed forms of Honda's bidimensional-probe multipath congestion control (BMC, 2008).

The thesis writes AIMD(a, b) for a window that grows by ``a`` packets per RTT and is cut to
``(1 - b) W`` on a loss (the packet model's ``TcpConfig(a=a, beta=1 - b)``). Its deterministic
(periodic-loss) response function, eq. (3.2), is ``sqrt(a (2 - b) / (2 b)) / (R sqrt(p))``
packets per second; TCP is AIMD(1, 1/2), eq. (3.3). A subflow of weight D should get D times
TCP's throughput, eq. (3.4), which eq. (3.6) solves: ``a = 3 b D^2 / (2 - b)``, and the
aggressiveness manager takes ``b = 1/2``, so weight D is AIMD(D^2, 1/2).

Under *random* loss (each packet lost with probability p) the mean window of AIMD(a, b) is
``m1(b) sqrt(a / p)`` with ``m1(b) = sqrt(2/pi) prod_n (1 - q^(2n+2)) / (1 - q^(2n+1))``,
``q = 1 - b`` (the stationary AIMD process with loss rate proportional to the window: Ott,
Kemperman and Mathis 1996 for b = 1/2, where m1 = 1.31; Dumas, Guillemin and Robert 2002 in
general; derived in the chapter from the moment recursion). Its b-dependence differs from eq.
(3.2)'s, so only pairs with TCP's ``b = 1/2`` keep the ratio D under both loss models.

The proportion manager (Sec. 3.2) measures each subflow's throughput ``T_J`` over J seconds,
computes ``Twr = R T_J / D`` (eq. 3.7), lowers the weight of the subflow with the smallest
Twr to ``D - (D - D^2) K`` (eq. 3.8) and raises the one with the largest Twr by the same
amount (eq. 3.9). The thesis allows ``0 < K < 4``; eq. (3.8) keeps a weight positive only
while ``K < 1 / (1 - D)``, so for every D in (0, 1) only ``K <= 1`` is safe (:data:`K_RANGE`).
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike

from ..checks import check_range

__all__ = [
    "K_RANGE",
    "PAPER_K_RANGE",
    "TIE_TOLERANCE",
    "aimd_throughput",
    "tcp_throughput",
    "weight_of",
    "increase_for",
    "random_loss_factor",
    "random_loss_throughput",
    "random_loss_weight",
    "twr",
    "weight_reduction",
    "reduced_weight",
    "proportion_step",
    "k_limit",
    "congestion_epoch_rtts",
    "pooling_fixed_point",
    "shared_fixed_interval",
]

#: the range of K the book accepts: (0, 1], where eq. (3.8) keeps every weight in (0, 1)
K_RANGE = (0.0, 1.0)
#: the range the thesis states under eq. (3.8): 0 < K < 4
PAPER_K_RANGE = (0.0, 4.0)
#: Twr values this close (relative) count as equal: the manager then changes nothing
TIE_TOLERANCE = 1e-9


def _b(b: float) -> float:
    return check_range("b", b, 0.0, 1.0, low_open=True, high_open=True)


def _a(a: float) -> float:
    return check_range("a", a, 0.0, low_open=True)


def _positive(name: str, value: ArrayLike) -> np.ndarray:
    values = np.asarray(value, dtype=float)
    for v in np.atleast_1d(values):
        check_range(name, v, 0.0, low_open=True)
    return values


def _out(result: np.ndarray) -> np.ndarray | float:
    return float(result) if np.ndim(result) == 0 else result


def aimd_throughput(a: float, b: float, rtt: ArrayLike, p: ArrayLike) -> np.ndarray | float:
    """Eq. (3.2): packets per second of AIMD(a, b) under periodic loss with probability p,
    ``sqrt(a (2 - b) / (2 b)) / (rtt sqrt(p))``."""
    a, b = _a(a), _b(b)
    r, loss = _positive("rtt", rtt), _positive("p", p)
    return _out(math.sqrt(a * (2.0 - b) / (2.0 * b)) / (r * np.sqrt(loss)))


def tcp_throughput(rtt: ArrayLike, p: ArrayLike) -> np.ndarray | float:
    """Eq. (3.3): TCP, AIMD(1, 1/2): ``sqrt(3 / (2 p)) / rtt`` packets per second."""
    return aimd_throughput(1.0, 0.5, rtt, p)


def weight_of(a: float, b: float) -> float:
    """The weight D that eq. (3.5) gives AIMD(a, b): its throughput over TCP's at the same
    loss rate and RTT under eq. (3.2), ``sqrt(a (2 - b) / (3 b))``."""
    a, b = _a(a), _b(b)
    return math.sqrt(a * (2.0 - b) / (3.0 * b))


def increase_for(weight: float, b: float = 0.5) -> float:
    """Eq. (3.6): the increase ``a = 3 b D^2 / (2 - b)`` that gives weight D with decrease b
    (``D^2`` for the aggressiveness manager's ``b = 1/2``)."""
    d = check_range("weight", weight, 0.0, low_open=True)
    b = _b(b)
    return 3.0 * b * d * d / (2.0 - b)


def random_loss_factor(b: float) -> float:
    """``m1(b) = sqrt(2/pi) prod_{n>=0} (1 - q^(2n+2)) / (1 - q^(2n+1))`` with ``q = 1 - b``:
    the mean window of AIMD(a, b) under random loss is ``m1(b) sqrt(a / p)`` (1.3098 for
    TCP). The factors are taken until ``q^(2n+1)`` is below 1e-17 (at most a million), so
    the product is exact to double precision for every b above 2e-5."""
    q = 1.0 - _b(b)
    terms = min(1_000_000, int(math.ceil(math.log(1e-17) / (2.0 * math.log(q)))) + 2)
    n = np.arange(terms, dtype=float)
    factors = (1.0 - q ** (2.0 * n + 2.0)) / (1.0 - q ** (2.0 * n + 1.0))
    return math.sqrt(2.0 / math.pi) * float(np.exp(np.sum(np.log(factors))))


def random_loss_throughput(a: float, b: float, rtt: ArrayLike, p: ArrayLike) -> np.ndarray | float:
    """Packets per second of AIMD(a, b) losing each packet with probability p (the fluid
    AIMD process with loss rate proportional to the window): ``m1(b) sqrt(a / p) / rtt``."""
    a, b = _a(a), _b(b)
    r, loss = _positive("rtt", rtt), _positive("p", p)
    return _out(random_loss_factor(b) * np.sqrt(a / loss) / r)


def random_loss_weight(a: float, b: float) -> float:
    """AIMD(a, b)'s throughput over TCP's under random loss at the same p and RTT:
    ``sqrt(a) m1(b) / m1(1/2)`` (eq. (3.5)'s counterpart for random loss)."""
    return math.sqrt(_a(a)) * random_loss_factor(b) / random_loss_factor(0.5)


def twr(throughput: ArrayLike, weight: ArrayLike, rtt: ArrayLike) -> np.ndarray:
    """Eq. (3.7): ``Twr = R T_J / D``, the throughput with the weight and the RTT taken out."""
    t = np.asarray(throughput, dtype=float)
    d = _positive("weight", weight)
    r = np.asarray(rtt, dtype=float)
    return np.asarray(r * t / d, dtype=float)


def k_limit(weight: float) -> float:
    """The largest K for which eq. (3.8) keeps ``weight`` positive: ``1 / (1 - D)``."""
    d = check_range("weight", weight, 0.0, 1.0, low_open=True, high_open=True)
    return 1.0 / (1.0 - d)


def weight_reduction(weight: ArrayLike, k: float) -> np.ndarray | float:
    """Fig. 3.3: how much eq. (3.8) takes from a weight D, ``(D - D^2) K`` (any K > 0, so
    that the thesis's range can be drawn)."""
    d = np.asarray(weight, dtype=float)
    k = check_range("k", k, 0.0, low_open=True)
    return _out((d - d * d) * k)


def reduced_weight(weight: ArrayLike, k: float) -> np.ndarray | float:
    """Eq. (3.8): ``D_new = D - (D - D^2) K`` (any K > 0; negative for K > 1 / (1 - D))."""
    d = np.asarray(weight, dtype=float)
    return _out(d - np.asarray(weight_reduction(d, k)))


def proportion_step(weights: ArrayLike, twrs: ArrayLike, k: float) -> np.ndarray:
    """One move of the proportion manager, eqs. (3.8) and (3.9): the subflow with the smallest
    Twr loses ``(D - D^2) K`` of its weight and the one with the largest gains it (the first
    such subflow on ties). If every Twr is equal (to :data:`TIE_TOLERANCE`) nothing moves.
    ``k`` must lie in :data:`K_RANGE`, where every weight stays in (0, 1)."""
    d = np.array(weights, dtype=float)
    t = np.asarray(twrs, dtype=float)
    if d.ndim != 1 or d.shape != t.shape or len(d) < 2:
        raise ValueError(
            f"weights={list(d)} and twrs={list(t)} must be two lists of equal length >= 2"
        )
    for i, value in enumerate(d):
        check_range(f"weights[{i}]", value, 0.0, 1.0, low_open=True, high_open=True)
    k = check_range("k", k, *K_RANGE, low_open=True)
    low, high = int(np.argmin(t)), int(np.argmax(t))
    if t[high] - t[low] <= TIE_TOLERANCE * max(abs(t[high]), abs(t[low]), 1e-300):
        return d
    moved = (d[low] - d[low] ** 2) * k
    d[low] -= moved
    d[high] += moved
    return d


def congestion_epoch_rtts(window: float, a: float, b: float) -> float:
    """Sec. 3.2: RTTs in one congestion epoch of AIMD(a, b) peaking at ``window`` packets,
    ``b W / a + 1`` (the climb from (1 - b) W back to W, and the round trip of the loss)."""
    w = check_range("window", window, 0.0, low_open=True)
    return _b(b) * w / _a(a) + 1.0


def pooling_fixed_point(capacities: tuple[float, float] = (8.0, 10.0)) -> float:
    """Fig. 4.1 in the fluid model: the weight D1 of s2's subflow on the first bottleneck at
    which both subflows have equal Twr. With s1 alone beside it on capacity c1 and s3 on c2,
    ``c1 / (1 + D1) = c2 / (2 - D1)`` gives ``D1 = (2 c1 - c2) / (c1 + c2)`` (1/3 for 8 and
    10 Mb/s), where every source gets ``(c1 + c2) / 3``. Outside ``c2 / 2 < c1 < 2 c2`` there
    is none in (0, 1) and a ValueError says so."""
    c1 = check_range("capacities[0]", capacities[0], 0.0, low_open=True)
    c2 = check_range("capacities[1]", capacities[1], 0.0, low_open=True)
    d1 = (2.0 * c1 - c2) / (c1 + c2)
    if not 0.0 < d1 < 1.0:
        raise ValueError(
            f"capacities={capacities!r}: no fixed point in (0, 1) (needs c2/2 < c1 < 2 c2)"
        )
    return d1


def shared_fixed_interval(
    capacity: float = 30.0, spare: tuple[float, float] = (4.0, 12.0)
) -> tuple[float, float]:
    """Figs. 3.1-3.2 in the fluid model: the weights D1 (D2 = 1 - D1) at which neither subflow
    is held below its share of the shared link by its disjoint link, so both have the TCP
    flow's Twr and the bundle gets half the link: ``D_i C / 2 <= s_i``, that is
    ``1 - 2 s2 / C <= D1 <= 2 s1 / C`` ([0.2, 0.267] for 30, 4 and 12 Mb/s). A ValueError if
    the disjoint links are too thin for any weights to do it (``s1 + s2 < C / 2``)."""
    c = check_range("capacity", capacity, 0.0, low_open=True)
    s1 = check_range("spare[0]", spare[0], 0.0, low_open=True)
    s2 = check_range("spare[1]", spare[1], 0.0, low_open=True)
    low, high = max(0.0, 1.0 - 2.0 * s2 / c), min(1.0, 2.0 * s1 / c)
    if low > high:
        raise ValueError(f"spare={spare!r}: the disjoint links cannot carry half of {c:g}")
    return low, high
