"""The fluid model of the multipath scenarios (tcplab.multipath): weighted max-min rates
against the thesis's worked examples and against the defining property of weighted max-min
fairness, and the proportion manager on them against the fixed points derived by hand."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from tcplab import multipath as mp
from tcplab.theory import bmc


def test_fig_3_1_and_3_2_numbers() -> None:
    """Sec. 3.2: weights 1/2, 1/2 give the bundle 4 + (30 - 4)/3 = 12.67 Mb/s against the
    TCP flow's 17.33; weights 1/4, 3/4 give 3.75 + 11.25 = 15, as much as the TCP flow."""
    tcp, sub1, sub2 = mp.allocate(mp.shared(), [0.5, 0.5])
    assert (tcp, sub1, sub2) == pytest.approx((52 / 3, 4.0, 26 / 3))
    assert sub1 + sub2 == pytest.approx(12.67, abs=0.005)
    tcp, sub1, sub2 = mp.allocate(mp.shared(), [0.25, 0.75])
    assert (tcp, sub1, sub2) == pytest.approx((15.0, 3.75, 11.25))


def test_fig_4_1_numbers() -> None:
    """Sec. 4.1: uncoupled s1, s2, s3 get 4, 9 and 5 Mb/s; D1 = 1/3 gives 6 each; D1 = 1/4
    gives s2 1.6 + 4.29 = 5.89 (by hand: 8/5 and 30/7)."""
    s1, s2a, s2b, s3 = mp.allocate(mp.pooling(), controller="uncoupled")
    assert (s1, s2a + s2b, s3) == pytest.approx((4.0, 9.0, 5.0))
    s1, s2a, s2b, s3 = mp.allocate(mp.pooling(), [1 / 3, 2 / 3])
    assert (s1, s2a + s2b, s3) == pytest.approx((6.0, 6.0, 6.0))
    s1, s2a, s2b, s3 = mp.allocate(mp.pooling(), [0.25, 0.75])
    assert (s2a, s2b) == pytest.approx((8 / 5, 30 / 7))


@st.composite
def _networks(draw: st.DrawFn) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    links = draw(st.integers(1, 4))
    flows = draw(st.integers(1, 6))
    capacity = np.array(draw(st.lists(st.floats(0.5, 50.0), min_size=links, max_size=links)))
    rows = []
    for _ in range(flows):
        row = draw(st.lists(st.booleans(), min_size=links, max_size=links))
        if not any(row):
            row[draw(st.integers(0, links - 1))] = True
        rows.append(row)
    weights = np.array(draw(st.lists(st.floats(0.01, 1.0), min_size=flows, max_size=flows)))
    return capacity, np.array(rows), weights


@given(_networks())
def test_weighted_maxmin_has_its_defining_property(network) -> None:  # noqa: ANN001
    """Feasible, and every flow crosses a full link on which no flow has a larger rate per
    unit of weight (the bottleneck condition that characterises weighted max-min)."""
    capacity, routes, weights = network
    rate = mp.weighted_maxmin(capacity, routes, weights)
    load = routes.T.astype(float) @ rate
    assert np.all(load <= capacity * (1 + 1e-9))
    level = rate / weights
    for f in range(len(rate)):
        ok = [
            abs(load[link] - capacity[link]) <= 1e-9 * capacity[link]
            and level[f] >= level[routes[:, link]].max() * (1 - 1e-9)
            for link in np.flatnonzero(routes[f])
        ]
        assert any(ok), f"flow {f} has no bottleneck"


def test_shared_manager_enters_the_fixed_interval_and_stays() -> None:
    low, high = bmc.shared_fixed_interval(30.0, (4.0, 12.0))
    run = mp.manage(mp.shared(), [0.5, 0.5], j_s=10.0, k=0.5, duration=300.0)
    d1 = run.history[run.history["subflow"] == 0]["weight"].to_numpy()
    inside = np.flatnonzero((d1 >= low) & (d1 <= high))
    assert len(inside) and np.all((d1[inside[0] :] >= low) & (d1[inside[0] :] <= high))
    # there, the bundle gets half of the shared link, as much as the TCP flow
    assert run.sources["bmc"] == pytest.approx(15.0) and run.sources["tcp"] == pytest.approx(15.0)


@pytest.mark.parametrize("k", [0.1, 0.5, 1.0])
def test_pooling_manager_oscillates_around_one_third(k: float) -> None:
    """The steps do not shrink: after the first crossing D1 stays within one step
    (at most K max D(1 - D) = K / 4) of the fixed point 1/3, on both sides of it."""
    run = mp.manage(mp.pooling(), [0.5, 0.5], j_s=1.0, k=k, duration=200.0)
    d1 = run.history[run.history["subflow"] == 0]["weight"].to_numpy()
    crossed = np.flatnonzero(d1 < 1 / 3)[0]
    after = d1[crossed:]
    assert np.all(np.abs(after - 1 / 3) <= k / 4 + 1e-12)
    assert after.min() < 1 / 3 < after.max()
    sums = run.history.groupby("period")["weight"].sum()
    assert np.allclose(sums, 1.0)


def test_j_only_sets_the_time_scale() -> None:
    a = mp.manage(mp.pooling(), [0.5, 0.5], j_s=1.0, k=0.3, duration=50.0).history
    b = mp.manage(mp.pooling(), [0.5, 0.5], j_s=4.0, k=0.3, duration=200.0).history
    assert np.array_equal(a["weight"], b["weight"])
    assert np.allclose(b["t"], 4.0 * a["t"])


def test_the_first_entry_is_measured_at_the_starting_weights() -> None:
    run = mp.manage(mp.shared(), [0.4, 0.6], j_s=5.0, k=0.5, duration=20.0)
    first = run.history[run.history["period"] == 0]
    assert list(first["weight"]) == [0.4, 0.6] and list(first["t"]) == [5.0, 5.0]
    assert len(run.history) == 2 * 4


@pytest.mark.parametrize(
    ("call", "words"),
    [
        (lambda: mp.manage(mp.shared(), [0.5, 0.4]), "sum to 0.9"),
        (lambda: mp.manage(mp.shared(), [0.5, 0.5], k=1.5), "k=1.5"),
        (lambda: mp.manage(mp.shared(), [0.5, 0.5], j_s=0.0), "j_s=0"),
        (lambda: mp.scenario("ring"), "scenario='ring'"),
        (lambda: mp.allocate(mp.pooling(), [1.0]), "one value per subflow"),
    ],
)
def test_bad_input_is_named(call, words: str) -> None:  # noqa: ANN001
    with pytest.raises(ValueError, match=words.replace("(", r"\(")):
        call()
