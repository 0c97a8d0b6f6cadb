"""Exact event-driven fluid model of N AIMD connections sharing a link (Altman et al. 2006).

Between link congestion times every rate grows linearly, so the next congestion time solves a
linear equation and the time integrals of x and x**2 are closed forms: no time stepping. Each
connection is kept as an offset ``y_i = x_i - eta_i t`` that changes only when the connection is
signalled, its integrals are collected one linear piece (from one of its drops to the next) at
a time, and many independent replicas advance together as numpy vectors.

The model runs in units of the capacity (rates x / c, increases eta / c); its input ranges are
derived from what float64 computes there, and every result is checked after the run
(:mod:`tcplab.fluid_domain`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, fields
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from .checks import check_int, check_per_flow, check_range
from .fluid_domain import ResultOutOfRange, check_rates, in_unit_interval
from .fluid_tally import Tally
from .policies import LossPolicy, make_policy
from .stats import t975

__all__ = ["FluidResult", "SamplePath", "simulate", "sample_path", "CHUNK_REPLICAS"]

#: replicas advanced together; each chunk has its own child of SeedSequence(seed)
CHUNK_REPLICAS = 4096
#: selections drawn ahead per block (events x replicas) by rate-independent policies
_BLOCK_ELEMENTS = 1 << 17
#: events between re-basings of the time origin in the synchronised (ALL) loop
_REBASE_EVERY = 256
_SAMPLE_PATH_MAX_EVENTS = 1_000_000


@dataclass(frozen=True, eq=False)
class FluidResult:
    """Time-stationary statistics of the fluid model; rates in units of the capacity c.

    Means are time-weighted over all replicas (total integral over total time); the ``*_ci``
    fields are 95% Student-t half-widths of the per-replica time averages (NaN for one replica).
    """

    flows: int
    policy: str
    capacity: float
    beta: tuple[float, ...]
    eta: tuple[float, ...]
    aggregate: float
    aggregate_ci: float
    per_flow: np.ndarray
    per_flow_ci: np.ndarray
    second_moment: np.ndarray
    second_moment_ci: np.ndarray
    aggregate_second_moment: float
    aggregate_second_moment_ci: float
    events: int
    warmup_events: int
    simulated_time: float
    replicas: int
    seed: int

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-serialisable values (lists for arrays, ``None`` for NaN)."""
        return {f.name: _plain(getattr(self, f.name)) for f in fields(self)}


@dataclass(frozen=True, eq=False)
class SamplePath:
    """One exact sample path: rates just before and just after each congestion event.

    ``times[k]`` is the k-th congestion time (``times[0] = 0``); ``rates_before[k]`` and
    ``rates_after[k]`` are the rates (same units as ``capacity``) just before and after it
    (row 0 holds the start rates twice) and ``signalled[k]`` marks the connections that
    decreased. Between rows every rate grows linearly with slope ``eta``.
    """

    times: np.ndarray
    rates_before: np.ndarray
    rates_after: np.ndarray
    signalled: np.ndarray
    flows: int
    policy: str
    capacity: float
    beta: tuple[float, ...]
    eta: tuple[float, ...]

    def to_frame(self) -> pd.DataFrame:
        """Tidy breakpoints ``time, flow (1-based), rate (/c)``; a line through them is exact.

        A decreasing connection contributes two rows at its congestion time (before, after).
        """
        times = np.concatenate((self.times[:1], np.repeat(self.times[1:], 2)))
        pairs = np.stack((self.rates_before[1:], self.rates_after[1:]), axis=1)
        values = np.concatenate((self.rates_after[:1], pairs.reshape(-1, self.flows)))
        keep = np.ones(values.shape, dtype=bool)
        keep[2::2] = self.signalled[1:]  # the "after" row only where the rate jumps
        flows, rows = np.nonzero(keep.T)
        rates = values[rows, flows] / self.capacity
        return pd.DataFrame({"time": times[rows], "flow": flows.astype(int) + 1, "rate": rates})


@dataclass(frozen=True)
class _Model:
    """The checked inputs; the runs see ``rate`` (eta / c) and rates in units of c."""

    policy: LossPolicy
    capacity: float
    beta: np.ndarray  # (N,)
    eta: np.ndarray  # (N,)
    flows: int
    rate: np.ndarray  # (N,) eta / capacity
    rate_total: float


