// The in-browser panels' Python, off the page's thread: Pyodide in a Web Worker.
//
// Copied into _static/pyodide/ as tcplab-worker.js by tcplab.pyodide_site.write_runtime (not
// into _static/ itself, where Jupyter Book would add it to every page as a script).
// tcplab-inbrowser.js starts this worker on the first click of "Run in your browser" and talks
// to it in messages; the page stays responsive (scrolling, reading, moving a slider) while
// Python starts and while a model runs.
// Where the browser has shared workers, this is one: every page of the book open in the
// browser talks to the same Python (each through its own port), and, made with the option
// extendedLifetime (Chromium 148 on), it outlives the page that started it, so the next
// chapter's page finds Python running ({type: "step", step: "kept"}, then ready). Else it
// is the page's own worker, and each page starts Python again.
//   page -> worker  {type: "start", base, packages, wheels, bytecode, snapshot}: start Python
//                   from the memory snapshot (snapshot: {url, sha256, restore} or null;
//                   tcplab-restore.js), where that works; else load Pyodide from base (the
//                   book's _static/pyodide/), its packages (checked against its lock file) and
//                   the wheels, unpack the modules compiled ahead (bytecode: their zip's URL, or
//                   null); then import tcplab.inbrowser
//   worker -> page  {type: "step", step}: a step of the start has ended (snapshot when Python
//                   was restored from it, or snapshot-failed when that was tried and did not
//                   work; python, packages, bytecode when it was found; import);
//                   {type: "ready"} or {type: "failed", message} ends it
//   page -> worker  {type: "state"}: worker -> page {type: "state", state}: idle, starting or
//                   ready (whether a start would find Python running)
//   page -> worker  {type: "chart", id, panel, values} (tcplab.inbrowser.chart_html: the panel's
//                   chart as HTML) or {type: "python", id, code} (run code, for benchmarks);
//   worker -> page  {type: "done", id, value} or {type: "done", id, error}
"use strict";

var python = null;
var module = null;
var afterFirstChart = null; // what waits until the first chart has been sent
var starting = null; // the start under way, once a page has asked for it
var following = []; // the ports of the pages waiting for it: they hear each of its steps
var SHARED =
  typeof SharedWorkerGlobalScope === "function" && self instanceof SharedWorkerGlobalScope;

