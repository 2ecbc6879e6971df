"""A runtime process: started and stopped through ./dwell with its own data directory."""
from __future__ import annotations

import fcntl
import os
import signal
import subprocess
import sys
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, Callable, Iterator

from .paths import ROOT
from .waits import wait_for_free_ports


@dataclass
class Runtime:
    """The runtime serving data (DWELL_DATA): `./dwell start|stop`, its pid file and its log."""

    data: Path

    @property
    def pid_file(self) -> Path:
        return self.data / "runtime.pid"

    @property
    def log_file(self) -> Path:
        return self.data / "logs" / "runtime.log"

    def env(self) -> dict[str, str]:
        return {**os.environ, "DWELL_DATA": str(self.data)}

    def pid(self) -> int | None:
        """The pid ./dwell start wrote, or None when there is no (readable) pid file."""
        try:
            return int(self.pid_file.read_text())
        except (OSError, ValueError):
            return None

    def alive(self) -> bool:
        """Whether the process of the pid file exists."""
        pid = self.pid()
        if pid is None:
            return False
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        except PermissionError:
            return True
        return True

    def start(self, *args: str, wait_for_ports: bool = True) -> None:
        """./dwell start ARGS, after any other runtime on this machine has stopped; returns when
        the config server answers (CalledProcessError when the runtime exits or does not come up)."""
        if wait_for_ports:
            wait_for_free_ports()
        subprocess.run([str(ROOT / "dwell"), "start", *args], check=True, env=self.env(), cwd=ROOT)

    def stop(self, check: bool = True) -> None:
        """./dwell stop: SIGTERM, SIGKILL after 60 s; removes the pid file."""
        subprocess.run([str(ROOT / "dwell"), "stop"], check=check, env=self.env(), cwd=ROOT)

    def kill9(self) -> None:
        """SIGKILL, as a crash would: waits up to 10 s for the process to go, removes the pid file."""
        pid = int(self.pid_file.read_text())
        os.kill(pid, signal.SIGKILL)
        for _ in range(100):
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                break
            time.sleep(0.1)
        self.pid_file.unlink(missing_ok=True)

    def log(self, tail: int = 5000) -> str:
        """The last tail characters of the runtime's log ("" before it has one)."""
        path = self.log_file
        return path.read_text(errors="replace")[-tail:] if path.exists() else ""

    def owns_ports(self, settle_s: float = 3.0) -> bool:
        """True when this runtime's JVM is alive and is the process listening on :19071 (ss)."""
        deadline = time.time() + settle_s
        while True:
            pid = self.pid()
            if pid is None:
                return False
            try:
                os.kill(pid, 0)
            except OSError:
                return False
            listening = subprocess.run(["ss", "-ltnpH", "sport = :19071"], capture_output=True, text=True).stdout
            if f"pid={pid}," in listening:
                return True
            if time.time() > deadline:
                return False
            time.sleep(0.2)


RUNTIME_LOCK = Path("/tmp/dwell-runtime.lock")   # one runtime per machine: its ports are fixed


@contextmanager
def runtime_lock(take: bool = True, path: Path = RUNTIME_LOCK) -> Iterator[None]:
    """Holds the machine-wide runtime lock for the block (waits for it), unless take is false: the
    caller already holds it (e.g. `flock /tmp/dwell-runtime.lock pytest ...`)."""
    if not take:
        yield
        return
    with path.open("a") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            print(f"waiting for the runtime lock ({path}) ...", file=sys.stderr, flush=True)
            fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


@dataclass
class OwnRuntime:
    """A runtime held from start to stop (a context manager). The ports are the machine's: the
    lock file serialises runtimes of other processes that take it too, and start makes sure the
    process on the ports is ours, retrying when another runtime took them first."""

    data: Path
    waiting: Callable[[], None] | None = None     # called while another runtime holds the ports
    lock_path: Path = RUNTIME_LOCK
    runtime: Runtime = field(init=False)
    _lock: IO[str] | None = field(default=None, init=False, repr=False)

    def __post_init__(self) -> None:
        self.runtime = Runtime(self.data)

    def __enter__(self) -> "OwnRuntime":
        self.data.mkdir(parents=True, exist_ok=True)
        self._lock = self.lock_path.open("a")
        try:
            # Not blocking: a caller may already hold it for us (`flock LOCK pytest ...`), and
            # blocking on our own holder would never end. If it is held, the port check below
            # still waits for any other runtime to stop.
            fcntl.flock(self._lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            pass
        for _ in range(3):
            wait_for_free_ports(interval=10, waiting=self.waiting)
            self.runtime.start(wait_for_ports=False)
            if self.runtime.owns_ports():
                return self
            # Somebody else's runtime took the ports between our check and our start: ours died
            # (BindException) while `dwell start` saw theirs answer. Never talk to theirs.
            self.runtime.stop(check=False)
        raise RuntimeError("could not get the runtime ports: another runtime keeps taking them")

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    def stop(self) -> None:
        """Stops the runtime and lets others have the machine's ports; idempotent."""
        if self._lock is None:
            return
        self.runtime.stop(check=False)
        self._lock.close()
        self._lock = None
