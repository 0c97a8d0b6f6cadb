// Draws every tcplab chart on the page with the vega-embed served from _static (no CDN).
// A chart is a <div class="tcplab-chart"> whose Vega-Lite spec sits in a JSON script tag.
//
// Charts fit their column at any width. A chart is drawn as written; if it is wider than its
// column, its panels first get narrower, as long as each stays at least READABLE_VIEW_WIDTH
// wide (two trial draws give the chart's fixed part - axes, legends, labels - and the part
// that scales); then a grid of side-by-side views keeps its reading order in fewer columns
// (three, then two), each tried with narrower panels too; only then are the panels stacked
// (facets wrap into fewer columns, side-by-side views go one under the other) and every
// view's width shrinks until the whole chart fits. Only
// a chart that still does not fit is scaled down as a picture; data-fit-scale records by how
// much. Charts are redrawn when their column changes width, and with dark colours (from the
// spec's usermeta, written by tcplab.charts) when the reader switches the page to dark mode.
// Each chart's SVG gets an accessible name (the spec's description, else the figure caption)
// and the export menu a label.
(function () {
  "use strict";

  var MIN_VIEW_WIDTH = 120; // narrower than this, a plot is no longer readable
  // panels kept side by side are never made narrower than this: below it, fewer columns
  var READABLE_VIEW_WIDTH = 150;
  var FACET_GAP = 24; // room between wrapped panels, besides their own axes

  function isDark() {
    return document.documentElement.dataset.theme === "dark";
  }

  function clone(value) {
    return JSON.parse(JSON.stringify(value));
  }

  // ---- colours for dark mode -------------------------------------------------------------

  function darken(spec) {
    var map = (spec.usermeta && spec.usermeta.tcplab && spec.usermeta.tcplab.dark) || {};
    var text = JSON.stringify(spec);
    Object.keys(map).forEach(function (light) {
      text = text.split(light).join(map[light]);
      text = text.split(light.toLowerCase()).join(map[light]);
    });
    return JSON.parse(text);
  }

  // ---- the shapes a spec can take --------------------------------------------------------

  function isView(spec) {
    return spec && typeof spec === "object" && ("mark" in spec || "layer" in spec);
  }

  function baseWidth(spec, config) {
    if (typeof spec.width === "number") return spec.width;
    var view = (config && config.view) || {};
    return view.continuousWidth || view.width || 300;
  }

  // Stack what sits side by side: a facet by columns wraps into `columns` columns, a
  // horizontal concatenation becomes vertical, a wrapped concatenation gets fewer columns.
  function stack(spec, columns) {
    var changed = false;
    if (spec.facet && spec.facet.column && spec.facet.row) {
      // a grid of rows and columns: one panel per (row, column) pair, wrapped, in the
      // grid's reading order (the row's then the column's sort of the spec, else as found)
      var row = spec.facet.row;
      var col = spec.facet.column;
      var sortOf = function (f) { return Array.isArray(f.sort) ? f.sort.map(String) : null; };
      var rows = sortOf(row);
      var cols = sortOf(col);
      var key = function (f, list) {
        var value = "datum[" + JSON.stringify(f.field) + "]";
        return list ? "indexof(" + JSON.stringify(list) + ", '' + " + value + ")" : "0";
      };
      spec.transform = (spec.transform || []).concat([
        {
          calculate: "'' + datum[" + JSON.stringify(row.field) + "] + ', ' + datum[" +
            JSON.stringify(col.field) + "]",
          as: "__panel",
        },
        { calculate: key(row, rows) + " * 1000 + " + key(col, cols), as: "__order" },
      ]);
      spec.facet = {
        field: "__panel",
        type: "nominal",
        title: null,
        sort: { field: "__order", op: "min" },
        header: { labelAngle: 0, labelAnchor: "start" },
      };
      spec.columns = columns;
      changed = true;
    } else if (spec.facet && spec.facet.column && !spec.facet.row) {
      var field = spec.facet.column;
      spec.facet = field;
      spec.columns = columns;
      changed = true;
    } else if (spec.facet && !spec.facet.row && !spec.facet.column && spec.facet.field) {
      if (!spec.columns || spec.columns > columns) {
        spec.columns = columns;
        changed = true;
      }
    } else if (isView(spec) && spec.encoding && spec.encoding.column && !spec.encoding.row) {
      spec.encoding.facet = spec.encoding.column;
      delete spec.encoding.column;
      spec.columns = columns;
      changed = true;
    } else if (isView(spec) && spec.encoding && spec.encoding.facet) {
      if (!spec.columns || spec.columns > columns) {
        spec.columns = columns;
        changed = true;
      }
    } else if (spec.hconcat) {
      spec.vconcat = spec.hconcat;
      delete spec.hconcat;
      changed = true;
    } else if (spec.concat) {
      if (!spec.columns || spec.columns > columns) {
        spec.columns = columns;
        changed = true;
      }
    }
    ["vconcat", "concat"].forEach(function (key) {
      (spec[key] || []).forEach(function (child) {
        changed = stack(child, columns) || changed;
      });
    });
    return changed;
  }

  // The most views a row of the spec puts side by side (its longest horizontal concatenation).
  function mostSideBySide(spec) {
    var most = 1;
    (function visit(node) {
      if (!node || typeof node !== "object") return;
      if (Array.isArray(node)) return node.forEach(visit);
      if (Array.isArray(node.hconcat)) most = Math.max(most, node.hconcat.length);
      if (Array.isArray(node.concat)) {
        most = Math.max(most, Math.min(node.columns || node.concat.length, node.concat.length));
      }
      ["vconcat", "hconcat", "concat"].forEach(function (key) {
        if (key in node) visit(node[key]);
      });
    })(spec);
    return most;
  }

  // Put the side-by-side views in at most `columns` columns, in their reading order: a
  // vertical concatenation of rows of equal length (a grid, e.g. 2 x 3) becomes one wrapped
  // concatenation (3 x 2), a longer row wraps. Returns whether anything changed.
  function regrid(spec, columns) {
    var changed = false;
    if (Array.isArray(spec.vconcat) && spec.vconcat.length > 1) {
      var rows = spec.vconcat;
      var length = Array.isArray(rows[0].hconcat) ? rows[0].hconcat.length : 0;
      var grid = length > columns && rows.every(function (row) {
        return Array.isArray(row.hconcat) && row.hconcat.length === length &&
          Object.keys(row).length === 1;
      });
      if (grid) {
        spec.concat = [].concat.apply([], rows.map(function (row) { return row.hconcat; }));
        spec.columns = columns;
        delete spec.vconcat;
        return true;
      }
    }
    if (Array.isArray(spec.hconcat) && spec.hconcat.length > columns) {
      spec.concat = spec.hconcat;
      spec.columns = columns;
      delete spec.hconcat;
      changed = true;
    } else if (Array.isArray(spec.concat) && (spec.columns || spec.concat.length) > columns) {
      spec.columns = columns;
      changed = true;
    }
    ["vconcat", "hconcat", "concat"].forEach(function (key) {
      (spec[key] || []).forEach(function (child) {
        changed = regrid(child, columns) || changed;
      });
    });
    return changed;
  }

  // The width of the narrowest view with a width of its own (Infinity when none has one),
  // leaving out views narrower than READABLE_VIEW_WIDTH by design (a side strip).
  function narrowestView(spec, config) {
    var narrowest = Infinity;
    (function visit(node) {
      if (!node || typeof node !== "object") return;
      if (Array.isArray(node)) return node.forEach(visit);
      if (isView(node)) {
        var own = baseWidth(node, config);
        if (!(node.width && typeof node.width === "object") && own >= READABLE_VIEW_WIDTH) {
          narrowest = Math.min(narrowest, own);
        }
        return;
      }
      ["spec", "vconcat", "hconcat", "concat"].forEach(function (key) {
        if (key in node) visit(node[key]);
      });
    })(spec);
    return narrowest;
  }

  // Legends below the chart wrap into as many columns as fit, one legend under the other.
  function wrapLegends(spec, room) {
    spec.config = spec.config || {};
    var legend = Object.assign({}, spec.config.legend || {});
    var columns = Math.max(1, Math.floor((room - 20) / 170));
    if (legend.columns && legend.columns <= columns) return false;
    legend.columns = columns;
    legend.labelLimit = Math.max(120, Math.min(legend.labelLimit || 320, room - 40));
    legend.layout = { bottom: { anchor: "start", direction: "vertical" } };
    spec.config.legend = legend;
    // legends a chart sets on its own encodings win over the config: cap their columns too
    (function visit(node) {
      if (!node || typeof node !== "object") return;
      if (Array.isArray(node)) return node.forEach(visit);
      var own = node.legend;
      if (own && typeof own === "object" && own.columns > columns) own.columns = columns;
      Object.keys(node).forEach(function (key) {
        if (key !== "data" && key !== "datasets" && key !== "config") visit(node[key]);
      });
    })(spec);
    return true;
  }

  // Titles longer than the room break into lines, at spaces.
  function wrapTitles(spec, room) {
    var config = spec.config || {};
    var size = (config.title && config.title.fontSize) || 13;
    var perLine = Math.max(12, Math.floor((room - 16) / (size * 0.6)));
    var changed = false;
    function lines(text) {
      var out = [];
      var line = "";
      text.split(" ").forEach(function (word) {
        if (line && (line + " " + word).length > perLine) {
          out.push(line);
          line = word;
        } else {
          line = line ? line + " " + word : word;
        }
      });
      if (line) out.push(line);
      return out;
    }
    // a title given as lines keeps its breaks; a line still too long breaks again
    function wrapped(text) {
      if (typeof text === "string") return text.length > perLine ? lines(text) : null;
      if (!Array.isArray(text)) return null;
      var long = text.some(function (line) {
        return typeof line === "string" && line.length > perLine;
      });
      if (!long) return null;
      return text.reduce(function (out, line) {
        return out.concat(typeof line === "string" && line.length > perLine ? lines(line) : [line]);
      }, []);
    }
    function visit(node) {
      if (!node || typeof node !== "object" || Array.isArray(node)) return;
      var title = node.title;
      var text = title && typeof title === "object" && !Array.isArray(title) ? title.text : title;
      var broken = wrapped(text);
      if (broken) {
        if (text === title) node.title = broken;
        else title.text = broken;
        changed = true;
      }
      ["spec", "vconcat", "hconcat", "concat", "layer"].forEach(function (key) {
        var child = node[key];
        if (Array.isArray(child)) child.forEach(visit);
        else visit(child);
      });
    }
    visit(spec);
    return changed;
  }

  // How many panels of the chart's views fit side by side in `available` pixels.
  function columnsFor(spec, config, available) {
    var inner = spec.spec || spec;
    var width = baseWidth(inner, config);
    return Math.max(1, Math.floor((available - 60) / (Math.min(width, available) + FACET_GAP)));
  }

  // The width of the widest view in the spec (0 when no view has a width of its own).
  function widestView(spec, config) {
    var widest = 0;
    (function visit(node) {
      if (!node || typeof node !== "object") return;
      if (Array.isArray(node)) return node.forEach(visit);
      if (isView(node)) {
        widest = Math.max(widest, baseWidth(node, config));
        return;
      }
      ["spec", "vconcat", "hconcat", "concat"].forEach(function (key) {
        if (key in node) visit(node[key]);
      });
    })(spec);
    return widest;
  }

  // Multiply the width of every view in the spec by `factor` (never below MIN_VIEW_WIDTH).
  function scaleWidths(spec, config, factor) {
    function visit(node, isTop) {
      if (!node || typeof node !== "object") return;
      if (Array.isArray(node)) {
        node.forEach(function (child) {
          visit(child, false);
        });
        return;
      }
      if (isView(node) && !node.__scaled) {
        if (node.width && typeof node.width === "object" && node.width.step) {
          node.width.step = Math.max(4, node.width.step * factor);
        } else if (node.width !== "container") {
          node.width = Math.max(MIN_VIEW_WIDTH, Math.round(baseWidth(node, config) * factor));
        }
        node.__scaled = true;
      }
      ["spec", "vconcat", "hconcat", "concat", "layer"].forEach(function (key) {
        if (key in node && !(key === "layer" && isView(node))) visit(node[key], false);
      });
      if (isTop) clean(node);
    }
    function clean(node) {
      if (!node || typeof node !== "object") return;
      if (Array.isArray(node)) return node.forEach(clean);
      delete node.__scaled;
      Object.keys(node).forEach(function (key) {
        if (key !== "data" && key !== "datasets") clean(node[key]);
      });
    }
    var copy = clone(spec);
    visit(copy, true);
    return copy;
  }

  // ---- drawing -----------------------------------------------------------------------------

  // A chart of thousands of marks (charts.dense in Python) is drawn on a canvas: as SVG, each
  // mark is a DOM node, and 15,000 of them take 20 s to draw in a phone-sized headless
  // Chromium against 0.25 s on a canvas. The canvas carries the chart's name all the same.
  function isDense(spec) {
    return Boolean(spec.usermeta && spec.usermeta.tcplab && spec.usermeta.tcplab.canvas);
  }

  function embedOptions(spec) {
    var options = {
      renderer: isDense(spec) ? "canvas" : "svg",
      actions: { export: true, source: false, compiled: false, editor: false },
      i18n: { CLICK_TO_VIEW_ACTIONS: "Save this chart as SVG or PNG" },
      // the SVG is one image with a name (label() below): its marks and axes are not read
      // out one by one, so Vega gives them no ARIA roles of their own
      config: { aria: false, mark: { aria: false } },
    };
    if (isDark()) {
      options.theme = "dark";
      options.config.text = { color: "#e6e6e6" };
      // a legend without a colour scale (shapes, dashes) draws its symbols in Vega-Lite's
      // base colour, black: light grey instead
      options.config.legend = { symbolBaseFillColor: "#e6e6e6", symbolBaseStrokeColor: "#e6e6e6" };
      options.config.background = "transparent";
    }
    return options;
  }

  function render(element, spec) {
    if (element.tcplabView) {
      element.tcplabView.finalize();
      element.tcplabView = null;
    }
    return window.vegaEmbed(element, spec, embedOptions(spec)).then(function (result) {
      element.tcplabView = result.view;
      element.tcplabDrawn = spec;
      var drawn = element.querySelector(".marks");
      return drawn ? drawn.getBoundingClientRect().width : 0;
    });
  }

  function available(element) {
    return Math.floor(element.getBoundingClientRect().width);
  }

  // Redraw `spec` with every view's width multiplied by the factor that makes the chart
  // `room` wide: the chart is a fixed part (axes, legends, labels) plus views that scale, so
  // two draws (`width` at factor 1, and one trial) give both. Shrinks, or grows a chart that
  // was stacked (up to MAX_GROWTH), never shrinks below MIN_VIEW_WIDTH per view.
  var MAX_GROWTH = 1.6;
  function scaleTo(element, spec, width, room, grow) {
    var config = spec.config || {};
    var factor = grow ? Math.min(MAX_GROWTH, room / width) : Math.max(0.2, (room / width) * 0.95);
    return render(element, scaleWidths(spec, config, factor)).then(function (trial) {
      if (Math.abs(trial - width) < 1) return trial; // nothing scales (all at the minimum)
      var views = (width - trial) / (1 - factor);
      var fixed = width - views;
      var best = Math.min(grow ? MAX_GROWTH : 1, (room - fixed - 2) / views);
      if (!(best > 0)) {
        // the fixed part alone is wider than the column: draw the views at their narrowest
        return trial <= room ? trial : render(element, scaleWidths(spec, config, 0.2));
      }
      return render(element, scaleWidths(spec, config, best)).then(function (fitted) {
        if (fitted <= room) return fitted;
        return render(element, scaleWidths(spec, config, best * 0.97));
      });
    });
  }

  // Draw `spec` (`width` wide as drawn) with every view narrower so that the chart fits
  // `room`, if no view then falls below READABLE_VIEW_WIDTH: resolves to the drawn width, or
  // to null (nothing drawn that fits) when the views would have to be narrower than that.
  function narrower(element, spec, width, room) {
    var config = spec.config || {};
    var least = narrowestView(spec, config);
    if (!isFinite(least) || least * 0.99 < READABLE_VIEW_WIDTH) return Promise.resolve(null);
    var factor = Math.max(READABLE_VIEW_WIDTH / least, (room / width) * 0.95);
    if (factor >= 1) factor = 0.9;
    return render(element, scaleWidths(spec, config, factor)).then(function (trial) {
      if (trial <= room) return trial;
      if (Math.abs(trial - width) < 1) return null;
      var views = (width - trial) / (1 - factor);
      var best = (room - (width - views) - 2) / views;
      if (!(best > 0) || least * best < READABLE_VIEW_WIDTH) return null;
      return render(element, scaleWidths(spec, config, Math.min(best, 1))).then(function (drawn) {
        return drawn <= room ? drawn : null;
      });
    });
  }

  // Keep the panels side by side if they fit at a readable width: as written with narrower
  // panels, then in fewer columns (the grid's reading order kept), each with narrower panels.
  // Resolves to the spec drawn ({spec, width}) or null (the chart is to be stacked).
  function sideBySide(element, spec, width, room) {
    var most = mostSideBySide(spec);
    if (most < 2) return Promise.resolve(null);
    var base = clone(spec);
    wrapTitles(base, room);
    var attempt = function (candidate, drawnWidth) {
      if (drawnWidth !== null && drawnWidth <= room) {
        return Promise.resolve({ spec: candidate, width: drawnWidth });
      }
      var measured = drawnWidth === null ? render(element, candidate) : Promise.resolve(drawnWidth);
      return measured.then(function (measuredWidth) {
        if (measuredWidth <= room) return { spec: candidate, width: measuredWidth };
        return narrower(element, candidate, measuredWidth, room).then(function (fitted) {
          if (fitted === null) return null;
          return { spec: scaleWidths(candidate, candidate.config || {}, 1), width: fitted,
            scaled: true };
        });
      });
    };
    var chain = attempt(base, null);
    for (var columns = most - 1; columns >= 2; columns--) {
      (function (k) {
        chain = chain.then(function (found) {
          if (found) return found;
          var copy = clone(base);
          return regrid(copy, k) ? attempt(copy, null) : null;
        });
      })(columns);
    }
    return chain;
  }

  // Draw; if the chart is wider than its column, keep its panels side by side at a readable
  // width (sideBySide), else stack it (and let it fill the column), then shrink it until it
  // fits.
  function fit(element, spec) {
    element.classList.remove("tcplab-menu-above");
    var room = available(element);
    var config = spec.config || {};
    var current = spec;
    var stacked = false;
    return render(element, current)
      .then(function (width) {
        if (width <= room) return width;
        return sideBySide(element, current, width, room).then(function (found) {
          if (found) return { done: found.width };
          return width;
        });
      })
      .then(function (width) {
        if (typeof width === "object") return width;
        if (width <= room) return width;
        var copy = clone(current);
        var restacked = stack(copy, columnsFor(copy, config, room));
        var wrapped = wrapTitles(copy, room);
        if (!wrapLegends(copy, room) && !restacked && !wrapped) return width;
        current = copy;
        stacked = restacked;
        return render(element, current);
      })
      .then(function (width) {
        if (typeof width === "object") return width.done;
        if (width > room) return scaleTo(element, current, width, room, false);
        var widest = widestView(current, config);
        if (!stacked || !widest || widest >= 0.75 * room) return width;
        // a stacked chart fills the column: its views grow to the room left by the axes
        var factor = Math.min(MAX_GROWTH, (room - 80) / widest);
        if (factor <= 1.05) return width;
        var grown = scaleWidths(current, config, factor);
        return render(element, grown).then(function (wider) {
          return wider <= room ? wider : scaleTo(element, grown, wider, room, false);
        });
      })
      .then(function (width) {
        return clearMenu(element, width, 3);
      })
      .then(function (width) {
        var svg = element.querySelector(".marks");
        if (svg && width > room) {
          // the last resort: the picture scaled down as a whole (axes and text with it)
          svg.style.width = room + "px";
          svg.style.height = "auto";
          element.dataset.fitScale = (room / width).toFixed(3);
        } else {
          delete element.dataset.fitScale;
        }
      });
  }

  // The view or concatenation whose title is drawn at the chart's top right corner: the
  // chart's own, else the first row's last view's.
  function topRightTitled(spec) {
    var node = spec;
    while (node && !node.title) {
      if (Array.isArray(node.hconcat)) node = node.hconcat[node.hconcat.length - 1];
      else if (Array.isArray(node.vconcat)) node = node.vconcat[0];
      else if (Array.isArray(node.concat)) {
        node = node.concat[Math.min(node.columns || node.concat.length, node.concat.length) - 1];
      } else if (Array.isArray(node.layer)) node = node.layer[0];
      else if (node.spec && typeof node.spec === "object") node = node.spec;
      else return null;
    }
    return node || null;
  }

  // The save button floats over the chart's top right corner: a title that runs under it
  // breaks before it (a phone's narrow column, a long title). Resolves to the drawn width.
  function clearMenu(element, width, tries) {
    var summary = element.querySelector("details > summary");
    var svg = element.querySelector("svg.marks");
    if (!summary || !svg) return Promise.resolve(width);
    var menu = summary.getBoundingClientRect();
    var under = Array.prototype.filter.call(svg.querySelectorAll("g.role-title text"), function (t) {
      var box = t.getBoundingClientRect();
      return box.width > 0 && Math.min(box.right, menu.right) - Math.max(box.left, menu.left) > 1 &&
        Math.min(box.bottom, menu.bottom) - Math.max(box.top, menu.top) > 1;
    })[0];
    if (!under) return Promise.resolve(width);
    // no title of the spec's own there (a facet's header), or still under it: the button
    // moves above the chart
    var above = function () {
      element.classList.add("tcplab-menu-above");
      return Promise.resolve(width);
    };
    var copy = clone(element.tcplabDrawn);
    var node = topRightTitled(copy);
    if (!node || !tries) return above();
    // the room from the title's start to the button, a little less on each try (the break is
    // by characters)
    var room = (menu.left - under.getBoundingClientRect().left + 16) * (1 - 0.1 * (3 - tries));
    // the title's lines joined and broken again (breaking only its long line would leave a
    // one-word line: "the sawtooth / and / its mean")
    var text = node.title && typeof node.title === "object" && !Array.isArray(node.title)
      ? node.title.text : node.title;
    if (Array.isArray(text)) text = text.join(" ");
    if (node.title === text || Array.isArray(node.title)) node.title = text;
    else node.title.text = text;
    var title = { title: node.title, config: copy.config }; // that title alone
    if (!wrapTitles(title, room)) return above();
    node.title = title.title;
    return render(element, copy).then(function (drawn) {
      return clearMenu(element, drawn, tries - 1);
    });
  }

  function name(element, spec) {
    if (spec.description) return spec.description;
    var figure = element.closest("figure");
    var caption = figure && figure.querySelector("figcaption .caption-text, figcaption");
    if (caption) return caption.textContent.replace(/\s+/g, " ").replace(/#$/, "").trim();
    var title = spec.title && (spec.title.text || spec.title);
    return title ? String(title) : "";
  }

  function label(element, spec) {
    var svg = element.querySelector(".marks"); // an SVG, or the canvas of a dense chart
    var text = name(element, spec);
    if (svg) {
      // one image with a name: what is inside is drawing, not content to read out
      Array.prototype.forEach.call(svg.children, function (child) {
        if (child.tagName.toLowerCase() === "g") child.setAttribute("aria-hidden", "true");
      });
      svg.setAttribute("role", "img");
      svg.setAttribute("aria-label", text);
      var figure = element.closest("figure");
      var caption = figure && figure.querySelector("figcaption");
      if (caption) {
        if (!caption.id) caption.id = element.id + "-caption";
        svg.setAttribute("aria-describedby", caption.id);
      }
    }
    var wrapper = element.querySelector(".chart-wrapper");
    if (wrapper) {
      // the SVG carries the name; the wrapper would announce it a second time
      wrapper.removeAttribute("role");
      wrapper.removeAttribute("aria-roledescription");
      wrapper.removeAttribute("aria-label");
    }
    var summary = element.querySelector("details > summary");
    if (summary) {
      summary.setAttribute("aria-label", "Save this chart as SVG or PNG");
      summary.setAttribute("title", "Save this chart as SVG or PNG");
    }
  }

  // The chart's data as tables, a reader's alternative to the picture (a screen reader reads a
  // table cell by cell; anyone can check a value): a closed <details> after the chart, filled
  // when it is first opened, one table per dataset of the spec (CSV text, as
  // tcplab.charts.csv_values writes it, or records), SHOWN_ROWS rows at most, with the whole
  // dataset to save as CSV.
  var SHOWN_ROWS = 200;

  function cellText(cell) {
    return cell === null || cell === undefined ? "" : String(cell);
  }

  function parseCsv(text) {
    var rows = [];
    var row = [];
    var field = "";
    var quoted = false;
    for (var i = 0; i < text.length; i++) {
      var c = text[i];
      if (quoted) {
        if (c === '"' && text[i + 1] === '"') {
          field += '"';
          i++;
        } else if (c === '"') quoted = false;
        else field += c;
      } else if (c === '"') quoted = true;
      else if (c === ",") {
        row.push(field);
        field = "";
      } else if (c === "\n" || c === "\r") {
        if (c === "\r" && text[i + 1] === "\n") i++;
        row.push(field);
        rows.push(row);
        row = [];
        field = "";
      } else field += c;
    }
    if (field !== "" || row.length) {
      row.push(field);
      rows.push(row);
    }
    return rows;
  }

  function toCsv(rows) {
    return rows
      .map(function (row) {
        return row
          .map(function (cell) {
            var text = cellText(cell);
            return /[",\n\r]/.test(text) ? '"' + text.replace(/"/g, '""') + '"' : text;
          })
          .join(",");
      })
      .join("\n") + "\n";
  }

  // each dataset of the spec as rows (its header first), the one-value helpers left out
  function datasets(spec) {
    var found = [];
    function add(values) {
      var rows = null;
      if (typeof values === "string") rows = parseCsv(values);
      else if (Array.isArray(values) && values.length && typeof values[0] === "object") {
        var columns = Object.keys(values[0]);
        rows = [columns].concat(values.map(function (record) {
          return columns.map(function (column) { return record[column]; });
        }));
      }
      if (rows && rows.length > 1 && !(rows.length === 2 && rows[0].length === 1)) found.push(rows);
    }
    Object.keys(spec.datasets || {}).forEach(function (key) {
      var data = spec.datasets[key];
      add(data && data.values !== undefined ? data.values : data);
    });
    if (spec.data && spec.data.values !== undefined) add(spec.data.values);
    return found;
  }

  function dataTable(rows, index, count) {
    var table = document.createElement("table");
    table.className = "tcplab-chart-data-table";
    var caption = table.createCaption();
    var body = rows.length - 1;
    caption.textContent = (count > 1 ? "Data set " + (index + 1) + " of " + count + ": " : "") +
      body + " row" + (body === 1 ? "" : "s") +
      (body > SHOWN_ROWS ? ", the first " + SHOWN_ROWS + " shown" : "");
    var head = table.createTHead().insertRow();
    rows[0].forEach(function (name) {
      var th = document.createElement("th");
      th.scope = "col";
      th.textContent = name;
      head.appendChild(th);
    });
    var tbody = table.createTBody();
    rows.slice(1, SHOWN_ROWS + 1).forEach(function (row) {
      var tr = tbody.insertRow();
      row.forEach(function (cell) {
        tr.insertCell().textContent = cellText(cell);
      });
    });
    return table;
  }

  function offerData(element, spec) {
    var next = element.parentNode.querySelector(":scope > .tcplab-chart-data");
    if (next) return;
    var details = document.createElement("details");
    details.className = "tcplab-chart-data";
    var summary = document.createElement("summary");
    summary.textContent = "The chart's data, as a table";
    details.appendChild(summary);
    details.addEventListener("toggle", function () {
      if (!details.open || details.dataset.filled) return;
      details.dataset.filled = "true";
      var sets = datasets(spec);
      if (!sets.length) {
        var none = document.createElement("p");
        none.textContent = "This chart draws no data set of its own.";
        details.appendChild(none);
      }
      sets.forEach(function (rows, index) {
        var box = document.createElement("div");
        box.className = "tcplab-table-box";
        box.tabIndex = 0;
        box.setAttribute("role", "region");
        box.setAttribute("aria-label", summary.textContent + " " + (index + 1));
        box.appendChild(dataTable(rows, index, sets.length));
        details.appendChild(box);
        var save = document.createElement("a");
        save.className = "tcplab-chart-data-save";
        save.href = URL.createObjectURL(new Blob([toCsv(rows)], { type: "text/csv" }));
        var suffix = sets.length > 1 ? "-" + (index + 1) : "";
        save.download = (element.id || "chart") + suffix + ".csv";
        save.textContent = "Save " + (sets.length > 1 ? "data set " + (index + 1) : "the data") +
          " as CSV (" + (rows.length - 1) + (rows.length === 2 ? " row)" : " rows)");
        details.appendChild(save);
      });
    });
    element.after(details);
  }

  // A chart with controls (Vega params bound to a slider, drop-down or radio group) says what
  // it is drawn for: its name ends with the controls' values, and a polite live region after
  // it tells a screen reader each new choice once the control rests (FOLLOW_MS).
  var FOLLOW_MS = 400;

  function shownValue(value) {
    if (Array.isArray(value)) {
      return value
        .map(function (item) {
          return item && typeof item === "object"
            ? Object.keys(item).map(function (key) { return item[key]; }).join(" ")
            : String(item);
        })
        .join(", ");
    }
    if (typeof value === "number") return String(+value.toPrecision(4));
    return value === null || value === undefined ? "none" : String(value);
  }

  function controls(spec) {
    return (spec.params || []).filter(function (param) {
      return param.bind && typeof param.bind === "object" && param.bind.input;
    });
  }

  // "decrease factor β = 0.5, increase rate η = 1": each control's name and value now
  function drawnFor(view, params) {
    return params
      .map(function (param) {
        var name = String(param.bind.name || param.name).trim();
        return name + " = " + shownValue(view.signal(param.name));
      })
      .join(", ");
  }

  function follow(element, spec) {
    var params = controls(spec);
    var view = element.tcplabView;
    var svg = element.querySelector(".marks");
    if (!params.length || !view || !svg) return;
    var base = svg.getAttribute("aria-label") || "";
    var now = element.parentNode.querySelector(":scope > .tcplab-chart-now");
    if (!now) {
      now = document.createElement("p");
      now.className = "tcplab-chart-now";
      now.setAttribute("aria-live", "polite");
      var data = element.parentNode.querySelector(":scope > .tcplab-chart-data");
      (data || element).after(now);
    }
    var tell = function () {
      svg.setAttribute("aria-label", base + " Drawn for " + drawnFor(view, params) + ".");
    };
    tell();
    var pending = null;
    params.forEach(function (param) {
      view.addSignalListener(param.name, function () {
        tell();
        clearTimeout(pending);
        pending = setTimeout(function () {
          now.textContent = "The chart now shows: " + drawnFor(view, params) + ".";
        }, FOLLOW_MS);
      });
    });
  }

  function draw(element) {
    var specTag = document.getElementById(element.dataset.specId);
    if (!specTag || typeof window.vegaEmbed !== "function") {
      console.error("tcplab: cannot draw chart", element.id);
      return;
    }
    var spec = JSON.parse(specTag.textContent);
    if (isDark()) spec = darken(spec);
    element.dataset.drawn = "false";
    element.tcplabWidth = available(element);
    element.tcplabDrawing = (element.tcplabDrawing || Promise.resolve())
      .then(function () {
        return fit(element, spec);
      })
      .then(function () {
        label(element, spec);
        offerData(element, spec);
        follow(element, spec);
        element.dataset.drawn = "true";
      })
      .catch(function (error) {
        console.error("tcplab: chart", element.id, "failed:", error);
      });
  }

  function drawAll() {
    document.querySelectorAll(".tcplab-chart").forEach(draw);
  }

  function redrawOnResize() {
    if (typeof window.ResizeObserver !== "function") return;
    var pending = null;
    var observer = new ResizeObserver(function (entries) {
      var changed = entries
        .map(function (entry) {
          return entry.target;
        })
        .filter(function (element) {
          return Math.abs(available(element) - (element.tcplabWidth || 0)) > 4;
        });
      if (!changed.length) return;
      clearTimeout(pending);
      pending = setTimeout(function () {
        changed.forEach(draw);
      }, 150);
    });
    document.querySelectorAll(".tcplab-chart").forEach(function (element) {
      observer.observe(element);
    });
  }

  // a chart added to the page later (an in-browser panel, tcplab-inbrowser.js) draws itself
  window.tcplabDrawChart = draw;

  function start() {
    drawAll();
    redrawOnResize();
    new MutationObserver(drawAll).observe(document.documentElement, {
      attributes: true,
      attributeFilter: ["data-theme"],
    });
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
})();
