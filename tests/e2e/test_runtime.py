"""dwell's runtime end to end: deployed with the vespa CLI, fed and queried over HTTP, with
ranking checked against an independent numpy computation of the same features and network."""
from __future__ import annotations

import json
from dataclasses import replace
import shutil
import subprocess
import re
import threading
import time
import urllib.error
import urllib.request
import urllib.parse
from pathlib import Path

import numpy as np
import pytest
from dwell_client import CONFIG_SERVER, CONTAINER, ROOT, Runtime, deployed_runtime, http, search, vespa, wait_for_container

from corpus import ARTICLE, AUTHORS, COMMENTS, NOW, OTHER_ARTICLE, signals, write_jsonl
from dwell_learning.export import rankingmodel_put
from dwell_learning.features import baseline_score, feature_vector
from dwell_learning.network import TENSOR_TYPES, forward
from nn_cases import read_constants

APPLICATION = ROOT / "target" / "application"
PACKAGE_WEIGHTS = read_constants(ROOT / "application" / "constants")


@pytest.fixture(scope="module")
def runtime(tmp_path_factory: pytest.TempPathFactory):
    if not (ROOT / "runtime" / "target" / "classpath.txt").exists() or not APPLICATION.exists():
        pytest.fail("build first: ./dwell build")
    data = tmp_path_factory.mktemp("dwell-data")
    yield from deployed_runtime(data, APPLICATION, feed=write_jsonl(data.parent / "corpus.jsonl"))


def ranked(profile: str, **more) -> list[dict]:
    result = search(article=ARTICLE, ranking=profile, hits=20, **{"ranking.properties.vespa.now": NOW}, **more)
    assert "errors" not in result["root"], result["root"]
    return result["root"]["children"]


def comment_id(hit: dict) -> str:
    return hit["fields"]["comment_id"]


def expected(scores: dict[str, float]) -> list[str]:
    return sorted(scores, key=lambda c: -scores[c])


def test_freshness_ranks_as_numpy_computes(runtime: Runtime) -> None:
    hits = ranked("freshness")
    scores = {c: float(baseline_score(feature_vector(signals(c), NOW))) for c in COMMENTS}
    assert [comment_id(h) for h in hits] == expected(scores)
    for hit in hits:
        assert hit["relevance"] == pytest.approx(scores[comment_id(hit)], abs=1e-4)


@pytest.mark.parametrize("profile", ["neural", "neural_onnx"])
def test_neural_profiles_rank_as_numpy_computes(runtime: Runtime, profile: str) -> None:
    hits = ranked(profile)
    scores = {c: float(forward(PACKAGE_WEIGHTS, feature_vector(signals(c), NOW))) for c in COMMENTS}
    assert [comment_id(h) for h in hits] == expected(scores)
    for hit in hits:
        assert hit["relevance"] == pytest.approx(scores[comment_id(hit)], abs=1e-4)
        assert hit["fields"]["article_id"] == ARTICLE


def test_a_vote_changes_the_next_querys_ranking(runtime: Runtime) -> None:
    """The next query that reaches the content nodes ranks with the vote (cache=false); an article view served by the
    package's hot-article cache shows it once the cached window is older than its bound (maxAgeMillis 1000)."""
    before = [comment_id(h) for h in ranked("freshness")]   # cached: the window of this view is now in the cache
    voted = before[-2]
    status, _ = http("PUT", f"{CONTAINER}/document/v1/dwell/comment/docid/{voted}",
                     {"fields": {"upvotes": {"increment": 500}}})
    acknowledged = time.monotonic()
    assert status == 200
    scores = {c: float(baseline_score(feature_vector(signals(c), NOW))) for c in COMMENTS}
    scores[voted] = float(baseline_score(feature_vector(replace(signals(voted), upvotes=signals(voted).upvotes + 500), NOW)))
    hits = ranked("freshness", cache="false")
    assert [comment_id(h) for h in hits] == expected(scores)
    assert [comment_id(h) for h in hits] != before
    assert next(h for h in hits if comment_id(h) == voted)["relevance"] == pytest.approx(scores[voted], abs=1e-4)
    while [comment_id(h) for h in ranked("freshness")] != expected(scores):
        assert time.monotonic() - acknowledged < 1.5, "a cached view is at most 1 s older than the content nodes"
        time.sleep(0.02)


