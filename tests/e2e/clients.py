"""Shared helpers for the client tests: the runtime fixture and a whole-data snapshot."""
from __future__ import annotations

import json
import subprocess
import urllib.parse
import urllib.request
from pathlib import Path

from dwell_client import CONTAINER, ROOT, Runtime, deployed_runtime, http, vespa, wait_for_container  # noqa: F401


def visit_all(cluster: str, bucket_space: str | None = None, **more: str) -> list[dict]:
    """Every document of a content cluster's bucket space, through /document/v1 visiting."""
    documents: list[dict] = []
    continuation = None
    while True:
        parameters = {"cluster": cluster, "wantedDocumentCount": "1000", **more}
        if bucket_space:
            parameters["bucketSpace"] = bucket_space
        if continuation:
            parameters["continuation"] = continuation
        status, body = http("GET", f"{CONTAINER}/document/v1/?" + urllib.parse.urlencode(parameters))
        assert status == 200, body
        documents.extend(body.get("documents", []))
        continuation = body.get("continuation")
        if not continuation:
            return documents


def snapshot(cluster: str, bucket_spaces: tuple[str, ...] = ("default", "global")) -> str:
    """All stored documents, in a canonical form, to compare before and after a request."""
    documents = [d for space in bucket_spaces for d in visit_all(cluster, space)]
    return json.dumps(sorted(documents, key=lambda d: d["id"]), sort_keys=True)


def mcp_call(method: str, params: dict | None = None, request_id: int = 1) -> dict:
    """One JSON-RPC request to the container's MCP handler (/mcp/); returns its result (fails on an error)."""
    body = {"jsonrpc": "2.0", "id": request_id, "method": method} | ({"params": params} if params is not None else {})
    request = urllib.request.Request(f"{CONTAINER}/mcp/", data=json.dumps(body).encode(), method="POST",
                                     headers={"Content-Type": "application/json", "Accept": "application/json, text/event-stream"})
    with urllib.request.urlopen(request, timeout=60) as response:
        assert response.status == 200
        reply = json.loads(response.read())
    assert "error" not in reply, reply
    return reply["result"]


def maven_package(project: Path) -> None:
    """`mvn package` of a Maven project (a bundle and the application it builds), at nice 19; fails with Maven's output."""
    built = subprocess.run(["nice", "-n", "19", "mvn", "-B", "-q", "-ntp", "package"], cwd=project, capture_output=True, text=True)
    assert built.returncode == 0, built.stdout + built.stderr


def vespa_query(*parameters: str) -> dict:
    """`vespa query PARAMETERS` (with 20 s to answer); the reply's root, asserted free of errors."""
    done = vespa("query", *parameters, "timeout=20s", check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    root = json.loads(done.stdout)["root"]
    assert "errors" not in root, root["errors"]
    return root
