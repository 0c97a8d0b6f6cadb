"""The square-root laws as the packet tests use them: the idealised constant, and how far a
packet TCP may stray from it.

Idealised TCP (a fluid window growing one packet per RTT, halved the instant a loss happens,
losses independent with probability p per packet) has a time-average window of exactly
``BERNOULLI_C / sqrt(p)``: from d/dt E[W^s] = 0 the moments obey
m(s + 1) = s m(s - 1) / (p (1 - 2^-s)), solved by
m(s) = (2/p)^(s/2) Gamma((s+1)/2) / Gamma(1/2) * prod_j (1 - 2^(-s-1-2j)) / prod_j (1 - 2^(-1-2j)),
so C = sqrt(2/pi) prod_k (1 - 4^-k) / prod_k (1 - 2^(1-2k)) = 1.3098 (Ott, Kemperman and
Mathis 1996). Mathis et al.'s sqrt(3/2) = 1.2247 is the constant for periodic losses.

A packet TCP departs from the idealised one at first order in sqrt(p): it spends about one
RTT per loss event in fast recovery without additive increase (a fraction p W of the RTTs,
which lowers the mean window by about p W / 2), and its window counts whole packets (about
1 / (2 W)). Drops that land in a window already in recovery merge into one halving, and the
loss is seen an RTT late; both raise the rate by terms of the same order. We take the size of
the first two, :func:`first_order_departure`, as the allowance on either side of a law: an
approximation statement made before any run, not a number read off the model.
"""

from __future__ import annotations

import math

__all__ = ["BERNOULLI_C", "PERIODIC_C", "first_order_departure", "window_at"]


def _bernoulli_constant(terms: int = 60) -> float:
    numerator = math.prod(1 - 4.0**-k for k in range(1, terms))
    denominator = math.prod(1 - 2.0 ** (1 - 2 * k) for k in range(1, terms))
    return math.sqrt(2 / math.pi) * numerator / denominator


#: E[W] sqrt(p) of idealised AIMD(1, 1/2) under independent losses
BERNOULLI_C = _bernoulli_constant()
#: Mathis et al.'s constant, periodic losses: sqrt(3/2)
PERIODIC_C = math.sqrt(1.5)


def window_at(p: float, a: float = 1.0) -> float:
    """Mean window (packets) of idealised AIMD(a, 1/2) under loss probability p: the shape of
    the window process does not depend on a once W is measured in units of sqrt(a / p)."""
    return BERNOULLI_C * math.sqrt(a / p)


def first_order_departure(p: float, window: float) -> float:
    """Relative size of a packet TCP's first-order departures from the square-root law at loss
    probability ``p`` and mean window ``window``: (p W + 1 / W) / 2."""
    return (p * window + 1 / window) / 2
