"""Paper vs. book for Morris (1997), and the numbers the chapter's prose quotes.

Morris gives sentences and curves, few tables: each claim turns a sentence into a number (or
a statement, true or false) beside ours. Every tolerance comes from one of the book's rules
(:mod:`tcplab.ledger.tolerance`): a printed number stands for what rounds to it ("0.7%" is
±0.05 points; "about 5%" a full point), widened to the 95% interval of our runs where that is
wider; a closed form of the paper against a simulation gets the simulation's interval; a
statement is true or false. The status each row must have is in the chapter's ledger
(``ledger.toml``), and every "ours" is computed from the experiments' tables, never typed in.
The paper's own numbers are quoted here, with their text, once.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
import pandas as pd

from tcplab import claims
from tcplab.claims import Claim, holds
from tcplab.ledger import tolerance
from tcplab.theory import morris as theory

from . import flowloss
from .evidence import (
    SAWTOOTH_N,
    SMALL_N,
    Missing,
    by_flows,
    capped_sum_p,
    falls,
    high_share,
    irregularity,
    lemma_ratio,
    lemma_ratios,
    onset,
    pooled_buffers,
    rises,
    slope,
    stage_ratios,
    steps,
    timeout_share,
    timeout_shares,
    values,
)
from .experiments import MorrisParams
from .lemma3 import ARMS as LEMMA3_ARMS
from .lemma3 import one_p_ratios
from .runs import morris_setup, morris_tcp
from .whatifs import GAPS

__all__ = [
    "TABLES",
    "SMALL_N",
    "SAWTOOTH_N",
    "by_flows",
    "slope",
    "falls",
    "rises",
    "steps",
    "timeout_shares",
    "chapter_claims",
    "chapter_numbers",
    "lemma3_frame",
]

#: the experiments the claims and the prose read
TABLES = (
    "morris-loss",
    "morris-series",
    "morris-buffers-few",
    "morris-buffers-many",
    "morris-remedies",
    "morris-choices",
    "morris-setups",
    "morris-episodes",
    "morris-scaled",
    "morris-buffers-more",
    "morris-access",
    "morris-lemma3",
    "morris-flow-loss",
)
#: the what-if that makes Lemma 2's assumption true (experiments.CHOICES)
RESET = "back-off ends at the first new ACK"
AS_BUILT = "as built (our choices)"
#: router A's choices of morris-setups (whatifs.SETUPS)
NS2_RED, NO_FORCED, GENTLE, DROPTAIL = (
    "as built (ns-2 RED)", "RED without forced drops", "gentle RED", "DropTail",
)  # fmt: skip


def _largest(table: pd.DataFrame) -> int:
    return int(table["flows"].max())


def _number(claim: str, source: str, text: str, paper: float, runs: np.ndarray) -> Claim:
    """A number the paper prints (``text`` as printed) against the mean of ``runs``."""
    if len(runs) == 0:
        raise Missing("no runs")
    return Claim(
        claim,
        tolerance.of_runs(float(np.mean(runs)), runs),
    )


def _exact(claim: str, source: str, paper: float, runs: np.ndarray) -> Claim:
    """A value the paper's argument fixes exactly (a slope, a ratio of 1) against ``runs``."""
    if len(runs) == 0:
        raise Missing("no runs")
    return Claim(
        claim,
        tolerance.of_runs(float(np.mean(runs)), runs),
        paper=paper,
    )


def _flows_of(table: pd.DataFrame) -> int:
    if table.empty:
        raise Missing("no runs")
    return int(table["flows"].max())


def _loss_set(table: pd.DataFrame) -> float:
    return float(table["loss_set"].max())


def _log_one_p(stages: pd.DataFrame, arm: str) -> np.ndarray:
    """ln(n_3 / ((2 q_0)^3 n_0)) of each run of ``arm`` (Lemma 3 says 0); a run with no
    flow in stage 3 has no finite log and is left out (none at full scale)."""
    ratio = one_p_ratios(_numeric(stages), arm, 3)
    with np.errstate(divide="ignore"):
        logs = np.log(ratio)
    return logs[np.isfinite(logs)]


def _setup_parameters_hold() -> bool:
    """Figure 2 and Section 3, read from the code's own set-up (not typed)."""
    ok = True
    for n in (30, 1500):
        setup = morris_setup(n)
        top: Any = setup.topology
        tcp, queue, length = morris_tcp(), setup.queue, setup.length
        ok &= tcp.packet_bytes == 576
        ok &= tcp.max_window * 576 <= 65536 < (tcp.max_window + 1) * 576  # 64 KB, whole packets
        ok &= tcp.granularity == 0.5 and tcp.variant == "tahoe"
        ok &= top.delay_ms == 25.0 and top.rate_mbps == 10.0
        ok &= top.access_delay_ms == 50.0
        ok &= math.isclose(top.access_mbps, 10.0 * 10.0 / n)
        ok &= queue.kind == "red" and queue.buffer == 217
        ok &= queue.min_th == 54 and queue.max_th == 108 and queue.max_p == 0.002
        ok &= length.duration == 200.0 and MorrisParams().seconds == 200.0
        ok &= top.start_fraction == 0.05 and top.telnet == 5
        ok &= setup.delayed_ack_ms is not None  # receivers ACK every other packet
    return bool(ok)


def _topology_holds() -> bool:
    """Figure 1: N senders each on its own link L_i, one router A, one link L, N receivers."""
    setup = morris_setup(30)
    top: Any = setup.topology
    return bool(top.flows == 30 and not top.receiver_links)


