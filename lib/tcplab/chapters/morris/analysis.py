"""Morris's measures, computed from what a run recorded: pure functions of numpy arrays.

* bandwidth per second in fair shares (Figs. 3-6), the share of flow-seconds with nothing
  delivered or under 5% of the fair share (Sections 4, 5 and 8), their histogram;
* back-off stages (Section 7.1): the time-averaged number of flows in a 2^i-second time-out,
  from each time-out's wait (the interval before it fired), and how often a retransmission
  made in stage i is lost;
* loss episodes (Section 7.2): drops less than ``gap`` apart form one episode; how many
  episodes, drops and flows each, and drops per flow per episode;
* the log-log slope of loss against N with its 95% confidence interval (Fig. 8).
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike

from tcplab.stats import t975

__all__ = [
    "per_second",
    "shares",
    "zero_fraction",
    "under_fraction",
    "share_histogram",
    "HISTOGRAM_EDGES",
    "stage_occupancy",
    "stage_loss",
    "episodes",
    "episode_stats",
    "loglog_slope",
]

#: the histogram's bins, in fair shares: 0.25 wide up to 8, the last bin open (Figs. 4 and 6)
HISTOGRAM_EDGES = np.append(np.arange(0.0, 8.0 + 1e-9, 0.25), np.inf)


def per_second(unique: np.ndarray, ticks: np.ndarray, start: float) -> np.ndarray:
    """Packets each flow received in each interval between ticks from ``start`` on: the
    differences of the cumulative counts ``unique`` (ticks x flows)."""
    keep = ticks >= start - 1e-9
    return np.diff(np.asarray(unique)[keep], axis=0)


def shares(packets: np.ndarray, fair_pps: float, interval: float = 1.0) -> np.ndarray:
    """Each flow-interval's bandwidth in fair shares: packets over ``fair_pps x interval``."""
    return np.asarray(packets, dtype=float) / (fair_pps * interval)


def zero_fraction(packets: np.ndarray) -> float:
    """The share of flow-intervals in which a flow received nothing (a whole second of zero
    bandwidth: Section 4's 5%, Section 5's 'delays of one second or more')."""
    values = np.asarray(packets)
    return float(np.mean(values == 0)) if values.size else math.nan


def under_fraction(share: np.ndarray, level: float = 0.05) -> float:
    """The share of flow-intervals under ``level`` of the fair share (Fig. 10's 'seconds
    under 5% share')."""
    values = np.asarray(share)
    return float(np.mean(values < level)) if values.size else math.nan


def share_histogram(share: np.ndarray, edges: np.ndarray = HISTOGRAM_EDGES) -> np.ndarray:
    """The probability of each bin of ``edges`` (left-closed) among all flow-intervals."""
    values = np.asarray(share, dtype=float).ravel()
    counts, _ = np.histogram(values, bins=edges)
    return counts / values.size if values.size else np.full(len(edges) - 1, math.nan)


def stage_occupancy(
    fired: ArrayLike, wait: ArrayLike, stage: ArrayLike, start: float, stop: float, stages: int = 7
) -> np.ndarray:
    """Time-averaged number of flows in each back-off stage over [start, stop].

    A time-out that fired at t after waiting w held its flow in its stage during
    [t - w, t] (Morris: a flow in s_i retransmits 2^i seconds after entering it). Each such
    interval counts for its overlap with the window; time-outs of stage ``stages - 1`` or more
    count in the last. Time-outs that fire after the end of the run are not known: choose
    ``stop`` at least one longest wait before the end and every wait overlapping the window
    is counted.
    """
    if not stop > start:
        raise ValueError(f"stop={stop!r} must be later than start={start!r}")
    t, w = np.asarray(fired, dtype=float), np.asarray(wait, dtype=float)
    s = np.minimum(np.asarray(stage, dtype=int), stages - 1)
    overlap = np.clip(np.minimum(t, stop) - np.maximum(t - w, start), 0.0, None)
    return np.bincount(s, weights=overlap, minlength=stages)[:stages] / (stop - start)


