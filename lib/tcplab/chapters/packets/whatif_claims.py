"""The chapter's what-if rows: each checks, from a what-if table
(:mod:`.whatifs`, :mod:`.redqueue`), that removing a cause the chapter names removes its
effect (or, for a candidate cause, that removing it leaves the effect: not that cause).
Tolerances by the ledger's rules (:mod:`tcplab.ledger.tolerance`).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from tcplab import claims
from tcplab.claims import rows, ruled, yes_no
from tcplab.ledger import tolerance

from .whatifs import lifted_sawtooth

__all__ = [
    "WHATIF_TABLES",
    "whatif_claims",
    "whatif_numbers",
    "floor_claims",
    "starts_claim",
    "red_queue_claim",
    "run_length_claim",
    "run_length_gaps",
]

#: the what-if experiments these rows read
WHATIF_TABLES = ("packets-floor", "packets-starts", "packets-red-queue", "packets-run-length")
#: Sec. I's "75%", as printed
PAPER_75 = "75%"


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
    out["floor-closed-form"] = ruled(
        f"One flow, b = {buffer}, pipe B = {b_small:.1f} packets (the chapter's): utilisation, "
        f"mean of {len(u_small)} seeds, against the sawtooth lifted by the buffer",
        f"Book: closed form 3(1+x)^2 / (4(1+x+x^2)) at x = b/B = 1/{b_small:.1f}",
        float(lifted_sawtooth(buffer / b_small)),
        float(u_small.mean()),
        tolerance.exact(values=u_small),
    )
    out["one-flow-whatif"] = ruled(
        f"What-if: one flow, b = {buffer}, pipe B = {b_large:.1f} packets "
        f"(a {float(large['rate_mbps'].iloc[0]):g} Mb/s bottleneck): utilisation, mean of "
        f"{len(u_large)} seeds",
        "Sec. I: one connection 'attains 75%' (the sawtooth from c/2 to c: 3/4)",
        0.75,
        float(u_large.mean()),
        tolerance.exact(values=u_large),
    )
    excess_small = float(u_small.mean()) - 0.75
    excess_large = float(u_large.mean()) - 0.75
    printed = tolerance.number(PAPER_75, values=u_large).value
    beyond = tolerance.number(PAPER_75, values=u_small).value
    alone = rows(droptail_table, flows=1).sort_values("buffer")
    one = float(validation_table.iloc[0]["utilisation"])
    falls = bool(
        len(alone) >= 2
        and alone["utilisation"].is_monotonic_increasing
        and one < float(alone["utilisation"].iloc[0])
    )
    out["why-one-flow"] = yes_no(
        f"What-if: the excess over 3/4 of one flow behind a {buffer}-packet buffer is "
        f"{excess_small:+.4f} with the chapter's pipe (b/B = 1/{b_small:.1f}, beyond the "
        f"printed 75%'s ±{beyond:.3g}) and {excess_large:+.4f} with a pipe "
        f"{b_large / b_small:.1f} times larger (within ±{printed:.3g}); and with the chapter's "
        f"pipe the utilisation falls with the buffer toward 75% (b = "
        f"{int(alone['buffer'].iloc[-1]) if len(alone) else 0} down to 1)",
        "Book, on Sec. I's 75%: a buffer of b packets lifts the sawtooth's floor from B/2 "
        "to (B + b)/2",
        True,
        bool(excess_small > beyond and abs(excess_large) <= printed and falls),
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
    return yes_no(
        f"What-if: DropTail b = {b}, N = {n}, every connection starting at the same instant: "
        f"an event signals {m_equal:.2f} connections on average (random starts in [0, "
        f"{float(random['start_spread'].max()):g}] s: {m_random.mean():.2f} ± {half:.2f}, "
        f"{len(m_random)} seeds) and {full:.1%} of events signal all {n}: the "
        "synchronisation stays partial",
        "Book, on Sec. V.B: the partial synchronisation is not the random start times' doing",
        True,
        bool(1.5 < m_equal and full < 0.5 and len(equal) > 0 and len(random) > 0),
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
    return yes_no(
        f"What-if: RED b = 100, N = {flows}, throughput minus Theorem 1 with the thresholds "
        f"(min_th, max_th) at {words}: above beyond the plot's ±{resolution} only with the "
        "chapter's high thresholds, within it once they are lowered",
        "Book, on Sec. V.C: RED's average queue sits between its high thresholds, so the link "
        "rarely idles after a drop",
        True,
        bool(np.all(by_pair[own] > resolution) and len(gone) > 0),
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


def run_length_claim(run_length_table: pd.DataFrame) -> claims.Claim:
    """The book's run length (1000 s after 200 s) against the paper's (1000 s after 1000 s):
    at every point the difference of the mean throughputs is within its 95% interval."""
    gaps = run_length_gaps(run_length_table)
    words = "; ".join(
        f"{row.queue} b = {row.buffer}, N = {row.flows}: {row.difference:+.4f} "
        f"± {row.half_width:.4f}"
        for row in gaps.itertuples()
    )
    return yes_no(
        f"What-if: the paper's run length (2000 s, the first 1000 s dropped) against the "
        f"book's (1200 s, 200 s dropped), {int(gaps['seeds'].min())} seeds each; throughput "
        f"difference (paper minus book) within its 95% interval at every point ({words})",
        "Sec. V-A: 'simulation time 2000 s, the first 1000 s dropped'",
        True,
        bool(np.all(gaps["difference"].abs() <= gaps["half_width"]) and len(gaps) > 0),
    )


def whatif_claims(tables: Mapping[str, pd.DataFrame], resolution: float) -> dict[str, claims.Claim]:
    """The rows of the what-if tables present in ``tables``."""
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
        out["setup-run-length"] = run_length_claim(tables["packets-run-length"])
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
