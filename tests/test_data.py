"""The results shipped in data/ are complete, bound to their metadata, and fresh: made (or
restamped) by the code that is here now, with their quick canary recorded."""

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
