"""TameParallelTCP (Lu et al. 2005, Section V): how many parallel connections to open.

:func:`tame_parallel_tcp` sends two probes (``probe(n)`` returns the throughput measured with
n parallel connections), fits the partial order-2 model of ``p_n RTT_n^2`` (eqs. 7, 13-14 of
:mod:`tcplab.theory.lu`), and binary-searches the largest n whose predicted impact on each
cross connection (eq. 18, against one connection) stays at or under ``max_impact``. Like the
paper it also stops adding connections once one more would raise the predicted throughput by
less than ``min_gain`` (relative). It returns n, the predicted throughput and impact there,
the fitted curve and the probes it sent.

A probe can come from anywhere: the packet model (:class:`PacketProbe`, one of the paper's
six scenarios), a recorded table (:func:`table_probe`), or a real transfer
(:func:`transfer_probe`, n TCP connections reading from a server for a few seconds;
:func:`serve_bytes` is such a server, for a test on this machine); they live in
:mod:`tcplab.probes`. :func:`search` is the search alone, on a fit, for the measured advisor
(:mod:`tcplab.advisor`), which decides on its impact band.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from .checks import check_int, check_range
from .impact_band import ASSUMED_RUN_SPREAD, Box, admits_linear, assumed_box, linear_share
from .probes import PacketProbe, serve_bytes, table_probe, transfer_probe
from .theory.lu import Fit, fit_probes

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "OutOfModel",
    "PacketProbe",
    "TameResult",
    "domain_problem",
    "is_prefix",
    "largest_true",
    "measure",
    "probe_levels",
    "search",
    "serve_bytes",
    "table_probe",
    "tame_parallel_tcp",
    "transfer_probe",
]

Probe = Callable[[int], float]

#: the fewest-to-most probe ratio below which two probes are "too close" to extrapolate from
#: (the chapter's elasticity analysis: (1, 2) amplifies a probe's error several-fold at n = 31)
CLOSEST_PROBES = 4.0

UNCONGESTED = (
    "the path looks uncongested or window-limited: the loss model does not apply; "
    "re-probe with larger n or check the socket buffer"
)


class OutOfModel(ValueError):
    """The probes leave the model's domain (a' <= 0 or b' <= 0, throughput not rising, probes
    too close, a non-monotone search): the message says what the probes imply."""


def _pairs_text(probes: Mapping[int, float]) -> str:
    return ", ".join(f"{n}:{probes[n]:.6g}" for n in sorted(probes))


def domain_problem(fit: Fit, probes: Mapping[int, float], box: Box | None = None) -> str | None:
    """Why ``fit`` (fitted to ``probes`` {n: throughput}) cannot advise, as one line, or None.

    The model needs throughput rising with n (a probe at more flows measuring no more than one
    at fewer means a saturated path or noise), probes far enough apart (most/fewest flows
    >= CLOSEST_PROBES), and a positive profile p'_n = a n^2 + b: a' <= 0 means throughput grows
    at least linearly (no shared loss to model), b' <= 0 that one connection's term is not a
    loss rate. Around the a' = 0 edge it keeps a margin: where some corner of the probes' box
    (``box``: their 95% intervals from repeats; None: one run each, with the assumed spread of
    :mod:`tcplab.impact_band`) grows at least linearly, the probes cannot tell a loss-limited
    path from a window-limited or uncongested one, and the advice would rest on noise."""
    levels = sorted(probes)
    low, high = levels[0], levels[-1]
    text = _pairs_text(probes)
    if probes[high] <= probes[low]:
        return (
            f"probes {text}: throughput does not rise from {low} to {high} flows: the path is "
            "saturated by one connection or the probes are noise; the advisor has nothing to "
            "trade (one connection is the answer), re-probe longer to be sure"
        )
    if high / low < CLOSEST_PROBES:
        return (
            f"probes {text}: {low} and {high} flows are too close (ratio {high / low:.3g} < "
            f"{CLOSEST_PROBES:g}): the fit amplifies their noise; probe at 1 and about 10 flows"
        )
    if not fit.a > 0:
        return f"probes {text} grow at least linearly (a' = {fit.a:.3g} <= 0): {UNCONGESTED}"
    if not fit.b > 0:
        return (
            f"probes {text} give b' = {fit.b:.3g} <= 0 (more than linear growth at few flows): "
            f"{UNCONGESTED}"
        )
    box = assumed_box(probes) if box is None else box
    if admits_linear(box, fit.model):
        within = (
            "within their 95% intervals" if box.measured else
            f"with one run each (taken to be within +-{1.96 * ASSUMED_RUN_SPREAD:.0%}, an "
            f"assumed {ASSUMED_RUN_SPREAD:.0%} spread per run; repeats measure it)"
        )  # fmt: skip
        return (
            f"probes {text}: {high} flows carry {linear_share(probes):.3g} of {high / low:g} "
            f"times the throughput of {low}, and {within} that could be linear growth: "
            "undecidable, since a window-limited or uncongested path (the book's scenario 5: "
            f"no impact at all) looks the same up to {high} flows and the probes cannot say "
            "where that ends; re-probe at larger n or with more repeats, or check the socket "
            "buffer"
        )
    return None


def is_prefix(flags: Sequence[bool]) -> bool:
    """True when ``flags`` is some True values followed only by False ones: the precondition
    of :func:`largest_true`'s binary search."""
    pairs = zip(flags[:-1], flags[1:], strict=True)
    return not any(later and not earlier for earlier, later in pairs)


