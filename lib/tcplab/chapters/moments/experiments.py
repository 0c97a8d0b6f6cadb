"""Second moments are not insensitive (Altman et al. 2006, Sections III-IV).

Theorem 1 says the *mean* aggregate rate does not depend on which connection a congestion event
signals; Theorem 2 shows the second moment of one connection's rate does, by giving it for two
identical TCP-like connections under four policies. The experiments below regenerate Theorem 2
with the exact fluid model, the time-stationary distributions behind it, the same table for
N = 3, 4 and for connections with different decrease factors (beyond the paper), the
largest-rate fixed point of eq. (9) with its round-robin order (Proposition 1, Remark 2), and
the beatdown policy of Section IV-B: its sample path (Fig. 5), its rates at tagging times and
its mean aggregate (Theorem 3). Closed forms are in :mod:`tcplab.theory.moments`; the
paper-vs-book rows in :mod:`tcplab.chapters.moments.claims`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from tcplab import fluid, policies
from tcplab.theory import altman
from tcplab.theory import moments as theory_moments

__all__ = [
    "POLICIES",
    "TableParams",
    "DistributionParams",
    "LargestRateParams",
    "BeatdownParams",
    "second_moments",
    "distributions",
    "largest_rate",
    "beatdown_path",
    "beatdown_tags",
    "theorem3",
    "with_exact",
    "segment_histogram",
]

#: the paper's order in Theorem 2
POLICIES = ("beatdown", "rate-independent", "rate-proportional", "largest-rate")
#: beatdown releases a tag once the tagged rate is below this fraction of c (the paper: at 0)
BEATDOWN_THRESHOLD = 1e-7


def _policy(name: str, threshold: float = BEATDOWN_THRESHOLD) -> policies.LossPolicy | str:
    return policies.Beatdown(threshold=threshold) if name == "beatdown" else name


# ---- Theorem 2 and beyond: E[X_i^2]/c^2 ---------------------------------------------------------


@dataclass(frozen=True)
class TableParams:
    """Cases (N, per-flow beta) and run lengths of the second-moment table."""

    cases: tuple[tuple[float, ...], ...] = ((0.5, 0.5), (0.5, 0.5, 0.5), (0.5,) * 4, (0.5, 0.8))
    random_replicas: int = 16_384  # rate-independent and rate-proportional
    random_events: int = 4_000
    deterministic_replicas: int = 64  # largest-rate and beatdown: after warm-up, periodic
    deterministic_events: int = 40_000
    beatdown_threshold: float = BEATDOWN_THRESHOLD

    @classmethod
    def quick(cls) -> TableParams:
        return cls(
            random_replicas=2_048,
            random_events=2_000,
            deterministic_replicas=8,
            deterministic_events=10_000,
        )


def _case_label(betas: tuple[float, ...]) -> str:
    n = len(betas)
    if len(set(betas)) == 1:
        return f"N = {n}, β = {betas[0]:g}"
    return f"N = {n}, β = ({', '.join(f'{b:g}' for b in betas)})"


def second_moments(params: TableParams, seed: int = 0) -> pd.DataFrame:
    """E[X_i^2]/c^2 with its 95% half-width, per case, policy and connection."""
    rows = []
    for betas in params.cases:
        n = len(betas)
        for name in POLICIES:
            random = name in ("rate-independent", "rate-proportional")
            replicas = params.random_replicas if random else params.deterministic_replicas
            events = params.random_events if random else params.deterministic_events
            result = fluid.simulate(
                n,
                _policy(name, params.beatdown_threshold),
                beta=list(betas),
                events=events,
                replicas=replicas,
                seed=seed,
            )
            for i in range(n):
                rows.append(
                    {
                        "case": _case_label(betas),
                        "flows": n,
                        "identical": len(set(betas)) == 1,
                        "flow": i + 1,
                        "beta": betas[i],
                        "policy": name,
                        "second_moment": float(result.second_moment[i]),
                        "second_moment_ci": float(result.second_moment_ci[i]),
                        "mean": float(result.per_flow[i]),
                        "aggregate": result.aggregate,
                        "replicas": replicas,
                        "events": result.events,
                    }
                )
    return pd.DataFrame(rows)


def with_exact(table: pd.DataFrame) -> pd.DataFrame:
    """Add the closed form (``exact``, NaN where none is known) and the paper's value."""
    exact, paper = [], []
    for row in table.itertuples():
        betas = tuple(table[(table["case"] == row.case) & (table["policy"] == row.policy)]["beta"])
        value = np.nan
        if row.policy == "rate-independent":
            value = float(
                theory_moments.rate_independent_moments(row.flows, beta=betas)[1][row.flow - 1]
            )
        elif row.identical and row.policy == "largest-rate":
            value = theory_moments.largest_rate_second_moment(row.flows, row.beta)
        elif row.identical and row.policy == "beatdown":
            value = theory_moments.beatdown_second_moment(row.flows, row.beta)
        exact.append(value)
        is_theorem2 = row.identical and row.flows == 2 and np.isclose(row.beta, 0.5)
        paper.append(theory_moments.PAPER_THEOREM2[row.policy] if is_theorem2 else np.nan)
    return table.assign(exact=exact, paper=paper)


