import errno
import hashlib
import itertools
import json
import multiprocessing
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pandas as pd
import pytest

from tcplab import cache, frames, safefile, writable
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


def _cached(folder: Path, compute: Callable[[], pd.DataFrame] = lambda: OLD, **options):
    kwargs = {"params": {"a": 1}, "seed": 0, "scale": "full", "modules": MODULES, **options}
    return cache.cached("demo", compute, folder=folder, **kwargs)


def test_a_stored_result_is_read_back_only_for_the_same_parameters(tmp_path) -> None:
    """The same parameters read the stored table; other parameters are *stale*: an error
    naming the command that recomputes it, never a silent recomputation over the book's
    table (refresh=True is that command's way of asking)."""
    calls = []

    def compute() -> pd.DataFrame:
        calls.append(1)
        return _compute()

    _cached(tmp_path, compute)
    _cached(tmp_path, compute)
    assert len(calls) == 1  # the second call was read from disk
    before = sorted(p.read_bytes() for p in tmp_path.iterdir())
    with pytest.raises(cache.Stale, match=r"demo\.csv is stale \(params: other a\): run "
                       r"`tcplab data --only demo`"):  # fmt: skip
        _cached(tmp_path, compute, params={"a": 2})
    assert len(calls) == 1 and sorted(p.read_bytes() for p in tmp_path.iterdir()) == before
    _cached(tmp_path, compute, params={"a": 2}, refresh=True)
    assert len(calls) == 2


def test_another_seed_or_scale_is_stored_beside_the_books_result(tmp_path) -> None:
    """The book reads seed 0 at full scale (demo.csv); seed 1 and the paper's scale are kept
    beside it under their own names, so that neither replaces the book's table."""
    _cached(tmp_path)
    book = (tmp_path / "demo.csv").read_bytes(), (tmp_path / "demo.meta.json").read_bytes()
    _cached(tmp_path, lambda: NEW, seed=1)
    _cached(tmp_path, lambda: NEW, scale="paper")
    _cached(tmp_path, lambda: NEW, scale="paper", seed=2)
    assert ((tmp_path / "demo.csv").read_bytes(), (tmp_path / "demo.meta.json").read_bytes()) \
        == book  # fmt: skip
    stored = sorted(p.name for p in tmp_path.glob("*.csv"))
    assert stored == ["demo.csv", "demo.paper.csv", "demo.paper.seed2.csv", "demo.seed1.csv"]
    assert json.loads((tmp_path / "demo.seed1.meta.json").read_text())["seed"] == 1
    assert cache.command("demo", "paper", 2) == "tcplab data --only demo --scale paper --seed 2"


def test_the_metadata_records_the_quick_canary(tmp_path) -> None:
    """With a canary, the stored metadata holds the digest of the quick table (the form of
    tcplab.frames, wall-clock columns left out)."""
    quick = pd.DataFrame({"x": [1, 2], "wall_s": [0.1, 0.2]})
    _cached(tmp_path, canary=lambda: {cache.QUICK_DIGEST: frames.digest(quick)})
    meta = json.loads((tmp_path / "demo.meta.json").read_text())
    expected = hashlib.sha256(frames.encode(quick[["x"]])).hexdigest()
    assert meta[cache.QUICK_DIGEST] == expected == frames.digest(quick.assign(wall_s=[9.0, 9.0]))


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
            refresh=True,  # as `tcplab data` asks for it
        )
    assert sorted(p.read_bytes() for p in tmp_path.iterdir()) == before


def test_an_interrupted_write_keeps_no_temporary_file(tmp_path, monkeypatch) -> None:
    real = os.write

    def broken(fd: int, data: bytes) -> int:
        real(fd, data[:4])
        raise KeyboardInterrupt

    monkeypatch.setattr(safefile.os, "write", broken)
    with pytest.raises(KeyboardInterrupt):
        cache.store(cache.Entry("demo", tmp_path), _compute(), {})
    assert list(tmp_path.iterdir()) == []


