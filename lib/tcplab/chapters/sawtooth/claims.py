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
    "EXPECTED_VERDICTS",
    "PAPER_TCP_UTILISATION",
    "TOLERANCE",
    "paper_claims",
    "chapter_claims",
    "chapter_numbers",
]

#: the experiments the claims and the prose read
TABLES = ("sawtooth-utilisation",)
#: every claim of this chapter agrees with the paper
EXPECTED_VERDICTS: dict[str, bool] = {}

PAPER_TCP_UTILISATION = 0.75  # Altman et al. 2006, Sec. I: "attains 75% link utilization"
#: the paper's 75% is the closed form (1 + beta)/2 at beta = 1/2, and the fluid model is exact:
#: only floating point separates them (the ledger's rule for an exact comparison)
TOLERANCE = tolerance.exact()


def paper_claims(table: pd.DataFrame) -> list[Claim]:
    """Altman et al.'s 75% for one TCP-like connection (beta = 1/2), against our simulation."""
    return list(_keyed(table).values())


def _keyed(table: pd.DataFrame) -> dict[str, Claim]:
    tcp = table[np.isclose(table["beta"], 0.5)]
    return {
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
