"""Vespa's sample application colbert (vespa-engine/sample-apps) on dwell's runtime, with stand-ins for the models it
downloads from huggingface.co: a token-embeddings model of 128 dimensions, output `contextual`, for colbertv2.0
(tests/sample_apps/token_embeddings_standin.py), dwell's MiniLM-L6-v2 for e5-small-v2, dwell's MiniLM tokenizer.json for
both; services.xml's `url=` set to `path=` them, everything else unchanged. It deploys, feeds dataset/*.json and
answers the README's three queries with id:doc:doc::1 as the README asserts; the scores against numpy with the
stand-ins in onnxruntime (late_interaction.py, embedder/reference.py): max_sim over the unpacked bits of
tensor<int8>(dt{}, x[16]) (the second phase: relevance and order) and cos_sim of the bfloat16 cells of query(q) and
the embedding attribute. Runs when DWELL_SAMPLE_APPS points at a sample-apps checkout; skipped otherwise (CI cannot
reach GitHub)."""
from __future__ import annotations

import shutil
import sys
from pathlib import Path

import numpy as np
import pytest
from dwell_client import ROOT, search
from dwell_client.application import deployed_runtime

from late_interaction import ColBert, max_sim, pack_bits, unpack_bits
from sample_standins import MODEL, SAMPLE_APPS, bfloat16, documents, feed_of, with_standins
from sample_standins import mean_pooled as standin_mean_pooled

pytestmark = pytest.mark.skipif(SAMPLE_APPS is None or not (SAMPLE_APPS / "colbert" / "app" / "services.xml").exists(),
                                reason="DWELL_SAMPLE_APPS does not point at a vespa-engine/sample-apps checkout")

QUERIES = ["space contains many suns", "shipping stuff over the sea", "exchanging information by sound"]


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory):
    sys.path.insert(0, str(ROOT / "tests" / "sample_apps"))
    import token_embeddings_standin
    work = tmp_path_factory.mktemp("colbert-sample")
    copy = with_standins(SAMPLE_APPS / "colbert", work, {
        "e5-small-v2/resolve/main/model.onnx": "e5.onnx", "e5-small-v2/raw/main/tokenizer.json": "tokenizer.json",
        "colbertv2.0/resolve/main/model.onnx": "colbert.onnx", "colbertv2.0/raw/main/tokenizer.json": "tokenizer.json"})
    shutil.copy(MODEL / "minilm-l6-v2-int8.onnx", copy / "standin" / "e5.onnx")
    token_embeddings_standin.standin(str(copy / "standin" / "colbert.onnx"), 128, "contextual")
    for _ in deployed_runtime(work / "data", copy, feed_of(SAMPLE_APPS / "colbert" / "dataset", work)):
        yield copy


@pytest.fixture(scope="module")
def mean_pooled():
    """e5's hugging-face-embedder as services.xml configures it: mean pooling, not normalized (the default)."""
    return standin_mean_pooled()


@pytest.mark.parametrize("text", QUERIES)
def test_the_readme_queries(app: Path, mean_pooled, text: str) -> None:
    colbert = ColBert(app / "standin" / "colbert.onnx", app / "standin" / "tokenizer.json")
    result = search(yql="select * from doc where userQuery() or ({targetHits: 100}nearestNeighbor(embedding, q))",
                    query=text, timeout="20s",
                    **{"input.query(q)": "embed(e5, @query)", "input.query(qt)": "embed(colbert, @query)"})["root"]
    assert "errors" not in result, result["errors"]
    hits = result["children"]
    assert "id:doc:doc::1" in [h["id"] for h in hits]  # the README's data-test-assert-contains
    q = colbert.query(text)
    qe = bfloat16(mean_pooled("query:" + text)).astype(np.float64)
    want = {}
    for name, fields in documents(SAMPLE_APPS / "colbert" / "dataset").items():
        joined = (fields.get("title") or "") + " " + (fields.get("chunk") or "")  # as the schema's indexing joins them
        e = bfloat16(mean_pooled("passage:" + joined)).astype(np.float64)
        want[name] = (max_sim(q, unpack_bits(pack_bits(colbert.document(joined), 16))),
                      float(qe @ e / np.linalg.norm(qe) / np.linalg.norm(e)))
    assert [h["id"].split("::")[1] for h in hits] == sorted(want, key=lambda n: -want[n][0])  # second phase: max_sim
    for hit in hits:
        sim, cos = want[hit["id"].split("::")[1]]
        assert hit["relevance"] == pytest.approx(sim, rel=1e-5)
        assert hit["fields"]["matchfeatures"]["max_sim"] == pytest.approx(sim, rel=1e-5)
        assert hit["fields"]["matchfeatures"]["cos_sim"] == pytest.approx(cos, abs=1e-6)
