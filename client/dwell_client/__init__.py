"""dwell_client: one Python client for dwell's local runtime (runtime/), used by the tests,
the benchmarks (bench/) and the learning loop (learning/).

    from dwell_client import Runtime, deploy, search
    rt = Runtime(Path("/tmp/data"))
    rt.start()                              # ./dwell start with DWELL_DATA=/tmp/data
    deploy(ROOT / "target" / "application")
    search(article="a1", hits=5)
    rt.stop()
"""
from .application import deploy, deployed_runtime, document_url, feed, get, put, search, update
from .cli import vespa, vespa_binary
from .httpjson import answers, http
from .paths import CONFIG_SERVER, CONTAINER, ROOT, find_root
from .process import RUNTIME_LOCK, OwnRuntime, Runtime, runtime_lock
from .waits import wait_for_container, wait_for_free_ports

__all__ = [
    "CONFIG_SERVER", "CONTAINER", "ROOT", "RUNTIME_LOCK", "OwnRuntime", "Runtime", "answers", "deploy",
    "deployed_runtime", "document_url", "feed", "find_root", "get", "http", "put", "runtime_lock", "search", "update",
    "vespa", "vespa_binary", "wait_for_container", "wait_for_free_ports",
]
