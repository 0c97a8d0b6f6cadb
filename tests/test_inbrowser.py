"""The in-browser panels without a browser: one panel spec behind the notebook's widgets and
the page's runtime, and the runtime's files (Pyodide's official builds checked against its
lock file, the wheels the book makes). The browser itself: test_inbrowser_browser.py."""

from __future__ import annotations

import gzip
import hashlib
import html
import json
import re
import struct
import tarfile
import types
import zipfile
from io import BytesIO
from pathlib import Path

import ipywidgets as w
import pytest

from tcplab import inbrowser, pyodide_site, widgets
from tcplab.chapters.bmc import panel as bmc
from tcplab.chapters.insensitivity import panel as insensitivity
from tcplab.chapters.lee import panel as lee
from tcplab.chapters.lu import panel as lu
from tcplab.chapters.microscope import panel as microscope
from tcplab.chapters.morris import panel as morris
from tcplab.chapters.packets import panel as packets
from tcplab.chapters.sawtooth import panel as sawtooth
from tcplab.panels import Control, PanelSpec

SAWTOOTH = "tcplab.chapters.sawtooth.panel:sawtooth_spec"
INSENSITIVITY = "tcplab.chapters.insensitivity.panel:example1_spec"
MICROSCOPE = "tcplab.chapters.microscope.panel:microscope_spec"
PACKETS = "tcplab.chapters.packets.panel:packets_spec"
MORRIS = "tcplab.chapters.morris.panel:morris_spec"
LEE = "tcplab.chapters.lee.panel:transfers_spec"
BMC = "tcplab.chapters.bmc.panel:manager_spec"
LU = "tcplab.chapters.lu.panel:tame_spec"


def _spec_of(page: str) -> dict:
    found = re.search(r'<script type="application/json"[^>]*>(.*?)</script>', page, re.DOTALL)
    assert found, "no chart in the HTML"
    return json.loads(found.group(1).replace("<\\/", "</"))


@pytest.mark.parametrize(
    "target, values, title",
    [
        (SAWTOOTH, {"beta": 0.7, "eta": 2.0, "events": 5}, "β = 0.70, η = 2"),
        (INSENSITIVITY, {"sigma": 0.3, "flows": 6, "beta": 0.5}, "N = 6, β = 0.50, σ = 0.300"),
        (MICROSCOPE, {"drops": "14 15", "tcp": "newreno", "packets": 40}, "newreno, drops"),
        (PACKETS, {"flows": 3, "queue": "red", "seconds": 2}, "N = 3, red, b = 5"),
        (MORRIS, {"flows": 5, "queue": "droptail", "seconds": 5}, "N = 5, droptail b = 217"),
        (LEE, {"path": "window", "flows": 2, "size_mb": 0.2}, "window, 2 x 0.2 MB, RTT 49 ms"),
        (BMC, {"scenario": "shared", "k": 0.25}, ""),
        (LU, {"scenario": "2", "cross": "10", "max_impact": 0.3}, "scenario 2, 10 cross flows"),
    ],
)
def test_the_page_and_the_notebook_draw_the_same_chart_from_one_spec(
    target: str, values: dict, title: str
) -> None:
    page = _spec_of(inbrowser.chart_html(target, json.dumps(values)))
    spec = inbrowser.load_spec(target)
    notebook = spec.draw(**{**spec.values(), **values}).to_dict()
    assert page.get("title") == notebook.get("title")
    assert title in json.dumps(page, ensure_ascii=False)  # the title of the chart or a part
    assert page["datasets"] == notebook["datasets"]


def test_every_panel_that_offers_the_browser_names_a_spec_that_loads() -> None:
    made_here = (
        sawtooth.sawtooth_panel(),
        insensitivity.example1_panel(),
        microscope.microscope_panel(),
        packets.packets_panel(flows=2, buffer=10),
        morris.morris_panel(flows=3),
        lee.transfers_panel(flows=2),
        bmc.manager_panel(),
        lu.tame_panel(lu.recorded_table()),
    )
    for made in made_here:
        found = re.search(r'data-panel="([^"]+)"', made._repr_mimebundle_()["text/html"])
        assert found and inbrowser.load_spec(found.group(1)).what == made.what


