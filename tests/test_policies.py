"""Loss policies: each choice rule on hand-made rate matrices, plus their input checks."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from tcplab.policies import (
    POLICY_NAMES,
    AllFlows,
    Beatdown,
    LargestRate,
    LossPolicy,
    RateIndependent,
    RateProportional,
    make_policy,
)

from stat_tools import proportion_bound


def rng(seed: int = 0) -> np.random.Generator:
    return np.random.default_rng(seed)


@pytest.mark.parametrize(
    ("name", "cls"),
    [
        ("rate-independent", RateIndependent),
        ("rate-proportional", RateProportional),
        ("largest-rate", LargestRate),
        ("beatdown", Beatdown),
        ("all", AllFlows),
    ],
)
def test_make_policy_builds_each_named_policy(name: str, cls: type[LossPolicy]) -> None:
    policy = make_policy(name, 3)
    assert isinstance(policy, cls)
    assert policy.name == name
    assert name in POLICY_NAMES


def test_policies_are_frozen() -> None:
    policy = Beatdown()
    with pytest.raises(dataclasses.FrozenInstanceError):
        policy.threshold = 0.5  # type: ignore[misc]


def test_unknown_policy_lists_the_allowed_names() -> None:
    with pytest.raises(ValueError, match="policy") as caught:
        make_policy("random-early-drop", 2)
    for name in POLICY_NAMES:
        assert name in str(caught.value)
    with pytest.raises(ValueError, match="policy"):
        make_policy(3, 2)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("probs", "flows"),
    [
        ([0.5, 0.5], 3),  # wrong length
        ([0.5, 0.4], 2),  # does not sum to 1
        ([1.2, -0.2], 2),  # outside [0, 1]
        ([0.5, float("nan")], 2),
        ([[0.5, 0.5]], 2),  # not 1-D
        ([], 1),
        ("abc", 1),
    ],
)
def test_bad_probs_are_rejected_naming_probs(probs: object, flows: int) -> None:
    with pytest.raises(ValueError, match="probs"):
        make_policy("rate-independent", flows, probs)  # type: ignore[arg-type]


def test_probs_tolerance_is_1e_minus_9() -> None:
    make_policy("rate-independent", 2, [0.5, 0.5 + 5e-10])
    with pytest.raises(ValueError, match="probs"):
        make_policy("rate-independent", 2, [0.5, 0.5 + 5e-9])


def test_probs_only_for_rate_independent() -> None:
    with pytest.raises(ValueError, match="probs"):
        make_policy("largest-rate", 2, [0.5, 0.5])


def test_bad_n_flows_is_rejected() -> None:
    with pytest.raises(ValueError, match="flows"):
        make_policy("all", 0)


@pytest.mark.parametrize("threshold", [0.0, 1.0, -1e-3, float("nan")])
def test_beatdown_threshold_range(threshold: float) -> None:
    with pytest.raises(ValueError, match="threshold"):
        Beatdown(threshold=threshold)


def test_beatdown_pick_choice() -> None:
    with pytest.raises(ValueError, match="pick"):
        Beatdown(pick="smallest")


# Frequencies of n independent choices: each within the normal band that a correct policy
# leaves with probability 0.1% / (number of connections checked), so 0.1% per test; with
# n = 100 000 or more the band is under 1.5% of each probability, and a 5% error fails.


def test_rate_independent_frequencies_match_probs() -> None:
    probs = np.array([0.1, 0.2, 0.7])
    picks = RateIndependent(tuple(probs)).draw(rng(1), (200_000,), 3)
    freq = np.bincount(picks, minlength=3) / picks.size
    band = proportion_bound(picks.size, probs, 1e-3 / 3)
    assert np.all(np.abs(freq - probs) < band) and np.all(band < 0.05 * probs / 2)


def test_rate_independent_uniform_by_default_and_ignores_rates() -> None:
    policy = make_policy("rate-independent", 4)
    rates = np.tile([0.0, 0.0, 0.0, 1.0], (100_000, 1))
    freq = np.bincount(policy.choose(rates, None, rng(2)), minlength=4) / 100_000
    assert np.all(np.abs(freq - 0.25) < proportion_bound(100_000, 0.25, 1e-3 / 4))


def test_zero_probability_is_never_drawn() -> None:
    picks = RateIndependent((0.0, 1.0, 0.0)).draw(rng(3), (10_000,), 3)
    assert np.all(picks == 1)


def test_rate_proportional_frequencies_follow_rates() -> None:
    rates = np.tile([0.1, 0.2, 0.7], (200_000, 1))
    picks = RateProportional().choose(rates, None, rng(4))
    freq = np.bincount(picks, minlength=3) / picks.size
    probs = np.array([0.1, 0.2, 0.7])
    assert np.all(np.abs(freq - probs) < proportion_bound(picks.size, probs, 1e-3 / 3))


def test_rate_proportional_never_picks_a_zero_rate() -> None:
    rates = np.tile([0.0, 0.6, 0.0, 0.4, 0.0], (10_000, 1))
    picks = RateProportional().choose(rates, None, rng(5))
    assert set(np.unique(picks)) == {1, 3}


@settings(max_examples=60, deadline=None)
@given(
    arrays(np.float64, st.tuples(st.integers(1, 20), st.integers(1, 6)), elements=st.floats(0, 1))
)
def test_largest_rate_is_the_row_argmax(rates: np.ndarray) -> None:
    assert np.array_equal(LargestRate().choose(rates, None, rng()), np.argmax(rates, axis=1))
    # the fluid model passes column-major views; the answer must not depend on the layout
    assert np.array_equal(
        LargestRate().choose(np.asfortranarray(rates), None, rng()), np.argmax(rates, axis=1)
    )


def test_largest_rate_ties_go_to_the_lowest_index() -> None:
    assert LargestRate().choose(np.array([[0.3, 0.3, 0.1]]), None, rng()).tolist() == [0]


def test_beatdown_keeps_its_tag_until_the_rate_is_below_threshold() -> None:
    policy = Beatdown(threshold=0.01)
    state = policy.initial_state(1, 3)
    assert state.tolist() == [-1]
    # first event: nobody tagged -> the largest rate is tagged
    assert policy.choose(np.array([[0.2, 0.5, 0.3]]), state, rng()).tolist() == [1]
    # still above 1% of c: keeps hitting connection 1 although it is no longer the largest
    assert policy.choose(np.array([[0.45, 0.05, 0.5]]), state, rng()).tolist() == [1]
    # below 1% of c: released, the largest (connection 2) is tagged
    assert policy.choose(np.array([[0.4, 0.005, 0.595]]), state, rng()).tolist() == [2]
    assert state.tolist() == [2]


@pytest.mark.parametrize("capacity", [100.0, 0.01])
def test_beatdown_threshold_is_a_fraction_of_the_capacity(capacity: float) -> None:
    """At a congestion time the rates sum to c; the tag is released below ``threshold * c``,
    so multiplying every rate by c changes no decision (rates below in units of c)."""
    policy = Beatdown(threshold=0.01)
    state = policy.initial_state(1, 3)
    for rates, tagged in (
        ([0.2, 0.5, 0.3], 1),
        ([0.45, 0.02, 0.53], 1),  # 2% of c: kept, though 0.02 c < 0.01 when c = 0.01
        ([0.4, 0.005, 0.595], 2),  # 0.5% of c: released, though 0.005 c > 0.01 when c = 100
    ):
        rows = np.array([rates]) * capacity
        assert policy.choose(rows, state, rng()).tolist() == [tagged]


def test_beatdown_random_pick_never_retags_the_released_connection() -> None:
    policy = Beatdown(threshold=0.01, pick="random")
    replicas = 20_000
    state = np.zeros(replicas, dtype=np.intp)  # everybody had connection 0 tagged
    rates = np.tile([0.001, 0.5, 0.499], (replicas, 1))
    picks = policy.choose(rates, state, rng(6))
    assert not np.any(picks == 0)
    assert abs(np.mean(picks == 1) - 0.5) < proportion_bound(replicas, 0.5, 1e-3)


def test_beatdown_with_one_connection_always_signals_it() -> None:
    policy = Beatdown()
    state = policy.initial_state(2, 1)
    for _ in range(3):
        assert policy.choose(np.array([[1.0], [1.0]]), state, rng()).tolist() == [0, 0]


def test_signal_masks() -> None:
    rates = np.array([[0.2, 0.5, 0.3], [0.6, 0.1, 0.3]])
    mask = LargestRate().signal(rates, None, rng())
    assert mask.tolist() == [[False, True, False], [True, False, False]]
    assert AllFlows().signal(rates, None, rng()).all()
    with pytest.raises(TypeError):
        AllFlows().choose(rates, None, rng())
    with pytest.raises(TypeError):
        LargestRate().draw(rng(), (2, 2), 3)


@pytest.mark.parametrize("name", ["rate-independent", "rate-proportional", "beatdown"])
def test_same_generator_seed_same_choices(name: str) -> None:
    rates = np.random.default_rng(9).random((50, 4))
    policy = Beatdown(pick="random") if name == "beatdown" else make_policy(name, 4)
    first = policy.choose(rates, policy.initial_state(50, 4), rng(11))
    second = policy.choose(rates, policy.initial_state(50, 4), rng(11))
    assert np.array_equal(first, second)
