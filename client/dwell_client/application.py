"""The deployed application: deploy, feed, search and document/v1."""
from __future__ import annotations

import time
import urllib.parse
from pathlib import Path
from typing import Any, Iterator

from .cli import vespa
from .httpjson import answers, http
from .paths import CONTAINER
from .process import Runtime
from .waits import wait_for_container


def deploy(package: Path, endpoint: str = CONTAINER, timeout: float = 300) -> float:
    """`vespa deploy --wait` of the package, then waits for the container to answer; returns the
    seconds from the start of the deploy until it does."""
    started = time.time()
    done = vespa("deploy", "--wait", str(int(timeout)), str(Path(package).resolve()), check=False, timeout=None)
    if done.returncode != 0:
        raise RuntimeError(f"vespa deploy failed: {done.stdout}{done.stderr}")
    while not answers(f"{endpoint}/status.html"):
        if time.time() - started > timeout:
            raise TimeoutError("the container did not come back after the deploy")
        time.sleep(0.2)
    return time.time() - started


def feed(path: Path, timeout: float | None = None) -> str:
    """`vespa feed` of a JSONL file; returns its output (the feed summary). RuntimeError with the
    CLI's output when it fails."""
    done = vespa("feed", str(Path(path).resolve()), check=False, timeout=timeout)
    if done.returncode != 0:
        raise RuntimeError(done.stdout + done.stderr)
    return done.stdout


def search(**parameters: Any) -> dict:
    """GET /search/ on the container with the parameters (a__b names parameter a.b); asserts 200,
    returns the reply."""
    query = urllib.parse.urlencode({k.replace("__", "."): v for k, v in parameters.items()})
    status, body = http("GET", f"{CONTAINER}/search/?{query}")
    assert status == 200, body
    return body


def document_url(doctype: str, docid: str, namespace: str = "dwell", endpoint: str = CONTAINER) -> str:
    """/document/v1 URL of one document (the id is URL-quoted)."""
    return f"{endpoint}/document/v1/{namespace}/{doctype}/docid/{urllib.parse.quote(docid)}"


def put(doctype: str, docid: str, fields: dict[str, Any], namespace: str = "dwell",
        endpoint: str = CONTAINER) -> tuple[int, dict]:
    """POST /document/v1: writes a whole document; returns (status, reply)."""
    return http("POST", document_url(doctype, docid, namespace, endpoint), {"fields": fields})


def update(doctype: str, docid: str, fields: dict[str, Any], namespace: str = "dwell",
           endpoint: str = CONTAINER) -> tuple[int, dict]:
    """PUT /document/v1: a partial update, fields as {name: {"assign"|"increment"|...: value}}."""
    return http("PUT", document_url(doctype, docid, namespace, endpoint), {"fields": fields})


def get(doctype: str, docid: str, namespace: str = "dwell", endpoint: str = CONTAINER) -> tuple[int, dict]:
    """GET /document/v1; returns (status, reply), 404 when there is no such document."""
    return http("GET", document_url(doctype, docid, namespace, endpoint))


def deployed_runtime(data: Path, application: Path, feed: Path | None = None,
                     start_args: tuple[str, ...] = ()) -> Iterator[Runtime]:
    """Starts a runtime of our own, deploys the package with the vespa CLI and feeds it; yields it
    and always stops it (a generator for pytest fixtures)."""
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
