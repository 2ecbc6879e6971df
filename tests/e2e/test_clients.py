"""Real Vespa clients against dwell's runtime, unmodified: the vespa CLI (status, document,
feed, query, test), pyvespa, curl over HTTP/2 and the Java vespa-feed-client; the document API's
conditions and status codes; search tracing and timeouts; a corpus of malformed requests; and a
burst of writes beyond what the runtime accepts."""
from __future__ import annotations

import asyncio
import collections
import json
import subprocess
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

import pytest
from dwell_client import CONFIG_SERVER, CONTAINER, ROOT, Runtime, http, search, vespa

import bad_input
from clients import deployed_runtime, snapshot, visit_all
from corpus import ARTICLE, COMMENTS, write_jsonl

APPLICATION = ROOT / "target" / "application"
CLUSTER = "dwell"


@pytest.fixture(scope="module")
def runtime(tmp_path_factory: pytest.TempPathFactory):
    if not (ROOT / "runtime" / "target" / "test-classpath.txt").exists() or not APPLICATION.exists():
        pytest.fail("build first: ./dwell build")
    data = tmp_path_factory.mktemp("dwell-clients")
    yield from deployed_runtime(data, APPLICATION, write_jsonl(data / "corpus.jsonl"))


def raw(method: str, url: str, body: bytes | None = None, content_type: str | None = None,
        timeout: float = 60) -> tuple[int, dict, bytes]:
    request = urllib.request.Request(url, data=body, method=method)
    if content_type:
        request.add_header("Content-Type", content_type)
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as e:
        return e.code, dict(e.headers), e.read()


def test_vespa_status(runtime: Runtime) -> None:
    result = vespa("status", check=False)
    assert result.returncode == 0, result.stderr
    assert "ready" in (result.stdout + result.stderr).lower()


def test_vespa_document_put_get_update_remove(runtime: Runtime, tmp_path: Path) -> None:
    put = tmp_path / "put.json"
    put.write_text(json.dumps({"put": "id:dwell:comment::cli1", "fields": {"article_id": "cli", "text": "Put by the CLI.", "upvotes": 1}}))
    assert vespa("document", "put", str(put), check=False).returncode == 0
    got = vespa("document", "get", "id:dwell:comment::cli1", check=False)
    assert got.returncode == 0, got.stderr
    assert json.loads(got.stdout)["fields"]["upvotes"] == 1
    update = tmp_path / "update.json"
    update.write_text(json.dumps({"update": "id:dwell:comment::cli1", "fields": {"upvotes": {"increment": 41}}}))
    assert vespa("document", "update", str(update), check=False).returncode == 0
    assert json.loads(vespa("document", "get", "id:dwell:comment::cli1").stdout)["fields"]["upvotes"] == 42
    # a false condition: the CLI fails, and the document is unchanged
    conditional = vespa("document", "update", str(update), "--condition", "comment.upvotes==0", check=False)
    assert conditional.returncode != 0
    assert json.loads(vespa("document", "get", "id:dwell:comment::cli1").stdout)["fields"]["upvotes"] == 42
    assert vespa("document", "remove", "id:dwell:comment::cli1", check=False).returncode == 0
    assert vespa("document", "get", "id:dwell:comment::cli1", check=False).returncode != 0


def test_vespa_feed_json_array_with_progress(runtime: Runtime, tmp_path: Path) -> None:
    operations = [{"put": f"id:dwell:comment::arr{i}", "fields": {"article_id": "array-feed", "text": f"Array comment {i}."}}
                  for i in range(50)]
    operations += [{"update": f"id:dwell:comment::arr{i}", "fields": {"upvotes": {"assign": i}}} for i in range(10)]
    operations += [{"remove": f"id:dwell:comment::arr{i}"} for i in range(40, 50)]
    feed = tmp_path / "array.json"
    feed.write_text(json.dumps(operations, indent=1))
    fed = vespa("feed", "--progress", "1", str(feed), check=False)
    assert fed.returncode == 0, fed.stderr + fed.stdout
    summary = json.loads(fed.stdout)
    assert summary["feeder.ok.count"] == 70, summary
    assert summary.get("feeder.error.count", 0) == 0
    result = search(yql='select * from comment where article_id contains "array-feed"', hits=0)
    assert result["root"]["fields"]["totalCount"] == 40


