import hashlib
import json
import os
import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pandas as pd
import pytest

from tcplab import cache
from tcplab.theory import altman as theory  # any tcplab module will do

MODULES = (theory,)
ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent


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


# --- the table and its metadata are replaced as a pair ----------------------------------------

OLD = pd.DataFrame({"x": [1.0, 2.0], "y": [0.25, 0.5]})
NEW = pd.DataFrame({"x": [3.0, 4.0], "y": [0.75, 1.0]})  # same rows and columns, other values

#: stores NEW as "demo" in the folder argv[1], SIGKILLed just before its argv[2]-th rename
KILLED_AT_RENAME = """
import os, signal, sys
from pathlib import Path
import pandas as pd
from tcplab import cache

renames, real = [], os.replace

def replace(source, target):
    renames.append(target)
    if len(renames) == int(sys.argv[2]):
        os.kill(os.getpid(), signal.SIGKILL)
    real(source, target)

os.replace = replace
new = pd.DataFrame({"x": [3.0, 4.0], "y": [0.75, 1.0]})
cache.store(cache.Entry("demo", Path(sys.argv[1])), new, {"run": "new"})
print(" ".join(Path(t).name for t in renames))
"""


def _store_killed_at(folder: Path, rename: int) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", KILLED_AT_RENAME, str(folder), str(rename)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def _legacy_pair(folder: Path) -> None:
    """OLD stored as the code before the sha256 did: metadata without :data:`cache.DIGEST`."""
    OLD.to_csv(folder / "demo.csv", index=False)
    meta = {"run": "old", "rows": len(OLD), "columns": list(OLD.columns)}
    (folder / "demo.meta.json").write_text(json.dumps(meta), encoding="utf-8")


def _pair(folder: Path) -> None:
    cache.store(cache.Entry("demo", folder), OLD, {"run": "old"})


def _what_a_reader_sees(folder: Path) -> str:
    found = cache.load(cache.Entry("demo", folder))
    if found is None:
        return "nothing"
    table, meta = found
    for name, expected in (("old", OLD), ("new", NEW)):
        if table.equals(expected) and meta["run"] == name:
            return name
    return f"a torn pair: metadata of {meta['run']!r} with the table {table.to_dict('list')}"


#: (how the old pair was written, the rename killed) -> what a reader then finds
KILLS = {
    (_pair, 1): "old",  # before the table's rename: both temporary files written, old pair kept
    (_pair, 2): "nothing",  # new table, old metadata: refused (computed again)
    (_pair, 3): "new",  # no third rename: the store completed
    (_legacy_pair, 1): "old",  # before the old metadata gets its table's sha256
    (_legacy_pair, 2): "old",  # the old pair, its metadata now with the sha256
    (_legacy_pair, 3): "nothing",  # new table, old metadata (with the old sha256): refused
    (_legacy_pair, 4): "new",
}


@pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL")
@pytest.mark.parametrize(
    ("old", "rename"), list(KILLS), ids=[f"{o.__name__}-{r}" for o, r in KILLS]
)
def test_a_store_killed_at_any_rename_never_leaves_a_torn_pair(
    tmp_path: Path, old: Callable[[Path], None], rename: int
) -> None:
    """A kill during the final write, simulated as the reliability review did (os.replace
    replaced by one that SIGKILLs the process just before its n-th rename): a reader finds
    the old pair, nothing, or the new pair, never a table with another run's metadata; the
    next store completes and leaves no temporary file."""
    old(tmp_path)
    done = _store_killed_at(tmp_path, rename)
    completed = KILLS[old, rename] == "new"
    assert done.returncode == (0 if completed else -signal.SIGKILL), done.stderr
    if completed:  # the renames, in order: [the old metadata's sha256,] table, metadata last
        legacy = ["demo.meta.json"] if old is _legacy_pair else []
        assert done.stdout.split() == [*legacy, "demo.csv", "demo.meta.json"]
    assert _what_a_reader_sees(tmp_path) == KILLS[old, rename]
    if KILLS[old, rename] == "nothing":
        with pytest.raises(cache.Unreadable, match=r"demo\.csv is not the table its metadata"):
            cache.read(cache.Entry("demo", tmp_path))
    cache.store(cache.Entry("demo", tmp_path), NEW, {"run": "new"})  # the next run
    assert _what_a_reader_sees(tmp_path) == "new"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["demo.csv", "demo.meta.json"]


def test_the_metadata_records_the_tables_sha256(tmp_path: Path) -> None:
    entry = cache.Entry("demo", tmp_path)
    cache.store(entry, NEW, {"run": "new"})
    meta = json.loads(entry.meta.read_text())
    assert meta[cache.DIGEST] == hashlib.sha256(entry.table.read_bytes()).hexdigest()
    entry.table.write_bytes(entry.table.read_bytes().replace(b"0.75", b"0.76"))
    assert cache.load(entry) is None  # one changed digit: not the pair any more


def test_a_reader_says_which_file_is_missing_or_wrong(tmp_path: Path) -> None:
    entry = cache.Entry("demo", tmp_path)
    with pytest.raises(cache.Unreadable, match=r"demo\.csv is missing"):
        cache.read(entry)
    OLD.to_csv(entry.table, index=False)  # a table without metadata
    with pytest.raises(cache.Unreadable, match=r"demo\.meta\.json is missing"):
        cache.read(entry)
    entry.meta.write_text("{", encoding="utf-8")
    with pytest.raises(cache.Unreadable, match=r"demo\.meta\.json is not JSON"):
        cache.read(entry)
    _legacy_pair(tmp_path)
    assert _what_a_reader_sees(tmp_path) == "old"
    pd.concat([OLD, OLD]).to_csv(entry.table, index=False)  # rows the old metadata does not count
    with pytest.raises(cache.Unreadable, match=r"other rows or columns than its metadata"):
        cache.read(entry)


# --- an empty environment variable is no folder -----------------------------------------------


def test_an_empty_TCPLAB_DATA_means_the_books_data_folder(tmp_path: Path) -> None:
    """``TCPLAB_DATA=`` (set, but empty) is read as unset, never as the current directory."""
    script = "from tcplab import cache; print(cache.DATA_DIR)"
    for value in ("", "  "):
        done = subprocess.run(
            [sys.executable, "-c", script],
            env={**os.environ, "TCPLAB_DATA": value},
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=60,
            check=True,
        )
        assert Path(done.stdout.strip()) == ROOT / "data"


def test_an_empty_TCPLAB_QUICK_CACHE_writes_nothing_into_the_current_directory(
    tmp_path: Path,
) -> None:
    done = subprocess.run(
        [str(BIN / "tcplab"), "run", "moments-beatdown-path", "--scale", "quick"],
        env={**os.environ, "TCPLAB_QUICK_CACHE": "", "TCPLAB_DATA": ""},
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    assert done.stdout and list(tmp_path.iterdir()) == []