def test_a_full_disk_leaves_no_partial_file_and_names_the_path(tmp_path, monkeypatch) -> None:
    """A write that runs out of space (ENOSPC after part of the bytes, as on a full disk)
    removes its temporary file, keeps the old pair, and its one-line message names the file
    it was writing, not a temporary name."""
    _pair(tmp_path)
    before = sorted((p.name, p.read_bytes()) for p in tmp_path.iterdir())
    real = os.write

    def full(fd: int, data: bytes) -> int:
        real(fd, data[:8192])
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(safefile.os, "write", full)
    with pytest.raises(OSError) as raised:
        cache.store(cache.Entry("demo", tmp_path), pd.concat([NEW] * 3000), {"run": "new"})
    assert raised.value.filename == str(tmp_path / "demo.csv")
    line = writable.describe(raised.value)
    assert (
        line == f"cannot write {tmp_path / 'demo.csv'}: the disk is full (No space left on device)"
    )
    assert sorted((p.name, p.read_bytes()) for p in tmp_path.iterdir()) == before


def test_the_fingerprint_follows_the_code() -> None:
    assert cache.fingerprint([theory]) != cache.fingerprint([theory, sys.modules[__name__]])
    assert cache.fingerprint([theory]) == cache.fingerprint([theory])


def test_a_result_of_older_code_is_stale_until_restamped_or_recomputed(tmp_path) -> None:
    calls = []

    def compute() -> pd.DataFrame:
        calls.append(1)
        return _compute()

    for _ in range(2):
        _cached(tmp_path, compute, modules=(theory,))
    with pytest.raises(cache.Stale, match=r"is stale \(code: fingerprint .*\): run `tcplab data "
                       r"--restamp` .* or `tcplab data --only demo`"):  # fmt: skip
        _cached(tmp_path, compute, modules=(theory, sys.modules[__name__]))
    assert len(calls) == 1  # same code: read back; changed code: never recomputed unasked


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
    if completed:  # the renames, in order: the table, the metadata last
        assert done.stdout.split() == ["demo.csv", "demo.meta.json"]
    assert _what_a_reader_sees(tmp_path) == KILLS[old, rename]
    if KILLS[old, rename] == "nothing":
        with pytest.raises(cache.Corrupt, match=r"demo\.csv is corrupt: its bytes are not the"):
            cache.read(cache.Entry("demo", tmp_path))
    # the killed writer's temporary files stay (hidden, each under its own name) ...
    cache.store(cache.Entry("demo", tmp_path), NEW, {"run": "new"})  # ... the next run
    assert _what_a_reader_sees(tmp_path) == "new"
    shown = sorted(p.name for p in tmp_path.iterdir() if not p.name.startswith("."))
    assert shown == ["demo.csv", "demo.meta.json"]


def test_the_metadata_records_the_tables_sha256(tmp_path: Path) -> None:
    entry = cache.Entry("demo", tmp_path)
    cache.store(entry, NEW, {"run": "new"})
    meta = json.loads(entry.meta.read_text())
    assert meta[cache.DIGEST] == hashlib.sha256(entry.table.read_bytes()).hexdigest()
    entry.table.write_bytes(entry.table.read_bytes().replace(b"0.75", b"0.76"))
    assert cache.load(entry) is None  # one changed digit: not the pair any more


