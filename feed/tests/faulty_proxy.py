"""An HTTP/1.1 proxy in front of the container that loses writes in the two ways a network
does: refused before they reach the server (503, not applied) and applied with the reply lost
(the connection closes, so the client can't know)."""
from __future__ import annotations

import http.client
import random
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class FaultyProxy:
    def __init__(self, upstream_port: int, reject: float, lose_reply: float, seed: int = 1):
        self.rng = random.Random(seed)
        self.lock = threading.Lock()
        self.counts = {"forwarded": 0, "rejected": 0, "reply_lost": 0}
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args) -> None:
                pass

            def forward(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                fault = None
                if self.command in ("POST", "PUT"):
                    with proxy.lock:
                        r = proxy.rng.random()
                    fault = "rejected" if r < reject else "reply_lost" if r < reject + lose_reply else None
                with proxy.lock:
                    proxy.counts[fault or "forwarded"] += 1
                if fault == "rejected":
                    payload = b'{"message":"injected: service unavailable"}'
                    self.send_response(503)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(payload)))
                    self.end_headers()
                    self.wfile.write(payload)
                    return
                upstream = http.client.HTTPConnection("localhost", upstream_port, timeout=30)
                upstream.request(self.command, self.path, body=body or None,
                                 headers={"Content-Type": self.headers.get("Content-Type", "application/json")})
                response = upstream.getresponse()
                payload = response.read()
                upstream.close()
                if fault == "reply_lost":
                    self.close_connection = True  # applied upstream; the client sees a dropped connection
                    return
                self.send_response(response.status)
                self.send_header("Content-Type", response.getheader("Content-Type", "application/json"))
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            do_GET = do_POST = do_PUT = do_DELETE = forward

        self.server = ThreadingHTTPServer(("localhost", 0), Handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> "FaultyProxy":
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()
