// The in-browser panels' Python, compiled ahead: Python 3.12 bytecode for every module a
// panel's start imports, made at build time by the runtime the book ships (Pyodide under
// Node), so that a reader's browser does not compile it on every page.
//
// Usage (tcplab.pyodide_site.write_bytecode): node pyodide_bytecode.mjs NPM RUNTIME OUT
// NPM is node_modules/pyodide (its pyodide.mjs, the module Node loads), RUNTIME the book's
// _static/pyodide as write_runtime filled it from there (tcplab-inbrowser.json names its
// packages and wheels); OUT receives a zip of .pyc files laid out as Python's
// sys.pycache_prefix expects them under the prefix (lib/python3.12/site-packages/...), each
// "unchecked-hash" (PEP 552): used without looking at the source, which is the wheels of the
// same build. Entries are sorted and dated 1980, so the same runtime gives the same bytes.
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

const [npm, runtime, out] = process.argv.slice(2);
const manifest = JSON.parse(fs.readFileSync(path.join(runtime, "tcplab-inbrowser.json")));
const { loadPyodide } = await import(pathToFileURL(path.join(npm, "pyodide.mjs")).href);
const python = await loadPyodide({ indexURL: runtime + path.sep });
const problems = [];
await python.loadPackage(
  manifest.packages.concat(manifest.wheels.map((name) => path.join(runtime, "pypi", name))),
  { messageCallback: () => {}, errorCallback: (message) => problems.push(message) },
);
if (problems.length) throw new Error(problems.join("; "));
const zipped = python.runPython(`
import importlib, io, os, pkgutil, py_compile, sys, zipfile

import tcplab.chapters
import tcplab.inbrowser

for found in pkgutil.iter_modules(tcplab.chapters.__path__):  # every chapter's panel
    if importlib.util.find_spec(f"tcplab.chapters.{found.name}.panel") is not None:
        importlib.import_module(f"tcplab.chapters.{found.name}.panel")
sys.pycache_prefix = "/pycache"
site = "/lib/python3.12/site-packages/"
for module in list(sys.modules.values()):
    source = getattr(module, "__file__", None) or ""
    if source.startswith(site) and source.endswith(".py"):
        py_compile.compile(
            source, doraise=True, invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH
        )
packed = io.BytesIO()
with zipfile.ZipFile(packed, "w", zipfile.ZIP_DEFLATED) as archive:
    for folder, subfolders, files in sorted(os.walk("/pycache")):
        for name in sorted(files):
            full = os.path.join(folder, name)
            entry = zipfile.ZipInfo(os.path.relpath(full, "/pycache"), (1980, 1, 1, 0, 0, 0))
            entry.compress_type = zipfile.ZIP_DEFLATED
            with open(full, "rb") as pyc:
                archive.writestr(entry, pyc.read())
packed.getvalue()
`);
fs.writeFileSync(out, zipped.toJs());
zipped.destroy();