def _corrupt(entry: cache.Entry, how: str) -> None:
    """Spoil the stored pair ``entry`` in one of the ways of the reliability review."""
    data = entry.table.read_bytes()
    spoil: dict[str, Callable[[], object]] = {
        "times ten": lambda: entry.table.write_bytes(data.replace(b"0.25", b"2.5")),
        "truncated": lambda: entry.table.write_bytes(data[: len(data) // 2]),
        "empty": lambda: entry.table.write_bytes(b""),
        "binary": lambda: entry.table.write_bytes(os.urandom(4096)),
        "table deleted": lambda: entry.table.unlink(),
        "meta deleted": lambda: entry.meta.unlink(),
        "meta cut": lambda: entry.meta.write_text(entry.meta.read_text()[:30]),
        "meta []": lambda: entry.meta.write_text("[]"),
        "meta null": lambda: entry.meta.write_text("null"),
        "meta {}": lambda: entry.meta.write_text("{}"),
        "meta 50,000 deep": lambda: entry.meta.write_text("[" * 50_000 + "]" * 50_000),
        "no digest": lambda: _legacy_pair(entry.folder),
    }
    spoil[how]()


#: each spoiling, and what the reader's message says is wrong (after "is corrupt: ")
CORRUPTIONS = {
    "times ten": r"demo\.csv is corrupt: its bytes are not the table demo\.meta\.json records",
    "truncated": r"demo\.csv is corrupt: its bytes are not",
    "empty": r"demo\.csv is corrupt: its bytes are not",
    "binary": r"demo\.csv is corrupt: its bytes are not",
    "table deleted": r"demo\.csv is corrupt: the file is missing, its metadata demo\.meta\.json",
    "meta deleted": r"demo\.csv is corrupt: its metadata demo\.meta\.json is missing",
    "meta cut": r"demo\.meta\.json is corrupt: not JSON",
    "meta []": r"demo\.meta\.json is corrupt: \[\] is not a JSON object",
    "meta null": r"demo\.meta\.json is corrupt: null is not a JSON object",
    "meta {}": r"demo\.meta\.json is corrupt: \{\} is not a JSON object",
    "meta 50,000 deep": r"demo\.meta\.json is corrupt: not JSON",
    "no digest": r"demo\.meta\.json is corrupt: it records no table_sha256",
}


@pytest.mark.parametrize("how", list(CORRUPTIONS))
def test_a_corrupt_pair_is_named_corrupt_and_never_recomputed_silently(
    tmp_path: Path, how: str
) -> None:
    """Every corruption of the reliability review: the reader names the file and what is
    wrong (never "missing", never a traceback); the full-scale read raises the same, naming
    the command that recomputes it, and leaves the files as they were."""
    _cached(tmp_path)
    entry = cache.Entry("demo", tmp_path)
    _corrupt(entry, how)
    before = sorted((p.name, p.read_bytes()) for p in tmp_path.iterdir())
    with pytest.raises(cache.Corrupt, match=CORRUPTIONS[how]):
        cache.read(entry)
    with pytest.raises(
        cache.Corrupt, match=CORRUPTIONS[how] + r".*: run `tcplab data --only demo`"
    ):
        _cached(tmp_path, lambda: pytest.fail("recomputed silently"))
    assert sorted((p.name, p.read_bytes()) for p in tmp_path.iterdir()) == before
    _cached(tmp_path, refresh=True)  # asked for: recomputed
    assert cache.read(entry)[0].equals(OLD)


def test_a_missing_result_is_computed_and_said_to_be_missing(tmp_path: Path) -> None:
    entry = cache.Entry("demo", tmp_path)
    with pytest.raises(cache.Missing, match=r"demo\.csv is missing"):
        cache.read(entry)
    assert _cached(tmp_path).equals(OLD)  # a missing table may be computed (DESIGN.md)


# --- writers that cannot tear ------------------------------------------------------------------

ROUNDS = 25


def _writer(folder: str, who: int, barriers: list[object]) -> None:
    """Writer ``who`` of each round's pair: its own table (its id in every cell), meeting
    the other writer at the round's barrier so that both store at once."""
    try:
        for round_ in range(ROUNDS):
            table = pd.DataFrame({"writer": [who] * (2000 + 500 * who), "round": round_})
            barriers[round_].wait(timeout=60)  # type: ignore[attr-defined]
            cache.store(cache.Entry(f"pair{round_}", Path(folder)), table, {"writer": who})
    except BaseException:
        for barrier in barriers:  # let the others go on: the exit code tells
            barrier.abort()  # type: ignore[attr-defined]
        raise


def test_25_pairs_of_concurrent_writers_leave_every_pair_intact(tmp_path: Path) -> None:
    """Two processes store 25 pairs, each pair by both at the same moment (a barrier per
    round), while a third reads them: every pair ends whole, one writer's table with that
    writer's metadata; the reader never meets a torn pair; no temporary or lock file is left."""
    context = multiprocessing.get_context("fork")
    barriers = [context.Barrier(3) for _ in range(ROUNDS)]
    writers = [
        context.Process(target=_writer, args=(str(tmp_path), who, barriers)) for who in (1, 2)
    ]
    for writer in writers:
        writer.start()
    torn = []
    for round_ in range(ROUNDS):
        try:
            barriers[round_].wait(timeout=60)
        except threading.BrokenBarrierError:  # a writer stopped: its exit code says why
            torn.append(f"round {round_}: a writer stopped")
            break
        entry = cache.Entry(f"pair{round_}", tmp_path)
        deadline = time.monotonic() + 1.0
        while time.monotonic() < deadline:  # read while the two writers write
            try:
                table, meta = cache.read(entry)
            except cache.Missing:
                continue
            except cache.Corrupt as error:
                torn.append(str(error))
                break
            if set(table["writer"]) != {meta["writer"]}:
                torn.append(f"round {round_}: table of {set(table['writer'])}, meta of {meta}")
            if len(table) == 2000 + 500 * meta["writer"]:
                break
    for writer in writers:
        writer.join(120)
    assert [w.exitcode for w in writers] == [0, 0], torn
    assert torn == []
    for round_ in range(ROUNDS):
        table, meta = cache.read(cache.Entry(f"pair{round_}", tmp_path))
        assert (
            set(table["writer"]) == {meta["writer"]} and len(table) == 2000 + 500 * meta["writer"]
        )
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".")) == []


