"""Vespa's sample application examples/workshop-ecommerce (vespa-engine/sample-apps) on dwell's runtime, with dwell's
MiniLM-L6-v2 and its tokenizer.json standing in for e5-small-v2 (data.vespa-cloud.com; services.xml's two `url=` set to
`path=` files in standin/, everything else unchanged, its `<clients>` section too). It deploys, its three sample files
(dataset/*.jsonl: 10 products, 10 orders, 10 users) go in with `vespa feed`, and the README's (and
query_examples.ipynb's) queries answer: the product text query with nativeRank 0.38186238359951247, the README's own
number; the hybrid query ranked by nativeRank + closeness, closeness computed here with numpy from the stand-in in
onnxruntime ('passage: ' and 'query: ' prepended, mean pooled, angular distance); the users by wand, ranked 2.0 by
sparse_dot as the README says; the orders by id and by their products. A search of one type reports that type's
documents (10) in its coverage, as proton does (the README's user query shows `"documents": 10`). Runs when
DWELL_SAMPLE_APPS points at a sample-apps checkout; skipped otherwise (CI cannot reach GitHub)."""
from __future__ import annotations

import json
import math
import shutil
from pathlib import Path

import numpy as np
import pytest
from dwell_client import vespa
from dwell_client.application import deployed_runtime

from clients import vespa_query
from sample_standins import MODEL, SAMPLE_APPS, with_standins
from sample_standins import mean_pooled as standin_mean_pooled

EXAMPLE = SAMPLE_APPS / "examples" / "workshop-ecommerce" if SAMPLE_APPS else None

pytestmark = pytest.mark.skipif(EXAMPLE is None or not (EXAMPLE / "app" / "services.xml").exists(),
                                reason="DWELL_SAMPLE_APPS does not point at a vespa-engine/sample-apps checkout")

NATIVE_RANK_OF_ONE_MATCH = 0.38186238359951247  # the README's nativeRank(product_name) for "chocolate"


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory):
    work = tmp_path_factory.mktemp("workshop-ecommerce")
    copy = with_standins(EXAMPLE, work, {"e5-small-v2/model.onnx": "e5.onnx", "e5-small-v2/tokenizer.json": "tokenizer.json"})
    shutil.copy(MODEL / "minilm-l6-v2-int8.onnx", copy / "standin" / "e5.onnx")
    for _ in deployed_runtime(work / "data", copy):
        for name in ("products", "orders_train", "users"):
            fed = vespa("feed", str(EXAMPLE / "dataset" / f"{name}.jsonl"), check=False)
            assert fed.returncode == 0, fed.stdout + fed.stderr
            assert json.loads(fed.stdout)["feeder.ok.count"] == 10
        yield copy


@pytest.fixture(scope="module")
def mean_pooled():
    """The hugging-face-embedder as services.xml configures it: mean pooling, not normalized (the default)."""
    return standin_mean_pooled()



def products() -> dict[str, str]:
    lines = (EXAMPLE / "dataset" / "products.jsonl").read_text().splitlines()
    return {d["put"]: d["fields"]["product_name"] for d in map(json.loads, filter(str.strip, lines))}


def test_the_text_queries(app: Path) -> None:
    root = vespa_query("yql=select * from product.product where userQuery()", "query=chocolate", "ranking.profile=product_search")
    assert [h["id"] for h in root["children"]] == ["id:products:product::1"]
    hit = root["children"][0]
    assert hit["fields"]["product_name"] == "Chocolate Sandwich Cookies"
    assert hit["fields"]["summaryfeatures"]["nativeRank(product_name)"] == pytest.approx(NATIVE_RANK_OF_ONE_MATCH, abs=1e-15)
    assert hit["relevance"] == pytest.approx(NATIVE_RANK_OF_ONE_MATCH, abs=1e-15)  # no nearestNeighbor: closeness 0
    filtered = vespa_query("yql=select * from product.product where userQuery() AND product_id>2", "query=chocolate",
                     "ranking.profile=product_search")
    assert filtered["fields"]["totalCount"] == 0  # the only chocolate product is product 1


def test_the_hybrid_query_ranks_by_native_rank_and_closeness(app: Path, mean_pooled) -> None:
    root = vespa_query("yql=select * from product.product where userQuery() OR ({targetHits: 10}nearestNeighbor(embedding, q_emb))",
                 "query=chocolate", "input.query(q_emb)=embed(@query)", "ranking.profile=product_search")
    q = mean_pooled("query: chocolate").astype(np.float64)
    want = {}
    for docid, name in products().items():
        d = mean_pooled("passage: " + name).astype(np.float64)
        closeness = 1 / (1 + math.acos(min(1.0, float(q @ d / np.linalg.norm(q) / np.linalg.norm(d)))))
        want[docid] = (closeness, NATIVE_RANK_OF_ONE_MATCH if "chocolate" in name.lower() else 0.0)
    hits = root["children"]
    assert root["fields"]["totalCount"] == 10
    assert [h["id"] for h in hits] == sorted(want, key=lambda d: -sum(want[d]))
    for hit in hits:
        closeness, native = want[hit["id"]]
        assert hit["fields"]["summaryfeatures"]["closeness(field,embedding)"] == pytest.approx(closeness, abs=1e-6)
        assert hit["fields"]["summaryfeatures"]["nativeRank(product_name)"] == pytest.approx(native, abs=1e-15)
        assert hit["relevance"] == pytest.approx(closeness + native, abs=1e-6)


def test_the_user_queries(app: Path) -> None:
    root = vespa_query("yql=select * from user where user_id=1")
    assert [h["id"] for h in root["children"]] == ["id:users:user::1"]
    assert root["coverage"]["documents"] == 10  # the user type's, as the README shows
    fields = root["children"][0]["fields"]
    assert fields["user_profile"]["196"] == 1 and len(fields["user_profile"]) == 11
    assert fields["user_purchases"][0] == {"order_dow": 4, "order_hour_of_day": 8, "order_id": 1187899, "product_id": 196}
    for tokens in ("[[196,1]]", "[[196,1],[25133,1]]"):
        unranked = vespa_query(f"yql=select * from user where ({{targetHits: 25}}wand(user_profile, {tokens}))", "ranking=unranked")
        assert [h["id"] for h in unranked["children"]] == ["id:users:user::1"]
    ranked = vespa_query("yql=select * from user where ({targetHits: 25}wand(user_profile, [[196,1],[25133,1]]))", "ranking=sparse_dot")
    assert [(h["id"], h["relevance"]) for h in ranked["children"]] == [("id:users:user::1", 2.0)]  # "relevance is now 2.0"


def test_the_order_queries(app: Path) -> None:
    for yql in ("select * from order where order_id=1187899", 'select * from order where product_ids contains "196"',
                'select * from order where product_ids contains "196" AND product_ids contains "25133"'):
        root = vespa_query(f"yql={yql}")
        assert [h["id"] for h in root["children"]] == ["id:orders:order::1187899"], yql
        assert root["coverage"]["documents"] == 10