def _rows(tables: Mapping[str, pd.DataFrame]) -> dict[str, Callable[[], Claim]]:
    """Every row as a function (a row whose runs are missing raises :class:`Missing`)."""
    loss, series = tables["morris-loss"], tables["morris-series"]
    few, many = tables["morris-buffers-few"], tables["morris-buffers-many"]
    remedies, choices = tables["morris-remedies"], tables["morris-choices"]
    empty = pd.DataFrame()
    setups = tables.get("morris-setups", empty)
    episodes = tables.get("morris-episodes", empty)
    scaled = tables.get("morris-scaled", empty)
    more = tables.get("morris-buffers-more", empty)
    access = tables.get("morris-access", empty)
    stages = tables.get("morris-lemma3", empty)
    big = _largest(loss)
    pooled = pooled_buffers(many, more)
    top_remedy = int(remedies["flows"].max())

    def remedy(sender: str, column: str, flows: int = top_remedy) -> float:
        return float(np.mean(values(remedies, column, sender=sender, queue="red", flows=flows)))

    def setup(choice: str, column: str, flows: int) -> np.ndarray:
        return values(setups, column, setup_choice=choice, flows=flows)

    def flow_seconds(flows: int) -> pd.DataFrame:
        shown = series[(series["flows"] == flows) & (series["flow"] == 0)]
        after = shown[shown["second"] > float(MorrisParams().warmup)]
        if after.empty:
            raise Missing(f"no series at N = {flows}")
        return after

    def fig9() -> Claim:
        per = few.groupby("buffer")["utilisation"].mean()
        at_bdp = float(per.loc[217]) if 217 in per.index else math.nan
        below = per[per.index < 217]
        ok = at_bdp >= 0.98 and bool((below < at_bdp).all())
        return holds(
            "Fig. 9, 30 flows: one delay-bandwidth product of buffer (217) keeps the link at"
            " least 98% busy, every smaller buffer less",
            ok,
            "the book's runs",
        )

    def buffer_ends() -> tuple[pd.Series, int, int]:
        per = many.groupby("buffer")[["loss_rate", "under_5pct"]].mean()
        return per, int(per.index.min()), int(per.index.max())

    def fig10(column: str, words: str) -> Claim:
        per, first, last = buffer_ends()
        return holds(
            f"Fig. 10, 500 flows: {words} falls from b = {first} to b = {last}",
            bool(per.loc[last, column] < per.loc[first, column]),
            "the book's runs",
        )

    def levels(column: str, words: str) -> Claim:
        tenfold = 10 * int(many["flows"].iloc[0])
        past = pooled[pooled["buffer"] >= tenfold]
        if past["buffer"].nunique() < 2:
            raise Missing("no buffers past ten per TCP")
        return holds(
            f"Fig. 10: {words} does not fall beyond noise past ten buffers per TCP (b >="
            f" {tenfold}, up to {int(past['buffer'].max())})",
            not falls(past, column, "buffer"),
            "the book's runs",
        )

    def bump() -> Claim:
        inside = pooled[(pooled["buffer"] >= 1500) & (pooled["buffer"] <= 2000)]
        runs = int(inside.groupby("buffer").size().min()) if len(inside) else 0
        if runs < 3:
            raise Missing("fewer than 3 runs per buffer in [1500, 2000]")
        found = bool(rises(inside, "under_5pct", "buffer"))
        return holds(
            f"Fig. 10: seconds under 5% rise beyond noise somewhere in 1500-2000 packets"
            f" (at least {runs} runs per buffer)",
            found,
            "the book's runs",
        )

    def queues() -> Claim:
        per = pooled.groupby("buffer")["mean_rtt"].mean()
        low, high = float(per.loc[per.index.min()]), float(per.loc[per.index.max()])
        return holds(
            f"Fig. 10's runs: mean RTT at b = {int(per.index.max())} over twice that at"
            f" b = {int(per.index.min())}",
            high > 2.0 * low,
            "the book's runs",
        )

    def lemma1() -> Claim:
        tail = loss[loss["flows"] >= 1500]
        if tail["flows"].nunique() < 2:
            raise Missing("the sweep stops at 1500")
        return holds(
            f"Lemma 1: n_0 stops growing from N = 1500 on (no rise beyond noise up to N = {big})",
            not rises(tail, "n0"),
            "the book's runs",
        )

    def alternate() -> Claim:
        runs = loss[loss["flows"] == 1500]
        if runs.empty:
            raise Missing("no N = 1500")
        low, high = float(runs["h00"].mean()), float(high_share(runs).mean())
        return holds(
            "1500 flows: more flow-seconds below a quarter of the fair share or at twice it and"
            " above than in between",
            low + high > 1.0 - low - high,
            "the book's runs",
        )

    def fr_switch() -> Claim:
        fits = theory.fast_retransmit_flows(theory.network_storage(217))
        shares = {int(n): timeout_share(g) for n, g in loss.groupby("flows")}
        below = [s for n, s in shares.items() if SAWTOOTH_N <= n < fits and math.isfinite(s)]
        above = [s for n, s in shares.items() if n > fits and math.isfinite(s)]
        if not below or not above:
            raise Missing("the sweep does not straddle the fast-retransmit limit")
        ok = max(below) < 0.5 < min(above)
        return holds(
            f"Time-outs are under half of the loss responses at every N below {fits:.1f} (windows"
            " of four fit in the storage) and over half above it",
            ok,
            "the book's runs",
        )

    def mech_bursts() -> Claim:
        n = 300
        burstier = np.mean(setup(NO_FORCED, "drops_per_flow_episode", n)) > np.mean(
            setup(NS2_RED, "drops_per_flow_episode", n)
        )
        lower = np.mean(setup(NO_FORCED, "loss_rate", n)) < np.mean(setup(NS2_RED, "loss_rate", n))
        return holds(
            "N = 300: RED without forced drops loses more packets per flow per episode, yet"
            " fewer packets, than ns-2's RED (bursts alone do not set the loss)",
            bool(burstier and lower),
            "the book's runs",
        )

    def mech_gentle() -> Claim:
        n = 30
        red_q, gentle_q = (float(np.mean(setup(c, "mean_queue", n))) for c in (NS2_RED, GENTLE))
        spread = np.mean(setup(GENTLE, "drops_per_flow_episode", n)) < np.mean(
            setup(NS2_RED, "drops_per_flow_episode", n)
        )
        lower = np.mean(setup(GENTLE, "loss_rate", n)) < np.mean(setup(NS2_RED, "loss_rate", n))
        return holds(
            "N = 30: gentle RED, its mean queue within 10% of ns-2's RED's, takes fewer packets"
            " per flow per episode and loses fewer packets",
            bool(abs(gentle_q - red_q) <= 0.1 * red_q and spread and lower),
            "the book's runs",
        )

    def mech_access() -> Claim:
        n = int(access["flows"].max()) if len(access) else 0
        built = float(np.mean(values(access, "mean_rtt", access="as built", flows=n)))
        floor = float(np.mean(values(access, "mean_rtt", access="floor", flows=n)))
        base = float(np.mean(values(loss, "mean_rtt", flows=1500)))
        return holds(
            f"N = {n}: access links no slower than at N = 1500 take back over half of the RTT's"
            " growth from N = 1500",
            built - floor > 0.5 * (built - base),
            "the book's runs",
        )

    def gap_slopes() -> dict[float, tuple[float, float]]:
        out = {}
        for k in GAPS:
            column = f"episodes_g{k:g}"
            if column not in episodes:
                raise Missing(column)
            s, half, _ = slope(episodes, column, top=SMALL_N, low=10)
            out[k] = (s, half)
        return out

    def mech_gap() -> Claim:
        fine = float(np.mean(values(episodes, f"episodes_g{min(GAPS):g}", flows=30)))
        coarse = float(np.mean(values(episodes, f"episodes_g{max(GAPS):g}", flows=30)))
        return holds(
            f"N = 30: episodes per second under a gap of {min(GAPS):g} RTT over those under"
            f" {max(GAPS):g} RTTs is more than 2",
            coarse > 0 and fine / coarse > 2.0,
            "the book's runs",
        )

    def episodes_rules() -> Claim:
        below = all(s + half < 1.0 for s, half in gap_slopes().values())
        return holds(
            f"Under every gap rule from {min(GAPS):g} to {max(GAPS):g} RTTs the log-log slope of"
            " episodes against N (10 <= N <= 60) is below 1 beyond its 95% interval",
            below,
            "the book's runs",
        )

    def mech_sqrt() -> Claim:
        s, half, _ = slope(scaled, top=SMALL_N, low=10)
        return holds(
            "Fixed share per flow (link and buffer grow with N): the log-log slope of loss"
            " against N, 10 <= N <= 60, is below 1 beyond its 95% interval (as built: about 2)",
            s + half < 1.0,
            "the book's runs",
        )

    def bands(low: int, high: int) -> np.ndarray:
        inside = loss[(loss["flows"] >= low) & (loss["flows"] <= high)]["loss_rate"]
        if inside.empty:
            raise Missing(f"no runs with {low} <= N <= {high}")
        return inside.to_numpy(dtype=float)

    small = loss[(loss["flows"] >= SAWTOOTH_N) & (loss["flows"] <= SMALL_N)]
    n300 = int(choices["flows"].max())
    rows: dict[str, Callable[[], Claim]] = {
        "topology": lambda: holds(
            "Fig. 1: N senders on their own links L_i, router A, link L, N receivers (the set-up"
            " code)",
            _topology_holds(),
            "the book's runs",
        ),
        "parameters": lambda: holds(
            "Fig. 2 and Sec. 3: every stated parameter, read from the set-up code",
            _setup_parameters_hold(),
            "the book's runs",
        ),
        "packet-rate": lambda: Claim(
            "Packets per second on L (closed form)",
            tolerance.computed(theory.packet_rate()),
        ),
        "half-bdp": lambda: Claim(
            "Packets sent before the receiver sees the first (closed form)",
            tolerance.computed(theory.link_storage() / 2.0),
        ),
        "bdp": lambda: Claim(
            "Delay-bandwidth product in packets (closed form)",
            tolerance.computed(theory.link_storage()),
        ),
        "goodput-30": lambda: _number(
            "30 flows: goodput (distinct bytes delivered / capacity)",
            "Sec. 4: 'The bottleneck link efficiency, or goodput, is 97%'",
            "97%",
            0.97,
            values(loss, "goodput_fraction", flows=30),
        ),
        "loss-30": lambda: _number(
            "30 flows: loss rate at router A",
            "Sec. 4: 'Router A drops 0.7% of all packets'",
            "0.7%",
            0.007,
            values(loss, "loss_rate", flows=30),
        ),
        "estimate-30": lambda: Claim(
            "30 flows: Section 4's sawtooth estimate, windows sawing 2W/3 to 4W/3 (closed form)",
            tolerance.computed(float(theory.sawtooth_loss(30))),
        ),
        "estimate-30-paper": lambda: Claim(
            "30 flows: Section 4's own arithmetic, 30 drops per 12 x 0.137 s of 2170 packets/s",
            tolerance.computed(
                30.0 / (12.0 * (0.1 + 81.0 / theory.packet_rate())) / theory.packet_rate()
            ),
        ),
        "cycle-30": lambda: Claim(
            "30 flows: Section 4's cycle, 12 round trips of 0.137 s (closed form)",
            tolerance.computed(12.0 * 0.137),
        ),
        "queue-30": lambda: _number(
            f"30 flows: mean queue an arrival finds at router A (packets; {NS2_RED})",
            "Sec. 4: 'roughly (108+54)/2 = 81 packets'",
            "roughly 81",
            81.0,
            setup(NS2_RED, "mean_queue", 30),
        ),
        "queue-30-between": lambda: holds(
            "30 flows: the mean queue lies between RED's thresholds (54 and 108)",
            bool(54.0 <= np.mean(setup(NS2_RED, "mean_queue", 30)) <= 108.0),
            "the book's runs",
        ),
        "rtt-30": lambda: _number(
            "30 flows: mean smoothed RTT (s)",
            "Sec. 4: 'the propagation delay of 0.1 seconds plus ... 0.037 seconds' (0.137 s)",
            "0.137",
            0.137,
            values(loss, "mean_rtt", flows=30),
        ),
        "window-30": lambda: _number(
            "30 flows: mean congestion window (packets)",
            "Sec. 4: 'about 10 packets, by oscillating between 7 and 13'",
            "about 10",
            10.0,
            values(loss, "mean_cwnd", flows=30),
        ),
        "jain-30": lambda: holds(
            "30 flows: Jain index of the flows' goodput at least 0.9",
            bool(np.mean(values(loss, "jain", flows=30)) >= 0.9),
            "the book's runs",
        ),
        "fig3-timeouts": lambda: holds(
            "Fig. 3: the flow shown (of 30) has no second with nothing delivered after the warm-up",
            bool((flow_seconds(30)["packets"] == 0).sum() == 0),
            "the book's runs",
        ),
        "zero-30": lambda: _number(
            "30 flows: flow-seconds with nothing delivered (reading 1: exactly zero)",
            "Sec. 4: 'a whole second of zero bandwidth ... about 5% of the time'",
            "about 5%",
            0.05,
            values(loss, "zero_seconds", flows=30),
        ),
        "zero-30-bin": lambda: _number(
            "30 flows: flow-seconds under a quarter of the fair share (reading 2: Fig. 4's"
            " lowest bar, our bins)",
            "Sec. 4: 'a whole second of zero bandwidth ... about 5% of the time'",
            "about 5%",
            0.05,
            values(loss, "h00", flows=30),
        ),
        "goodput-1500": lambda: holds(
            "1500 flows: goodput over 97%",
            bool(np.mean(values(loss, "goodput_fraction", flows=1500)) > 0.97),
            "the book's runs",
        ),
        "loss-1500": lambda: _number(
            "1500 flows: loss rate",
            "Sec. 5: 'the packet loss rate is 17%'",
            "17%",
            0.17,
            values(loss, "loss_rate", flows=1500),
        ),
        "fig5": lambda: holds(
            "Fig. 5: the flow shown (of 1500) has seconds at twice its fair share and more, and"
            " seconds of nothing",
            bool(
                (flow_seconds(1500)["share"] >= 2).any()
                and (flow_seconds(1500)["packets"] == 0).any()
            ),
            "the book's runs",
        ),
        "delay-1500": lambda: _number(
            "1500 flows: flow-seconds with nothing delivered",
            "Sec. 5: 'delays of one second or more with a probability of just over 30%'",
            "just over 30%",
            0.30,
            values(loss, "zero_seconds", flows=1500),
        ),
        "rising": lambda: holds(
            "Fig. 7: no step of the sweep from N = 100 on lowers the loss beyond noise",
            not falls(loss[loss["flows"] >= 100], "loss_rate"),
            "the book's runs",
        ),
        "onset": lambda: holds(
            "Unfairness appears past the delay-bandwidth product: the first N with over 5% of"
            " flow-seconds under 5% of the fair share is above 217",
            onset(loss) > theory.link_storage(),
            "the book's runs",
        ),
        "dec": lambda: _number(
            "DEC: mean loss for 200-300 flows (read off our Fig. 7)",
            "Sec. 6: 'the router feeding the DEC network imposes a 6% packet loss rate'",
            "6%",
            0.06,
            bands(200, 300),
        ),
        "harvard": lambda: _number(
            "Harvard: mean loss for 300-400 flows (read off our Fig. 7)",
            "Sec. 6: '... and that feeding the Harvard network 8%'",
            "8%",
            0.08,
            bands(300, 400),
        ),
        "storage": lambda: Claim(
            "Storage: delay-bandwidth product + buffer (packets, closed form)",
            tolerance.computed(theory.network_storage(217)),
        ),
        "one-packet-rate": lambda: Claim(
            "A window of one 576-byte packet per 0.2 s round trip (bits/s, closed form)",
            tolerance.computed(theory.one_packet_rate_bps(0.2)),
            paper=23040.0,
        ),
        "one-434th": lambda: Claim(
            "The bottleneck's capacity over that rate (closed form)",
            tolerance.computed(10e6 / theory.one_packet_rate_bps(0.2)),
        ),
        "alternate": alternate,
        "lemma1": lemma1,
        "lemma": lambda: _exact(
            f"N = {big}: n_1 / (2 p n_0) with p the loss rate of all packets",
            "Sec. 7.1, Lemma 2: 'n_i = 2 p n_{i-1}'",
            1.0,
            lemma_ratios(loss, big),
        ),
        "lemma-q0": lambda: _exact(
            f"N = {big}: n_1 / (2 q_0 n_0) with q_0 the loss of stage-0 retransmissions (the"
            " lemma's p), TCP as built",
            "Sec. 7.1, Lemma 2: 'p n_{i-1} of these TCPs will suffer another drop'",
            1.0,
            lemma_ratios(loss, big, "q0"),
        ),
        "mech-lemma-reset": lambda: _exact(
            f"N = {n300}, back-off ends at the first new ACK: n_1 / (2 q_0 n_0)",
            "Lemma 2's assumption ('If the receiver acknowledges the packet, the TCP leaves"
            " s_i') made true",
            1.0,
            lemma_ratios(choices[choices["choice"] == RESET], n300, "q0"),
        ),
        "lemma2-stages": lambda: _exact(
            f"N = {n300}, back-off ends at the first new ACK: n_(i+1) / (2 q_i n_i) for stages"
            " 0-3, each with its own retransmission loss q_i (run by run)",
            "Sec. 7.1, Lemma 2 at every stage (the step Lemma 3 expands)",
            1.0,
            stage_ratios(choices[choices["choice"] == RESET], n300, 4),
        ),
        "lemma3": lambda: _exact(
            f"N = {_flows_of(stages)}, back-off ends at the first new ACK, Morris's network: "
            "Lemma 3 with one p for every stage, ln(n_3 / ((2 q_0)^3 n_0)) run by run, q_0 the "
            "loss of stage-0 retransmissions (0 when the lemma holds; the log, as the ratio "
            "multiplies three stages' factors and its runs spread over orders of magnitude)",
            "Sec. 7.1, Lemma 3: 'n_i = (2p)^i n_0 by recursive expansion of Lemma 2'",
            0.0,
            _log_one_p(stages, LEMMA3_ARMS[0]),
        ),
        "mech-lemma3-independent": lambda: _exact(
            f"What-if, N = {_flows_of(stages)}: every packet lost independently with p = "
            f"{_loss_set(stages):g}, so a retransmission is lost alike at every stage: Lemma 3 "
            "with one p, ln(n_3 / ((2 q_0)^3 n_0)) run by run",
            "Book: Lemma 3 fails in Morris's network because q_i grows with the stage",
            0.0,
            _log_one_p(stages, LEMMA3_ARMS[1]),
        ),
        "lemma4-q0": lambda: holds(
            f"N = {big}: the loss of stage-0 retransmissions (the lemma's p) reaches 50%",
            bool(np.mean(values(loss, "q0", flows=big)) >= theory.lemma_bound()),
            "the book's runs",
        ),
        "lemma4-loss": lambda: _exact(
            f"N = {big}: loss rate of all packets against Lemma 4's limit",
            "Sec. 7.1: 'the loss rate p must approach or exceed 50% as N grows large'",
            0.5,
            values(loss, "loss_rate", flows=big),
        ),
        "backoff4": lambda: holds(
            f"N = {top_remedy}: a back-off constant of 4 leaves more flow-seconds under 5% of"
            " the fair share than Tahoe's 2",
            remedy("tahoe-backoff4", "under_5pct") > remedy("tahoe", "under_5pct"),
            "the book's runs",
        ),
        "paced": lambda: holds(
            f"N = {top_remedy}: a linear decrease of the inter-packet time after a time-out"
            " loses less than Tahoe",
            remedy("tahoe-paced", "loss_rate") < remedy("tahoe", "loss_rate"),
            "the book's runs",
        ),
        "slope": lambda: Claim(
            f"Fig. 8: log-log slope of loss against N, {SAWTOOTH_N} <= N <= {SMALL_N}",
            tolerance.mean(slope(loss)[0], slope(loss)[1], "the runs"),
            paper=2.0,
        ),
        "episodes": lambda: Claim(
            f"Loss episodes per second against N, log-log slope, {SAWTOOTH_N} <= N <= {SMALL_N}"
            " (drops under one mean RTT apart are one episode)",
            tolerance.mean(
                slope(loss, "episodes_per_s")[0], slope(loss, "episodes_per_s")[1], "the runs"
            ),
            paper=1.0,
        ),
        "one-loss-per-flow": lambda: _exact(
            f"Drops per flow hit in a loss episode, {SAWTOOTH_N} <= N <= {SMALL_N}",
            "Sec. 7.2: 'Each loss episode involves the loss of one packet from each flow'",
            1.0,
            small["drops_per_flow_episode"].to_numpy(dtype=float),
        ),
        "fr-switch": fr_switch,
        "slowgrowth": lambda: holds(
            f"N = {top_remedy}: a window that doubles at most every 100 packets loses less than"
            " Tahoe",
            remedy("tahoe-slowgrowth", "loss_rate") < remedy("tahoe", "loss_rate"),
            "the book's runs",
        ),
        "mech-sqrt": mech_sqrt,
        "mech-episodes-gap": mech_gap,
        "episodes-rules": episodes_rules,
        "fig9": fig9,
        "fig10-goodput": lambda: holds(
            "Fig. 10, 500 flows: goodput over 95% with the smallest buffer",
            bool(
                np.mean(values(many, "goodput_fraction", buffer=float(many["buffer"].min()))) > 0.95
            ),
            "the book's runs",
        ),
        "fig10-drops": lambda: fig10("loss_rate", "the drop rate"),
        "fig10-fairness": lambda: fig10("under_5pct", "the share of seconds under 5%"),
        "fig10-levels": lambda: levels("under_5pct", "the share of seconds under 5%"),
        "fig10-levels-drops": lambda: levels("loss_rate", "the drop rate"),
        "fig10-bump": bump,
        "queues": queues,
        "mech-queue-30": lambda: _number(
            f"30 flows, {DROPTAIL} (router A's buffer used in full): loss rate",
            "Sec. 4: 'Router A drops 0.7% of all packets'",
            "0.7%",
            0.007,
            setup(DROPTAIL, "loss_rate", 30),
        ),
        "mech-bursts": mech_bursts,
        "mech-gentle-30": mech_gentle,
        "mech-harvard": lambda: _number(
            f"300 flows, {DROPTAIL}: loss rate",
            "Sec. 6: Harvard's 300-400 flows, '8%'",
            "8%",
            0.08,
            setup(DROPTAIL, "loss_rate", 300),
        ),
        "mech-1500": lambda: _number(
            f"1500 flows, {DROPTAIL}: loss rate",
            "Sec. 5: 'the packet loss rate is 17%'",
            "17%",
            0.17,
            setup(DROPTAIL, "loss_rate", 1500),
        ),
        "mech-access-rtt": mech_access,
        **flowloss.claim_rows(tables.get("morris-flow-loss", empty)),
    }
    return rows


