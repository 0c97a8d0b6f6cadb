// Display equations wider than the column scroll sideways in their own box (tcplab.css);
// such a box can be reached and scrolled from the keyboard.
(function () {
  "use strict";

  function markWideEquations() {
    document.querySelectorAll('mjx-container[display="true"]').forEach(function (box) {
      if (box.scrollWidth > box.clientWidth + 1) {
        box.setAttribute("tabindex", "0"); // MathJax's own speech text stays its name
      } else if (box.getAttribute("tabindex") === "0") {
        box.removeAttribute("tabindex");
      }
    });
  }

  function start() {
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
