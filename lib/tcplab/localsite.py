"""A built book served on this machine only, for headless Chromium that reaches no other host.

The browser tests, the page and in-browser benchmarks and ``make pdf`` all open the built
book the way a reader's browser would, over HTTP (a service worker, ``fetch`` and Pyodide's
downloads need a site, not ``file://``), with every other host unreachable: :func:`serve`
starts a quiet static server on 127.0.0.1 at a free port, and :data:`CHROMIUM_FLAGS` starts
Debian's Chromium headless with no name resolving except 127.0.0.1's and none of its own
background traffic. A test can make the site misbehave as a host might: answer 404 for a
file the build wrote, other bytes for one, or let the browser keep files (Cache-Control).

The server is hardened for a shared machine (``make serve`` runs it too, ``python -m
tcplab.localsite FOLDER``): a connection that has not finished its request within
:data:`REQUEST_TIMEOUT` seconds is closed (a slow client that sends one header line every few
seconds held a thread for good), the listen backlog is :data:`BACKLOG` (socketserver's 5
delayed 14 of 150 connections, 20 at a time, by a SYN retransmit), a path that resolves
outside the site (a symlink) is answered 404, and a NUL byte in the path 400 (it printed a
traceback).
"""

from __future__ import annotations

import argparse
import functools
import http.server
import io
import os
import socket
import sys
import threading
import urllib.parse
from collections.abc import Collection, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO

__all__ = ["BACKLOG", "CHROMIUM_FLAGS", "REQUEST_TIMEOUT", "serve"]

#: seconds a connection may take to send its request line and headers; also the longest wait
#: of any one read or write of the answer
REQUEST_TIMEOUT = 10.0
#: connections the kernel queues before the server accepts them
BACKLOG = 256

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

    #: a blocking read or write waits at most this long (socketserver's per-operation timeout)
    timeout = REQUEST_TIMEOUT

    def log_message(self, *args: object) -> None:
        pass

    def setup(self) -> None:
        super().setup()
        # the request (one per connection: HTTP/1.0) within REQUEST_TIMEOUT, however slowly its
        # bytes arrive: past it the socket is shut, and the reads see its end
        self._deadline = threading.Timer(REQUEST_TIMEOUT, self._hang_up)
        self._deadline.daemon = True
        self._deadline.start()

    def parse_request(self) -> bool:
        read = super().parse_request()  # the request line and every header are in
        self._deadline.cancel()
        return read

    def finish(self) -> None:
        self._deadline.cancel()
        try:
            super().finish()
        except OSError:  # the client went away under a buffered answer
            pass

    def _hang_up(self) -> None:
        try:
            self.connection.shutdown(socket.SHUT_RDWR)
        except OSError:  # already closed
            pass

    def _outside_the_site(self, path: str) -> bool:
        """``path`` (a file system path from :meth:`translate_path`) resolves outside the
        site's folder: a symlink that leads elsewhere."""
        root = os.path.realpath(self.directory)
        return os.path.commonpath([root, os.path.realpath(path)]) != root

    def end_headers(self) -> None:
        if self.cache_control:
            self.send_header("Cache-Control", self.cache_control)
        super().end_headers()

    def send_head(self) -> io.BytesIO | BinaryIO | None:  # GET and HEAD both come here
        path = urllib.parse.urlsplit(self.path).path
        name = path.lstrip("/")  # as the site's root names it
        if self.requests is not None:
            self.requests.append(f"{self.command} {path}")
        local = self.translate_path(self.path)
        if "\0" in local:
            self.send_error(400, "a NUL byte in the path")
            return None
        if self._outside_the_site(local):
            self.send_error(404, "outside the site")
            return None
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
    prints a traceback for it; any other error is still printed. Its listen backlog is
    :data:`BACKLOG`."""

    request_queue_size = BACKLOG

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
    port: int = 0,
) -> Iterator[str]:
    """Serve ``folder`` on 127.0.0.1 (a free port); yields the site's URL. The paths in
    ``missing`` are answered 404, those in ``replaced`` with the bytes given (a dict the caller
    may change while the site runs); ``requests`` receives "METHOD /path" for every request;
    ``cache_control`` is sent with every answer (e.g. GitHub Pages' "max-age=600"); ``port``
    0 is any free one."""
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
    server = QuietServer(("127.0.0.1", port), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def main(argv: list[str] | None = None) -> int:
    """``python -m tcplab.localsite FOLDER [--port N]``: serve a built book on 127.0.0.1
    until Ctrl-C (what ``make serve`` runs)."""
    parser = argparse.ArgumentParser(prog="python -m tcplab.localsite", description=main.__doc__)
    parser.add_argument("folder", type=Path, help="the built book's html folder")
    parser.add_argument("--port", type=int, default=8000, help="on 127.0.0.1 (default 8000)")
    args = parser.parse_args(argv)
    if not (args.folder / "index.html").is_file():
        print(f"localsite: {args.folder} has no index.html (make book builds it)", file=sys.stderr)
        return 1
    try:
        with serve(args.folder, port=args.port) as url:
            print(f"Serving the book at {url}/ (Ctrl-C to stop)", flush=True)
            threading.Event().wait()
    except OSError as error:
        print(
            f"localsite: cannot serve on 127.0.0.1:{args.port}: {error.strerror}", file=sys.stderr
        )
        return 1
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
