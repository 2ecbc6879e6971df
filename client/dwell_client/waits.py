"""Waiting for the machine's runtime ports to be free, and for the container to answer."""
from __future__ import annotations

import time
from typing import Callable

from .httpjson import answers
from .paths import CONFIG_SERVER, CONTAINER


def wait_for_free_ports(timeout: float = 900, interval: float = 5,
                        waiting: Callable[[], None] | None = None) -> None:
    """Only one runtime can serve on this machine (its ports come from the package): wait for any
    other to stop, so that a caller never talks to somebody else's runtime. waiting() is called
    before each pause."""
    deadline = time.time() + timeout
    while True:
        if not answers(CONFIG_SERVER + "/status.html"):
            return
        if time.time() > deadline:
            raise RuntimeError("another dwell runtime keeps serving on :19071; stop it (./dwell stop)")
        if waiting is not None:
            waiting()
        time.sleep(interval)


def wait_for_container(timeout: float = 180, interval: float = 0.5, endpoint: str = CONTAINER) -> None:
    """Waits until the container's /status.html answers 200; TimeoutError after timeout seconds."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        if answers(endpoint + "/status.html"):
            return
        time.sleep(interval)
    raise TimeoutError("the container did not come up")
