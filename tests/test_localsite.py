"""tcplab.localsite: the book's local server stays quiet when a client hangs up."""

from __future__ import annotations

import http.server

import pytest

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
