"""The registry is declarative and lazy, and a result's fingerprint follows the code it ran.

Listing the experiments, or importing the command line, loads no chapter's code and no packet
model (simpy); an experiment's modules are read from its import statements; the fingerprint
ignores docstrings and where a module lives, and changes with a line of code.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import types
from pathlib import Path

import pytest

from tcplab import cache, registry


def _loaded_after(code: str) -> list[str]:
    """Modules loaded by a fresh interpreter after running ``code``."""
    probe = textwrap.dedent(code) + "\nimport json, sys\nprint(json.dumps(sorted(sys.modules)))\n"
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, check=True
    )
    return json.loads(done.stdout.splitlines()[-1])


def _chapter_code(modules: list[str]) -> list[str]:
    """Loaded chapter modules other than the packages' declarations."""
    return [m for m in modules if m.startswith("tcplab.chapters.") and m.count(".") > 2]


def test_importing_the_command_line_loads_no_chapter_and_no_simpy() -> None:
    loaded = _loaded_after("import tcplab.cli")
    assert "simpy" not in loaded
    assert not [m for m in loaded if m.startswith("tcplab.chapters")]
    assert not [m for m in loaded if m.startswith("tcplab.packet")]


def test_listing_the_experiments_imports_only_their_declarations() -> None:
    loaded = _loaded_after("from tcplab.registry import REGISTRY\nprint(len(REGISTRY))")
    assert "simpy" not in loaded and "pandas" not in loaded
    assert not _chapter_code(loaded)
    assert "tcplab.chapters.sawtooth" in loaded  # the declarations were read


def test_the_probe_sees_an_experiments_code_when_it_runs() -> None:
    loaded = _loaded_after(
        "from tcplab import registry\nregistry.run('sawtooth-utilisation', scale='quick')"
    )
    assert registry.REGISTRY["sawtooth-utilisation"].module in loaded and "pandas" in loaded


@pytest.mark.parametrize("name", sorted(registry.REGISTRY))
def test_an_experiments_modules_come_from_its_imports(name: str) -> None:
    experiment = registry.REGISTRY[name]
    modules = experiment.modules()
    assert experiment.module in modules
    assert "tcplab.checks" in modules  # every model validates its input
    assert "tcplab.registry" not in modules and "tcplab.cli" not in modules
    assert callable(experiment.function())
    assert experiment.parameters("quick") != experiment.parameters("full")


def test_the_packet_experiments_depend_on_the_packet_model_and_the_fluid_ones_do_not() -> None:
    packets = registry.REGISTRY["packets-droptail"].modules()
    sawtooth = registry.REGISTRY["sawtooth-paths"].modules()
    assert "tcplab.packet.tcp" in packets and "tcplab.packet.queues" in packets
    assert "tcplab.fluid" in sawtooth and not [m for m in sawtooth if "packet" in m]


def test_a_name_declared_twice_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    twice = types.ModuleType("tcplab.chapters.twice")
    one = registry.Experiment("x", "m:f", "P", "one")
    twice.EXPERIMENTS = (one, one)  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "tcplab.chapters.twice", twice)
    found = registry._Registry()
    monkeypatch.setattr(
        registry.pkgutil, "iter_modules", lambda *_: [types.SimpleNamespace(name=twice.__name__)]
    )
    with pytest.raises(ValueError, match="'x' is declared twice"):
        len(found)


def _module(folder: Path, name: str, text: str) -> types.ModuleType:
    path = folder / f"{name}.py"
    path.write_text(textwrap.dedent(text))
    module = types.ModuleType(name)
    module.__file__ = str(path)
    return module


def test_the_fingerprint_ignores_docstrings_comments_and_where_imports_come_from(
    tmp_path: Path,
) -> None:
    before = _module(
        tmp_path,
        "before",
        '''
        """A model."""
        from ..theory import altman

        def rate(x):
            """Twice x."""
            return 2 * x  # doubled
        ''',
    )
    moved = _module(
        tmp_path,
        "moved",
        '''
        """The same model, moved and documented again."""
        from ...theory import altman

        def rate(x):
            return 2 * x
        ''',
    )
    changed = _module(
        tmp_path,
        "changed",
        """
        from ..theory import altman

        def rate(x):
            return 3 * x
        """,
    )
    assert cache.fingerprint([before]) == cache.fingerprint([moved])
    assert cache.fingerprint([before]) != cache.fingerprint([changed])


