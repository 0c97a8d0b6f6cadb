"""TameParallelTCP on a real network: measured probes in, advice and its limits out.

:func:`advise` runs Lu et al.'s advisor (:func:`tcplab.tame.tame_parallel_tcp`) with its
guards on: it refuses (:class:`~tcplab.tame.OutOfModel`, one line saying what the probes
imply) when the fit leaves the model's domain or its margin (:func:`tcplab.tame.domain_problem`),
unless ``force``. A probe is either recorded numbers ({n: throughput} or {n: [repeats]}) or a
function of n such as :class:`~tcplab.iperf3.Iperf3Probe` (``iperf3 -c HOST -P n -t T -O W
-J``, its JSON read against a schema; repeated K times). With repeats it gives each probe's
spread and a band on the predicted throughput and on the impact (:mod:`tcplab.impact_band`),
and by default chooses n on the impact band's upper edge (``decide="upper"``; "point": on the
point estimate, as the paper does); where the band leaves some n undecided it says how many
repeats would decide them. ``validate`` measures once more at the chosen n and reports the
prediction's error.

What the numbers mean (:data:`ASSUMPTIONS`): the impact is the relative drop of each cross
flow's throughput when the transfer opens n connections instead of one; it assumes
loss-limited, Reno-like cross traffic sharing one loss rate with the transfer (eqs. 16-18).

The command-line layer (:func:`add_tame_arguments`, :func:`run_measured`,
:func:`add_predict_arguments`, :func:`predict_impacts`) lives in :mod:`tcplab.advisor_cli`.
Nothing here starts a process at import (the chapter's panel imports it in the browser).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .checks import check_choice, check_int, check_range
from .impact_band import (
    ASSUMED_RUN_SPREAD,
    Box,
    impact_band,
    measured_box,
    repeats_needed,
    t_quantile,
    throughput_band,
    upper_confidence,
)
from .iperf3 import Iperf3Probe, ProbeError, parse_host, parse_iperf3
from .tame import OutOfModel, TameResult, domain_problem, measure, probe_levels, search
from .theory.lu import fit_probes

__all__ = [
    "ASSUMPTIONS",
    "DECIDE",
    "Advice",
    "Iperf3Probe",
    "OutOfModel",
    "ProbeError",
    "advise",
    "parse_host",
    "parse_iperf3",
    "parse_pairs",
    "prediction_band",
    "t_quantile",
]

ASSUMPTIONS = (
    "impact = relative drop of each cross flow's throughput when the transfer uses n "
    "connections instead of one; it assumes loss-limited Reno-like cross traffic sharing one "
    "loss rate with the transfer (CUBIC cross traffic, rate ~ p^-3/4, loses more than this "
    "predicts; BBR cross traffic, not loss-driven, less; window-limited cross traffic loses "
    "nothing)"
)
PROBE_HYGIENE = (
    "probe for several congestion epochs (10-30 s on a wide-area path) and omit the first "
    "seconds (-O): slow start ramps n connections n times faster than one and would bias the "
    "ratio of the probes upward"
)
#: what the impact limit is applied to: the band's upper edge (the default) or the point
DECIDE = ("upper", "point")
MODEL = "partial2"  # the measured advisor's model (eq. 7, two probes)


def parse_pairs(text: str | Sequence[str], name: str = "probes") -> dict[int, list[float]]:
    """``"1:100 10:800 10:760"`` (or a list of ``N:BW``) -> {1: [100.0], 10: [800.0, 760.0]};
    a repeated N adds a repeat. Bad entries: a ValueError naming ``name`` and the entry."""
    parts = text.replace(",", " ").split() if isinstance(text, str) else list(text)
    pairs: dict[int, list[float]] = {}
    for part in parts:
        n_text, sep, bw_text = part.partition(":")
        try:
            n, bw = int(n_text), float(bw_text)
        except ValueError:
            raise ValueError(f"{name}: {part!r} is not N:THROUGHPUT (flows N >= 1)") from None
        if not sep or n < 1:
            raise ValueError(f"{name}: {part!r}: flows N={n_text} must be in [1, inf)")
        if not (bw > 0 and math.isfinite(bw)):
            raise ValueError(f"{name}: {part!r}: throughput={bw_text} must be in (0, inf)")
        pairs.setdefault(n, []).append(bw)
    if len(pairs) < 2:
        raise ValueError(f"{name}: {len(pairs)} numbers of flows; give two, e.g. 1:100 10:800")
    return pairs


@dataclass(frozen=True)
class Advice:
    """The advisor's answer with what it rests on: the search's ``result``; ``predicted``
    throughput and ``impact`` at each n; ``samples`` (every probe measurement by n), their
    ``spread`` (sample standard deviation, None with one run), the ``band`` on the predicted
    throughput and the ``impact_band`` (None without repeats); ``decide`` (asked) and
    ``result.decided_on`` (used: "point" without a band); ``undecided``, the n the point
    estimate allows and the band's upper edge does not (first, last), and the
    ``repeats_needed`` per probe to decide the last of them; the ``warning`` when forced out
    of the model's domain; and ``validation`` (measured at the chosen n) or None."""

    result: TameResult
    max_impact: float
    predicted: dict[int, float]
    impact: dict[int, float]
    samples: dict[int, list[float]]
    spread: dict[int, float | None]
    band: dict[int, tuple[float, float]] | None
    warning: str | None
    validation: dict[str, Any] | None
    unit: str
    impact_band: dict[int, tuple[float, float]] | None = None
    decide: str = "upper"
    undecided: tuple[int, int] | None = None
    repeats_needed: int | None = None

    @property
    def upper_impact(self) -> float | None:
        """The impact band's upper edge at the chosen n (None without a band)."""
        return None if self.impact_band is None else self.impact_band[self.result.flows][1]

    def summary(self) -> dict[str, Any]:
        """One JSON-ready object; the fields of ``tcplab tame``'s simulator run where they mean
        the same (flows, predicted_impact, stopped_by, a, b, probes), NaN as None."""
        r = self.result
        levels = len(r.probes)

        def pairs(band: dict[int, tuple[float, float]] | None) -> dict[str, Any] | None:
            if band is None:
                return None
            return {str(n): [_finite(lo), _finite(hi)] for n, (lo, hi) in band.items()}

        return {
            "flows": r.flows,
            "max_impact": self.max_impact,
            "predicted_throughput": _finite(r.throughput),
            "predicted_impact": _finite(r.impact),
            "predicted_impact_upper": self.upper_impact,
            "decide": self.decide,
            "decided_on": r.decided_on,
            "point_flows": r.point_flows,
            "undecided": None if self.undecided is None else list(self.undecided),
            "repeats_needed": self.repeats_needed,
            "stopped_by": r.stopped_by,
            "a": r.fit.a,
            "b": r.fit.b,
            "probes": {str(n): bw for n, bw in sorted(r.probes.items())},
            "samples": {str(n): v for n, v in sorted(self.samples.items())},
            "spread": {str(n): v for n, v in sorted(self.spread.items())},
            "assumed_run_spread": ASSUMED_RUN_SPREAD if self.band is None else None,
            "predicted": {str(n): _finite(v) for n, v in self.predicted.items()},
            "impact": {str(n): _finite(v) for n, v in self.impact.items()},
            "band": pairs(self.band),
            "band_coverage": None if self.band is None else 0.95**levels,
            "impact_band": pairs(self.impact_band),
            "impact_upper_confidence": None
            if self.impact_band is None
            else upper_confidence(levels),
            "monotone": r.monotone,
            "warning": self.warning,
            "validation": self.validation,
            "unit": self.unit,
            "assumptions": ASSUMPTIONS,
        }