def test_a_second_writer_waits_for_the_lock_then_stops_with_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    entry = cache.Entry("demo", tmp_path)
    _pair(tmp_path)
    held = subprocess.Popen(  # another process holds the table's lock for 30 s
        [sys.executable, "-c", "import sys, time; from pathlib import Path; from tcplab import "
         "safefile\nwith safefile.locked(Path(sys.argv[1])):\n print('held', flush=True); "
         "time.sleep(30)", str(entry.table)],
        stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert held.stdout is not None and held.stdout.readline() == "held\n"
        monkeypatch.setattr(safefile, "LOCK_WAIT_S", 0.5)
        started = time.monotonic()
        with pytest.raises(safefile.Busy) as raised:
            cache.store(entry, NEW, {"run": "new"})
        assert time.monotonic() - started < 10
        line = writable.describe(raised.value)
        assert line.startswith(f"cannot write {entry.table}: another tcplab process")
        assert "\n" not in line
    finally:
        held.kill()
        held.wait(30)
    assert _what_a_reader_sees(tmp_path) == "old"


def test_a_planted_symlink_at_a_temporary_or_lock_name_is_never_followed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A link planted where a writer puts its temporary file, or its lock, points at a file
    of the victim's: the victim's file is never written, the link never becomes a result."""
    victim = tmp_path / "victim.txt"
    victim.write_text("precious")
    (tmp_path / "demo.csv.tmp").symlink_to(victim)  # the fixed name the old code used
    # the next temporary name drawn is planted too: O_EXCL refuses it, another is drawn
    names = itertools.chain(["planted"], tempfile._get_candidate_names())
    monkeypatch.setattr(tempfile, "_get_candidate_names", lambda: names)
    (tmp_path / ".demo.csv.planted.tmp").symlink_to(victim)
    cache.store(cache.Entry("demo", tmp_path), NEW, {"run": "new"})
    assert victim.read_text() == "precious" and _what_a_reader_sees(tmp_path) == "new"
    assert not (tmp_path / "demo.csv").is_symlink()
    monkeypatch.undo()
    safefile.lock_path(tmp_path / "demo.csv").symlink_to(victim)
    with pytest.raises(OSError, match="symbolic link: refused, not followed") as raised:
        cache.store(cache.Entry("demo", tmp_path), OLD, {"run": "old"})
    assert writable.describe(raised.value).endswith(
        "cannot write " + str(tmp_path / ".demo.csv.lock") + ": it is a symbolic link: refused, "
        "not followed (remove it)"
    )
    assert victim.read_text() == "precious" and _what_a_reader_sees(tmp_path) == "new"


# --- an empty environment variable is no folder -----------------------------------------------


def test_an_empty_TCPLAB_DATA_means_the_books_data_folder(tmp_path: Path) -> None:
    """``TCPLAB_DATA=`` (set, but empty) is read as unset, never as the current directory."""
    for value in ("", "  "):
        assert _data_dir(tmp_path, TCPLAB_DATA=value) == ROOT / "data"


def _data_dir(cwd: Path, **variables: str) -> Path:
    """cache.DATA_DIR in a fresh interpreter run in ``cwd`` with these environment variables."""
    done = subprocess.run(
        [sys.executable, "-c", "from tcplab import cache; print(cache.DATA_DIR)"],
        env={**os.environ, **variables},
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return Path(done.stdout.strip())


@pytest.mark.parametrize("blank", ["", "  "])
def test_a_blank_TCPLAB_QUICK_CACHE_writes_nothing_into_the_current_directory(
    tmp_path: Path, blank: str
) -> None:
    done = subprocess.run(
        [str(BIN / "tcplab"), "run", "moments-beatdown-path", "--scale", "quick"],
        env={**os.environ, "TCPLAB_QUICK_CACHE": blank, "TCPLAB_DATA": ""},
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    assert done.stdout and list(tmp_path.iterdir()) == []


def test_a_tilde_in_TCPLAB_DATA_is_the_home_folder(tmp_path: Path) -> None:
    found = _data_dir(tmp_path, TCPLAB_DATA="~/tcplab-results", HOME=str(tmp_path))
    assert found == tmp_path / "tcplab-results"