def test_the_fingerprint_of_shipped_code_changes_with_a_line_of_code() -> None:
    modules = registry.REGISTRY["sawtooth-utilisation"].modules()
    assert cache.fingerprint(modules) == cache.fingerprint(reversed(modules))
    assert cache.fingerprint(modules) != cache.fingerprint(modules[:-1])
    with pytest.raises(ValueError, match="not a tcplab module"):
        cache.fingerprint(["numpy"])


def test_a_quick_result_is_computed_once_per_scratch_folder(tmp_path) -> None:
    """With TCPLAB_QUICK_CACHE set, the same experiment, parameters, seed and code give the
    stored table; any other parameters or seed compute again; no temporary file is left."""
    import pandas as pd

    calls: list[int] = []

    def compute() -> pd.DataFrame:
        calls.append(1)
        return pd.DataFrame({"x": [0.1 * len(calls)], "on": [True]})

    experiment = registry.REGISTRY["sawtooth-utilisation"]
    first = registry._quick_cached("demo", compute, {"p": 1}, 0, experiment, str(tmp_path))
    again = registry._quick_cached("demo", compute, {"p": 1}, 0, experiment, str(tmp_path))
    assert len(calls) == 1 and again.equals(first) and again["on"].dtype == bool
    registry._quick_cached("demo", compute, {"p": 1}, 1, experiment, str(tmp_path))
    registry._quick_cached("demo", compute, {"p": 2}, 0, experiment, str(tmp_path))
    assert len(calls) == 3
    assert not list(tmp_path.glob(".*")) and len(list(tmp_path.glob("demo-*.json"))) == 3


def test_a_quick_result_asked_for_twice_at_once_is_computed_once(tmp_path) -> None:
    """Two processes (the xdist workers in a run) that ask for the same quick result at the
    same time: one computes it, the other waits and reads it. (Processes, not threads: the
    fingerprint parses code, and Python 3.11's ast.parse is not safe in two threads at once.)"""
    import multiprocessing
    import time

    import pandas as pd

    log = tmp_path / "computed"

    def compute() -> pd.DataFrame:
        with log.open("a") as out:
            out.write("computed\n")
        time.sleep(0.5)  # long enough for the other process to arrive meanwhile
        return pd.DataFrame({"x": [1.0]})

    experiment = registry.REGISTRY["sawtooth-utilisation"]

    def ask() -> None:
        registry._quick_cached("demo", compute, {}, 0, experiment, str(tmp_path / "quick"))

    context = multiprocessing.get_context("fork")
    askers = [context.Process(target=ask) for _ in range(2)]
    for asker in askers:
        asker.start()
    for asker in askers:
        asker.join(60)
    assert [asker.exitcode for asker in askers] == [0, 0]
    assert log.read_text().splitlines() == ["computed"]


#: a pickle that, once unpickled, creates the file named in it (what a planted one could do)
class _Planted:
    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[object, tuple[str]]:
        import os

        return os.system, (f"touch {self.marker}",)


def _quick_path(folder: Path, name: str) -> Path:
    """Where _quick_cached keeps ``name``'s quick table at seed 0 (found by computing it)."""
    registry.run(name, scale="quick")
    found = list(folder.glob(f"{name}-*.json"))
    assert len(found) == 1, found
    return found[0]


