"""Paper vs. book for weighted AIMD and BMC (Honda 2009), and the numbers the prose quotes.

Three kinds of claim. The thesis's own arithmetic (eqs. 3.2 and 3.6, the worked examples of
Figs. 3.1, 3.2 and 4.1) is checked exactly, by the closed forms and the fluid model. Its
packet measurements (Figs. 5.10 and 5.11) and the response function in the packet model are
checked with a tolerance from the number of loss events behind each number: the packets
between two loss events are close to geometric (coefficient of variation about 1), so a rate
measured over ``n`` loss events has a relative standard error of about ``1/sqrt(n)``, and a
ratio of two such rates ``sqrt(1/n1 + 1/n2)``; we claim three of those (a false alarm in about
0.3% of runs if the rates are normal). The thesis's side of each item is in the chapter's
ledger.toml (or, for a closed form, the value each check evaluates); the ledger judges them.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np
import pandas as pd

from tcplab import ledger
from tcplab import multipath as mp
from tcplab.claims import Claim, holds, rows
from tcplab.ledger import tolerance
from tcplab.packet.weighted import ACCESS_DELAY_MS, DELAY_MS, PACKET_BYTES, RATE_MBPS
from tcplab.theory import bmc

from .experiments import label, ratios
from .mixes import mix_ratios
from .numbers import numbers_claims
from .params import THESIS_WEIGHTS, BmcParams
from .proportion import NEAR, reach_time
from .proportion import fixed_set as proportion_fixed_set
from .whatif import WHATIF_TABLES, whatif_claims, whatif_numbers

__all__ = [
    "TABLES",
    "SIGMAS",
    "EXACT",
    "chapter_claims",
    "chapter_numbers",
    "ratio_tolerance",
    "by_hand_loss_event_rate",
    "THESIS_LOSS_EVENT_N1",
    "LARGE_N",
    "explain_table",
    "weighted_grid",
]

#: the experiments the claims and the prose read
TABLES = (
    "bmc-response",
    "bmc-competition",
    "bmc-weighted",
    "bmc-mixes",
    "bmc-examples",
    "bmc-manager",
    "bmc-compare",
    "bmc-red",
    "bmc-explain",
    "bmc-jk",
    "bmc-order",
    "bmc-worked",
    *WHATIF_TABLES,
)
#: the worked examples' claims need two runs or more; the quick grid runs one
_WORKED_EXPECTED = [
    "worked_shared_D = 1/2, 1/2_tcp", "worked_shared_D = 1/2, 1/2_bmc",
    "worked_shared_D = 1/4, 3/4_tcp", "worked_shared_D = 1/4, 3/4_bmc",
    "worked_pooling_uncoupled_s1", "worked_pooling_uncoupled_s2", "worked_pooling_uncoupled_s3",
    "worked_pooling_D = 1/3, 2/3_s1", "worked_pooling_D = 1/3, 2/3_s2",
    "worked_pooling_D = 1/3, 2/3_s3",
]  # fmt: skip
SIGMAS = 3.0  # how far a yes/no statement's effect must stand out, in standard errors
EXACT = tolerance.EXACT  # closed forms and the fluid model (the ledger's floating-point floor)
Z95 = 1.959963984540054  # the two-sided 95% point of the normal distribution
#: Sec. 5.1: "When the number of ... flows are 1, 2 and 4, the loss-event rate is
#: 0.126 - 0.133 %, 0.126 - 0.135 % and 0.143 - 0.170 %, respectively"
THESIS_LOSS_EVENT = {1: (0.126e-2, 0.133e-2), 2: (0.126e-2, 0.135e-2), 4: (0.143e-2, 0.170e-2)}
#: ... as printed (percentages)
THESIS_LOSS_EVENT_TEXT = {1: ("0.126%", "0.133%"), 2: ("0.126%", "0.135%"), 4: ("0.143%", "0.170%")}
THESIS_LOSS_EVENT_N1 = THESIS_LOSS_EVENT[1]
#: Sec. 5.1: "When the number of flows is larger ... the weighted AIMD flows is a little more
#: aggressive": the thesis's grid's largest N
LARGE_N = 32


def ratio_se(value: float, events_a: float, events_b: float) -> float:
    """The standard error of a ratio of two rates measured over ``events_a`` and
    ``events_b`` loss events (module docstring)."""
    return abs(value) * math.sqrt(1.0 / max(events_a, 1.0) + 1.0 / max(events_b, 1.0))


def ratio_tolerance(value: float, events_a: float, events_b: float) -> float:
    """The 95% half-width of such a ratio (normal): :data:`Z95` standard errors."""
    return Z95 * ratio_se(value, events_a, events_b)


def first_rtt_s() -> float:
    """The first flow's propagation RTT in Fig. 5.1: 20 + 2 + 1/3 ms each way."""
    return 2.0 * (DELAY_MS + ACCESS_DELAY_MS + 1.0 / 3.0) / 1e3


def tcp_mbps_at(p: float) -> float:
    """Eq. (3.3) in Mb/s at the first flow's RTT: what a TCP flow gets at loss-event rate p."""
    return float(bmc.tcp_throughput(first_rtt_s(), p)) * 8.0 * PACKET_BYTES / 1e6


