"""dwell's runtime end to end: deployed with the vespa CLI, fed and queried over HTTP, with
ranking checked against an independent numpy computation of the same features and network."""
from __future__ import annotations

import json
from dataclasses import replace
import shutil
import subprocess
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from corpus import ARTICLE, AUTHORS, COMMENTS, NOW, signals, write_jsonl
from dwell_learning.export import rankingmodel_put
from dwell_learning.features import baseline_score, feature_vector
from dwell_learning.network import TENSOR_TYPES, forward
from nn_cases import read_constants
from runtime import CONTAINER, ROOT, Runtime, http, search, vespa, wait_for_container

APPLICATION = ROOT / "target" / "application"
PACKAGE_WEIGHTS = read_constants(ROOT / "application" / "constants")


@pytest.fixture(scope="module")
def runtime(tmp_path_factory: pytest.TempPathFactory):
    if not (ROOT / "runtime" / "target" / "classpath.txt").exists() or not APPLICATION.exists():
        pytest.fail("build first: ./dwell build")
    rt = Runtime(tmp_path_factory.mktemp("dwell-data"))
    rt.start()
    try:
        deployed = vespa("deploy", "--wait", "300", str(APPLICATION), check=False)
        assert deployed.returncode == 0, deployed.stderr + deployed.stdout + rt.log()
        wait_for_container()
        fed = vespa("feed", str(write_jsonl(rt.data / "corpus.jsonl")), check=False)
        assert fed.returncode == 0, fed.stderr + fed.stdout + rt.log()
        yield rt
    finally:
        rt.stop()


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
    before = [comment_id(h) for h in ranked("freshness")]
    voted = before[-2]
    status, _ = http("PUT", f"{CONTAINER}/document/v1/dwell/comment/docid/{voted}",
                     {"fields": {"upvotes": {"increment": 500}}})
    assert status == 200
    scores = {c: float(baseline_score(feature_vector(signals(c), NOW))) for c in COMMENTS}
    scores[voted] = float(baseline_score(feature_vector(replace(signals(voted), upvotes=signals(voted).upvotes + 500), NOW)))
    hits = ranked("freshness")
    assert [comment_id(h) for h in hits] == expected(scores)
    assert [comment_id(h) for h in hits] != before
    assert next(h for h in hits if comment_id(h) == voted)["relevance"] == pytest.approx(scores[voted], abs=1e-4)


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
