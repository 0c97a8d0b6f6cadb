"""Every chapter's paper-vs-book table, through the one entry each chapter's claims module has.

For each chapter package, ``claims.chapter_claims(tables)`` must give every claim the verdict
its ledger entry's status asks (``tcplab.ledger.expected_verdicts``: ``differs`` rows are
outside their tolerance, ``reproduced`` and ``partly`` rows inside; a chapter without a ledger
yet: ``claims.EXPECTED_VERDICTS``), at quick scale and on the
full-scale results in data/; ``claims.chapter_numbers`` must give a finite number for every
quantity the prose quotes.
"""

from __future__ import annotations

import importlib
import math
import pkgutil
from functools import cache as memo
from pathlib import Path

import pandas as pd
import pytest

from tcplab import cache, chapters, ledger, registry

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
    names = _claims_module(chapter).TABLES
    if scale == "quick":
        return registry.run_all(names, scale="quick")
    tables = {}
    for name in names:
        found = cache.load(cache.Entry(name))
        assert found is not None, f"data/{name}.csv is missing: run `make data`"
        tables[name] = found[0]
    return tables


def test_every_chapter_package_has_claims_and_experiments() -> None:
    assert {"sawtooth", "insensitivity", "moments", "packets", "microscope"} <= set(CHAPTERS)
    declared = {e.module.split(".")[2] for e in registry.REGISTRY.values()}
    assert declared == set(CHAPTERS)


def _expected(module, scale: str) -> dict[str, bool]:  # noqa: ANN001
    """EXPECTED_VERDICTS; at quick scale without the claims its grid has no rows for
    (``QUICK_ABSENT``) and with ``QUICK_VERDICTS`` where its grid does not reach the regime
    a verdict depends on (both optional, each entry explained in the claims module)."""
    chapter = module.__name__.split(".")[2]
    has_ledger = (Path(module.__file__).parent / "ledger.toml").is_file()
    expected = ledger.expected_verdicts(chapter) if has_ledger else dict(module.EXPECTED_VERDICTS)
    if scale == "quick":
        for key in getattr(module, "QUICK_ABSENT", ()):
            expected.pop(key)
        expected.update(getattr(module, "QUICK_VERDICTS", {}))
    return expected


@pytest.mark.parametrize("scale", ["quick", "full"])
@pytest.mark.parametrize("chapter", CHAPTERS)
def test_every_claim_has_its_expected_verdict(chapter: str, scale: str) -> None:
    module = _claims_module(chapter)
    found = module.chapter_claims(_tables(chapter, scale))
    expected = _expected(module, scale)
    if scale == "quick":  # a quick grid computes only some rows: those it has keep their verdict
        expected = {key: verdict for key, verdict in expected.items() if key in found}
    assert found and set(expected) <= set(found)
    wrong = [
        f"{key}: paper {c.paper:.6g}, book {c.book:.6g}, tolerance {c.tolerance:.1e}"
        for key, c in found.items()
        if c.within != expected.get(key, True)
    ]
    assert not wrong, "\n".join(wrong)


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_the_claims_read_the_tables(chapter: str) -> None:
    """Halve every measured number: some verdict must change (the claims are not constants).

    Parameters (beta, N, buffers) stay, so that the claims find their rows."""
    module = _claims_module(chapter)
    before = {k: c.within for k, c in module.chapter_claims(_tables(chapter, "quick")).items()}
    halved = {}
    for name, table in _tables(chapter, "quick").items():
        table = table.copy()
        for column in table.select_dtypes("float").columns:
            if any(word in column for word in MEASURED):
                table[column] = table[column] * 0.5
        halved[name] = table
    after = {k: c.within for k, c in module.chapter_claims(halved).items()}
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
