"""Metrics as Vespa exposes them (issue 20): the container's /prometheus/v1/values and /metrics/v2/values, which ask
the metrics proxy on port 19092 as in Vespa, serve the content nodes' metrics under proton's names and the container's
own, live. Scraped with the Prometheus client library's own text parser. The metrics proxy's /metrics/v1/values serves
each consumer of services.xml's admin/metrics what it lists (issue 18)."""
from __future__ import annotations

import re
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
            assert sample.timestamp is None or abs(float(sample.timestamp) - time.time()) < 600, ("a sample of now", sample)
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
    profile = "content_proton_documentdb_matching_rank_profile_"
    queries_before = sum(v for (n, l), v in before.items()
                         if n == profile + "queries_count" and {("documenttype", "album"), ("rankProfile", "default")} <= l)
    assert value(after, profile + "queries_count", documenttype="album", rankProfile="default") - queries_before == 5
    assert value(after, profile + "docs_matched_count", documenttype="album", rankProfile="default") >= 5 * 3
    assert value(after, profile + "match_time_sum", documenttype="album", rankProfile="default") > 0
    # dwell's own: each search takes a compiled rank program from the node's cache, or compiles one
    programs = ("content_dwell_rank_program_reused_count", "content_dwell_rank_program_compiled_count")
    assert sum(value(after, name) - value(before, name) for name in programs) >= 5
    assert value(after, "content_dwell_rank_program_compiled_count") >= 1
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


def test_the_content_nodes_state_api_has_their_metrics(runtime: Runtime) -> None:
    """Each content node's /state/v1/health and /state/v1/metrics, on the port Vespa's model gives its search node."""
    match = re.search(r"Content node 0 of 'music' listening on ([^:]+):\d+ \(state API on port (\d+)\)", runtime.log(200_000))
    assert match, runtime.log()
    # the node listens on the address the runtime's own hosts file gives its host
    addresses = {name: line.split()[0] for line in (runtime.data / "hosts").read_text().splitlines()
                 if line.strip() and not line.startswith("#") for name in line.split()[1:]}
    base = f"http://{addresses.get(match.group(1), '127.0.0.1')}:{match.group(2)}"
    status, health = http("GET", f"{base}/state/v1/health")
    assert status == 200 and health["status"]["code"] == "up", health
    status, state = http("GET", f"{base}/state/v1/metrics")
    assert status == 200, state
    values = {(m["name"], tuple(sorted(m.get("dimensions", {}).items()))): m["values"] for m in state["metrics"]["values"]}
    assert values[("content.proton.documentdb.documents.active", (("documenttype", "album"),))] == {"last": 4}
    assert values[("content.proton.search_protocol.query.latency", ())]["count"] >= 5


PROXY = "http://localhost:19092"


def consumer_values(consumer: str | None) -> list[dict]:
    """The metrics proxy's /metrics/v1/values for the consumer: each service's packets, name, values and dimensions."""
    query = "" if consumer is None else f"?consumer={consumer}"
    status, body = http("GET", f"{PROXY}/metrics/v1/values{query}")
    assert status == 200, body
    return [dict(metric, service=service["name"]) for service in body["services"] for metric in service["metrics"]]


def album_queries() -> float:
    found = [m["values"]["album_queries"] for m in consumer_values("album-metrics")
             if "album_queries" in m["values"] and m["dimensions"].get("documenttype") == "album"
             and m["dimensions"].get("rankProfile") == "default"]
    assert len(found) <= 1, found
    return found[0] if found else 0


def test_a_consumer_of_services_xml_gets_its_metrics_renamed_and_no_others(runtime: Runtime) -> None:
    """music's services.xml lists content.proton.documentdb.matching.rank_profile.queries.count as album_queries for
    consumer album-metrics: after N queries it counts N more (the content node's counts are cumulative here), under its
    display name, and the metrics of Vespa's default consumer that the consumer does not list are not there."""
    before = album_queries()
    for _ in range(4):
        assert search(yql="select * from album where true")["root"]["fields"]["totalCount"] == 4
    assert album_queries() == before + 4
    mine = consumer_values("album-metrics")
    packet = next(m for m in mine if "album_queries" in m["values"])
    assert packet["service"] == "vespa.searchnode"
    assert packet["dimensions"] == {"metrictype": "standard", "instance": "searchnode", "clusterid": "music",
                                    "distributionkey": "0", "documenttype": "album", "rankProfile": "default"}, packet
    names = {name for m in mine for name in m["values"]}
    default = consumer_values(None)
    default_names = {name for m in default for name in m["values"]}
    for absent in ("content.proton.documentdb.matching.rank_profile.queries.count",  # its own name: renamed
                   "content.proton.search_protocol.query.latency.count", "content.proton.documentdb.documents.active.last"):
        assert absent not in names, sorted(names)
    assert {"content.proton.search_protocol.query.latency.count", "content.proton.documentdb.documents.active.last"} <= default_names
    assert "album_queries" not in default_names
    assert not [name for name in names | default_names if name.startswith("dwell.") or name.startswith("content.dwell.")]
    # a consumer that is not configured gets the default consumer's metrics (the content node's: the container's may
    # have taken a new snapshot in between)
    unknown = consumer_values("no-such-consumer")
    searchnode = lambda packets: sorted((m["dimensions"].get("documenttype", ""), m["dimensions"].get("rankProfile", ""), k)
                                        for m in packets if m["service"] == "vespa.searchnode" for k in m["values"])
    assert searchnode(unknown) == searchnode(default)
    # the proxy's Prometheus form of the same consumer
    with urllib.request.urlopen(f"{PROXY}/prometheus/v1/values?consumer=album-metrics", timeout=30) as response:
        samples = [s for family in text_string_to_metric_families(response.read().decode()) for s in family.samples]
    counted = [s.value for s in samples if s.name == "album_queries" and s.labels.get("rankProfile") == "default"]
    assert counted == [before + 4], counted
    assert not [s for s in samples if s.name.startswith("content_proton_search_protocol")], sorted({s.name for s in samples})
