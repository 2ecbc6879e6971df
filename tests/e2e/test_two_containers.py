"""Two container clusters (tests/apps/two-containers, issue 18), as sample-apps' multinode-HA has them: `feed`
(document-api, document-processing: the content cluster's chain `stamp`, whose processor, of the package's bundle,
writes the cluster it runs in into each item) and `query` (search). Each is a container of its own with the handlers Vespa's
model gives it: `feed` on 8080, `query` on 8081 (the next free port, services.xml's order; on Vespa both listen on
8080 of their own hosts). Writes go to the feed cluster's /document/v1, queries to the query cluster's /search/, and
each answers 404 on what its cluster does not serve, as Vespa's container does. The deploy's output, the config
server's serviceconverge and `./dwell status` name both ports. One runtime start (and `mvn package` of the bundle)."""
from __future__ import annotations

import os
import shutil
import subprocess
from typing import Iterator

import pytest
from dwell_client import ROOT, Runtime, http, vespa, wait_for_container

from clients import maven_package

APP = ROOT / "tests" / "apps" / "two-containers"
FEED = "http://localhost:8080"
QUERY = "http://localhost:8081"
ITEMS = {"a": ("blue whale", 1990), "b": ("blue sky", 2005), "c": ("red sky", 1977), "d": ("blue moon", 2020),
         "e": ("green field", 2001)}


@pytest.fixture(scope="module")
def deployed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Runtime, str]]:
    tmp = tmp_path_factory.mktemp("dwell-two-containers")
    app = tmp / "app"
    shutil.copytree(APP, app, ignore=shutil.ignore_patterns("target"))
    maven_package(app)
    rt = Runtime(tmp / "data")
    rt.start()
    try:
        done = vespa("deploy", "--wait", "300", str(app / "target" / "application"), check=False)
        assert done.returncode == 0, done.stdout + done.stderr + rt.log()
        wait_for_container(endpoint=FEED)
        wait_for_container(endpoint=QUERY)
        yield rt, done.stdout + done.stderr
    finally:
        rt.stop()


def test_each_cluster_listens_on_its_own_port(deployed: tuple[Runtime, str]) -> None:
    rt, _ = deployed
    status, converge = http("GET", "http://localhost:19071/application/v2/tenant/default/application/default/environment/prod/"
                                   "region/default/instance/default/serviceconverge")
    assert status == 200, converge
    assert [(s["clusterName"], s["port"]) for s in converge["services"]] == [("feed", 8080), ("query", 8081)]
    assert "container cluster 'feed' on localhost:8080 (document-api, document-processing)" in rt.log(20000)
    assert "container cluster 'query' on localhost:8081 (search)" in rt.log(20000)
    shown = subprocess.run([str(ROOT / "dwell"), "status"], env={**os.environ, "DWELL_DATA": str(rt.data)}, cwd=ROOT,
                           capture_output=True, text=True)
    assert shown.returncode == 0, shown.stderr
    assert "container cluster 'feed': http://localhost:8080" in shown.stdout
    assert "container cluster 'query': http://localhost:8081" in shown.stdout


def test_feed_on_the_feed_cluster_and_search_on_the_query_cluster(deployed: tuple[Runtime, str]) -> None:
    for name, (title, year) in ITEMS.items():
        status, reply = http("POST", f"{FEED}/document/v1/test/item/docid/{name}", {"fields": {"title": title, "year": year}})
        assert status == 200, reply
    status, got = http("GET", f"{FEED}/document/v1/test/item/docid/b")
    assert status == 200 and got["fields"] == {"title": "blue sky", "year": 2005, "stamp": "feed"}, got  # processed in feed
    status, result = http("GET", f"{QUERY}/search/?yql=select%20*%20from%20sources%20*%20where%20title%20contains%20%22blue%22"
                                 "&ranking=by_year")
    assert status == 200, result
    expected = sorted((n for n, (t, _) in ITEMS.items() if "blue" in t.split()), key=lambda n: -ITEMS[n][1])
    hits = result["root"]["children"]
    assert [hit["id"].rsplit(":", 1)[1] for hit in hits] == expected
    assert [hit["relevance"] for hit in hits] == [float(ITEMS[n][1]) for n in expected]
    assert result["root"]["fields"]["totalCount"] == len(expected)
    assert {hit["fields"]["stamp"] for hit in hits} == {"feed"}, "each write went through the feed cluster's chain"


def test_a_cluster_serves_only_its_own_handlers(deployed: tuple[Runtime, str]) -> None:
    status, _ = http("GET", f"{FEED}/search/?yql=select%20*%20from%20sources%20*%20where%20true")
    assert status == 404, "the feed cluster has no <search>"
    status, _ = http("POST", f"{QUERY}/document/v1/test/item/docid/x", {"fields": {"title": "x", "year": 1}})
    assert status == 404, "the query cluster has no <document-api>"
    status, _ = http("GET", f"{QUERY}/document/v1/test/item/docid/a")
    assert status == 404
    status, got = http("GET", f"{FEED}/document/v1/test/item/docid/x")
    assert status == 404, got  # nothing was written through the query cluster


def bindings(endpoint: str) -> list[str]:
    """The server bindings of the handlers the container's root lists (Vespa's ApplicationStatus)."""
    status, root = http("GET", f"{endpoint}/")
    assert status == 200, root
    return [binding for handler in root["handlers"] for binding in handler.get("serverBindings", [])]


def test_each_containers_root_lists_its_own_handlers(deployed: tuple[Runtime, str]) -> None:
    feed, query = bindings(FEED), bindings(QUERY)
    assert any("/document/v1/" in b for b in feed) and not any("/search/" in b for b in feed), feed
    assert any("/search/" in b for b in query) and not any("/document/v1/" in b for b in query), query