def by_hand_loss_event_rate(weight: float, rate_mbps: float = RATE_MBPS) -> float:
    """The loss-event rate at which one TCP flow and one AIMD(D^2, 1/2) flow fill Fig. 5.1's
    link by eq. (3.3): ``sqrt(3/(2p)) (1 + D) / R = C``, so ``p = 3/2 ((1 + D) / (C R))^2``,
    with R the first flow's propagation RTT (queueing only lengthens R and lowers p)."""
    rtt = first_rtt_s()
    packets_per_rtt = rate_mbps * 1e6 / (8.0 * PACKET_BYTES) * rtt
    return 1.5 * ((1.0 + weight) / packets_per_rtt) ** 2


def _closed_forms() -> dict[str, Claim]:
    return {
        "weight_aimd_half_4_5": Claim(
            "AIMD(1/2, 4/5) gets half of TCP's throughput",
            tolerance.computed(bmc.weight_of(0.5, 0.8)),
            paper=0.5,
        ),  # fmt: skip
        "weight_aimd_3_4_8_13": Claim(
            "AIMD(3/4, 8/13) gets 3/4 of TCP's throughput",
            tolerance.computed(bmc.weight_of(0.75, 8 / 13)),
            paper=0.75,
        ),  # fmt: skip
        "increase_for_2_3": Claim(
            "weight 2/3 is AIMD(4/9, 1/2): the increase a",
            tolerance.computed(bmc.increase_for(2 / 3)),
            paper=4 / 9,
        ),  # fmt: skip
    }


def _response(table: pd.DataFrame) -> dict[str, Claim]:
    """One flow under random loss: AIMD(a, b) over TCP at the same p, pooled over p."""
    out = {}
    tcp = rows(table, a=1.0, b=0.5)
    for (a, b), part in table.groupby(["a", "b"], sort=False):
        if np.isclose(a, 1.0) and np.isclose(b, 0.5):
            continue
        ratio = float(part["vs_tcp"].mean())
        events = float(part["loss_events"].sum())
        tcp_events = float(tcp[tcp["p"].isin(part["p"])]["loss_events"].sum())
        name = f"AIMD({label(a)}, {label(b)}) over TCP, one flow under random loss"
        out[f"response_{label(a)}_{label(b)}"] = Claim(
            name,
            tolerance.mean(
                ratio,
                ratio_tolerance(ratio, events, tcp_events),
                "the loss events behind the ratio",
            ),
            paper=bmc.weight_of(a, b),
        )
    return out


def _competition(table: pd.DataFrame) -> dict[str, Claim]:
    """N AIMD(a, b) flows against N TCP flows on Fig. 5.1's RED bottleneck."""
    out = {}
    for r in table.itertuples():
        events_a = float(r.aimd_loss_events) * float(r.flows)
        events_t = float(r.tcp_loss_events) * float(r.flows)
        out[f"competition_{label(r.a)}_{label(r.b)}"] = Claim(
            f"{r.flows} AIMD({label(r.a)}, {label(r.b)}) vs {r.flows} TCP, ratio of means",
            tolerance.mean(
                float(r.steady_ratio),
                ratio_tolerance(float(r.steady_ratio), events_a, events_t),
                "the loss events behind the ratio",
            ),
            paper=float(r.weight_eq32),
        )
    return out


def _weighted(table: pd.DataFrame) -> dict[str, Claim]:
    """Fig. 5.10: the ratio AIMD/TCP against the weight D, per D, pooled over N (the
    thesis: "approximately in proportion to the weight parameter")."""
    out = {}
    for d, part in table.groupby("D", sort=False):
        mine = ratios(part, ["flows"])
        value = float(mine["ratio"].mean())
        aimd = part[part["kind"] == "aimd"]["loss_events"].sum()
        tcp = part[part["kind"] == "tcp"]["loss_events"].sum()
        out[f"fig510_D{label(d)}"] = Claim(
            f"Fig. 5.10, D = {label(d)}: AIMD/TCP, mean over N = "
            + ", ".join(str(n) for n in sorted(part["flows"].unique())),
            tolerance.mean(
                value, ratio_tolerance(value, aimd, tcp), "the loss events behind the ratio"
            ),
            paper=float(d),
        )
    large = _large_n(table)
    if large is not None:
        out["fig510_large_n_above_d"] = large
    low, high = THESIS_LOSS_EVENT_N1
    worst = max(by_hand_loss_event_rate(d) for d in (*THESIS_WEIGHTS, 3 / 5))
    out["loss_event_rate_n1"] = Claim(
        "Fig. 5.11, N = 1: loss-event rate (%) if the link is full, eq. (3.3), largest D",
        tolerance.computed(100 * worst),
    )
    by_n = ratios(table, ["D", "flows"])
    for n in THESIS_LOSS_EVENT:
        single = 100 * by_n[by_n["flows"] == n]["drop_rate"].to_numpy()
        if len(single) > 1:  # the thesis's N = 1, 2, 4 are on the grid (full scale)
            out[f"drop_rate_n{n}"] = Claim(
                f"Fig. 5.11, N = {n}: our drops per packet over the whole run (%), mean over D",
                tolerance.runs(single, "weights D"),
            )
    return out


def _large_n(table: pd.DataFrame) -> Claim | None:
    """Sec. 5.1: at large N "the weighted AIMD flows is a little more aggressive compared to
    the weight parameters": for every D, the ratio's mean over N >= ``LARGE_N`` is above its
    mean over the smaller N (None where the grid has no such N)."""
    found = ratios(table, ["D", "flows"])
    if found["flows"].max() < LARGE_N or found["flows"].min() >= LARGE_N:
        return None
    big = found[found["flows"] >= LARGE_N].groupby("D")["ratio"].mean()
    small = found[found["flows"] < LARGE_N].groupby("D")["ratio"].mean()
    return holds(
        f"Fig. 5.10: for every D, the ratio's mean over N >= {LARGE_N} is above its mean over "
        f"N < {LARGE_N}",
        bool((big > small).all()),
        "the book's runs",
    )


