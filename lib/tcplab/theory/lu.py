"""Lu, Qiao, Dinda and Bustamante (2005): parallel TCP throughput from two probes, and its
impact on cross traffic.

Equation numbers are those of the paper's full version (one higher than the conference
version's from eq. 2 on). One TCP connection sends ``MSS / (RTT sqrt(2bp/3))`` (eq. 1, Mathis
et al.: :func:`tcplab.theory.loss.mathis_rate`), or with time-outs eq. 2 (Padhye et al.:
:func:`tcplab.theory.loss.padhye_rate`). n connections that share a loss rate ``p_n`` and an
RTT ``RTT_n`` send n times as much, times a time-out factor ``c1`` (eq. 4). The unknown is how
``p_n RTT_n^2`` grows with n: quadratically in the total number of connections (eq. 5, after
Morris and Qiu et al.), so a full order-2 polynomial in n (eq. 6), or, dropping its linear term,
the partial order-2 polynomial ``a n^2 + b`` (eq. 7), or a line ``a n + b`` (eq. 8). In units
where ``C MSS = 1`` (eq. 9) the throughput is ``n / sqrt(p'_n)`` (eq. 10), so two probes
``(n1, BW1)``, ``(n2, BW2)`` give the two parameters by solving a linear system in
``y = n^2 / BW^2`` (eqs. 11-14). If every connection, cross traffic included, sees the same loss
rate and the RTT stays put, each cross connection's throughput changes by the factor
``sqrt(p_n1 / p_n2)`` when the parallel connections go from n1 to n2 (eqs. 16-18).

Throughputs are in any unit (the probes'); the fitted ``a``, ``b`` are in that unit's inverse
square. Where a fitted profile ``p'_n`` is not positive the model predicts nothing (NaN).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from ..checks import check_choice, check_int, check_range
from .loss import mathis_rate, padhye_rate

__all__ = [
    "MODELS",
    "PROBES_NEEDED",
    "Fit",
    "basis",
    "cross_impact",
    "fit_probes",
    "hacker_bound",
    "impact_from_loss",
    "impact_from_rates",
    "mathis_rate",
    "padhye_rate",
    "parallel_throughput",
    "partial_fit",
    "probe_elasticity",
    "profile",
    "relative_error",
]

#: the models of p_n RTT_n^2 against n: eq. 6 (full order 2), eq. 7 (partial), eq. 8 (linear)
MODELS = ("full2", "partial2", "linear")
#: the probes each model needs (its number of parameters)
PROBES_NEEDED = {"full2": 3, "partial2": 2, "linear": 2}


def hacker_bound(losses: ArrayLike, rtt: float, mss: float = 1.0) -> float:
    """Eq. 3, Hacker et al.'s bound on n connections' throughput, as the paper writes it:
    ``MSS / RTT * sum_i 1 / sqrt(p_i)`` (each connection's Mathis rate without the constant
    ``sqrt(3 / 2b)``), in ``mss`` units per second."""
    p = np.atleast_1d(np.asarray(losses, dtype=float))
    for i, value in enumerate(p):
        check_range(f"losses[{i}]", value, 0.0, 1.0, low_open=True)
    rtt = check_range("rtt", rtt, 0.0, low_open=True)
    mss = check_range("mss", mss, 0.0, low_open=True)
    return float(mss / rtt * np.sum(1.0 / np.sqrt(p)))


def parallel_throughput(
    flows: ArrayLike,
    loss: ArrayLike,
    rtt: ArrayLike,
    mss: float = 1.0,
    c1: float = 1.0,
    acked: float = 1.0,
) -> np.ndarray | float:
    """Eq. 4: ``n`` connections sharing loss rate ``p_n`` and round trip ``RTT_n``:
    ``MSS n c1 / (RTT_n sqrt(p_n) sqrt(2b/3))``, that is n times Mathis's rate (eq. 1) times
    the time-out factor ``c1`` in (0, 1], in ``mss`` units per second."""
    n = np.asarray(flows, dtype=float)
    if np.any(n < 1):
        raise ValueError(f"flows={flows!r} must be at least 1")
    c1 = check_range("c1", c1, 0.0, 1.0, low_open=True)
    mss = check_range("mss", mss, 0.0, low_open=True)
    p, r = np.broadcast_arrays(np.asarray(loss, dtype=float), np.asarray(rtt, dtype=float))
    rates = np.array(
        [mathis_rate(pi, ri, acked) for pi, ri in zip(p.ravel(), r.ravel(), strict=True)]
    ).reshape(p.shape)
    result = mss * n * c1 * rates
    return float(result) if np.ndim(result) == 0 else result


def profile(model: str, flows: ArrayLike, params: Sequence[float]) -> np.ndarray | float:
    """``p'_n`` of eq. 9 under ``model``: ``a n^2 + b n + c`` (full2: params a, b, c),
    ``a n^2 + b`` (partial2: a, b) or ``a n + b`` (linear: a, b)."""
    check_choice("model", model, MODELS)
    n = np.asarray(flows, dtype=float)
    if len(params) != PROBES_NEEDED[model]:
        raise ValueError(f"params={list(params)!r}: model={model!r} has {PROBES_NEEDED[model]}")
    columns = _basis(model, n)
    value = sum(p * column for p, column in zip(params, columns, strict=True))
    return float(value) if np.ndim(value) == 0 else np.asarray(value)


def basis(model: str, flows: ArrayLike) -> np.ndarray:
    """The columns of ``model``'s profile at each n (rows): ``p'_n = basis @ params``."""
    check_choice("model", model, MODELS)
    return np.column_stack(_basis(model, np.atleast_1d(np.asarray(flows, dtype=float))))


def _basis(model: str, n: np.ndarray) -> list[np.ndarray]:
    if model == "full2":
        return [n**2, n, np.ones_like(n)]
    if model == "partial2":
        return [n**2, np.ones_like(n)]
    return [n, np.ones_like(n)]


def partial_fit(n1: int, bw1: float, n2: int, bw2: float) -> tuple[float, float]:
    """Eqs. 13-14, literally: the partial model's ``a'`` and ``b'`` from two probes."""
    n1, n2 = _probe_level("n1", n1), _probe_level("n2", n2)
    if n1 == n2:
        raise ValueError(f"n2={n2} equals n1: the two probes need different numbers of flows")
    bw1 = check_range("bw1", bw1, 0.0, low_open=True)
    bw2 = check_range("bw2", bw2, 0.0, low_open=True)
    a = (n2**2 / bw2**2 - n1**2 / bw1**2) / (n2**2 - n1**2)
    b = n1**2 / bw1**2 - a * n1**2
    return a, b


