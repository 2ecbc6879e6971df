"""Multi-vector nearestNeighbor (tests/apps/multivector, issue 18): mixed tensor attributes tensor<float>(p{},x[4]),
fed with the vespa CLI, searched by nearestNeighbor through the container under each distance metric (euclidean with
an hnsw index, angular, prenormalized-angular, dotproduct), with a filter, approximate:false and distanceThreshold;
distance, closeness, closest() and an expression over closest() as match-features; summaries; and tensor modify, add
and remove updates through /document/v1. Every answer against numpy: a document's distance is the minimum over its
vectors of Vespa's distance, targetHits counts documents, closest() is 1.0 at the label of the closest vector."""
from __future__ import annotations

import json
import random

import numpy as np
import pytest
from dwell_client import CONTAINER, ROOT, Runtime, http, search, vespa

from clients import deployed_runtime

APP = ROOT / "tests" / "apps" / "multivector"
DOC = f"{CONTAINER}/document/v1/test/passage/docid"
FIELDS = {"euclidean": "vecs", "angular": "avecs", "prenormalized": "nvecs", "dotproduct": "dvecs"}
TOPICS = ["a", "b"]


def passages(seed: int = 18, count: int = 40) -> dict[str, dict]:
    """The fed passages: id -> {topic, vectors {label: 4 floats} (quarters, so float32 holds them), weights}."""
    rng = random.Random(seed)
    result = {}
    for i in range(count):
        vectors = {}
        for s in range(rng.randrange(6)):  # 0 to 5 vectors; a passage with none is never a nearestNeighbor hit
            vectors[f"s{s}"] = [rng.randrange(-8, 9) / 4 for _ in range(4)]
        vectors = {label: v for label, v in vectors.items() if any(v)}  # no zero vector (angular of it is undefined)
        result[f"d{i}"] = {"topic": TOPICS[i % 2], "vectors": vectors,
                           "weights": {label: float(k + 1) for k, label in enumerate(vectors)}}
    return result


PASSAGES = passages()


def normalized(v: list[float]) -> list[float]:
    a = np.asarray(v, dtype=np.float32)
    return (a / np.linalg.norm(a)).astype(np.float32).tolist()


def fields_of(p: dict) -> dict:
    fields = {"name": "", "topic": p["topic"], "weights": {"cells": p["weights"]}}
    if p["vectors"]:
        for field in ("vecs", "avecs", "dvecs"):
            fields[field] = {"blocks": p["vectors"]}
        fields["nvecs"] = {"blocks": {label: normalized(v) for label, v in p["vectors"].items()}}
    return fields


@pytest.fixture(scope="module")
def runtime(tmp_path_factory: pytest.TempPathFactory):
    tmp = tmp_path_factory.mktemp("dwell-multivector")
    feed = tmp / "feed.jsonl"
    feed.write_text("".join(json.dumps({"put": f"id:test:passage::{name}", "fields": {**fields_of(p), "name": name}}) + "\n"
                            for name, p in PASSAGES.items()))
    yield from deployed_runtime(tmp / "data", APP, feed)


def distance(profile: str, q: np.ndarray, v: np.ndarray) -> float:
    """Vespa's distance of each metric, in float64 from the float32 cells."""
    q, v = q.astype(np.float64), v.astype(np.float64)
    if profile == "euclidean":
        return float(np.sqrt(((q - v) ** 2).sum()))
    if profile == "angular":
        return float(np.arccos(np.clip(q @ v / np.sqrt((q @ q) * (v @ v)), -1, 1)))
    if profile == "prenormalized":
        return float(max(0.0, 1 - q @ v))
    return float(-(q @ v))


def closeness(profile: str, d: float) -> float:
    return -d if profile == "dotproduct" else 1 / (1 + d)


def expected(profile: str, q: list[float], topic: str | None = None, passages: dict | None = None) -> list[tuple[str, float, str]]:
    """(id, distance, closest label) of every passage with vectors (of the topic), closest first, by numpy."""
    out = []
    for name, p in (passages or PASSAGES).items():
        if not p["vectors"] or (topic and p["topic"] != topic):
            continue
        vectors = {label: np.asarray(normalized(v) if profile == "prenormalized" else v, dtype=np.float32)
                   for label, v in p["vectors"].items()}
        qv = np.asarray(normalized(q) if profile == "prenormalized" else q, dtype=np.float32)
        label = min(vectors, key=lambda lb: distance(profile, qv, vectors[lb]))
        out.append((name, distance(profile, qv, vectors[label]), label))
    return sorted(out, key=lambda e: e[1])


def nn_search(profile: str, q: list[float], target_hits: int, where: str = "", annotations: str = "", hits: int = 100) -> dict:
    field = FIELDS[profile]
    qv = normalized(q) if profile == "prenormalized" else q
    yql = (f'select * from passage where {where}({{label:"nn", targetHits:{target_hits}{annotations}}}'
           f'nearestNeighbor({field}, q))')
    return search(yql=yql, ranking=profile, hits=hits, **{"input.query(q)": json.dumps(qv)},
                  presentation__format__tensors="short-value")