def _explain_ratio(part: pd.DataFrame, case: str) -> tuple[float, float]:
    """The ratio of one cell of ``bmc-explain`` (from ``long_from`` on in the long runs, over
    the whole run otherwise, as the thesis measures) and its standard error: over the
    replicas where there are several, else from the loss events (module docstring)."""
    column = "steady_ratio" if case == "long" else "ratio"
    values = part[column].to_numpy(dtype=float)
    if len(values) > 1:
        return float(values.mean()), float(values.std(ddof=1) / math.sqrt(len(values)))
    r = part.iloc[0]
    events_a = float(r["aimd_loss_events"]) * float(r["flows"])
    events_t = float(r["tcp_loss_events"]) * float(r["flows"])
    return float(values[0]), ratio_se(float(values[0]), events_a, events_t)


def explain_table(table: pd.DataFrame) -> pd.DataFrame:
    """``bmc-explain`` per case, D, N and bottleneck rate: the ratio and its standard error
    (:func:`_explain_ratio`), time-outs per flow of each kind, the share of the weighted
    flows' loss events that are time-outs, and their mean window in packets."""
    rows = []
    keys = ["case", "D", "flows", "rate_mbps"]
    for (case, d, n, rate), part in table.groupby(keys, sort=False):
        ratio, se = _explain_ratio(part, str(case))
        events = float(part["aimd_loss_events"].mean())
        rows.append(
            {
                "case": str(case),
                "D": float(d),
                "flows": int(n),
                "rate_mbps": float(rate),
                "runs": len(part),
                "ratio": ratio,
                "ratio_se": se,
                "aimd_timeouts": float(part["aimd_timeouts"].mean()),
                "tcp_timeouts": float(part["tcp_timeouts"].mean()),
                "aimd_timeout_share": float(part["aimd_timeouts"].mean()) / max(events, 1.0),
                "aimd_window": float(part["aimd_window"].mean()),
            }
        )
    return pd.DataFrame(rows)


def _explain(table: pd.DataFrame) -> dict[str, Claim]:
    """The thesis's two explanations of Fig. 5.10's deviations, tested (``bmc-explain``).
    Small N ("the extremely low loss-event rate affects this behavior"): per D, the ratio's
    mean over N = 1, 2, 4 and every seed against D, three standard errors over the runs; if
    it holds, the deviations of one run are the noise of few loss events, not a bias. Large
    N ("the possible reason is retransmission timeouts"): with the bottleneck four times
    faster the windows are four times larger and time-outs rarer; the thesis's reason
    predicts that there, the ratio comes back towards D."""
    out: dict[str, Claim] = {}
    found = explain_table(table)
    small = table[table["case"] == "small"]
    for d, part in small.groupby("D", sort=False):
        values = part["ratio"].to_numpy(dtype=float)
        if len(values) < 2:
            continue
        out[f"explain_small_D{label(d)}"] = Claim(
            f"Small N, D = {label(d)}: AIMD/TCP, mean over N = "
            + ", ".join(str(n) for n in sorted(part["flows"].unique()))
            + f" and {part['replica'].nunique()} seeds",
            tolerance.of_runs(float(values.mean()), values),
            paper=float(d),
        )
    long = found[found["case"] == "long"]
    for d, part in long.groupby("D", sort=False):
        se = math.sqrt(float((part["ratio_se"] ** 2).sum())) / len(part)
        out[f"explain_long_D{label(d)}"] = Claim(
            f"Small N over long runs, D = {label(d)}: AIMD/TCP from the warm-up on, mean over "
            "N = " + ", ".join(str(n) for n in part["flows"]),
            tolerance.mean(float(part["ratio"].mean()), Z95 * se, "the runs"),
            paper=float(d),
        )
    large = found[found["case"] == "large"]
    rates = sorted(large["rate_mbps"].unique())
    if len(rates) > 1:
        slow = large[large["rate_mbps"] == rates[0]].set_index(["D", "flows"])
        fast = large[large["rate_mbps"] == rates[-1]].set_index(["D", "flows"])
        fewer = bool((fast["aimd_timeout_share"] < slow["aimd_timeout_share"]).all())
        d = fast.index.get_level_values("D").to_numpy()
        not_above = bool((fast["ratio"] <= d + SIGMAS * fast["ratio_se"]).all())
        out["explain_large_timeouts"] = holds(
            f"Large N at {rates[-1]:g} instead of {rates[0]:g} Mb/s: a smaller share of the "
            "weighted flows' loss events are time-outs",
            fewer,
            "the book's runs",
        )
        out["explain_large_not_above"] = holds(
            "... and the ratio is nowhere above D by more than three standard errors (N = "
            + ", ".join(str(n) for n in sorted(large["flows"].unique()))
            + "), as the time-out explanation predicts",
            not_above,
            "the book's runs",
        )
    return out


