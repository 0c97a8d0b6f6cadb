import json
import sys

import pandas as pd
import pytest

from tcplab import cache
from tcplab.theory import altman as theory  # any tcplab module will do

MODULES = (theory,)


def _compute() -> pd.DataFrame:
    return pd.DataFrame({"x": [1.0, 2.0], "y": [0.25, 0.5]})


def test_full_scale_results_are_stored_with_their_metadata(tmp_path) -> None:
    table = cache.cached(
        "demo", _compute, params={"a": 1}, seed=0, scale="full", modules=MODULES, folder=tmp_path
    )
    entry = cache.Entry("demo", tmp_path)
    meta = json.loads(entry.meta.read_text())
    assert meta["params"] == {"a": 1} and meta["seed"] == 0 and meta["rows"] == 2
    assert meta["fingerprint"] == cache.fingerprint(MODULES)
    assert {"package_version", "wall_s", "columns"} <= set(meta)
    pd.testing.assert_frame_equal(pd.read_csv(entry.table), table)
    assert not list(tmp_path.glob("*.tmp"))


def test_a_stored_result_is_read_back_only_for_the_same_parameters(tmp_path) -> None:
    calls = []

    def compute() -> pd.DataFrame:
        calls.append(1)
        return _compute()

    for params, seed in [({"a": 1}, 0), ({"a": 1}, 0), ({"a": 2}, 0), ({"a": 2}, 1)]:
        cache.cached(
            "demo",
            compute,
            params=params,
            seed=seed,
            scale="full",
            modules=MODULES,
            folder=tmp_path,
        )
    assert len(calls) == 3  # the second call was read from disk


def test_quick_results_are_never_stored(tmp_path) -> None:
    cache.cached(
        "demo", _compute, params={}, seed=0, scale="quick", modules=MODULES, folder=tmp_path
    )
    assert not list(tmp_path.iterdir())


def test_an_interrupted_computation_leaves_nothing_half_written(tmp_path) -> None:
    cache.cached(
        "demo", _compute, params={"a": 1}, seed=0, scale="full", modules=MODULES, folder=tmp_path
    )
    before = sorted(p.read_bytes() for p in tmp_path.iterdir())

    def interrupted() -> pd.DataFrame:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        cache.cached(
            "demo",
            interrupted,
            params={"a": 2},
            seed=0,
            scale="full",
            modules=MODULES,
            folder=tmp_path,
        )
    assert sorted(p.read_bytes() for p in tmp_path.iterdir()) == before


def test_an_interrupted_write_keeps_no_temporary_file(tmp_path, monkeypatch) -> None:
    def broken(self, path, **kwargs):
        path.write_text("half")
        raise KeyboardInterrupt

    monkeypatch.setattr(pd.DataFrame, "to_csv", broken)
    with pytest.raises(KeyboardInterrupt):
        cache.store(cache.Entry("demo", tmp_path), _compute(), {})
    assert list(tmp_path.iterdir()) == []


def test_the_fingerprint_follows_the_code() -> None:
    assert cache.fingerprint([theory]) != cache.fingerprint([theory, sys.modules[__name__]])
    assert cache.fingerprint([theory]) == cache.fingerprint([theory])


def test_a_result_of_older_code_is_recomputed(tmp_path) -> None:
    calls = []

    def compute() -> pd.DataFrame:
        calls.append(1)
        return _compute()

    for modules in [(theory,), (theory,), (theory, sys.modules[__name__])]:
        cache.cached(
            "demo", compute, params={}, seed=0, scale="full", modules=modules, folder=tmp_path
        )
    assert len(calls) == 2  # same code: read back; changed code: recomputed
