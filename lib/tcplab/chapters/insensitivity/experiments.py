"""Parallel AIMD connections and the insensitivity of their throughput (Altman et al. 2006, II).

Theorem 1 says N identical AIMD connections, one signalled per link congestion event, carry
``1 - 1/(1 + N (1 + beta)/(1 - beta))`` of the link *whichever connection is signalled*. The
experiments below regenerate the paper's Fig. 2 (throughput against N), Example 1 with its
Figs. 3 and 4 (a biased rate-independent policy), the comparison with synchronised losses
(ALL), MultTCP, and the insensitivity to a common round-trip time; and go one step beyond the
paper with connections that differ in beta or in eta (round-trip time).

Every number is the exact fluid model's (:mod:`tcplab.fluid`); the closed forms they are set
against are in :mod:`tcplab.theory.altman` and :mod:`tcplab.theory.parallel`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from tcplab import fluid, policies
from tcplab.theory import altman
from tcplab.theory import parallel as theory_parallel

__all__ = [
    "ONE_POLICIES",
    "ThroughputParams",
    "Example1Params",
    "PathsParams",
    "MultTCPParams",
    "RTTParams",
    "HeterogeneousParams",
    "throughput",
    "example1",
    "sample_paths",
    "multtcp",
    "rtt",
    "heterogeneous",
    "gains",
]

#: the one-connection-per-event policies of the paper (Sec. I): all should give Theorem 1
ONE_POLICIES = ("rate-independent", "rate-proportional", "largest-rate", "beatdown")


def _betas() -> tuple[float, ...]:
    return tuple(round(float(b), 2) for b in np.arange(0.1, 0.91, 0.05))


# ---- Fig. 2, ALL and the gain of ONE over ALL ------------------------------------------------


@dataclass(frozen=True)
class ThroughputParams:
    """Throughput against N on a grid of beta, under a ONE policy and under ALL."""

    betas: tuple[float, ...] = _betas()
    flows: tuple[int, ...] = (*range(1, 21), 50, 100, 200, 500, 1000)
    policy: str = "rate-independent"  # uniform; Theorem 1 says any ONE policy gives the same
    events_per_flow: int = 1_000  # measured congestion events per replica, per connection,
    min_events: int = 10_000  # ... at least this many (small N are cheap)
    max_events: int = 20_000  # ... and at most (the large N of the gain's limit)
    replicas: int = 8
    all_events: int = 20  # ALL is deterministic after its first event

    @classmethod
    def quick(cls) -> ThroughputParams:
        return cls(
            betas=(0.25, 0.5, 0.75),
            flows=(1, 2, 3, 4, 6, 10, 20, 1000),
            events_per_flow=1_000,
            min_events=4_000,
            max_events=8_000,
            replicas=4,
        )


def throughput(params: ThroughputParams, seed: int = 0) -> pd.DataFrame:
    """Mean aggregate / c for each (beta, N) under ``params.policy`` (ONE) and under ALL.

    Columns: beta, flows, policy ("one" or "all"), simulated, formula (Theorem 1 or (1 + beta)/2),
    bound (worst-case |simulated - formula| for ONE runs, 0 for ALL), events.
    """
    rows = []
    for beta in params.betas:
        for n in params.flows:
            events = min(max(params.events_per_flow * n, params.min_events), params.max_events)
            one = fluid.simulate(
                n, params.policy, beta=beta, events=events, replicas=params.replicas, seed=seed
            )
            rows.append(
                {
                    "beta": beta,
                    "flows": n,
                    "policy": "one",
                    "simulated": one.aggregate,
                    "formula": altman.parallel_throughput(n, beta),
                    "bound": altman.theorem1_bound(one),
                    "events": one.events,
                }
            )
            synced = fluid.simulate(
                n,
                policies.AllFlows(),
                beta=beta,
                events=params.all_events,
                replicas=2,
                warmup_events=1,  # the aggregate restarts from beta c at every event, the first too
                seed=seed,
            )
            rows.append(
                {
                    "beta": beta,
                    "flows": n,
                    "policy": "all",
                    "simulated": synced.aggregate,
                    "formula": theory_parallel.synchronised_throughput(n, beta),
                    "bound": 0.0,
                    "events": synced.events,
                }
            )
    return pd.DataFrame(rows)


def gains(table: pd.DataFrame) -> pd.DataFrame:
    """Gain of ONE over ALL per (beta, n), simulated and from the formulas."""
    wide = table.pivot_table(index=["beta", "flows"], columns="policy", values="simulated")
    frame = (wide["one"] / wide["all"]).rename("simulated").reset_index()
    frame["formula"] = [
        theory_parallel.gain_one_over_all(n, b)
        for b, n in zip(frame["beta"], frame["flows"], strict=True)
    ]
    frame["limit"] = [theory_parallel.gain_limit(b) for b in frame["beta"]]
    return frame


# ---- Example 1: Figs. 3 and 4 ----------------------------------------------------------------


def _sigmas() -> tuple[float, ...]:
    """0.025, 0.05, ..., 0.975: a grid with the paper's sigma = 1/8 and 1/2 on it."""
    return tuple(round(float(s), 3) for s in np.arange(0.025, 0.98, 0.025))