# ---- the distributions behind the numbers --------------------------------------------------------


@dataclass(frozen=True)
class DistributionParams:
    """Exact time-stationary histograms of one connection's rate, N = 2 identical connections."""

    flows: int = 2
    beta: float = 0.5
    events: int = 200_000
    warmup_events: int = 2_000
    bins: int = 100
    beatdown_threshold: float = BEATDOWN_THRESHOLD

    @classmethod
    def quick(cls) -> DistributionParams:
        return cls(events=10_000, warmup_events=500, bins=50)


def segment_histogram(path: fluid.SamplePath, edges: np.ndarray, skip: int = 0) -> np.ndarray:
    """Time spent in each bin [edges[j], edges[j+1]) by every connection's rate, after ``skip``
    events, as a (bins, N) array. Exact: between events a rate climbs linearly with slope eta_i,
    so a segment from a to b spends ``overlap([a, b], bin) / eta_i`` time units in a bin."""
    start = path.rates_after[skip:-1] / path.capacity  # (K, N), segment start
    end = path.rates_before[skip + 1 :] / path.capacity
    eta = np.asarray(path.eta) / path.capacity
    below = np.array([np.clip(np.minimum(end, x) - start, 0.0, None).sum(axis=0) for x in edges])
    return np.diff(below, axis=0) / eta  # time below each edge, differenced


def distributions(params: DistributionParams, seed: int = 0) -> pd.DataFrame:
    """Density and CDF of X_1/c per policy, from the exact piecewise-linear sample paths.

    Connections are identical, so both are pooled. Columns: policy, lower, upper (bin edges),
    density, cdf (at ``upper``), second_moment (exact integral over the same path).
    """
    edges = np.linspace(0.0, 1.0, params.bins + 1)
    frames = []
    for name in POLICIES:
        path = fluid.sample_path(
            params.flows,
            _policy(name, params.beatdown_threshold),
            beta=params.beta,
            events=params.warmup_events + params.events,
            seed=seed,
        )
        skip = params.warmup_events
        time = path.times[-1] - path.times[skip]
        mass = segment_histogram(path, edges, skip).sum(axis=1) / (params.flows * time)
        a = path.rates_after[skip:-1] / path.capacity
        b = path.rates_before[skip + 1 :] / path.capacity
        second = float(((b**3 - a**3) / 3.0).sum() / (params.flows * time))
        frames.append(
            pd.DataFrame(
                {
                    "policy": name,
                    "lower": edges[:-1],
                    "upper": edges[1:],
                    "density": mass / np.diff(edges),
                    "cdf": np.cumsum(mass),
                    "second_moment": second,
                }
            )
        )
    return pd.concat(frames, ignore_index=True)


# ---- largest-rate: eq. (9) and round robin -------------------------------------------------------


@dataclass(frozen=True)
class LargestRateParams:
    flows: tuple[int, ...] = (2, 3, 4, 5, 6, 7, 8)
    beta: float = 0.5
    events: int = 2_000
    check_events: int = 200  # round robin is checked over the last check_events events

    @classmethod
    def quick(cls) -> LargestRateParams:
        return cls(flows=(2, 3, 4, 8), events=600, check_events=64)