def test_a_rankingmodel_update_changes_neural_scores_without_redeploy(runtime: Runtime) -> None:
    rng = np.random.default_rng(99)
    weights = {name: rng.normal(0, 0.5, shape).astype(np.float32) for name, (_, shape) in TENSOR_TYPES.items()}
    document = rankingmodel_put(weights, "neural", version=2, trained_at_ms=1)
    status, body = http("POST", f"{CONTAINER}/document/v1/dwell/rankingmodel/docid/neural", {"fields": document["fields"]})
    assert status == 200, body
    deadline = time.time() + 1.5
    while True:
        result = search(article=ARTICLE, ranking="neural", hits=20, **{"ranking.properties.vespa.now": NOW})
        if result["root"]["fields"].get("model_version") == 2 or time.time() > deadline:
            break
        time.sleep(0.05)
    assert result["root"]["fields"]["model_version"] == 2
    current = {c: signals(c) for c in COMMENTS}
    for hit in result["root"]["children"]:
        features = np.array(hit["fields"]["matchfeatures"]["nn_input"]["values"])
        assert hit["relevance"] == pytest.approx(float(forward(weights, features)), abs=1e-4)
    assert len(current) == len(result["root"]["children"])


def visited_ids(*args: str) -> list[str]:
    result = vespa("visit", *args, check=False)
    assert result.returncode == 0, result.stderr
    return [json.loads(line)["id"] for line in result.stdout.splitlines() if line.strip()]


def test_vespa_visit_with_a_selection_across_continuations(runtime: Runtime) -> None:
    expected_ids = sorted(f"id:dwell:comment::{c}" for c in COMMENTS)
    assert sorted(visited_ids("--selection", f'comment.article_id=="{ARTICLE}"')) == expected_ids
    # one document per request: the CLI follows every continuation, and sees each document once
    assert sorted(visited_ids("--selection", f'comment.article_id=="{ARTICLE}"', "--chunk-count", "1")) == expected_ids
    # global documents live in the global bucket space
    assert sorted(visited_ids("--selection", "author")) == [f"id:dwell:author::{a}" for a in sorted(AUTHORS)]


def test_operations_endpoints(runtime: Runtime) -> None:
    status, health = http("GET", f"{CONTAINER}/state/v1/health")
    assert status == 200 and health["status"]["code"] == "up", health
    status, metrics = http("GET", f"{CONTAINER}/state/v1/metrics")
    assert status == 200 and "metrics" in metrics, metrics
    with urllib.request.urlopen(f"{CONTAINER}/status.html", timeout=10) as response:
        assert response.status == 200
    status, config_server = http("GET", "http://localhost:19071/state/v1/health")
    assert status == 200 and config_server["status"]["code"] == "up"


def test_a_broken_package_is_refused_while_queries_keep_working(runtime: Runtime, tmp_path: Path) -> None:
    broken = tmp_path / "broken"
    shutil.copytree(APPLICATION, broken)
    schema = broken / "schemas" / "comment.sd"
    schema.write_text(schema.read_text().replace("import field author_ref.reputation", "import field author_ref.karma"))
    failures: list[str] = []
    stop = threading.Event()

    def query_constantly() -> None:
        while not stop.is_set():
            status, body = http("GET", f"{CONTAINER}/search/?article={ARTICLE}&ranking=freshness")
            if status != 200 or "errors" in body.get("root", {}):
                failures.append(json.dumps(body)[:300])
            time.sleep(0.02)

    thread = threading.Thread(target=query_constantly)
    thread.start()
    try:
        deployed = vespa("deploy", str(broken), check=False)
    finally:
        stop.set()
        thread.join()
    assert deployed.returncode != 0
    assert "karma" in deployed.stderr + deployed.stdout
    assert failures == []