def chapter_claims(tables: Mapping[str, pd.DataFrame]) -> dict[str, Claim]:
    """Every paper-vs-book row, under short keys in reading order; a row whose runs the
    tables do not have (a quick grid) is left out."""
    out: dict[str, Claim] = {}
    for key, make in _rows(tables).items():
        try:
            out[key] = make()
        except (Missing, KeyError, ValueError):
            continue
    return out


def _variant_numbers(remedies: pd.DataFrame, sender: str, flows: int, key: str) -> dict:
    """Loss and seconds under 5% of ``sender`` with RED at ``flows`` (NaN when not run)."""
    runs = remedies[(remedies["sender"] == sender) & (remedies["queue"] == "red")
                    & (remedies["flows"] == flows)]  # fmt: skip
    return {f"{key}_loss": float(runs["loss_rate"].mean()),
            f"{key}_under": float(runs["under_5pct"].mean())}  # fmt: skip


def _mean(table: pd.DataFrame, column: str, **where: float | str) -> float:
    return float(claims.rows(table, **where)[column].mean())


def _band(table: pd.DataFrame, column: str, low: int, high: int) -> float:
    inside = table[(table["flows"] >= low) & (table["flows"] <= high)]
    return float(inside[column].mean())


def _safe(make: Callable[[], float]) -> float:
    try:
        return float(make())
    except (Missing, KeyError, ValueError, IndexError):
        return math.nan


