"""Freshness by behaviour: a change of code that moves no number is restamped, one that moves
a number is not, and a quick grid that misses a path of the full grid is never trusted.

The experiment here is built for the test: a module of its own (written to a scratch folder,
so that the test can edit it as a contributor would) with a frozen parameter class whose quick
variant is small, registered for the test only; its tables go to a scratch data folder.
"""

from __future__ import annotations

import dataclasses
import importlib
import json
import subprocess
import sys
import textwrap
from pathlib import Path
from types import ModuleType

import pytest

from tcplab import cache, frames, registry, restamp

MODEL = '''
"""A toy sweep: one row per (variant, n)."""
from dataclasses import dataclass
import pandas as pd


@dataclass(frozen=True)
class Params:
    variants: tuple = ("plain", "doubled")
    ns: tuple = (1, 2, 3, 4)

    @classmethod
    def quick(cls):
        return cls(variants=QUICK_VARIANTS, ns=(1, 2))


def rate(variant, n, beta=BETA):
    return n * beta * (2.0 if variant == "doubled" else 1.0)


def sweep(params, seed=0):
    rows = [{"variant": v, "n": n, "rate": rate(v, n) + seed} for v in params.variants
            for n in params.ns]
    return pd.DataFrame(rows)
'''


class _Demo(registry.Experiment):
    """The test's experiment: its code is the scratch module (not a tcplab module)."""

    def modules(self) -> tuple[str, ...]:
        return (importlib.import_module(self.module),)  # type: ignore[return-value]


def _write(folder: Path, beta: str = "0.5", quick_variants: str = '("plain", "doubled")',
           extra: str = "") -> ModuleType:  # fmt: skip
    text = MODEL.replace("QUICK_VARIANTS", quick_variants).replace("BETA", beta) + extra
    (folder / "restamp_demo.py").write_text(textwrap.dedent(text), encoding="utf-8")
    module = importlib.import_module("restamp_demo")
    return importlib.reload(module)


