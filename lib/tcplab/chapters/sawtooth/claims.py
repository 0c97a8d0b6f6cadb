"""The sawtooth chapter's paper-vs-book claims and the numbers its prose quotes.

The paper's value is quoted once, with where it says it, beside the tolerance the book claims;
:func:`chapter_claims` sets it against the ``sawtooth-utilisation`` table and
:func:`chapter_numbers` computes every number the chapter's text quotes. The tests check
every claim with the same tolerance the chapter prints.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from tcplab.claims import Claim, one_row, ruled
from tcplab.ledger import tolerance

__all__ = [
    "TABLES",
    "PAPER_TCP_UTILISATION",
    "TOLERANCE",
    "paper_claims",
    "chapter_claims",
    "chapter_numbers",
]

#: the experiments the claims and the prose read
TABLES = ("sawtooth-utilisation",)

PAPER_TCP_UTILISATION = 0.75  # Altman et al. 2006, Sec. I: "attains 75% link utilization"
#: the paper's 75% is the closed form (1 + beta)/2 at beta = 1/2, and the fluid model is exact:
#: only floating point separates them (the ledger's rule for an exact comparison)
TOLERANCE = tolerance.exact()


def paper_claims(table: pd.DataFrame) -> list[Claim]:
    """Altman et al.'s 75% for one TCP-like connection (beta = 1/2), against our simulation."""
    return list(_keyed(table).values())


def _keyed(table: pd.DataFrame) -> dict[str, Claim]:
    tcp = table[np.isclose(table["beta"], 0.5)]
    gap = (table["simulated"] - table["formula"]).abs()
    worst = table.loc[gap.idxmax()]
    grid = {
        "one-any-beta": ruled(
            f"One AIMD connection: utilisation against (1 + β)/2, the farthest point of the grid "
            f"β = {table['beta'].min():g}…{table['beta'].max():g}, "
            f"η = {table['eta'].min():g}…{table['eta'].max():g} "
            f"(β = {worst['beta']:g}, η = {worst['eta']:g})",
            "Altman et al. 2006, Sec. I: 'for the special case of one connection, N = 1, the "
            "result reads c(1 + β)/2'",
            paper=float(worst["formula"]),
            book=float(worst["simulated"]),
            tolerance=TOLERANCE,
        )
    }
    return grid | {
        f"tcp-eta-{eta:g}": ruled(
            f"One AIMD connection, beta = 1/2, eta = {eta:g}: link utilisation",
            "Altman et al. 2006, Sec. I: 'attains 75% link utilization'",
            paper=PAPER_TCP_UTILISATION,
            book=float(row.simulated),
            tolerance=TOLERANCE,
        )
        for eta, row in zip(tcp["eta"], tcp.itertuples(), strict=True)
    }


def chapter_claims(tables: Mapping[str, pd.DataFrame]) -> dict[str, Claim]:
    """Every claim of the chapter, keyed (the uniform entry the tests use)."""
    return _keyed(tables["sawtooth-utilisation"])


def chapter_numbers(tables: Mapping[str, pd.DataFrame], scale: str = "full") -> dict[str, float]:
    """Every number the chapter's text quotes, computed from its tables."""
    table = tables["sawtooth-utilisation"]
    tcp = one_row(table, beta=0.5, eta=1.0)
    return {
        "tcp_utilisation": float(tcp["simulated"]),
        "tcp_events": int(tcp["events"]),
        "grid_worst": float((table["simulated"] - table["formula"]).abs().max()),
    }