def _setup_numbers(setups: pd.DataFrame) -> dict[str, float]:
    """Loss, mean queue, mean RTT, drops per flow per episode, empty flow-seconds and time-outs
    per flow of each of router A's choices at each N (``<choice>_<measure>_<N>``)."""
    names = {NS2_RED: "red", NO_FORCED: "capped", GENTLE: "gentle", DROPTAIL: "droptail"}
    measures = {"loss_rate": "loss", "mean_queue": "queue", "mean_rtt": "rtt",
                "drops_per_flow_episode": "dpf", "zero_seconds": "zero", "under_5pct": "under",
                "goodput_fraction": "goodput"}  # fmt: skip
    out = {}
    for choice, short in names.items():
        for n in (30, 300, 1500):
            for column, word in measures.items():
                out[f"{short}_{word}_{n}"] = _mean_of(setups, column, setup_choice=choice, flows=n)
            timeouts = _mean_of(setups, "timeouts", setup_choice=choice, flows=n)
            out[f"{short}_timeouts_{n}"] = timeouts / n
    return out


def chapter_numbers(
    tables: Mapping[str, pd.DataFrame], scale: str = "full"
) -> dict[str, float | int | str]:
    """Every number the chapter's text quotes, from the tables of :data:`TABLES` (NaN where a
    quick grid does not have the runs; the quick notebook prints it as such)."""
    loss, series = tables["morris-loss"], tables["morris-series"]
    many, remedies = tables["morris-buffers-many"], tables["morris-remedies"]
    choices, few = tables["morris-choices"], tables["morris-buffers-few"]
    empty = pd.DataFrame()
    setups = tables.get("morris-setups", empty)
    episodes = tables.get("morris-episodes", empty)
    scaled = tables.get("morris-scaled", empty)
    more = tables.get("morris-buffers-more", empty)
    access = tables.get("morris-access", empty)
    s, half, points = slope(loss)
    largest = _largest(loss)
    big = loss[loss["flows"] == largest]
    share = by_flows(loss, "loss_rate").set_index("flows")
    crossing = share[share["mean"] >= 0.05].index
    fr = loss[loss["flows"] == 30]
    tahoe = remedies[(remedies["sender"] == "tahoe") & (remedies["queue"] == "red")]
    top, low = int(remedies["flows"].max()), int(remedies["flows"].min())
    slow = remedies[(remedies["sender"] == "tahoe-slowgrowth") & (remedies["queue"] == "red")]
    per_variant = remedies[remedies["flows"] == top].groupby(["sender", "queue"])["loss_rate"]
    spread = choices.groupby("choice")["loss_rate"].mean()
    n300 = int(choices["flows"].max())
    reset = choices[choices["choice"] == RESET]
    built = choices[choices["choice"] == AS_BUILT]
    pooled = pooled_buffers(many, more)
    per_buffer = pooled.groupby("buffer")[["mean_rtt", "under_5pct", "loss_rate"]].mean()
    rtt_n = loss.groupby("flows")["mean_rtt"].mean()
    n0_n = loss.groupby("flows")["n0"].mean()
    in_timeout = float(big["in_timeout"].mean())
    n0_big = float(big["n0"].mean())
    storage = theory.network_storage(217)
    fits4 = theory.fast_retransmit_flows(storage)
    numbers: dict[str, float | int | str] = {
        "runs_per_n": int(loss.groupby("flows").size().min()),
        "largest_n": largest,
        "slope": s,
        "slope_half": half,
        "slope_points": points,
        "slope_from": SAWTOOTH_N,
        "sawtooth_min": theory.sawtooth_min_flows(),
        "loss_30": _mean(loss, "loss_rate", flows=30),
        "loss_over_paper_30": _mean(loss, "loss_rate", flows=30) / 0.007,  # Sec. 4's 0.7%
        "loss_over_estimate_30": _mean(loss, "loss_rate", flows=30)
        / float(theory.sawtooth_loss(30)),
        "loss_1500": _mean(loss, "loss_rate", flows=1500),
        "loss_largest": float(big["loss_rate"].mean()),
        "zero_30": _mean(loss, "zero_seconds", flows=30),
        "h00_30": _mean(loss, "h00", flows=30),
        "timeouts_per_flow_30": _mean(loss, "timeouts", flows=30) / 30.0,
        "fig3_empty": int(
            (
                (series["flows"] == 30)
                & (series["flow"] == 0)
                & (series["second"] > 20)
                & (series["packets"] == 0)
            ).sum()
        ),  # fmt: skip
        "zero_1500": _mean(loss, "zero_seconds", flows=1500),
        "under_1500": _mean(loss, "under_5pct", flows=1500),
        "timeouts_largest": in_timeout,
        "fr_window_30": float(fr["fr_p50"].mean()),
        "drops_per_flow_30": _mean(loss, "drops_per_flow_episode", flows=30),
        "episodes_slope": slope(loss, "episodes_per_s")[0],
        "episodes_30": _mean(loss, "episodes_per_s", flows=30),
        "lemma_ratio": lemma_ratio(loss, largest),
        "lemma_q0_largest": lemma_ratio(loss, largest, "q0"),
        "q0_largest": float(big["q0"].mean()),
        "n0_1500": float(n0_n.get(1500, math.nan)),
        "n0_largest": n0_big,
        "n0_5000": float(n0_n.get(5000, math.nan)),
        "capped_p": _safe(lambda: capped_sum_p(in_timeout, n0_big)),
        "lemma_built": lemma_ratio(built, n300),
        "lemma_reset": lemma_ratio(reset, n300),
        "lemma_q0_built": lemma_ratio(built, n300, "q0"),
        "lemma_q0_reset": lemma_ratio(reset, n300, "q0"),
        "q0_built": float(built["q0"].mean()),
        "q0_reset": float(reset["q0"].mean()),
        "loss_built_n300": float(built["loss_rate"].mean()),
        "choice_n": n300,
        "flows_per_episode_30": _mean(loss, "flows_per_episode", flows=30),
        "five_percent_n": int(crossing.min()) if len(crossing) else largest,
        "onset_n": _safe(lambda: onset(loss)),
        "timeout_share_100": _safe(lambda: timeout_share(loss[loss["flows"] == 100])),
        "timeout_share_200": _safe(lambda: timeout_share(loss[loss["flows"] == 200])),
        "dec": _band(loss, "loss_rate", 200, 300),
        "harvard": _band(loss, "loss_rate", 300, 400),
        "rtt_30": float(rtt_n.get(30, math.nan)),
        "rtt_1500": float(rtt_n.get(1500, math.nan)),
        "rtt_3000": float(rtt_n.get(3000, math.nan)),
        "rtt_5000": float(rtt_n.get(5000, math.nan)),
        "rtt_largest": float(rtt_n.get(largest, math.nan)),
        "loss_3000": float(share["mean"].get(3000, math.nan)),
        "loss_5000": float(share["mean"].get(5000, math.nan)),
        "goodput_largest": float(big["goodput_fraction"].mean()),
        "access_kbps_largest": 100e3 / largest,
        "serialise_largest": 576 * 8 / (100e6 / largest),
        **dict(
            zip(
                ("bump_from", "bump_to", "bump_low", "bump_high"),
                _safe_tuple(lambda: irregularity(pooled)),
                strict=True,
            )
        ),  # fmt: skip
        "bump_runs": int(
            pooled[(pooled["buffer"] >= 1500) & (pooled["buffer"] <= 2000)]
            .groupby("buffer")
            .size()
            .min()
        ),  # fmt: skip
        "buffer_top": int(per_buffer.index.max()),
        "rtt_b217": float(per_buffer["mean_rtt"].get(217, math.nan)),
        "rtt_b5000": float(per_buffer["mean_rtt"].get(5000, math.nan)),
        "rtt_btop": float(per_buffer["mean_rtt"].iloc[-1]),
        "under_b5000": float(per_buffer["under_5pct"].get(5000, math.nan)),
        "under_btop": float(per_buffer["under_5pct"].iloc[-1]),
        "loss_b5000": float(per_buffer["loss_rate"].get(5000, math.nan)),
        "loss_btop": float(per_buffer["loss_rate"].iloc[-1]),
        "timeouts_btop": float(pooled.groupby("buffer")["timeouts"].mean().iloc[-1]),
        "timeouts_b5000": float(pooled.groupby("buffer")["timeouts"].mean().get(5000, math.nan)),
        "remedy_n": top,
        "tahoe_top": float(tahoe[tahoe["flows"] == top]["loss_rate"].mean()),
        "tahoe_top_under": float(tahoe[tahoe["flows"] == top]["under_5pct"].mean()),
        **_variant_numbers(remedies, "tahoe-backoff4", top, "backoff4"),
        **_variant_numbers(remedies, "tahoe-slowgrowth", top, "slowgrowth"),
        **_variant_numbers(remedies, "tahoe-slowgrowth", 300, "slowgrowth300"),
        **_variant_numbers(remedies, "tahoe", 300, "tahoe300"),
        **_variant_numbers(remedies, "tahoe-backoff4", 300, "backoff4_300"),
        **_variant_numbers(remedies, "newreno", top, "newreno"),
        **_variant_numbers(remedies, "sack", top, "sack"),
        **timeout_shares(remedies, ("tahoe", "newreno", "sack"), top),
        "remedy_low": low,
        "tahoe_goodput_low": float(tahoe[tahoe["flows"] == low]["goodput_fraction"].mean()),
        "slowgrowth_goodput_low": float(slow[slow["flows"] == low]["goodput_fraction"].mean()),
        "slowgrowth_cwnd_low": float(slow[slow["flows"] == low]["mean_cwnd"].mean()),
        "tahoe_cwnd_low": float(tahoe[tahoe["flows"] == low]["mean_cwnd"].mean()),
        "best_variant": " + ".join(per_variant.mean().idxmin()),
        "best_variant_loss": float(per_variant.mean().min()),
        "choice_low": float(spread.min()),
        "choice_high": float(spread.max()),
        "series_seconds": int(series["second"].max()),
        "storage": storage,
        "bdp": theory.link_storage(),
        "half_bdp": theory.link_storage() / 2.0,
        "packet_rate": theory.packet_rate(),
        "max_window": morris_tcp().max_window,
        "fr_flows": fits4,
        "fr_flows_whole": math.floor(fits4),
        "fr_buffer": theory.fast_retransmit_buffer(500),
        "estimate_30": float(theory.sawtooth_loss(30)),
        "estimate_30_paper": 30.0
        / (12.0 * (0.1 + 81.0 / theory.packet_rate()))
        / theory.packet_rate(),
        "one_packet_bps": theory.one_packet_rate_bps(0.2),
        "ten_per_flow_500": 10 * 500,
        "ten_per_flow_delay": 10 * 500 / theory.packet_rate(),
        "few_goodput_217": float(few[few["buffer"] == 217]["goodput_fraction"].mean()),
        **_setup_numbers(setups),
        **_gap_numbers(episodes),
        "scaled_slope": _safe(lambda: slope(scaled, top=SMALL_N, low=10)[0]),
        "scaled_slope_half": _safe(lambda: slope(scaled, top=SMALL_N, low=10)[1]),
        "scaled_loss_30": _safe(lambda: np.mean(values(scaled, "loss_rate", flows=30))),
        "scaled_window": _safe(lambda: np.mean(scaled["mean_cwnd"])),
        "access_n": _safe(lambda: int(access["flows"].max())),
        "access_rtt_built": _safe(lambda: np.mean(values(access, "mean_rtt", access="as built"))),
        "access_rtt_floor": _safe(lambda: np.mean(values(access, "mean_rtt", access="floor"))),
        "access_loss_built": _safe(lambda: np.mean(values(access, "loss_rate", access="as built"))),
        "access_loss_floor": _safe(lambda: np.mean(values(access, "loss_rate", access="floor"))),
        "access_n0_built": _safe(lambda: np.mean(values(access, "n0", access="as built"))),
        "access_n0_floor": _safe(lambda: np.mean(values(access, "n0", access="floor"))),
        "access_queue_built": _safe(
            lambda: np.mean(values(access, "mean_queue", access="as built"))
        ),
        "access_queue_floor": _safe(lambda: np.mean(values(access, "mean_queue", access="floor"))),
        "choice_reps": int(setups.groupby(["setup_choice", "flows"]).size().min())
        if len(setups)
        else math.nan,
        **_walls(scale),
        **_lemma3_numbers(tables.get("morris-lemma3", empty)),
        "scale": scale,
    }
    if scale == "quick":  # a quick grid lacks some N and what-ifs: their numbers are left out
        return {k: v for k, v in numbers.items() if not _missing(v)}
    return numbers