def _mixes(table: pd.DataFrame) -> dict[str, Claim]:
    """Fig. 5.18: per mix, the weighted flows' mean over TCP's, mean over N (ideal: one
    over the mix's size, the bundle of one of each weight taking what one TCP flow takes)."""
    out = {}
    found = mix_ratios(table)
    for mix, part in found[found["weight"] == "all"].groupby("mix", sort=False):
        value = float(part["ratio"].mean())
        size = int(part["size"].iloc[0])
        out[f"fig518_{mix}"] = Claim(
            f"Fig. 5.18, {mix}: weighted/TCP, mean over N = "
            + ", ".join(str(n) for n in part["flows"]),
            tolerance.mean(
                value,
                ratio_tolerance(value, part["events"].sum(), part["tcp_events"].sum()),
                "the loss events behind the ratio",
            ),
            paper=1.0 / size,
        )
    whole = found[found["weight"] == "all"]
    cells = (whole["ratio"] * whole["size"]).to_numpy(dtype=float)  # each bundle over one TCP
    if len(cells) > 1:
        out["conclusion_bundle"] = Claim(
            "A bundle of one flow of each weight of a mix (weights summing to 1) over one TCP "
            f"flow, mean over every mix and N ({len(cells)} runs)",
            tolerance.of_runs(float(cells.mean()), cells),
            paper=1.0,
        )
    top = whole[whole["flows"] == 64]
    if len(top):  # Sec. 5.2: "When the number of ... flows is 64, the difference of
        # throughput proportion between ideal one and actual one is approximately 20 %"
        excess = top["ratio"] / top["D"]
        spread = [ratio_tolerance(x, e, t) for x, e, t in
                  zip(excess, top["events"], top["tcp_events"], strict=True)]  # fmt: skip
        out["fig518_n64_excess"] = Claim(
            "Fig. 5.18, N = 64: weighted/TCP over the ideal, mean over the mixes",
            tolerance.mean(
                float(excess.mean()),
                math.sqrt(sum(x * x for x in spread)) / len(spread),
                "the runs",
            ),
        )
    return out


def _fluid_examples() -> dict[str, Claim]:
    """Figs. 3.1, 3.2 and 4.1 by the fluid model (weighted max-min, exact)."""
    shared = mp.shared()
    half = mp.allocate(shared, [0.5, 0.5], "bmc")
    quarter = mp.allocate(shared, [0.25, 0.75], "bmc")
    pool = mp.pooling()
    uncoupled = mp.allocate(pool, None, "uncoupled")
    flows = shared.flows()
    bundle = sum(x for (s, _, _), x in zip(flows, half, strict=True) if s == "bmc")
    sub = [float(x) for (s, _, _), x in zip(flows, quarter, strict=True) if s == "bmc"]
    by_source: dict[str, float] = {}
    for (s, _, _), x in zip(pool.flows(), uncoupled, strict=True):
        by_source[s] = by_source.get(s, 0.0) + float(x)
    bundle_name = "D = 1/2, 1/2: the bundle at the shared link (Mb/s)"
    out = {
        "shared_half": Claim(
            bundle_name,
            tolerance.computed(float(bundle)),
        ),
        "shared_quarter_1": Claim(
            "D = 1/4, 3/4: subflow 1 (Mb/s)",
            tolerance.computed(sub[0]),
            paper=3.75,
        ),
        "shared_quarter_2": Claim(
            "D = 1/4, 3/4: subflow 2 (Mb/s)",
            tolerance.computed(sub[1]),
            paper=11.25,
        ),
    }
    for source, paper in (("s1", 4.0), ("s2", 9.0), ("s3", 5.0)):
        out[f"pooling_uncoupled_{source}"] = Claim(
            f"Fig. 4.1, uncoupled subflows: {source} (Mb/s)",
            tolerance.computed(by_source[source]),
            paper=paper,
        )
    return out


def _sources(scene: mp.Scenario, weights: np.ndarray) -> dict[str, float]:
    """Mb/s of every source of ``scene`` in the fluid model at BMC weights ``weights``."""
    out: dict[str, float] = {}
    for (s, _, _), x in zip(scene.flows(), mp.allocate(scene, weights, "bmc"), strict=True):
        out[s] = out.get(s, 0.0) + float(x)
    return out


def _manager(table: pd.DataFrame, k: float) -> dict[str, Claim]:
    """The fluid proportion manager on Fig. 4.1 over the second half of its periods: each
    source's mean Mb/s against the pooled 6. The manager moves D1 in steps of
    ``(D - D^2) K`` and so circles the fixed point instead of stopping on it; the tolerance
    is how far one such step from the fixed point moves each source's rate."""
    fluid = table[(table["model"] == "fluid") & (table["scenario"] == "pooling")]
    first = fluid[fluid["subflow"] == 0].sort_values("period")
    half = first[first["period"] >= first["period"].max() / 2.0]["weight"].to_numpy()
    pool = mp.pooling()
    per_period = [_sources(pool, np.array([d, 1.0 - d])) for d in half]
    d_star = bmc.pooling_fixed_point()
    step = float(bmc.weight_reduction(d_star, k))
    at = _sources(pool, np.array([d_star, 1.0 - d_star]))
    moved = [_sources(pool, np.array([d, 1.0 - d])) for d in (d_star - step, d_star + step)]
    return {
        f"pooling_manager_{s}": Claim(
            f"Fig. 4.1, proportion manager (fluid, 2nd half): {s} (Mb/s)",
            tolerance.bounded(
                float(np.mean([p[s] for p in per_period])),
                max(abs(m[s] - at[s]) for m in moved),
                "the resolution of the fluid manager's own motion (one step (D - D²)K from 1/3)",
            ),
        )
        for s in ("s1", "s2", "s3")
    }


