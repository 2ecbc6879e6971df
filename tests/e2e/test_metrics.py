"""Metrics as Vespa exposes them (issue 20): the container's /prometheus/v1/values and /metrics/v2/values, which ask
the metrics proxy on port 19092 as in Vespa, serve the content nodes' metrics under proton's names and the container's
own, live. Scraped with the Prometheus client library's own text parser."""
from __future__ import annotations

import time
import urllib.request
from typing import Iterator

import pytest
from prometheus_client.parser import text_string_to_metric_families

from dwell_client import CONTAINER, ROOT, Runtime, http, search
from dwell_client.application import deployed_runtime

APP = ROOT / "tests" / "apps" / "music"


@pytest.fixture(scope="module")
def runtime(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Runtime]:
    yield from deployed_runtime(tmp_path_factory.mktemp("metrics") / "data", APP, APP / "feed.jsonl")


def scrape() -> dict[tuple[str, frozenset], float]:
    """Every sample of /prometheus/v1/values, by name and labels, parsed by the Prometheus client."""
    with urllib.request.urlopen(f"{CONTAINER}/prometheus/v1/values", timeout=30) as response:
        assert response.status == 200
        text = response.read().decode()
    samples = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            samples[(sample.name, frozenset(sample.labels.items()))] = sample.value
    return samples


def value(samples: dict, name: str, **labels: str) -> float:
    found = [v for (n, l), v in samples.items() if n == name and set(labels.items()) <= l]
    assert len(found) == 1, (name, labels, sorted(n for n, _ in samples))
    return found[0]


def test_prometheus_scrape_has_content_node_and_container_metrics(runtime: Runtime) -> None:
    before = scrape()
    assert value(before, "content_proton_documentdb_documents_active_last", documenttype="album") == 3
    for _ in range(5):
        assert search(yql="select * from album where true")["root"]["fields"]["totalCount"] == 3
    status, reply = http("POST", f"{CONTAINER}/document/v1/music/album/docid/metrics-1", {"fields": {"artist": "Test", "title": "Counted"}})
    assert status == 200, reply
    after = scrape()
    assert value(after, "content_proton_documentdb_documents_active_last", documenttype="album") == 4
    queries = "content_proton_search_protocol_query_latency_count"
    assert value(after, queries) - value(before, queries) >= 5
    assert value(after, "content_proton_search_protocol_query_latency_sum") > 0
    # the container's own metrics come with its first metrics snapshot, taken a minute after it starts (as in Vespa)
    deadline = time.time() + 90
    while not any(dict(labels).get("vespa_service") == "vespa_container" for _, labels in after):
        assert time.time() < deadline, "the container's own metrics: " + str(sorted({n for n, _ in after}))
        time.sleep(2)
        after = scrape()
    assert any(n.startswith("jdisc_") or n.startswith("queries") for n, _ in after), sorted({n for n, _ in after})


def test_metrics_v2_values_has_the_same_in_vespas_json(runtime: Runtime) -> None:
    status, body = http("GET", f"{CONTAINER}/metrics/v2/values")
    assert status == 200, body
    services = {service["name"]: service for node in body["nodes"] for service in node["services"]}
    assert {"vespa.searchnode", "vespa.container"} <= services.keys(), services.keys()
    documents = [m["values"]["content.proton.documentdb.documents.active.last"] for m in services["vespa.searchnode"]["metrics"]
                 if "content.proton.documentdb.documents.active.last" in m["values"]]
    assert documents == [4], documents  # after the put of the test before
