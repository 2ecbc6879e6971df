"""Vespa's sample application splade (vespa-engine/sample-apps) on dwell's runtime, with a stand-in for the
Splade_PP_en_v1 model it downloads from huggingface.co: a masked-LM logits model over the MiniLM vocabulary
(tests/sample_apps/splade_standin.py) with dwell's MiniLM tokenizer.json; services.xml's `url=` set to `path=` them,
everything else unchanged. It deploys, feeds ext/*.json and answers the README's three queries with the document each
asserts; against numpy with the stand-in in onnxruntime (late_interaction.py), in bfloat16 as Vespa converts cells:
query(q), both embedded fields (summaries), the token scores, the second-phase relevance and the order. Runs when
DWELL_SAMPLE_APPS points at a sample-apps checkout; skipped otherwise (CI cannot reach GitHub)."""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from dwell_client import ROOT, search
from dwell_client.application import deployed_runtime

from late_interaction import Splade
from sample_standins import SAMPLE_APPS, bfloat16, feed_of, with_standins

pytestmark = pytest.mark.skipif(SAMPLE_APPS is None or not (SAMPLE_APPS / "splade" / "app" / "services.xml").exists(),
                                reason="DWELL_SAMPLE_APPS does not point at a vespa-engine/sample-apps checkout")

QUERIES = {"stars": "3", "boats": "1", "humans talk a lot": "2"}  # the document each README query asserts


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory):
    sys.path.insert(0, str(ROOT / "tests" / "sample_apps"))
    import splade_standin
    work = tmp_path_factory.mktemp("splade-sample")
    copy = with_standins(SAMPLE_APPS / "splade", work, {"model.onnx": "splade.onnx", "tokenizer.json": "tokenizer.json"})
    splade_standin.standin(str(copy / "standin" / "splade.onnx"))
    for _ in deployed_runtime(work / "data", copy, feed_of(SAMPLE_APPS / "splade" / "ext", work)):
        yield copy


def as_floats(cells: dict[str, float]) -> dict[str, np.float32]:
    return {t: np.float32(v) for t, v in cells.items()}


def in_bfloat16(embedding: dict[str, float]) -> dict[str, float]:
    return {t: float(bfloat16(w)) for t, w in embedding.items()}


@pytest.mark.parametrize("text", QUERIES)
def test_the_readme_queries(app: Path, text: str) -> None:
    splade = Splade(app / "standin" / "splade.onnx", app / "standin" / "tokenizer.json", threshold=0.8)
    result = search(query=text, presentation__format__tensors="short-value", timeout="20s",
                    **{"input.query(q)": "embed(splade,@query)"})["root"]
    assert "errors" not in result, result["errors"]
    hits = result["children"]
    assert f"id:doc:doc::{QUERIES[text]}" in [h["id"] for h in hits]  # the README's data-test-assert-contains
    q = in_bfloat16(splade.embed(text))
    relevance = []
    for hit in hits:
        fields, features = hit["fields"], hit["fields"]["matchfeatures"]
        chunk, title = in_bfloat16(splade.embed(fields["chunk"])), in_bfloat16(splade.embed(fields["title"]))
        assert features["query(q)"] == q
        assert fields["splade_chunk_embedding"] == chunk
        assert fields["splade_title_embedding"] == title
        # float cells: bfloat16 times bfloat16 is exact in float, rendered as the float
        assert as_floats(features["chunk_token_scores"]) == {t: np.float32(q[t] * chunk[t]) for t in q.keys() & chunk.keys()}
        assert as_floats(features["title_token_scores"]) == {t: np.float32(q[t] * title[t]) for t in q.keys() & title.keys()}
        second_phase = sum(q[t] * title[t] for t in q.keys() & title.keys()) + sum(q[t] * chunk[t] for t in q.keys() & chunk.keys())
        assert hit["relevance"] == pytest.approx(second_phase, rel=1e-12)
        relevance.append(hit["relevance"])
    assert relevance == sorted(relevance, reverse=True)