@dataclass(frozen=True)
class Example1Params:
    """Four connections, beta = 1/2, eta = 1; connections 1-2 picked with probability sigma/2
    each, 3-4 with (1 - sigma)/2 (rate-independent)."""

    sigmas: tuple[float, ...] = _sigmas()
    beta: float = 0.5
    eta: float = 1.0
    events: int = 20_000
    replicas: int = 64

    @classmethod
    def quick(cls) -> Example1Params:
        return cls(sigmas=(0.125, 0.25, 0.5, 0.75, 0.875), events=4_000, replicas=16)


GROUPS = ("class 1 (connections 1-2)", "class 2 (connections 3-4)", "aggregate")


def example1(params: Example1Params, seed: int = 0) -> pd.DataFrame:
    """Per-class and aggregate mean rate / c against sigma, simulated and exact.

    Columns: sigma, group, simulated, ci (95% half-width over replicas), formula (the exact
    rate-independent closed form of :func:`tcplab.theory_parallel.rate_independent_throughputs`),
    events.
    """
    rows = []
    for sigma in params.sigmas:
        probs = theory_parallel.example1_probs(sigma)
        result = fluid.simulate(
            4,
            policies.RateIndependent(probs),
            beta=params.beta,
            eta=params.eta,
            events=params.events,
            replicas=params.replicas,
            seed=seed,
        )
        exact = theory_parallel.rate_independent_throughputs(probs, params.beta, params.eta)
        # a class's mean is the sum of its two connections; its interval is the replicas' spread
        # of that sum, bounded here by the sum of the two half-widths
        per_flow, ci = np.asarray(result.per_flow), np.asarray(result.per_flow_ci)
        values = (per_flow[:2].sum(), per_flow[2:].sum(), result.aggregate)
        cis = (ci[:2].sum(), ci[2:].sum(), result.aggregate_ci)
        formulas = (exact[:2].sum(), exact[2:].sum(), exact.sum())
        for group, value, half, formula in zip(GROUPS, values, cis, formulas, strict=True):
            rows.append(
                {
                    "sigma": sigma,
                    "group": group,
                    "simulated": float(value),
                    "ci": float(half),
                    "formula": float(formula),
                    "events": result.events,
                }
            )
    return pd.DataFrame(rows)


@dataclass(frozen=True)
class PathsParams:
    """The sample paths of Fig. 4: sigma = 1/2 and sigma = 1/8, from a warmed-up state."""

    sigmas: tuple[float, ...] = (0.5, 0.125)
    beta: float = 0.5
    eta: float = 1.0
    warmup_events: int = 200
    window: float = 2.0  # time shown, in units of c / eta

    @classmethod
    def quick(cls) -> PathsParams:
        return cls(warmup_events=50, window=1.0)