def _binomial_se(fraction: float, n: float) -> float:
    """Standard error of a fraction of ``n`` independent yes/no outcomes."""
    return math.sqrt(max(fraction * (1.0 - fraction), 0.0) / max(n, 1.0))


def _order(table: pd.DataFrame) -> dict[str, Claim]:
    """Sec. 3.2's claims about J, in the packet model (``bmc-order``: Fig. 4.1 at fixed
    weights, one long run cut into periods of each J). "The larger J is used, the more exact
    average throughput is measured": at the largest J fewer measurements order the two
    subflows' Twr the wrong way round than at the smallest, by more than three binomial
    standard errors, for every pair of weights. "J has to be set to contain at least one
    congestion epoch of all subflows": at the smallest J that holds the longest epoch, most
    measurements (more than half, where the manager's step goes the right way more often
    than not) order the subflows right."""
    out: dict[str, Claim] = {}
    enough = []
    for _, part in table.groupby("weights", sort=False):
        part = part.sort_values("j_s")
        first, last = part.iloc[0], part.iloc[-1]
        gap = SIGMAS * math.hypot(
            _binomial_se(float(first["misordered"]), float(first["periods"])),
            _binomial_se(float(last["misordered"]), float(last["periods"])),
        )
        if len(part) > 1:
            d1 = float(first["d1"])
            out[f"order_larger_j_{label(d1)}"] = holds(
                f"The larger J, the more exact (weights {first['weights']}, fluid Twr "
                f"{100 * float(first['fluid_twr_gap']):.0f}% apart): fewer misordered "
                f"measurements at J = {last['j_s']:g} s than at {first['j_s']:g} s",
                float(last["misordered"]) + gap < float(first["misordered"]),
                "the book's runs",
            )
        holding = part[part["j_s"] >= part["epoch_s"]]
        if len(holding):
            enough.append(float(holding.iloc[0]["misordered"]) < 0.5)
    if enough:
        out["order_one_epoch"] = holds(
            "J of one congestion epoch orders the two subflows right in most measurements",
            all(enough),
            "the book's runs",
        )
    return out


def _jk(table: pd.DataFrame) -> dict[str, Claim]:
    """Sec. 3.2's claims about J and K in the fluid model, exact. "When we double J, it
    doubles the convergence speed [time]": the first time the fluid manager's D1 comes near
    its fixed set, at J = 2 s over J = 1 s (every scenario, K = 1/2). "Larger K enables the
    convergence ... to become rapidly, however, the stability ... goes down": over the K of
    ``bmc-jk``'s fluid rows, the periods to come near the fixed set never grow with K, and in
    ``pooling`` (where the manager circles its fixed point) the swing of D1 over the second
    half is larger at the largest K than at the smallest."""
    out: dict[str, Claim] = {}
    doubled = []
    for name in mp.SCENARIOS:
        scene = mp.scenario(name)
        low, high = proportion_fixed_set(scene)
        times = []
        for j in (1.0, 2.0):
            run = mp.manage(scene, j_s=j, k=0.5, duration=60.0 * j)
            first = run.history[run.history["subflow"] == 0]
            times.append(reach_time(first["t"].to_numpy(), first["weight"].to_numpy(),
                                    low, high, NEAR))  # fmt: skip
        doubled.append(times[1] / times[0])
    worst = max(doubled, key=lambda r: abs(r - 2.0))
    out["jk_double_j"] = Claim(
        "Doubling J doubles the convergence time (fluid, K = 1/2, ratio, worst scenario)",
        tolerance.computed(worst),
        paper=2.0,
    )
    out["jk_double_j_speed"] = Claim(
        "... read as the thesis writes it, 'doubles the convergence speed': the speed's ratio "
        "(1 over the time's)",
        tolerance.computed(1.0 / worst),
        paper=2.0,
    )
    fluid = table[table["model"] == "fluid"].sort_values("k")
    if fluid["k"].nunique() > 1:
        faster = all(
            bool((np.diff(part["reach_s"].to_numpy()) <= 0).all())
            for _, part in fluid.groupby("scenario")
        )
        out["jk_larger_k_faster"] = holds(
            "Larger K converges faster (fluid: periods to reach the fixed set never grow with K)",
            faster,
            "the book's runs",
        )
        pool = fluid[fluid["scenario"] == "pooling"]
        out["jk_larger_k_less_stable"] = holds(
            "... and is less stable (fluid, Fig. 4.1: D1 swings more at the largest K than at "
            "the smallest)",
            bool(pool["sd_d1"].iloc[-1] > pool["sd_d1"].iloc[0]),
            "the book's runs",
        )
    return out


def weighted_grid(tables: Mapping[str, pd.DataFrame]) -> pd.DataFrame:
    """Figs. 5.2-5.11 on every weight of the thesis's figures: ``bmc-weighted`` (the seven
    weights of Sec. 5.1's text) and ``bmc-weighted-35`` (Fig. 5.5's D = 3/5), in the order of
    the figures (largest D first)."""
    parts = [tables["bmc-weighted"]]
    if "bmc-weighted-35" in tables:
        parts.append(tables["bmc-weighted-35"])
    both = pd.concat(parts, ignore_index=True)
    order = sorted(both["D"].unique(), reverse=True)
    return pd.concat([both[both["D"] == d] for d in order], ignore_index=True)


