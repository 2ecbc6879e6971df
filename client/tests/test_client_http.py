"""dwell_client.http and answers against a tiny local HTTP server: no runtime needed."""
from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Iterator

import pytest

from dwell_client import answers, http


class Handler(BaseHTTPRequestHandler):
    """Answers by path: /ok echoes the request as JSON, /empty 200 with no body, /missing 404
    JSON, /broken 500 plain text, /teapot 418 JSON."""

    def _reply(self, status: int, body: bytes, kind: str = "application/json") -> None:
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def _handle(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        sent = self.rfile.read(length) if length else b""
        if self.path == "/ok":
            self._reply(200, json.dumps({"method": self.command, "type": self.headers["Content-Type"],
                                         "body": json.loads(sent) if sent else None}).encode())
        elif self.path == "/empty":
            self._reply(200, b"")
        elif self.path == "/missing":
            self._reply(404, b'{"message": "no such document"}')
        elif self.path == "/broken":
            self._reply(500, b"<html>internal error</html>", "text/html")
        else:
            self._reply(418, b'{"teapot": true}')

    do_GET = do_POST = do_PUT = do_DELETE = _handle

    def log_message(self, *args) -> None:
        pass


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


def test_a_body_is_sent_as_json_and_the_reply_parsed(server: str) -> None:
    status, reply = http("PUT", server + "/ok", {"fields": {"upvotes": {"increment": 1}}})
    assert status == 200
    assert reply == {"method": "PUT", "type": "application/json", "body": {"fields": {"upvotes": {"increment": 1}}}}


def test_no_body_sends_none_and_an_empty_reply_is_an_empty_dict(server: str) -> None:
    assert http("GET", server + "/ok") == (200, {"method": "GET", "type": "application/json", "body": None})
    assert http("GET", server + "/empty") == (200, {})


def test_an_error_status_is_returned_with_its_json_not_raised(server: str) -> None:
    assert http("GET", server + "/missing") == (404, {"message": "no such document"})
    assert http("DELETE", server + "/teapot") == (418, {"teapot": True})


def test_an_error_reply_that_is_not_json_comes_back_raw(server: str) -> None:
    assert http("POST", server + "/broken", {}) == (500, {"raw": "<html>internal error</html>"})


def test_answers_is_true_only_for_200(server: str) -> None:
    assert answers(server + "/ok")
    assert not answers(server + "/missing")
    assert not answers(server + "/broken")


def test_answers_is_false_when_nothing_listens() -> None:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]      # bound, not listening: connections are refused
        assert not answers(f"http://127.0.0.1:{port}/status.html", timeout=1)


def test_a_connection_failure_raises(server: str) -> None:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
        with pytest.raises(OSError):
            http("GET", f"http://127.0.0.1:{port}/ok", timeout=1)