def check_hits(result: dict, profile: str, want: list[tuple[str, float, str]], passages: dict | None = None) -> None:
    field = FIELDS[profile]
    hits = result["root"].get("children", [])
    assert "errors" not in result["root"], result["root"]["errors"]
    got = [h["fields"]["name"] for h in hits]
    assert [w[0] for w in want] == got, (profile, got, want)
    for hit, (name, d, label) in zip(hits, want):
        features = hit["fields"]["matchfeatures"]
        assert features[f"distance(field,{field})"] == pytest.approx(d, abs=1e-5), (profile, name)
        assert features[f"closeness(field,{field})"] == pytest.approx(closeness(profile, d), abs=1e-5)
        assert hit["relevance"] == pytest.approx(closeness(profile, d), abs=1e-5)
        assert features[f"closest({field})"] == {label: 1.0}, (profile, name)
        assert features["distance(label,nn)"] == pytest.approx(d, abs=1e-5)
        if profile == "euclidean":
            assert features["closest(vecs,nn)"] == {label: 1.0}
            assert features["weighted"] == (passages or PASSAGES)[name]["weights"][label]


def test_its_own_system_test_passes(runtime: Runtime) -> None:
    result = vespa("test", str(APP / "tests" / "system-test"), check=False)
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.parametrize("profile", list(FIELDS))
def test_every_metric_ranks_documents_by_their_closest_vector(runtime: Runtime, profile: str) -> None:
    rng = random.Random(profile)
    for _ in range(4):
        q = [rng.randrange(-8, 9) / 4 + 0.1 for _ in range(4)]  # off the grid: no ties
        target_hits = rng.randrange(1, 9)
        check_hits(nn_search(profile, q, target_hits), profile, expected(profile, q)[:target_hits])


def test_a_filter_under_and_exact_search_and_a_distance_threshold(runtime: Runtime) -> None:
    q = [0.6, -0.35, 1.1, 0.2]
    want = expected("euclidean", q, topic="b")[:5]
    check_hits(nn_search("euclidean", q, 5, where='topic contains "b" and '), "euclidean", want)
    all_of_them = expected("euclidean", q)
    check_hits(nn_search("euclidean", q, 7, annotations=", approximate:false"), "euclidean", all_of_them[:7])
    threshold = (all_of_them[2][1] + all_of_them[3][1]) / 2
    check_hits(nn_search("euclidean", q, 10, annotations=f", distanceThreshold:{threshold}"), "euclidean", all_of_them[:3])


def test_the_summary_shows_every_vector(runtime: Runtime) -> None:
    name = next(n for n, p in PASSAGES.items() if len(p["vectors"]) >= 3)
    result = search(yql=f'select * from passage where name contains "{name}"', presentation__format__tensors="short-value")
    fields = result["root"]["children"][0]["fields"]
    assert fields["vecs"] == PASSAGES[name]["vectors"]
    assert fields["weights"] == PASSAGES[name]["weights"]


def test_modify_add_and_remove_updates_change_what_is_searched(runtime: Runtime) -> None:
    name = next(n for n, p in PASSAGES.items() if len(p["vectors"]) >= 2)
    vectors = dict(PASSAGES[name]["vectors"])
    first, second = list(vectors)[:2]
    far = [40.0, 40.0, 40.0, 40.0]
    status, body = http("PUT", f"{DOC}/{name}", {"fields": {
        "vecs": {"modify": {"operation": "replace", "cells": [{"address": {"p": first, "x": str(x)}, "value": 40.0} for x in range(4)]}}}})
    assert status == 200, body
    vectors[first] = far
    status, body = http("PUT", f"{DOC}/{name}", {"fields": {"vecs": {"remove": {"addresses": [{"p": second}]}}}})
    assert status == 200, body
    del vectors[second]
    status, body = http("PUT", f"{DOC}/{name}", {"fields": {"vecs": {"add": {"blocks": {"new": [9.0, 9.0, 9.0, 9.5]}}}}})
    assert status == 200, body
    vectors["new"] = [9.0, 9.0, 9.0, 9.5]
    updated = {**PASSAGES, name: {**PASSAGES[name], "vectors": vectors}}

    result = search(yql=f'select * from passage where name contains "{name}"', presentation__format__tensors="short-value")
    assert result["root"]["children"][0]["fields"]["vecs"] == vectors
    q = [9.1, 9.0, 8.9, 9.4]  # closest to the added vector: this passage first, by its new vector
    want = expected("euclidean", q, passages=updated)[:4]
    assert want[0][0] == name and want[0][2] == "new"
    hits = nn_search("euclidean", q, 4)["root"]["children"]
    assert [h["fields"]["name"] for h in hits] == [w[0] for w in want]
    assert hits[0]["fields"]["matchfeatures"]["closest(vecs)"] == {"new": 1.0}
    assert hits[0]["fields"]["matchfeatures"]["distance(field,vecs)"] == pytest.approx(want[0][1], abs=1e-5)
    assert "weighted" in hits[0]["fields"]["matchfeatures"]  # "new" has no weight: 0
    assert hits[0]["fields"]["matchfeatures"]["weighted"] == 0
