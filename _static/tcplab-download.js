// A notebook downloaded from the book's site (a chapter page's .ipynb button, the downloads
// page, a lab's link) knows where it came from: its first cell (tcplab.launch's set-up cell)
// installs the book from the site, and a site that did not say its address when it was built
// (html.baseurl empty) could not write it there. So the download goes through here: the
// notebook is fetched, the site it came from (the folder above the notebook's: the root of
// the book, or of its students' edition) is written into its set-up cell (SITE) and its
// metadata (tcplab.site), and the browser saves that copy under the notebook's name. Where
// anything fails (an old browser, a page opened from disk) the link works as a plain link.
(function () {
  "use strict";

  var SETUP_TAG = "tcplab-colab-setup";

  function lines(text) {
    return text.split(/(?<=\n)/);
  }

  // the notebook with `site` written into its set-up cell, or null if it has none
  function stamped(notebook, site) {
    var first = notebook.cells && notebook.cells[0];
    var tags = (first && first.metadata && first.metadata.tags) || [];
    if (!first || tags.indexOf(SETUP_TAG) < 0) return null;
    var source = Array.isArray(first.source) ? first.source.join("") : first.source;
    var line = "SITE = " + JSON.stringify(site) + "  # the book's site: this notebook came from it";
    if (!/^SITE = .*$/m.test(source)) return null;
    first.source = lines(source.replace(/^SITE = .*$/m, line));
    notebook.metadata = notebook.metadata || {};
    notebook.metadata.tcplab = Object.assign({}, notebook.metadata.tcplab, { site: site });
    return notebook;
  }

  function save(name, text) {
    var blob = new Blob([text], { type: "application/x-ipynb+json" });
    var url = URL.createObjectURL(blob);
    var link = document.createElement("a");
    link.href = url;
    link.download = name;
    document.body.appendChild(link);
    link.click();
    link.remove();
    setTimeout(function () {
      URL.revokeObjectURL(url);
    }, 10000);
  }

  function download(event) {
    var link = event.target.closest && event.target.closest("a[href]");
    if (!link || event.defaultPrevented || event.button !== 0) return;
    if (event.ctrlKey || event.metaKey || event.shiftKey || event.altKey) return;
    var url;
    try {
      url = new URL(link.getAttribute("href"), document.baseURI);
    } catch (error) {
      return;
    }
    if (url.origin !== location.origin || !/\.ipynb$/.test(url.pathname)) return;
    if (!window.fetch || !window.Blob || !window.URL.createObjectURL) return;
    event.preventDefault();
    var name = decodeURIComponent(url.pathname.split("/").pop());
    var site = new URL("../", url).href;
    fetch(url.href)
      .then(function (response) {
        if (!response.ok) throw new Error(url.href + ": " + response.status);
        return response.json();
      })
      .then(function (notebook) {
        var done = stamped(notebook, site);
        if (!done) throw new Error("not a notebook of the book");
        save(name, JSON.stringify(done, null, 1) + "\n");
      })
      .catch(function (error) {
        console.info("tcplab: the notebook is downloaded as it is:", error);
        location.href = url.href;
      });
  }

  document.addEventListener("click", download);
})();