def test_a_rank_profile_the_engine_cannot_evaluate_is_refused_at_deploy(runtime: Runtime, tmp_path: Path) -> None:
    broken = tmp_path / "misspelled"
    shutil.copytree(APPLICATION, broken)
    schema = broken / "schemas" / "comment.sd"
    schema.write_text(schema.read_text().replace("expression: elu(xw_plus_b(nn_input, w0, b0, x))",
                                                 "expression: elu(xw_plus_b(nn_inptu, w0, b0, x))"))
    deployed = vespa("deploy", str(broken), check=False)
    assert deployed.returncode != 0
    assert "nn_inptu" in deployed.stderr + deployed.stdout
    assert ranked("neural"), "the previous package keeps serving"


def test_a_redeploy_fails_no_query_in_flight(runtime: Runtime) -> None:
    """The container is replaced on deploy: new connections are refused for the seconds that takes
    (see runtime/README.md), but every query the old container accepted is answered."""
    outcomes: list[str] = []
    stop = threading.Event()

    def query_constantly() -> None:
        while not stop.is_set():
            try:
                status, body = http("GET", f"{CONTAINER}/search/?article={ARTICLE}&ranking=neural", timeout=30)
                outcomes.append("ok" if status == 200 and "errors" not in body.get("root", {}) else f"error {status}: {json.dumps(body)[:200]}")
            except urllib.error.URLError as e:
                # urllib wraps errors while sending the request: refused, or reset while the connection sat
                # in the closing connector's accept queue
                not_read = isinstance(e.reason, (ConnectionRefusedError, ConnectionResetError))
                outcomes.append("refused" if not_read else f"failed: {e}")
                time.sleep(0.05)
            except ConnectionResetError:
                # A small request fits the socket buffer, so a connection the kernel queued but no container
                # accepted is reset only when the answer is read: the closing connector's accept queue (the
                # seconds of refused connections above). A query a container read and then dropped ends
                # otherwise (an error status, or the connection closed without an answer: below).
                outcomes.append("refused")
                time.sleep(0.05)
            except ConnectionError as e:
                outcomes.append(f"failed: {e}")

    threads = [threading.Thread(target=query_constantly) for _ in range(4)]
    for thread in threads:
        thread.start()
    try:
        time.sleep(1)
        assert vespa("deploy", "--wait", "300", str(APPLICATION), check=False).returncode == 0
        wait_for_container()
        time.sleep(2)
    finally:
        stop.set()
        for thread in threads:
            thread.join()
    failed = [o for o in outcomes if o not in ("ok", "refused")]
    assert failed == [], failed[:5]
    assert outcomes.count("ok") > 20


def test_every_acknowledged_write_survives_kill_9(runtime: Runtime) -> None:
    acknowledged: list[str] = []
    stop = threading.Event()

    def feed() -> None:
        i = 0
        while not stop.is_set():
            doc = f"k{i}"
            try:
                status, _ = http("POST", f"{CONTAINER}/document/v1/dwell/comment/docid/{doc}",
                                 {"fields": {"article_id": "kill", "text": f"comment number {i}", "upvotes": i}}, timeout=5)
            except OSError:  # the runtime was killed with this request in flight: not acknowledged
                status = None
            if status == 200:
                acknowledged.append(doc)
            i += 1

    thread = threading.Thread(target=feed)
    thread.start()
    time.sleep(3)
    runtime.kill9()
    stop.set()
    thread.join()
    assert len(acknowledged) > 20
    runtime.start()
    wait_for_container()
    for doc in acknowledged:
        status, body = http("GET", f"{CONTAINER}/document/v1/dwell/comment/docid/{doc}")
        assert status == 200, (doc, body)
        assert body["fields"]["upvotes"] == int(doc[1:])
    result = search(yql='select * from comment where article_id contains "kill"', hits=0)
    assert result["root"]["fields"]["totalCount"] >= len(acknowledged)


