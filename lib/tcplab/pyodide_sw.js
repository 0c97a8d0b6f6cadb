// tcplab's service worker: the in-browser panels' runtime is downloaded once per reader.
//
// Written to the book's root as tcplab-sw.js by tcplab.pyodide_site.write_service_worker, which
// replaces the version below with a digest of every file in _static/pyodide/. The first panel a
// reader starts fetches Pyodide, its packages and tcplab's wheel from the site through this
// worker, which keeps them in the Cache Storage; every later start, on any page of the book,
// is served from there, without asking the site again (and so also offline).
//
// A new build of the book with a different runtime changes the digest, so this file changes:
// the browser compares it byte for byte on each visit, installs the new one, and the new one
// deletes the caches of the old runtime when it takes over. Nothing else is touched: pages,
// charts and the rest of _static go to the network as if there were no worker.
"use strict";

const VERSION = "@VERSION@";
const PREFIX = "tcplab-pyodide-";
const CACHE = PREFIX + VERSION;
const RUNTIME = new URL("_static/pyodide/", self.registration.scope).pathname;

self.addEventListener("install", function () {
  self.skipWaiting();
});

self.addEventListener("activate", function (event) {
  event.waitUntil(
    caches
      .keys()
      .then(function (names) {
        var old = names.filter(function (name) {
          return name.indexOf(PREFIX) === 0 && name !== CACHE;
        });
        return Promise.all(old.map(function (name) {
          return caches.delete(name);
        }));
      })
      .then(function () {
        return self.clients.claim();
      })
  );
});

// from the site itself: the browser's HTTP cache may hold a file of an earlier build under the
// same name (a server that sends no Cache-Control lets it guess how long the file stays fresh)
function fromSite(request) {
  return fetch(new Request(request, { cache: "no-cache" }));
}

// a runtime file: from the cache, or from the site (and then kept, once it has come whole)
function cached(event) {
  var request = event.request;
  return caches.open(CACHE).then(function (cache) {
    return cache.match(request.url).then(function (hit) {
      if (hit && request.method === "HEAD") {
        // the page asks for the largest files with HEAD first, to fail fast if one is missing
        return new Response(null, { status: hit.status, headers: hit.headers });
      }
      if (hit || request.method === "HEAD") return hit || fromSite(request);
      return fromSite(request).then(function (response) {
        // a missing file stays missing (the page says so); a whole one is kept while the
        // page already reads it
        if (response.status === 200) event.waitUntil(cache.put(request.url, response.clone()));
        return response;
      });
    });
  });
}

self.addEventListener("fetch", function (event) {
  var request = event.request;
  var url = new URL(request.url);
  if (url.origin !== self.location.origin || url.pathname.indexOf(RUNTIME) !== 0) return;
  if (request.method !== "GET" && request.method !== "HEAD") return;
  event.respondWith(cached(event));
});
