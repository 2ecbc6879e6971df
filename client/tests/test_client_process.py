"""Runtime's pid file handling, the repository lookup and the vespa binary: no runtime needed."""
from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

import dwell_client
from dwell_client import ROOT, Runtime, find_root, vespa_binary


def test_root_is_this_checkout() -> None:
    assert (ROOT / "dwell").is_file() and (ROOT / "runtime").is_dir()
    assert Path(dwell_client.__file__).resolve().is_relative_to(ROOT / "client")


def test_find_root_honours_dwell_root_then_walks_up(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DWELL_ROOT", str(tmp_path))
    assert find_root() == tmp_path.resolve()
    monkeypatch.delenv("DWELL_ROOT")
    assert find_root(tmp_path) == ROOT        # the package's own checkout comes first


def test_no_pid_file_means_no_pid_and_not_alive(tmp_path: Path) -> None:
    rt = Runtime(tmp_path)
    assert rt.pid() is None and not rt.alive()
    (tmp_path / "runtime.pid").write_text("not a pid\n")
    assert rt.pid() is None and not rt.alive()


def test_pid_and_env_name_the_data_directory(tmp_path: Path) -> None:
    rt = Runtime(tmp_path)
    (tmp_path / "runtime.pid").write_text(f"{os.getpid()}\n")
    assert rt.pid() == os.getpid() and rt.alive()
    assert rt.env()["DWELL_DATA"] == str(tmp_path)
    assert rt.pid_file == tmp_path / "runtime.pid"


def test_kill9_kills_the_process_and_removes_the_pid_file(tmp_path: Path) -> None:
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    reaper = threading.Thread(target=child.wait)   # as init reaps the real runtime: no zombie to wait on
    reaper.start()
    try:
        (tmp_path / "runtime.pid").write_text(str(child.pid))
        rt = Runtime(tmp_path)
        assert rt.alive()
        rt.kill9()
        reaper.join(timeout=10)
        assert child.returncode == -9
        assert not (tmp_path / "runtime.pid").exists() and not rt.alive()
    finally:
        if child.poll() is None:
            child.kill()


def test_log_is_the_tail_of_the_runtime_log(tmp_path: Path) -> None:
    rt = Runtime(tmp_path)
    assert rt.log() == ""
    (tmp_path / "logs").mkdir()
    (tmp_path / "logs" / "runtime.log").write_text("x" * 6000 + "the end")
    assert rt.log().endswith("the end") and len(rt.log()) == 5000
    assert rt.log(tail=7) == "the end"


def test_owns_ports_is_false_without_a_live_pid(tmp_path: Path) -> None:
    assert not Runtime(tmp_path).owns_ports(settle_s=0)


def test_vespa_binary_is_the_go_binary_and_its_exit_code_counts() -> None:
    binary = Path(vespa_binary())
    assert binary.is_file() and os.access(binary, os.X_OK)
    assert binary.read_bytes()[:4] == b"\x7fELF"              # not the Python wrapper script
    assert subprocess.run([str(binary), "version"], capture_output=True).returncode == 0
    assert subprocess.run([str(binary), "no-such-command"], capture_output=True).returncode != 0


def _held_elsewhere(path: Path) -> bool:
    """Whether another process finds the lock file held (flock locks are per open file, so ask a child)."""
    probe = ("import fcntl, sys\n"
             "f = open(sys.argv[1], 'a')\n"
             "try:\n    fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)\nexcept BlockingIOError:\n    sys.exit(1)\n")
    return subprocess.run([sys.executable, "-c", probe, str(path)]).returncode == 1


def test_runtime_lock_is_held_for_the_block_and_released_after(tmp_path: Path) -> None:
    lock = tmp_path / "runtime.lock"
    with dwell_client.runtime_lock(path=lock):
        assert _held_elsewhere(lock)
    assert not _held_elsewhere(lock)


def test_runtime_lock_takes_nothing_when_the_caller_holds_it(tmp_path: Path) -> None:
    lock = tmp_path / "runtime.lock"
    with dwell_client.runtime_lock(False, path=lock):
        assert not _held_elsewhere(lock)


def _dwell_stop(data: Path) -> subprocess.CompletedProcess:
    return subprocess.run([str(ROOT / "dwell"), "stop"], capture_output=True, text=True, timeout=60,
                          env={**os.environ, "DWELL_DATA": str(data)})


def test_stop_never_signals_a_process_that_is_not_the_runtime(tmp_path: Path) -> None:
    """A pid file whose pid now belongs to another process (the runtime died, the pid was reused): not a runtime."""
    other = subprocess.Popen(["sleep", "60"])
    try:
        (tmp_path / "runtime.pid").write_text(f"{other.pid}\n")
        done = _dwell_stop(tmp_path)
        assert done.returncode == 0, done.stderr
        assert "the runtime is not running" in done.stderr, done.stderr
        assert other.poll() is None, "dwell stop killed a process that was not the runtime"
        assert not (tmp_path / "runtime.pid").exists()
    finally:
        other.kill()
        other.wait()


def test_a_zombie_is_not_a_running_runtime(tmp_path: Path) -> None:
    """kill -0 succeeds on a process that has exited but is not yet reaped; the runtime's checks look at its state."""
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    stat = Path(f"/proc/{child.pid}/stat")
    for _ in range(500):  # exited, not reaped: state Z
        if stat.read_text().rsplit(")", 1)[1].split()[0] == "Z":
            break
        threading.Event().wait(0.01)
    else:
        pytest.fail("the child did not become a zombie")
    try:
        os.kill(child.pid, 0)  # what the old check trusted
        (tmp_path / "runtime.pid").write_text(f"{child.pid}\n")
        done = _dwell_stop(tmp_path)
        assert done.returncode == 0, done.stderr
        assert "the runtime is not running" in done.stderr, done.stderr
    finally:
        child.wait()
