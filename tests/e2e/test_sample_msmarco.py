"""Vespa's sample application msmarco-ranking (vespa-engine/sample-apps) on dwell's runtime, with stand-ins for the
models it downloads from huggingface.co: dwell's MiniLM-L6-v2 for e5-small-v2, the 128-dimension token-embeddings
model (output `contextual`) for colbertv2.0 (tests/sample_apps/token_embeddings_standin.py), dwell's MiniLM
tokenizer.json for both and as models/tokenizer.json, and tests/apps/textmatch's stand-in cross-encoder
(e2e/textmatch_models.py) as models/model.onnx, where the README's curl puts the ms-marco-MiniLM-L-6-v2 export;
services.xml's `url=` set to `path=`, everything else unchanged (two content nodes, min-redundancy 2, a GPU in the
resources and `gpu-device: 0`). It deploys, feeds ext/docs.jsonl (1000 passages) and answers the README's two
queries with 'Manhattan' in the answer, as the README asserts. Checked against numpy (the stand-ins in onnxruntime):
e5-colbert's relevance and match-features max_sim (second phase, over the unpacked bits) and cos_sim (of the bfloat16
cells) and its hit order; e5-colbert-cross-encoder-rrf's 12 globally re-ranked hits (hits=12), each relevance the
sum of the three reciprocal ranks (1 / (61 + i)) of colbert_max_sim, e5_cos_sim and the cross-encoder over
tokenInputIds(96, query tokens, document tokens), and their order. Runs when DWELL_SAMPLE_APPS points at a
sample-apps checkout; skipped otherwise (CI cannot reach GitHub)."""
from __future__ import annotations

import shutil
import sys
from pathlib import Path

import numpy as np
import pytest
from dwell_client import ROOT, search
from dwell_client.application import deployed_runtime

from late_interaction import ColBert, max_sim, pack_bits, unpack_bits
from sample_standins import MODEL, SAMPLE_APPS, bfloat16, with_standins
from sample_standins import mean_pooled as standin_mean_pooled

APP = SAMPLE_APPS / "msmarco-ranking" if SAMPLE_APPS else None
pytestmark = pytest.mark.skipif(APP is None or not (APP / "services.xml").exists(),
                                reason="DWELL_SAMPLE_APPS does not point at a vespa-engine/sample-apps checkout")

QUERY = "what was the manhattan project"
EMBEDS = {"input.query(q)": "embed(e5_embedding_model, @query)",
          "input.query(qt)": "embed(colbert_embedding_model, @query)"}


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory):
    sys.path.insert(0, str(ROOT / "tests" / "sample_apps"))
    import token_embeddings_standin
    work = tmp_path_factory.mktemp("msmarco-sample")
    copy = with_standins(APP, work, {
        "e5-small-v2/resolve/main/model.onnx": "e5.onnx", "e5-small-v2/raw/main/tokenizer.json": "tokenizer.json",
        "colbertv2.0/resolve/main/model.onnx": "colbert.onnx", "colbertv2.0/raw/main/tokenizer.json": "tokenizer.json"},
        package="")
    shutil.rmtree(copy / "img")
    shutil.copy(MODEL / "minilm-l6-v2-int8.onnx", copy / "standin" / "e5.onnx")
    token_embeddings_standin.standin(str(copy / "standin" / "colbert.onnx"), 128, "contextual")
    (copy / "models").mkdir()
    shutil.copy(ROOT / "tests" / "apps" / "textmatch" / "models" / "cross.onnx", copy / "models" / "model.onnx")
    shutil.copy(MODEL / "tokenizer.json", copy / "models" / "tokenizer.json")
    for _ in deployed_runtime(work / "data", copy, APP / "ext" / "docs.jsonl"):
        yield copy


@pytest.fixture(scope="module")
def e5():
    """e5's hugging-face-embedder as services.xml configures it: mean pooling, not normalized, `query:`/`passage:`."""
    return standin_mean_pooled()


def cosine(e5, text: str) -> float:
    q = bfloat16(e5("query:" + QUERY)).astype(np.float64)
    d = bfloat16(e5("passage:" + text)).astype(np.float64)
    return float(q @ d / np.linalg.norm(q) / np.linalg.norm(d))