def test_the_widgets_are_built_from_the_spec_and_offer_the_browser() -> None:
    panel = sawtooth.sawtooth_panel(beta=0.6, events=4)
    sliders = {s.description: s for s in panel.widget.children[0].children}
    assert isinstance(sliders["η"], w.FloatLogSlider) and sliders["η"].base == 2
    assert sliders["β"].value == 0.6 and sliders["events"].value == 4
    shown = panel._repr_mimebundle_()["text/html"]
    box = re.search(
        r'<div class="tcplab-inbrowser" data-panel="([^"]+)" data-controls="([^"]+)"', shown
    )
    assert box and box.group(1) == SAWTOOTH
    controls = {c["name"]: c for c in json.loads(html.unescape(box.group(2)))}
    assert controls["beta"]["value"] == 0.6 and controls["eta"]["kind"] == "log2"
    assert "Run in your browser" in shown and "tcplab-live-note" in shown


def test_a_bad_value_is_one_line_and_a_foreign_target_is_refused() -> None:
    line = inbrowser.chart_html(SAWTOOTH, json.dumps({"beta": 1.5}))
    assert line.startswith('<p class="tcplab-panel-error">error: ') and "beta" in line
    with pytest.raises(ValueError, match="not a tcplab panel"):
        inbrowser.load_spec("os:system")
    with pytest.raises(ValueError, match="no controls"):
        inbrowser.chart_html(SAWTOOTH, json.dumps({"flows": 3}))
    with pytest.raises(ValueError, match="not a slider"):
        Control("x", "x", 1, 1, 0.1, 1)


def test_drop_downs_text_and_number_boxes_are_checked_and_made_into_widgets() -> None:
    menu = Control.choice("tcp", "sender", ("reno", "aimd"), "reno")
    with pytest.raises(ValueError, match="not one of"):
        Control.choice("tcp", "sender", ("reno", "aimd"), "vegas")
    with pytest.raises(ValueError, match="must be text"):
        Control("drops", "drops", 0, 0, 0, 3, kind="text")
    with pytest.raises(ValueError, match="must be a number"):
        Control("n", "n", 1, 9, 1, "3", kind="number")
    a = Control("a", "a", 0.25, 4, 0.25, 1.0, when=("tcp", "aimd"))
    with pytest.raises(ValueError, match="names no drop-down value"):
        PanelSpec((menu, Control("b", "b", 0, 1, 0.1, 0.5, when=("tcp", "vegas"))), dict, "x")
    spec = PanelSpec(
        (menu, Control.text("drops", "drops", "1, 2"), Control("n", "n", 1, 9, 1, 3, "number"), a),
        lambda **values: values,
        "A test panel.",
    )
    assert spec.to_json()[0]["options"] == ["reno", "aimd"]
    assert spec.to_json()[3]["when"] == ["tcp", "aimd"]
    with pytest.raises(ValueError, match="vegas"):
        spec.check({"tcp": "vegas"})
    shown = [widgets._widget(c) for c in spec.controls]
    assert isinstance(shown[0], w.Dropdown) and shown[0].options == ("reno", "aimd")
    assert isinstance(shown[1], w.Text) and not shown[1].continuous_update
    assert isinstance(shown[2], w.BoundedIntText) and shown[2].max == 9


def test_a_control_with_when_acts_only_while_its_menu_shows_that_value() -> None:
    panel = microscope.microscope_panel()
    parts = {p.description: p for p in panel.widget.children[0].children}
    assert parts["a"].disabled and parts["β"].disabled and not parts["window"].disabled
    parts["sender"].value = "aimd"
    assert not parts["a"].disabled and not parts["β"].disabled
    line = inbrowser.chart_html(MICROSCOPE, json.dumps({"drops": "14, x"}))
    assert "is not a packet number" in line


