"""tcplab.localsite: the book's local server stays quiet when a client hangs up, and holds
against the referee's hostile clients: slow requests, 150 connections at once, symlinks out of
the site, a NUL byte in the path."""

from __future__ import annotations

import http.server
import math
import select
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from tcplab import localsite
from tcplab.localsite import QuietServer


def test_a_client_that_hangs_up_is_not_reported_but_other_errors_are(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A page that navigates away mid-download broke the pipe, and socketserver printed a
    traceback into the test run's log; any other error is still printed."""
    server = QuietServer(("127.0.0.1", 0), http.server.BaseHTTPRequestHandler)
    try:
        for error in (BrokenPipeError(32, "Broken pipe"), ConnectionResetError(104, "reset")):
            try:
                raise error
            except ConnectionError:
                server.handle_error(None, ("127.0.0.1", 1))
        try:
            raise ValueError("a real error")
        except ValueError:
            server.handle_error(None, ("127.0.0.1", 1))
    finally:
        server.server_close()
    printed = capsys.readouterr().err
    assert "BrokenPipeError" not in printed and "ConnectionResetError" not in printed
    assert "a real error" in printed


# ---- hardened against the referee's hostile clients (reliability-2026-12-02, section 4) -------
@pytest.fixture
def tiny_site(tmp_path: Path) -> Path:
    """A site folder with a page, a symlink inside it to that page, and one that leads out."""
    site, outside = tmp_path / "site", tmp_path / "outside"
    site.mkdir(), outside.mkdir()
    (site / "index.html").write_text("<p>the book</p>\n", encoding="utf-8")
    (outside / "secret.txt").write_text("root:x:0:0\n", encoding="utf-8")
    (site / "inside-link.html").symlink_to(site / "index.html")
    (site / "etc-link").symlink_to(outside, target_is_directory=True)
    return site


def _get(url: str) -> tuple[int, bytes]:
    try:
        with urllib.request.urlopen(url, timeout=10) as answer:
            return answer.status, answer.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


def test_no_symlink_leads_outside_the_site_and_a_nul_byte_is_400(
    tiny_site: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    with localsite.serve(tiny_site) as url:
        assert _get(f"{url}/index.html") == (200, b"<p>the book</p>\n")
        assert _get(f"{url}/inside-link.html")[0] == 200
        status, body = _get(f"{url}/etc-link/secret.txt")
        assert status == 404 and b"root:" not in body
        assert _get(f"{url}/etc-link/")[0] == 404
        assert _get(f"{url}/etc/passwd%00.html")[0] == 400
        assert _get(f"{url}/index.html%00")[0] == 400
    assert "Traceback" not in capfd.readouterr().err


def test_a_slow_client_is_cut_off_and_others_are_served(
    tiny_site: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Slowloris: a request that sends one header line every 0.3 s is closed once the
    request deadline (here 1.5 s) passes; a normal request meanwhile is answered."""
    monkeypatch.setattr(localsite, "REQUEST_TIMEOUT", 1.5)
    with localsite.serve(tiny_site) as url:
        port = int(url.rsplit(":", 1)[1])
        slow = socket.create_connection(("127.0.0.1", port), timeout=5)
        started = time.monotonic()
        slow.sendall(b"GET /index.html HTTP/1.1\r\nHost: x\r\n")
        closed_after = math.inf
        for i in range(40):  # at most 12 s
            time.sleep(0.3)
            try:
                slow.sendall(f"X-Slow-{i}: y\r\n".encode())
                ended = select.select([slow], [], [], 0)[0] and slow.recv(1024) == b""
            except OSError:  # reset: the server shut the connection
                ended = True
            if ended:
                closed_after = time.monotonic() - started
                break
            if i == 1:
                assert _get(f"{url}/index.html")[0] == 200
        slow.close()
    assert 1.5 <= closed_after < 1.5 + 3.0


def test_the_listen_backlog_holds_150_connections_at_once(tiny_site: Path) -> None:
    """150 connections opened before the server accepts any: every handshake completes at
    once (socketserver's backlog of 5 made the kernel drop the SYNs past the sixth, each
    then waiting for a retransmit after 1 s)."""
    server = localsite.QuietServer(("127.0.0.1", 0), http.server.BaseHTTPRequestHandler)
    clients = []
    try:
        for _ in range(150):
            client = socket.socket()
            client.setblocking(False)
            client.connect_ex(server.server_address)
            clients.append(client)
        deadline = time.monotonic() + 0.5  # well before a SYN is retransmitted
        pending = list(clients)
        while pending and time.monotonic() < deadline:
            _, ready, _ = select.select([], pending, [], max(0.0, deadline - time.monotonic()))
            pending = [c for c in pending if c not in ready]
        connected = [c for c in clients if c not in pending and not c.getsockopt(
            socket.SOL_SOCKET, socket.SO_ERROR)]  # fmt: skip
        assert len(connected) == 150
    finally:
        for client in clients:
            client.close()
        server.server_close()


def test_make_serve_runs_the_hardened_server(tiny_site: Path) -> None:
    """``python -m tcplab.localsite FOLDER --port N``: what ``make serve`` runs."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = subprocess.Popen(
        [sys.executable, "-m", "tcplab.localsite", str(tiny_site), "--port", str(port)],
        stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert server.stdout is not None
        assert server.stdout.readline().startswith(f"Serving the book at http://127.0.0.1:{port}/")
        assert _get(f"http://127.0.0.1:{port}/index.html")[0] == 200
        assert _get(f"http://127.0.0.1:{port}/etc-link/secret.txt")[0] == 404
    finally:
        server.terminate()
        server.wait(timeout=30)
    makefile = (Path(__file__).resolve().parents[1] / "Makefile").read_text(encoding="utf-8")
    assert "-m tcplab.localsite _build/html" in makefile and "http.server 8000" not in makefile