def simulate(
    flows: int,
    policy: str | LossPolicy = "rate-independent",
    *,
    probs: Sequence[float] | np.ndarray | None = None,
    capacity: float = 1.0,
    beta: float | ArrayLike = 0.5,
    eta: float | ArrayLike = 1.0,
    events: int = 10_000,
    replicas: int = 16,
    warmup_events: int | None = None,
    seed: int = 0,
) -> FluidResult:
    """Time-stationary means and second moments of N AIMD connections, exactly integrated.

    Every replica starts from random rates summing to ``mean(beta) * c`` (a uniform point of
    the simplex), runs ``warmup_events`` congestion events (default ``max(20 N, events // 10)``)
    and then measures over the next ``events`` events, from one congestion time to another.
    Replicas are independent and seeded from ``np.random.SeedSequence(seed)``.
    """
    model = _prepare(flows, policy, probs, capacity, beta, eta)
    events = check_int("events", events, 1)
    replicas = check_int("replicas", replicas, 1)
    seed = check_int("seed", seed, 0)
    if warmup_events is None:
        warmup_events = max(20 * model.flows, events // 10)
    warmup_events = check_int("warmup_events", warmup_events, 0)

    n_chunks = -(-replicas // CHUNK_REPLICAS)
    children = np.random.SeedSequence(seed).spawn(n_chunks)
    parts = []
    for j, child in enumerate(children):
        size = min(CHUNK_REPLICAS, replicas - j * CHUNK_REPLICAS)
        rng = np.random.default_rng(child)
        shares = rng.exponential(size=(size, model.flows))
        start = shares / shares.sum(axis=1, keepdims=True) * model.beta.mean()
        run = _Run(model, start, rng)
        run.advance(warmup_events, None)
        tally = Tally(run)
        run.advance(events, tally)
        parts.append(tally.integrals(run))
    time, first, second, agg_second = (np.concatenate(p) for p in zip(*parts, strict=True))
    stats: dict[str, Any] = {}
    for name, num in (
        ("aggregate", first.sum(axis=1)),
        ("per_flow", first),
        ("second_moment", second),
        ("aggregate_second_moment", agg_second),
    ):
        mean, ci = _ratio(name, num, time)
        scalar = mean.ndim == 0
        stats[name], stats[f"{name}_ci"] = (float(mean), float(ci)) if scalar else (mean, ci)
    return FluidResult(
        **_common(model), **stats, events=events * replicas, warmup_events=warmup_events,
        simulated_time=float(time.sum()), replicas=replicas, seed=seed,
    )  # fmt: skip


def sample_path(
    flows: int,
    policy: str | LossPolicy = "rate-independent",
    *,
    probs: Sequence[float] | np.ndarray | None = None,
    capacity: float = 1.0,
    beta: float | ArrayLike = 0.5,
    eta: float | ArrayLike = 1.0,
    events: int = 20,
    seed: int = 0,
    start: ArrayLike | None = None,
) -> SamplePath:
    """The exact piecewise-linear rates of one replica over ``events`` congestion events.

    ``start`` holds the rates at t = 0 (same units as ``capacity``, non-negative, summing to at
    most c); the default ``beta_i * c / N`` is the state just after a synchronised loss from the
    fair share, so for N = 1 the path is the AIMD sawtooth between beta c and c from t = 0.
    """
    model = _prepare(flows, policy, probs, capacity, beta, eta)
    events = check_int("events", events, 1, _SAMPLE_PATH_MAX_EVENTS)
    seed = check_int("seed", seed, 0)
    n, c = model.flows, model.capacity
    given = None if start is None else check_per_flow("start", start, n, 0.0, c)
    if given is not None and given.sum() > c * (1.0 + 1e-12):
        raise ValueError(f"start={given.tolist()!r} sums to {given.sum():g} > capacity={c:g}")
    rates = model.beta / n if given is None else given / c  # in units of c
    rng = np.random.default_rng(np.random.SeedSequence(seed).spawn(1)[0])
    run = _Run(model, rates[None, :], rng)
    times, signalled = np.zeros(events + 1), np.zeros((events + 1, n), dtype=bool)
    before, after = np.tile(rates, (events + 1, 1)), np.tile(rates, (events + 1, 1))
    for k in range(1, events + 1):
        t_event, x, mask = run.step(None)
        times[k] = run.origin[0] + t_event[0]
        before[k], signalled[k] = x[0], mask[0]
        after[k] = np.where(mask[0], model.beta * x[0], x[0])
    if not (np.all(np.isfinite(times)) and np.all(np.diff(times) >= 0)):
        raise _broken("sample_path", "congestion times that are not finite and increasing")
    in_unit_interval("the aggregate rate / c", before.sum(axis=1))
    before, after = (in_unit_interval("a rate / c", x) * c for x in (before, after))
    for array in (times, before, after, signalled):
        array.setflags(write=False)
    return SamplePath(times, before, after, signalled, **_common(model))


class _Run:
    """Mutable state of R replicas, flow-major: offsets ``y[i, r]`` with x = y + eta t.

    ``t[r]`` is the next congestion time of replica r, measured from ``origin[r]``.
    """

    def __init__(self, model: _Model, start: np.ndarray, rng: np.random.Generator) -> None:
        self.model, self.rng = model, rng
        self.y = np.array(np.asarray(start, dtype=float).T, order="C")  # (N, R), units of c
        n, replicas = self.y.shape
        self.t = (1.0 - self.y.sum(axis=0)) / model.rate_total
        self.origin = np.zeros(replicas)
        self.policy_state = model.policy.initial_state(replicas, n)
        self.rows = np.arange(replicas)
        self.eta_col = model.rate[:, None]
        self.gain = (1.0 - model.beta) / model.rate_total  # time added per unit of rate dropped
        self.tally: Tally | None = None  # the measurement under way, if any

    def advance(self, n_events: int, tally: Tally | None) -> None:
        """Run ``n_events`` congestion events in every replica, then re-base at the last one."""
        if self.model.policy.signals_one:
            self._advance_one(n_events, tally)
            return
        for i in range(n_events):
            t_event, _, _ = self.step(tally)
            if i % _REBASE_EVERY == _REBASE_EVERY - 1 or i == n_events - 1:
                self._rebase(t_event)

    def rates(self) -> np.ndarray:
        """Rates just before the next congestion event, flow-major (N, R), clipped at 0."""
        rates = self.y + self.eta_col * self.t
        return np.maximum(rates, 0.0, out=rates)

    def step(self, tally: Tally | None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """One congestion event for any policy: (event time, rates before (R, N), mask (R, N))."""
        m = self.model
        t_event = self.t.copy()
        rates = self.rates()
        mask = np.asarray(m.policy.signal(rates.T, self.policy_state, self.rng)).T
        dropped = np.where(mask, (1.0 - m.beta[:, None]) * rates, 0.0)
        self.y -= dropped
        total_drop = dropped.sum(axis=0)
        self.t += total_drop / m.rate_total
        if tally is not None:
            tally.add_mask(mask, rates, total_drop, t_event, self.eta_col)
        return t_event, rates.T, mask.T

    def _advance_one(self, n_events: int, tally: Tally | None) -> None:
        """Events signalling one connection each: O(1) work per replica and event.

        Rate-independent policies draw a block of choices ahead and never form all the rates.
        """
        m, policy, rng = self.model, self.model.policy, self.rng
        n, replicas = self.y.shape
        flat_y, t = self.y.reshape(-1), self.t
        # a parameter shared by all connections stays a scalar: cheaper than gathering it
        eta, beta, gain = (v[0] if np.all(v == v[0]) else v for v in (m.rate, m.beta, self.gain))
        e, b, g = eta, beta, gain
        per_flow = np.ndim(eta) + np.ndim(beta) > 0
        block = int(min(1024, max(16, _BLOCK_ELEMENTS // replicas)))
        ym, et, tmp = np.empty((3, replicas))
        last = None if tally is None else tally.last  # per (flow, replica): its last drop time
        done = 0
        while done < n_events:
            steps = min(block, n_events - done)
            if policy.rate_independent:
                picks = policy.draw(rng, (steps, replicas), n)
                flat = picks * replicas + self.rows
            else:
                picks, flat = np.empty((2, steps, replicas), dtype=np.intp)
            xs = np.empty((steps, replicas))
            dts = np.empty((steps, replicas))  # per event: time since the connection's last drop
            for k in range(steps):
                pick, idx, x = picks[k], flat[k], xs[k]
                if not policy.rate_independent:
                    pick[:] = policy.choose(self.rates().T, self.policy_state, rng)
                    np.multiply(pick, replicas, out=idx)
                    idx += self.rows
                if per_flow:
                    e = eta if np.ndim(eta) == 0 else eta[pick]
                    b, g = (beta, gain) if np.ndim(beta) == 0 else (beta[pick], gain[pick])
                np.take(flat_y, idx, out=ym)
                np.multiply(t, e, out=et)
                np.add(ym, et, out=x)
                np.maximum(x, 0.0, out=x)  # x >= 0 exactly; guards against rounding
                np.multiply(x, b, out=tmp)
                tmp -= et
                flat_y[idx] = tmp  # the new offset: beta x - eta t
                if last is not None:
                    np.take(last, idx, out=tmp)
                    np.subtract(t, tmp, out=dts[k])
                    last[idx] = t
                np.multiply(x, g, out=tmp)
                t += tmp
            if tally is not None:
                pieces = [v if np.ndim(v) == 0 else v[picks] for v in (eta, beta)]
                tally.add_one(flat, xs, dts, *pieces)
            self._rebase(t - g * xs[-1])
            done += steps

    def _rebase(self, t_last: np.ndarray) -> None:
        """Move the time origin to ``t_last``; afterwards ``y`` holds the rates at that time."""
        self.origin += t_last
        self.y += self.eta_col * t_last
        self.t -= t_last
        if self.tally is not None:
            self.tally.last.reshape(self.y.shape)[:] -= t_last


def _prepare(flows: Any, policy: Any, probs: Any, capacity: Any, beta: Any, eta: Any) -> _Model:
    n = check_int("flows", flows, 1)
    capacity = check_range("capacity", capacity, 0.0, low_open=True)
    betas = check_per_flow("beta", beta, n, 0.0, 1.0, low_open=True, high_open=True)
    etas = check_per_flow("eta", eta, n, 0.0, math.inf, low_open=True)
    rates = check_rates(capacity, etas)
    if isinstance(policy, LossPolicy):
        if probs is not None:
            raise ValueError("probs is only accepted with policy given by name")
        bound = policy.bind(n)
    elif isinstance(policy, str):
        bound = make_policy(policy, n, probs)
    else:
        raise ValueError(f"policy={policy!r} must be a policy name or a LossPolicy")
    return _Model(bound, capacity, betas, etas, n, rates, float(rates.sum()))


def _broken(name: str, what: str) -> ResultOutOfRange:
    return ResultOutOfRange(f"the fluid model's {name} gave {what}; nothing is shown")


def _ratio(name: str, num: np.ndarray, time: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Time-weighted mean of ``num / time`` over replicas (checked: in [0, 1]) and the 95%
    half-width (finite, >= 0; NaN for one replica), both read-only."""
    if not (np.all(np.isfinite(time)) and time.sum() > 0):
        raise ResultOutOfRange(
            f"the fluid model's {time.size} replica(s) measured a time of {time.sum():g}: its "
            "congestion events took no time (every drop was below rounding, so the link never "
            "measurably left its capacity): there is nothing to average"
        )
    mean = in_unit_interval(name, num.sum(axis=0) / time.sum())
    if time.size < 2:
        ci = np.full_like(mean, np.nan)
    else:
        per_replica = num / time.reshape((-1,) + (1,) * (num.ndim - 1))
        spread = per_replica.std(axis=0, ddof=1) / math.sqrt(time.size)
        ci = np.asarray(t975(time.size - 1) * spread)
        if not (np.all(np.isfinite(ci)) and np.all(ci >= 0)):
            raise _broken("simulate", f"a confidence interval of {name} that is not finite")
    mean.setflags(write=False)
    ci.setflags(write=False)
    return mean, ci


def _common(model: _Model) -> dict[str, Any]:
    return {
        "flows": model.flows,
        "policy": model.policy.name,
        "capacity": model.capacity,
        "beta": tuple(model.beta.tolist()),
        "eta": tuple(model.eta.tolist()),
    }


def _plain(value: Any) -> Any:
    if isinstance(value, np.ndarray | tuple | list):
        return [_plain(v) for v in (value.tolist() if isinstance(value, np.ndarray) else value)]
    if isinstance(value, np.generic):
        value = value.item()
    return None if isinstance(value, float) and not math.isfinite(value) else value
