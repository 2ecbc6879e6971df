"""Shared helpers for the client tests: the runtime fixture and a whole-data snapshot."""
from __future__ import annotations

import json
import urllib.parse
from pathlib import Path

from runtime import CONTAINER, ROOT, Runtime, http, vespa, wait_for_container


def deployed_runtime(data: Path, application: Path, feed: Path | None = None):
    """Starts a runtime of our own, deploys the package with the vespa CLI and feeds it; yields it
    and always stops it."""
    rt = Runtime(data)
    rt.start()
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
