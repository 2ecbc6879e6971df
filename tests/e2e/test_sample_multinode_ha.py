"""examples/operations/multinode-HA as its README runs it (issue 18): two container clusters, `feed` (document-api,
document-processing, named by the content cluster's document-processing) and `query` (search), each a container of its
own here, `feed` on 8080 and `query` on 8081 (on Vespa each listens on 8080 of its own hosts; the README maps them to
8080/8081 and 8082/8083 with Docker). The package zipped as the README zips it to prepareandactivate, the containers'
/state/v1/health, the 5 album documents of album-recommendation POSTed to the feed cluster's /document/v1, `vespa visit`
lists them, and the README's sddocname query on the query cluster answers totalCount 5. The feed cluster serves no
/search/ and the query cluster no /document/v1, as on Vespa. The Docker node starts and stops are not run.
Runs when DWELL_SAMPLE_APPS points at a sample-apps checkout; skipped otherwise (CI cannot reach GitHub)."""
from __future__ import annotations

import json
import shutil
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Iterator

import pytest
from dwell_client import CONFIG_SERVER, Runtime, http, vespa, wait_for_container

from sample_standins import SAMPLE_APPS, zipped

APP = SAMPLE_APPS / "examples" / "operations" / "multinode-HA" if SAMPLE_APPS else None
pytestmark = pytest.mark.skipif(APP is None or not APP.exists(),
                                reason="DWELL_SAMPLE_APPS does not point at a vespa-engine/sample-apps checkout")
FEED = "http://localhost:8080"
QUERY = "http://localhost:8081"
LEFT_OUT = ["gke/*", "img/*", "scripts/*", "pki/*", "tls/*", "README.md", ".gitignore", "*.yaml"]


@pytest.fixture(scope="module")
def runtime(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Runtime]:
    copy = tmp_path_factory.mktemp("multinode-ha") / "app"
    shutil.copytree(APP, copy)
    rt = Runtime(copy.parent / "data")
    rt.start()
    try:
        request = urllib.request.Request(f"{CONFIG_SERVER}/application/v2/tenant/default/prepareandactivate", data=zipped(copy, LEFT_OUT),
                                         headers={"Content-Type": "application/zip"}, method="POST")
        with urllib.request.urlopen(request, timeout=300) as response:
            assert response.status == 200
            reply = json.loads(response.read())
            assert "prepared and activated." in reply["message"]
            logged = [entry["message"] for entry in reply["log"]]
            assert "dwell: container cluster 'feed' on localhost:8080 (document-api, document-processing)" in logged, logged
            assert "dwell: container cluster 'query' on localhost:8081 (search)" in logged, logged
        wait_for_container(endpoint=FEED)
        wait_for_container(endpoint=QUERY)
        yield rt
    finally:
        rt.stop()


def test_feed_on_the_feed_cluster_and_query_on_the_query_cluster(runtime: Runtime) -> None:
    for endpoint in (FEED, QUERY):
        status, health = http("GET", f"{endpoint}/state/v1/health")
        assert status == 200 and health["status"]["code"] == "up", health
    albums = sorted((SAMPLE_APPS / "album-recommendation" / "dataset").glob("*.json"))
    assert len(albums) == 5
    for i, album in enumerate(albums):
        status, body = http("POST", f"{FEED}/document/v1/mynamespace/music/docid/{i}", json.loads(album.read_text()))
        assert status == 200, body
    visited = vespa("visit", "-C", "feed", check=False)  # the CLI needs the container cluster where a package has several
    assert visited.returncode == 0, visited.stderr
    assert sorted(json.loads(line)["id"] for line in visited.stdout.splitlines() if line.strip()) == \
        [f"id:mynamespace:music::{i}" for i in range(5)]
    yql = urllib.parse.urlencode({"yql": 'select * from sources * where sddocname contains "music"'})
    status, result = http("GET", f"{QUERY}/search/?{yql}")
    assert status == 200, result
    assert result["root"]["fields"]["totalCount"] == 5
    assert sorted(hit["id"] for hit in result["root"]["children"]) == [f"id:mynamespace:music::{i}" for i in range(5)]
    assert http("GET", f"{FEED}/search/?{yql}")[0] == 404, "the feed cluster has no <search>"
    assert http("GET", f"{QUERY}/document/v1/mynamespace/music/docid/0")[0] == 404, "the query cluster has no <document-api>"
