"""Start, stop and talk to dwell's runtime from tests: real processes, real HTTP, the real vespa CLI."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dwell_learning.service import http  # noqa: F401 (the tests' HTTP helper)

ROOT = Path(__file__).resolve().parents[2]
CONTAINER = "http://localhost:8080"
CONFIG_SERVER = "http://localhost:19071"


def wait_for_free_ports(timeout: float = 900) -> None:
    """Only one runtime can serve on this machine (its ports come from the package): wait for any
    other to stop, so that a test never talks to somebody else's runtime."""
    deadline = time.time() + timeout
    while True:
        try:
            with urllib.request.urlopen(CONFIG_SERVER + "/status.html", timeout=2):
                pass
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            return
        if time.time() > deadline:
            raise RuntimeError("another dwell runtime keeps serving on :19071; stop it (./dwell stop)")
        time.sleep(5)


@dataclass
class Runtime:
    data: Path

    def env(self) -> dict[str, str]:
        return {**os.environ, "DWELL_DATA": str(self.data)}

    def start(self, *args: str) -> None:
        wait_for_free_ports()
        subprocess.run([str(ROOT / "dwell"), "start", *args], check=True, env=self.env(), cwd=ROOT)

    def stop(self) -> None:
        subprocess.run([str(ROOT / "dwell"), "stop"], check=True, env=self.env(), cwd=ROOT)

    def kill9(self) -> None:
        pid = int((self.data / "runtime.pid").read_text())
        os.kill(pid, signal.SIGKILL)
        for _ in range(100):
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                break
            time.sleep(0.1)
        (self.data / "runtime.pid").unlink(missing_ok=True)

    def log(self) -> str:
        path = self.data / "logs" / "runtime.log"
        return path.read_text(errors="replace")[-5000:] if path.exists() else ""


def vespa(*args: str, check: bool = True, timeout: float = 600) -> subprocess.CompletedProcess:
    """The vespa CLI (pip install vespacli), against the local target. Runs the Go binary itself:
    the package's Python wrapper does not pass on its exit code."""
    from vespacli import get_binary_path

    binary = get_binary_path()
    return subprocess.run([binary, *args, "--target", "local"], capture_output=True, text=True,
                          check=check, timeout=timeout, cwd=ROOT)


def wait_for_container(timeout: float = 180) -> None:
    deadline = time.time() + timeout
    while time.time() < deadline:
        try:
            with urllib.request.urlopen(CONTAINER + "/status.html", timeout=2) as response:
                if response.status == 200:
                    return
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            pass
        time.sleep(0.5)
    raise TimeoutError("the container did not come up")


def search(**parameters: Any) -> dict:
    query = urllib.parse.urlencode({k.replace("__", "."): v for k, v in parameters.items()})
    status, body = http("GET", f"{CONTAINER}/search/?{query}")
    assert status == 200, body
    return body


def deployed_runtime(data: Path, application: Path, feed: Path | None = None, start_args: tuple[str, ...] = ()):
    """Starts a runtime of our own, deploys the package with the vespa CLI and feeds it; yields it
    and always stops it."""
    rt = Runtime(data)
    rt.start(*start_args)
    try:
        deployed = vespa("deploy", "--wait", "300", str(application), check=False)
        assert deployed.returncode == 0, deployed.stderr + deployed.stdout + rt.log()
        wait_for_container()
        if feed is not None:
            fed = vespa("feed", str(feed), check=False)
            assert fed.returncode == 0, fed.stderr + fed.stdout + rt.log()
        yield rt
    finally:
        rt.stop()