def test_vespa_query_get_and_post_file(runtime: Runtime, tmp_path: Path) -> None:
    yql = f'select * from comment where article_id contains "{ARTICLE}"'
    got = vespa("query", f"yql={yql}", "hits=3", "ranking=freshness", check=False)
    assert got.returncode == 0, got.stderr
    root = json.loads(got.stdout)["root"]
    assert root["fields"]["totalCount"] == len(COMMENTS)
    assert len(root["children"]) == 3
    query = tmp_path / "query.json"
    query.write_text(json.dumps({"yql": yql, "hits": 2, "ranking": {"profile": "freshness"}}))
    posted = vespa("query", "--file", str(query), check=False)
    assert posted.returncode == 0, posted.stderr
    assert [h["id"] for h in json.loads(posted.stdout)["root"]["children"]] == [h["id"] for h in root["children"][:2]]
    bad = vespa("query", "yql=select nonsense", check=False)
    assert bad.returncode != 0


def test_vespa_test_runs_system_tests_in_vespas_format(runtime: Runtime) -> None:
    result = vespa("test", str(ROOT / "tests" / "system-test"), check=False)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "failure" not in result.stdout.lower().replace("0 failure", "")


def test_pyvespa_query_and_feed(runtime: Runtime) -> None:
    from vespa.application import Vespa

    app = Vespa(url="http://localhost", port=8080)
    response = app.feed_data_point(schema="comment", data_id="py1", namespace="dwell",
                                   fields={"article_id": "pyvespa", "author_id": "ann", "text": "Fed by pyvespa."})
    assert response.is_successful(), response.json
    response = app.update_data(schema="comment", data_id="py1", namespace="dwell", fields={"upvotes": 7})
    assert response.is_successful(), response.json
    assert app.get_data(schema="comment", data_id="py1", namespace="dwell").json["fields"]["upvotes"] == 7

    failures = []
    app.feed_iterable(({"id": f"py-it{i}", "fields": {"article_id": "pyvespa", "text": f"Iterable {i}."}} for i in range(20)),
                      schema="comment", namespace="dwell",
                      callback=lambda r, id: None if r.is_successful() else failures.append((id, r.json)))
    assert failures == []
    result = app.query(yql='select * from comment where article_id contains "pyvespa"', hits=30, ranking="freshness")
    assert result.is_successful()
    assert result.number_documents_retrieved == 21
    assert len(result.hits) == 21
    response = app.delete_data(schema="comment", data_id="py1", namespace="dwell")
    assert response.is_successful()
    assert app.get_data(schema="comment", data_id="py1", namespace="dwell").status_code == 404


