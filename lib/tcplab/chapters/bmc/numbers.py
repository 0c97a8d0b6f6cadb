"""The thesis's own arithmetic, recomputed: every worked number of Chapters 2-5.

Each row sets the number the thesis prints beside the same quantity computed from the
thesis's own definitions (its equations, the fluid model of its worked examples, the weights of
its figure captions), with a tolerance by the book's rules: ``exact`` where the thesis writes
a fraction or an equation, ``printed`` where it rounds (5.71, 8.67: half a unit of the last
digit). Where the thesis is wrong the row disagrees and the chapter names the slip; nothing
here is corrected silently.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from tcplab import multipath as mp
from tcplab.claims import Claim, holds
from tcplab.ledger import tolerance
from tcplab.packet.weighted import weighted_setup
from tcplab.theory import bmc

__all__ = [
    "numbers_claims",
    "twr_at",
    "CAPTION_INCREASES",
    "TEXT_WEIGHTS",
    "FIG516_TEXT",
    "k_bound",
]

#: Figs. 5.2-5.9's captions: AIMD(a, 1/2) with these a, in figure order
CAPTION_INCREASES = (
    Fraction(16, 25), Fraction(9, 16), Fraction(4, 9), Fraction(9, 25),
    Fraction(1, 4), Fraction(1, 9), Fraction(1, 16), Fraction(1, 25),
)  # fmt: skip
#: Sec. 5.1's text: "We perform this simulation for the weight parameter 4/5, 3/4, 2/3, 1/2,
#: 1/3, 1/4 and 1/5"
TEXT_WEIGHTS = (
    Fraction(4, 5), Fraction(3, 4), Fraction(2, 3), Fraction(1, 2),
    Fraction(1, 3), Fraction(1, 4), Fraction(1, 5),
)  # fmt: skip
#: Sec. 5.2's text for Fig. 5.16: "3/18, ... 4/18, ... 5/18 and ... 5/18"
FIG516_TEXT = (Fraction(3, 18), Fraction(4, 18), Fraction(5, 18), Fraction(5, 18))
#: Fig. 5.16's caption: AIMD(9/324, 1/2), (16/324, 1/2), (25/324, 1/2) and (36/324, 1/2)
FIG516_CAPTION = (Fraction(9, 324), Fraction(16, 324), Fraction(25, 324), Fraction(36, 324))
#: Fig. 5.17's caption: AIMD(1/100, 1/2) and three AIMD(9/100, 1/2)
FIG517_CAPTION = (Fraction(1, 100), Fraction(9, 100), Fraction(9, 100), Fraction(9, 100))
#: Figs. 5.12-5.15's captions: the pairs AIMD(a1, 1/2) and AIMD(a2, 1/2)
PAIR_CAPTIONS = (
    (Fraction(9, 25), Fraction(4, 25)), (Fraction(4, 9), Fraction(1, 9)),
    (Fraction(9, 16), Fraction(1, 16)), (Fraction(16, 25), Fraction(1, 25)),
)  # fmt: skip

SRC_31, SRC_32, SRC_41 = "Sec. 3.1", "Sec. 3.2", "Sec. 4.1"


def _weight(increase: Fraction) -> float:
    """The weight of AIMD(a, 1/2) by eq. (3.6) (``bmc.weight_of``)."""
    return bmc.weight_of(float(increase), 0.5)


def twr_at(
    weights: tuple[float, float], capacities: tuple[float, float] = (8.0, 10.0)
) -> list[float]:
    """Fig. 4.1 in the fluid model at s2's weights ``weights``: the Twr of s2's two subflows,
    eq. (3.7) with the thesis's R = 1 (``bmc.twr`` of the fluid rates)."""
    scene = mp.pooling(capacities)
    rates = mp.allocate(scene, np.array(weights), "bmc")
    mine = [float(x) for (s, _, _), x in zip(scene.flows(), rates, strict=True) if s == "s2"]
    return [float(x) for x in bmc.twr(mine, weights, [1.0, 1.0])]


