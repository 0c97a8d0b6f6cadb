"""The results shipped in data/ are complete, bound to their metadata, and fresh: made (or
restamped) by the code that is here now, with a quick canary that covers the full grid's
words and switches."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from tcplab import cache, registry, restamp

DATA = Path(cache.DATA_DIR)


@pytest.mark.parametrize("name", sorted(registry.REGISTRY))
def test_shipped_result_is_fresh(name: str) -> None:
    """Fresh, or the one line a reader gives: stale (why), corrupt (file, what is wrong) or
    missing, with the command that restamps or recomputes it."""
    found = registry.status(name)
    if found.state != "fresh":
        pytest.fail(str(found.error(name)))
    assert found.meta is not None and found.table is not None
    assert found.meta["scale"] == "full" and found.meta["seed"] == 0
    assert len(found.table) == found.meta["rows"]


@pytest.mark.parametrize("path", sorted(DATA.glob("*.meta.json")), ids=lambda p: p.name)
def test_every_shipped_table_is_bound_to_its_metadata(path: Path) -> None:
    """Every data/*.meta.json is a JSON object recording its table's sha256, and the table's
    bytes are those; a registered experiment's also records its quick canary."""
    meta = json.loads(path.read_text(encoding="utf-8"))
    assert isinstance(meta, dict) and meta
    table = path.with_name(path.name[: -len(".meta.json")] + ".csv")
    assert meta.get(cache.DIGEST) == hashlib.sha256(table.read_bytes()).hexdigest()
    if meta.get("name") in registry.REGISTRY:
        quick = cache.jsonable(registry.REGISTRY[meta["name"]].parameters("quick"))
        assert len(meta.get(cache.QUICK_DIGEST, "")) == 64, "run `tcplab data --restamp`"
        assert meta.get(restamp.READS), "run `tcplab data --restamp`"
        assert meta.get(restamp.QUICK_PARAMS) == quick, "another quick grid: `--restamp`"


@pytest.mark.parametrize("name", sorted(registry.REGISTRY))
def test_the_quick_canary_takes_the_full_grids_paths(name: str) -> None:
    """Every word or switch (string, bool) of the full grid, in the parameters the quick run
    reads (recorded when it was stamped), is in the quick grid too: else a change on a path
    only the full grid takes would be restamped unseen (ARCHITECTURE.md)."""
    experiment = registry.REGISTRY[name]
    meta = cache.read(cache.Entry(name))[1]
    reads = meta.get(restamp.READS) or ["*"]
    gaps = restamp.branch_gaps(experiment.parameters("full"), experiment.parameters("quick"), reads)
    assert gaps == {}, f"{name}'s quick grid lacks {gaps} of its full grid"
