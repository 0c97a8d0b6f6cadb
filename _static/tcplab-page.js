// Display equations wider than the column scroll sideways in their own box (tcplab.css);
// such a box can be reached and scrolled from the keyboard.
(function () {
  "use strict";

  // A wide equation shows that it goes on: a shadow at the edge it continues past
  // (tcplab.css) and a line under it saying so (a phone cut "x_class 2 = 6/91 (1" at the
  // column's edge with nothing to tell the reader there was more).
  function markWideEquations() {
    document.querySelectorAll('mjx-container[display="true"]').forEach(function (box) {
      var hint = box.nextElementSibling;
      if (!hint || !hint.classList.contains("tcplab-scroll-hint")) hint = null;
      if (box.scrollWidth > box.clientWidth + 1) {
        box.setAttribute("tabindex", "0"); // MathJax's own speech text stays its name
        box.dataset.tcplabWide = "true";
        if (!hint) {
          hint = document.createElement("p");
          hint.className = "tcplab-scroll-hint";
          hint.setAttribute("aria-hidden", "true"); // a screen reader reads the whole equation
          hint.textContent = "\u2194 The equation goes on: scroll it sideways.";
          box.parentNode.insertBefore(hint, box.nextSibling);
        }
      } else {
        if (box.getAttribute("tabindex") === "0") box.removeAttribute("tabindex");
        delete box.dataset.tcplabWide;
        if (hint) hint.remove();
      }
    });
  }

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

  function start() {
    addSkipToPanel();
    nameThemeButtons();
    var mathjax = window.MathJax;
    var ready = mathjax && mathjax.startup && mathjax.startup.promise;
    (ready || Promise.resolve()).then(markWideEquations);
    var pending = null;
    window.addEventListener("resize", function () {
      clearTimeout(pending);
      pending = setTimeout(markWideEquations, 200);
    });
  }

  if (document.readyState === "complete") {
    start();
  } else {
    window.addEventListener("load", start);
  }
})();