def chapter_claims(tables: Mapping[str, pd.DataFrame], k: float = BmcParams.k) -> dict[str, Claim]:
    """Every claim of the chapter, keyed, in the order the chapter prints them; ``k`` is the
    proportion manager's K in the runs (the same at both scales)."""
    return {
        **_closed_forms(),
        **numbers_claims(),
        **_response(tables["bmc-response"]),
        **_competition(tables["bmc-competition"]),
        **_weighted(weighted_grid(tables)),
        **_explain(tables["bmc-explain"]),
        **_mixes(tables["bmc-mixes"]),
        **_fluid_examples(),
        **_worked(tables["bmc-worked"]),
        **_manager(tables["bmc-manager"], k),
        **_jk(tables["bmc-jk"]),
        **_order(tables["bmc-order"]),
        **whatif_claims(tables),
    }


def chapter_numbers(
    tables: Mapping[str, pd.DataFrame], scale: str = "full"
) -> dict[str, float | str]:
    """The numbers the prose quotes, from the same tables (``scale`` names which: the
    quoted numbers are the same computations at both)."""
    weighted = weighted_grid(tables)
    fig510 = ratios(weighted, ["D", "flows"])
    smallest = fig510[fig510["flows"] == fig510["flows"].min()]
    largest = fig510[fig510["flows"] == fig510["flows"].max()]
    examples = tables["bmc-worked"]  # the worked examples with several packet runs each
    packet = examples[examples["model"] == "packet"]
    manager = tables["bmc-manager"]
    fluid_pool = manager[(manager["model"] == "fluid") & (manager["scenario"] == "pooling")]
    final_d1 = fluid_pool[(fluid_pool["period"] == fluid_pool["period"].max())
                          & (fluid_pool["subflow"] == 0)]["weight"]  # fmt: skip
    low, high = bmc.shared_fixed_interval(30.0, (4.0, 12.0))
    side = examples_table(examples)
    packet_pool = manager[(manager["model"] == "packet") & (manager["subflow"] == 0)]
    packet_d1 = packet_pool[packet_pool["period"] >= packet_pool["period"].max() / 2]["weight"]
    return {
        **_grid_numbers(tables),
        **_explain_numbers(tables["bmc-explain"]),
        **_order_numbers(tables["bmc-order"]),
        **_jk_numbers(tables["bmc-jk"]),
        **_worked_numbers(tables["bmc-worked"]),
        "small_n": int(fig510["flows"].min()),
        "large_n": int(fig510["flows"].max()),
        "small_n_loss_pct_min": 100 * float(smallest["loss_event_rate"].min()),
        "small_n_loss_pct_max": 100 * float(smallest["loss_event_rate"].max()),
        "large_n_loss_pct_max": 100 * float(largest["loss_event_rate"].max()),
        "large_n_aimd_timeouts": float(largest["aimd_timeouts"].mean()),
        "small_n_aimd_timeouts": float(smallest["aimd_timeouts"].mean()),
        "by_hand_loss_pct_low": 100 * by_hand_loss_event_rate(min(THESIS_WEIGHTS)),
        "by_hand_loss_pct_high": 100 * by_hand_loss_event_rate(max(THESIS_WEIGHTS)),
        "pooling_d1": float(final_d1.iloc[0]),
        "pooling_fixed_point": bmc.pooling_fixed_point(),
        "shared_fixed_low": low,
        "shared_fixed_high": high,
        "packet_runs": int(packet.groupby(["scenario", "case", "replica"]).ngroups),
        "packet_gap_max": float((side["packet (ours)"] - side["fluid (ours)"]).abs().max()),
        "packet_d1_min": float(packet_d1.min()),
        "packet_d1_max": float(packet_d1.max()),
        "first_rtt_ms": 1e3 * first_rtt_s(),
        "thesis_n1_tcp_mbps": tcp_mbps_at(sum(THESIS_LOSS_EVENT_N1) / 2),
        "random_weight_half_4_5": bmc.random_loss_weight(0.5, 0.8),
        **{f"thesis_{key}": float(c.value) for key, c in numbers_claims().items()},
        "thesis_k4_value": float(bmc.reduced_weight(0.5, 3.99)),
        **whatif_numbers(tables),
        **_fig511_numbers(fig510),
        "j_s": BmcParams.j_s,
        "k": BmcParams.k,
    }


def _fig511_numbers(fig510: pd.DataFrame) -> dict[str, float]:
    """The whole-run drop rate (%) at N = 1, 2 and 4, smallest and largest over the weights."""
    out: dict[str, float] = {}
    for n in THESIS_LOSS_EVENT:
        part = 100 * fig510[fig510["flows"] == n]["drop_rate"]
        if len(part):
            out[f"drop_n{n}_min"] = float(part.min())
            out[f"drop_n{n}_max"] = float(part.max())
    return out