def test_a_restart_embeds_no_text_again(runtime: Runtime) -> None:
    # The content nodes flush their index (embeddings included) and a restart loads it; what it does not hold is
    # indexed with the embeddings kept in data/embeddings/: nothing is embedded again, every comment keeps its embedding.
    yql = f'select * from comment where article_id contains "{ARTICLE}"'
    before = {h["fields"]["documentid"]: h["fields"]["embedding"]
              for h in search(yql=yql, summary="embedding", hits=50)["root"]["children"]}
    assert len(before) == len(COMMENTS)
    runtime.stop()
    runtime.start()
    wait_for_container()
    after = {h["fields"]["documentid"]: h["fields"]["embedding"]
             for h in search(yql=yql, summary="embedding", hits=50)["root"]["children"]}
    assert after == before
    # The comments come back from the content nodes' flushed index state: nothing is indexed again
    assert re.search(r"Caught up: 0 documents indexed, [\d,]+ already held", runtime.log()), runtime.log()
    indexed = [line for line in runtime.log().splitlines() if "embeddings read back from" in line]
    if indexed:  # what the state did not hold was indexed with the embeddings kept on disk, not embedded again
        embedded = int(re.findall(r"([\d,]+) texts embedded", indexed[-1])[0].replace(",", ""))
        assert embedded == 0, indexed[-1]


def sorted_ids(yql: str, **more) -> tuple[list[str], dict]:
    result = search(yql=yql, **more)
    assert "errors" not in result["root"], result["root"]
    return [comment_id(h) for h in result["root"].get("children", [])], result["root"]


def test_order_by_sorts_across_content_nodes(runtime: Runtime) -> None:
    created = {c: signals(c).created_at for c in COMMENTS}
    newest_first = sorted(COMMENTS, key=lambda c: -created[c])
    yql = f'select * from comment where article_id contains "{ARTICLE}" order by created_at desc'
    ids, root = sorted_ids(yql, hits=20)
    assert ids == newest_first
    assert root["fields"]["totalCount"] == len(COMMENTS)
    assert sorted_ids(yql, hits=2, offset=2)[0] == newest_first[2:4]

    # A string key (lowercased by default, as the container asks for strings) with a numeric tie-breaker
    by_author = f'select * from comment where article_id contains "{ARTICLE}" order by author_id, created_at desc'
    assert sorted_ids(by_author, hits=20)[0] == sorted(COMMENTS, key=lambda c: (COMMENTS[c][0].lower(), -created[c]))

    # The sorting parameter, on values read back (votes may have changed them): most upvoted first, oldest first on ties
    ids, root = sorted_ids(f'select * from comment where article_id contains "{ARTICLE}"', hits=20, sorting="-upvotes +created_at")
    upvotes = {comment_id(h): h["fields"]["upvotes"] for h in root["children"]}
    assert ids == sorted(upvotes, key=lambda c: (-upvotes[c], created[c]))


def grouplist(root: dict, label: str) -> list[dict]:
    [group_root] = [c for c in root["children"] if c["id"].startswith("group:root")]
    [groups] = [c for c in group_root["children"] if c["id"] == f"grouplist:{label}"]
    return groups["children"]


def test_grouping_counts_comments_per_article_and_author(runtime: Runtime) -> None:
    corpus = {**{c: (ARTICLE, *v) for c, v in COMMENTS.items()}, **{c: ("news-2", *v) for c, v in OTHER_ARTICLE.items()}}
    where = f'article_id contains "{ARTICLE}" or article_id contains "news-2"'

    result = search(yql=f"select * from comment where {where} | all(group(article_id) each(output(count())))", hits=0)
    assert "errors" not in result["root"], result["root"]
    per_article = {g["value"]: g["fields"]["count()"] for g in grouplist(result["root"], "article_id")}
    expected = {}
    for article, *_ in corpus.values():
        expected[article] = expected.get(article, 0) + 1
    assert per_article == expected

    result = search(yql=f"select * from comment where {where} | all(group(author_id) max(10) order(-count()) each(output(count())))", hits=0)
    assert "errors" not in result["root"], result["root"]
    per_author = [(g["value"], g["fields"]["count()"]) for g in grouplist(result["root"], "author_id")]
    expected = {}
    for _, author, *_ in corpus.values():
        expected[author] = expected.get(author, 0) + 1
    assert dict(per_author) == expected
    assert [count for _, count in per_author] == sorted(expected.values(), reverse=True)

    result = search(yql=f"select * from comment where {where} | all(group(article_id) each(max(3) each(output(summary()))))", hits=0)
    assert "errors" not in result["root"], result["root"]
    for group in grouplist(result["root"], "article_id"):
        [hits] = [c for c in group["children"] if c["id"] == "hitlist:hits"]
        assert len(hits["children"]) == min(3, per_article[group["value"]])
        assert all(hit["fields"]["article_id"] == group["value"] for hit in hits["children"])


