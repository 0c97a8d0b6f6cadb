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
    assert not list(tmp_path.glob("*.tmp")) and len(list(tmp_path.glob("demo-*.pkl"))) == 3


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


def test_the_test_session_shares_one_quick_scratch_folder() -> None:
    import os

    folder = os.environ.get(registry.QUICK_CACHE)
    assert folder and os.path.isdir(folder)
