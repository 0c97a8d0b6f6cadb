"""Longer runs for the insensitivity checks that a finite run's boundary term decides.

Theorem 1 holds on every sample path up to a boundary term: a run's time average of the
aggregate is within ``altman.theorem1_bound(run)`` of eq. (5), whatever the policy, and that
bound shrinks as 1/T. It is the right yardstick for the fluid model, which is exact: the
spread of identical replicas measures how alike the runs are, not how far they are from the
theorem (largest-rate and beatdown are deterministic once they settle). These runs are long
enough for the bound to be small: the four ONE policies at several common eta (the paper's
insensitivity to the policy and to the round-trip time), and ONE against ALL at N = 1000 (the
gain's limit 2/(1 + beta)), with each run's bound beside its mean.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from tcplab import fluid, policies
from tcplab.theory import altman
from tcplab.theory import parallel as theory_parallel

__all__ = ["PoliciesParams", "GainParams", "policy_runs", "gain_runs"]


@dataclass(frozen=True)
class PoliciesParams:
    """N = 4 identical connections (beta = 1/2) under the four ONE policies, for several
    common eta (1/RTT^2), long enough for the identity's bound to be a few 1e-5."""

    etas: tuple[float, ...] = (1 / 16, 1 / 4, 1.0, 4.0, 16.0)
    policies: tuple[str, ...] = (
        "rate-independent",
        "rate-proportional",
        "largest-rate",
        "beatdown",
    )
    flows: int = 4
    beta: float = 0.5
    events: int = 80_000
    replicas: int = 8

    @classmethod
    def quick(cls) -> PoliciesParams:
        return cls(etas=(1 / 16, 1.0, 16.0), events=4_000, replicas=4)


def policy_runs(params: PoliciesParams, seed: int = 0) -> pd.DataFrame:
    """Per (eta, policy): the mean aggregate / c, the replicas' 95% half-width (ci), the
    identity's bound on |mean - eq. (5)| (bound), eq. (5) (formula) and the events."""
    rows = []
    for eta in params.etas:
        for policy in params.policies:
            run = fluid.simulate(
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
                    "flows": params.flows,
                    "simulated": run.aggregate,
                    "ci": run.aggregate_ci,
                    "bound": altman.theorem1_bound(run),
                    "formula": altman.parallel_throughput(params.flows, params.beta),
                    "events": run.events,
                }
            )
    return pd.DataFrame(rows)


@dataclass(frozen=True)
class GainParams:
    """ONE (rate-independent) and ALL at a large N, beta = 1/2: the gain of ONE over ALL,
    whose limit is 2/(1 + beta), with ONE run long enough for its bound to be about 1e-3."""

    flows: int = 1000
    beta: float = 0.5
    events: int = 2_000_000
    replicas: int = 4
    all_events: int = 20  # ALL is deterministic after its first event

    @classmethod
    def quick(cls) -> GainParams:
        return cls(flows=200, events=40_000, replicas=2)


def gain_runs(params: GainParams, seed: int = 0) -> pd.DataFrame:
    """One row: the mean aggregate under ONE with its identity bound, under ALL, the gain
    (one / all) with its bound (ALL is exact: ONE's bound over ALL's mean), the formulas'
    gain at N (eqs. (5)/(6)) and its limit 2/(1 + beta)."""
    n, beta = params.flows, params.beta
    one = fluid.simulate(
        n, "rate-independent", beta=beta, events=params.events, replicas=params.replicas, seed=seed
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
    bound = altman.theorem1_bound(one)
    return pd.DataFrame(
        [
            {
                "flows": n,
                "beta": beta,
                "one_simulated": one.aggregate,
                "one_bound": bound,
                "all_simulated": synced.aggregate,
                "gain_simulated": one.aggregate / synced.aggregate,
                "gain_bound": bound / synced.aggregate,
                "gain_formula": theory_parallel.gain_one_over_all(n, beta),
                "gain_limit": theory_parallel.gain_limit(beta),
                "events": one.events,
            }
        ]
    )
