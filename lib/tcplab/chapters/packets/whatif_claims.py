"""The chapter's what-if checks: each checks, from a what-if table (:mod:`.whatifs`,
:mod:`.redqueue`, :mod:`.runlength`), that removing a cause the chapter names removes its
effect (or, for a candidate cause, that removing it leaves the effect: not that cause). The
book's side only; the ledger's rules judge it (:mod:`tcplab.ledger.tolerance`).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from tcplab import claims, ledger
from tcplab.claims import Claim, holds, rows
from tcplab.ledger import tolerance

from .whatifs import lifted_sawtooth

__all__ = [
    "WHATIF_TABLES",
    "whatif_claims",
    "whatif_numbers",
    "floor_claims",
    "starts_claim",
    "red_queue_claim",
    "run_length_claims",
    "run_length_gaps",
]

#: the what-if experiments these rows read
WHATIF_TABLES = ("packets-floor", "packets-starts", "packets-red-queue", "packets-run-length")


def _pipes(floor_table: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The runs with the chapter's pipe (the smallest) and with the largest."""
    small = floor_table[floor_table["pipe_packets"] == floor_table["pipe_packets"].min()]
    large = floor_table[floor_table["pipe_packets"] == floor_table["pipe_packets"].max()]
    return small, large


def _starts(starts_table: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The runs with random start times and those with every connection starting at once."""
    return (
        starts_table[starts_table["start_spread"] > 0],
        starts_table[starts_table["start_spread"] == 0],
    )


def floor_claims(
    floor_table: pd.DataFrame, validation_table: pd.DataFrame, droptail_table: pd.DataFrame
) -> dict[str, claims.Claim]:
    """One connection above 75%: the closed form of the sawtooth lifted by the buffer against
    the chapter's pipe (``floor-closed-form``), and the what-if with a pipe four times larger
    against 3/4 (``one-flow-whatif``), which together make ``why-one-flow``."""
    small, large = _pipes(floor_table)
    u_small, u_large = small["utilisation"].to_numpy(), large["utilisation"].to_numpy()
    b_small, b_large = float(small["pipe_packets"].iloc[0]), float(large["pipe_packets"].iloc[0])
    buffer = int(floor_table["buffer"].iloc[0])
    out: dict[str, claims.Claim] = {}
    out["floor-closed-form"] = Claim(
        f"One flow, b = {buffer}, pipe B = {b_small:.1f} packets (the chapter's): utilisation, "
        f"mean of {len(u_small)} seeds, against 3(1 + x)²/(4(1 + x + x²)) at x = b/B",
        tolerance.runs(u_small, "seeds"),
        paper=float(lifted_sawtooth(buffer / b_small)),
    )
    out["one-flow-whatif"] = Claim(
        f"What-if: one flow, b = {buffer}, pipe B = {b_large:.1f} packets "
        f"(a {float(large['rate_mbps'].iloc[0]):g} Mb/s bottleneck): utilisation, mean of "
        f"{len(u_large)} seeds",
        tolerance.runs(u_large, "seeds"),
    )
    margin = tolerance.printed("75%")
    small_range, large_range = tolerance.runs(u_small), tolerance.runs(u_large)
    alone = rows(droptail_table, flows=1).sort_values("buffer")
    one = float(validation_table.iloc[0]["utilisation"])
    falls = bool(
        len(alone) >= 2
        and alone["utilisation"].is_monotonic_increasing
        and one < float(alone["utilisation"].iloc[0])
    )
    out["why-one-flow"] = holds(
        f"What-if: one flow behind a {buffer}-packet buffer is beyond the printed 75%'s margin "
        f"(±{margin:.3g}) with the chapter's pipe (b/B = 1/{b_small:.1f}: "
        f"{small_range.low:.4f} to {small_range.high:.4f}) and inside it with a pipe "
        f"{b_large / b_small:.1f} times larger ({large_range.low:.4f} to "
        f"{large_range.high:.4f}); with the chapter's pipe the utilisation falls with the "
        f"buffer toward 75% (b = {int(alone['buffer'].iloc[-1]) if len(alone) else 0} down to 1)",
        bool(
            small_range.low > 0.75 + margin
            and abs(large_range.low - 0.75) <= margin
            and abs(large_range.high - 0.75) <= margin
            and falls
        ),
        "the seeds of data/packets-floor.csv and the one-connection DropTail runs",
    )
    return out


def starts_claim(starts_table: pd.DataFrame) -> claims.Claim:
    """Random start times as the cause of partial synchronisation: the what-if starts every
    connection at once; the synchronisation must stay partial (more than 1.5 connections per
    event on average, as ``droptail-sync`` asks, and most events not signalling all N)."""
    random, equal = _starts(starts_table)
    n = int(starts_table["flows"].iloc[0])
    b = int(starts_table["buffer"].iloc[0])
    m_equal, full = float(equal["mean_m"].mean()), float(equal["full_share"].mean())
    m_random = random["mean_m"].to_numpy()
    half = tolerance.interval(m_random)
    return holds(
        f"What-if: DropTail b = {b}, N = {n}, every connection starting at the same instant: "
        f"an event signals {m_equal:.2f} connections on average (random starts in [0, "
        f"{float(random['start_spread'].max()):g}] s: {m_random.mean():.2f} ± {half:.2f}, "
        f"{len(m_random)} seeds) and {full:.1%} of events signal all {n}: the "
        "synchronisation stays partial (more than 1.5 connections an event, fewer than half "
        "the events signalling all)",
        bool(1.5 < m_equal and full < 0.5 and len(equal) > 0 and len(random) > 0),
        "the runs of data/packets-starts.csv",
    )


def red_queue_claim(red_queue_table: pd.DataFrame, resolution: float) -> claims.Claim:
    """RED above Theorem 1 with large buffers, the chapter says because its average queue sits
    high between its thresholds: with the chapter's thresholds (the highest) RED must be above
    Theorem 1 beyond the plot's ``resolution`` for every N, and with some lower pair of
    thresholds within ``resolution`` of it for every N (the excess gone, not overshot)."""
    gaps = red_queue_table.groupby(["min_th", "max_th", "flows"])["gap"].mean()
    by_pair = {pair: gaps.xs(pair, level=["min_th", "max_th"]) for pair in _pairs(gaps)}
    own = max(by_pair)
    lowered = [pair for pair in by_pair if pair != own]
    gone = [pair for pair in lowered if bool(np.all(np.abs(by_pair[pair]) <= resolution))]
    words = "; ".join(
        f"({low:g}, {high:g}): {by_pair[(low, high)].min():+.3f} to "
        f"{by_pair[(low, high)].max():+.3f}"
        for low, high in sorted(by_pair, reverse=True)
    )
    flows = ", ".join(str(int(n)) for n in by_pair[own].index)
    return holds(
        f"What-if: RED b = 100, N = {flows}, throughput minus Theorem 1 with the thresholds "
        f"(min_th, max_th) at {words}: above beyond the plot's ±{resolution} only with the "
        "chapter's high thresholds, within it once they are lowered",
        bool(np.all(by_pair[own] > resolution) and len(gone) > 0),
        "the mean of the seeds of data/packets-red-queue.csv at each point",
    )


def _pairs(gaps: pd.Series) -> list[tuple[float, float]]:
    """The (min_th, max_th) pairs of a gap series indexed by (min_th, max_th, flows)."""
    return sorted({(float(a), float(b)) for a, b, _ in gaps.index})


def run_length_gaps(run_length_table: pd.DataFrame) -> pd.DataFrame:
    """Per point (queue, buffer, flows): the mean throughput with the book's and the paper's
    run length, their difference (paper minus book) and its 95% half-width
    (:func:`tcplab.ledger.tolerance.difference` of the two means' intervals over seeds)."""
    out = []
    for (queue, buffer, flows), part in run_length_table.groupby(["queue", "buffer", "flows"]):
        book = part[part["length"] == "book"]["utilisation"].to_numpy()
        paper = part[part["length"] == "paper"]["utilisation"].to_numpy()
        half = tolerance.difference(tolerance.interval(book), tolerance.interval(paper))
        out.append(
            {
                "queue": queue,
                "buffer": int(buffer),
                "flows": int(flows),
                "book": float(book.mean()),
                "paper": float(paper.mean()),
                "difference": float(paper.mean() - book.mean()),
                "half_width": half,
                "seeds": len(book),
            }
        )
    return pd.DataFrame(out)


def run_length_claims(run_length_table: pd.DataFrame) -> dict[str, claims.Claim]:
    """The book's run length (1000 s after 200 s) against the paper's (1000 s after 1000 s),
    per point: the difference of the mean throughputs (paper minus book), with its 95%
    interval."""
    gaps = run_length_gaps(run_length_table)
    return {
        f"setup-run-length-{row.queue}-{row.buffer}-{row.flows}": Claim(
            f"What-if: {row.queue} b = {row.buffer}, N = {row.flows}: throughput with the "
            f"paper's run length minus the book's ({row.seeds} seeds each)",
            tolerance.mean(row.difference, row.half_width, "the difference of two means"),
        )
        for row in gaps.itertuples()
    }


def whatif_claims(tables: Mapping[str, pd.DataFrame]) -> dict[str, claims.Claim]:
    """The checks of the what-if tables present in ``tables``."""
    resolution = ledger.chapter_plots("packets")["Fig. 10"][0]
    out: dict[str, claims.Claim] = {}
    if "packets-floor" in tables:
        out |= floor_claims(
            tables["packets-floor"], tables["packets-validation"], tables["packets-droptail"]
        )
    if "packets-starts" in tables:
        out["partial-sync-starts"] = starts_claim(tables["packets-starts"])
    if "packets-red-queue" in tables:
        out["why-red-above"] = red_queue_claim(tables["packets-red-queue"], resolution)
    if "packets-run-length" in tables:
        out |= run_length_claims(tables["packets-run-length"])
    return out


def whatif_numbers(tables: Mapping[str, pd.DataFrame]) -> dict[str, float | int | str]:
    """The numbers the chapter's text quotes from the what-if tables present in ``tables``."""
    out: dict[str, float | int | str] = {}
    if "packets-floor" in tables:
        small, large = _pipes(tables["packets-floor"])
        for name, part in (("small", small), ("large", large)):
            u = part["utilisation"].to_numpy()
            out[f"floor_pipe_{name}"] = float(part["pipe_packets"].iloc[0])
            out[f"floor_rate_{name}"] = float(part["rate_mbps"].iloc[0])
            out[f"floor_util_{name}"] = float(u.mean())
            out[f"floor_half_{name}"] = tolerance.interval(u)
            out[f"floor_lifted_{name}"] = float(part["lifted"].iloc[0])
            out[f"floor_excess_{name}"] = float(u.mean()) - 0.75
        out["floor_seeds"] = int(len(large))
        out["floor_ratio"] = float(large["pipe_packets"].iloc[0] / small["pipe_packets"].iloc[0])
    if "packets-starts" in tables:
        starts = tables["packets-starts"]
        random, equal = _starts(starts)
        out["starts_random_m"] = float(random["mean_m"].mean())
        out["starts_random_half"] = tolerance.interval(random["mean_m"].to_numpy())
        out["starts_seeds"] = int(len(random))
        out["starts_flows"] = int(starts["flows"].iloc[0])
        out["starts_equal_m"] = float(equal["mean_m"].mean())
        out["starts_equal_full"] = float(equal["full_share"].mean())
        out["starts_random_full"] = float(random["full_share"].mean())
        out["starts_equal_events"] = int(equal["events"].iloc[0])
    if "packets-red-queue" in tables:
        table = tables["packets-red-queue"]
        for k, ((low, high), part) in enumerate(
            sorted(table.groupby(["min_th", "max_th"]), key=lambda item: -item[0][0])
        ):
            out[f"redq_{k}_th"] = f"({low:g}, {high:g})"
            out[f"redq_{k}_min"] = float(part["gap"].min())
            out[f"redq_{k}_max"] = float(part["gap"].max())
            out[f"redq_{k}_timeouts"] = int(part["timeouts"].max())
    if "packets-run-length" in tables:
        gaps = run_length_gaps(tables["packets-run-length"])
        out["rl_seeds"] = int(gaps["seeds"].min())
        for k, row in enumerate(gaps.itertuples()):
            out[f"rl_{k}_point"] = f"{row.queue} b = {row.buffer}, N = {row.flows}"
            out[f"rl_{k}_diff"] = float(row.difference)
            out[f"rl_{k}_half"] = float(row.half_width)
    return out