def _numeric(table: pd.DataFrame) -> pd.DataFrame:
    """The back-off columns (n0.., q0..) as floats (a stage no run reached holds None)."""
    out = table.copy()
    for column in out.columns:
        if column[:1] in "nq" and column[1:].isdigit():
            out[column] = pd.to_numeric(out[column], errors="coerce")
    return out


def _geometric_mean(values: pd.Series) -> float:
    with np.errstate(divide="ignore"):
        logs = np.log(values.to_numpy(dtype=float))
    logs = logs[np.isfinite(logs)]
    return float(np.exp(logs.mean())) if logs.size else math.nan


def lemma3_frame(stages: pd.DataFrame, deepest: int = 3) -> pd.DataFrame:
    """Per arm of morris-lemma3 and stage i <= ``deepest``: the means over the runs of n_i and
    q_i, and the geometric means (the ratios multiply stages' factors) of Lemma 3 with one p,
    n_i / ((2 q_0)^i n_0), and of Lemma 2 at stage i, n_i / (2 q_(i-1) n_(i-1))."""
    table = _numeric(stages)
    rows = []
    for arm in LEMMA3_ARMS:
        runs = table[table["arm"] == arm]
        for i in range(deepest + 1):
            one_p = runs[f"n{i}"] / ((2.0 * runs["q0"]) ** i * runs["n0"])
            step = runs[f"n{i}"] / (2.0 * runs[f"q{i - 1}"] * runs[f"n{i - 1}"]) if i else one_p
            rows.append({"arm": arm, "stage": i, "n": runs[f"n{i}"].mean(),
                         "q": runs[f"q{i}"].mean(), "one_p": _geometric_mean(one_p),
                         "stage_by_stage": _geometric_mean(step)})  # fmt: skip
    return pd.DataFrame(rows)


