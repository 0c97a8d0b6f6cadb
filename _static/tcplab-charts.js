// Draws every tcplab chart on the page with the vega-embed served from _static (no CDN).
// A chart is a <div class="tcplab-chart"> whose Vega-Lite spec sits in a JSON script tag;
// charts are redrawn with Vega's dark theme when the reader switches the page to dark mode.
(function () {
  "use strict";

  function isDark() {
    return document.documentElement.dataset.theme === "dark";
  }

  function draw(element) {
    var specTag = document.getElementById(element.dataset.specId);
    if (!specTag || typeof window.vegaEmbed !== "function") {
      console.error("tcplab: cannot draw chart", element.id);
      return;
    }
    var options = {
      renderer: "svg",
      actions: { export: true, source: false, compiled: false, editor: false },
    };
    if (isDark()) {
      options.theme = "dark";
      options.config = { text: { color: "#e6e6e6" }, background: "transparent" };
    }
    if (element.tcplabView) {
      element.tcplabView.finalize();
    }
    window
      .vegaEmbed(element, JSON.parse(specTag.textContent), options)
      .then(function (result) {
        element.tcplabView = result.view;
        element.dataset.drawn = "true";
      })
      .catch(function (error) {
        console.error("tcplab: chart", element.id, "failed:", error);
      });
  }

  function drawAll() {
    document.querySelectorAll(".tcplab-chart").forEach(draw);
  }

  function start() {
    drawAll();
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
