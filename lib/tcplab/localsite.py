"""A built book served on this machine only, for headless Chromium that reaches no other host.

The browser tests, the page and in-browser benchmarks and ``make pdf`` all open the built
book the way a reader's browser would, over HTTP (a service worker, ``fetch`` and Pyodide's
downloads need a site, not ``file://``), with every other host unreachable: :func:`serve`
starts a quiet static server on 127.0.0.1 at a free port, and :data:`CHROMIUM_FLAGS` starts
Debian's Chromium headless with no name resolving except 127.0.0.1's and none of its own
background traffic. A test can make the site misbehave as a host might: answer 404 for a
file the build wrote, other bytes for one, or let the browser keep files (Cache-Control).
"""

from __future__ import annotations

import functools
import http.server
import io
import sys
import threading
import urllib.parse
from collections.abc import Collection, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO

__all__ = ["CHROMIUM_FLAGS", "serve"]

#: headless Chromium that resolves no name but 127.0.0.1 and makes no traffic of its own
CHROMIUM_FLAGS = [
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
]


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    #: paths (relative to the site's root) answered 404, as if the build had not written them
    missing: frozenset[str] = frozenset()
    #: paths answered with these bytes instead of the file's
    replaced: dict[str, bytes] = {}
    #: "METHOD /path" of every request, when a list is given
    requests: list[str] | None = None
    #: the Cache-Control header of every answer ("": none, as http.server sends)
    cache_control: str = ""

    def log_message(self, *args: object) -> None:
        pass

    def end_headers(self) -> None:
        if self.cache_control:
            self.send_header("Cache-Control", self.cache_control)
        super().end_headers()

    def send_head(self) -> io.BytesIO | BinaryIO | None:  # GET and HEAD both come here
        path = urllib.parse.urlsplit(self.path).path
        name = path.lstrip("/")  # as the site's root names it
        if self.requests is not None:
            self.requests.append(f"{self.command} {path}")
        if name in self.missing:
            self.send_error(404, "missing (tcplab.localsite.serve)")
            return None
        if name in self.replaced:
            body = self.replaced[name]
            self.send_response(200)
            self.send_header("Content-Type", self.guess_type(path))
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            return io.BytesIO(body)
        return super().send_head()


class QuietServer(http.server.ThreadingHTTPServer):
    """A threading HTTP server that says nothing when a client hangs up mid-answer (a page
    that navigates away while a file downloads, a test that aborts a request): socketserver
    prints a traceback for it; any other error is still printed."""

    def handle_error(self, request: object, client_address: object) -> None:
        if isinstance(sys.exc_info()[1], ConnectionError):  # BrokenPipe, ConnectionReset
            return
        super().handle_error(request, client_address)  # type: ignore[arg-type]


@contextmanager
def serve(
    folder: Path,
    missing: Collection[str] = (),
    replaced: dict[str, bytes] | None = None,
    requests: list[str] | None = None,
    cache_control: str = "",
) -> Iterator[str]:
    """Serve ``folder`` on 127.0.0.1 (a free port); yields the site's URL. The paths in
    ``missing`` are answered 404, those in ``replaced`` with the bytes given (a dict the caller
    may change while the site runs); ``requests`` receives "METHOD /path" for every request;
    ``cache_control`` is sent with every answer (e.g. GitHub Pages' "max-age=600")."""
    handler_class = type(
        "Handler",
        (_QuietHandler,),
        {
            "missing": frozenset(missing),
            "replaced": {} if replaced is None else replaced,
            "requests": requests,
            "cache_control": cache_control,
        },
    )
    handler = functools.partial(handler_class, directory=str(folder))
    server = QuietServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