def _lemma3_numbers(stages: pd.DataFrame) -> dict[str, float]:
    """What the prose quotes of morris-lemma3 (NaN where the table lacks it: a quick grid)."""
    if stages.empty:
        return {}
    table = _numeric(stages)
    out = {
        "l3_n": float(table["flows"].max()),
        "l3_p": _loss_set(table),
        "l3_runs": float(table.groupby("arm").size().min()),
        "l3_net": _safe(lambda: np.exp(np.mean(_log_one_p(table, LEMMA3_ARMS[0])))),
        "l3_ind": _safe(lambda: np.exp(np.mean(_log_one_p(table, LEMMA3_ARMS[1])))),
        "l3_net_low": _safe(lambda: np.min(one_p_ratios(table, LEMMA3_ARMS[0], 3))),
        "l3_net_high": _safe(lambda: np.max(one_p_ratios(table, LEMMA3_ARMS[0], 3))),
    }
    for key, arm in (("net", LEMMA3_ARMS[0]), ("ind", LEMMA3_ARMS[1])):
        runs = table[table["arm"] == arm]
        for i in range(4):
            out[f"l3_q{i}_{key}"] = float(runs[f"q{i}"].mean()) if f"q{i}" in runs else math.nan
    return out


def _missing(value: object) -> bool:
    return isinstance(value, float) and not math.isfinite(value)