def test_unsupported_grouping_is_an_error_naming_it(runtime: Runtime) -> None:
    """array.at of a single-value attribute (proton's assertion) is refused by name (tests/e2e/test_grouping.py has the rest)."""
    yql = f'select * from comment where article_id contains "{ARTICLE}" | all(group(array.at(upvotes, 0)) each(output(count())))'
    status, body = http("GET", f"{CONTAINER}/search/?" + urllib.parse.urlencode({"yql": yql, "hits": 0}))
    messages = " ".join(error.get("message", "") for error in body["root"].get("errors", []))
    assert "array.at of SINGLE attribute 'upvotes'" in messages, (status, body)


def test_no_write_failed_to_reach_the_content_nodes(runtime: Runtime) -> None:
    """A write is acknowledged once it is in the log; the content nodes take it after that, on the commit
    thread, where a failure is only logged. None may fail: every fed author and comment above (and the
    updates and kill -9 writes) reached the index. Such a failure once went unseen on every author put."""
    log = (runtime.data / "logs" / "runtime.log").read_text(errors="replace")
    failures = [line[:400] for line in log.splitlines() if "Change listener" in line and "failed on" in line]
    assert failures == [], failures[:3]


def test_the_hot_article_cache_serves_what_the_content_nodes_gave(runtime: Runtime) -> None:
    """A view served from the package's hot-article cache renders exactly as one that reached the content nodes
    (hits, order, relevance, fields, match features, totalCount), and its trace says hit and the window's age."""
    view = {"article": ARTICLE, "ranking": "neural", "hits": 10, "ranking.properties.vespa.now": NOW, "exploration.rate": 0}

    def comparable(result: dict) -> dict:
        root = result["root"]
        return {"fields": {k: v for k, v in root["fields"].items() if k != "query_id"}, "children": root["children"]}

    uncached = search(**view, cache="false")
    first = search(**view, **{"trace.level": 1})
    second = search(**view, **{"trace.level": 1})
    assert comparable(first) == comparable(uncached)
    assert comparable(second) == comparable(uncached)
    trace = json.dumps(second["trace"])
    assert re.search(r"ArticleViewCache: hit, age \d+ ms", trace), trace
    assert first["root"]["fields"]["query_id"] != second["root"]["fields"]["query_id"], "each view is its own impression"
    bypassed = json.dumps(search(**view, cache="false", **{"trace.level": 1})["trace"])
    assert "ArticleViewCache: bypass (cache=false)" in bypassed


