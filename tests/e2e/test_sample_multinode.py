"""examples/operations/multinode as its README runs it (issue 18): the package zipped to the config server's
prepareandactivate, the 5 album documents of album-recommendation POSTed to /document/v1, `vespa visit` lists them,
the metrics proxy answers `content.proton.documentdb.documents.total.last` 5 on each of the 3 content nodes
(min-redundancy 3, searchable-copies 3: every node holds and indexes every document, one copy of each is active), and
the README's query over all sources answers totalCount 5. The README's node stops are Docker's and not run.
Runs when DWELL_SAMPLE_APPS points at a sample-apps checkout; skipped otherwise (CI cannot reach GitHub)."""
from __future__ import annotations

import json
import shutil
import time
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Iterator

import pytest
from dwell_client import CONFIG_SERVER, CONTAINER, Runtime, answers, http, vespa, wait_for_container

from sample_standins import SAMPLE_APPS, zipped

APP = SAMPLE_APPS / "examples" / "operations" / "multinode" if SAMPLE_APPS else None
pytestmark = pytest.mark.skipif(APP is None or not APP.exists(),
                                reason="DWELL_SAMPLE_APPS does not point at a vespa-engine/sample-apps checkout")


LEFT_OUT = ["img/*", "README.md", ".gitignore"]  # zip -r - . -x "img/*" README.md .gitignore, as the README sends it


@pytest.fixture(scope="module")
def runtime(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Runtime]:
    copy = tmp_path_factory.mktemp("multinode") / "app"
    shutil.copytree(APP, copy)
    rt = Runtime(copy.parent / "data")
    rt.start()
    try:
        # Deploy once the metrics proxy answers, as the README waits for its nodes' ports. (A deploy that got in before
        # the runtime's recovery of the last session used to be served twice, the container restarted under the feed:
        # the README row's "four of the five POSTs answered nothing"; Runtime.recover() now leaves it serving.)
        deadline = time.time() + 60
        while not answers("http://localhost:19092/metrics/v1/values"):
            assert time.time() < deadline, rt.log()
            time.sleep(0.2)
        time.sleep(1)
        request = urllib.request.Request(f"{CONFIG_SERVER}/application/v2/tenant/default/prepareandactivate", data=zipped(copy, LEFT_OUT),
                                         headers={"Content-Type": "application/zip"}, method="POST")
        with urllib.request.urlopen(request, timeout=300) as response:
            assert response.status == 200
            assert "activated" in json.loads(response.read())["message"]
        wait_for_container()
        yield rt
    finally:
        rt.stop()


def test_five_albums_on_each_of_three_nodes_found_once(runtime: Runtime) -> None:
    albums = sorted((SAMPLE_APPS / "album-recommendation" / "dataset").glob("*.json"))
    assert len(albums) == 5
    for i, album in enumerate(albums):
        status, body = http("POST", f"{CONTAINER}/document/v1/mynamespace/music/docid/{i}", json.loads(album.read_text()))
        assert status == 200, body
    visited = vespa("visit", check=False)
    assert visited.returncode == 0, visited.stderr
    assert sorted(json.loads(line)["id"] for line in visited.stdout.splitlines() if line.strip()) == \
        [f"id:mynamespace:music::{i}" for i in range(5)]
    status, metrics = http("GET", "http://localhost:19092/metrics/v1/values")
    assert status == 200, metrics
    by_node = {m["dimensions"]["distributionkey"]: m["values"] for service in metrics["services"] if service["name"] == "vespa.searchnode"
               for m in service["metrics"] if "content.proton.documentdb.documents.total.last" in m["values"]}
    assert sorted(by_node) == ["0", "1", "2"], by_node
    assert all(values["content.proton.documentdb.documents.total.last"] == 5 for values in by_node.values()), by_node  # the README's 5 per node
    assert all(values["content.proton.documentdb.documents.ready.last"] == 5 for values in by_node.values()), by_node
    assert sum(values["content.proton.documentdb.documents.active.last"] for values in by_node.values()) == 5, by_node
    status, result = http("GET", f"{CONTAINER}/search/?yql=" + urllib.parse.quote('select * from sources * where sddocname contains "music"'))
    assert status == 200, result
    assert result["root"]["fields"]["totalCount"] == 5
    assert sorted(hit["id"] for hit in result["root"]["children"]) == [f"id:mynamespace:music::{i}" for i in range(5)]


def test_the_three_cluster_controllers_answer_the_cluster_state(runtime: Runtime) -> None:
    """The README's cluster controllers (node0-2, port 19050, which it maps with Docker to localhost:19050-19052) serve
    the cluster state REST API on their hosts' addresses: music up, its three nodes up, each holding the 5 albums
    (after the test above), and the README's /clustercontroller-status/v1/music pages, where node0's controller is the
    master ("0 is normally master")."""
    addresses = dict(reversed(line.split()) for line in (runtime.data / "hosts").read_text().splitlines()
                     if line and not line.startswith("#"))
    up = {"state": "up", "reason": ""}
    for index, host in enumerate(("node0.vespanet", "node1.vespanet", "node2.vespanet")):
        base = f"http://{addresses[host]}:19050/cluster/v2/music"
        status, cluster = http("GET", base)
        assert status == 200 and cluster["state"]["generated"] == up, cluster
        assert cluster["distribution-states"]["published"]["baseline"] == "version:1 distributor:3 storage:3"
        for key in range(3):
            status, node = http("GET", f"{base}/storage/{key}")
            assert status == 200 and node["state"]["user"] == up and node["metrics"]["unique-document-count"] == 5, node
        with urllib.request.urlopen(f"http://{addresses[host]}:19050/clustercontroller-status/v1/music", timeout=30) as page:
            html = page.read().decode()
        assert "<td>storage</td><td>2</td><td></td><td>up</td><td>up</td><td>up</td><td>5</td>" in html, html
        master = "is the master" if index == 0 else "is not the master; the master is cluster controller 0"
        assert f"This cluster controller (index {index}) {master}, of 3 controllers" in html, html