def test_a_slow_panels_sliders_act_when_released() -> None:
    sliders = lee.transfers_panel(flows=2).widget.children[0].children
    acting = [s.continuous_update for s in sliders if isinstance(s, w.IntSlider)]
    assert acting and not any(acting), acting
    fast = sawtooth.sawtooth_panel().widget.children[0].children
    assert all(s.continuous_update for s in fast)


def test_without_processes_a_process_pool_is_a_stand_in_that_refuses() -> None:
    real: dict = {"concurrent.futures.process": "the real module"}
    inbrowser.without_processes(real)
    assert real == {"concurrent.futures.process": "the real module"}
    browser: dict = {}
    inbrowser.without_processes(browser)
    with pytest.raises(RuntimeError, match="no process pool in the browser"):
        browser["concurrent.futures.process"].ProcessPoolExecutor(2)


def _fake_jsonschema() -> tuple[object, list]:
    """A module with a RefResolver whose from_schema records each resolver it makes."""
    made: list = []

    class RefResolver:
        @classmethod
        def from_schema(cls, schema: dict) -> RefResolver:
            made.append(cls())
            return made[-1]

    return types.SimpleNamespace(RefResolver=RefResolver), made


def test_an_old_jsonschema_reuses_one_resolver_per_schema() -> None:
    """Pyodide's jsonschema 4.17: one resolver per schema (each new one indexes the whole
    Vega-Lite schema again); a different schema gets its own; 4.18 and later are left alone."""
    old, made = _fake_jsonschema()
    assert inbrowser.reuse_ref_resolvers(old, "4.17.3")
    one, other = {"a": 1}, {"a": 1}
    first = old.RefResolver.from_schema(one)
    assert old.RefResolver.from_schema(one) is first and len(made) == 1
    assert old.RefResolver.from_schema(other) is not first and len(made) == 2
    assert not inbrowser.reuse_ref_resolvers(old, "4.17.3")  # once
    new, made = _fake_jsonschema()
    assert not inbrowser.reuse_ref_resolvers(new, "4.26.0")
    new.RefResolver.from_schema(one), new.RefResolver.from_schema(one)
    assert len(made) == 2


def _lock(**files: bytes) -> dict:
    packages = {
        name: {
            "file_name": f"{name}-1.0-py3-none-any.whl",
            "sha256": hashlib.sha256(data).hexdigest(),
            "depends": ["b"] if name == "a" else [],
        }
        for name, data in files.items()
    }
    return {"info": {"version": pyodide_site.PYODIDE_VERSION}, "packages": packages}


def _provisa(tmp_path: Path, **files: bytes) -> Path:
    path = tmp_path / "provisa.whl"
    with zipfile.ZipFile(path, "w") as archive:
        for name, data in files.items():
            archive.writestr(f"{pyodide_site._PROVISA_FOLDER}{name}-1.0-py3-none-any.whl", data)
    return path


def test_official_files_are_taken_only_when_their_hash_is_the_locks(tmp_path: Path) -> None:
    lock = _lock(a=b"official a", b=b"official b")
    assert pyodide_site.official_closure(lock, ["a"]) == ["a", "b"]
    good = _provisa(tmp_path, a=b"official a", b=b"official b")
    out = tmp_path / "out"
    out.mkdir()
    pyodide_site._official_files(good, lock, ["a", "b"], out)
    assert (out / "a-1.0-py3-none-any.whl").read_bytes() == b"official a"
    bad = _provisa(tmp_path, a=b"a rebuilt a", b=b"official b")
    with pytest.raises(ValueError, match="not the official build"):
        pyodide_site._official_files(bad, lock, ["a", "b"], out)
    with pytest.raises(KeyError, match="not a package"):
        pyodide_site.official_closure(lock, ["scipy"])


