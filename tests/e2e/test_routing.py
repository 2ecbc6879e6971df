"""Document selection (tests/apps/routing, issue 18): two content clusters of one type, `hot` storing the items with
hot == true and `cold` those with hot == false, as Vespa's document route selector routes them; an item neither
selection accepts is ignored (200, stored nowhere). A weighted set index field keeps its elements' weights:
dotProduct on it ranks by rawScore, the sum of query weight times element weight. Every answer is checked against a
reference computed here from what was fed (numpy for the scores)."""
from __future__ import annotations

import json
import random
import time
import urllib.parse

import numpy as np
import pytest
from dwell_client import CONTAINER, ROOT, Runtime, get, http, search, update, vespa

from clients import deployed_runtime

APP = ROOT / "tests" / "apps" / "routing"
TAGS = ["a", "b", "c", "d", "e", "f"]


def items(seed: int = 11, count: int = 80) -> dict[str, dict]:
    """The fed items: name -> fields; hot is true, false or missing (a fifth of them: stored nowhere)."""
    rng = random.Random(seed)
    fed = {}
    for i in range(count):
        fields: dict = {"name": f"i{i}", "tags": {t: rng.randrange(-3, 20) for t in rng.sample(TAGS, rng.randrange(4))}}
        draw = rng.random()
        if draw < 0.4:
            fields["hot"] = True
        elif draw < 0.8:
            fields["hot"] = False
        fed[f"i{i}"] = fields
    return fed


FED = items()
SELECTS = {"hot": lambda f: f.get("hot") is True, "cold": lambda f: f.get("hot") is False}


@pytest.fixture(scope="module")
def runtime(tmp_path_factory: pytest.TempPathFactory):
    tmp = tmp_path_factory.mktemp("dwell-routing")
    feed = tmp / "feed.jsonl"
    feed.write_text("".join(json.dumps({"put": f"id:test:item::{name}", "fields": fields}) + "\n" for name, fields in FED.items()))
    yield from deployed_runtime(tmp / "data", APP, feed)


def found(yql: str, **parameters) -> list[dict]:
    result = search(yql=yql, hits=400, **parameters)
    assert "errors" not in result["root"], result["root"]["errors"]
    hits = result["root"].get("children", [])
    assert result["root"]["fields"]["totalCount"] == len(hits)
    return hits


def visited(cluster: str) -> list[str]:
    """The names a visit of the cluster finds, through every continuation."""
    names, continuation = [], None
    while True:
        query = {"cluster": cluster, "wantedDocumentCount": 1000, **({"continuation": continuation} if continuation else {})}
        status, body = http("GET", f"{CONTAINER}/document/v1/test/item/docid?{urllib.parse.urlencode(query)}")
        assert status == 200, body
        names += [document["fields"]["name"] for document in body["documents"]]
        continuation = body.get("continuation")
        if not continuation:
            return sorted(names)


def test_its_own_system_test_passes(runtime: Runtime) -> None:
    result = vespa("test", str(APP / "tests" / "system-test"), check=False)
    assert result.returncode == 0, result.stdout + result.stderr


def test_each_cluster_holds_what_its_selection_accepts(runtime: Runtime) -> None:
    for cluster, selects in SELECTS.items():
        hits = found(f"select * from sources {cluster} where true")  # (YQL's from sets the sources; a sources parameter does not)
        assert sorted(hit["fields"]["name"] for hit in hits) == sorted(n for n, f in FED.items() if selects(f))
        assert {hit["source"] for hit in hits} <= {cluster}
        assert visited(cluster) == sorted(n for n, f in FED.items() if selects(f))
    both = found("select * from item where true")
    assert sorted(hit["fields"]["name"] for hit in both) == sorted(n for n, f in FED.items() if "hot" in f)
    assert all(hit["source"] == ("hot" if FED[hit["fields"]["name"]]["hot"] else "cold") for hit in both)