def _pool_sources(weights: tuple[float, float]) -> dict[str, float]:
    scene = mp.pooling()
    out: dict[str, float] = {}
    for (s, _, _), x in zip(scene.flows(), mp.allocate(scene, np.array(weights), "bmc"),
                            strict=True):  # fmt: skip
        out[s] = out.get(s, 0.0) + float(x)
    return out


def k_bound(weight: float) -> float:
    """The K at which eq. (3.8) takes a weight D to exactly 0, found by bisection on
    ``bmc.reduced_weight`` (so that it checks the closed form ``1 / (1 - D)``)."""
    low, high = 1e-9, 1e6
    for _ in range(200):
        mid = (low + high) / 2.0
        if float(bmc.reduced_weight(weight, mid)) > 0.0:
            low = mid
        else:
            high = mid
    return (low + high) / 2.0


def _epoch_rounds(window: int, a: float, b: float) -> int:
    """A deterministic AIMD(a, b) epoch counted round by round: from (1 - b) W up to W by a
    per round trip, plus the round trip in which the loss is seen."""
    w, rounds = (1.0 - b) * window, 0
    while w < window - 1e-9:
        w += a
        rounds += 1
    return rounds + 1


def _chapter2() -> dict[str, Claim]:
    """Chapter 2 (the problem): N uncoupled subflows against M TCP flows, eqs. (2.1)-(2.4)."""
    # N = 2 subflows and M = 1 TCP flow on a link they all share, nothing else limiting
    scene = mp.shared(30.0, (1000.0, 1000.0))
    rates = mp.allocate(scene, None, "uncoupled")
    bundle = sum(float(x) for (s, _, _), x in zip(scene.flows(), rates, strict=True) if s == "bmc")
    n_sub, m_tcp, r_tt, t_one = 2, 1, 1.0, 1.0
    after = sum([t_one] * n_sub) - t_one / 2.0  # eq. (2.2) with equal subflows
    # eq. (2.3): a sawtooth from (1 - b) W to W averages (2 - b) W / 2 per RTT
    window = 40.0
    saw = np.linspace((1.0 - 0.5) * window, window, 100001)
    return {
        "ch2_share": Claim(
            f"N = {n_sub} uncoupled subflows and M = {m_tcp} TCP flow on one link: the bundle's "
            "share, N/(N+M) (fluid)",
            tolerance.computed(bundle / 30.0),
            paper=n_sub / (n_sub + m_tcp),
        ),
        "ch2_increase": Claim(
            "Eq. (2.1): the bundle's increase rate, packets per second per second, N = 2 "
            "subflows of RTT 1 (sum of 1/Rn)",
            tolerance.computed(sum(1.0 / r for r in [r_tt] * n_sub)),
            paper=2.0,
        ),
        "ch2_after_loss": Claim(
            "Eq. (2.2): the bundle's rate after one subflow's loss, N = 2 subflows of rate T "
            "(in units of T): (N - 1) T + T/2",
            tolerance.computed(after),
            paper=1.5,
        ),
        "ch2_before_loss": Claim(
            "Sec. 2.1, 'decreases from T to (N - 1)T + T/2': the bundle's rate before the loss "
            "(units of T, N = 2); it is NT, not T",
            tolerance.computed(float(n_sub * t_one)),
            paper=1.0,
        ),
        "ch2_eq23": Claim(
            "Eq. (2.3): TCP's mean rate over a deterministic sawtooth, in W/RTT: 3/4",
            tolerance.computed(float(saw.mean()) / window),
            paper=0.75,
        ),
        "ch2_eq24_terms": Claim(
            "Eq. (2.4) as printed sums from n = 0: terms for N = 2 subflows (there are N)",
            tolerance.computed(float(n_sub)),
            paper=float(n_sub + 1),
        ),
    }


