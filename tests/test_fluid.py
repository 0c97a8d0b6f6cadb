"""The exact fluid model: hand-computed paths, pathwise identities, Theorems 1-3, bad input.

Theorem 1 is checked with a deterministic tolerance. For identical connections and any policy
that signals one connection per event, the model obeys a sample-path identity (from
d/dt sum x_i**2 = 2 eta A and the drop at each event), so over a window of length T

    mean(A)/c - theorem1 = (dPhi + rho (d_end**2 - d_start**2)) / (2 eta c T (1 + N rho)),

with rho = (1 + beta)/(1 - beta), Phi = sum x_i**2 in [0, c**2] and d the aggregate's drop in
[0, c]. Summed over replicas this bounds the error of the pooled mean by
replicas (1 + rho) c / (2 eta (1 + N rho) simulated_time), which is far below the 0.5% the
paper's figures can resolve. Random policies are *also* exact up to that boundary term, so the
Student-t interval is not the right yardstick there; it is for the second moments.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tcplab import fluid
from tcplab.fluid import CHUNK_REPLICAS, FluidResult, sample_path, simulate
from tcplab.policies import POLICY_NAMES, Beatdown, LargestRate, RateIndependent
from tcplab.theory.altman import parallel_throughput, theorem1_bound
from tcplab.theory.parallel import rate_independent_throughputs

from stat_tools import binomial_region, t_quantile, widen


def two_flow_rate_independent(probs: tuple[float, float], beta: float, eta: tuple) -> float:
    """Exact mean aggregate / c of two connections, rate-independent, any eta_1, eta_2.

    At congestion times x_1 follows a random affine recursion (x -> a_1 x, or
    x -> c - a_2 (c - x) with a_i = beta + (1 - beta) eta_i / eta_total), whose stationary first
    two moments are closed forms; Palm inversion gives mean(A)/c = 1 - (1 - beta) E[x_M^2] /
    (2 E[x_M]), x_M the rate of the signalled connection just before the event (c = 1).
    """
    p1, p2 = probs
    a1, a2 = (beta + (1 - beta) * e / sum(eta) for e in eta)
    m1 = p2 * (1 - a2) / (1 - p1 * a1 - p2 * a2)
    m2 = p2 * ((1 - a2) ** 2 + 2 * (1 - a2) * a2 * m1) / (1 - p1 * a1**2 - p2 * a2**2)
    first = p1 * m1 + p2 * (1 - m1)
    second = p1 * m2 + p2 * (1 - 2 * m1 + m2)
    return 1 - (1 - beta) * second / (2 * first)


# ---- N = 1: the AIMD sawtooth, exactly, under every policy ---------------------------------


@pytest.mark.parametrize("policy", POLICY_NAMES)
def test_one_connection_is_the_exact_sawtooth(policy: str) -> None:
    beta, eta, c = 0.3, 2.0, 5.0
    period = (1 - beta) * c / eta
    path = sample_path(1, policy, beta=beta, eta=eta, capacity=c, events=12, seed=3)
    assert np.allclose(path.times, np.arange(13) * period, rtol=0, atol=1e-12)
    assert np.allclose(path.rates_before[1:], c, rtol=0, atol=1e-12)
    assert np.allclose(path.rates_after, beta * c, rtol=0, atol=1e-12)
    frame = path.to_frame()
    assert list(frame.columns) == ["time", "flow", "rate"]
    assert frame["rate"].tolist()[:5] == pytest.approx([beta, 1, beta, 1, beta], abs=1e-12)

    result = simulate(1, policy, beta=beta, eta=eta, capacity=c, events=500, replicas=3)
    assert result.aggregate == pytest.approx((1 + beta) / 2, abs=1e-9)
    assert result.per_flow[0] == pytest.approx((1 + beta) / 2, abs=1e-9)
    assert result.second_moment[0] == pytest.approx((1 + beta + beta**2) / 3, abs=1e-9)
    assert result.simulated_time == pytest.approx(3 * 500 * period, rel=1e-12)
    assert result.events == 1500


# ---- hand-computed paths and fixed points ----------------------------------------------------


def test_two_flow_largest_rate_by_hand() -> None:
    """Start (1/8, 3/8), c = 1, eta = 1, beta = 1/2; every number below is a dyadic fraction.

    t1 = (1 - 1/2)/2 = 1/4: rates (3/8, 5/8), flow 2 halves to 5/16;
    t2 = 1/4 + (5/16)/2 = 13/32: rates (17/32, 15/32), flow 1 halves to 17/64;
    t3 = 13/32 + (17/64)/2 = 69/128: rates (51/128, 77/128), flow 2 halves to 77/256.
    """
    path = sample_path(2, "largest-rate", start=[1 / 8, 3 / 8], events=3)
    assert path.times.tolist() == [0, 1 / 4, 13 / 32, 69 / 128]
    assert path.rates_before.tolist() == [
        [1 / 8, 3 / 8], [3 / 8, 5 / 8], [17 / 32, 15 / 32], [51 / 128, 77 / 128],
    ]  # fmt: skip
    assert path.rates_after.tolist() == [
        [1 / 8, 3 / 8], [3 / 8, 5 / 16], [17 / 64, 15 / 32], [51 / 128, 77 / 256],
    ]  # fmt: skip
    assert path.signalled[1:].tolist() == [[False, True], [True, False], [False, True]]
    frame = path.to_frame()
    flow1 = frame[frame.flow == 1]
    assert flow1["time"].tolist() == [0, 1 / 4, 13 / 32, 13 / 32, 69 / 128]
    assert flow1["rate"].tolist() == [1 / 8, 3 / 8, 17 / 32, 17 / 64, 51 / 128]
    assert len(frame) == 2 * 4 + 3  # N start rows + N rows per event + one per drop


def test_largest_rate_two_flows_is_periodic_with_theorem2_moments() -> None:
    """Proposition 1 (N = 2): pre-event rates (4/7, 3/7); mean 3/7 and E[X^2] = 4/21 each."""
    result = simulate(2, "largest-rate", events=1000, replicas=4, seed=1)
    assert result.per_flow == pytest.approx([3 / 7, 3 / 7], abs=1e-9)
    assert result.second_moment == pytest.approx([4 / 21, 4 / 21], abs=1e-9)


@pytest.mark.parametrize(("n", "beta"), [(3, 0.5), (4, 0.7)])
def test_largest_rate_fixed_point_is_proposition_1(n: int, beta: float) -> None:
    path = sample_path(n, "largest-rate", beta=beta, events=400, start=np.arange(n) / n**2)
    x1 = 2 / ((1 + beta) * n + (1 - beta))
    expected = x1 * (1 - (1 - beta) / n * np.arange(n))
    assert np.sort(path.rates_before[-1])[::-1] == pytest.approx(expected, abs=1e-9)
    # round robin: each connection is signalled once in every n consecutive events
    picks = path.signalled[-n:].argmax(axis=1)
    assert sorted(picks.tolist()) == list(range(n))


@pytest.mark.parametrize("n", [3, 4])
def test_beatdown_tag_times_match_section_4b(n: int) -> None:
    """Rates at the events where a new connection is tagged, sorted: 2 (N - k)/(N (N - 1)) c.

    (The paper's printed summary, (1 - i/N)/(N - 1), is half of this and does not sum to c.)
    """
    path = sample_path(n, Beatdown(threshold=1e-9), events=2000)
    picks = path.signalled[1:].argmax(axis=1)
    new_tag = np.flatnonzero(np.diff(picks) != 0) + 2
    expected = [2 * (n - k) / (n * (n - 1)) for k in range(1, n + 1)]
    assert np.sort(path.rates_before[new_tag[-1]])[::-1] == pytest.approx(expected, abs=1e-6)


@pytest.mark.parametrize("beta", [0.5, 0.3])
@pytest.mark.parametrize(("capacity", "eta"), [(1.0, 1.0), (20.0, 3.0), (0.05, 0.2)])
def test_beatdown_lasts_the_events_its_threshold_allows_at_any_capacity(
    beta: float, capacity: float, eta: float
) -> None:
    """N = 2: signalled at rate x, the tagged connection drops to beta x and then gets half of
    the freed (1 - beta) x back before the next congestion time, so its rate at successive
    events is x r^j with r = beta + (1 - beta)/2. A new tag starts at x0 in ((1 - th) c, c]
    (the other connection was just released below th c) and is signalled while x0 r^j >= th c:
    with th = r^10.5 that is exactly j = 0..10, eleven events, whatever c and eta are."""
    r = beta + (1 - beta) / 2
    threshold = r**10.5
    assert r**10 * (1 - threshold) > threshold > r**11  # margins on both sides
    path = sample_path(
        2, Beatdown(threshold=threshold), beta=beta, capacity=capacity, eta=eta, events=300
    )
    picks = path.signalled[1:].argmax(axis=1)
    ends = np.flatnonzero(np.diff(picks)) + 1
    runs = np.diff(np.concatenate(([0], ends, [picks.size])))
    assert runs.size > 20 and set(runs[1:-1].tolist()) == {11}


def test_beatdown_second_moment_two_flows() -> None:
    """N = 2, beta = 1/2: each beatdown is a geometric sawtooth (factor r = 3/4 per event),
    giving E[X^2]/c^2 = (1 + (r^3 - beta^3)/(1 - r^3))/6 = 28/111 as the threshold -> 0.
    The paper's Theorem 2 states 1/3, which would need the tagged rate to follow c - x_other
    continuously; that path has mean aggregate c, contradicting Theorem 3 (6/7 c)."""
    result = simulate(2, Beatdown(threshold=1e-8), events=20_000, replicas=2)
    assert result.second_moment == pytest.approx([28 / 111, 28 / 111], abs=1e-5)
    assert result.aggregate == pytest.approx(6 / 7, abs=1e-6)


@pytest.mark.parametrize("eta", [1.0, [0.5, 1.0, 4.0]])
def test_synchronised_losses_give_the_single_flow_utilisation(eta: object) -> None:
    result = simulate(3, "all", beta=0.6, eta=eta, events=2000, replicas=4, seed=5)
    assert result.aggregate == pytest.approx(0.8, abs=1e-9)
    assert result.aggregate_second_moment == pytest.approx((1 + 0.6 + 0.36) / 3, abs=1e-9)


# ---- Theorem 1 and Theorem 2 ----------------------------------------------------------------


@pytest.mark.parametrize("n", [2, 4])
@pytest.mark.parametrize(
    ("policy", "probs"),
    [
        ("rate-independent", None),
        ("rate-independent", "skewed"),
        ("rate-proportional", None),
        ("largest-rate", None),
        ("beatdown", None),
    ],
)
def test_theorem1_aggregate_is_insensitive_to_the_policy(
    policy: str, probs: object, n: int
) -> None:
    if probs == "skewed":  # Example 1 of the paper with sigma = 1/8 (N = 4), or 0.8/0.2
        probs = [1 / 16, 1 / 16, 7 / 16, 7 / 16] if n == 4 else [0.8, 0.2]
    replicas = 64 if policy == "rate-independent" else 8
    result = simulate(n, policy, probs=probs, events=20_000, replicas=replicas, seed=n)
    bound = theorem1_bound(result)
    assert bound < 5e-3 * parallel_throughput(n, 0.5)  # the check below is a sharp one
    assert abs(result.aggregate - parallel_throughput(n, 0.5)) <= bound + 1e-12
    assert result.per_flow.sum() == pytest.approx(result.aggregate, rel=1e-12)


def test_theorem1_holds_for_other_beta_eta_and_capacity() -> None:
    result = simulate(3, "rate-proportional", beta=0.8, eta=2.5, capacity=7.0, events=20_000)
    assert abs(result.aggregate - parallel_throughput(3, 0.8)) <= theorem1_bound(result) + 1e-12


def test_skewed_probabilities_shift_throughput_between_flows() -> None:
    """Example 1: connections picked more often get less (the exact rate-independent closed
    form); each of the 4 means is within its 99.975% interval (0.1% for the test, 31 df)."""
    probs = [1 / 16, 1 / 16, 7 / 16, 7 / 16]
    result = simulate(4, probs=probs, events=20_000, replicas=32)
    exact = rate_independent_throughputs(probs, 0.5)
    assert exact[:2].min() > 4 * exact[2:].max()
    assert np.all(np.abs(result.per_flow - exact) < widen(result.per_flow_ci, 31, 1e-3 / 4))


@pytest.mark.parametrize(
    ("policy", "expected"), [("rate-independent", 5 / 24), ("rate-proportional", 679 / 3396)]
)
def test_theorem2_second_moments(policy: str, expected: float) -> None:
    """Both connections' E[X^2] within their 99.95% intervals (0.1% for the test, 63 df); the
    intervals are narrow enough to see a 1% error."""
    result = simulate(2, policy, events=20_000, replicas=64, seed=7)
    band = widen(result.second_moment_ci, 63, 1e-3 / 2)
    assert np.all(np.abs(result.second_moment - expected) < band)
    assert np.all(band < 0.01 * expected)


# ---- heterogeneous additive increase --------------------------------------------------------


@pytest.mark.parametrize("policy", ["rate-proportional", Beatdown(threshold=0.02)])
def test_common_eta_and_capacity_only_rescale_time(policy: object) -> None:
    """Rates in units of c with time in units of c/eta: the same path, whatever c and eta
    (the beatdown threshold is a fraction of c, so it scales too)."""
    base = simulate(3, policy, events=3000, replicas=4, seed=2)
    scaled = simulate(3, policy, eta=4.0, capacity=3.0, events=3000, replicas=4, seed=2)
    assert scaled.aggregate == pytest.approx(base.aggregate, rel=1e-12)
    assert scaled.second_moment == pytest.approx(base.second_moment, rel=1e-10)
    assert scaled.simulated_time == pytest.approx(base.simulated_time * 3.0 / 4.0, rel=1e-10)


def test_heterogeneous_eta_changes_the_aggregate() -> None:
    """Theorem 1 needs identical connections: with eta = (1, 3) the rate-independent policy
    gives exactly 5/6 (the closed form above), not Theorem 1's 6/7."""
    result = simulate(2, eta=[1.0, 3.0], events=20_000, replicas=64, seed=4)
    expected = two_flow_rate_independent((0.5, 0.5), 0.5, (1.0, 3.0))
    assert expected == pytest.approx(5 / 6, abs=1e-12)
    band = widen(result.aggregate_ci, 63, 1e-3)  # 99.9%
    assert abs(result.aggregate - expected) < band
    assert parallel_throughput(2, 0.5) - result.aggregate > 100 * band


def test_two_flow_closed_form_agrees_with_theorem1_when_identical() -> None:
    value = two_flow_rate_independent((0.3, 0.7), 0.5, (2.0, 2.0))
    assert value == pytest.approx(parallel_throughput(2, 0.5), abs=1e-12)


# ---- the fast loop integrates exactly what the path shows -----------------------------------


def path_integrals(path: fluid.SamplePath) -> tuple[np.ndarray, np.ndarray, float]:
    """Integrals of x_i, x_i**2 and A**2 over the path, segment by segment (exact for lines)."""
    dt = np.diff(path.times)[:, None]
    lo, hi = path.rates_after[:-1], path.rates_before[1:]
    first = ((lo + hi) / 2 * dt).sum(axis=0)
    second = ((lo * lo + lo * hi + hi * hi) / 3 * dt).sum(axis=0)
    a, b = lo.sum(axis=1), hi.sum(axis=1)
    return first, second, float(((a * a + a * b + b * b) / 3 * dt[:, 0]).sum())


@pytest.mark.parametrize(
    ("policy", "beta", "eta"),
    [
        (RateIndependent((0.2, 0.3, 0.5)), 0.5, 1.0),
        (RateIndependent((0.2, 0.3, 0.5)), [0.3, 0.5, 0.8], [1.0, 2.0, 3.0]),
        ("rate-proportional", [0.3, 0.5, 0.8], [1.0, 2.0, 3.0]),
        ("beatdown", 0.5, [1.0, 2.0, 0.5]),
        ("all", [0.3, 0.5, 0.8], [1.0, 2.0, 3.0]),
    ],
)
def test_lazy_integrals_equal_the_path_integrals(policy: object, beta: object, eta: object) -> None:
    """The engine's sums by pieces (blocks, re-basing) against the drawn path (white box)."""
    start, events, seed = np.array([0.1, 0.25, 0.05]), 2500, 8
    path = sample_path(3, policy, beta=beta, eta=eta, events=events, seed=seed, start=start)
    model = fluid._prepare(3, policy, None, 1.0, beta, eta)
    run = fluid._Run(
        model, start[None, :], np.random.default_rng(np.random.SeedSequence(seed).spawn(1)[0])
    )
    tally = fluid.Tally(run)
    run.advance(events, tally)
    time, first, second, agg_second = tally.integrals(run)
    want_first, want_second, want_agg = path_integrals(path)
    assert time[0] == pytest.approx(path.times[-1], rel=1e-12)
    assert first[0] == pytest.approx(want_first, rel=1e-9)
    assert second[0] == pytest.approx(want_second, rel=1e-9)
    assert agg_second[0] == pytest.approx(want_agg, rel=1e-9)


# ---- properties -------------------------------------------------------------------------------


def draw_policy(draw: st.DrawFn, n: int) -> tuple[str, list[float] | None]:
    """Any policy by name and, for rate-independent, maybe probabilities (zeros allowed)."""
    policy = draw(st.sampled_from(POLICY_NAMES))
    probs = None
    if policy == "rate-independent" and draw(st.booleans()):
        weights = np.array(draw(st.lists(st.floats(0.0, 1.0), min_size=n, max_size=n)))
        probs = (weights / weights.sum()).tolist() if weights.sum() > 0 else None
    return policy, probs


@st.composite
def models(draw: st.DrawFn) -> dict:
    n = draw(st.integers(1, 5))
    per_flow = st.booleans()
    beta = draw(st.floats(0.05, 0.95))
    if draw(per_flow):
        beta = draw(st.lists(st.floats(0.05, 0.95), min_size=n, max_size=n))
    eta = draw(st.floats(0.1, 10.0))
    if draw(per_flow):
        eta = draw(st.lists(st.floats(0.1, 10.0), min_size=n, max_size=n))
    policy, probs = draw_policy(draw, n)
    return {
        "flows": n,
        "policy": policy,
        "probs": probs,
        "beta": beta,
        "eta": eta,
        "capacity": draw(st.floats(0.01, 100.0)),
        "seed": draw(st.integers(0, 2**32)),
    }


@settings(max_examples=100, deadline=None)
@given(models(), st.integers(1, 80))
def test_path_properties(model: dict, events: int) -> None:
    path = sample_path(**model, events=events)
    c, n = model["capacity"], model["flows"]
    beta = np.broadcast_to(model["beta"], (n,))
    eta = np.broadcast_to(model["eta"], (n,))
    assert np.all(path.rates_before >= 0) and np.all(path.rates_after >= 0)
    assert np.allclose(path.rates_before[1:].sum(axis=1), c, rtol=1e-9, atol=0)
    assert np.all(np.diff(path.times) >= 0)
    grown = path.rates_after[:-1] + eta * np.diff(path.times)[:, None]
    assert np.allclose(path.rates_before[1:], grown, rtol=0, atol=1e-9 * c)
    dropped = np.where(path.signalled, beta * path.rates_before, path.rates_before)
    assert np.allclose(path.rates_after, dropped, rtol=0, atol=1e-12 * c)
    signalled = path.signalled[1:].sum(axis=1)
    assert np.all(signalled == (n if model["policy"] == "all" else 1))
    frame = path.to_frame()
    assert frame["flow"].between(1, n).all() and frame["flow"].dtype.kind == "i"
    assert len(frame) == n * (events + 1) + path.signalled[1:].sum()
    assert (frame.groupby("flow")["time"].diff().dropna() >= 0).all()


@settings(max_examples=40, deadline=None)
@given(models(), st.integers(1, 300), st.integers(1, 5))
def test_result_properties(model: dict, events: int, replicas: int) -> None:
    result = simulate(**model, events=events, replicas=replicas, warmup_events=events % 7)
    assert result.per_flow.sum() == pytest.approx(result.aggregate, rel=1e-9)
    assert np.all(result.per_flow >= 0) and result.aggregate <= 1 + 1e-9
    assert np.all(result.second_moment >= result.per_flow**2 * (1 - 1e-9))
    assert result.aggregate_second_moment >= result.aggregate**2 * (1 - 1e-9)
    assert result.events == events * replicas and result.replicas == replicas
    json.dumps(result.to_dict(), allow_nan=False)


# ---- confidence intervals -------------------------------------------------------------------


def test_intervals_are_student_t_over_the_replicas_time_averages() -> None:
    """Rebuild every replica of a small run independently and recompute each interval.

    ``simulate`` documents that replica r starts from rates drawn uniformly on the simplex
    (normalised exponentials from the chunk's generator, summing to mean(beta) c), runs
    ``warmup_events`` events and measures the next ``events``. Largest-rate picks no random
    numbers, so sample_path from the same start replays each replica exactly. Expected:
    pooled mean = total integral / total time; half-width = t(0.975, R - 1) * sd(ddof=1) /
    sqrt(R) of the per-replica time averages, with t from stat_tools (not tcplab.stats)."""
    n, replicas, warmup, events, seed, c, eta = 3, 5, 7, 30, 11, 2.0, [1.0, 2.0, 3.0]
    t_975 = t_quantile(0.975, replicas - 1)
    result = simulate(
        n, "largest-rate", capacity=c, eta=eta, events=events, replicas=replicas,
        warmup_events=warmup, seed=seed,
    )  # fmt: skip
    rng = np.random.default_rng(np.random.SeedSequence(seed).spawn(1)[0])
    shares = rng.exponential(size=(replicas, n))
    starts = shares / shares.sum(axis=1, keepdims=True) * 0.5 * c
    per_replica = []  # (time, integral of x_i, of x_i**2, of A**2) over the measured events
    for start in starts:
        path = sample_path(n, "largest-rate", capacity=c, eta=eta, start=start,
                           events=warmup + events)  # fmt: skip
        lo, hi = path.rates_after[warmup:-1], path.rates_before[warmup + 1 :]
        dt = np.diff(path.times[warmup:])[:, None]
        a, b = lo.sum(axis=1, keepdims=True), hi.sum(axis=1, keepdims=True)
        per_replica.append((
            dt.sum(), ((lo + hi) / 2 * dt).sum(axis=0),
            ((lo * lo + lo * hi + hi * hi) / 3 * dt).sum(axis=0),
            ((a * a + a * b + b * b) / 3 * dt).sum(),
        ))  # fmt: skip
    time = np.array([p[0] for p in per_replica])
    for name, integral, unit in (
        ("per_flow", np.array([p[1] for p in per_replica]), c),
        ("aggregate", np.array([p[1].sum() for p in per_replica]), c),
        ("second_moment", np.array([p[2] for p in per_replica]), c * c),
        ("aggregate_second_moment", np.array([p[3] for p in per_replica]), c * c),
    ):
        averages = integral / time.reshape((-1,) + (1,) * (integral.ndim - 1)) / unit
        assert np.all(np.std(averages, axis=0) > 1e-4)  # the replicas do differ
        mean = integral.sum(axis=0) / time.sum() / unit
        assert getattr(result, name) == pytest.approx(mean, rel=1e-9)
        standard_error = np.std(averages, axis=0, ddof=1) / np.sqrt(replicas)
        # the quantile the interval used: t975's table is rounded to three decimals
        quantile = getattr(result, f"{name}_ci") / standard_error
        assert quantile == pytest.approx(np.full_like(mean, t_975), rel=1e-9, abs=5e-4)


def test_intervals_cover_the_exact_moments_95_percent_of_the_time() -> None:
    """Coverage over K = 300 independent runs of 3 replicas (t with 2 degrees of freedom).

    Rate-independent, N = 2, beta = 1/2: each connection's mean is 3/7 (Theorem 1 and
    symmetry) and its E[X^2] is 5/24 (Theorem 2). A correct 95% interval misses with
    probability 0.05, so the misses are Binomial(300, 0.05); each count must lie in the region
    that this binomial leaves with probability <= 0.05% (0.1% for the test). The replica
    averages are over 500 events: close enough to normal for the t interval. A normal
    quantile instead of t's would miss about 18% of the time; half the width, about 16%."""
    runs, replicas, false_alarm = 300, 3, 5e-4
    misses = {"per_flow": 0, "second_moment": 0}
    exact = {"per_flow": 3 / 7, "second_moment": 5 / 24}
    for seed in range(runs):
        result = simulate(2, events=500, replicas=replicas, seed=seed)
        for name in misses:
            estimate, half_width = getattr(result, name)[0], getattr(result, f"{name}_ci")[0]
            misses[name] += abs(estimate - exact[name]) > half_width
    low, high = binomial_region(runs, 0.05, false_alarm)
    for name, count in misses.items():
        assert low <= count <= high, (name, count)


# ---- seeds ------------------------------------------------------------------------------------


def fields_equal(a: FluidResult, b: FluidResult) -> bool:
    da, db = a.to_dict(), b.to_dict()
    return json.dumps(da) == json.dumps(db)


@pytest.mark.parametrize("policy", ["rate-independent", "rate-proportional"])
def test_seeds(policy: str) -> None:
    zero = simulate(3, policy, events=500, replicas=4, seed=0)
    assert fields_equal(zero, simulate(3, policy, events=500, replicas=4, seed=0))
    assert not fields_equal(zero, simulate(3, policy, events=500, replicas=4, seed=1))
    assert zero.seed == 0
    path = sample_path(3, policy, events=30, seed=0)
    assert np.array_equal(path.times, sample_path(3, policy, events=30, seed=0).times)
    assert not np.array_equal(path.times, sample_path(3, policy, events=30, seed=1).times)


def test_no_global_random_state_is_used() -> None:
    np.random.seed(123)  # noqa: NPY002 - the legacy global state is what is being watched
    before = np.random.get_state()[1].copy()  # noqa: NPY002
    simulate(3, "rate-proportional", events=200, replicas=2)
    sample_path(3, Beatdown(pick="random"), events=50)
    assert np.array_equal(np.random.get_state()[1], before)  # noqa: NPY002


def test_more_replicas_than_one_chunk() -> None:
    result = simulate(2, replicas=CHUNK_REPLICAS + 3, events=20, warmup_events=0)
    assert result.replicas == CHUNK_REPLICAS + 3 and result.events == 20 * (CHUNK_REPLICAS + 3)
    assert np.isfinite(result.aggregate_ci)


def test_one_replica_has_no_interval() -> None:
    result = simulate(2, events=100, replicas=1)
    assert np.isnan(result.aggregate_ci) and result.to_dict()["aggregate_ci"] is None


def test_results_are_read_only() -> None:
    result = simulate(2, events=50, replicas=2)
    with pytest.raises(ValueError):
        result.per_flow[0] = 1.0
    with pytest.raises(AttributeError):
        result.aggregate = 1.0  # type: ignore[misc]


# ---- bad input --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"flows": 0}, "flows"),
        ({"flows": 2.5}, "flows"),
        ({"capacity": 0.0}, "capacity"),
        ({"capacity": -1.0}, "capacity"),
        ({"capacity": float("inf")}, "capacity"),
        ({"beta": 0.0}, "beta"),
        ({"beta": 1.0}, "beta"),
        ({"beta": [0.5, 1.5]}, "beta"),
        ({"beta": [0.5, 0.5, 0.5]}, "beta"),
        ({"beta": "half"}, "beta"),
        ({"eta": 0.0}, "eta"),
        ({"eta": [1.0, -1.0]}, "eta"),
        ({"events": 0}, "events"),
        ({"replicas": 0}, "replicas"),
        ({"warmup_events": -1}, "warmup_events"),
        ({"seed": -1}, "seed"),
        ({"seed": 1.5}, "seed"),
        ({"policy": "droptail"}, "policy"),
        ({"policy": None}, "policy"),
        ({"probs": [0.5, 0.4]}, "probs"),
        ({"probs": [0.2, 0.3, 0.5]}, "probs"),
        ({"policy": "all", "probs": [0.5, 0.5]}, "probs"),
        ({"policy": LargestRate(), "probs": [0.5, 0.5]}, "probs"),
        ({"policy": RateIndependent((0.2, 0.3, 0.5))}, "probs"),
    ],
)
def test_bad_input_names_the_parameter(kwargs: dict, name: str) -> None:
    args = {"flows": 2, "events": 10, "replicas": 1} | kwargs
    with pytest.raises(ValueError, match=name):
        simulate(**args)
    if name in ("replicas", "warmup_events"):
        return  # simulate only
    path_args = {k: v for k, v in args.items() if k != "replicas"}
    with pytest.raises(ValueError, match=name):
        sample_path(**path_args)


@pytest.mark.parametrize(
    "start", [[0.5], [0.5, 0.6], [-0.1, 0.2], [0.2, float("nan")], "low", [[0.1, 0.1]]]
)
def test_bad_start_is_rejected(start: object) -> None:
    with pytest.raises(ValueError, match="start"):
        sample_path(2, start=start)


def test_sample_path_event_limit() -> None:
    with pytest.raises(ValueError, match="events"):
        sample_path(2, events=10**7)
