"""JSON over HTTP with the standard library: what the runtime's endpoints speak."""
from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import Any


def http(method: str, url: str, body: Any = None, timeout: float = 30) -> tuple[int, dict]:
    """Sends body as JSON; returns (status, parsed JSON reply). An HTTP error status is returned,
    not raised; a reply that is not JSON comes back as {"raw": text}. An empty reply is {}."""
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, method=method, headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return response.status, json.loads(response.read() or b"{}")
    except urllib.error.HTTPError as e:
        text = e.read()
        try:
            return e.code, json.loads(text)
        except json.JSONDecodeError:
            return e.code, {"raw": text.decode(errors="replace")}


def answers(url: str, timeout: float = 2) -> bool:
    """Whether the URL answers 200 within timeout seconds."""
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:
            return response.status == 200
    except OSError:
        return False