def test_document_api_conditions_create_and_status_codes(runtime: Runtime) -> None:
    url = f"{CONTAINER}/document/v1/dwell/comment/docid"
    # updates and removes of a missing document are no-ops, and succeed
    status, body = http("PUT", f"{url}/missing", {"fields": {"upvotes": {"increment": 1}}})
    assert status == 200, body
    status, body = http("DELETE", f"{url}/missing")
    assert status == 200, body
    assert http("GET", f"{url}/missing")[0] == 404
    # create=true makes the document (the package's docproc fills what it needs)
    status, body = http("PUT", f"{url}/created?create=true", {"fields": {"article_id": {"assign": "created"}, "text": {"assign": "Made by an update."}, "upvotes": {"increment": 5}}})
    assert status == 200, body
    status, body = http("GET", f"{url}/created")
    assert status == 200 and body["fields"]["upvotes"] == 5, body
    # conditions: false → 412 and nothing changes; true → applied
    status, body = http("PUT", f"{url}/created?" + urllib.parse.urlencode({"condition": "comment.upvotes==4"}), {"fields": {"upvotes": {"assign": 0}}})
    assert status == 412, body
    assert http("GET", f"{url}/created")[1]["fields"]["upvotes"] == 5
    status, _ = http("PUT", f"{url}/created?" + urllib.parse.urlencode({"condition": "comment.upvotes==5"}), {"fields": {"upvotes": {"multiply": 3}}})
    assert status == 200
    assert http("GET", f"{url}/created")[1]["fields"]["upvotes"] == 15
    status, _ = http("POST", f"{url}/created?" + urllib.parse.urlencode({"condition": "comment.upvotes==1"}), {"fields": {"article_id": "x", "text": "replaced"}})
    assert status == 412
    status, _ = http("DELETE", f"{url}/created?" + urllib.parse.urlencode({"condition": "comment.upvotes==1"}))
    assert status == 412
    for operation, expected in (({"decrement": 5}, 10), ({"divide": 2}, 5), ({"assign": 9}, 9)):
        assert http("PUT", f"{url}/created", {"fields": {"upvotes": operation}})[0] == 200
        assert http("GET", f"{url}/created")[1]["fields"]["upvotes"] == expected
    status, _ = http("DELETE", f"{url}/created?" + urllib.parse.urlencode({"condition": "comment.upvotes==9"}))
    assert status == 200
    assert http("GET", f"{url}/created")[0] == 404
    # a comment the package's docproc refuses is invalid input: 400, with its reason
    status, body = http("POST", f"{url}/notext", {"fields": {"article_id": "x"}})
    assert status == 400 and "text" in body["message"], body


def test_visiting_selection_wanted_count_and_global_cluster(runtime: Runtime) -> None:
    status, body = http("GET", f"{CONTAINER}/document/v1/?" + urllib.parse.urlencode(
        {"cluster": CLUSTER, "selection": f'comment.article_id=="{ARTICLE}"', "wantedDocumentCount": 2}))
    assert status == 200, body
    assert body["documentCount"] == len(body["documents"])
    seen = {d["id"] for d in visit_all(CLUSTER, selection=f'comment.article_id=="{ARTICLE}"')}
    assert seen == {f"id:dwell:comment::{c}" for c in COMMENTS}
    authors = visit_all(CLUSTER, "global", selection="author")
    assert {d["id"] for d in authors} == {"id:dwell:author::ann", "id:dwell:author::bob", "id:dwell:author::cy"}
    status, body = http("GET", f"{CONTAINER}/document/v1/dwell/author/docid?cluster={CLUSTER}&stream=true")
    assert status == 200 and len(body["documents"]) == 3, body


def test_grouping_renders_as_vespa_does(runtime: Runtime) -> None:
    result = search(yql=f'select * from comment where article_id contains "{ARTICLE}" | all(group(author_id) each(output(count())))', hits=0)
    [group_root] = [c for c in result["root"]["children"] if c["id"] == "group:root:0"]
    [authors] = group_root["children"]
    assert authors["id"] == "grouplist:author_id" and authors["label"] == "author_id"
    assert all(g["id"] == f"group:string:{g['value']}" for g in authors["children"])
    expected = collections.Counter(author for author, *_ in COMMENTS.values())
    assert {g["value"]: g["fields"]["count()"] for g in authors["children"]} == dict(expected)


def test_trace_shows_per_phase_timings(runtime: Runtime) -> None:
    result = search(article=ARTICLE, ranking="neural", **{"trace.level": 5, "trace.timestamps": "true"})
    trace = json.dumps(result["trace"])
    for step in ("Resolved properties", "RankingModelSearcher", "Summary fetch time"):
        assert step.lower() in trace.lower(), step
    assert "timestamp" in trace
    text = trace.lower()
    for phase in ("match", "first phase", "second phase"):
        assert phase in text, phase


def test_a_query_past_its_timeout_says_so(runtime: Runtime) -> None:
    status, _, body = raw("GET", f"{CONTAINER}/search/?" + urllib.parse.urlencode(
        {"yql": "select * from comment where true", "ranking": "neural_onnx", "timeout": "1ms"}))
    payload = json.loads(body)
    # the container finds no time left to dispatch: 504 with Vespa's "Timed out" error
    assert status == 504, (status, payload)
    assert payload["root"]["errors"][0]["code"] == 12, payload