@pytest.fixture
def demo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The demo experiment registered alone, its data folder a scratch one."""
    code, data = tmp_path / "code", tmp_path / "data"
    code.mkdir()
    monkeypatch.syspath_prepend(str(code))
    _write(code)
    experiment = _Demo("demo", "restamp_demo:sweep", "restamp_demo:Params", "a toy sweep")
    monkeypatch.setattr(registry.REGISTRY, "_found", {"demo": experiment})
    monkeypatch.setattr(cache, "DATA_DIR", data)
    monkeypatch.delenv(registry.QUICK_CACHE, raising=False)
    registry.run("demo", scale="full")  # `tcplab data --only demo`: stored with its canary
    yield code
    sys.modules.pop("restamp_demo", None)


def _lines(outcomes: list[restamp.Outcome]) -> dict[str, tuple[str, str]]:
    return {o.table.label: (o.action, o.why) for o in outcomes}


def test_a_stored_table_records_its_quick_canary(demo: Path) -> None:
    meta = cache.read(cache.Entry.of("demo"))[1]
    quick = registry.run("demo", scale="quick")
    assert meta[cache.QUICK_DIGEST] == frames.digest(quick)
    assert registry.status("demo").state == "fresh"


def test_a_change_that_moves_no_number_is_restamped(demo: Path) -> None:
    """A new knob whose default is today's value: the fingerprint moves, the table is stale
    (the full-scale read refuses it, naming --restamp); --restamp recomputes the quick table,
    finds it the recorded one and rewrites only the fingerprint; the table is fresh again and
    its bytes are the same."""
    before = cache.Entry.of("demo").table.read_bytes()
    _write(demo, extra="\n\ndef knob(x, scale=1.0):\n    return x * scale\n")
    status = registry.status("demo")
    assert status.state == "stale" and status.why.startswith("code: fingerprint")
    with pytest.raises(cache.Stale, match=r"run `tcplab data --restamp`"):
        registry.run("demo", scale="full")
    outcomes = _lines(restamp.restamp(workers=1))
    assert outcomes["demo"][0] == "restamped", outcomes
    assert registry.status("demo").state == "fresh"
    assert cache.Entry.of("demo").table.read_bytes() == before
    meta = cache.read(cache.Entry.of("demo"))[1]
    assert meta["fingerprint"] == cache.fingerprint(registry.REGISTRY["demo"].modules())
    assert sorted(meta[restamp.READS]) == ["ns", "variants"]


def test_a_change_that_moves_a_number_stays_stale(demo: Path) -> None:
    _write(demo, beta="0.6")
    outcomes = _lines(restamp.restamp(workers=1))
    action, why = outcomes["demo"]
    assert action == "stale" and "its quick table moved" in why
    assert "run `tcplab data --only demo`" in why
    assert registry.status("demo").state == "stale"


def test_a_quick_grid_without_a_path_of_the_full_grid_is_never_restamped(demo: Path) -> None:
    """The counter-example of the canary: the quick grid runs only the "plain" variant, so a
    change to the "doubled" branch moves the full table and not the quick one. The branch
    check finds the gap, restamp refuses, and the shipped-data test would fail."""
    narrow = _write(demo, quick_variants='("plain",)')
    assert restamp.branch_gaps(narrow.Params(), narrow.Params.quick()) == {"variants": ["doubled"]}
    registry.run("demo", scale="full", refresh=True)  # made by the narrow grid's code
    text = (demo / "restamp_demo.py").read_text()
    (demo / "restamp_demo.py").write_text(text.replace("(2.0 if variant", "(3.0 if variant"))
    changed = importlib.reload(narrow)
    assert registry.run("demo", scale="quick").equals(narrow.sweep(narrow.Params.quick()))
    assert (
        frames.digest(changed.sweep(changed.Params.quick()))
        == (cache.read(cache.Entry.of("demo"))[1][cache.QUICK_DIGEST])
    )  # the canary alone cannot see this change
    action, why = _lines(restamp.restamp(workers=1))["demo"]
    assert action == "stale" and "its quick grid lacks variants 'doubled'" in why
    assert registry.status("demo").state == "stale"


def test_branch_gaps_reads_words_and_switches_at_any_depth() -> None:
    @dataclasses.dataclass(frozen=True)
    class Case:
        queue: str
        sack: bool

    @dataclasses.dataclass(frozen=True)
    class Grid:
        cases: tuple[Case, ...]
        flows: tuple[int, ...]
        label: str = "x"

    full = Grid((Case("red", True), Case("droptail", False)), (10, 1000))
    quick = Grid((Case("droptail", False),), (2,))
    assert restamp.branch_gaps(full, quick) == {"cases": ["red", True]}
    assert restamp.branch_gaps(full, quick, ["flows", "label"]) == {}  # cases not read
    assert restamp.branch_gaps(full, full) == {}


def test_tcplab_data_status_lists_every_table_with_its_state(tmp_path: Path) -> None:
    """`tcplab data --status --json` on a copy of two shipped pairs, one spoiled: every
    registered table is listed, the spoiled one corrupt (why), the absent ones missing."""
    import shutil

    data = tmp_path / "data"
    data.mkdir()
    for name in ("sawtooth-paths", "sawtooth-utilisation"):
        for suffix in (".csv", ".meta.json"):
            shutil.copy(Path(cache.DATA_DIR) / f"{name}{suffix}", data / f"{name}{suffix}")
    spoiled = data / "sawtooth-utilisation.csv"
    spoiled.write_bytes(spoiled.read_bytes().replace(b"0.", b"9.", 1))
    done = subprocess.run(
        [str(Path(sys.executable).parent / "tcplab"), "data", "--status", "--json"],
        env={**__import__("os").environ, "TCPLAB_DATA": str(data)},
        capture_output=True, text=True, timeout=300, check=True,
    )  # fmt: skip
    rows = {row["table"]: row for row in json.loads(done.stdout)}
    assert set(rows) >= set(registry.REGISTRY)
    assert rows["sawtooth-paths"]["state"] == "fresh"
    assert rows["sawtooth-utilisation"]["state"] == "corrupt"
    assert "its bytes are not the table" in rows["sawtooth-utilisation"]["why"]
    assert rows["lu-scenarios"] == {
        "table": "lu-scenarios", "state": "missing", "why": "data/lu-scenarios.csv is missing"
    }  # fmt: skip


#: where a full-scale computation's code calls a ``quick()`` (left out of the fingerprint):
#: each behind a flag that is set only in the quick variant, so a full-scale table never
#: runs it (module, function that calls it)
QUICK_CALLS = {
    ("tcplab.chapters.packets.reruns", "chapter"),  # RerunParams.quick_scale
    ("tcplab.chapters.packets.sack", "chapter"),  # SackParams.quick_scale
}


def test_full_scale_code_calls_quick_only_behind_a_quick_flag() -> None:
    """The fingerprint leaves ``quick()`` classmethods out: that is sound only while the code
    of the full-scale tables does not run one. Every call of a ``quick()`` in an experiment's
    modules outside a ``quick()`` is listed above with the flag that guards it."""
    import ast

    from tcplab import fingerprint

    modules = {m for e in registry.REGISTRY.values() for m in e.modules()}
    found = set()
    for name in modules:
        tree = ast.parse(fingerprint._source(name).read_text(encoding="utf-8"))  # type: ignore[union-attr]
        for function in ast.walk(tree):
            if not isinstance(function, ast.FunctionDef) or function.name == "quick":
                continue
            for node in ast.walk(function):
                called = node.func if isinstance(node, ast.Call) else None
                if isinstance(called, ast.Attribute) and called.attr == "quick":
                    found.add((name, function.name))
    assert found == QUICK_CALLS


#: a parameter class with a quick variant and one method, as text with two holes
CLASS = """
class P:
    @classmethod
    def quick(cls):
        return cls({quick})

    def rate(self):
        return {rate}
