"""Vespa's sample application examples/in-context-learning (vespa-engine/sample-apps) on dwell's runtime, with dwell's
MiniLM-L6-v2 and its tokenizer.json standing in for both of its embedders' models (huggingface.co: e5-small-v2, mean
pooled, and snowflake-arctic-embed-xs, cls pooled; each `url=` in services.xml set to `path=`, everything else
unchanged). It deploys and takes samples.jsonl (banking77's 10,003 training texts, which feed_examples.py writes from
huggingface.co; the test is skipped where the checkout lacks the file), and categorize_group.py's requests answer: its
default, bm25 with `group(1)`, gives the README's example output, 19.146904249529296 (card_arrival) and
13.75663952228003 (get_physical_card) as the top relevance for its two texts; `group(label)` gives each label's best two
texts, groups ordered by their best hit; sim_e5, sim_arctic and hybrid_e5_normalized_bm25 rank by the closeness numpy
computes from the stand-in in onnxruntime (the prepends and pooling services.xml gives each embedder) and, for the
hybrid (without the grouping), `2*atan(bm25/8)/3.14159` of the match-features' bm25. Runs when DWELL_SAMPLE_APPS points at a sample-apps
checkout; skipped otherwise (CI cannot reach GitHub)."""
from __future__ import annotations

import json
import math
import shutil
from pathlib import Path

import numpy as np
import pytest
from dwell_client import vespa
from dwell_client.application import deployed_runtime

from sample_standins import MODEL, SAMPLE_APPS, hidden_states, with_standins

EXAMPLE = SAMPLE_APPS / "examples" / "in-context-learning" if SAMPLE_APPS else None
SAMPLES = EXAMPLE / "samples.jsonl" if EXAMPLE else None

pytestmark = pytest.mark.skipif(SAMPLES is None or not SAMPLES.exists(),
                                reason="DWELL_SAMPLE_APPS has no examples/in-context-learning/samples.jsonl (feed_examples.py writes it)")

GROUPED = " limit 0 | all(group(1) max(1) each(max(10) each(output(summary()))))"
# categorize_group.py's README: the top hit's relevance and label for two of banking77's test texts
README = {"I still have not received my new card, I ordered over a week ago.": (19.146904249529296, "card_arrival"),
          "How do I locate my card?": (13.75663952228003, "get_physical_card")}
TEXT = "I still have not received my new card, I ordered over a week ago."


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory):
    work = tmp_path_factory.mktemp("in-context-learning")
    copy = with_standins(EXAMPLE, work, {
        "e5-small-v2/resolve/main/model.onnx": "model.onnx", "e5-small-v2/raw/main/tokenizer.json": "tokenizer.json",
        "snowflake-arctic-embed-xs/resolve/main/onnx/model_quantized.onnx": "model.onnx",
        "snowflake-arctic-embed-xs/raw/main/tokenizer.json": "tokenizer.json"})
    shutil.copy(MODEL / "minilm-l6-v2-int8.onnx", copy / "standin" / "model.onnx")
    for _ in deployed_runtime(work / "data", copy):
        fed = vespa("feed", str(SAMPLES), check=False, timeout=1200)
        assert fed.returncode == 0, fed.stdout + fed.stderr
        assert json.loads(fed.stdout)["feeder.ok.count"] == 10003
        yield copy


@pytest.fixture(scope="module")
def hidden():
    """The stand-in's last hidden state of a text, as the hugging-face-embedder runs it."""
    return hidden_states()


def closeness(a: np.ndarray, b: np.ndarray) -> float:
    """Vespa's closeness for distance-metric angular: 1 / (1 + the angle)."""
    a, b = a.astype(np.float64), b.astype(np.float64)
    return 1 / (1 + math.acos(max(-1.0, min(1.0, float(a @ b / np.linalg.norm(a) / np.linalg.norm(b))))))


def search(**parameters: str) -> dict:
    result = vespa("query", *[f"{k}={v}" for k, v in parameters.items()], "timeout=30s", check=False)
    assert result.returncode == 0, result.stdout + result.stderr
    root = json.loads(result.stdout)["root"]
    assert "errors" not in root, root["errors"]
    return root