def test_every_malformed_request_gets_a_4xx_and_changes_nothing(runtime: Runtime) -> None:
    requests = bad_input.corpus(APPLICATION)
    assert len(requests) >= 200
    before = snapshot(CLUSTER)
    session = vespa("status", check=False).stdout
    problems = []
    for name, method, url, body, content_type in requests:
        try:
            status, _, text = raw(method, url, body, content_type)
        except (urllib.error.URLError, ConnectionError) as e:
            status, text = None, str(e).encode()
        if status is None or not 400 <= status < 500:
            problems.append(f"{name}: {status} {text[:200]!r}")
        # each request is judged by the data just before and just after it
        after = snapshot(CLUSTER)
        if after != before:
            problems.append(f"{name}: changed the data")
            before = after
    assert problems == [], f"{len(problems)} of {len(requests)}:\n" + "\n".join(problems)
    assert not Path("/tmp/dwell-zip-slip").exists() and not Path("/tmp/dwell-zip-slip-abs").exists()
    # still serving, the same package
    assert search(article=ARTICLE, ranking="freshness")["root"]["fields"]["totalCount"] == len(COMMENTS)
    assert vespa("status", check=False).stdout == session


def _dense_values(tensor: dict) -> list[float]:
    """The cell values of a dense tensor as /document/v1 renders it (short form), flattened."""
    def flatten(values):
        return [v for item in values for v in (flatten(item) if isinstance(item, list) else [item])]
    return flatten(tensor["values"])


def test_what_vespa_accepts_the_runtime_accepts(runtime: Runtime) -> None:
    assert http("POST", bad_input.ACCEPTS_DOC, bad_input.VALID_PUT)[0] == 200
    assert http("POST", bad_input.ACCEPTS_MODEL, {"fields": {"profile": "accepts", "W_0": {"values": [0.0] * 81}}})[0] == 200
    problems = []
    for name, method, url, body, content_type in bad_input.vespa_accepts():
        status, _, text = raw(method, url, body, content_type)
        if status != 200:
            problems.append(f"{name}: {status} {text[:300]!r}")
    assert problems == []
    try:
        # upvotes 3, +2 -1, reset to 3 by the put with a stray key, +1 (create=maybe), +1 (fieldSet ignored)
        assert http("GET", bad_input.ACCEPTS_DOC)[1]["fields"]["upvotes"] == 5
        assert http("GET", bad_input.ACCEPTS_ODD_ID)[1]["id"] == "id:dwell:comment::a/b/c/d"
        # the last put: nine rows of eight 1.0s, read by direct index; the modifies outside the tensor changed nothing
        values = _dense_values(http("GET", bad_input.ACCEPTS_MODEL)[1]["fields"]["W_0"])
        assert values == [1.0] * 72 + [0.0] * 9
        assert search(yql="select * from comment where true", restrict="nosuchdoctype")["root"]["fields"]["totalCount"] == 0
    finally:
        for url in (bad_input.ACCEPTS_DOC, bad_input.ACCEPTS_MODEL, bad_input.ACCEPTS_ODD_ID):
            assert http("DELETE", url)[0] == 200
    assert http("GET", bad_input.ACCEPTS_ODD_ID)[0] == 404


async def _h2c_burst(count: int, connections: int, text: str) -> dict[str, str]:
    """Puts count comments at once over HTTP/2 cleartext (prior knowledge), spread over a few
    connections of at most the server's 512 concurrent streams each; each id's HTTP status, or the
    client error when a request got no answer."""
    import httpx

    clients = [httpx.AsyncClient(http1=False, http2=True, timeout=300, limits=httpx.Limits(max_connections=1))
               for _ in range(connections)]

    async def put(i: int) -> tuple[str, str]:
        try:
            response = await clients[i % connections].post(
                f"{CONTAINER}/document/v1/dwell/comment/docid/burst{i}",
                json={"fields": {"article_id": "burst", "text": f"{i} {text}"}})
            return f"burst{i}", str(response.status_code) if response.http_version == "HTTP/2" else response.http_version
        except httpx.HTTPError as e:
            return f"burst{i}", f"no answer: {type(e).__name__}"

    try:
        return dict(await asyncio.gather(*(put(i) for i in range(count))))
    finally:
        for client in clients:
            await client.aclose()