@dataclass(frozen=True)
class TameResult:
    """The advisor's answer: ``flows`` connections, their predicted ``throughput`` (the
    probes' unit) and predicted ``impact`` (relative drop of each cross connection's
    throughput against one connection), the ``fit`` behind them, the ``probes`` sent
    ({n: throughput}), and what stopped the search: ``impact``, ``gain`` or ``limit``.
    ``monotone`` says whether the binary search's precondition held (impact and gain tests
    true on a prefix of the candidates), checked on every candidate. ``decided_on`` says
    which impact the limit was applied to: the point estimate, or the band's ``upper`` edge;
    ``point_flows`` is the choice the point estimate alone would make."""

    flows: int
    throughput: float
    impact: float
    fit: Fit
    probes: dict[int, float]
    stopped_by: str
    max_flows: int
    monotone: bool = True
    decided_on: str = "point"
    point_flows: int | None = None

    def curve(self) -> pd.DataFrame:
        """The fitted curve: (flows, predicted throughput, predicted impact) for 1..max_flows."""
        import pandas as pd  # noqa: PLC0415 - here: the command line answers without pandas

        n = np.arange(1, self.max_flows + 1)
        return pd.DataFrame(
            {"flows": n, "throughput": self.fit.throughput(n), "impact": self.fit.impact(n)}
        )


def largest_true(predicate: Callable[[int], bool], candidates: Sequence[int]) -> int | None:
    """Binary search: the last candidate for which ``predicate`` holds, when it holds on a
    prefix of the sorted ``candidates`` (None if it holds for none)."""
    low, high = 0, len(candidates)  # predicate holds below low, fails from high on
    while low < high:
        mid = (low + high) // 2
        if predicate(candidates[mid]):
            low = mid + 1
        else:
            high = mid
    return candidates[low - 1] if low > 0 else None


def tame_parallel_tcp(
    probe: Probe,
    max_impact: float,
    *,
    probes: Sequence[int] = (1, 10),
    max_flows: int = 31,
    min_gain: float = 0.01,
    model: str = "partial2",
    candidates: Sequence[int] | None = None,
    guard: bool = False,
) -> TameResult:
    """Lu et al.'s TameParallelTCP(): the largest number of parallel connections (among
    ``candidates``, default 1..``max_flows``) whose predicted impact on cross traffic is at
    most ``max_impact`` (a fraction in (0, 1)), stopping earlier where one more connection
    would add less than ``min_gain`` (a fraction) of predicted throughput.

    ``probe(n)`` measures the throughput of n parallel connections; it is called once for
    each of ``probes`` (two different numbers of connections, three for ``model='full2'``).

    With ``guard`` it refuses (:class:`OutOfModel`, one line saying what the probes imply)
    when the fit leaves the model's domain (:func:`domain_problem`, one run per probe) or the
    binary search's monotonicity precondition fails; without it (the book's analyses of
    simulated runs) it answers anyway and records the precondition in ``monotone``.
    """
    check_range("max_impact", max_impact, 0.0, 1.0, low_open=True, high_open=True)
    measured = {n: measure(probe, n) for n in probe_levels(probes)}
    fit = fit_probes(measured, model)
    problem = domain_problem(fit, measured) if guard else None
    if problem:
        raise OutOfModel(problem)
    return search(
        fit, max_impact, max_flows=max_flows, min_gain=min_gain, candidates=candidates,
        guard=guard,
    )  # fmt: skip