def test_an_impression_names_every_candidate_whether_or_not_it_was_shown(runtime: Runtime) -> None:
    """A view fills only the hits it shows with their summary; the candidates it does not show get their document ids
    alone (summary class ids), which the impression needs: the impression of an uncached view names every candidate in
    score order, as a view showing them all ranks them, and a view from the cache logs the same candidates."""
    view = {"article": ARTICLE, "ranking": "neural", "ranking.properties.vespa.now": NOW, "exploration.rate": 0}
    everything = search(**view, hits=50, cache="false")["root"]
    ranked = [hit["fields"]["documentid"] for hit in everything["children"]]
    assert len(ranked) == everything["fields"]["totalCount"] >= len(COMMENTS)
    shown = search(**view, hits=3, cache="false", query_id="e2e-uncached-ids")["root"]["children"]
    assert [hit["fields"]["documentid"] for hit in shown] == ranked[:3]
    assert all(hit["fields"]["text"] for hit in shown), "the shown hits have the view's summary"
    search(**view, hits=3, query_id="e2e-cached-ids-1")
    search(**view, hits=3, query_id="e2e-cached-ids-2")

    def impression(query_id: str) -> dict:
        path = runtime.data / "logs" / "dwell" / "impressions.jsonl"
        deadline = time.time() + 10
        while time.time() < deadline:
            for line in path.read_text().splitlines() if path.exists() else []:
                if f'"query_id":"{query_id}"' in line:
                    return json.loads(line)
            time.sleep(0.1)
        raise AssertionError(f"no impression {query_id} in {path}")

    uncached = impression("e2e-uncached-ids")
    assert [c["id"] for c in uncached["candidates"]] == ranked, "every candidate named, in score order"
    assert [s["id"] for s in uncached["shown"]] == ranked[:3]
    scores = [c["score"] for c in uncached["candidates"]]
    assert scores == sorted(scores, reverse=True)
    assert all("nn_input" in c["features"] for c in uncached["candidates"])
    for query_id in ("e2e-cached-ids-1", "e2e-cached-ids-2"):
        assert impression(query_id)["candidates"] == uncached["candidates"], "a cached view logs what the content nodes gave"


def test_sddocname_matches_every_document_of_its_type(runtime: Runtime) -> None:
    def total(yql: str) -> int:
        return search(yql=yql, hits=0)["root"]["fields"]["totalCount"]
    assert total('select * from sources * where sddocname contains "comment"') == total("select * from comment where true") > 0
    assert total('select * from sources * where sddocname contains "comment" and article_id contains "news-2"') == len(OTHER_ARTICLE)
    assert total('select * from sources * where sddocname contains "author"') == total("select * from author where true") > 0
    # author is global: every content node holds every author, and a query finds each once, as Vespa searches one copy
    authors = search(yql="select * from author where true", hits=10)
    assert authors["root"]["fields"]["totalCount"] == len(AUTHORS)
    assert sorted(hit["fields"]["author_id"] for hit in authors["root"]["children"]) == sorted(AUTHORS)
    assert total('select * from sources * where sddocname contains "no_such_type"') == 0


def visited_between(from_us: int, to_us: int = 0) -> list[str]:
    """Comment ids /document/v1 visits last written within [from_us, to_us] (microseconds; to 0: no bound)."""
    ids, continuation = [], None
    while True:
        query = {"fromTimestamp": from_us, "wantedDocumentCount": 1000, **({"toTimestamp": to_us} if to_us else {}),
                 **({"continuation": continuation} if continuation else {})}
        status, body = http("GET", f"{CONTAINER}/document/v1/dwell/comment/docid?{urllib.parse.urlencode(query)}")
        assert status == 200, body
        ids += [doc["id"].split("::")[1] for doc in body.get("documents", [])]
        continuation = body.get("continuation")
        if not continuation:
            return sorted(ids)


def test_visiting_honours_the_time_period(runtime: Runtime) -> None:
    every = visited_between(0)
    assert set(COMMENTS) | set(OTHER_ARTICLE) <= set(every)
    time.sleep(0.01)
    before = int(time.time() * 1_000_000)
    touched = sorted(COMMENTS)[:2]
    for comment in touched:
        status, _ = http("PUT", f"{CONTAINER}/document/v1/dwell/comment/docid/{comment}", {"fields": {"reads": {"increment": 1}}})
        assert status == 200
    after = int(time.time() * 1_000_000)
    assert visited_between(before) == touched
    assert visited_between(before, after) == touched
    assert visited_between(1, before - 1) == sorted(set(every) - set(touched))


