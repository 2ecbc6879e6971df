"""wait_for_free_ports and wait_for_container against a local server on the ports' stand-ins."""
from __future__ import annotations

import time

import pytest

from dwell_client import waits


def test_free_ports_return_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(waits, "answers", lambda url: False)
    started = time.time()
    waits.wait_for_free_ports(timeout=5)
    assert time.time() - started < 1


def test_busy_ports_wait_then_raise_with_the_way_out(monkeypatch: pytest.MonkeyPatch) -> None:
    asked: list[str] = []
    waited: list[int] = []
    monkeypatch.setattr(waits, "answers", lambda url: asked.append(url) or True)
    with pytest.raises(RuntimeError, match=r"another dwell runtime keeps serving on :19071; stop it \(./dwell stop\)"):
        waits.wait_for_free_ports(timeout=0.3, interval=0.1, waiting=lambda: waited.append(1))
    assert asked[0] == "http://localhost:19071/status.html" and len(waited) >= 2


def test_ports_that_become_free_end_the_wait(monkeypatch: pytest.MonkeyPatch) -> None:
    answers = iter([True, True, False])
    monkeypatch.setattr(waits, "answers", lambda url: next(answers))
    waits.wait_for_free_ports(timeout=5, interval=0.01)


def test_the_container_wait_times_out(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(waits, "answers", lambda url: False)
    with pytest.raises(TimeoutError, match="the container did not come up"):
        waits.wait_for_container(timeout=0.2, interval=0.05)


def test_the_container_wait_asks_status_html(monkeypatch: pytest.MonkeyPatch) -> None:
    asked: list[str] = []
    monkeypatch.setattr(waits, "answers", lambda url: asked.append(url) or len(asked) > 1)
    waits.wait_for_container(timeout=5, interval=0.01, endpoint="http://example:1")
    assert asked == ["http://example:1/status.html"] * 2