// a step of the start, told to every page that waits for it
function post(message) {
  following.forEach(function (port) {
    port.postMessage(message);
  });
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

function script(url) {
  try {
    importScripts(url);
  } catch (error) {
    throw new Error("could not load " + url.replace(/.*\//, ""));
  }
}

function hex(buffer) {
  return Array.from(new Uint8Array(buffer), function (byte) {
    return byte.toString(16).padStart(2, "0");
  }).join("");
}

// the bundle gunzipped, as the worker keeps it in the Cache Storage after its first start
// from it (a page of the book started later skips the download and the gunzip); tried only
// once the gzipped file checked, so a kept bundle is always that file's
var KEPT = "tcplab-snapshot-";

function kept(snapshot) {
  if (!self.caches) return Promise.resolve(null);
  return caches
    .open(KEPT + snapshot.sha256)
    .then(function (cache) {
      return cache.match(snapshot.url);
    })
    .then(function (hit) {
      return hit ? hit.arrayBuffer() : null;
    })
    .catch(function () {
      return null;
    });
}

function keep(snapshot, bundle) {
  if (!self.caches) return Promise.resolve();
  var name = KEPT + snapshot.sha256;
  return caches
    .keys()
    .then(function (names) {
      return Promise.all(
        names
          .filter(function (other) {
            return other.indexOf(KEPT) === 0 && other !== name;
          })
          .map(function (other) {
            return caches.delete(other);
          })
      );
    })
    .then(function () {
      return caches.open(name);
    })
    .then(function (cache) {
      return cache.put(snapshot.url, new Response(bundle));
    })
    .catch(function (error) {
      console.info("tcplab: the snapshot is not kept unpacked:", error);
    });
}

// the bundle from the site: gunzipped as it arrives (the download and the gunzip overlap),
// while the file as sent is checked against the manifest's sha256 (a file of another build,
// or a damaged one, is refused; gunzip checks its own CRC too)
function downloaded(snapshot) {
  return fetch(snapshot.url).then(function (response) {
    if (!response.ok || !response.body) throw new Error(snapshot.url + ": " + response.status);
    var both = response.body.tee();
    var checked = new Response(both[0])
      .arrayBuffer()
      .then(function (packed) {
        return crypto.subtle.digest("SHA-256", packed);
      })
      .then(function (digest) {
        if (hex(digest) !== snapshot.sha256) throw new Error("the snapshot's sha256 differs");
        post({ type: "step", step: "snapshot-file" });
      });
    var unpacked = new Response(both[1].pipeThrough(new DecompressionStream("gzip"))).arrayBuffer();
    return Promise.all([unpacked, checked]).then(function (done) {
      return done[0];
    });
  });
}

var SNAPSHOT_LIMIT_MS = 60000; // a restore that takes longer is given up for a normal start

// Python restored from the book's memory snapshot (tcplab-restore.js): the bundle (kept, or
// downloaded, checked against the manifest's sha256 and gunzipped), restored and checked to
// answer; any failure rejects, and the caller starts Python the normal way
function restored(message) {
  var snapshot = message.snapshot;
  var fresh = false;
  var work = kept(snapshot)
    .then(function (bundle) {
      if (bundle) return bundle;
      fresh = true;
      return downloaded(snapshot);
    })
    .then(function (bundle) {
      post({ type: "step", step: "snapshot-gunzip" });
      script(snapshot.restore);
      script(message.base + "pyodide.asm.js");
      return self.tcplabRestore
        .start(self.loadPyodide, message.base, new Uint8Array(bundle), function (step) {
          post({ type: "step", step: step });
        })
        .then(function (loaded) {
          // kept once it has worked, after the first chart (writing it would slow that down)
          if (fresh) afterFirstChart = function () { keep(snapshot, bundle); };
          return loaded;
        });
    });
  var timer;
  var late = new Promise(function (resolve, reject) {
    timer = setTimeout(function () {
      reject(new Error("the restore took over " + SNAPSHOT_LIMIT_MS / 1000 + " s"));
    }, SNAPSHOT_LIMIT_MS);
  });
  return Promise.race([work, late]).finally(function () {
    clearTimeout(timer);
  });
}

function full(message) {
  return self
    .loadPyodide({ indexURL: message.base })
    .then(function (loaded) {
      python = loaded;
      post({ type: "step", step: "python" });
      return load(message.packages.concat(message.wheels));
    })
    .then(function () {
      post({ type: "step", step: "packages" });
      return message.bytecode ? bytecode(message.bytecode) : null;
    });
}

function start(message) {
  return Promise.resolve()
    .then(function () {
      script(message.base + "pyodide.js");
      if (!message.snapshot) return full(message);
      return restored(message).then(
        function (loaded) {
          python = loaded;
          post({ type: "step", step: "snapshot" });
        },
        function (error) {
          console.warn("tcplab: no start from the snapshot, a normal start:", error);
          post({ type: "step", step: "snapshot-failed" });
          return full(message);
        }
      );
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

// a page asks for Python: it joins the start under way, or finds Python running (started
// for another page of the book), or starts it; a start that failed leaves nothing behind
// (a shared worker closes, so that the next page's click gets a new one)
function begin(port, message) {
  if (module) {
    port.postMessage({ type: "step", step: "kept" });
    port.postMessage({ type: "ready" });
    return;
  }
  following.push(port);
  if (starting) return;
  starting = start(message).then(
    function () {
      following = [];
    },
    function (error) {
      post({ type: "failed", message: reason(error) });
      following = [];
      starting = null;
      if (SHARED) self.close();
    }
  );
}

function answer(port, message) {
  if (message.type === "start") return begin(port, message);
  if (message.type === "state") {
    var state = module ? "ready" : starting ? "starting" : "idle";
    return port.postMessage({ type: "state", state: state });
  }
  try {
    var value =
      message.type === "chart"
        ? module.chart_html(message.panel, message.values)
        : python.runPython(message.code);
    port.postMessage({ type: "done", id: message.id, value: value });
  } catch (error) {
    port.postMessage({ type: "done", id: message.id, error: reason(error) });
  }
  if (afterFirstChart && message.type === "chart") {
    var then = afterFirstChart;
    afterFirstChart = null;
    setTimeout(then, 0); // after the chart has been sent
  }
}

if (SHARED) {
  self.onconnect = function (event) {
    var port = event.ports[0];
    port.onmessage = function (message) {
      answer(port, message.data);
    };
  };
} else {
  self.onmessage = function (event) {
    answer(self, event.data);
  };
}
