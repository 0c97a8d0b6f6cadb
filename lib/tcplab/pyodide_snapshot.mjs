// The panels' Python as a memory snapshot, made at build time by the runtime the book ships
// (Pyodide under Node) and checked by restoring it in a fresh process with tcplab-restore.js,
// the code the reader's browser runs.
//
// Usage (tcplab.pyodide_site.write_snapshot):
//   node pyodide_snapshot.mjs make NPM RUNTIME OUT   writes OUT, the gzipped bundle
//   node pyodide_snapshot.mjs check NPM RUNTIME OUT  restores OUT and draws the panels' charts
// NPM is node_modules/pyodide (pyodide.mjs, the module Node loads), RUNTIME the book's
// _static/pyodide as write_runtime and write_bytecode filled it (tcplab-inbrowser.json names
// its packages and wheels; tcplab-restore.js is there).
//
// make: a normal start (packages, wheels, the bytecode archive), every chapter's panel module
// imported and one chart drawn (altair then has its schema loaded), then Pyodide's
// makeMemorySnapshot. Each extension module is loaded with a handle of its own, where
// emscripten records its memory and table base, so that a restore can put it back there. The
// bundle holds the snapshot, what the restore needs to know (meta), the files of site-packages
// and /pycache, and the charts of CHECKED drawn by this normal start.
// check: the bundle restored as the browser would, then each chart of CHECKED drawn again: each
// must be the same, byte for byte, as the normal start's, or this exits with an error.
import fs from "node:fs";
import path from "node:path";
import vm from "node:vm";
import zlib from "node:zlib";
import { pathToFileURL } from "node:url";

const [mode, npm, runtime, out] = process.argv.slice(2);
const manifest = JSON.parse(fs.readFileSync(path.join(runtime, "tcplab-inbrowser.json")));
const indexURL = runtime + path.sep;
//: panels whose default chart is drawn by both starts and compared (quick ones, one reading
//: a recorded table)
const CHECKED = [
  "tcplab.chapters.sawtooth.panel:sawtooth_spec",
  "tcplab.chapters.insensitivity.panel:example1_spec",
  "tcplab.chapters.lu.panel:tame_spec",
  "tcplab.chapters.bmc.panel:manager_spec",
];
const CHECK =
  "import numpy, pandas, tcplab.inbrowser\n" +
  "str(int(numpy.arange(10).sum()) + int(pandas.Series([1.5, 1.5]).sum()))";

await import(pathToFileURL(path.join(runtime, "pyodide.asm.js")).href);
const { loadPyodide } = await import(pathToFileURL(path.join(npm, "pyodide.mjs")).href);

function charts(python) {
  const inbrowser = python.pyimport("tcplab.inbrowser");
  const drawn = Object.fromEntries(CHECKED.map((target) => [target, inbrowser.chart_html(target, "{}")]));
  inbrowser.destroy();
  return drawn;
}

async function make() {
  const create = globalThis._createPyodideModule;
  let module = null;
  globalThis._createPyodideModule = (settings) => {
    settings.preRun.unshift((found) => {
      module = found;
    });
    return create(settings);
  };
  const python = await loadPyodide({ indexURL, _makeSnapshot: true });
  const tableBefore = module.wasmTable.length;
  const libs = [];
  const load = module.loadDynamicLibrary;
  module.loadDynamicLibrary = (name, flags, scope, handle) => {
    if (!handle && !module.LDSO.loadedLibsByName[name]) {
      handle = module.getMemory(64); // zeroed: emscripten fills in the library's bases
      libs.push({ name, handle, global: Boolean(flags.global) });
    }
    return load(name, flags, scope, handle);
  };
  const problems = [];
  await python.loadPackage(
    manifest.packages.concat(manifest.wheels.map((name) => path.join(runtime, "pypi", name))),
    { messageCallback: () => {}, errorCallback: (message) => problems.push(message) },
  );
  module.loadDynamicLibrary = load;
  if (problems.length) throw new Error(problems.join("; "));
  const tableAfter = module.wasmTable.length;
  const archive = fs.readFileSync(path.join(runtime, manifest.bytecode));
  python.unpackArchive(new Uint8Array(archive), "zip", { extractDir: "/pycache" });
  python.runPython(`
import importlib, pkgutil, sys
sys.pycache_prefix = "/pycache"
import tcplab.chapters
import tcplab.inbrowser
for found in pkgutil.iter_modules(tcplab.chapters.__path__):  # every chapter's panel
    for name in ("panel", "lawpanel"):
        if importlib.util.find_spec(f"tcplab.chapters.{found.name}.{name}") is not None:
            importlib.import_module(f"tcplab.chapters.{found.name}.{name}")
tcplab.inbrowser.chart_html("${CHECKED[0]}", "{}")
`);
  const answer = python.runPython(CHECK);
  const handles = {};
  for (const [handle, dso] of Object.entries(module.LDSO.loadedLibsByHandle)) {
    if (Number(handle)) handles[handle] = dso.name;
  }
  const paths = python.runPython(`
import os
found = []
for top in ("/lib/python3.12/site-packages", "/pycache"):
    for folder, subfolders, files in os.walk(top):
        subfolders.sort()
        found.extend(os.path.join(folder, name) for name in sorted(files))
"\\n".join(found)
`).split("\n");
  // Pyodide's snapshot expects nothing loaded by loadPackage (the restored Python does not
  // load packages again); its record of them is only JavaScript's
  for (const name of Object.keys(python.loadedPackages)) delete python.loadedPackages[name];
  const snapshot = python.makeMemorySnapshot();
  const expected = charts(python); // a normal start's charts, after the snapshot
  const meta = { libs, handles, tableBefore, tableAfter, check: CHECK, answer, expected };
  const entries = [["snapshot.bin", snapshot]].concat(
    paths.map((name) => [name, python.FS.readFile(name)]),
  );
  const json = JSON.stringify({ meta, entries: entries.map(([name, data]) => [name, data.length]) });
  // padded with spaces so that the snapshot starts at a multiple of 8: Pyodide reads it
  // through a Uint32Array, which needs its offset aligned
  const header = Buffer.from(json + " ".repeat((8 - ((4 + Buffer.byteLength(json)) % 8)) % 8));
  const length = Buffer.alloc(4);
  length.writeUInt32LE(header.length);
  const bundle = Buffer.concat([length, header, ...entries.map(([, data]) => data)]);
  fs.writeFileSync(out, zlib.gzipSync(bundle, { level: 6 }));
}

async function check() {
  vm.runInThisContext(fs.readFileSync(path.join(runtime, "tcplab-restore.js"), "utf8"));
  const bundle = new Uint8Array(zlib.gunzipSync(fs.readFileSync(out)));
  const { meta } = globalThis.tcplabRestore.unpack(bundle);
  const python = await globalThis.tcplabRestore.start(loadPyodide, indexURL, bundle);
  const drawn = charts(python);
  for (const target of CHECKED) {
    if (drawn[target] !== meta.expected[target]) {
      throw new Error(`${target}: the restored Python drew another chart than a normal start`);
    }
  }
}

if (mode === "make") await make();
else if (mode === "check") await check();
else throw new Error(`mode=${mode}: make or check`);