def _mean_of(table: pd.DataFrame, column: str, **where: float | str) -> float:
    """The mean of ``column`` over the runs of ``where`` (NaN where there are none)."""
    try:
        return float(np.mean(values(table, column, **where)))
    except Missing:
        return math.nan


def _safe_tuple(make: Callable[[], tuple]) -> tuple:
    try:
        return make()
    except (Missing, KeyError, ValueError):
        return (math.nan,) * 4


def _gap_numbers(episodes: pd.DataFrame) -> dict[str, float]:
    """Episodes per second at N = 30 and the log-log slope against N (10 <= N <= 60) under
    each gap rule, and the episodes Poisson drops at N = 30's rate would give under one."""
    out: dict[str, float] = {}
    for k, name in ((0.25, "q"), (1.0, "1"), (4.0, "4")):
        column = f"episodes_g{k:g}"
        out[f"gap{name}_episodes_30"] = _mean_of(episodes, column, flows=30)
        try:
            out[f"gap{name}_slope"] = slope(episodes, column, top=SMALL_N, low=10)[0]
        except (Missing, KeyError, ValueError):
            out[f"gap{name}_slope"] = math.nan

    def poisson() -> float:
        runs = episodes[episodes["flows"] == 30]
        span = runs["seconds"] - runs["warmup"]
        rate = float((runs["drops"] / span).mean())
        gap = float(runs["mean_rtt"].mean())
        return rate * math.exp(
            -rate * gap
        )  # episodes start at drops with no drop in the gap before

    out["poisson_episodes_30"] = _safe(poisson)
    tops = []
    for k in GAPS:
        try:
            s, half, _ = slope(episodes, f"episodes_g{k:g}", top=SMALL_N, low=10)
            tops.append(s + half)
        except (Missing, KeyError, ValueError):
            tops.append(math.nan)
    out["gap_slope_top"] = max(tops) if tops else math.nan
    runs = episodes[episodes["flows"] == 30] if len(episodes) else episodes
    out["drops_per_s_30"] = (
        float((runs["drops"] / (runs["seconds"] - runs["warmup"])).mean())
        if len(runs)
        else math.nan
    )
    return out


#: the referee round's new tables, whose computing time the chapter states
NEW_TABLES = ("morris-setups", "morris-episodes", "morris-scaled", "morris-buffers-more",
              "morris-access", "morris-lemma3")  # fmt: skip


def _walls(scale: str) -> dict[str, float]:
    """The wall time of each new full-scale table (``wall_<name>``, seconds, from its
    .meta.json: on the machine and the load it was computed on); NaN at quick scale."""
    from tcplab import cache

    out = {}
    for name in NEW_TABLES:
        key = "wall_" + name.removeprefix("morris-").replace("-", "_")
        found = cache.load(cache.Entry(name)) if scale == "full" else None
        out[key] = float(found[1].get("wall_s", math.nan)) if found else math.nan
    return out
