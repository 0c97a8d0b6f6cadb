// The in-browser panels' Python, off the page's thread: Pyodide in a Web Worker.
//
// Copied into _static/pyodide/ as tcplab-worker.js by tcplab.pyodide_site.write_runtime (not
// into _static/ itself, where Jupyter Book would add it to every page as a script).
// tcplab-inbrowser.js starts this worker on the first click of "Run in your browser" and talks
// to it in messages; the page stays responsive (scrolling, reading, moving a slider) while
// Python starts and while a model runs.
//   page -> worker  {type: "start", base, packages, wheels, bytecode}: load Pyodide from base
//                   (the book's _static/pyodide/), its packages (checked against its lock
//                   file) and the wheels, unpack the modules compiled ahead (bytecode: their
//                   zip's URL, or null), then import tcplab.inbrowser
//   worker -> page  {type: "step", step}: a step of the start has ended (python, packages,
//                   bytecode when it was found, import); {type: "ready"} or
//                   {type: "failed", message} ends it
//   page -> worker  {type: "chart", id, panel, values} (tcplab.inbrowser.chart_html: the panel's
//                   chart as HTML) or {type: "python", id, code} (run code, for benchmarks);
//   worker -> page  {type: "done", id, value} or {type: "done", id, error}
"use strict";

var python = null;
var module = null;

function post(message) {
  self.postMessage(message);
}

// Pyodide's loadPackage reports a file it cannot fetch (or whose hash is not the lock's) and
// goes on: here that stops the start, so the page says it cannot run the panel
function load(names) {
  var problems = [];
  return python
    .loadPackage(names, {
      checkIntegrity: true,
      messageCallback: function () {},
      errorCallback: function (message) {
        problems.push(message);
      },
    })
    .then(function () {
      if (problems.length) throw new Error(problems.join("; "));
    });
}

// the modules compiled ahead (tcplab-pycache.zip, tcplab.pyodide_site.write_bytecode), where
// Python's sys.pycache_prefix finds them; without them (not served) Python compiles the
// sources as it imports them, as it always can, only slower
function bytecode(url) {
  return fetch(url)
    .then(function (response) {
      if (!response.ok) throw new Error(url + ": " + response.status);
      return response.arrayBuffer();
    })
    .then(function (buffer) {
      python.unpackArchive(buffer, "zip", { extractDir: "/pycache" });
      python.runPython("import sys\nsys.pycache_prefix = '/pycache'");
      post({ type: "step", step: "bytecode" });
    })
    .catch(function () {});
}

function start(message) {
  return Promise.resolve()
    .then(function () {
      try {
        importScripts(message.base + "pyodide.js");
      } catch (error) {
        throw new Error("could not load pyodide.js");
      }
      return self.loadPyodide({ indexURL: message.base });
    })
    .then(function (loaded) {
      python = loaded;
      post({ type: "step", step: "python" });
      return load(message.packages.concat(message.wheels));
    })
    .then(function () {
      post({ type: "step", step: "packages" });
      return message.bytecode ? bytecode(message.bytecode) : null;
    })
    .then(function () {
      module = python.pyimport("tcplab.inbrowser");
      post({ type: "step", step: "import" });
      post({ type: "ready" });
    });
}

function reason(error) {
  return String((error && error.message) || error);
}

self.onmessage = function (event) {
  var message = event.data;
  if (message.type === "start") {
    start(message).catch(function (error) {
      post({ type: "failed", message: reason(error) });
    });
    return;
  }
  try {
    var value =
      message.type === "chart"
        ? module.chart_html(message.panel, message.values)
        : python.runPython(message.code);
    post({ type: "done", id: message.id, value: value });
  } catch (error) {
    post({ type: "done", id: message.id, error: reason(error) });
  }
};
