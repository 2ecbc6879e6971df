"""Embeddings, similar comments and duplicate collapsing, end to end: the runtime embeds comments
with the package's hugging-face-embedder as they are fed; the tests compare those embeddings with
the reference embedding (onnxruntime + tokenizers, embedder/reference.py) and check nearestNeighbor
and collapsing against numpy computations over the reference embeddings."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest
from dwell_client import ROOT, deployed_runtime, search

sys.path.insert(0, str(ROOT))
from embedder.reference import ReferenceEmbedder  # noqa: E402

APPLICATION = ROOT / "target" / "application"
NOW = 1_800_000_000

PLANTED = "The referee ignored a clear penalty in the last minute of the match."
QUERY = "The referee ignored an obvious penalty in the final minute of the match."

# Article "big": many distinct comments, among them QUERY itself (the best match overall).
# Article "small": a few comments, with PLANTED, the best match within it.
# Article "dups": a near-duplicate group (same text, case and punctuation changed) among distinct ones.
TOPICS = ["the new tax plan", "the city council vote", "the school budget", "the train strike", "the heat wave",
          "the election debate", "the housing market", "the museum reopening", "the bridge repairs", "the football final"]
OPINIONS = ["is a disgrace and somebody should resign", "finally gets something right",
            "will hurt ordinary families the most", "was reported unfairly by this paper",
            "makes me proud of this town"]
BIG = [f"Honestly, {t} {o}." for t in TOPICS for o in OPINIONS] + [
    QUERY]
SMALL = ["I could not find parking anywhere near the stadium.", "Ticket prices are far too high this season.",
         PLANTED, "The new stadium roof leaks when it rains."]
DUPLICATES = ["This article is pure propaganda and you know it.", "this article is pure propaganda and you know it",
              "THIS ARTICLE IS PURE PROPAGANDA AND YOU KNOW IT!!!"]
DISTINCT = ["My grandmother used to live on that street.", "Great photos, who took them?",
            "The bus schedule changed again without notice.", "I disagree with the mayor on almost everything.",
            "Can someone explain what the new rule actually means?", "Lovely weather for the festival this weekend.",
            "The library should open on Sundays.", "Why is nobody talking about the water prices?",
            "My kids loved the science fair.", "The comments here are always so angry."]


def comments() -> list[dict]:
    docs = []
    for article, texts in (("big", BIG), ("small", SMALL), ("dups", DUPLICATES + DISTINCT)):
        for i, text in enumerate(texts):
            docs.append({"put": f"id:dwell:comment::{article}-{i}",
                         "fields": {"article_id": article, "author_id": f"u{i}", "text": text,
                                    "created_at": NOW - 60 * i, "upvotes": 0}})
    return docs


@pytest.fixture(scope="module")
def runtime(tmp_path_factory):
    data = tmp_path_factory.mktemp("similar") / "data"
    feed = data.parent / "comments.jsonl"
    feed.write_text("\n".join(json.dumps(d) for d in comments()) + "\n")
    yield from deployed_runtime(data, APPLICATION, feed=feed)


@pytest.fixture(scope="module")
def reference() -> ReferenceEmbedder:
    return ReferenceEmbedder()


def hits(**parameters) -> list[dict]:
    result = search(**parameters)
    assert "errors" not in result["root"], result["root"].get("errors")
    return result["root"].get("children", [])


def container_embeddings(article: str) -> dict[str, np.ndarray]:
    found = hits(yql=f'select * from comment where article_id contains "{article}"', summary="embedding",
                 ranking="unranked", hits=100)
    return {h["fields"]["documentid"].split("::")[1]: np.array(h["fields"]["embedding"]["values"], dtype=np.float32)
            for h in found}


def test_container_embeddings_match_the_reference_embedding(runtime, reference):
    texts = {f"{a}-{i}": t for a, ts in (("small", SMALL), ("dups", DUPLICATES + DISTINCT)) for i, t in enumerate(ts)}
    embedded = {**container_embeddings("small"), **container_embeddings("dups")}
    assert set(embedded) == set(texts)
    for doc, vector in embedded.items():
        expected = reference.embed(texts[doc])
        cosine = float(vector @ expected / np.linalg.norm(vector) / np.linalg.norm(expected))
        assert cosine >= 0.999, (doc, cosine)
        assert abs(np.linalg.norm(vector) - 1) < 1e-3, "normalized, as services.xml configures"


def test_similar_text_across_articles_ranks_by_closeness(runtime, reference):
    found = hits(similar__text=QUERY, hits=5, summary="short")
    everything = [(f"{a}-{i}", t) for a, ts in (("big", BIG), ("small", SMALL), ("dups", DUPLICATES + DISTINCT))
                  for i, t in enumerate(ts)]
    query = reference.embed(QUERY)
    cosines = {doc: float(reference.embed(text) @ query) for doc, text in everything}
    expected = sorted(cosines, key=cosines.get, reverse=True)[:5]
    got = [h["fields"]["comment_id"] for h in found]
    assert got == expected
    for h in found:  # prenormalized-angular: distance 1 - cos, closeness 1 / (1 + distance)
        doc = h["fields"]["comment_id"]
        assert h["relevance"] == pytest.approx(1 / (2 - cosines[doc]), abs=2e-3)


@pytest.mark.parametrize("threshold", [None, 0.0])  # default (small article: exact) and forced graph search
def test_similar_within_an_article_finds_the_planted_neighbour(runtime, threshold):
    extra = {} if threshold is None else {"ranking.matching.approximateThreshold": threshold}
    overall = hits(similar__text=QUERY, hits=1)
    assert overall[0]["fields"]["article_id"] == "big", "across articles the best match is elsewhere"
    within = hits(similar__text=QUERY, article="small", hits=10, **extra)
    assert {h["fields"]["article_id"] for h in within} == {"small"}, "only the article's comments"
    assert len(within) == len(SMALL)
    assert within[0]["fields"]["text"] == PLANTED


def test_similar_to_a_comment_excludes_it(runtime):
    found = hits(similar="dups-0", article="dups", hits=3)
    ids = [h["fields"]["comment_id"] for h in found]
    assert "dups-0" not in ids
    assert set(ids[:2]) == {"dups-1", "dups-2"}, "its near-duplicates are the closest"


def test_collapsing_shows_one_of_each_near_duplicate_group(runtime, reference):
    plain = [h["fields"]["comment_id"] for h in hits(article="dups", ranking="freshness", hits=30,
                                                     **{"ranking.properties.vespa.now": NOW})]
    assert {"dups-0", "dups-1", "dups-2"} <= set(plain[:10]), "without collapsing the duplicates all show"
    collapsed = hits(article="dups", ranking="freshness", hits=10, collapse__threshold=0.9,
                     **{"ranking.properties.vespa.now": NOW})
    ids = [h["fields"]["comment_id"] for h in collapsed]
    assert len(ids) == 10
    assert len({"dups-0", "dups-1", "dups-2"} & set(ids)) == 1, ids
    assert collapsed[0]["fields"]["comment_id"] == "dups-0", "the best-ranked of the group stays"
    assert collapsed[0]["fields"]["duplicates"] == 2
    texts = {f"dups-{i}": t for i, t in enumerate(DUPLICATES + DISTINCT)}
    vectors = np.array([reference.embed(texts[i]) for i in ids])
    similarity = vectors @ vectors.T
    np.fill_diagonal(similarity, 0)
    assert similarity.max() < 0.9, "no two shown comments are near-duplicates"
    assert [i for i in plain if i not in ("dups-1", "dups-2")][:10] == ids, "otherwise the order is kept"
    # the same view again, from the hot-article cache: the embeddings the first view fetched for the window
    again = search(article="dups", ranking="freshness", hits=10, collapse__threshold=0.9,
                   **{"ranking.properties.vespa.now": NOW, "trace.level": 1})
    assert "errors" not in again["root"], again["root"].get("errors")
    assert "ArticleViewCache: hit" in json.dumps(again["trace"])
    assert [h["fields"]["comment_id"] for h in again["root"]["children"]] == ids
    profile = hits(article="dups", ranking="freshness", hits=10, queryProfile="deduplicated",
                   **{"ranking.properties.vespa.now": NOW})
    assert [h["fields"]["comment_id"] for h in profile] == ids
