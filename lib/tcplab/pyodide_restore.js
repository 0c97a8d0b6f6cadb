// The panels' Python restored from a memory snapshot: a start in a few seconds, not ten or more.
//
// Copied into _static/pyodide/ as tcplab-restore.js by tcplab.pyodide_site.write_snapshot; the
// Web Worker (tcplab-worker.js) loads it with importScripts, and pyodide_snapshot.mjs loads it
// under Node at build time to check the snapshot it has just made, with this very code.
//
// The snapshot (pyodide_snapshot.mjs makes it) is Pyodide's own (loadPyodide's experimental
// _makeSnapshot / makeMemorySnapshot / _loadSnapshot of 0.27): the interpreter's memory after
// numpy, pandas, altair and every panel's module were imported and one chart drawn. Pyodide
// restores the memory only; what lives outside it is rebuilt here, as it was when the snapshot
// was taken:
// * the compiled extension modules (numpy's and pandas' .so files, WebAssembly modules of their
//   own) are instantiated again before the memory is restored, in their original order, each at
//   its original memory and function-table address (emscripten's loadWebAssemblyModule reuses
//   them when it is given the library's "handle" marked as loaded, as it does for threads);
// * the files Python may still read (site-packages and the compiled modules in /pycache) are
//   written back into Pyodide's in-memory file system.
// Anything that does not match (a table of another size, a file missing) throws: the worker
// then starts Python the normal way.
//
// The bundle (after gunzip): a little-endian u32 n, n bytes of JSON {meta, entries: [[path,
// size], ...]} (padded with spaces so that what follows starts at a multiple of 8), then the
// entries' bytes one after another; the first entry is the snapshot.
/* exported tcplabRestore */
"use strict";

var tcplabRestore = (function () {
  function unpack(bytes) {
    var length = new DataView(bytes.buffer, bytes.byteOffset, 4).getUint32(0, true);
    var header = JSON.parse(new TextDecoder().decode(bytes.subarray(4, 4 + length)));
    var at = 4 + length;
    var files = {};
    header.entries.forEach(function (entry) {
      files[entry[0]] = bytes.subarray(at, at + entry[1]);
      at += entry[1];
    });
    if (at !== bytes.length) throw new Error("snapshot bundle: " + (bytes.length - at) + " bytes left over");
    var snapshot = files["snapshot.bin"];
    if (snapshot && snapshot.byteOffset % 8) {
      // Pyodide reads it through a Uint32Array (pyodide_snapshot.mjs pads the header)
      throw new Error("snapshot bundle: the snapshot starts at " + snapshot.byteOffset + ", not a multiple of 8");
    }
    return { meta: header.meta, files: files };
  }

  // the extension modules, at their recorded addresses: a preRun step of the new module,
  // after its wasm is instantiated and before Pyodide restores the memory; compiled (the
  // slow part) beforehand, all at once and off this thread as a normal start compiles them,
  // then instantiated here one by one in their original order
  function preload(module, meta, snapshot, compiled) {
    if (module.wasmTable.length !== meta.tableBefore) {
      throw new Error("function table " + module.wasmTable.length + ", not " + meta.tableBefore);
    }
    var heap = new DataView(snapshot.buffer, snapshot.byteOffset, 16).getUint32(4, true);
    meta.libs.forEach(function (lib, index) {
      // the library's handle (emscripten's struct dso: loaded, memory and table base) as it was
      module.HEAPU8.set(snapshot.subarray(heap + lib.handle, heap + lib.handle + 64), lib.handle);
      var dso = module.newDSO(lib.name, lib.handle, "loading");
      dso.refcount = Infinity;
      dso.global = lib.global;
      var flags = { loadAsync: false, nodelete: true, allowUndefined: true, global: lib.global };
      var scope = lib.global ? null : {};
      dso.exports = module.loadWebAssemblyModule(compiled[index], flags, lib.name, scope, lib.handle);
      if (lib.global) module.mergeLibSymbols(dso.exports, lib.name);
      var name = lib.name.split("/").pop();
      if (!module.LDSO.loadedLibsByName[name]) module.LDSO.loadedLibsByName[name] = dso;
    });
    if (module.wasmTable.length !== meta.tableAfter) {
      throw new Error("function table " + module.wasmTable.length + ", not " + meta.tableAfter);
    }
    Object.keys(meta.handles).forEach(function (handle) {
      var dso = module.LDSO.loadedLibsByName[meta.handles[handle]];
      if (!dso) throw new Error("no library " + meta.handles[handle] + " for handle " + handle);
      module.LDSO.loadedLibsByHandle[handle] = dso;
    });
  }

  // Python from the bundle's snapshot: loadPyodide and _createPyodideModule (pyodide.asm.js)
  // must be loaded. Resolves to the interpreter, checked to work; rejects on any mismatch.
  // progress(step), if given, hears "snapshot-memory" once the memory is restored.
  function start(loadPyodide, indexURL, bundle, progress) {
    var found = unpack(bundle);
    var meta = found.meta;
    var files = found.files;
    var snapshot = files["snapshot.bin"];
    if (!snapshot) throw new Error("snapshot bundle: no snapshot.bin");
    var create = globalThis._createPyodideModule;
    if (typeof create !== "function") throw new Error("pyodide.asm.js is not loaded");
    var compiled = Promise.all(
      meta.libs.map(function (lib) {
        if (!files[lib.name]) throw new Error("snapshot bundle: no " + lib.name);
        return WebAssembly.compile(files[lib.name]);
      })
    );
    var refuse;
    var ready = null; // the compiled extension modules
    // an error in a preRun step is caught and only logged by Pyodide's wasm loader (the start
    // would then wait forever): it rejects this instead
    var refused = new Promise(function (resolve, reject) {
      refuse = reject;
    });
    globalThis._createPyodideModule = function (settings) {
      globalThis._createPyodideModule = create;
      settings.preRun.unshift(function (module) {
        try {
          preload(module, meta, snapshot, ready);
        } catch (error) {
          refuse(error);
          throw error;
        }
      });
      return create(settings);
    };
    // compiled first: instantiated in a preRun step that waits for nothing, so that they
    // take the function table where they had it (a later step adds to it)
    var started = compiled.then(function (modules) {
      ready = modules;
      return loadPyodide({ indexURL: indexURL, _loadSnapshot: snapshot });
    });
    return Promise.race([started, refused])
      .finally(function () {
        globalThis._createPyodideModule = create;
      })
      .then(function (python) {
        if (progress) progress("snapshot-memory");
        // the files in one copy of their own (not the snapshot's memory image, which is
        // then free), each file a view of it that the file system keeps without copying
        var names = Object.keys(files).filter(function (path) {
          return path !== "snapshot.bin";
        });
        var first = names.length ? files[names[0]].byteOffset : 0;
        var last = names.length ? files[names[names.length - 1]] : null;
        var end = last ? last.byteOffset + last.length : 0;
        var own = new Uint8Array(bundle.buffer.slice(first, end));
        var made = {};
        names.forEach(function (path) {
          var folder = path.replace(/\/[^/]*$/, "");
          if (!made[folder]) {
            python.FS.mkdirTree(folder);
            made[folder] = true;
          }
          var data = files[path];
          var view = own.subarray(data.byteOffset - first, data.byteOffset - first + data.length);
          python.FS.writeFile(path, view, { canOwn: true });
        });
        var answer = python.runPython(meta.check);
        if (answer !== meta.answer) {
          throw new Error("the restored Python answered " + answer + ", not " + meta.answer);
        }
        return python;
      });
  }

  return { unpack: unpack, start: start };
})();
