"""Document redundancy (issue 18): tests/apps/replicas has three content nodes, min-redundancy 3 and searchable-copies 2,
so every node holds a copy of each document, two of the three copies are indexed (ready) and one is searched (active).
A query over all sources finds each document once, `vespa visit` and /document/v1 give each once, and the metrics proxy
(19092) answers proton's per-node document counts: documents.total N on each node, ready 2N over the nodes, active N.
Updates, removes and a clean restart keep those numbers."""
from __future__ import annotations

import json
import time
from collections import defaultdict
from typing import Iterator

import pytest
from dwell_client import CONTAINER, ROOT, Runtime, http, search, vespa
from dwell_client.application import deployed_runtime

APP = ROOT / "tests" / "apps" / "replicas"
FEED = APP / "feed.jsonl"
DOCUMENTS = sum(1 for line in FEED.read_text().splitlines() if line.strip())
PROXY = "http://localhost:19092"
DOC = f"{CONTAINER}/document/v1/items/item/docid"


@pytest.fixture(scope="module")
def runtime(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Runtime]:
    yield from deployed_runtime(tmp_path_factory.mktemp("replicas") / "data", APP, FEED)


def counts() -> dict[str, dict[str, float]]:
    """Per distribution key, content.proton.documentdb.documents.{total,ready,active}.last of the item type, as the
    metrics proxy's default consumer answers them."""
    status, body = http("GET", f"{PROXY}/metrics/v1/values")
    assert status == 200, body
    found: dict[str, dict[str, float]] = defaultdict(dict)
    for service in body["services"]:
        if service["name"] != "vespa.searchnode":
            continue
        for metric in service["metrics"]:
            if metric["dimensions"].get("documenttype") != "item":
                continue
            for kind in ("total", "ready", "active"):
                name = f"content.proton.documentdb.documents.{kind}.last"
                if name in metric["values"]:
                    found[metric["dimensions"]["distributionkey"]][kind] = metric["values"][name]
    return dict(found)


def total_count() -> int:
    result = search(yql="select * from sources * where true", hits=400)
    root = result["root"]
    assert root["coverage"]["coverage"] == 100 and root["coverage"]["full"], root["coverage"]
    ids = [hit["id"] for hit in root.get("children", [])]
    assert len(ids) == len(set(ids)), "each document once"
    assert len(ids) == root["fields"]["totalCount"]
    return root["fields"]["totalCount"]


def visited() -> list[str]:
    result = vespa("visit", "--content-cluster", "items", check=False)
    assert result.returncode == 0, result.stderr + result.stdout
    return [json.loads(line)["id"] for line in result.stdout.splitlines() if line.strip()]


def assert_held(documents: int) -> None:
    by_node = counts()
    assert sorted(by_node) == ["0", "1", "2"], by_node
    for key, values in by_node.items():
        assert values["total"] == documents, (key, by_node)  # redundancy 3 on 3 nodes: every node holds every document
        assert values["ready"] < documents or documents == 0, (key, by_node)
    assert sum(values["ready"] for values in by_node.values()) == 2 * documents, by_node  # searchable-copies 2
    assert sum(values["active"] for values in by_node.values()) == documents, by_node


def test_a_query_a_visit_and_the_metrics_count_each_document_once(runtime: Runtime) -> None:
    assert total_count() == DOCUMENTS
    ids = visited()
    assert len(ids) == DOCUMENTS and len(set(ids)) == DOCUMENTS, ids
    assert_held(DOCUMENTS)
    status, body = http("GET", f"{DOC}/i7")
    assert status == 200 and body["fields"]["number"] == 7, body


def test_updates_and_removes_reach_every_copy(runtime: Runtime) -> None:
    status, body = http("PUT", f"{DOC}/i3", {"fields": {"title": {"assign": "item three violet"}}})
    assert status == 200, body
    hits = search(yql='select * from item where title contains "violet"')["root"]
    assert [hit["id"] for hit in hits.get("children", [])] == ["id:items:item::i3"], hits
    status, body = http("PUT", f"{DOC}/i3?condition=item.number==4", {"fields": {"number": {"assign": 40}}})
    assert status == 412, body  # test-and-set against the stored document
    status, body = http("PUT", f"{DOC}/new1?create=true", {"fields": {"title": {"assign": "created orange"}}})
    assert status == 200, body
    status, body = http("DELETE", f"{DOC}/i5")
    assert status == 200, body
    assert total_count() == DOCUMENTS
    assert search(yql='select * from item where title contains "orange"')["root"]["fields"]["totalCount"] == 1
    assert_held(DOCUMENTS)
    assert sorted(visited()) == sorted({f"id:items:item::i{i}" for i in range(DOCUMENTS) if i != 5} | {"id:items:item::new1"})


def test_a_restart_loads_every_copy(runtime: Runtime) -> None:
    runtime.stop()
    runtime.start()
    deadline = time.time() + 300
    while True:
        try:
            if total_count() == DOCUMENTS:
                break
        except (AssertionError, OSError):  # the container is not up yet, or the nodes not ready
            pass
        assert time.time() < deadline, runtime.log()
        time.sleep(1)
    assert_held(DOCUMENTS)
    assert "not-ready copies of item" in runtime.log(400_000), "loaded from the flushed state, not taken from the store again"