def _section31() -> dict[str, Claim]:
    thesis = [1 / 5, 1 / 4, 1 / 3, 1 / 2, 3 / 5, 2 / 3, 3 / 4, 4 / 5]
    worst = max(abs(bmc.weight_of(d * d, 0.5) - d) for d in thesis)
    return {
        "eq36_a_d2_b_half": Claim(
            "a = D^2 makes b = 1/2 in eq. (3.6): largest |weight of AIMD(D^2, 1/2) - D| over the "
            "thesis's eight weights",
            tolerance.computed(worst),
            paper=0.0,
        ),
        "increase_for_1_3": Claim(
            "Weight 1/3 is AIMD(1/9, 1/2): the increase a",
            tolerance.computed(bmc.increase_for(1 / 3)),
            paper=1 / 9,
        ),
    }


def _design() -> dict[str, Claim]:
    """Eqs. (3.3), (3.9), Fig. 3.3 and Fig. 5.1's set-up, as the book implements them."""
    rtt, p = 0.05, 0.01
    grid = np.linspace(0.0, 1.0, 1001)
    reduction = np.asarray(bmc.weight_reduction(grid, 1.0))
    step = bmc.proportion_step([0.3, 0.7], [5.0, 7.0], 0.5)
    top = weighted_setup([0.5] * 3).topology
    delays = np.array(top.access_delays_ms())
    fig51 = (
        top.rate_mbps == 60.0 and top.delay_ms == 20.0 and top.access_mbps == 100.0
        and bool(np.allclose(np.diff(delays[3:]), 1.0 / 3.0))
        and bool(np.allclose(np.diff(delays[:3]), 1.0 / 3.0))
    )  # fmt: skip
    return {
        "eq33_tcp": Claim(
            "Eq. (3.3) is eq. (3.2) at AIMD(1, 1/2): their ratio",
            tolerance.computed(
                float(bmc.aimd_throughput(1.0, 0.5, rtt, p)) / float(bmc.tcp_throughput(rtt, p))
            ),
            paper=1.0,
        ),  # fmt: skip
        "eq39_sum": Claim(
            "Eq. (3.9): one step of the manager keeps the weights' sum (from 0.3 + 0.7)",
            tolerance.computed(float(step.sum())),
            paper=1.0,
        ),
        "fig33_peak": Claim(
            "Fig. 3.3: the reduction (D - D^2)K is largest at D = ... (K = 1)",
            tolerance.computed(float(grid[int(np.argmax(reduction))])),
            paper=0.5,
        ),
        "fig33_ends": Claim(
            "Fig. 3.3: ... and zero at D = 0 and 1 (the larger of the two)",
            tolerance.computed(float(max(reduction[0], reduction[-1]))),
            paper=0.0,
        ),
        "fig51_setup": holds(
            "Fig. 5.1 as the book builds it: 60 Mb/s, 20 ms bottleneck; 100 Mb/s access; "
            "receiver delays n/3 ms apart for each kind",
            fig51,
            "the book's runs",
        ),
    }


