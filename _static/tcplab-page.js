// The page's own helpers for readers: a way past the page to its live panel, and the theme's
// buttons named by what they show.
(function () {
  "use strict";

  // "Skip to the live panel": right after the theme's "Skip to main content", so that a
  // keyboard reader reaches the chapter's panel in two key presses, not past every link of
  // the page; it moves the focus to the panel's first control (its Run button)
  function addSkipToPanel() {
    var panel = document.querySelector(".tcplab-inbrowser");
    if (!panel || document.querySelector(".tcplab-skip-panel")) return;
    panel.id = panel.id || "tcplab-live-panel";
    var link = document.createElement("a");
    link.className = "tcplab-skip-panel";
    link.href = "#" + panel.id;
    link.textContent = "Skip to the live panel";
    link.addEventListener("click", function (event) {
      event.preventDefault();
      var target = panel.querySelector("button, input, select") || panel;
      if (target === panel) panel.setAttribute("tabindex", "-1");
      panel.scrollIntoView({ block: "center" });
      target.focus();
    });
    var first = document.querySelector(".skip-link");
    if (first && first.parentNode) {
      first.parentNode.insertBefore(link, first.nextSibling);
    } else {
      document.body.insertBefore(link, document.body.firstChild);
    }
  }

  // The theme's search and colour-mode buttons are named "Search" and "Color mode" but show
  // more: "Search Ctrl + K", and an icon whose title is the mode ("Light", "Dark", "System
  // Settings"). A name must hold the words a reader sees on the control (WCAG 2.5.3, axe's
  // label-content-name-mismatch: the report's one serious hit), so for a speech-input user
  // saying what they see works: the search buttons are named by what they show, the mode button
  // "Color mode: " and the mode its icon shows, again whenever the mode or the icon changes.
  function visibleWords(element) {
    return (element.innerText || element.textContent || "").replace(/\s+/g, " ").trim();
  }
  function nameThemeButtons() {
    document.querySelectorAll(".search-button__button").forEach(function (button) {
      var shown = visibleWords(button);
      if (shown) button.setAttribute("aria-label", shown);
      if (button.querySelector(".search-button__kbd-shortcut")) {
        button.setAttribute("aria-keyshortcuts", "Control+K");
      }
    });
    var modes = document.querySelectorAll(".theme-switch-button");
    var name = function () {
      modes.forEach(function (button) {
        var icon = Array.prototype.filter.call(button.querySelectorAll("svg, i"), function (part) {
          return getComputedStyle(part).display !== "none";
        })[0];
        var title = icon && icon.querySelector("title");
        var mode = title ? title.textContent.trim() : "";
        button.setAttribute("aria-label", mode ? "Color mode: " + mode : "Color mode");
      });
    };
    name();
    new MutationObserver(name).observe(document.documentElement, {
      attributes: true,
      attributeFilter: ["data-mode", "data-theme"],
    });
    // the theme's icon script turns each <i> into an <svg> with its title when it gets to it,
    // which can be after this ran: name the button again then
    modes.forEach(function (button) {
      new MutationObserver(name).observe(button, { childList: true, subtree: true });
    });
  }

  // The search page quotes each hit's text from the page it found it on, as the page's HTML
  // has it: formulas as their TeX ("\((1+\beta)/2 = 0.75\)") and a table's cells run
  // together ("packet buffer10.7600.750"). Before Sphinx reads the text, each formula becomes
  // plain text ("(1+β)/2 = 0.75") and a space follows each cell, item and line break.
  var TEX_SYMBOLS = {
    alpha: "α", beta: "β", gamma: "γ", delta: "δ", epsilon: "ε", varepsilon: "ε", eta: "η",
    theta: "θ", lambda: "λ", mu: "μ", nu: "ν", pi: "π", rho: "ρ", sigma: "σ", tau: "τ",
    phi: "φ", varphi: "φ", chi: "χ", psi: "ψ", omega: "ω", Gamma: "Γ", Delta: "Δ",
    Theta: "Θ", Lambda: "Λ", Pi: "Π", Sigma: "Σ", Phi: "Φ", Psi: "Ψ", Omega: "Ω",
    cdot: "·", times: "×", le: "≤", leq: "≤", ge: "≥", geq: "≥", ne: "≠", neq: "≠",
    approx: "≈", sim: "~", infty: "∞", to: "→", rightarrow: "→", Rightarrow: "⇒",
    Longrightarrow: "⇒", longrightarrow: "→", sum: "Σ", prod: "Π", int: "∫", pm: "±",
    in: "∈", ldots: "…", dots: "…", cdots: "…", partial: "∂", nabla: "∇", mid: "|",
    lfloor: "⌊", rfloor: "⌋", lceil: "⌈", rceil: "⌉", langle: "⟨", rangle: "⟩",
  };
  function plainTeX(tex) {
    var text = tex.replace(/^\s*(\\\(|\\\[|\$\$?)/, "").replace(/(\\\)|\\\]|\$\$?)\s*$/, "");
    var group = "\\{([^{}]*)\\}";
    var before;
    do {  // innermost groups first
      before = text;
      text = text
        .replace(new RegExp("\\\\[dt]?frac\\s*" + group + "\\s*" + group, "g"), "($1)/($2)")
        .replace(/\\[dt]?frac\s*(\w)(\w)/g, "$1/$2")
        .replace(new RegExp("\\\\(?:bar|overline)\\s*\\{(\\w)\\}", "g"), "$1\u0304")
        .replace(new RegExp("\\\\sqrt\\s*" + group, "g"), "√($1)")
        .replace(new RegExp("\\\\(?:mathrm|text|textrm|mathbf|mathit|mathcal|mathbb|operatorname|boldsymbol|bar|hat|tilde|overline|vec|dot|underline)\\s*" + group, "g"), "$1")
        .replace(new RegExp("([_^])" + group, "g"), "$1$2");
    } while (text !== before);
    text = text
      .replace(/\\(?:left|right|[bB]ig+[lr]?)\b\s*/g, "")
      .replace(/\\[,;:!]|\\q?quad\b|~/g, " ")
      .replace(/\\([A-Za-z]+)/g, function (all, name) {
        return Object.prototype.hasOwnProperty.call(TEX_SYMBOLS, name) ? TEX_SYMBOLS[name] : name;
      })
      .replace(/\\([{}%$&#_])/g, "$1")
      .replace(/[{}]/g, "")
      .replace(/\/\((\w+)\)/g, "/$1")
      .replace(/(^|[\s(=+-])\((\w+)\)\//g, "$1$2/");
    return " " + text.replace(/\s+/g, " ").trim() + " ";
  }
  function plainSearchText() {
    if (typeof Search === "undefined" || !Search.htmlToText || Search.tcplabPlain) return;
    var original = Search.htmlToText;
    Search.htmlToText = function (htmlString, anchor) {
      var page = new DOMParser().parseFromString(htmlString, "text/html");
      page.querySelectorAll(".math").forEach(function (formula) {
        formula.textContent = plainTeX(formula.textContent);
      });
      page.querySelectorAll("td, th, caption, li, br").forEach(function (cell) {
        cell.after(" ");
      });
      return original(page.documentElement.outerHTML, anchor);
    };
    Search.tcplabPlain = true;
  }
  window.tcplabPlainTeX = plainTeX; // for the tests

  function start() {
    addSkipToPanel();
    nameThemeButtons();
  }

  // before the search page's own listener (searchtools.js, loaded after this file) runs
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", plainSearchText);
  } else {
    plainSearchText();
  }
  if (document.readyState === "complete") {
    start();
  } else {
    window.addEventListener("load", start);
  }
})();