def test_an_item_no_selection_accepts_is_acknowledged_and_stored_nowhere(runtime: Runtime) -> None:
    ignored = [n for n, f in FED.items() if "hot" not in f]
    assert ignored
    for name in ignored:
        status, _ = get("item", name, namespace="test")
        assert status == 404, name
    status, body = http("POST", f"{CONTAINER}/document/v1/test/item/docid/nowhere", {"fields": {"name": "nowhere", "tags": {"a": 1}}})
    assert status == 200, body
    assert get("item", "nowhere", namespace="test")[0] == 404
    assert found('select * from item where name contains "nowhere"') == []


def test_dot_product_on_a_weighted_set_index_field_ranks_by_the_raw_score(runtime: Runtime) -> None:
    rng = random.Random(5)
    names = [n for n, f in FED.items() if "hot" in f]
    weights = np.array([[FED[n]["tags"].get(t, 0) for t in TAGS] for n in names], dtype=np.int64)
    holds = np.array([[t in FED[n]["tags"] for t in TAGS] for n in names])
    for _ in range(5):
        tokens = {t: rng.randrange(1, 9) for t in rng.sample(TAGS, rng.randrange(1, 4))}
        query = np.array([tokens.get(t, 0) for t in TAGS], dtype=np.int64)
        expected_scores = weights @ query
        matched = (holds & (query > 0)).any(axis=1)
        yql = "select * from item where dotProduct(tags, " + json.dumps(tokens) + ")"
        hits = found(yql)
        assert sorted(hit["fields"]["name"] for hit in hits) == sorted(np.array(names)[matched].tolist())
        score = {n: float(s) for n, s in zip(names, expected_scores)}
        for hit in hits:
            assert hit["relevance"] == score[hit["fields"]["name"]], (tokens, hit)
            assert hit["fields"]["matchfeatures"]["rawScore(tags)"] == score[hit["fields"]["name"]]
        relevances = [hit["relevance"] for hit in hits]
        assert relevances == sorted(relevances, reverse=True)


def test_item_raw_score_is_the_labelled_items_on_an_index_field(runtime: Runtime) -> None:
    yql = 'select * from item where ({label:"picked"}dotProduct(tags, {"a": 3})) or dotProduct(tags, {"b": 1})'
    for hit in found(yql):
        tags = FED[hit["fields"]["name"]]["tags"]
        assert hit["fields"]["matchfeatures"]["itemRawScore(picked)"] == 3 * tags.get("a", 0), hit
        assert hit["fields"]["matchfeatures"]["rawScore(tags)"] == 3 * tags.get("a", 0) + tags.get("b", 0), hit


def test_an_update_that_changes_what_a_selection_accepts_moves_the_item(runtime: Runtime) -> None:
    name = next(n for n, f in FED.items() if f.get("hot") is True)
    status, body = update("item", name, {"hot": {"assign": False}}, namespace="test")
    assert status == 200, body
    assert name not in visited("hot") and name in visited("cold")
    assert [hit["source"] for hit in found(f'select * from item where name contains "{name}"')] == ["cold"]
    status, body = update("item", name, {"hot": {"assign": True}}, namespace="test")
    assert status == 200, body
    assert name in visited("hot") and name not in visited("cold")
    assert [hit["source"] for hit in found(f'select * from item where name contains "{name}"')] == ["hot"]


def test_a_delete_by_selection_in_one_cluster_leaves_the_other(runtime: Runtime) -> None:
    cold = sorted(n for n, f in FED.items() if f.get("hot") is False)
    status, body = http("DELETE", f"{CONTAINER}/document/v1/?{urllib.parse.urlencode({'cluster': 'hot', 'selection': 'true'})}")
    assert status == 200, body
    assert body["documentCount"] == sum(1 for f in FED.values() if f.get("hot") is True), body
    # Vespa's handler answers once every remove is sent (the visit ends when each document is acked, and a document is
    # acked when its remove is sent), not once each is applied: the last ones may land just after the answer
    deadline = time.time() + 10
    while visited("hot") and time.time() < deadline:
        time.sleep(0.05)
    assert visited("hot") == []
    assert visited("cold") == cold
    assert sorted(hit["fields"]["name"] for hit in found("select * from item where true")) == cold
