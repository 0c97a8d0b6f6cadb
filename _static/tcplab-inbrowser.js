// "Run in your browser": a live panel run by Python in the page (Pyodide), from this site only.
//
// A panel that can run here is a <div class="tcplab-inbrowser"> written by tcplab.widgets,
// with the import path of its spec (data-panel) and its controls (data-controls: sliders,
// number boxes, drop-downs, text fields). A click
// loads Pyodide from _static/pyodide/ (tcplab.pyodide_site puts it there at build time),
// the official numpy and pandas (checked against Pyodide's lock file), the pure wheels and
// tcplab's own wheel, builds the sliders, and asks tcplab.inbrowser.chart_html for the chart:
// the same model and chart code as the notebook's panel. Moving a slider reruns it. Where it
// cannot run (no WebAssembly, a file missing), one line points to the Binder launch.
// Python runs in a Web Worker (tcplab-worker.js), so the page stays responsive while it starts
// and while a model runs. The box's data-state says where it is: idle, loading, running,
// ready or failed.
// A page with a panel registers the book's service worker (tcplab-sw.js in the book's root,
// written by tcplab.pyodide_site), which keeps the runtime in the reader's browser after the
// first start, so that a reader downloads it once; data-cache says whether it served this start.
// Python starts from the memory snapshot the book ships where it can (tcplab-worker.js), else
// the normal way; where the browser has shared workers that outlive a page, the next page of
// the book finds it running; data-start says which: snapshot, full or kept.
(function () {
  "use strict";

  var here = document.currentScript && document.currentScript.src;
  var BASE = (here ? here.replace(/[^/]*$/, "") : "_static/") + "pyodide/";
  var runtime = null;
  // Pyodide waits forever for a wasm or stdlib it cannot fetch: they are asked for first
  var RUNTIME = [
    "tcplab-worker.js",
    "pyodide.js",
    "pyodide.asm.js",
    "pyodide.asm.wasm",
    "python_stdlib.zip",
  ];
  var START_LIMIT_MS = 180000; // a start that takes longer than this is given up
  var ROOT = here ? here.replace(/_static\/[^/]*$/, "") : null; // the book's root
  var CONTROL_WAIT_MS = 3000; // how long a start waits for the service worker to take the page

  // the service worker that keeps the runtime (not on file:// or plain http to another host,
  // where browsers have none; the panels then work as before, downloading it on each start)
  var registered = null;
  function register() {
    if (!ROOT || !("serviceWorker" in navigator) || !window.isSecureContext) return;
    registered = navigator.serviceWorker.register(ROOT + "tcplab-sw.js").catch(function (error) {
      registered = null;
      console.info("tcplab: no service worker, the runtime is not kept:", error);
    });
  }

  // resolves once the service worker controls the page (its first start on a first visit
  // then goes through it), or after CONTROL_WAIT_MS: a start never waits longer for it
  function controlled() {
    if (!registered || navigator.serviceWorker.controller) return Promise.resolve();
    return Promise.race([
      new Promise(function (resolve) {
        navigator.serviceWorker.addEventListener("controllerchange", resolve, { once: true });
      }),
      new Promise(function (resolve) {
        setTimeout(resolve, CONTROL_WAIT_MS);
      }),
    ]);
  }

  function present(name) {
    return fetch(BASE + name, { method: "HEAD" }).then(
      function (response) {
        if (!response.ok) throw new Error("could not load " + name);
      },
      function () {
        throw new Error("could not load " + name);
      }
    );
  }

  function limit(promise, ms, what) {
    return Promise.race([
      promise,
      new Promise(function (resolve, reject) {
        setTimeout(function () {
          reject(new Error(what + " took over " + ms / 1000 + " s"));
        }, ms);
      }),
    ]);
  }

  function say(box, text) {
    box.querySelector(".tcplab-inbrowser-status").textContent = text;
  }

  // the worker Python runs in (tcplab-worker.js, from tcplab.pyodide_site): where the browser
  // has shared workers, one for every page of the book (named after the runtime's manifest,
  // so a page of another build never talks to it) that outlives the page that started it
  // (extendedLifetime: the next chapter finds Python running); else the page's own worker.
  // worker.port carries the messages; worker.close() lets it go.
  var worker = null;
  var listener = null; // what the worker's steps and its ready or failed go to
  var pending = {}; // the calls waiting for the worker's answer, by id
  var next = 0;

  function identity(manifest) {
    var text = JSON.stringify(manifest);
    var hash = 2166136261; // FNV-1a, 32 bits
    for (var i = 0; i < text.length; i++) {
      hash = Math.imul(hash ^ text.charCodeAt(i), 16777619) >>> 0;
    }
    return hash.toString(16);
  }

  function connect(manifest) {
    if (worker) return worker;
    var url = BASE + "tcplab-worker.js";
    var made;
    if (typeof SharedWorker === "function") {
      made = new SharedWorker(url, {
        name: "tcplab-python-" + identity(manifest) + " " + BASE, // a name has one script
        extendedLifetime: true,
      });
      worker = { port: made.port, close: function () { made.port.close(); } };
    } else {
      made = new Worker(url);
      worker = { port: made, close: function () { made.terminate(); } };
    }
    // a worker that could not start (its script missing) is dropped: the next start makes
    // another
    var madeFor = worker;
    made.onerror = function (event) {
      if (event.preventDefault) event.preventDefault();
      if (worker === madeFor) worker = null;
      var why = event.message || "could not start the Python worker";
      if (listener) listener({ type: "failed", message: why });
    };
    worker.port.onmessage = function (event) {
      var message = event.data;
      if (message.type === "done") {
        var waiting = pending[message.id];
        delete pending[message.id];
        if ("error" in message) waiting.failed(new Error(message.error));
        else waiting.done(message.value);
      } else if (listener) {
        listener(message);
      }
    };
    return worker;
  }

  function call(message) {
    return new Promise(function (done, failed) {
      message.id = next++;
      pending[message.id] = { done: done, failed: failed };
      worker.port.postMessage(message);
    });
  }

  // whether the book's Python is running already (another page started it): idle, starting
  // or ready; idle where the browser has no shared workers
  function state(manifest) {
    if (typeof SharedWorker !== "function") return Promise.resolve("idle");
    connect(manifest);
    return new Promise(function (resolve) {
      listener = function (message) {
        if (message.type !== "state" && message.type !== "failed") return;
        listener = null;
        resolve(message.type === "state" ? message.state : "idle");
      };
      worker.port.postMessage({ type: "state" });
    });
  }

  // Python started (or found running) with the runtime's files: it reports each step of its
  // start (onStep) and resolves to call(message) -> a promise of the worker's answer, once
  // tcplab is imported
  function spawn(manifest, onStep) {
    return new Promise(function (resolve, reject) {
      connect(manifest);
      listener = function (message) {
        if (message.type === "step") onStep(message.step);
        else if (message.type === "ready") resolve(call);
        else if (message.type === "failed") reject(new Error(message.message));
      };
      worker.port.postMessage({
        type: "start",
        base: BASE,
        packages: manifest.packages,
        wheels: manifest.wheels.map(function (name) {
          return BASE + "pypi/" + name;
        }),
        bytecode: manifest.bytecode ? BASE + manifest.bytecode : null,
        snapshot: manifest.snapshot
          ? {
              url: BASE + manifest.snapshot.file,
              sha256: manifest.snapshot.sha256,
              restore: BASE + manifest.snapshot.restore,
            }
          : null,
      });
    });
  }

  var NEXT_STEP = {
    python: "Loading numpy, pandas, altair and tcplab ...",
    packages: "Importing tcplab ...",
  };

  // the box whose start a reader asked for: the start's status line and timings are shown
  // there (none while Python starts ahead of a click, see prestart)
  var owner = null;
  var timings = {};
  // where the runtime came from (cache: service-worker or none) and how Python started
  // (start: snapshot, full, or kept: found running); run() shows them on the box the reader
  // clicked
  var source = {};

  // Pyodide, its packages and tcplab in a Web Worker, once per page (every panel of the page
  // shares it; the pages of the book share a shared worker's); box.dataset.timings records
  // when each step ended (ms after the click, or after the start ahead of it:
  // data-prestarted). box is null for a start ahead of a click.
  function start(box) {
    if (box && !owner) {
      owner = box;
      box.dataset.timings = JSON.stringify(timings);
      if (runtime) {
        box.dataset.prestarted = "true";
        say(box, "Starting Python (Pyodide) ...");
      }
    }
    if (runtime) return runtime;
    if (typeof WebAssembly !== "object") {
      return Promise.reject(new Error("this browser has no WebAssembly"));
    }
    if (typeof Worker !== "function") {
      return Promise.reject(new Error("this browser has no Web Workers"));
    }
    var began = performance.now();
    function mark(step) {
      timings[step] = Math.round(performance.now() - began);
      if (owner) owner.dataset.timings = JSON.stringify(timings);
    }
    function tell(text) {
      if (owner) say(owner, text);
    }
    runtime = controlled()
      .then(function () {
        source.cache = navigator.serviceWorker && navigator.serviceWorker.controller
          ? "service-worker" : "none";
        return Promise.all([fetchManifest()].concat(RUNTIME.map(present)));
      })
      .then(function (found) {
        mark("files");
        tell("Starting Python (Pyodide) ...");
        source.start = "full";
        return spawn(found[0], function (step) {
          mark(step);
          if (step === "snapshot" || step === "kept") source.start = step;
          if (NEXT_STEP[step]) tell(NEXT_STEP[step]);
        });
      })
      .then(function (call) {
        // the page's Python, for benchmarks and the curious: run(code) -> a promise of its value
        window.tcplabPython = {
          run: function (code) {
            return call({ type: "python", code: code });
          },
        };
        return call;
      });
    runtime = limit(runtime, START_LIMIT_MS, "starting Python");
    runtime.catch(function () {
      runtime = null; // a later click may try again, with a new worker
      timings = {};
      listener = null;
      if (worker) worker.close();
      worker = null;
    });
    return runtime;
  }

  // Python started ahead of a click; body's data-tcplab-python says how far it is:
  // prestarted, then ready or failed (a click tries again)
  function early() {
    if (runtime) return;
    var body = document.body.dataset;
    body.tcplabPython = "prestarted";
    start(null).then(
      function () {
        body.tcplabPython = "ready";
      },
      function () {
        body.tcplabPython = "failed";
      }
    );
  }

  // A page opened while the book's Python runs (a shared worker another page started, kept
  // alive by the browser across the move from one chapter to the next) joins it at once: it
  // costs nothing, and a click finds the panel ready. Else, a reader who has run a panel of
  // the book in this browser before (the worker then kept the memory snapshot unpacked, under
  // the name it gives it: tcplab-worker.js's KEPT) has the page's Python started as soon as a
  // panel comes within a screen of being seen: that start downloads nothing (the runtime and
  // the snapshot are kept) and costs a second or two of a core. Not on a first visit (a start
  // downloads ~55 MB: only on a click), nor where the browser reports under 4 GB of memory.
  var KEPT = "tcplab-snapshot-";
  function kept(snapshot) {
    var name = KEPT + snapshot.sha256; // the worker opens it before it writes the bundle
    return caches.has(name).then(function (has) {
      if (!has) return false;
      return caches.open(name).then(function (cache) {
        return cache.match(BASE + snapshot.file).then(Boolean);
      });
    });
  }
  function whenNear(boxes) {
    var near = new IntersectionObserver(
      function (entries) {
        if (!entries.some(function (entry) { return entry.isIntersecting; })) return;
        near.disconnect();
        early();
      },
      { rootMargin: "100% 0px" }
    );
    boxes.forEach(function (box) {
      near.observe(box);
    });
  }
  function prestart(boxes) {
    fetchManifest()
      .then(function (manifest) {
        return state(manifest).then(function (now) {
          if (now !== "idle") return early();
          if (!window.caches || typeof IntersectionObserver !== "function") return;
          if (navigator.deviceMemory && navigator.deviceMemory < 4) return;
          if (!manifest.snapshot) return;
          return kept(manifest.snapshot).then(function (has) {
            if (has) whenNear(boxes);
          });
        });
      })
      .catch(function () {});
  }

  // the runtime's manifest, fetched once per page (a failed fetch is tried again)
  var manifestOnce = null;
  function fetchManifest() {
    if (!manifestOnce) {
      manifestOnce = fetch(BASE + "tcplab-inbrowser.json").then(function (response) {
        if (!response.ok) throw new Error("could not load tcplab-inbrowser.json");
        return response.json();
      });
      manifestOnce.catch(function () {
        manifestOnce = null;
      });
    }
    return manifestOnce;
  }

  function shown(control, raw) {
    var value = control.kind === "log2" ? Math.pow(2, raw) : raw;
    var digits = /^\.(\d)f$/.exec(control.readout || ""); // ".3f": the widget's format
    if (digits) return value.toFixed(+digits[1]);
    return control.kind === "int" ? String(Math.round(value)) : String(+value.toPrecision(3));
  }

  // a control of the spec (tcplab.panels.Control): a slider with its readout, a number box,
  // a drop-down or a text field; input.tcplabControl keeps the spec's control
  function fieldOf(control) {
    var input;
    if (control.kind === "choice") {
      input = document.createElement("select");
      control.options.forEach(function (option) {
        var item = document.createElement("option");
        item.value = item.textContent = option;
        input.appendChild(item);
      });
    } else {
      input = document.createElement("input");
      input.type = { text: "text", number: "number" }[control.kind] || "range";
      if (control.kind !== "text") {
        input.min = control.min;
        input.max = control.max;
        input.step = control.kind === "number" ? 1 : control.step;
      }
    }
    input.name = control.name;
    input.value = control.kind === "log2" ? Math.log2(control.value) : control.value;
    input.tcplabControl = control;
    return input;
  }

  function controlsOf(box) {
    var panel = document.createElement("div");
    panel.className = "tcplab-inbrowser-controls";
    var fields = {};
    JSON.parse(box.dataset.controls).forEach(function (control) {
      var label = document.createElement("label");
      var input = fieldOf(control);
      fields[control.name] = input;
      label.append(control.label + " ", input);
      if (input.type === "range") {
        var output = document.createElement("output");
        output.textContent = shown(control, +input.value);
        input.addEventListener("input", function () {
          output.textContent = shown(control, +input.value);
        });
        label.append(" ", output);
      }
      panel.appendChild(label);
    });
    // a control with "when" acts only while its drop-down shows that value
    Object.keys(fields).forEach(function (name) {
      var when = fields[name].tcplabControl.when;
      if (!when) return;
      var menu = fields[when[0]];
      var follow = function () {
        fields[name].disabled = menu.value !== when[1];
      };
      menu.addEventListener("change", follow);
      follow();
    });
    return panel;
  }

  function values(box) {
    var found = {};
    box.querySelectorAll(".tcplab-inbrowser-controls [name]").forEach(function (input) {
      var control = input.tcplabControl;
      if (control.kind === "choice" || control.kind === "text") {
        found[control.name] = input.value;
        return;
      }
      var raw = +input.value;
      found[control.name] = control.kind === "log2" ? Math.pow(2, raw) : raw;
    });
    return found;
  }

  // one run at a time per panel, in the worker; controls moved while it runs ask for one
  // more run, with the values they have when it ends (a slider dragged across its range
  // does not queue a run per step)
  function redraw(box, call) {
    if (box.tcplabRunning) {
      box.tcplabAgain = true;
      return box.tcplabRunning;
    }
    box.dataset.state = "running";
    say(box, "Running the model in your browser ...");
    var started = performance.now();
    var asked = { type: "chart", panel: box.dataset.panel, values: JSON.stringify(values(box)) };
    box.tcplabRunning = call(asked).then(
      function (html) {
        var view = box.querySelector(".tcplab-inbrowser-view");
        view.innerHTML = html;
        var chart = view.querySelector(".tcplab-chart");
        if (chart && typeof window.tcplabDrawChart === "function") window.tcplabDrawChart(chart);
        var took = performance.now() - started;
        box.dataset.lastRunMs = String(Math.round(took)); // the model and the spec, in Python
        box.dataset.runs = String(+(box.dataset.runs || 0) + 1);
        box.tcplabRunning = null;
        if (box.tcplabAgain) {
          box.tcplabAgain = false;
          return redraw(box, call);
        }
        var refused = view.querySelector(".tcplab-panel-error");
        if (refused) {
          // the model refused the controls' values: say so, never "Ran"
          box.dataset.state = "refused";
          say(box, "The model did not run (" + refused.textContent.replace(/^error: /, "") +
              "). Change a control to try again.");
          return;
        }
        box.dataset.state = "ready";
        var seconds = (took / 1000).toFixed(1);
        say(box, "Ran in your browser in " + seconds + " s. Change a control to rerun the model.");
      },
      function (error) {
        box.tcplabRunning = null;
        box.tcplabAgain = false;
        throw error;
      }
    );
    return box.tcplabRunning;
  }

  function failed(box, error) {
    box.dataset.state = "failed";
    var binder = document.querySelector('a[href*="mybinder.org"]');
    var status = box.querySelector(".tcplab-inbrowser-status");
    // a Python error's message is its whole traceback: its last line says what went wrong
    var why = String((error && error.message) || error).trim().split("\n").pop();
    status.textContent = "This browser could not run the panel (" + why + "): use the Binder launch";
    if (binder) {
      var link = document.createElement("a");
      link.href = binder.href;
      link.textContent = "Binder";
      status.append(" (", link, ")");
    } else {
      status.append(" (the rocket icon at the top of the page)");
    }
    status.append(" for a full Jupyter kernel.");
    console.warn("tcplab: in-browser panel failed:", error);
  }

  function run(box) {
    var button = box.querySelector(".tcplab-inbrowser-run");
    button.disabled = true;
    box.dataset.state = "loading";
    start(box)
      .then(function (call) {
        box.dataset.cache = source.cache;
        box.dataset.start = source.start;
        var controls = controlsOf(box);
        var view = document.createElement("div");
        view.className = "tcplab-inbrowser-view";
        button.replaceWith(controls);
        box.appendChild(view);
        controls.addEventListener("change", function () {
          redraw(box, call).catch(function (error) {
            failed(box, error);
          });
        });
        return redraw(box, call);
      })
      .catch(function (error) {
        button.disabled = false;
        failed(box, error);
      });
  }

  function setUp() {
    var boxes = document.querySelectorAll(".tcplab-inbrowser");
    if (boxes.length) {
      register();
      prestart(boxes);
    }
    boxes.forEach(function (box) {
      box.dataset.state = "idle";
      var button = box.querySelector(".tcplab-inbrowser-run");
      if (button) {
        button.addEventListener("click", function () {
          run(box);
        });
      }
    });
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", setUp);
  } else {
    setUp();
  }
})();