def probe_levels(probes: Sequence[int]) -> list[int]:
    """The probes' numbers of flows, checked: whole numbers >= 1, no two alike."""
    levels = [check_int("probes", n, 1) for n in probes]
    if len(set(levels)) != len(levels):
        raise ValueError(f"probes={list(probes)!r}: two probes at the same number of flows")
    return levels


def measure(probe: Probe, n: int) -> float:
    """``probe(n)``, checked: a finite positive throughput."""
    value = probe(n)
    check_range(f"probe({n})", value, 0.0, low_open=True)
    if not math.isfinite(value):
        raise ValueError(f"probe({n})={value!r} is not a finite throughput")
    return float(value)


def search(
    fit: Fit,
    max_impact: float,
    *,
    max_flows: int = 31,
    min_gain: float = 0.01,
    candidates: Sequence[int] | None = None,
    guard: bool = False,
    bound: Callable[[int], float] | None = None,
) -> TameResult:
    """The paper's binary search over the candidates on ``fit``: the largest n whose impact
    is at most ``max_impact``, and no further than the marginal-gain stop (``min_gain``, the
    predicted throughput's relative rise per added connection, on average over a gap between
    candidates). The limit applies to ``bound(n)`` when given (the impact band's upper
    edge), else to the fit's impact. ``guard``: refuse (:class:`OutOfModel`) when the impact
    or gain test does not hold on a prefix of the candidates (the search's precondition)."""
    impact_limit = check_range("max_impact", max_impact, 0.0, 1.0, low_open=True, high_open=True)
    gain_floor = check_range("min_gain", min_gain, 0.0)
    max_flows = check_int("max_flows", max_flows, 1)
    measured = dict(fit.probes)
    pool = sorted({check_int("candidates", n, 1) for n in (candidates or range(1, max_flows + 1))})

    def under(curve: Callable[[int], float]) -> Callable[[int], bool]:
        def test(n: int) -> bool:
            impact = curve(n)
            return bool(np.isfinite(impact) and impact <= impact_limit)

        return test

    point = under(lambda n: float(fit.impact(n)))
    within = point if bound is None else under(bound)

    def worth_it(n: int) -> bool:  # is n still a gain over the candidate before it?
        i = pool.index(n)
        if i == 0:
            return bool(np.isfinite(fit.throughput(n)))
        before, after = float(fit.throughput(pool[i - 1])), float(fit.throughput(n))
        if not (np.isfinite(before) and np.isfinite(after)):
            return False
        steps = n - pool[i - 1]
        return (after / before) ** (1.0 / steps) - 1.0 >= gain_floor

    monotone = all(is_prefix([test(n) for n in pool]) for test in {within, point, worth_it})
    if guard and not monotone:
        raise OutOfModel(
            f"probes {_pairs_text(measured)}: the predicted impact or gain is not monotone in n "
            "over the candidates, so the binary search does not apply; " + UNCONGESTED
        )
    by_impact = largest_true(within, pool) or pool[0]
    by_gain = largest_true(worth_it, pool) or pool[0]
    chosen = min(by_impact, by_gain)
    if by_impact == by_gain == pool[-1]:
        reason = "limit"
    else:
        reason = "gain" if by_gain < by_impact else "impact"
    return TameResult(
        flows=int(chosen),
        throughput=float(fit.throughput(chosen)),
        impact=float(fit.impact(chosen)),
        fit=fit,
        probes=measured,
        stopped_by=reason,
        max_flows=max(max_flows, pool[-1]),
        monotone=monotone,
        decided_on="point" if bound is None else "upper",
        point_flows=int(min(largest_true(point, pool) or pool[0], by_gain)),
    )
