"""The results shipped in data/ are complete and were made by the code that is here now."""

from __future__ import annotations

import pytest

from tcplab import cache, registry


@pytest.mark.parametrize("name", sorted(registry.REGISTRY))
def test_shipped_result_is_fresh(name: str) -> None:
    experiment = registry.REGISTRY[name]
    try:
        table, meta = cache.read(cache.Entry(name))
    except cache.Unreadable as error:  # says which file is missing, or that they are no pair
        pytest.fail(f"{error}: run `tcplab data --only {name}` (or `make data`)")
    assert meta["scale"] == "full" and meta["seed"] == 0
    assert meta["params"] == cache.jsonable(experiment.parameters("full"))
    assert cache.is_fresh(meta, experiment.modules()), (
        f"data/{name}.csv was made by older code: run `make data`"
    )
    assert len(table) == meta["rows"] and list(table.columns) == meta["columns"]
