"""Weighted AIMD in the packet model: Honda (2009), Secs. 3.1 and 5, re-run.

Part 1 checks the response function, eq. (3.2): one AIMD(a, b) flow under random loss
(:func:`response`) and N AIMD(a, b) flows against N TCP flows on Fig. 5.1's bottleneck
(:func:`competition`). Part 2 is the thesis's evaluation: N TCP flows against N AIMD(D^2, 1/2)
flows (Figs. 5.2-5.11, :func:`weighted`), mixes of weights summing to 1 (Figs. 5.12-5.18,
:func:`mixes`), the same under other queues (:func:`red`, RED's parameters are not given),
and the thesis's two explanations of its deviations tested (:func:`explain`). Every run is
seeded from ``SeedSequence(seed).spawn``; the thesis's AIMD(a, b) cuts the window to
``(1 - b) W``, the packet model's ``beta`` is ``1 - b``.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import Any

import pandas as pd

from tcplab.packet import QueueSetup
from tcplab.packet.weighted import (
    ACCESS_DELAY_MS,
    DELAY_MS,
    PACKET_BYTES,
    WeightedRun,
    mixed_setup,
    weighted_setup,
)
from tcplab.theory import bmc

from .params import BmcParams
from .runs import Job, job, run_jobs

__all__ = [
    "BmcParams",
    "label",
    "response",
    "competition",
    "weighted",
    "mixes",
    "red",
    "explain",
    "summarise",
    "ratios",
]


def label(value: float) -> str:
    """A weight as the thesis writes it: ``2/3``, ``1/5``."""
    return str(Fraction(value).limit_denominator(100))


# -- Part 1: the response function -----------------------------------------------------------
def _response_row(work: Job, run: WeightedRun) -> dict[str, Any]:
    f = run.flows.iloc[0]
    setup = run.setup
    span = setup.length.duration - setup.length.warmup
    top = setup.topology
    # propagation, plus one packet transmission on the access link and one on the bottleneck
    tx = PACKET_BYTES * 8.0 / (top.rate_mbps * 1e6)
    rtt = float(f["rtt_prop_s"]) + 2.0 * tx
    return {
        **work.label,
        "rtt_s": rtt,
        "rate_pps": float(f["steady_goodput_mbps"]) * 1e6 / (8.0 * PACKET_BYTES),
        "loss_events": int(f["steady_fast_retransmits"] + f["steady_timeouts"]),
        "timeouts": int(f["steady_timeouts"]),
        "seconds": span,
    }


def response(params: BmcParams, seed: int = 0) -> pd.DataFrame:
    """One AIMD(a, b) flow alone on fast links, each packet lost with probability p: its
    goodput beside eq. (3.2) (periodic loss) and the random-loss closed form, and over the
    goodput of TCP at the same p (the weight each model gives the pair)."""
    rate = params.response_rate_mbps
    jobs = [
        job(
            mixed_setup(
                [(a, 1.0 - b)],
                0,
                rate_mbps=rate,
                queue=QueueSetup("droptail", 5000),
                duration=params.response_warmup + params.response_duration,
                warmup=params.response_warmup,
                loss_rate=p,
                start_spread=0.0,
            ),
            a=a,
            b=b,
            p=p,
        )  # fmt: skip
        for a, b in params.response_pairs
        for p in params.response_losses
    ]
    table = pd.DataFrame(run_jobs(jobs, params.workers, seed, "response", _response_row))
    a, b, p, rtt = (table[c].to_numpy() for c in ("a", "b", "p", "rtt_s"))
    table["eq32_pps"] = [bmc.aimd_throughput(*x) for x in zip(a, b, rtt, p, strict=True)]
    table["random_pps"] = [bmc.random_loss_throughput(*x) for x in zip(a, b, rtt, p, strict=True)]
    table["vs_eq32"] = table["rate_pps"] / table["eq32_pps"]
    table["vs_random"] = table["rate_pps"] / table["random_pps"]
    table["weight_eq32"] = [bmc.weight_of(x, y) for x, y in zip(a, b, strict=True)]
    table["weight_random"] = [bmc.random_loss_weight(x, y) for x, y in zip(a, b, strict=True)]
    tcp = table[(table["a"] == 1.0) & (table["b"] == 0.5)].set_index("p")["rate_pps"]
    table["vs_tcp"] = table["rate_pps"] / table["p"].map(tcp)
    return table


def _ratio_row(work: Job, run: WeightedRun) -> dict[str, Any]:
    return {**work.label, **summarise(run)}


def competition(params: BmcParams, seed: int = 0) -> pd.DataFrame:
    """N AIMD(a, b) flows against N TCP flows on Fig. 5.1's RED bottleneck, over a grid of
    (a, b): the steady ratio of their mean throughputs beside eq. (3.2)'s weight
    ``sqrt(a (2 - b) / (3 b))`` and the random-loss weight."""
    n = params.competition_flows
    jobs = [
        job(
            mixed_setup(
                [(a, 1.0 - b)] * n,
                n,
                rate_mbps=params.rate_mbps,
                queue=params.queue,
                duration=params.duration,
                warmup=params.steady_from,
            ),
            n,
            a=a,
            b=b,
            flows=n,
        )  # fmt: skip
        for a in params.competition_a
        for b in params.competition_b
    ]
    table = pd.DataFrame(run_jobs(jobs, params.workers, seed, "competition", _ratio_row))
    pairs = zip(table["a"], table["b"], strict=True)
    weights = [(bmc.weight_of(a, b), bmc.random_loss_weight(a, b)) for a, b in pairs]
    table["weight_eq32"] = [w for w, _ in weights]
    table["weight_random"] = [w for _, w in weights]
    table["vs_eq32"] = table["steady_ratio"] / table["weight_eq32"]
    return table


# -- Part 2: Figs. 5.2-5.18 --------------------------------------------------------------------
def summarise(run: WeightedRun) -> dict[str, Any]:
    """One run's numbers: ratios (AIMD mean over TCP mean, over the whole run as the thesis
    measures and from ``steady_from`` on), drop and loss-event rates, time-outs per flow of
    each kind, utilisation."""
    f, link = run.flows, run.bottleneck
    tcp, aimd = f[f["kind"] == "tcp"], f[f["kind"] == "aimd"]
    s = run.summary()
    steady_events = f["steady_fast_retransmits"].sum() + f["steady_timeouts"].sum()
    return {
        "ratio": s["ratio"],
        "steady_ratio": float(
            aimd["steady_goodput_mbps"].mean() / tcp["steady_goodput_mbps"].mean()
        ),
        "tcp_mbps": s["tcp_mbps"],
        "aimd_mbps": s["aimd_mbps"],
        "drop_rate": link["drop_rate"],
        "steady_drop_rate": link["steady_drop_rate"],
        "loss_event_rate": s["loss_event_rate"],
        "steady_loss_event_rate": float(steady_events / max(f["steady_sent"].sum(), 1)),
        "tcp_timeouts": float(tcp["timeouts"].mean()),
        "aimd_timeouts": float(aimd["timeouts"].mean()),
        "tcp_loss_events": float((tcp["fast_retransmits"] + tcp["timeouts"]).mean()),
        "aimd_loss_events": float((aimd["fast_retransmits"] + aimd["timeouts"]).mean()),
        "utilisation": s["utilisation"],
        "forced_drops": int(link.get("red_forced_drops", 0)),
    }


def _flow_rows(work: Job, run: WeightedRun) -> pd.DataFrame:
    f = run.flows
    n_all = len(f)
    share = run.bottleneck["rate_mbps"] / n_all
    rows = f[["kind", "n", "a", "weight", "goodput_mbps", "steady_goodput_mbps", "timeouts"]]
    rows = rows.assign(
        normalised=f["goodput_mbps"] / share,
        loss_events=f["fast_retransmits"] + f["timeouts"],
    )
    run_level = summarise(run)
    for key, value in reversed(list(work.label.items())):
        rows.insert(0, key, value)
    for key in ("drop_rate", "steady_drop_rate", "loss_event_rate", "utilisation"):
        rows[key] = run_level[key]
    return rows.reset_index(drop=True)


def _setup(params: BmcParams, weights: Sequence[float], **options: Any) -> Any:
    settings = {"rate_mbps": params.rate_mbps, "duration": params.duration,
                "warmup": params.steady_from, **options}  # fmt: skip
    return weighted_setup(list(weights), **settings)


def weighted(params: BmcParams, seed: int = 0) -> pd.DataFrame:
    """Figs. 5.2-5.11: N TCP flows against N AIMD(D^2, 1/2) flows, every (N, D) of the
    thesis; one row per flow: its goodput, normalised so that 1 is the capacity over the
    number of flows (as the thesis plots it), time-outs and loss events, with the run's
    drop and loss-event rates."""
    jobs = [
        job(_setup(params, [d] * n, queue=params.queue), n, weight_label=label(d), D=d, flows=n)
        for d in params.weights
        for n in params.flows
    ]
    frames = run_jobs(jobs, params.workers, seed, "weighted", _flow_rows)
    return pd.concat(frames, ignore_index=True)


def _mix_weights(mix: Sequence[float], n: int) -> list[float]:
    return [mix[i % len(mix)] for i in range(n)]


def mixes(params: BmcParams, seed: int = 0) -> pd.DataFrame:
    """Figs. 5.12-5.17: N TCP flows against N weighted flows whose weights cycle through a
    mix summing to 1 (pairs D, 1 - D; the quadruples of Figs. 5.16 and 5.17); one row per
    flow. The ideal per weighted flow is 1/2 (pairs) or 1/4 (quadruples) of TCP."""
    cases = [(mix, n) for mix in params.pairs for n in params.pair_flows]
    cases += [(mix, n) for mix in params.quads for n in params.quad_flows]
    jobs = [
        job(
            _setup(params, _mix_weights(mix, n), queue=params.queue),
            n,
            mix=" + ".join(label(d) for d in mix),
            size=len(mix),
            flows=n,
        )  # fmt: skip
        for mix, n in cases
    ]
    frames = run_jobs(jobs, params.workers, seed, "mixes", _flow_rows)
    return pd.concat(frames, ignore_index=True)


def ratios(table: pd.DataFrame, by: Sequence[str]) -> pd.DataFrame:
    """Fig. 5.10 and 5.18 from per-flow rows: per group, the AIMD mean over the TCP mean
    (whole run and steady), the loss-event and drop rates, time-outs per flow of each kind."""
    rows = []
    for key, part in table.groupby(list(by), sort=False):
        tcp, aimd = part[part["kind"] == "tcp"], part[part["kind"] == "aimd"]
        values = dict(zip(by, key if isinstance(key, tuple) else (key,), strict=True))
        rows.append(
            {
                **values,
                "ratio": float(aimd["goodput_mbps"].mean() / tcp["goodput_mbps"].mean()),
                "steady_ratio": float(
                    aimd["steady_goodput_mbps"].mean() / tcp["steady_goodput_mbps"].mean()
                ),
                "drop_rate": float(part["drop_rate"].iloc[0]),
                "steady_drop_rate": float(part["steady_drop_rate"].iloc[0]),
                "loss_event_rate": float(part["loss_event_rate"].iloc[0]),
                "tcp_timeouts": float(tcp["timeouts"].mean()),
                "aimd_timeouts": float(aimd["timeouts"].mean()),
            }
        )
    return pd.DataFrame(rows)


def red(params: BmcParams, seed: int = 0) -> pd.DataFrame:
    """Fig. 5.10's ratio under other bottleneck queues (RED's parameters are not given):
    ns-2's automatic RED (the chapter's), classic RED (5/15 packets, 50-packet queue), RED
    with thresholds at 0.6/0.8 of a bandwidth-delay product, and DropTail."""
    jobs = [
        job(_setup(params, [d] * n, queue=variant), n, queue=variant, D=d, flows=n)
        for variant in params.red_variants
        for d in params.red_weights
        for n in params.red_flows
    ]
    return pd.DataFrame(run_jobs(jobs, params.workers, seed, "red", _ratio_row))


def explain(params: BmcParams, seed: int = 0) -> pd.DataFrame:
    """The thesis's explanations, tested. ``small``: N = 1, 2, 4 over several seeds, the
    ratio and the drop rate over the whole run and after the start (is the deviation noise,
    the start-up, or a bias?); ``long``: N = 1, 2 over a run ten times longer, measured
    from ``long_from`` on (does it go away when the flows have had many loss events?).
    ``large``: N = 32, 64 at 60 Mb/s and with the bottleneck four times faster (windows
    four times larger, time-outs rarer): does the ratio come back to D when the time-outs
    go?"""
    jobs = [
        job(
            _setup(params, [d] * n, queue=params.queue),
            n,
            case="small",
            D=d,
            flows=n,
            rate_mbps=params.rate_mbps,
            duration=params.duration,
            replica=r,
        )  # fmt: skip
        for d in params.small_weights
        for n in params.small_flows
        for r in range(params.small_replicas)
    ]
    jobs += [
        job(
            _setup(
                params,
                [d] * n,
                queue=params.queue,
                duration=params.long_duration,
                warmup=params.long_from,
            ),
            n,
            case="long",
            D=d,
            flows=n,
            rate_mbps=params.rate_mbps,
            duration=params.long_duration,
            replica=0,
        )  # fmt: skip
        for d in params.long_weights
        for n in params.long_flows
    ]
    jobs += [
        job(
            _setup(params, [d] * n, queue=params.queue, rate_mbps=rate),
            n,
            case="large",
            D=d,
            flows=n,
            rate_mbps=rate,
            duration=params.duration,
            replica=0,
        )  # fmt: skip
        for d in params.large_weights
        for n in params.large_flows
        for rate in params.large_rates_mbps
    ]
    table = pd.DataFrame(run_jobs(jobs, params.workers, seed, "explain", _ratio_row))
    # the mean window of each kind in packets, at least: goodput times the propagation RTT
    packets_per_rtt = 1e6 / (8.0 * PACKET_BYTES) * 2.0 * (DELAY_MS + ACCESS_DELAY_MS) / 1e3
    table["tcp_window"] = table["tcp_mbps"] * packets_per_rtt
    table["aimd_window"] = table["aimd_mbps"] * packets_per_rtt
    return table