def _section32() -> dict[str, Claim]:
    out: dict[str, Claim] = {}
    wide = mp.shared(30.0, (1000.0, 1000.0))
    ideal = [float(x) for (s, _, _), x in
             zip(wide.flows(), mp.allocate(wide, np.array([0.5, 0.5]), "bmc"), strict=True)
             if s == "bmc"]  # fmt: skip
    scene = mp.shared()
    half = [float(x) for (s, _, _), x in
            zip(scene.flows(), mp.allocate(scene, np.array([0.5, 0.5]), "bmc"), strict=True)
            if s == "bmc"]  # fmt: skip
    out["shared_half_ideal"] = Claim(
        "Fig. 3.1, D = 1/2, 1/2: each subflow's ideal share of the 30 Mb/s link (Mb/s)",
        tolerance.computed(ideal[0]),
    )
    out["shared_half_s2"] = Claim(
        "Fig. 3.1, D = 1/2, 1/2: subflow 2 at the shared link, (30 - 4)/3 (Mb/s)",
        tolerance.computed(half[1]),
    )
    out["eq38_half"] = Claim(
        "Eq. (3.8), D = 1/2, K = 1: the new weight",
        tolerance.computed(float(bmc.reduced_weight(0.5, 1.0))),
        paper=1 / 4,
    )
    out["eq38_four_fifths"] = Claim(
        "Eq. (3.8), D = 4/5, K = 1: the new weight",
        tolerance.computed(float(bmc.reduced_weight(0.8, 1.0))),
        paper=16 / 25,
    )
    out["k_range_half"] = Claim(
        "'0 < K < 4': the largest K for which eq. (3.8) keeps D = 1/2 non-negative",
        tolerance.computed(k_bound(0.5)),
        paper=4.0,
    )
    out["k_range_all"] = Claim(
        "'0 < K < 4': the largest K for which eq. (3.8) keeps every weight non-negative "
        "(the smallest 1/(1 - D), D -> 0; here D = 0.001)",
        tolerance.computed(k_bound(0.001)),
        paper=4.0,
    )
    out["k4_half_negative"] = holds(
        "At K just under 4 (3.99) eq. (3.8) keeps D = 1/2 a weight (>= 0)",
        float(bmc.reduced_weight(0.5, 3.99)) >= 0.0,
        "the book's runs",
    )
    out["epoch_rtts"] = Claim(
        "A congestion epoch is (bW/a) + 1 RTTs: TCP, W = 40, counted round by round",
        tolerance.computed(float(_epoch_rounds(40, 1.0, 0.5))),
        paper=bmc.congestion_epoch_rtts(40.0, 1.0, 0.5),
    )
    out["epoch_rtts_weighted"] = Claim(
        "... and AIMD(1/9, 1/2) (weight 1/3), W = 36",
        tolerance.computed(float(_epoch_rounds(36, 1 / 9, 0.5))),
        paper=bmc.congestion_epoch_rtts(36.0, 1 / 9, 0.5),
    )
    return out


def _section41() -> dict[str, Claim]:
    out: dict[str, Claim] = {}
    half = twr_at((0.5, 0.5))
    third = twr_at((1 / 3, 2 / 3))
    quarter = twr_at((0.25, 0.75))
    out["pool_ideal"] = Claim(
        "Fig. 4.1: 18 Mb/s shared equally, each source's fair rate (Mb/s)",
        tolerance.computed(
            sum(mp.pooling().link(n).rate_mbps for n in ("bottleneck1", "bottleneck2")) / 3.0
        ),
        paper=6.0,
    )
    for i, name in enumerate(("1", "2")):
        out[f"twr_third_{name}"] = Claim(
            f"Fig. 4.1, D = 1/3, 2/3: Twr of s2's subflow {name} (R = 1)",
            tolerance.computed(third[i]),
            paper=6.0,
        )
    pooled = _pool_sources((1 / 3, 2 / 3))
    for s in ("s1", "s2", "s3"):
        out[f"pool_third_{s}"] = Claim(
            f"Fig. 4.1, D = 1/3, 2/3: {s} (Mb/s, fluid)",
            tolerance.computed(pooled[s]),
            paper=6.0,
        )
    out["pool_fixed_point"] = Claim(
        "Fig. 4.1: the weight D1 at which both Twr are equal",
        tolerance.computed(bmc.pooling_fixed_point()),
        paper=1 / 3,
    )
    out["twr_half_1"] = Claim(
        "Fig. 4.1, D = 1/2, 1/2: Twr of subflow 1 (the thesis: 3/4; R = 1)",
        tolerance.computed(half[0]),
        paper=3 / 4,
    )
    out["twr_half_2"] = Claim(
        "Fig. 4.1, D = 1/2, 1/2: Twr of subflow 2 (the thesis: 3/5; R = 1)",
        tolerance.computed(half[1]),
        paper=3 / 5,
    )
    out["twr_half_reduce_d1"] = holds(
        "At 1/2, 1/2 the manager reduces D1 (subflow 1 has the smaller Twr)",
        half[0] < half[1],
        "the book's runs",
    )
    out["twr_half_thesis_values"] = holds(
        "... and the thesis's own values 3/4 and 3/5 would make it reduce D1 (3/4 < 3/5)",
        3 / 4 < 3 / 5,
        "the book's runs",
    )
    out["twr_quarter_1"] = Claim(
        "Fig. 4.1, D = 1/4, 3/4: Twr of subflow 1",
        tolerance.computed(quarter[0]),
    )
    out["twr_quarter_2"] = Claim(
        "Fig. 4.1, D = 1/4, 3/4: Twr of subflow 2",
        tolerance.computed(quarter[1]),
    )
    out["pool_quarter_s2"] = Claim(
        "Fig. 4.1, D = 1/4, 3/4: s2's throughput (Mb/s)",
        tolerance.computed(_pool_sources((0.25, 0.75))["s2"]),
    )
    out["twr_quarter_reduce_d2"] = holds(
        "At 1/4, 3/4 the manager reduces D2 and increases D1 (subflow 2 has the smaller Twr)",
        quarter[1] < quarter[0],
        "the book's runs",
    )
    return out