"""


def test_the_fingerprint_leaves_out_the_quick_variant(tmp_path: Path) -> None:
    base = _module_file(tmp_path, "a", CLASS.format(quick=1, rate=2))
    other_quick = _module_file(tmp_path, "b", CLASS.format(quick=5, rate=2))
    other_rate = _module_file(tmp_path, "c", CLASS.format(quick=1, rate=3))
    assert cache.fingerprint([base]) == cache.fingerprint([other_quick])
    assert cache.fingerprint([base]) != cache.fingerprint([other_rate])


def _module_file(folder: Path, name: str, text: str) -> ModuleType:
    path = folder / f"{name}.py"
    path.write_text(text, encoding="utf-8")
    module = ModuleType(name)
    module.__file__ = str(path)
    return module


def test_a_sizes_field_picks_grids_with_the_same_words() -> None:
    """``quick_scale`` (SackParams, VariantParams: listed in SIZES, so the branch check passes
    it by) picks the packets chapter's quick or full set-up; the two have the same words and
    switches, so the flag chooses sizes, not paths."""
    from tcplab.chapters.packets.reruns import VariantParams
    from tcplab.chapters.packets.sack import SackParams

    for kind in (SackParams, VariantParams):
        assert "quick_scale" in kind.SIZES
        full, quick = kind(), kind.quick()
        assert (full.quick_scale, quick.quick_scale) == (False, True)
        assert restamp.branch_gaps(full.chapter(), quick.chapter()) == {}


def test_an_interrupted_restamp_leaves_the_pair_as_it_was(
    demo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ctrl-C while the metadata is being replaced: the old metadata stays whole (the table
    stale, as it was), no temporary file is left, and the next restamp completes."""
    from tcplab import safefile

    entry = cache.Entry.of("demo")
    _write(demo, extra="\n\ndef knob(x, scale=1.0):\n    return x * scale\n")
    before = entry.meta.read_bytes()
    real = safefile.replace

    def interrupted(source: Path, target: Path) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(safefile, "replace", interrupted)
    with pytest.raises(KeyboardInterrupt):
        restamp.restamp(workers=1)
    assert entry.meta.read_bytes() == before and registry.status("demo").state == "stale"
    assert sorted(p.name for p in entry.folder.iterdir()) == ["demo.csv", "demo.meta.json"]
    monkeypatch.setattr(safefile, "replace", real)
    assert _lines(restamp.restamp(workers=1))["demo"][0] == "restamped"
