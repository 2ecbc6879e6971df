"""Vespa's sample application hypencoder (vespa-engine/sample-apps) on dwell's runtime, with stand-ins for the two
models it downloads from huggingface.co (tests/sample_apps/hypencoder_standin.py: the passage encoder, 768-d CLS
embeddings, and the query encoder, whose five outputs are the q-net's weights) and dwell's MiniLM tokenizer.json as
app/models/tokenizer.json (where the README's curl puts it) and as the passage embedder's; services.xml's `url=` set
to `path=`, everything else unchanged. It deploys, feeds dataset/sample.json and answers the README's four queries,
the JSON bodies the app's own encode_query.py writes for each profile; each hit's relevance (and `hypencoder_score`)
is what numpy computes from the stand-ins: the q-net (two residual blocks of matmul, bias, ReLU and parameter-free
LayerNorm, then Wout) over the CLS embedding, the cosine for cosine_baseline, and the hit order is theirs. Runs when
DWELL_SAMPLE_APPS points at a sample-apps checkout; skipped otherwise (CI cannot reach GitHub)."""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from dwell_client import ROOT
from dwell_client.application import deployed_runtime
from dwell_client.httpjson import http
from dwell_client.paths import CONTAINER

from sample_standins import MODEL, SAMPLE_APPS, with_standins

APP = SAMPLE_APPS / "hypencoder" if SAMPLE_APPS else None
pytestmark = pytest.mark.skipif(APP is None or not (APP / "app" / "services.xml").exists(),
                                reason="DWELL_SAMPLE_APPS does not point at a vespa-engine/sample-apps checkout")

QUERY = "tallest mountain in the world"
MODES = {"--cosine": "cosine_baseline", "": "hypencoder_onnx", "--rerank": "hypencoder_rerank",
         "--lexical": "hypencoder_lexical_rerank"}


def standin():
    sys.path.insert(0, str(ROOT / "tests" / "sample_apps"))
    import hypencoder_standin
    return hypencoder_standin


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory):
    work = tmp_path_factory.mktemp("hypencoder-sample")
    copy = with_standins(APP, work, {"2_layer/passage_encoder.onnx": "passage_encoder.onnx",
                                     "2_layer/tokenizer.json": "tokenizer.json"})
    (copy / "models").mkdir()
    shutil.copy(MODEL / "tokenizer.json", copy / "models" / "tokenizer.json")
    standin().write_passage(str(copy / "standin" / "passage_encoder.onnx"))
    standin().write_query_encoder(str(copy / "models" / "query_encoder.onnx"))
    feed = work / "feed.jsonl"
    feed.write_text("".join(json.dumps(put) + "\n" for put in json.loads((APP / "dataset" / "sample.json").read_text())))
    for _ in deployed_runtime(work / "data", copy, feed):
        yield copy


def tokenizer(app: Path):
    from tokenizers import Tokenizer
    tok = Tokenizer.from_file(str(app / "standin" / "tokenizer.json"))
    tok.no_padding()  # the file pads to 128; Vespa's embedder does not pad
    return tok


def cls_embedding(app: Path, text: str) -> np.ndarray:
    e = tokenizer(app).encode(text)
    return standin().passage(np.array([e.ids]), np.array([e.attention_mask]))[0, 0]


def layer_norm(v: np.ndarray) -> np.ndarray:
    centered = v - v.sum() / 768.0
    return centered / np.sqrt((centered ** 2).sum() / 768.0 + 1e-5)


def qnet(weights: dict[str, np.ndarray], x0: np.ndarray) -> float:
    res0 = layer_norm(np.maximum(weights["W0"] @ x0 + weights["b0"], 0.0)) + x0
    ln1 = layer_norm(np.maximum(weights["W1"] @ res0 + weights["b1"], 0.0))
    return float(ln1 @ weights["Wout"])


def body(app: Path, flag: str) -> dict:
    """The request encode_query.py writes, as the README runs it (its tokenizer in the copy's models/)."""
    args = [sys.executable, str(APP / "encode_query.py"), QUERY, "--tokenizer", str(app / "models" / "tokenizer.json")]
    done = subprocess.run(args + ([flag] if flag else []), capture_output=True, text=True, check=True)
    return json.loads(done.stdout)


def documents() -> dict[str, str]:
    return {put["fields"]["id"]: put["fields"]["text"] for put in json.loads((APP / "dataset" / "sample.json").read_text())}


@pytest.mark.parametrize("flag", MODES)
def test_the_readme_queries(app: Path, flag: str) -> None:
    request = body(app, flag)
    assert request["ranking.profile"] == MODES[flag]
    status, reply = http("POST", f"{CONTAINER}/search/", request, timeout=60)
    assert status == 200, reply
    result = reply["root"]
    assert "errors" not in result, result["errors"]
    hits = result["children"]
    docs = documents()
    embeddings = {i: cls_embedding(app, text).astype(np.float64) for i, text in docs.items()}
    if flag == "--cosine":
        q = cls_embedding(app, QUERY).astype(np.float64)
        want = {i: float(e @ q / np.linalg.norm(e) / np.linalg.norm(q)) for i, e in embeddings.items()}
    else:
        e = tokenizer(app)
        e.enable_truncation(max_length=64)
        e.enable_padding(length=64, pad_id=e.token_to_id("[PAD]"), pad_token="[PAD]")
        enc = e.encode(QUERY)
        assert request["input.query(input_ids)"] == [[float(i) for i in enc.ids]]
        weights = {k: v.astype(np.float64) for k, v in
                   standin().query_encoder(np.array([enc.ids], np.float32),
                                           np.array([enc.attention_mask], np.float32)).items()}
        want = {i: qnet(weights, x) for i, x in embeddings.items()}
        if flag == "--lexical":  # weakAnd over text: the documents holding a query word
            words = set(QUERY.split())
            want = {i: s for i, s in want.items() if words & set(docs[i].lower().replace(",", " ").split())}
    assert result["fields"]["totalCount"] == len(want)
    assert [h["fields"]["id"] for h in hits] == sorted(want, key=lambda i: -want[i])
    for hit in hits:
        assert hit["relevance"] == pytest.approx(want[hit["fields"]["id"]], rel=1e-4, abs=1e-5)
    if flag != "--cosine":  # `select id, text` leaves summaryfeatures out, as in Vespa; `select *` shows them
        status, reply = http("POST", f"{CONTAINER}/search/",
                             request | {"yql": request["yql"].replace("select id, text", "select *")}, timeout=60)
        assert status == 200, reply
        assert [h["relevance"] for h in reply["root"]["children"]] == [h["relevance"] for h in hits]
        for hit in reply["root"]["children"]:
            assert hit["fields"]["summaryfeatures"]["hypencoder_score"] == pytest.approx(hit["relevance"], rel=1e-6)