def _probe_level(name: str, n: int) -> int:
    return check_int(name, n, 1)


@dataclass(frozen=True)
class Fit:
    """A fitted model of ``p'_n`` (eq. 9) and what it predicts.

    ``params`` are (a, b) for partial2 and linear, (a, b, c) for full2, in the probes'
    throughput unit to the power -2; ``probes`` the (n, throughput) pairs it was fitted to.
    """

    model: str
    params: tuple[float, ...]
    probes: tuple[tuple[int, float], ...]

    @property
    def a(self) -> float:
        return self.params[0]

    @property
    def b(self) -> float:
        return self.params[1]

    def profile(self, flows: ArrayLike) -> np.ndarray | float:
        """``p'_n``, proportional to ``p_n RTT_n^2``."""
        return profile(self.model, flows, self.params)

    def throughput(self, flows: ArrayLike) -> np.ndarray | float:
        """Eq. 10: ``n / sqrt(p'_n)`` in the probes' unit; NaN where ``p'_n <= 0``."""
        n = np.asarray(flows, dtype=float)
        value = np.asarray(self.profile(n), dtype=float)
        with np.errstate(invalid="ignore", divide="ignore"):
            result = np.where(value > 0, n / np.sqrt(np.where(value > 0, value, 1.0)), np.nan)
        return float(result) if result.ndim == 0 else result

    def impact(self, flows: ArrayLike, base: int = 1) -> np.ndarray | float:
        """Eq. 18: the relative drop of each cross connection's throughput when the parallel
        connections go from ``base`` to ``flows``: ``1 - sqrt(p'_base / p'_n)``; NaN where the
        profile is not positive."""
        return cross_impact(self.profile(base), self.profile(flows))

    def predict(self, flows: Iterable[int]) -> dict[int, float]:
        """The predicted throughput at each number of flows."""
        levels = [int(n) for n in flows]
        values = np.atleast_1d(self.throughput(levels))
        return dict(zip(levels, (float(v) for v in values), strict=True))