def _finite(value: float) -> float | None:
    return float(value) if math.isfinite(value) else None


def _gather(
    probe: Callable[[int], float] | Mapping[int, float | Sequence[float]],
    probes: Sequence[int] | None,
) -> dict[int, list[float]]:
    """Every measurement by probe level: read from recorded numbers, or made by calling the
    probe once per level (its ``samples`` attribute, if any, holds the runs behind a mean)."""
    if isinstance(probe, Mapping):
        recorded = {
            check_int("flows", n, 1): [float(v) for v in (vs if isinstance(vs, Sequence) else [vs])]
            for n, vs in probe.items()
        }
        for n, values in recorded.items():
            if not values:
                raise ValueError(f"probes: no measurement at flows={n}")
        levels = probe_levels(probes if probes is not None else sorted(recorded))
        for n in levels:
            if n not in recorded:
                raise ValueError(f"flows={n} is not in the recorded probes ({sorted(recorded)})")
            for value in recorded[n]:
                check_range(f"probe({n})", value, 0.0, low_open=True)
                if not math.isfinite(value):
                    raise ValueError(f"probe({n})={value!r} is not a finite throughput")
        return {n: recorded[n] for n in levels}
    samples = {}
    for n in probe_levels(probes if probes is not None else [1, 10]):
        value = measure(probe, n)
        samples[n] = list(getattr(probe, "samples", {}).get(n, [value]))
    return samples