def test_markupsafe_becomes_a_pure_wheel_and_wheels_are_reproducible(tmp_path: Path) -> None:
    sdist = tmp_path / "markupsafe-9.9.tar.gz"
    with tarfile.open(sdist, "w:gz") as archive:
        for name, text in [
            ("__init__.py", b"x = 1\n"),
            ("_native.py", b"y = 2\n"),
            ("_speedups.c", b"int main;\n"),
        ]:
            info = tarfile.TarInfo(f"markupsafe-9.9/src/markupsafe/{name}")
            info.size = len(text)
            archive.addfile(info, BytesIO(text))
    one, two = tmp_path / "one", tmp_path / "two"
    one.mkdir()
    two.mkdir()
    wheel = pyodide_site._markupsafe_wheel(sdist, one)
    again = pyodide_site._markupsafe_wheel(sdist, two)
    assert wheel.name == "markupsafe-9.9-py3-none-any.whl"
    assert wheel.read_bytes() == again.read_bytes()
    names = zipfile.ZipFile(wheel).namelist()
    assert "markupsafe/_native.py" in names and "markupsafe/_speedups.c" not in names
    assert "markupsafe-9.9.dist-info/RECORD" in names


def test_pyodide_s_scripts_ask_for_no_source_map(tmp_path: Path) -> None:
    """The maps are not shipped: a script that names one would make a browser with its
    developer tools open ask the site for a file it does not have."""
    script = tmp_path / "pyodide.js"
    script.write_text("var a = 1;\n//# sourceMappingURL=pyodide.js.map\n", encoding="utf-8")
    wasm = tmp_path / "pyodide.asm.wasm"
    wasm.write_bytes(b"\x00asm//# sourceMappingURL=x")
    out = tmp_path / "out"
    out.mkdir()
    for source in (script, wasm):
        pyodide_site.copy_runtime_file(source, out / source.name)
    assert (out / "pyodide.js").read_text(encoding="utf-8") == "var a = 1;\n"
    assert (out / "pyodide.asm.wasm").read_bytes() == wasm.read_bytes()  # binary: untouched