def _clip_flows(frame: pd.DataFrame, window: float, eta: float) -> pd.DataFrame:
    """Cut every connection's breakpoints at ``window``; its rate grows at ``eta`` from its
    last breakpoint, so the end point is exact."""
    inside = frame[frame["time"] <= window]
    last = inside.groupby("flow", sort=True).tail(1)
    ends = last.assign(rate=last["rate"] + eta * (window - last["time"]), time=window)
    return pd.concat([inside, ends], ignore_index=True).sort_values(
        ["flow", "time"], kind="stable", ignore_index=True
    )


def sample_paths(params: PathsParams, seed: int = 0) -> pd.DataFrame:
    """Exact breakpoints of the four rates over ``window``; columns sigma, time, flow, rate (/c).

    Capacity 1, so rates are already in units of c.
    """
    frames = []
    for sigma in params.sigmas:
        policy = policies.RateIndependent(theory_parallel.example1_probs(sigma))
        beta, eta = params.beta, params.eta
        warm = fluid.sample_path(
            4, policy, beta=beta, eta=eta, events=params.warmup_events, seed=seed
        )
        # events come every (1 - beta) x_M / (4 eta): about c / (32 eta) for beta = 1/2 and an
        # even policy, less when the small connections are picked more; double until covered
        events = int(np.ceil(32 * params.window * params.eta / (1 - params.beta)))
        while True:
            path = fluid.sample_path(
                4,
                policy,
                beta=beta,
                eta=eta,
                events=events,
                start=warm.rates_after[-1],
                seed=seed + 1,
            )
            if path.times[-1] >= params.window:
                break
            events *= 2
        clipped = _clip_flows(path.to_frame(), params.window, params.eta)
        frames.append(clipped.assign(sigma=sigma))
    table = pd.concat(frames, ignore_index=True)
    return table[["sigma", "time", "flow", "rate"]].round({"time": 6, "rate": 6})


# ---- MultTCP ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class MultTCPParams:
    """One MultTCP connection against N TCP-like connections (beta = 1/2), N = 1..20."""

    flows: tuple[int, ...] = tuple(range(1, 21))
    beta: float = 0.5
    events_per_flow: int = 2_000
    replicas: int = 8
    single_events: int = 200  # one AIMD connection: a deterministic sawtooth

    @classmethod
    def quick(cls) -> MultTCPParams:
        return cls(flows=(1, 2, 3, 4, 6, 10), events_per_flow=500, replicas=4, single_events=50)


def multtcp(params: MultTCPParams, seed: int = 0) -> pd.DataFrame:
    """Simulated MultTCP, N connections under ONE, and a single connection that matches them.

    Columns: flows, multtcp_beta (1 - (1 - beta)/N), multtcp_simulated, multtcp_formula
    (1 - (1 - beta)/(2N)), one_simulated, one_formula (Theorem 1), ratio_simulated,
    ratio_formula, matching_beta (1 - 2/(1 + N rho)), matching_simulated.
    """

    def single(decrease: float, n: int) -> float:
        result = fluid.simulate(
            1,
            policies.AllFlows(),
            beta=decrease,
            eta=float(n),  # MultTCP increases N times as fast; the mean does not depend on it
            events=params.single_events,
            replicas=1,
            seed=seed,
        )
        return result.aggregate

    rows = []
    for n in params.flows:
        decrease = float(theory_parallel.multtcp_decrease(n, params.beta))
        matching = float(theory_parallel.matching_decrease(n, params.beta))
        one = fluid.simulate(
            n,
            "rate-independent",
            beta=params.beta,
            events=params.events_per_flow * n,
            replicas=params.replicas,
            seed=seed,
        ).aggregate
        mult = single(decrease, n)
        rows.append(
            {
                "flows": n,
                "multtcp_beta": decrease,
                "multtcp_simulated": mult,
                "multtcp_formula": theory_parallel.multtcp_throughput(n, params.beta),
                "one_simulated": one,
                "one_formula": altman.parallel_throughput(n, params.beta),
                "ratio_simulated": mult / one,
                "ratio_formula": theory_parallel.multtcp_ratio(n, params.beta),
                "matching_beta": matching,
                "matching_simulated": single(matching, n),
            }
        )
    return pd.DataFrame(rows)