def test_a_quick_result_is_kept_as_data_that_round_trips_exactly(tmp_path, monkeypatch) -> None:
    """The quick folder holds JSON (no pickle): a table with floats that need 17 digits,
    NaN, infinities, ints, bools, strings with a missing value and an object column comes
    back equal, dtypes and all."""
    import numpy as np
    import pandas as pd

    table = pd.DataFrame({
        "f": [0.1 + 0.2, np.nan, np.inf, -np.inf, 5e-324],
        "f32": np.array([0.1, 1.5, 2.0, -3.25, 7.0], dtype="float32"),
        "i": [1, -2, 2**62, 0, 3],
        "b": [True, False, True, True, False],
        "s": ["a", None, "é", "x,y", "\n"],
        "o": pd.Series([1, "two", None, 3.5, True], dtype=object),
    })  # fmt: skip
    experiment = registry.REGISTRY["sawtooth-utilisation"]
    first = registry._quick_cached("demo", lambda: table, {}, 0, experiment, str(tmp_path))
    again = registry._quick_cached("demo", pytest.fail, {}, 0, experiment, str(tmp_path))
    pd.testing.assert_frame_equal(again, table, check_exact=True)
    assert first is table and list(again.dtypes) == list(table.dtypes)
    (stored,) = tmp_path.glob("demo-*.json")
    assert json.loads(stored.read_text())["format"] == "tcplab-frame-1"


def test_a_planted_pickle_in_the_quick_folder_runs_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A pickle planted at the name a quick result is read from (and at the name of the
    pickles of earlier code) is not code to the reader: nothing runs, the entry is computed
    again with one line of warning, and the folder then holds data."""
    import pickle

    monkeypatch.setenv(registry.QUICK_CACHE, str(tmp_path))
    name = "insensitivity-paths"
    path = _quick_path(tmp_path, name)
    marker = tmp_path / "it-ran"
    path.write_bytes(pickle.dumps(_Planted(marker)))
    path.with_suffix(".pkl").write_bytes(pickle.dumps(_Planted(marker)))
    capsys.readouterr()
    table = registry.run(name, scale="quick")
    warning = capsys.readouterr().err.strip().splitlines()
    assert not marker.exists() and len(table) > 0
    assert len(warning) == 1 and warning[0].startswith(f"tcplab: warning: quick result {path}")
    assert "is corrupt (not the JSON of a table" in warning[0] and "computed again" in warning[0]
    assert registry.run(name, scale="quick").equals(table)
    assert capsys.readouterr().err == ""  # recomputed and kept: read as data now


@pytest.mark.parametrize("content", [b"", b"[]", b"null", b'{"format": "tcplab-frame-1"}',
                                     b"\x80\x04garbage", b"[" * 100_000])  # fmt: skip
def test_a_corrupt_quick_entry_is_recomputed_with_one_line_of_warning(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
    content: bytes,
) -> None:  # fmt: skip
    monkeypatch.setenv(registry.QUICK_CACHE, str(tmp_path))
    path = _quick_path(tmp_path, "insensitivity-paths")
    good = path.read_bytes()
    path.write_bytes(content)
    capsys.readouterr()
    registry.run("insensitivity-paths", scale="quick")
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and "is corrupt" in lines[0], lines
    assert path.read_bytes() == good


def test_a_full_disk_leaves_no_partial_quick_result(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import errno
    import os

    import pandas as pd

    from tcplab import safefile

    real = os.write

    def full(fd: int, data: bytes) -> int:
        real(fd, data[:100])
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(safefile.os, "write", full)
    experiment = registry.REGISTRY["sawtooth-utilisation"]
    big = pd.DataFrame({"x": range(10_000)})
    with pytest.raises(OSError, match="No space left") as raised:
        registry._quick_cached("demo", lambda: big, {}, 0, experiment, str(tmp_path))
    assert str(raised.value.filename).startswith(str(tmp_path / "demo-"))
    assert list(tmp_path.iterdir()) == []


def test_the_papers_scale_is_refused_where_there_is_no_paper_grid() -> None:
    with pytest.raises(ValueError, match=r"experiment='sawtooth-paths': it has no paper grid"):
        registry.run("sawtooth-paths", scale="paper")
    assert registry.REGISTRY["lu-scenarios"].has_paper_grid()


def test_the_test_session_shares_one_quick_scratch_folder() -> None:
    import os

    folder = os.environ.get(registry.QUICK_CACHE)
    assert folder and os.path.isdir(folder)