def test_a_burst_beyond_capacity_gets_429s_and_the_runtime_recovers(runtime: Runtime) -> None:
    # h2c with h2 (Python), not curl: curl 7.88's --http2-prior-knowledge breaks connections it
    # reuses ("Error in the HTTP2 framing layer", curl/curl#10634, fixed in curl 8.0), which
    # showed as requests without an answer.
    count = 3000
    outcomes = asyncio.run(_h2c_burst(count, connections=6, text="burst " * 1500))
    codes = collections.Counter(outcomes.values())
    accepted = {doc for doc, code in outcomes.items() if code == "200"}
    assert sum(codes.values()) == count, codes
    assert set(codes) <= {"200", "429"}, codes
    # whether a burst this size overloads the runtime depends on the machine; when it does, the
    # answer is 429 (Vespa's handler, once its bounded queue is full), never silence or 5xx
    # every acknowledged write is there; no refused one is
    result = search(yql='select * from comment where article_id contains "burst"', hits=0)
    assert result["root"]["fields"]["totalCount"] == len(accepted), codes
    # and it recovers: writes and queries succeed again
    status, _ = http("POST", f"{CONTAINER}/document/v1/dwell/comment/docid/after-burst", {"fields": {"article_id": "burst", "text": "calm again"}})
    assert status == 200
    assert search(yql='select * from comment where article_id contains "burst"', hits=0)["root"]["fields"]["totalCount"] == len(accepted) + 1


def test_java_feed_client_feeds_100k_comments_over_http2(runtime: Runtime) -> None:
    count = 100_000
    runtime_dir = ROOT / "runtime" / "target"
    classpath = f"{runtime_dir / 'test-classes'}:{(runtime_dir / 'test-classpath.txt').read_text().strip()}"
    done = subprocess.run(["java", "-Xmx1g", "-cp", classpath, "ai.dwell.runtime.clients.FeedComments",
                           CONTAINER + "/", str(count), "feedclient"], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    summary = json.loads(done.stdout.strip().splitlines()[-1])
    assert summary["ok"] == count and summary["failed"] == 0, summary
    # count every document: by search, and by visiting
    result = search(yql='select * from comment where article_id contains "feedclient"', hits=0)
    assert result["root"]["fields"]["totalCount"] == count
    visited = vespa("visit", "--selection", 'comment.article_id=="feedclient"', "--field-set", "[id]", check=False)
    assert visited.returncode == 0, visited.stderr
    ids = {json.loads(line)["id"] for line in visited.stdout.splitlines() if line.strip()}
    assert ids == {f"id:dwell:comment::feedclient-{i}" for i in range(count)}


def test_prometheus_has_the_model_version_served_and_the_impressions_written(runtime: Runtime) -> None:
    """dwell's own metrics, through Vespa's metrics path: the searchers set them, the container's first metrics snapshot
    (a minute after it starts, as in Vespa) has them, and /prometheus/v1/values serves them."""
    from prometheus_client.parser import text_string_to_metric_families

    served = search(article=ARTICLE, ranking="neural")["root"]["fields"]["model_version"]
    deadline = time.time() + 150
    while True:
        search(article=ARTICLE, ranking="neural")
        with urllib.request.urlopen(f"{CONTAINER}/prometheus/v1/values", timeout=30) as response:
            samples = [s for family in text_string_to_metric_families(response.read().decode()) for s in family.samples]
        versions = [s for s in samples if s.name == "dwell_model_version_last" and s.labels.get("rankProfile") == "neural"]
        written = [s for s in samples if s.name == "dwell_impressions_written_count"]
        if versions and written and sum(s.value for s in written) > 0:
            break
        assert time.time() < deadline, sorted({s.name for s in samples if s.name.startswith("dwell") or s.name.startswith("content_proton")})
        time.sleep(3)
    assert versions[0].value == served
    assert not [s for s in samples if s.name == "dwell_impressions_dropped_count" and s.value > 0], "no impression was dropped"
