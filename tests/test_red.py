"""RED after Floyd and Jacobson (1993), tested on its drop probability itself.

p_b is linear between min_th and max_th (up to max_p), forced (1) beyond, or with Floyd's
gentle variant a second line from max_p at max_th to 1 at 2 max_th. The count-based p_a =
p_b / (1 - count p_b) spaces the drops so that the number of arrivals between two drops at a
constant average is uniform (the paper's Section 7); ns-2's ``wait`` variant delays the
first possible drop to count = 1/p_b. Expectations come from these definitions: exact values
of the pure functions, the gap distribution derived from p_a in closed form, and a
chi-square test of the gaps RED itself produces (false-alarm rate 1e-3 per check).

The model counts an arrival as ns-2 and the paper's pseudo-code do (``count`` includes the
arrival being decided), so without ``wait`` the gaps are uniform on {1, ..., 1/p_b - 1};
the paper's Section 7 counts the arrivals before it and gets {1, ..., 1/p_b}.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from tcplab.packet import RED
from tcplab.packet.queues import red_base_probability, red_drop_probability

BUSY = -1.0  # idle_since: the link is transmitting
ALPHA = 1e-3  # false-alarm rate of each chi-square check
SETTINGS = [(5.0, 15.0, 0.02), (5.0, 15.0, 0.1), (60.0, 80.0, 0.1), (10.0, 26.0, 1.0)]


# -- p_b --------------------------------------------------------------------------------------
@pytest.mark.parametrize(("min_th", "max_th", "max_p"), SETTINGS)
def test_pb_is_linear_between_the_thresholds_then_forced(min_th, max_th, max_p):
    for avg in (0.0, min_th / 2, np.nextafter(min_th, 0.0)):
        assert red_base_probability(avg, min_th, max_th, max_p) == 0.0
    for f in np.linspace(0.0, 1.0, 11)[:-1]:
        avg = min_th + f * (max_th - min_th)
        assert red_base_probability(avg, min_th, max_th, max_p) == pytest.approx(f * max_p)
    below = np.nextafter(max_th, 0.0)
    assert red_base_probability(below, min_th, max_th, max_p) == pytest.approx(max_p)
    for avg in (max_th, 1.5 * max_th, 2 * max_th, 10 * max_th):
        assert red_base_probability(avg, min_th, max_th, max_p) == 1.0


@pytest.mark.parametrize(("min_th", "max_th", "max_p"), SETTINGS)
def test_gentle_pb_ramps_from_max_p_to_one_between_max_th_and_twice_it(min_th, max_th, max_p):
    pb = [red_base_probability(a, min_th, max_th, max_p, gentle=True) for a in (0.0, min_th)]
    assert pb == [0.0, 0.0]
    mid = (min_th + max_th) / 2  # below max_th gentle changes nothing
    assert red_base_probability(mid, min_th, max_th, max_p, True) == pytest.approx(max_p / 2)
    for f in np.linspace(0.0, 1.0, 11)[:-1]:
        avg = max_th + f * max_th
        expected = max_p + f * (1.0 - max_p)
        assert red_base_probability(avg, min_th, max_th, max_p, True) == pytest.approx(expected)
    for avg in (2 * max_th, 3 * max_th):
        assert red_base_probability(avg, min_th, max_th, max_p, True) == 1.0
    # continuous and non-decreasing all the way (the point of being gentle): on a fine grid
    # no step exceeds the grid spacing times the steeper slope
    grid, h = np.linspace(0.0, 2.5 * max_th, 2001, retstep=True)
    pb = np.array([red_base_probability(a, min_th, max_th, max_p, True) for a in grid])
    slope = max(max_p / (max_th - min_th), (1 - max_p) / max_th)
    assert np.all(np.diff(pb) >= 0) and np.max(np.diff(pb)) <= h * slope + 1e-12


# -- p_a --------------------------------------------------------------------------------------
def test_pa_is_count_based():
    pb = 0.0625  # 1/16, exact in binary
    for count in range(0, 16):
        assert red_drop_probability(pb, count) == pytest.approx(pb / (1 - count * pb))
    assert red_drop_probability(pb, 0) == pb
    for count in (16, 17, 40):
        assert red_drop_probability(pb, count) == 1.0
    # wait (ns-2): nothing until count p_b = 1, then p_b / (2 - count p_b), then certain
    assert all(red_drop_probability(pb, c, wait=True) == 0.0 for c in range(16))
    for count in range(16, 32):
        expected = pb / (2 - count * pb)
        assert red_drop_probability(pb, count, wait=True) == pytest.approx(expected)
    assert red_drop_probability(pb, 32, wait=True) == 1.0


def gap_distribution(pb: float, wait: bool, longest: int = 200) -> np.ndarray:
    """P(the n-th arrival after a drop is the next drop), n = 1..longest, from p_a alone:
    the arrivals 1..n-1 survive, the n-th is dropped."""
    alive, out = 1.0, []
    for n in range(1, longest + 1):
        p = min(red_drop_probability(pb, n, wait), 1.0)
        out.append(alive * p)
        alive *= 1.0 - p
    return np.array(out)


@pytest.mark.parametrize("n", [16, 20, 50])
def test_count_based_pa_makes_the_gaps_uniform(n):
    """Floyd and Jacobson's Section 7: with p_a = p_b / (1 - count p_b) the product of the
    survival terms telescopes and every gap is equally likely. With this count: 1/(N - 1)
    on {1, ..., N - 1}, N = 1/p_b; with wait: 1/N on {N, ..., 2N - 1}."""
    pb = 1.0 / n
    plain = gap_distribution(pb, wait=False)
    assert plain[: n - 1] == pytest.approx(np.full(n - 1, 1 / (n - 1)), abs=1e-12)
    assert plain[n - 1 :] == pytest.approx(0.0, abs=1e-12)
    waited = gap_distribution(pb, wait=True)
    assert waited[: n - 1] == pytest.approx(0.0, abs=1e-12)
    assert waited[n - 1 : 2 * n - 1] == pytest.approx(np.full(n, 1 / n), abs=1e-12)
    assert waited[2 * n - 1 :] == pytest.approx(0.0, abs=1e-12)


# -- RED itself, at a constant average ----------------------------------------------------------
def chi2_sf(x: float, df: int) -> float:
    """P(chi-square with ``df`` degrees of freedom > x): the regularized upper incomplete gamma
    function Q(df/2, x/2), from its power series (fine for the sizes used here)."""
    s, z = df / 2.0, x / 2.0
    term = total = 1.0 / s
    n = 0
    while term > 1e-17 * total:
        n += 1
        term *= z / (s + n)
        total += term
    lower = math.exp(s * math.log(z) - z - math.lgamma(s)) * total
    return max(0.0, 1.0 - lower)


def test_the_chi_square_tail_is_right():
    for x in (0.5, 3.0, 9.0):  # closed forms: df = 1 -> erfc(sqrt(x/2)), df = 2 -> exp(-x/2)
        assert chi2_sf(x, 1) == pytest.approx(math.erfc(math.sqrt(x / 2)), rel=1e-9)
        assert chi2_sf(x, 2) == pytest.approx(math.exp(-x / 2), rel=1e-9)
    assert chi2_sf(36.123, 14) == pytest.approx(1e-3, rel=1e-3)  # printed table: 0.999 quantile


def red_gaps(pb_target: float, wait: bool, arrivals: int, seed: int) -> tuple[np.ndarray, RED]:
    """Arrivals between drops when RED's average sits at the queue length giving p_b (w_q =
    1 makes the average the instantaneous queue)."""
    q = RED(100, min_th=10.0, max_th=26.0, max_p=0.25, w_q=1.0, wait=wait,
            rng=np.random.default_rng(seed))  # fmt: skip
    waiting = 10 + round(pb_target / 0.25 * 16)
    assert red_base_probability(waiting, 10.0, 26.0, 0.25) == pb_target
    dropped = np.array([not q.admit(waiting, 0.0, BUSY) for _ in range(arrivals)])
    drops = np.flatnonzero(dropped)
    return np.diff(drops), q


def uniformity_p_value(gaps: np.ndarray, low: int, high: int) -> float:
    counts = np.bincount(gaps - low, minlength=high - low + 1)
    expected = len(gaps) / (high - low + 1)
    chi2 = float(np.sum((counts - expected) ** 2 / expected))
    return chi2_sf(chi2, high - low)


@pytest.mark.parametrize("wait", [False, True])
def test_red_drops_at_uniform_gaps(wait):
    pb = 0.0625  # avg = 14 between min_th 10 and max_th 26 with max_p 0.25
    n = 16
    gaps, q = red_gaps(pb, wait, 80_000, seed=11)
    low, high = (n, 2 * n - 1) if wait else (1, n - 1)
    assert gaps.min() >= low and gaps.max() <= high  # exact: the support
    assert uniformity_p_value(gaps, low, high) > ALPHA
    assert q.forced_drops == 0 and q.early_drops == len(gaps) + 1


def test_the_uniformity_check_can_fail():
    """Geometric gaps (dropping with p_b regardless of count), cut to the same support, are
    not uniform: the check rejects them."""
    rng = np.random.default_rng(11)
    gaps = rng.geometric(0.0625, 20_000)
    gaps = gaps[gaps <= 15]
    assert uniformity_p_value(gaps, 1, 15) < ALPHA


def test_count_restarts_below_min_th_and_after_a_drop():
    q = RED(100, min_th=10.0, max_th=26.0, max_p=0.25, w_q=1.0, rng=np.random.default_rng(0))
    for k in range(1, 6):
        q.admit(14, 0.0, BUSY)
        assert q.count in (k, 0)  # one more arrival since the last drop, or just dropped
        if q.count == 0:
            break
    q.admit(3, 0.0, BUSY)  # below min_th
    assert q.count == 0
    while q.admit(14, 0.0, BUSY):
        pass
    assert q.count == 0 and q.early_drops >= 1


@pytest.mark.parametrize("gentle", [False, True])
def test_forced_drops_beyond_the_forced_threshold_and_at_a_full_buffer(gentle):
    q = RED(200, min_th=20.0, max_th=40.0, max_p=0.05, w_q=1.0, gentle=gentle,
            rng=np.random.default_rng(3))  # fmt: skip
    forced_from = 80 if gentle else 40
    decisions = [q.admit(forced_from, 0.0, BUSY) for _ in range(50)]
    assert not any(decisions) and q.forced_drops == 50 and q.early_drops == 0
    q.forced_drops = 0
    if gentle:  # just above max_th: p_b = 0.05 + 0.95 * 2/40, early drops only
        decisions = [q.admit(42, 0.0, BUSY) for _ in range(5000)]
        assert q.forced_drops == 0 and 0 < q.early_drops < 5000
    full = RED(10, min_th=2.0, max_th=4.0, w_q=0.002)  # the average stays low
    assert not full.admit(10, 0.0, BUSY) and full.forced_drops == 1