def largest_rate(params: LargestRateParams, seed: int = 0) -> pd.DataFrame:
    """Sorted rates just before the last congestion event vs eq. (9), per N and rank.

    The run starts far from the fixed point (rates proportional to 0, 1, ..., N - 1).
    ``round_robin`` says whether every window of N consecutive events among the last
    ``check_events`` signals each connection exactly once (Remark 2).
    """
    rows = []
    for n in params.flows:
        start = np.arange(n) / n**2
        path = fluid.sample_path(
            n,
            policies.LargestRate(),
            beta=params.beta,
            events=params.events,
            seed=seed,
            start=start,
        )
        picks = path.signalled[-params.check_events :].argmax(axis=1)
        windows = np.lib.stride_tricks.sliding_window_view(picks, n)
        robin = bool(all(len(set(w)) == n for w in windows))
        simulated = np.sort(path.rates_before[-1] / path.capacity)[::-1]
        formula = theory_moments.largest_rate_fixed_point(n, params.beta)
        for k in range(n):
            rows.append(
                {
                    "flows": n,
                    "rank": k + 1,
                    "simulated": float(simulated[k]),
                    "formula": float(formula[k]),
                    "round_robin": robin,
                }
            )
    return pd.DataFrame(rows)


# ---- beatdown: Fig. 5, the tagging times, Theorem 3 ----------------------------------------------


@dataclass(frozen=True)
class BeatdownParams:
    path_events: int = 110  # Fig. 5: a few beatdowns of two connections
    path_threshold: float = 1e-3
    flows: tuple[int, ...] = (2, 3, 4, 5, 6)
    tag_events: int = 4_000
    theorem3_replicas: int = 2  # the boundary term grows with replicas: few long runs
    theorem3_events: int = 100_000
    theorem3_threshold: float = 1e-4  # fewer events per unit time than the tag runs
    threshold: float = BEATDOWN_THRESHOLD

    @classmethod
    def quick(cls) -> BeatdownParams:
        return cls(flows=(2, 3, 4), tag_events=1_500, theorem3_events=20_000)


def beatdown_path(params: BeatdownParams, seed: int = 0) -> pd.DataFrame:
    """Fig. 5: the exact rates of two connections under beatdown (time, flow, rate)."""
    path = fluid.sample_path(
        2,
        policies.Beatdown(threshold=params.path_threshold),
        events=params.path_events,
        seed=seed,
        start=[0.7, 0.05],
    )
    return path.to_frame()


def beatdown_tags(params: BeatdownParams, seed: int = 0) -> pd.DataFrame:
    """Sorted rates at the last tagging time vs the corrected and the printed stationary point."""
    rows = []
    for n in params.flows:
        path = fluid.sample_path(
            n, policies.Beatdown(threshold=params.threshold), events=params.tag_events, seed=seed
        )
        picks = path.signalled[1:].argmax(axis=1)
        new_tag = np.flatnonzero(np.diff(picks) != 0) + 2  # events where a new tag is signalled
        simulated = np.sort(path.rates_before[new_tag[-1]] / path.capacity)[::-1]
        corrected = theory_moments.beatdown_tag_point(n)
        printed = theory_moments.beatdown_tag_point_printed(n)
        for k in range(n):
            rows.append(
                {
                    "flows": n,
                    "rank": k + 1,
                    "simulated": float(simulated[k]),
                    "corrected": float(corrected[k]),
                    "printed": float(printed[k]),
                    "tagging_times": len(new_tag),
                }
            )
    return pd.DataFrame(rows)


def theorem3(params: BeatdownParams, seed: int = 0) -> pd.DataFrame:
    """Mean aggregate under beatdown (new tag: largest or random) vs Theorem 1, per N,
    with the deterministic bound on their difference
    (:func:`tcplab.theory.altman.theorem1_bound`)."""
    rows = []
    for n in params.flows:
        for pick in ("largest", "random"):
            result = fluid.simulate(
                n,
                policies.Beatdown(threshold=params.theorem3_threshold, pick=pick),
                events=params.theorem3_events,
                replicas=params.theorem3_replicas,
                seed=seed,
            )
            rows.append(
                {
                    "flows": n,
                    "pick": pick,
                    "aggregate": result.aggregate,
                    "aggregate_ci": result.aggregate_ci,
                    "theorem1": float(altman.parallel_throughput(n)),
                    "bound": altman.theorem1_bound(result),
                    "second_moment": float(np.mean(result.second_moment)),
                }
            )
    return pd.DataFrame(rows)