def stage_loss(
    flow: ArrayLike,
    fired: ArrayLike,
    stage: ArrayLike,
    progress: ArrayLike,
    stop: float,
    stages: int = 7,
) -> tuple[np.ndarray, np.ndarray]:
    """How often the retransmission a stage-i time-out sends is lost, per stage: among the
    time-outs fired by ``stop`` (rows of one flow in time order), the share whose flow's next
    time-out is of stage i + 1 with no new data acknowledged in between. Returns (shares,
    counts); Lemma 2 takes every share to be the loss rate p."""
    f, t = np.asarray(flow), np.asarray(fired, dtype=float)
    s, prog = np.asarray(stage, dtype=int), np.asarray(progress, dtype=bool)
    order = np.lexsort((t, f))
    f, t, s, prog = f[order], t[order], s[order], prog[order]
    same = np.append(f[1:] == f[:-1], False)
    failed = same & np.append((s[1:] == s[:-1] + 1) & ~prog[1:], False)
    known = t <= stop
    counts = np.bincount(s[known], minlength=stages)[:stages]
    lost = np.bincount(s[known & failed], minlength=stages)[:stages]
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(counts > 0, lost / np.maximum(counts, 1), np.nan), counts


def episodes(time: ArrayLike, gap: float) -> np.ndarray:
    """Episode number of each drop (times sorted): a drop more than ``gap`` after the
    previous one starts a new episode."""
    t = np.asarray(time, dtype=float)
    if t.size == 0:
        return np.zeros(0, dtype=np.int64)
    if np.any(np.diff(t) < 0):
        raise ValueError("time must be sorted")
    return np.concatenate([[0], np.cumsum(np.diff(t) > gap)]).astype(np.int64)


def episode_stats(time: ArrayLike, flow: ArrayLike, gap: float, span: float) -> dict[str, float]:
    """Section 7.2's loss episodes among drops at ``time`` of ``flow`` over ``span`` seconds:
    episodes per second, and per episode its drops, its distinct flows, and its drops per
    flow hit (Morris: 'one packet from each flow')."""
    t, f = np.asarray(time, dtype=float), np.asarray(flow)
    if t.size == 0:
        nan = math.nan
        return {"episodes": 0, "episodes_per_s": 0.0, "drops_per_episode": nan,
                "flows_per_episode": nan, "drops_per_flow_episode": nan}  # fmt: skip
    ids = episodes(t, gap)
    count = int(ids[-1]) + 1
    pairs = np.unique(np.stack([ids, f]), axis=1)  # (episode, flow) pairs that lost a packet
    return {
        "episodes": count,
        "episodes_per_s": count / span,
        "drops_per_episode": t.size / count,
        "flows_per_episode": pairs.shape[1] / count,
        "drops_per_flow_episode": t.size / pairs.shape[1],
    }


def loglog_slope(x: ArrayLike, y: ArrayLike) -> tuple[float, float, int]:
    """Least-squares slope of log y on log x, its 95% confidence half-width (Student's t on
    the residuals) and the number of points; points with y <= 0 are left out."""
    xs, ys = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    keep = (xs > 0) & (ys > 0)
    lx, ly = np.log(xs[keep]), np.log(ys[keep])
    n = int(keep.sum())
    if n < 3 or np.ptp(lx) == 0:
        raise ValueError(f"a slope needs 3 points with y > 0 at 2 values of x, got {n}")
    dx = lx - lx.mean()
    slope = float(np.sum(dx * (ly - ly.mean())) / np.sum(dx * dx))
    residuals = ly - ly.mean() - slope * dx
    se = math.sqrt(float(np.sum(residuals**2)) / (n - 2) / float(np.sum(dx * dx)))
    return slope, t975(n - 2) * se, n