def fit_probes(
    probes: Mapping[int, float] | Iterable[tuple[int, float]], model: str = "partial2"
) -> Fit:
    """Fit ``model`` to probes ``{n: throughput}`` (eqs. 11-14): exactly with as many probes
    as parameters, by least squares in ``y = n^2 / BW^2`` with more."""
    check_choice("model", model, MODELS)
    pairs = list(probes.items()) if isinstance(probes, Mapping) else list(probes)
    levels: list[int] = []
    values: list[float] = []
    for n, bw in pairs:
        n = _probe_level("flows", n)
        if n in levels:
            raise ValueError(f"two probes at flows={n}: probes need different numbers of flows")
        levels.append(n)
        values.append(check_range(f"throughput at flows={n}", bw, 0.0, low_open=True))
        if not math.isfinite(values[-1]):
            raise ValueError(f"throughput at flows={n} is {bw!r}, not a finite number")
    need = PROBES_NEEDED[model]
    if len(levels) < need:
        raise ValueError(
            f"model={model!r} needs {need} probes at different flows, got {len(levels)}"
        )
    n = np.array(levels, dtype=float)
    y = n**2 / np.array(values) ** 2
    matrix = np.column_stack(_basis(model, n))
    if len(levels) == need:
        params = np.linalg.solve(matrix, y)
    else:
        params = np.linalg.lstsq(matrix, y, rcond=None)[0]
    ordered = tuple(sorted(zip(levels, values, strict=True)))
    return Fit(model, tuple(float(p) for p in params), ordered)


def probe_elasticity(fit: Fit, flows: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    """How a two-probe partial fit amplifies noise in its probes: ``(e1, e2)``, the relative
    change of the predicted throughput at ``flows`` per relative change of the first and of
    the second probe (d ln BW(n) / d ln BW_i).

    With ``y = n^2 / BW^2`` the fit is the line through ``(n1^2, y1)`` and ``(n2^2, y2)``, so
    ``y(n) = (1 - w) y1 + w y2`` with ``w = (n^2 - n1^2) / (n2^2 - n1^2)``, and
    ``e1 = (1 - w) y1 / y(n)``, ``e2 = w y2 / y(n)``. Far from two close probes ``w`` is large:
    probes (1, 2) predict 31 flows with ``w = 320``, probes (1, 10) with ``w = 9.7``.
    """
    if fit.model != "partial2" or len(fit.probes) != 2:
        raise ValueError(f"model={fit.model!r}: the elasticity is that of a two-probe partial fit")
    (n1, bw1), (n2, bw2) = fit.probes
    n = np.asarray(flows, dtype=float)
    y1, y2 = n1**2 / bw1**2, n2**2 / bw2**2
    w = (n**2 - n1**2) / (n2**2 - n1**2)
    y = np.asarray(fit.profile(n), dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        e1 = np.where(y > 0, (1.0 - w) * y1 / y, np.nan)
        e2 = np.where(y > 0, w * y2 / y, np.nan)
    return e1, e2


def relative_error(prediction: ArrayLike, measurement: ArrayLike) -> np.ndarray | float:
    """Eq. 15: ``(prediction - measurement) / measurement``."""
    pred = np.asarray(prediction, dtype=float)
    meas = np.asarray(measurement, dtype=float)
    if np.any(meas == 0):
        raise ValueError("measurement=0: the relative error is undefined")
    result = (pred - meas) / meas
    return float(result) if result.ndim == 0 else result


def cross_impact(profile_base: ArrayLike, profile_n: ArrayLike) -> np.ndarray | float:
    """Eq. 18 with the profiles at the base level and at n: ``1 - sqrt(p'_base / p'_n)``;
    NaN where either is not positive."""
    base = np.asarray(profile_base, dtype=float)
    value = np.asarray(profile_n, dtype=float)
    valid = (base > 0) & (value > 0)
    with np.errstate(invalid="ignore", divide="ignore"):
        ratio = np.where(valid, base / np.where(valid, value, 1.0), np.nan)
    result = 1.0 - np.sqrt(ratio)
    return float(result) if result.ndim == 0 else result


def impact_from_loss(loss_base: float, loss_n: float) -> float:
    """Eq. 17: ``1 - sqrt(p_n1 / p_n2)``, each cross connection's relative throughput change
    when the loss rate they share goes from ``loss_base`` to ``loss_n`` (same RTT)."""
    p1 = check_range("loss_base", loss_base, 0.0, 1.0, low_open=True)
    p2 = check_range("loss_n", loss_n, 0.0, 1.0, low_open=True)
    return 1.0 - math.sqrt(p1 / p2)


def impact_from_rates(loss_base: float, rtt_base: float, loss_n: float, rtt_n: float) -> float:
    """Eq. 16 with the RTT kept: the relative change of Mathis's rate ``1 / (RTT sqrt(p))``
    from (``loss_base``, ``rtt_base``) to (``loss_n``, ``rtt_n``); eq. 17 when the RTTs are
    equal."""
    before = float(mathis_rate(loss_base, rtt_base))
    after = float(mathis_rate(loss_n, rtt_n))
    return (before - after) / before