def hits_of(root: dict) -> list[dict]:
    """The hits of a grouping result, group by group, as categorize_group.py's parse_vespa_group_response reads them."""
    found = []
    for group in root["children"][0]["children"][0]["children"]:
        for hit_list in group.get("children", []):
            found.extend(hit_list.get("children", []))
    return found


@pytest.mark.parametrize("text", list(README))
def test_bm25_gives_the_readme_example_output(app: Path, text: str) -> None:
    hits = hits_of(search(yql="select * from sources * where userQuery()" + GROUPED, query=text, ranking="bm25"))
    relevance, label = README[text]
    assert len(hits) == 10
    assert hits[0]["relevance"] == pytest.approx(relevance, rel=1e-13)
    assert hits[0]["fields"]["label"] == label
    assert [h["relevance"] for h in hits] == sorted((h["relevance"] for h in hits), reverse=True)


def test_grouping_by_label_gives_each_labels_best_two(app: Path) -> None:
    yql = "select * from sources * where userQuery() limit 0 | all(group(label) max(10) each(max(2) each(output(summary()))))"
    root = search(yql=yql, query=TEXT, ranking="bm25")
    groups = root["children"][0]["children"][0]["children"]
    assert len(groups) == 10
    best = [max(h["relevance"] for hl in g["children"] for h in hl["children"]) for g in groups]
    assert best == sorted(best, reverse=True)  # groups ordered by their best hit
    assert best[0] == pytest.approx(README[TEXT][0], rel=1e-13)
    for group in groups:
        hits = [h for hl in group["children"] for h in hl["children"]]
        assert 1 <= len(hits) <= 2 and {h["fields"]["label"] for h in hits} == {group["value"]}


@pytest.mark.parametrize("profile,field,embedder", [("sim_e5", "doc_embedding_e5", "e5"),
                                                    ("sim_arctic", "doc_embedding_arctic", "arctic")])
def test_nearest_neighbors_rank_by_the_stand_ins_closeness(app: Path, hidden, profile: str, field: str, embedder: str) -> None:
    yql = f"select * from sources * where ({{targetHits:10}}nearestNeighbor({field}, query_embedding))" + GROUPED
    hits = hits_of(search(yql=yql, query=TEXT, ranking=profile, **{"input.query(query_embedding)": f"embed({embedder}, @query)"}))
    if embedder == "e5":  # mean pooled, <query>query:</query>, <document>passage:</document>
        q, doc = hidden("query:" + TEXT).mean(axis=0), lambda t: hidden("passage:" + t).mean(axis=0)
    else:  # cls pooled, a query prepend only
        q, doc = hidden("Represent this sentence for searching relevant passages: " + TEXT)[0], lambda t: hidden(t)[0]
    assert len(hits) == 10
    for hit in hits:
        assert hit["relevance"] == pytest.approx(closeness(q, doc(hit["fields"]["text"])), abs=1e-6), hit["fields"]["text"]
    assert [h["relevance"] for h in hits] == sorted((h["relevance"] for h in hits), reverse=True)


def test_hybrid_adds_closeness_and_normalized_bm25(app: Path, hidden) -> None:
    # categorize_group.py's request without its grouping, whose hits carry no match-features
    yql = "select * from sources * where (userQuery() OR ({targetHits:10}nearestNeighbor(doc_embedding_e5, query_embedding) ))"
    hits = search(yql=yql, query=TEXT, ranking="hybrid_e5_normalized_bm25", hits="10",
                  **{"input.query(query_embedding)": "embed(e5, @query)"})["children"]
    q = hidden("query:" + TEXT).mean(axis=0)
    assert len(hits) == 10
    for hit in hits:
        features = hit["fields"]["matchfeatures"]
        c = closeness(q, hidden("passage:" + hit["fields"]["text"]).mean(axis=0))
        assert features["closeness(field,doc_embedding_e5)"] == pytest.approx(c, abs=1e-6)
        assert hit["relevance"] == pytest.approx(c + 2 * math.atan(features["bm25(text)"] / 8) / 3.14159, abs=1e-6)
    assert [h["relevance"] for h in hits] == sorted((h["relevance"] for h in hits), reverse=True)