def test_the_lu_panel_reads_in_the_browser_the_tables_the_wheel_carries(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The book's wheel of tcplab carries data/lu-scenarios.csv and lu-gigabit.csv; under
    Pyodide the panel reads those copies (and says so when one is missing)."""
    import pandas as pd

    root = Path(__file__).resolve().parents[1]
    wheel = pyodide_site._tcplab_wheel(root / "lib", tmp_path, root / "data")
    names = zipfile.ZipFile(wheel).namelist()
    assert {f"tcplab/_recorded/{n}.csv" for n in lu.RECORDED} <= set(names)
    assert "tcplab/_recorded/morris-loss.csv" in names  # the many-flows panel's shipped curve
    shipped = tmp_path / "_recorded"
    shipped.mkdir()
    pd.DataFrame({"scenario": [7], "cross": [3]}).to_csv(shipped / "lu-scenarios.csv", index=False)
    monkeypatch.setattr(inbrowser, "SHIPPED", shipped)
    monkeypatch.setattr(inbrowser.sys, "platform", "emscripten")
    assert inbrowser.recorded("lu-scenarios")["scenario"].tolist() == [7]
    with pytest.raises(FileNotFoundError, match="lu-gigabit: the book did not ship"):
        inbrowser.recorded("lu-gigabit")


def test_the_service_worker_s_version_changes_with_any_runtime_file(tmp_path: Path) -> None:
    runtime = tmp_path / "pyodide"
    (runtime / "pypi").mkdir(parents=True)
    (runtime / "pyodide.asm.wasm").write_bytes(b"\0asm one")
    (runtime / "pypi" / "tcplab-0.1.0-py3-none-any.whl").write_bytes(b"wheel one")

    def version() -> str:
        written = pyodide_site.write_service_worker(runtime, tmp_path / "root")
        assert written == tmp_path / "root" / pyodide_site.SERVICE_WORKER
        found = re.findall(r'^const VERSION = "([0-9a-f]{16})";$', written.read_text(), re.M)
        assert len(found) == 1, "the placeholder was not replaced by one digest"
        return found[0]

    first = version()
    assert version() == first  # the same files, the same worker: the browser keeps its cache
    (runtime / "pypi" / "tcplab-0.1.0-py3-none-any.whl").write_bytes(b"wheel two")
    second = version()
    assert second != first  # a new wheel under the same name must not be served from the cache
    (runtime / "pypi" / "tcplab-0.1.0-py3-none-any.whl").rename(runtime / "pypi" / "other.whl")
    assert version() not in (first, second)  # a renamed file too


#: the header of a .pyc that Python 3.12 (Pyodide 0.27's) loads without its source (PEP 552):
#: 3.12's magic number, 3531 (Lib/importlib/_bootstrap_external.py), then the flags 0b01 (a
#: source hash, not checked)
UNCHECKED_312 = (3531).to_bytes(2, "little") + b"\r\n" + (1).to_bytes(4, "little")


def test_the_runtime_ships_the_panels_modules_compiled_for_its_python(built_book: Path) -> None:
    """Every pyc of the built book's bytecode archive is one Python 3.12 uses without its
    source, under the path sys.pycache_prefix gives the module in Pyodide's site-packages,
    and the archive has tcplab's entry point, every chapter's panel and the big imports."""
    runtime = built_book / "_static" / "pyodide"
    manifest = json.loads((runtime / pyodide_site.MANIFEST).read_text(encoding="utf-8"))
    assert manifest["bytecode"] == pyodide_site.BYTECODE
    site = "lib/python3.12/site-packages/"
    with zipfile.ZipFile(runtime / manifest["bytecode"]) as archive:
        names = archive.namelist()
        wrong = [n for n in names if archive.read(n)[:8] != UNCHECKED_312]
    assert names and not wrong, wrong[:5]
    assert all(n.startswith(site) and n.endswith(".cpython-312.pyc") for n in names)
    lib = Path(pyodide_site.__file__).parent
    panels = [p.relative_to(lib.parent) for p in sorted(lib.glob("chapters/*/panel.py"))]
    wanted = ["tcplab/inbrowser.py", "altair/__init__.py", "pandas/__init__.py", *panels]
    for source in map(Path, wanted):
        assert f"{site}{source.parent}/{source.stem}.cpython-312.pyc" in names, source


def _runtime_with_node(tmp_path: Path, monkeypatch, node) -> tuple[Path, Path]:
    """A runtime folder (one wasm file) and a folder to keep builds in, with ``node`` standing
    in for every command pyodide_site runs (and Node found)."""
    monkeypatch.setattr(pyodide_site.subprocess, "run", node)
    monkeypatch.setattr(pyodide_site.shutil, "which", lambda name: f"/usr/bin/{name}")
    runtime, kept = tmp_path / "pyodide", tmp_path / "kept"
    runtime.mkdir()
    (runtime / "pyodide.asm.wasm").write_bytes(b"\0asm one")
    return runtime, kept


def test_the_bytecode_is_compiled_once_per_runtime(tmp_path: Path, monkeypatch) -> None:
    """Compiling takes some 20 s of a build: a rebuild with the same runtime copies the kept
    archive; a changed runtime file compiles again (here a stand-in for Node counts runs)."""
    runs: list[list[str]] = []

    def compile_with_node(command: list[str], **_: object) -> object:
        runs.append(command)
        Path(command[-1]).write_bytes(f"archive {len(runs)}".encode())
        return type("Done", (), {"returncode": 0, "stderr": ""})()

    runtime, kept = _runtime_with_node(tmp_path, monkeypatch, compile_with_node)
    archive = runtime / pyodide_site.BYTECODE

    assert pyodide_site.write_bytecode(tmp_path, runtime, kept) == archive
    assert pyodide_site.write_bytecode(tmp_path, runtime, kept).read_bytes() == b"archive 1"
    assert len(runs) == 1  # the same runtime (its archive aside): copied, not compiled
    (runtime / "pyodide.asm.wasm").write_bytes(b"\0asm two")
    assert pyodide_site.write_bytecode(tmp_path, runtime, kept).read_bytes() == b"archive 2"
    assert len(runs) == 2 and len(list(kept.glob("*.zip"))) == 1


def test_the_snapshot_is_made_and_checked_once_per_runtime(tmp_path: Path, monkeypatch) -> None:
    """Making and checking the memory snapshot takes a minute or two of a build: a rebuild with
    the same runtime copies the kept one, a changed runtime file makes it again, the worker's
    own script does not; a check that fails raises (the build goes on without a snapshot, see
    the next test) and keeps nothing (here a stand-in for Node records the runs and fails a
    check on demand)."""
    runs: list[str] = []
    failing = {"check": False}

    def node(command: list[str], **_: object) -> object:
        mode = command[2]
        runs.append(mode)
        if mode == "make":
            Path(command[-1]).write_bytes(f"snapshot {runs.count('make')}".encode())
        failed = mode == "check" and failing["check"]
        return type("Done", (), {"returncode": 1 if failed else 0, "stderr": "differs"})()

    runtime, kept = _runtime_with_node(tmp_path, monkeypatch, node)
    made = runtime / pyodide_site.SNAPSHOT

    assert pyodide_site.write_snapshot(tmp_path, runtime, kept) == made
    assert runs == ["make", "check"]
    assert pyodide_site.write_snapshot(tmp_path, runtime, kept).read_bytes() == b"snapshot 1"
    (runtime / pyodide_site.WORKER).write_text("// the worker, edited")
    assert pyodide_site.write_snapshot(tmp_path, runtime, kept).read_bytes() == b"snapshot 1"
    assert runs == ["make", "check"]  # the same runtime: copied, not made again
    (runtime / "pyodide.asm.wasm").write_bytes(b"\0asm two")
    failing["check"] = True
    with pytest.raises(RuntimeError, match=r"snapshot \(check\) failed"):
        pyodide_site.write_snapshot(tmp_path, runtime, kept)
    assert not made.exists() and not list(kept.glob("*.partial"))
    failing["check"] = False
    assert pyodide_site.write_snapshot(tmp_path, runtime, kept).read_bytes() == b"snapshot 3"
    assert len(list(kept.glob("snapshot-*.gz"))) == 1


def test_the_book_s_snapshot_is_the_one_its_manifest_names(built_book: Path) -> None:
    """The worker takes the snapshot only if its sha256 is the manifest's (a partial upload or
    a file of another build falls back to a normal start): the build writes them together. A
    build whose snapshot failed (it goes on, panels starting the normal way) fails here."""
    runtime = built_book / "_static" / "pyodide"
    manifest = json.loads((runtime / pyodide_site.MANIFEST).read_text(encoding="utf-8"))
    snapshot = manifest["snapshot"]
    assert snapshot["file"] == pyodide_site.SNAPSHOT and snapshot["restore"] == pyodide_site.RESTORE
    data = (runtime / snapshot["file"]).read_bytes()
    assert hashlib.sha256(data).hexdigest() == snapshot["sha256"]
    assert (runtime / snapshot["restore"]).exists()
    # the memory image starts at a multiple of 8 (Pyodide reads it through a Uint32Array)
    with gzip.open(runtime / snapshot["file"]) as bundle:
        (length,) = struct.unpack("<I", bundle.read(4))
    assert (4 + length) % 8 == 0, length


def test_the_page_and_the_worker_name_the_kept_snapshot_alike() -> None:
    """The page starts Python ahead of a click only where the worker has kept the snapshot
    unpacked: it looks for it under the cache name the worker gives it."""
    page = (Path(__file__).resolve().parents[1] / "_static" / "tcplab-inbrowser.js").read_text(
        encoding="utf-8"
    )
    worker = pyodide_site._WORKER_SOURCE.read_text(encoding="utf-8")
    pattern = re.compile(r'^\s*var KEPT = "([^"]+)";$', re.M)
    assert pattern.findall(page) == pattern.findall(worker) == ["tcplab-snapshot-"]