def _grid_numbers(tables: Mapping[str, pd.DataFrame]) -> dict[str, float | str]:
    """The prose's numbers about the thesis's grid (Figs. 5.10 and 5.18): the ratio at the
    smallest, a middle and the largest N for the smallest and the largest D, the weights
    whose Fig. 5.10 claim misses D, and the range of each kind of mix's Fig. 5.18 ratio."""
    fig510 = ratios(weighted_grid(tables), ["D", "flows"]).set_index(["D", "flows"])["ratio"]
    ds = sorted(fig510.index.get_level_values("D").unique())
    ns = sorted(fig510.index.get_level_values("flows").unique())
    middle = max(n for n in ns if n <= max(16, ns[0]))
    out: dict[str, float | str] = {
        "grid_n": ", ".join(str(n) for n in ns),
        "grid_d": ", ".join(label(d) for d in sorted(ds, reverse=True)),
        "grid_runs": len(ns) * len(ds),
        "mid_n": middle,
    }
    for name, d in (("low", ds[0]), ("high", ds[-1])):
        out[f"fig510_{name}_d"] = label(d)
        for where, n in (("small", ns[0]), ("mid", middle), ("large", ns[-1])):
            out[f"fig510_{name}_{where}"] = float(fig510[(d, n)])
    found = _weighted(weighted_grid(tables))
    statuses = ledger.check_statuses("bmc", found)
    missed = [label(d) for d in sorted(ds, reverse=True)
              if statuses[f"fig510_D{label(d)}"] != "reproduced"]  # fmt: skip

    def gap(d: str) -> float:
        claim = found[f"fig510_D{d}"]
        return claim.value - float(claim.paper or 0.0)

    above = [d for d in missed if gap(d) > 0]
    below = [d for d in missed if gap(d) < 0]
    out["fig510_missed"] = _words(missed) if missed else "none"
    out["fig510_missed_count"] = len(missed)
    out["fig510_missed_above"] = _words(above) if above else "none"
    out["fig510_missed_below"] = _words(below) if below else "none"
    mixes = mix_ratios(tables["bmc-mixes"])
    whole = mixes[mixes["weight"] == "all"]
    for size, name in ((2, "pairs"), (4, "quads")):
        part = whole[whole["size"] == size]["ratio"]
        out[f"mix_{name}_min"] = float(part.min()) if len(part) else math.nan
        out[f"mix_{name}_max"] = float(part.max()) if len(part) else math.nan
    return out


def _explain_numbers(table: pd.DataFrame) -> dict[str, float | str]:
    """The prose's numbers from ``bmc-explain``: the share of the weighted flows' loss
    events that are time-outs and the mean distance of the ratio from D, at the two rates of
    the large-N case; the small-N runs per weight; the long runs' ratios."""
    found = explain_table(table)
    out: dict[str, float | str] = {}
    large = found[found["case"] == "large"]
    rates = sorted(large["rate_mbps"].unique())
    for name, rate in (("slow", rates[0]), ("fast", rates[-1])):
        part = large[large["rate_mbps"] == rate]
        out[f"explain_{name}_mbps"] = float(rate)
        out[f"explain_{name}_share_min"] = 100 * float(part["aimd_timeout_share"].min())
        out[f"explain_{name}_share_max"] = 100 * float(part["aimd_timeout_share"].max())
        out[f"explain_{name}_excess"] = float((part["ratio"] / part["D"]).mean())
        out[f"explain_{name}_window_min"] = float(part["aimd_window"].min())
    out["explain_large_n"] = _words([str(n) for n in sorted(large["flows"].unique())])
    small = found[found["case"] == "small"]
    out["explain_small_seeds"] = int(table[table["case"] == "small"]["replica"].nunique())
    out["explain_small_n"] = _words([str(n) for n in sorted(small["flows"].unique())])
    long = found[found["case"] == "long"]
    out["explain_long"] = (
        "; ".join(f"D = {label(r.D)}, N = {r.flows}: {r.ratio:.3f}" for r in long.itertuples())
        if len(long)
        else "not run"
    )
    return out


def _order_numbers(table: pd.DataFrame) -> dict[str, float | str]:
    """The prose's numbers from ``bmc-order`` at weights 1/2, 1/2 (the manager's start):
    the misordered share at each J, the longest congestion epoch."""
    part = table[table["d1"] == 0.5].sort_values("j_s")
    holding = part[part["j_s"] >= part["epoch_s"]]
    return {
        "order_epoch_s": float(part["epoch_s"].max()),
        "order_j_min": float(part["j_s"].min()),
        "order_j_max": float(part["j_s"].max()),
        "order_wrong_min_j": float(part["misordered"].iloc[0]),
        "order_wrong_max_j": float(part["misordered"].iloc[-1]),
        "order_j_epoch": float(holding["j_s"].iloc[0]) if len(holding) else math.nan,
        "order_wrong_epoch": float(holding["misordered"].iloc[0]) if len(holding) else math.nan,
        "order_table": "; ".join(
            f"J = {j:g} s: {w:.2f}" for j, w in zip(part["j_s"], part["misordered"], strict=True)
        ),
    }


def _jk_numbers(table: pd.DataFrame) -> dict[str, float | str]:
    """The prose's summary of ``bmc-jk``'s packet runs: D1's standard deviation over the
    second half and the first time it comes near the fluid fixed set, at the ends of the K
    sweep (at the chapter's J) and of the J sweep (at its K), means over both scenarios and
    the seeds."""
    packet = table[table["model"] == "packet"]
    j0, k0 = BmcParams.j_s, BmcParams.k

    def ends(part: pd.DataFrame, by: str, unit: str) -> str:
        means = part.groupby(by)[["sd_d1", "reach_s"]].mean().sort_index()
        if len(means) < 2:
            return f"one {by} only"
        lo, hi = means.index[0], means.index[-1]
        name = "K" if by == "k" else "J"
        return (
            f"{name} from {lo:g}{unit} to {hi:g}{unit}: D1's standard deviation over the "
            f"second half {means['sd_d1'].iloc[0]:.3f} and {means['sd_d1'].iloc[-1]:.3f}, first "
            f"near the fixed set after {means['reach_s'].iloc[0]:.0f} and "
            f"{means['reach_s'].iloc[-1]:.0f} s"
        )

    by_k = ends(packet[np.isclose(packet["j_s"], j0)], "k", "")
    by_j = ends(packet[np.isclose(packet["k"], k0)], "j_s", " s")
    return {
        "jk_packet_runs": int(packet.groupby(["scenario", "j_s", "k"])["replica"].count().max())
        if len(packet)
        else 0,
        "jk_packet_summary": f"at J = {j0:g} s, {by_k}; at K = {k0:g}, {by_j} (means over both "
        "scenarios and the seeds)",
    }


