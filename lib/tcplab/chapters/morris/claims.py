"""Paper vs. book for Morris (1997), and the numbers the chapter's prose quotes.

Morris gives sentences and curves, few tables: each claim turns a sentence into a number (or
an inequality written as 1 = true) beside ours, with the tolerance we stand behind. Where the
model disagrees with the paper the claim says so (:data:`EXPECTED_VERDICTS`) and the chapter
explains why. Every "ours" is computed from the experiments' tables, never typed in.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from tcplab import claims
from tcplab.stats import t975
from tcplab.theory import morris as theory

from .analysis import loglog_slope

__all__ = [
    "TABLES",
    "EXPECTED_VERDICTS",
    "SMALL_N",
    "SAWTOOTH_N",
    "by_flows",
    "slope",
    "chapter_claims",
    "chapter_numbers",
    "falls",
]

#: the experiments the claims and the prose read
TABLES = (
    "morris-loss",
    "morris-series",
    "morris-buffers-few",
    "morris-buffers-many",
    "morris-remedies",
    "morris-choices",
)
#: the what-if that makes Lemma 2's assumption true (experiments.CHOICES)
RESET = "back-off ends at the first new ACK"
#: Fig. 8's range: "with fewer than 60 flows the loss rate seems to increase more than linearly",
#: from the fewest flows whose sawtooth is not capped by the 64 KB window (Section 4's model)
SMALL_N = 60
SAWTOOTH_N = math.ceil(theory.sawtooth_min_flows())
#: where the book does not reproduce the paper (the chapter says why)
EXPECTED_VERDICTS: dict[str, bool] = {
    "loss-30": False,  # RED drops in bursts: about twice the paper's loss
    "zero-30": False,  # fast retransmit recovers almost every loss of 30 flows
    "delay-1500": False,  # more flow-seconds in time-outs than the paper's 30%
    "episodes": False,  # episodes come at RED's pace, not N times as often
    "one-loss-per-flow": False,  # ... and hit a flow several times
    "lemma": False,  # Karn's rule keeps the back-off after a successful retransmission
    "dec": False,  # our loss between 200 and 400 flows is above the paper's curve
    "harvard": False,
}


def by_flows(table: pd.DataFrame, column: str) -> pd.DataFrame:
    """Mean, 95% confidence half-width (Student's t over the runs) and runs of ``column`` at
    each N."""
    grouped = table.groupby("flows")[column]
    out = grouped.agg(["mean", "std", "count"]).reset_index()
    df = np.maximum(out["count"].to_numpy() - 1, 1)
    half = np.array([t975(int(d)) for d in df]) * out["std"].fillna(0.0) / np.sqrt(out["count"])
    out["half"] = np.where(out["count"] > 1, half, np.nan)
    return out.drop(columns="std")


def falls(table: pd.DataFrame, column: str) -> list[int]:
    """The N at which the mean of ``column`` falls from the previous N of the sweep by more
    than noise: the two 95% intervals (Student's t over the runs) do not overlap, a test at
    well under the 5% level per step; a step whose intervals overlap is not a fall."""
    per = by_flows(table, column)
    half = per["half"].fillna(0.0).to_numpy()
    mean, flows = per["mean"].to_numpy(), per["flows"].to_numpy()
    return [int(flows[k + 1]) for k in range(len(per) - 1)
            if mean[k + 1] + half[k + 1] < mean[k] - half[k]]  # fmt: skip


def slope(
    table: pd.DataFrame, column: str = "loss_rate", top: int = SMALL_N
) -> tuple[float, float, int]:
    """Fig. 8: the log-log slope of ``column`` against N over every run with
    :data:`SAWTOOTH_N` <= N <= ``top`` (slope, 95% half-width, points)."""
    small = table[(table["flows"] >= SAWTOOTH_N) & (table["flows"] <= top)]
    return loglog_slope(small["flows"], small[column])


def _mean(table: pd.DataFrame, column: str, **where: float) -> float:
    return float(claims.rows(table, **where)[column].mean())


def _band(table: pd.DataFrame, column: str, low: int, high: int) -> float:
    """The mean of ``column`` over the runs with low <= N <= high."""
    inside = table[(table["flows"] >= low) & (table["flows"] <= high)]
    return float(inside[column].mean())


def _largest(table: pd.DataFrame) -> int:
    return int(table["flows"].max())


def chapter_claims(tables: Mapping[str, pd.DataFrame]) -> dict[str, claims.Claim]:
    """Every paper-vs-book row, under short keys in reading order."""
    loss, few, many = (tables[f"morris-{n}"] for n in ("loss", "buffers-few", "buffers-many"))
    out: dict[str, claims.Claim] = {}
    c = claims.Claim
    out["goodput-30"] = c(
        "30 flows: goodput (distinct bytes delivered / capacity)",
        "Sec. 4: 'The bottleneck link efficiency, or goodput, is 97%'",
        0.97, _mean(loss, "goodput_fraction", flows=30), 0.02,
    )  # fmt: skip
    out["loss-30"] = c(
        "30 flows: loss rate at router A",
        "Sec. 4: 'Router A drops 0.7% of all packets'",
        0.007, _mean(loss, "loss_rate", flows=30), 0.002,
    )  # fmt: skip
    out["estimate-30"] = c(
        "30 flows: Section 4's sawtooth estimate of the loss (closed form)",
        "Sec. 4: '0.8% of all packets should be dropped'",
        0.008, float(theory.sawtooth_loss(30)), 0.0005,
    )  # fmt: skip
    out["window-30"] = c(
        "30 flows: mean congestion window (packets)",
        "Sec. 4: 'about 10 packets, by oscillating between 7 and 13'",
        10.0, _mean(loss, "mean_cwnd", flows=30), 3.0,
    )  # fmt: skip
    out["jain-30"] = c(
        "30 flows: Jain index of the flows' goodput",
        "Sec. 4: 'TCP is also fair in this configuration'",
        1.0, _mean(loss, "jain", flows=30), 0.1,
    )  # fmt: skip
    out["zero-30"] = c(
        "30 flows: share of flow-seconds with nothing delivered",
        "Sec. 4: 'a whole second of zero bandwidth ... about 5% of the time'",
        0.05, _mean(loss, "zero_seconds", flows=30), 0.02,
    )  # fmt: skip
    out["goodput-1500"] = c(
        "1500 flows: goodput",
        "Sec. 5: 'also gets a total goodput of over 97%'",
        0.97, _mean(loss, "goodput_fraction", flows=1500), 0.03,
    )  # fmt: skip
    out["loss-1500"] = c(
        "1500 flows: loss rate",
        "Sec. 5: 'the packet loss rate is 17%'",
        0.17, _mean(loss, "loss_rate", flows=1500), 0.06,
    )  # fmt: skip
    out["delay-1500"] = c(
        "1500 flows: share of flow-seconds with nothing delivered",
        "Sec. 5: 'delays of one second or more with a probability of just over 30%'",
        0.30, _mean(loss, "zero_seconds", flows=1500), 0.15,
    )  # fmt: skip
    s, half, _ = slope(loss)
    out["slope"] = c(
        f"Fig. 8: log-log slope of loss against N, {SAWTOOTH_N} <= N <= {SMALL_N} (tolerance:"
        " our 95% CI)",
        "Sec. 7.2: 'for modest numbers of flows the loss rate is proportional to N^2'",
        2.0, s, half,
    )  # fmt: skip
    e, e_half, _ = slope(loss, "episodes_per_s")
    out["episodes"] = c(
        f"Loss episodes per second against N, log-log slope, {SAWTOOTH_N} <= N <= {SMALL_N}"
        " (tolerance: our 95% CI)",
        "Sec. 7.2: 'the frequency of loss episodes is proportional to N'",
        1.0, e, e_half,
    )  # fmt: skip
    small = loss[(loss["flows"] >= SAWTOOTH_N) & (loss["flows"] <= SMALL_N)]
    out["one-loss-per-flow"] = c(
        f"Drops per flow hit in a loss episode, {SAWTOOTH_N} <= N <= {SMALL_N}",
        "Sec. 7.2: 'Each loss episode involves the loss of one packet from each flow'",
        1.0, float(small["drops_per_flow_episode"].mean()), 0.5,
    )  # fmt: skip
    p = float(loss[loss["flows"] == _largest(loss)]["loss_rate"].mean())
    out["lemma"] = c(
        f"N = {_largest(loss)}: flows in stage 1 over Lemma 2's 2 p n_0",
        "Sec. 7.1, Lemma 2: 'n_i = 2 p n_{i-1}'",
        1.0, lemma_ratio(loss), 0.5,
    )  # fmt: skip
    out["rising"] = c(
        "Loss rate rises with N from N = 100 on (1 = no step of the sweep falls)",
        "Sec. 5: 'the steady upward trend'; Sec. 7.1: approaching 50%",
        1.0, float(not falls(loss[loss["flows"] >= 100], "loss_rate")), 0.0,
    )  # fmt: skip
    out["below-half"] = c(
        f"Loss rate at N = {_largest(loss)} is below the 50% bound (1 = yes)",
        "Sec. 7.1: 'the loss rate p must approach or exceed 50% as N grows large'",
        1.0, float(p < theory.lemma_bound()), 0.0,
    )  # fmt: skip
    out["storage"] = c(
        "Storage: delay-bandwidth product + buffer (packets, closed form)",
        "Sec. 7: 'The storage in the simulated network totals 434 packets'",
        434.0, theory.network_storage(217), 0.5,
    )  # fmt: skip
    out["dec"] = c(
        "DEC: mean loss for 200-300 flows (read off our Fig. 7)",
        "Sec. 6: 'the router feeding the DEC network imposes a 6% packet loss rate'",
        0.06, _band(loss, "loss_rate", 200, 300), 0.02,
    )  # fmt: skip
    out["harvard"] = c(
        "Harvard: mean loss for 300-400 flows (read off our Fig. 7)",
        "Sec. 6: '... and that feeding the Harvard network 8%'",
        0.08, _band(loss, "loss_rate", 300, 400), 0.02,
    )  # fmt: skip
    dbp = few[few["buffer"] >= 217]
    out["fig9"] = c(
        "Fig. 9, 30 flows: worst goodput with at least one delay-bandwidth product of buffer",
        "Sec. 8: 'just enough to allow full utilization of the bottleneck link'",
        1.0, float(dbp.groupby("buffer")["goodput_fraction"].mean().min()), 0.05,
    )  # fmt: skip
    per = many.groupby("buffer")[["loss_rate", "under_5pct"]].mean()
    first, tenfold = per.index.min(), per.index.max()
    out["fig10-drops"] = c(
        f"Fig. 10, 500 flows: drop rate falls from b = {first} to b = {tenfold} (1 = yes)",
        "Sec. 8: 'Both measures improve with increased buffer space'",
        1.0, float(per.loc[tenfold, "loss_rate"] < per.loc[first, "loss_rate"]), 0.0,
    )  # fmt: skip
    out["fig10-fairness"] = c(
        f"Fig. 10: seconds under 5% share fall from b = {first} to b = {tenfold} (1 = yes)",
        "Sec. 8: 'Both measures improve ... until there are about 10 buffers per TCP'",
        1.0, float(per.loc[tenfold, "under_5pct"] < per.loc[first, "under_5pct"]), 0.0,
    )  # fmt: skip
    return out


def irregularity(many: pd.DataFrame) -> tuple[int, int, float, float]:
    """Fig. 10's 'irregularity between 1500 and 2000 packets': of the steps from one buffer to
    the next within [1500, 2000], the one where the share of seconds under 5% of the fair
    share falls least (or rises): (buffer before, buffer after, share before, share after)."""
    per = many.groupby("buffer")["under_5pct"].mean().sort_index()
    inside = per[(per.index >= 1500) & (per.index <= 2000)]
    if len(inside) < 2:
        raise ValueError("Fig. 10's sweep needs two buffers in [1500, 2000]")
    rise = inside.diff().iloc[1:]
    after = int(rise.idxmax())
    before = int(inside.index[list(inside.index).index(after) - 1])
    return before, after, float(inside[before]), float(inside[after])


def _variant_numbers(remedies: pd.DataFrame, sender: str, flows: int, key: str) -> dict:
    """Loss and seconds under 5% of ``sender`` with RED at ``flows`` (NaN when not run)."""
    runs = remedies[(remedies["sender"] == sender) & (remedies["queue"] == "red")
                    & (remedies["flows"] == flows)]  # fmt: skip
    return {f"{key}_loss": float(runs["loss_rate"].mean()),
            f"{key}_under": float(runs["under_5pct"].mean())}  # fmt: skip


def timeout_shares(remedies: pd.DataFrame, senders: Sequence[str], flows: int) -> dict:
    """For each of ``senders`` with RED at ``flows``: the share of its loss responses that
    were time-outs (``<sender>_timeout_share``; NaN when not run)."""
    out = {}
    for sender in senders:
        runs = remedies[(remedies["sender"] == sender) & (remedies["queue"] == "red")
                        & (remedies["flows"] == flows)]  # fmt: skip
        responses = float((runs["timeouts"] + runs["fast_retransmits"]).sum())
        share = float(runs["timeouts"].sum()) / responses if responses else float("nan")
        out[f"{sender}_timeout_share"] = share
    return out


def lemma_ratio(table: pd.DataFrame, flows: int | None = None) -> float:
    """n_1 / (2 p n_0) over the runs with ``flows`` flows (default: the largest N); Lemma 2
    says 1."""
    runs = table[table["flows"] == (_largest(table) if flows is None else flows)]
    return float(runs["n1"].mean() / (2.0 * runs["loss_rate"].mean() * runs["n0"].mean()))


def chapter_numbers(
    tables: Mapping[str, pd.DataFrame], scale: str = "full"
) -> dict[str, float | int | str]:
    """Every number the chapter's text quotes, from the tables of :data:`TABLES`."""
    loss, series = tables["morris-loss"], tables["morris-series"]
    many, remedies = tables["morris-buffers-many"], tables["morris-remedies"]
    choices = tables["morris-choices"]
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
    return {
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
        "zero_1500": _mean(loss, "zero_seconds", flows=1500),
        "under_1500": _mean(loss, "under_5pct", flows=1500),
        "timeouts_largest": float(big["in_timeout"].mean()),
        "fr_window_30": float(fr["fr_p50"].mean()),
        "drops_per_flow_30": _mean(loss, "drops_per_flow_episode", flows=30),
        "episodes_slope": slope(loss, "episodes_per_s")[0],
        "episodes_30": _mean(loss, "episodes_per_s", flows=30),
        "lemma_ratio": lemma_ratio(loss),
        "lemma_built": lemma_ratio(choices[choices["choice"] == "as built (our choices)"]),
        "lemma_reset": lemma_ratio(choices[choices["choice"] == RESET]),
        "choice_n": int(choices["flows"].max()),
        "flows_per_episode_30": _mean(loss, "flows_per_episode", flows=30),
        "five_percent_n": int(crossing.min()) if len(crossing) else largest,
        "dec": _band(loss, "loss_rate", 200, 300),
        "harvard": _band(loss, "loss_rate", 300, 400),
        **dict(
            zip(("bump_from", "bump_to", "bump_low", "bump_high"), irregularity(many), strict=True)
        ),  # fmt: skip
        "remedy_n": top,
        "tahoe_top": float(tahoe[tahoe["flows"] == top]["loss_rate"].mean()),
        "tahoe_top_under": float(tahoe[tahoe["flows"] == top]["under_5pct"].mean()),
        **_variant_numbers(remedies, "tahoe-backoff4", top, "backoff4"),
        **_variant_numbers(remedies, "tahoe-slowgrowth", top, "slowgrowth"),
        **_variant_numbers(remedies, "newreno", top, "newreno"),
        **_variant_numbers(remedies, "sack", top, "sack"),
        **timeout_shares(remedies, ("tahoe", "newreno", "sack"), top),
        "remedy_low": low,
        "tahoe_goodput_low": float(tahoe[tahoe["flows"] == low]["goodput_fraction"].mean()),
        "slowgrowth_goodput_low": float(slow[slow["flows"] == low]["goodput_fraction"].mean()),
        "best_variant": " + ".join(per_variant.mean().idxmin()),
        "best_variant_loss": float(per_variant.mean().min()),
        "choice_low": float(spread.min()),
        "choice_high": float(spread.max()),
        "series_seconds": int(series["second"].max()),
        "storage": theory.network_storage(217),
        "fr_flows": theory.fast_retransmit_flows(theory.network_storage(217)),
        "fr_buffer": theory.fast_retransmit_buffer(500),
        "estimate_30": float(theory.sawtooth_loss(30)),
        "scale": scale,
    }