def _section42() -> dict[str, Claim]:
    """Sec. 4.2: P flowshares by weights summing to P (eq. 3.1 with P on the right): in the
    fluid model a connection with weights summing to 2 on a link with one TCP flow takes 2/3
    of it."""
    scene = mp.shared(30.0, (1000.0, 1000.0))
    flows = scene.flows()
    weights = np.array([1.0, 1.0])  # P = 2 (weighted max-min takes any positive weights)
    rates = mp.weighted_maxmin(
        [link.rate_mbps for link in scene.links],
        np.array([[lk.name in path for lk in scene.links] for _, _, path in flows]),
        [1.0, *weights],
    )  # fmt: skip
    bundle = float(sum(rates[1:]))
    return {
        "p_flowshares": Claim(
            "Sec. 4.2: weights summing to P = 2 take P flowshares, 2/3 of a link shared with one "
            "TCP flow (fluid)",
            tolerance.computed(bundle / 30.0),
            paper=2 / 3,
        )
    }


def _chapter5() -> dict[str, Claim]:
    captions = {Fraction(_weight(a)).limit_denominator(100) for a in CAPTION_INCREASES}
    missing = sorted(captions - set(TEXT_WEIGHTS))
    out: dict[str, Claim] = {
        "fig52_59_weights": Claim(
            "Sec. 5.1's list of weights against Figs. 5.2-5.9's captions: how many weights "
            "(the text lists 7; missing: " + ", ".join(str(m) for m in missing) + ")",
            tolerance.computed(float(len(captions))),
            paper=float(len(TEXT_WEIGHTS)),
        ),
        "fig516_text_sum": Claim(
            "Fig. 5.16's weights as the text gives them (3/18, 4/18, 5/18, 5/18): their sum "
            "(eq. 3.1 needs 1)",
            tolerance.computed(float(sum(FIG516_TEXT))),
            paper=1.0,
        ),
        "fig516_caption_sum": Claim(
            "Fig. 5.16's caption (AIMD(9/324, 1/2) ... (36/324, 1/2)): the sum of the weights",
            tolerance.computed(sum(_weight(a) for a in FIG516_CAPTION)),
            paper=1.0,
        ),
        "fig517_caption_sum": Claim(
            "Fig. 5.17's caption (1/10 and three 3/10): the sum of the weights",
            tolerance.computed(sum(_weight(a) for a in FIG517_CAPTION)),
            paper=1.0,
        ),
        "fig512_515_pairs_sum": Claim(
            "Figs. 5.12-5.15's captions: the largest |sum of the pair's weights - 1|",
            tolerance.computed(max(abs(_weight(a) + _weight(b) - 1.0) for a, b in PAIR_CAPTIONS)),
            paper=0.0,
        ),
    }
    return out


def numbers_claims() -> dict[str, Claim]:
    """Every worked number of the thesis, recomputed (no table: closed forms and the fluid
    model)."""
    out = {**_chapter2(), **_section31(), **_design(), **_section32(), **_section41(),
           **_section42(), **_chapter5()}  # fmt: skip
    assert all(math.isfinite(c.value) for c in out.values())
    return out