# ---- round-trip times: a common eta, and beyond the paper: unequal connections ---------------


@dataclass(frozen=True)
class RTTParams:
    """N = 4 identical connections with a common eta (= 1/RTT**2) over several values."""

    etas: tuple[float, ...] = (1 / 16, 1 / 4, 1.0, 4.0, 16.0)
    policies: tuple[str, ...] = ONE_POLICIES
    flows: int = 4
    beta: float = 0.5
    events: int = 20_000
    replicas: int = 8

    @classmethod
    def quick(cls) -> RTTParams:
        return cls(etas=(1 / 16, 1.0, 16.0), events=2_000, replicas=4)


def rtt(params: RTTParams, seed: int = 0) -> pd.DataFrame:
    """Mean aggregate / c for each (eta, policy); columns eta, policy, simulated, ci, formula."""
    rows = []
    for eta in params.etas:
        for policy in params.policies:
            result = fluid.simulate(
                params.flows,
                policy,
                beta=params.beta,
                eta=eta,
                events=params.events,
                replicas=params.replicas,
                seed=seed,
            )
            rows.append(
                {
                    "eta": eta,
                    "policy": policy,
                    "simulated": result.aggregate,
                    "ci": result.aggregate_ci,
                    "formula": altman.parallel_throughput(params.flows, params.beta),
                }
            )
    return pd.DataFrame(rows)


_RTT_ETAS = tuple(1.0 / r**2 for r in (1.0, 2.0, 3.0, 4.0))


@dataclass(frozen=True)
class HeterogeneousParams:
    """Connections that are not identical, under the four ONE policies.

    Each case is ``(label, beta per connection, eta per connection)``.
    """

    cases: tuple[tuple[str, tuple[float, ...], tuple[float, ...]], ...] = (
        ("identical (β = 1/2, η = 1)", (0.5,) * 4, (1.0,) * 4),
        ("β = 0.3, 0.5, 0.7, 0.9", (0.3, 0.5, 0.7, 0.9), (1.0,) * 4),
        ("RTT 1 : 2 : 3 : 4 (η = 1/RTT²)", (0.5,) * 4, _RTT_ETAS),
        ("N = 2, η = 1 and 3", (0.5, 0.5), (1.0, 3.0)),
    )
    policies: tuple[str, ...] = ONE_POLICIES
    events: int = 20_000
    replicas: int = 16

    @classmethod
    def quick(cls) -> HeterogeneousParams:
        return cls(events=3_000, replicas=8)


def heterogeneous(params: HeterogeneousParams, seed: int = 0) -> pd.DataFrame:
    """Mean aggregate / c per (case, policy), with the policy-free range and the exact value
    for the rate-independent policy.

    Columns: case, policy, flows, simulated, ci, low, high (the range any ONE policy can reach),
    exact (rate-independent closed form; NaN for the other policies), eq5 (the paper's
    eq. (5) for N connections when they share one beta, whatever their eta; else NaN).
    """
    rows = []
    for label, beta, eta in params.cases:
        n = len(beta)
        low, high = theory_parallel.one_policy_range(n, beta, eta)
        common = len(set(beta)) == 1
        eq5 = altman.parallel_throughput(n, beta[0]) if common else np.nan
        for policy in params.policies:
            result = fluid.simulate(
                n,
                policy,
                beta=list(beta),
                eta=list(eta),
                events=params.events,
                replicas=params.replicas,
                seed=seed,
            )
            exact = (
                float(theory_parallel.rate_independent_throughputs([1 / n] * n, beta, eta).sum())
                if policy == "rate-independent"
                else np.nan
            )
            rows.append(
                {
                    "case": label,
                    "policy": policy,
                    "flows": n,
                    "simulated": result.aggregate,
                    "ci": result.aggregate_ci,
                    "low": low,
                    "high": high,
                    "exact": exact,
                    "eq5": eq5,
                }
            )
    return pd.DataFrame(rows)