def _worked_numbers(table: pd.DataFrame) -> dict[str, float | str]:
    """The prose's numbers from ``bmc-worked``: runs per case and each claimed share, keyed
    ``worked_<scenario>_<weights>_<source>`` with the weights as digits (``1_4`` for 1/4, 3/4;
    left out where the grid lacks the case)."""
    found = _worked_shares(table)
    packet = table[table["model"] == "packet"]
    out: dict[str, float | str] = {"worked_runs": int(packet["replica"].nunique())}
    for (scenario, case, source), _ in THESIS_EXAMPLES.items():
        digits = case.replace("D = ", "").split(",")[0].replace("/", "_").strip()
        key = f"worked_{scenario}_{case}_{source}"
        if key in found:
            out[f"worked_{scenario}_{digits}_{source}"] = float(found[key][2].mean())
    return out


def _words(items: list[str]) -> str:
    """``a, b and c``."""
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


#: the thesis's Mb/s per source in the worked examples (Secs. 3.2 and 4.1); the TCP flow's
#: 17.33 in Fig. 3.1 is what its 12.67 leaves of the 30 Mb/s link
THESIS_EXAMPLES = {
    ("shared", "D = 1/2, 1/2", "tcp"): 30.0 - 12.67,
    ("shared", "D = 1/2, 1/2", "bmc"): 12.67,
    ("shared", "D = 1/4, 3/4", "tcp"): 15.0,
    ("shared", "D = 1/4, 3/4", "bmc"): 3.75 + 11.25,
    ("pooling", "uncoupled", "s1"): 4.0,
    ("pooling", "uncoupled", "s2"): 9.0,
    ("pooling", "uncoupled", "s3"): 5.0,
    ("pooling", "D = 1/3, 2/3", "s1"): 6.0,
    ("pooling", "D = 1/3, 2/3", "s2"): 6.0,
    ("pooling", "D = 1/3, 2/3", "s3"): 6.0,
}


def _worked_shares(table: pd.DataFrame) -> dict[str, tuple[float, float, np.ndarray]]:
    """Per worked example and source of :data:`THESIS_EXAMPLES` that ``table`` ran: the
    thesis's share of its sources' total, and ours in each packet run (:func:`_worked`),
    keyed ``worked_<scenario>_<case>_<source>``; the last item is the source's Mb/s."""
    packet = table[table["model"] == "packet"]
    per_run = packet.groupby(["scenario", "case", "replica", "source"], sort=False)["mbps"].sum()
    shares = per_run / per_run.groupby(["scenario", "case", "replica"]).transform("sum")
    out: dict[str, tuple[float, float, np.ndarray]] = {}
    cases = dict.fromkeys((s, c) for s, c, _ in THESIS_EXAMPLES)
    for scenario, case in cases:
        paper = {src: v for (s, c, src), v in THESIS_EXAMPLES.items() if (s, c) == (scenario, case)}
        total = sum(paper.values())
        for source, mbps in paper.items():
            try:
                values = shares.xs((scenario, case, source), level=["scenario", "case", "source"])
            except KeyError:
                continue
            key = f"worked_{scenario}_{case}_{source}"
            out[key] = (mbps / total, mbps, values.to_numpy(dtype=float))
    return out


def _worked(table: pd.DataFrame) -> dict[str, Claim]:
    """The thesis's worked examples in the packet model (``bmc-worked``: several seeds at
    fixed weights). The thesis's numbers assume full links; RED leaves ours partly idle, so
    each source is compared as its share of what the case's sources get together (the
    thesis's Mb/s over their sum), per run, mean over the runs. Tolerance: three standard
    errors over the runs (with four runs, a false alarm in about 6% of rows if the shares are
    normal: Student's t with 3 degrees of freedom); no claim from a single run."""
    out: dict[str, Claim] = {}
    for key, (paper, _, runs) in _worked_shares(table).items():
        if len(runs) < 2:
            continue
        _, scenario, case, source = key.split("_", 3)
        out[key] = Claim(
            f"{'Figs. 3.1-3.2' if scenario == 'shared' else 'Fig. 4.1'}, {case}: {source}'s "
            f"share of the sources' total, packet model, {len(runs)} runs",
            tolerance.of_runs(float(runs.mean()), runs),
            paper=paper,
        )
    return out


def examples_table(examples: pd.DataFrame) -> pd.DataFrame:
    """The worked examples side by side: per (scenario, case, source) the thesis's Mb/s,
    the fluid model's and the packet model's (mean over its runs, the second half of each)."""
    per_source = (
        examples.groupby(["model", "scenario", "case", "replica", "source"], sort=False)["mbps"]
        .sum()
        .groupby(["model", "scenario", "case", "source"], sort=False)
        .mean()
        .unstack("model")
        .reset_index()
    )
    per_source.insert(
        3,
        "thesis",
        [
            THESIS_EXAMPLES.get((s, c, src), np.nan)
            for s, c, src in zip(
                per_source["scenario"], per_source["case"], per_source["source"], strict=True
            )
        ],
    )
    return per_source.rename(columns={"fluid": "fluid (ours)", "packet": "packet (ours)"})