def advise(
    probe: Callable[[int], float] | Mapping[int, float | Sequence[float]],
    max_impact: float,
    *,
    probes: Sequence[int] | None = None,
    max_flows: int = 31,
    min_gain: float = 0.01,
    force: bool = False,
    validate: bool = False,
    unit: str = "",
    decide: str = "upper",
    candidates: Sequence[int] | None = None,
) -> Advice:
    """The advisor with its guards on. ``probe`` is a function of n (e.g. :class:`Iperf3Probe`)
    probed at ``probes`` (default 1 and 10), or the measurements {n: value or [repeats]}
    (``probes`` default: every n given). Refuses with :class:`OutOfModel` outside the model's
    domain or its margin unless ``force`` (then ``warning`` says why the numbers are
    suspect). ``decide``: apply ``max_impact`` to the impact band's upper edge ("upper", when
    there are repeats) or to the point estimate ("point"). ``candidates``: the numbers of
    flows to choose from (default 1..``max_flows``). ``validate`` (a probe function only)
    measures once more at the chosen n."""
    check_choice("decide", decide, DECIDE)
    check_range("max_impact", max_impact, 0.0, 1.0, low_open=True, high_open=True)
    max_flows = check_int("max_flows", max_flows, 1)
    if validate and isinstance(probe, Mapping):
        raise ValueError("validate=True needs a probe function, not recorded numbers")
    samples = _gather(probe, probes)
    means = {n: float(np.mean(v)) for n, v in samples.items()}
    fit = fit_probes(means, MODEL)
    box = measured_box(samples)
    problem = domain_problem(fit, means, box)
    lossless = getattr(probe, "lossless", None)
    if problem is None and callable(lossless):
        problem = lossless(min(means))
    if problem and not force:
        raise OutOfModel(problem)
    last = max(max_flows, *(candidates or [1]))
    flows = list(range(1, last + 1))
    impacts = None if box is None else impact_band(box, MODEL, flows)
    bound: Callable[[int], float] | None = None
    if decide == "upper" and impacts is not None:
        bound = {n: high for n, (_, high) in impacts.items()}.__getitem__
    result = search(
        fit, max_impact, max_flows=max_flows, min_gain=min_gain, candidates=candidates,
        guard=not force, bound=bound,
    )  # fmt: skip
    warning = problem
    if force and warning is None and not result.monotone:
        warning = "the predicted impact or gain is not monotone in n: binary search unsure"
    undecided, needed = _undecided(result, impacts, samples, max_impact, candidates, flows)
    shown = range(1, result.max_flows + 1)
    validation = None
    if validate:
        measure_once = getattr(probe, "once", probe)
        measured = float(measure_once(result.flows))  # type: ignore[operator]
        band = None if box is None else throughput_band(box, MODEL, [result.flows])
        validation = {
            "flows": result.flows,
            "measured": measured,
            "predicted": result.throughput,
            "error": measured / result.throughput - 1.0,
            "inside_band": None if band is None
            else bool(band[result.flows][0] <= measured <= band[result.flows][1]),
        }  # fmt: skip
    return Advice(
        result=result,
        max_impact=max_impact,
        predicted=fit.predict(shown),
        impact={n: float(fit.impact(n)) for n in shown},
        samples=samples,
        spread={n: float(np.std(v, ddof=1)) if len(v) > 1 else None for n, v in samples.items()},
        band=None if box is None else throughput_band(box, MODEL, list(shown)),
        warning=warning,
        validation=validation,
        unit=unit,
        impact_band=None if impacts is None else {n: impacts[n] for n in shown},
        decide=decide,
        undecided=undecided,
        repeats_needed=needed,
    )


def _undecided(
    result: TameResult,
    impacts: dict[int, tuple[float, float]] | None,
    samples: Mapping[int, Sequence[float]],
    limit: float,
    candidates: Sequence[int] | None,
    flows: Sequence[int],
) -> tuple[tuple[int, int] | None, int | None]:
    """The candidates the point estimate allows and the band's upper edge does not, (first,
    last), and the runs per probe that would bring the last one's upper edge within the
    limit; (None, None) when the band and the point agree."""
    if impacts is None or result.point_flows is None:
        return None, None
    pool = sorted(set(candidates or flows))
    upper_choice = max(
        [n for n in pool if impacts[n][1] <= limit and n <= result.point_flows] or [pool[0]]
    )
    if upper_choice >= result.point_flows:
        return None, None
    first = min(n for n in pool if n > upper_choice)
    needed = repeats_needed(samples, MODEL, result.point_flows, limit)
    return (first, result.point_flows), needed


def prediction_band(
    samples: Mapping[int, Sequence[float]], model: str, flows: Sequence[int]
) -> dict[int, tuple[float, float]] | None:
    """The range of the predicted throughput at each n over the corners of the probes' 95%
    t intervals (mean +- t s / sqrt(k)); None unless every probe has k >= 2 repeats.

    The prediction n / sqrt(p'_n) is monotone in each probe's y = n^2 / BW^2 (p'_n is linear
    in the y's), so its extremes over the box are at corners: when every interval covers its
    probe's true mean (probability 0.95^L for L independent probes, 90% for two) the band
    covers the model's prediction from the true means."""
    box: Box | None = measured_box(samples)
    return None if box is None else throughput_band(box, model, list(flows))