def test_prefix_regexp_and_fuzzy_match_string_attributes(runtime: Runtime) -> None:
    """YQL's prefix, matches (regexp) and fuzzy on a string attribute (author_id, uncased), among the corpus's comments."""
    corpus = {**COMMENTS, **OTHER_ARTICLE}
    among = ", ".join(f'"{cid}"' for cid in corpus)

    def found(condition: str) -> list[str]:
        result = search(yql=f"select * from comment where {condition} and comment_id in ({among})", hits=50)
        assert "errors" not in result["root"], result["root"].get("errors")
        return sorted(hit["fields"]["comment_id"] for hit in result["root"].get("children", []))

    def authored(accepts) -> list[str]:
        return sorted(cid for cid, row in corpus.items() if accepts(row[0]))

    assert found('author_id contains ({prefix:true}"BO")') == authored(lambda a: a.startswith("bo"))
    assert found('author_id contains ({prefix:true}"no")') == authored(lambda a: a.startswith("no")) != []
    assert found('author_id contains ({maxEditDistance:1}fuzzy("bop"))') == authored(lambda a: a == "bob")
    assert found('author_id contains ({maxEditDistance:2, prefixLength:1}fuzzy("cyy"))') == authored(lambda a: a == "cy")
    assert found('author_id contains ({maxEditDistance:1}fuzzy("xob"))') == authored(lambda a: a == "bob")
    assert found('author_id contains ({maxEditDistance:1, prefixLength:1}fuzzy("xob"))') == []
    # matches: a partial match, ignoring case on an uncased attribute, as proton; Python's re is the reference
    for pattern in ["^B.B$", "o", "y$", "^(al|cy)", "[aeiou]{2}"]:
        assert found(f'author_id matches "{pattern}"') == authored(lambda a: re.search(pattern, a, re.IGNORECASE) is not None), pattern
    assert found('author_id matches "o"') != []
    status, body = http("GET", f"{CONTAINER}/search/?" + urllib.parse.urlencode({"yql": 'select * from comment where author_id matches "(a"'}))
    assert status == 400 and "Unclosed group" in json.dumps(body), (status, body)
    # as in Vespa, the container's own validation refuses prefix on an indexed field: 400, naming it
    status, body = http("GET", f"{CONTAINER}/search/?" + urllib.parse.urlencode({"yql": 'select * from comment where text contains ({prefix:true}"sch")'}))
    assert status == 400 and "'text' is an index field: Prefix matching is not supported" in json.dumps(body), body


def test_a_redeploy_reports_what_its_change_needs(runtime: Runtime, tmp_path: Path) -> None:
    """prepareandactivate answers configChangeActions as Vespa's config server does, from Vespa's change validators."""
    changed = tmp_path / "fast-search"
    shutil.copytree(APPLICATION, changed)
    schema = changed / "schemas" / "comment.sd"
    before = "        field author_id type string {\n            indexing: summary | attribute\n        }"
    assert before in schema.read_text()
    schema.write_text(schema.read_text().replace(before, "        field author_id type string {\n"
                                                         "            indexing: summary | attribute\n"
                                                         "            attribute: fast-search\n        }"))
    archive = tmp_path / "fast-search.zip"
    shutil.make_archive(str(archive.with_suffix("")), "zip", changed)
    request = urllib.request.Request(f"{CONFIG_SERVER}/application/v2/tenant/default/prepareandactivate",
                                     data=archive.read_bytes(), method="POST", headers={"Content-Type": "application/zip"})
    try:
        with urllib.request.urlopen(request, timeout=300) as response:
            reply = json.loads(response.read())
        actions = reply["configChangeActions"]
        messages = [message for action in actions["restart"] for message in action["messages"]]
        assert any("Field 'author_id' changed: add attribute 'fast-search'" in m for m in messages), actions
        assert {action["clusterName"] for action in actions["restart"]} == {"dwell"}
        assert actions["refeed"] == [] and actions["reindex"] == []
    finally:
        assert vespa("deploy", "--wait", "300", str(APPLICATION), check=False).returncode == 0
        wait_for_container()
    assert ranked("neural"), "the package is back, and serves"
