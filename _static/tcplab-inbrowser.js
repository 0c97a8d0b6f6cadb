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
// The box's data-state says where it is: idle, loading, running, ready or failed.
(function () {
  "use strict";

  var here = document.currentScript && document.currentScript.src;
  var BASE = (here ? here.replace(/[^/]*$/, "") : "_static/") + "pyodide/";
  var runtime = null;
  // Pyodide waits forever for a wasm or stdlib it cannot fetch: they are asked for first
  var RUNTIME = ["pyodide.asm.js", "pyodide.asm.wasm", "python_stdlib.zip"];
  var START_LIMIT_MS = 180000; // a start that takes longer than this is given up

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

  function loadScript(src) {
    return new Promise(function (resolve, reject) {
      var tag = document.createElement("script");
      tag.src = src;
      tag.onload = resolve;
      tag.onerror = function () {
        reject(new Error("could not load " + src));
      };
      document.head.appendChild(tag);
    });
  }

  function say(box, text) {
    box.querySelector(".tcplab-inbrowser-status").textContent = text;
  }

  // Pyodide's loadPackage reports a file it cannot fetch (or whose hash is not the lock's)
  // and goes on: here that stops the start, so the page says it cannot run the panel
  function load(python, names) {
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

  // Pyodide, its packages and tcplab, once per page (every panel of the page shares them);
  // box.dataset.timings records when each step ended (ms after the click)
  function start(box) {
    if (runtime) return runtime;
    if (typeof WebAssembly !== "object") {
      return Promise.reject(new Error("this browser has no WebAssembly"));
    }
    var began = performance.now();
    var timings = {};
    var python;
    var manifest;
    function mark(step) {
      timings[step] = Math.round(performance.now() - began);
      box.dataset.timings = JSON.stringify(timings);
    }
    var files = [loadScript(BASE + "pyodide.js"), fetchManifest()].concat(RUNTIME.map(present));
    runtime = Promise.all(files)
      .then(function (found) {
        manifest = found[1];
        mark("files");
        say(box, "Starting Python (Pyodide) ...");
        return window.loadPyodide({ indexURL: BASE });
      })
      .then(function (loaded) {
        python = loaded;
        mark("python");
        say(box, "Loading numpy, pandas, altair and tcplab ...");
        var urls = manifest.wheels.map(function (name) {
          return BASE + "pypi/" + name;
        });
        return load(python, manifest.packages.concat(urls));
      })
      .then(function () {
        mark("packages");
        say(box, "Importing tcplab ...");
        window.tcplabPython = python; // the page's Python, for benchmarks and the curious
        var module = python.pyimport("tcplab.inbrowser");
        mark("import");
        return module;
      });
    runtime = limit(runtime, START_LIMIT_MS, "starting Python");
    runtime.catch(function () {
      runtime = null; // a later click may try again
    });
    return runtime;
  }

  function fetchManifest() {
    return fetch(BASE + "tcplab-inbrowser.json").then(function (response) {
      if (!response.ok) throw new Error("could not load tcplab-inbrowser.json");
      return response.json();
    });
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

  function redraw(box, module) {
    box.dataset.state = "running";
    say(box, "Running the model in your browser ...");
    // let the status paint before Python holds the page's thread
    return new Promise(function (resolve) {
      setTimeout(resolve, 30);
    }).then(function () {
      var started = performance.now();
      var html = module.chart_html(box.dataset.panel, JSON.stringify(values(box)));
      var view = box.querySelector(".tcplab-inbrowser-view");
      view.innerHTML = html;
      var chart = view.querySelector(".tcplab-chart");
      if (chart && typeof window.tcplabDrawChart === "function") window.tcplabDrawChart(chart);
      var took = performance.now() - started;
      var seconds = (took / 1000).toFixed(1);
      box.dataset.lastRunMs = String(Math.round(took)); // the model and the spec, in Python
      box.dataset.state = "ready";
      box.dataset.runs = String(+(box.dataset.runs || 0) + 1);
      say(box, "Ran in your browser in " + seconds + " s. Change a control to rerun the model.");
    });
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
      .then(function (module) {
        var controls = controlsOf(box);
        var view = document.createElement("div");
        view.className = "tcplab-inbrowser-view";
        button.replaceWith(controls);
        box.appendChild(view);
        controls.addEventListener("change", function () {
          redraw(box, module).catch(function (error) {
            failed(box, error);
          });
        });
        return redraw(box, module);
      })
      .catch(function (error) {
        button.disabled = false;
        failed(box, error);
      });
  }

  function setUp() {
    document.querySelectorAll(".tcplab-inbrowser").forEach(function (box) {
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