def cross_encoder(app: Path, text: str) -> float:
    """The stand-in cross-encoder over tokenInputIds(96, query(query_token_ids) d0[32], text_token_ids d0[64])."""
    from tokenizers import Tokenizer
    tokenizer = Tokenizer.from_file(str(app / "models" / "tokenizer.json"))
    tokenizer.no_padding()
    tokenizer.no_truncation()
    query = tokenizer.encode(QUERY, add_special_tokens=False).ids[:32]
    doc = tokenizer.encode(text, add_special_tokens=False).ids[:64]
    ids = ([101] + query + [102] + doc + [102])[:96]
    types = ([0] * (len(query) + 2) + [1] * (len(doc) + 1))[:96]
    ids, types = ids + [0] * (96 - len(ids)), types + [0] * (96 - len(types))
    mask = [1 if i < len(query) + len(doc) + 3 else 0 for i in range(96)]
    mixed = np.array(ids, dtype=np.int64) * np.array(mask, dtype=np.int64) + np.array(types, dtype=np.int64)
    return float(np.tanh(np.float32(mixed.astype(np.float32).mean()) * np.float32(1e-4)))


def test_e5_colbert(app: Path, e5) -> None:
    result = search(yql="select * from passage where {targetHits: 100}nearestNeighbor(e5_embedding, q)",
                    query=QUERY, ranking="e5-colbert", timeout="30s", **EMBEDS)["root"]
    assert "errors" not in result, result["errors"]
    hits = result["children"]
    assert len(hits) == 10 and any("Manhattan" in h["fields"]["text"] for h in hits)  # data-test-assert-contains
    colbert = ColBert(app / "standin" / "colbert.onnx", app / "standin" / "tokenizer.json")
    q = colbert.query(QUERY)
    for hit in hits:
        text = hit["fields"]["text"]
        sim = max_sim(q, unpack_bits(pack_bits(colbert.document(text), 16)))
        assert hit["relevance"] == pytest.approx(sim, rel=1e-5)
        assert hit["fields"]["matchfeatures"]["max_sim"] == pytest.approx(sim, rel=1e-5)
        assert hit["fields"]["matchfeatures"]["cos_sim"] == pytest.approx(cosine(e5, text), abs=1e-6)
    assert [h["relevance"] for h in hits] == sorted((h["relevance"] for h in hits), reverse=True)


def test_e5_colbert_cross_encoder_rrf(app: Path, e5) -> None:
    result = search(yql="select * from passage where userQuery() or ({targetHits: 100}nearestNeighbor(e5_embedding, q))",
                    query=QUERY, ranking="e5-colbert-cross-encoder-rrf", timeout="30s", hits=12,
                    **EMBEDS, **{"input.query(query_token_ids)": "embed(tokenizer, @query)"})["root"]
    assert "errors" not in result, result["errors"]
    hits = result["children"]
    assert len(hits) == 12 and any("Manhattan" in h["fields"]["text"] for h in hits[:10])
    colbert = ColBert(app / "standin" / "colbert.onnx", app / "standin" / "tokenizer.json")
    q = colbert.query(QUERY)
    features = {}
    for hit in hits:
        text = hit["fields"]["text"]
        mf = hit["fields"]["matchfeatures"]
        sim = max_sim(q, unpack_bits(pack_bits(colbert.document(text), 16)))
        assert mf["colbert_max_sim"] == pytest.approx(sim, rel=1e-5)
        assert mf["e5_cos_sim"] == pytest.approx(cosine(e5, text), abs=1e-6)
        features[hit["id"]] = (mf["colbert_max_sim"], mf["e5_cos_sim"], cross_encoder(app, text))
    want = {i: 0.0 for i in features}
    for k in range(3):
        for rank, i in enumerate(sorted(features, key=lambda i: -features[i][k])):
            want[i] += 1.0 / (61 + rank)
    assert [h["id"] for h in hits] == sorted(want, key=lambda i: -want[i])
    for hit in hits:
        assert hit["relevance"] == pytest.approx(want[hit["id"]], rel=1e-12)
