"""Every chapter's claims, through the one entry each chapter's claims module has.

For each chapter package, ``claims.chapter_claims(tables)`` must compute, at quick scale and
on the full-scale results in data/ (read through the ledger's freshness guard), a check for
every item its ledger lists and nothing else: every claim belongs to an item, and at full
scale every item finds all its checks (the statuses themselves are held in
tests/test_ledger.py against the shipped ones); ``claims.chapter_numbers`` must give a finite
number for every quantity the prose quotes.
"""

from __future__ import annotations

import importlib
import math
import pkgutil
from functools import cache as memo

import pandas as pd
import pytest

from tcplab import chapters, ledger, registry

#: words in the names of measured columns (the rest are parameters and closed forms)
MEASURED = (
    "simulated", "utilisation", "second_moment", "aggregate", "jain", "mean_m", "vs_",
    "completion", "parallel_bytes",
)  # fmt: skip
CHAPTERS = sorted(info.name for info in pkgutil.iter_modules(chapters.__path__))


def _claims_module(chapter: str):  # noqa: ANN202
    return importlib.import_module(f"tcplab.chapters.{chapter}.claims")


@memo
def _tables(chapter: str, scale: str) -> dict[str, pd.DataFrame]:
    if scale == "quick":
        return registry.run_all(_claims_module(chapter).TABLES, scale="quick")
    return ledger.full_tables(chapter)


def test_every_chapter_package_has_claims_experiments_and_a_ledger() -> None:
    assert {"sawtooth", "insensitivity", "moments", "packets", "microscope"} <= set(CHAPTERS)
    declared = {e.module.split(".")[2] for e in registry.REGISTRY.values()}
    assert declared == set(CHAPTERS) == set(ledger.CHAPTERS)


@pytest.mark.parametrize("scale", ["quick", "full"])
@pytest.mark.parametrize("chapter", CHAPTERS)
def test_every_claim_is_a_check_of_an_item(chapter: str, scale: str) -> None:
    found = _claims_module(chapter).chapter_claims(_tables(chapter, scale))
    assert found
    items = ledger.chapter_entries(chapter)
    stray = [key for key in found if not any(e.covers(key) for e in items)]
    assert not stray, f"claims no item of the ledger checks: {stray}"
    judged = ledger.judge(chapter, found, complete=scale == "full")
    assert judged and all(j.status in ledger.STATUSES for j in judged)


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_the_claims_read_the_tables(chapter: str) -> None:
    """Halve every measured number: some check's value must change (the claims are not
    constants). Parameters (beta, N, buffers) stay, so that the claims find their rows."""
    module = _claims_module(chapter)

    def values(found: dict) -> dict[str, float]:
        return {key: claim.book.value for key, claim in found.items()}

    before = values(module.chapter_claims(_tables(chapter, "quick")))
    halved = {}
    for name, table in _tables(chapter, "quick").items():
        table = table.copy()
        for column in table.select_dtypes("float").columns:
            if any(word in column for word in MEASURED):
                table[column] = table[column] * 0.5
        halved[name] = table
    after = values(module.chapter_claims(halved))
    assert after != before


@pytest.mark.parametrize("scale", ["quick", "full"])
@pytest.mark.parametrize("chapter", CHAPTERS)
def test_every_quoted_number_is_computed_and_finite(chapter: str, scale: str) -> None:
    numbers = _claims_module(chapter).chapter_numbers(_tables(chapter, scale), scale)
    assert numbers
    for name, value in numbers.items():
        # exactly Python's types: a numpy float64 is a float, but the book's glue prints it
        # as "np.float64(...)", which a {glue:text} format cannot read (the build fails)
        assert type(value) in (int, float, str, bool), f"{name}: {type(value).__name__}"
        assert isinstance(value, str) or math.isfinite(value), f"{name} = {value}"
