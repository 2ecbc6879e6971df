"""Vespa's sample application multi-vector-indexing (vespa-engine/sample-apps) on dwell's runtime: its e5-small-v2
embedder stood in for by dwell's own MiniLM-L6-v2 (same inputs and outputs; application/embedder/, fetched by the
build), services.xml's two `url=` pointed at those files (`path=`), everything else unchanged. It deploys, feeds its
8 articles, and the README's queries answer; for every article, the closest paragraph (closest(paragraph_embeddings))
and the semantic score (cos of the angular distance of the closest paragraph) against numpy with the model run in
onnxruntime (embedder/reference.py), paragraphs embedded as the schema says ("passage:" title paragraph). Runs when
DWELL_SAMPLE_APPS points at a sample-apps checkout; skipped otherwise (CI cannot reach GitHub)."""
from __future__ import annotations

import json
import os
import re
import shutil
import zipfile
from pathlib import Path

import numpy as np
import pytest
from dwell_client import ROOT, search
from dwell_client.application import deployed_runtime

SAMPLE_APPS = Path(os.environ["DWELL_SAMPLE_APPS"]) if os.environ.get("DWELL_SAMPLE_APPS") else None
APP = SAMPLE_APPS / "multi-vector-indexing" if SAMPLE_APPS else None
MODEL = ROOT / "application" / "embedder"
RAILWAYS = "what does 24 mean in the context of railways"

pytestmark = pytest.mark.skipif(APP is None or not (APP / "services.xml").exists(),
                                reason="DWELL_SAMPLE_APPS does not point at a vespa-engine/sample-apps checkout")


def articles() -> list[dict]:
    with zipfile.ZipFile(APP / "ext" / "articles.jsonl.zip") as z:
        name = next(n for n in z.namelist() if n.endswith(".jsonl"))
        return [json.loads(line) for line in z.read(name).decode().splitlines() if line.strip()]


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory):
    work = tmp_path_factory.mktemp("multivector-sample")
    copy = shutil.copytree(APP, work / "application", ignore=shutil.ignore_patterns("ext", "standin"))
    (copy / "standin").mkdir()
    shutil.copy(MODEL / "minilm-l6-v2-int8.onnx", copy / "standin" / "e5-small-v2-int8.onnx")
    shutil.copy(MODEL / "tokenizer.json", copy / "standin" / "tokenizer.json")
    services = (copy / "services.xml").read_text()
    services = re.sub(r'(url|path)="[^"]*e5-small-v2-int8\.onnx"', 'path="standin/e5-small-v2-int8.onnx"', services)
    services = re.sub(r'(url|path)="[^"]*tokenizer\.json"', 'path="standin/tokenizer.json"', services)
    (copy / "services.xml").write_text(services)
    feed = work / "articles.jsonl"
    feed.write_text("".join(json.dumps(a) + "\n" for a in articles()))
    for _ in deployed_runtime(work / "data", copy, feed):
        yield copy


@pytest.fixture(scope="module")
def paragraphs() -> dict[str, np.ndarray]:
    """Each article's paragraph embeddings by title, by numpy."""
    import sys
    sys.path.insert(0, str(ROOT))
    from embedder.reference import ReferenceEmbedder
    embedder = ReferenceEmbedder(MODEL)
    out = {}
    for a in articles():
        f = a["fields"]
        out[f["title"]] = embedder.embed_batch([f"passage:{f['title']} {p}" for p in f["paragraphs"]])
    out["_query"] = {text: embedder.embed("query:" + text) for text in (RAILWAYS, "how many moons does the planet have")}
    return out


def test_the_readme_queries_answer(app: Path) -> None:
    assert search(yql="select * from wiki where true", ranking="unranked")["root"]["fields"]["totalCount"] == 8
    bm25 = search(yql="select * from wiki where userQuery()", query="24", ranking="bm25")["root"]
    assert bm25["children"][0]["fields"]["title"] == "24-hour clock"
    assert "errors" not in bm25, bm25["errors"]  # paragraphs (bolding: on, an array of strings): each element marked
    assert bm25["children"][0]["fields"]["paragraphs"][4].startswith("In railway timetables <hi>24</hi>:00 means")
    semantic = search(yql="select * from wiki where {targetHits:10}nearestNeighbor(paragraph_embeddings,q) limit 1",
                      ranking="semantic", **{"input.query(q)": f"embed({RAILWAYS})"})["root"]
    hit = semantic["children"][0]["fields"]
    assert hit["title"] == "24-hour clock"
    assert hit["matchfeatures"]["closest(paragraph_embeddings)"] == {"4": 1.0}  # "In railway timetables 24:00 means ..."
    hybrid = search(yql="select * from wiki where userQuery() or ({targetHits:10}nearestNeighbor(paragraph_embeddings,q)) limit 1",
                    query=RAILWAYS, ranking="hybrid", hits=1, **{"input.query(q)": "embed(@query)"})["root"]
    features = hybrid["children"][0]["fields"]["matchfeatures"]
    similarities = features["all_paragraph_similarities"]
    assert features["closest(paragraph_embeddings)"] == {max(similarities, key=similarities.get): 1.0}
    assert features["avg_paragraph_similarities"] == pytest.approx(np.mean(list(similarities.values())), abs=1e-6)
    assert features["firstPhase"] == pytest.approx(max(similarities.values()), abs=1e-5)


@pytest.mark.parametrize("text,target_hits", [(RAILWAYS, 10), ("how many moons does the planet have", 3)])
def test_every_article_by_its_closest_paragraph_as_numpy(app: Path, paragraphs: dict, text: str, target_hits: int) -> None:
    q = paragraphs["_query"][text]
    # the paragraphs and the query are unit length (reference.py normalizes): v @ q is the cosine, cos of the angular distance
    best = {t: (float(np.max(v @ q)), int(np.argmax(v @ q))) for t, v in paragraphs.items() if t != "_query"}
    expected = sorted(best, key=lambda t: -best[t][0])[:target_hits]
    result = search(yql=f"select title from wiki where {{targetHits:{target_hits}}}nearestNeighbor(paragraph_embeddings,q)",
                    ranking="semantic", hits=10, **{"input.query(q)": f"embed({text})"})["root"]
    hits = result["children"]
    assert [h["fields"]["title"] for h in hits] == expected
    for h in hits:
        cosine, label = best[h["fields"]["title"]]
        assert h["fields"]["matchfeatures"]["closest(paragraph_embeddings)"] == {str(label): 1.0}
        assert h["relevance"] == pytest.approx(cosine, abs=1e-5)
