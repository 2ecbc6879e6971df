"""The cluster controllers' cluster state REST API (/cluster/v2, issue 18) on tests/apps/replicas: three content nodes on
three hosts. Vespa's model puts the cluster controller on the admin server's host (node0) at port 19050; the runtime's
hosts file gives node0 its own loopback address, and /cluster/v2 answers there: the cluster `items`, up, its storage and
distributor services, and their nodes 0-2, each up in its generated, reported and wanted states, each storage node with
the documents it holds (every node a copy of each: min-redundancy 3). A state set answers 501 and changes nothing. The
controller's status page for people (/clustercontroller-status/v1/items) shows the same in HTML."""
from __future__ import annotations

import re
import urllib.error
import urllib.request
from pathlib import Path
from typing import Iterator

import pytest
from dwell_client import ROOT, Runtime, http
from dwell_client.application import deployed_runtime

APP = ROOT / "tests" / "apps" / "replicas"
FEED = APP / "feed.jsonl"
DOCUMENTS = sum(1 for line in FEED.read_text().splitlines() if line.strip())
CONTROLLER_HOST = "replicas-node0.example.com"  # the admin server's host (services.xml's adminserver hostalias node0)
PORT = 19050


@pytest.fixture(scope="module")
def runtime(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Runtime]:
    yield from deployed_runtime(tmp_path_factory.mktemp("cluster-state") / "data", APP, FEED)


def address(runtime: Runtime, host: str) -> str:
    """The address the runtime's hosts file gives the host (the JVM resolves names from it only)."""
    for line in (Path(runtime.data) / "hosts").read_text().splitlines():
        fields = line.split()
        if len(fields) == 2 and fields[1] == host:
            return fields[0]
    raise AssertionError(f"{host} not in the runtime's hosts file")


def test_the_cluster_controller_serves_the_content_nodes_states(runtime: Runtime) -> None:
    base = f"http://{address(runtime, CONTROLLER_HOST)}:{PORT}/cluster/v2"
    assert address(runtime, CONTROLLER_HOST) != "127.0.0.1"  # node0 is a content host: an address of its own
    assert http("GET", f"{base}/") == (200, {"cluster": {"items": {"link": "/cluster/v2/items"}}})
    status, cluster = http("GET", f"{base}/items")
    assert status == 200, cluster
    assert cluster["state"] == {"generated": {"state": "up", "reason": ""}}
    assert cluster["service"] == {"storage": {"link": "/cluster/v2/items/storage"},
                                  "distributor": {"link": "/cluster/v2/items/distributor"}}
    published = cluster["distribution-states"]["published"]
    assert published["baseline"] == "version:1 distributor:3 storage:3", published
    assert [space["name"] for space in published["bucket-spaces"]] == ["default", "global"]
    assert http("GET", f"{base}/items/storage") == (200, {"node": {str(key): {"link": f"/cluster/v2/items/storage/{key}"}
                                                                   for key in range(3)}})
    up = {"state": "up", "reason": ""}
    for key in range(3):
        status, node = http("GET", f"{base}/items/storage/{key}")
        assert status == 200, node
        assert node == {"attributes": {"hierarchical-group": ""}, "state": {"generated": up, "unit": up, "user": up},
                        "metrics": {"unique-document-count": DOCUMENTS}}
        assert http("GET", f"{base}/items/distributor/{key}") == (200, {"attributes": {"hierarchical-group": ""},
                                                                        "state": {"generated": up, "unit": up, "user": up}})
    status, recursive = http("GET", f"{base}/?recursive=true")
    assert recursive["cluster"]["items"]["service"]["distributor"]["node"]["2"]["state"]["user"] == up
    assert http("GET", f"{base}/items/storage/3")[0] == 404


def test_a_state_set_is_refused_and_changes_nothing(runtime: Runtime) -> None:
    base = f"http://{address(runtime, CONTROLLER_HOST)}:{PORT}/cluster/v2"
    before = http("GET", f"{base}/items/storage/1")
    status, body = http("PUT", f"{base}/items/storage/1", {"state": {"user": {"state": "maintenance", "reason": "test"}}})
    assert status == 501 and "cannot be set in dwell's local runtime" in body["message"], body
    assert http("GET", f"{base}/items/storage/1") == before
    assert http("GET", f"{base}/items")[1]["distribution-states"]["published"]["baseline"] == "version:1 distributor:3 storage:3"


def page(url: str) -> tuple[int, str, str]:
    """GETs an HTML page: (status, text, content type)."""
    try:
        with urllib.request.urlopen(url, timeout=30) as response:
            return response.status, response.read().decode(), response.headers["Content-Type"]
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode(errors="replace"), e.headers["Content-Type"]


def test_the_status_page_shows_the_cluster_state_and_its_nodes(runtime: Runtime) -> None:
    base = f"http://{address(runtime, CONTROLLER_HOST)}:{PORT}/clustercontroller-status/v1"
    status, html, content_type = page(f"{base}/items")
    assert status == 200 and content_type == "text/html; charset=utf-8", html
    assert "This cluster controller (index 0) is the master" in html, html
    rows = [re.findall(r"<td>(.*?)</td>", row) for row in re.findall(r"<tr><td>.*?</tr>", html)]
    state = "version:1 distributor:3 storage:3"
    assert rows == [["1", space, state] for space in ("baseline", "default", "global")] + \
        [["distributor", str(key), "", "up", "up", "up", ""] for key in range(3)] + \
        [["storage", str(key), "", "up", "up", "up", str(DOCUMENTS)] for key in range(3)], html
    status, listing, _ = page(f"{base}/")
    assert status == 200 and '<a href="/clustercontroller-status/v1/items">items</a>' in listing, listing
    assert page(f"{base}/nope")[0] == 404
