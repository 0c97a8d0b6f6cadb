"""The sawtooth chapter's paper-vs-book claims and the numbers its prose quotes.

The paper's side of each item (its 75%, its closed form) is in the chapter's ledger.toml;
:func:`chapter_claims` computes the book's side from the ``sawtooth-utilisation`` table (the
fluid model is exact: each value is an exact computation) and :func:`chapter_numbers` every
number the chapter's text quotes.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from tcplab import ledger
from tcplab.claims import Claim, one_row
from tcplab.ledger import tolerance

__all__ = [
    "TABLES",
    "PAPER_TCP_UTILISATION",
    "chapter_claims",
    "chapter_numbers",
]

#: the experiments the claims and the prose read
TABLES = ("sawtooth-utilisation",)

#: Altman et al. 2006, Sec. I: "attains 75% link utilization" (the ledger's value, for the chart)
PAPER_TCP_UTILISATION = ledger.paper_value("sawtooth", "tcp-75")


def _keyed(table: pd.DataFrame) -> dict[str, Claim]:
    tcp = table[np.isclose(table["beta"], 0.5)]
    gap = (table["simulated"] - table["formula"]).abs()
    worst = table.loc[gap.idxmax()]
    grid = {
        "one-any-beta": Claim(
            f"One AIMD connection against (1 + β)/2 at the farthest point of the grid "
            f"β = {table['beta'].min():g}…{table['beta'].max():g}, "
            f"η = {table['eta'].min():g}…{table['eta'].max():g} "
            f"(β = {worst['beta']:g}, η = {worst['eta']:g})",
            tolerance.computed(float(worst["simulated"])),
            paper=float(worst["formula"]),
        )
    }
    return grid | {
        f"tcp-eta-{eta:g}": Claim(
            f"One AIMD connection, β = 1/2, η = {eta:g}: link utilisation",
            tolerance.computed(float(row.simulated)),
        )
        for eta, row in zip(tcp["eta"], tcp.itertuples(), strict=True)
    }


def chapter_claims(tables: Mapping[str, pd.DataFrame]) -> dict[str, Claim]:
    """Every check of the chapter, keyed (the uniform entry the ledger and the tests use)."""
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
