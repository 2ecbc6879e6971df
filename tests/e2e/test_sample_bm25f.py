"""Vespa's sample application examples/bm25f (vespa-engine/sample-apps), unchanged, on dwell's runtime: it deploys,
its six documents go in, and its README's query (and the README's three-term variant) answers with every match-feature
as numpy computes it from the documents: fieldTermMatch occurrences, field lengths, this node's average field lengths,
queryTermDocumentFrequency (a term's frequency summed over title and body), num_docs_indexed, bm25, and the BM25F score,
in order. The app has no system test. Skipped unless DWELL_SAMPLE_APPS names a sample-apps checkout (see
test_sample_apps.py).

The README says its query scores document 1 0.62942, and 1.52058 with "engine" added; here (and in numpy from the
documents as checked in) they are 0.63105 and 1.52222. The README's two figures are both reproduced exactly when the
bodies' average length is 5.5 (33 words) rather than the 34/6 the dataset holds: they look computed from other data."""
from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import numpy as np
import pytest
from dwell_client import search
from dwell_client.application import deployed_runtime

SAMPLE_APPS = Path(os.environ["DWELL_SAMPLE_APPS"]) if os.environ.get("DWELL_SAMPLE_APPS") else None
BM25F = SAMPLE_APPS / "examples" / "bm25f" if SAMPLE_APPS else None

pytestmark = pytest.mark.skipif(SAMPLE_APPS is None or not (BM25F / "app" / "services.xml").exists(),
                                reason="DWELL_SAMPLE_APPS does not point at a vespa-engine/sample-apps checkout with examples/bm25f")

UNKNOWN = 1_000_000.0


@pytest.fixture(scope="module")
def bm25f(tmp_path_factory: pytest.TempPathFactory):
    work = tmp_path_factory.mktemp("bm25f")
    app = shutil.copytree(BM25F / "app", work / "app")
    for _ in deployed_runtime(work / "data", app, BM25F / "dataset" / "documents.jsonl"):
        yield work


def documents() -> dict[str, dict[str, list[str]]]:
    lines = (BM25F / "dataset" / "documents.jsonl").read_text().splitlines()
    return {d["put"]: {f: v.lower().split() for f, v in d["fields"].items()} for d in map(json.loads, filter(str.strip, lines))}


def expected(words: list[str]) -> tuple[dict[str, tuple[float, dict[str, float]]], dict[str, float]]:
    """The score and match-features of every document matching any of the words, as the schema defines them, and the
    terms' document frequencies."""
    docs = documents()
    n = len(docs)
    average = {f: float(np.mean([len(d[f]) for d in docs.values()])) for f in ("title", "body")}
    df = [min(sum(sum(w in d[f] for d in docs.values()) for f in ("title", "body")), n) for w in words]
    dft = np.array(df, dtype=np.float32)
    idf = np.log(1 + (np.float32(n) - dft + np.float32(0.5)) / (dft + np.float32(0.5))).astype(np.float32)  # tensor<float> cells
    out = {}
    for id, d in docs.items():
        if not any(w in d[f] for w in words for f in ("title", "body")):
            continue
        length = {f: float(len(d[f])) if any(w in d[f] for w in words) else UNKNOWN for f in ("title", "body")}
        norm = {f: 1 - 0.75 + 0.75 * length[f] / average[f] for f in ("title", "body")}
        wtf = [2.0 * d["title"].count(w) / norm["title"] + d["body"].count(w) / norm["body"] for w in words]
        score = float(sum(float(idf[t]) * wtf[t] / (1.2 + wtf[t]) for t in range(len(words))))
        bm25 = {f: sum(float(np.log(1 + (n - max(1, df[t]) + 0.5) / (max(1, df[t]) + 0.5))) * d[f].count(w) * 2.2 /
                       (d[f].count(w) + 1.2 * (0.25 + 0.75 * len(d[f]) / average[f])) for t, w in enumerate(words)) for f in ("title", "body")}
        features = {"fieldLength(title)": length["title"], "fieldLength(body)": length["body"],
                    "averageFieldLength(title)": average["title"], "averageFieldLength(body)": average["body"],
                    "num_docs_indexed": float(n), "bm25(title)": bm25["title"], "bm25(body)": bm25["body"],
                    "rankingExpression(len_norm_title)": norm["title"], "rankingExpression(len_norm_body)": norm["body"]}
        for f in ("title", "body"):
            for t in (0, 1):
                features[f"fieldTermMatch({f}, {t}).occurrences"] = float(d[f].count(words[t])) if t < len(words) else 0.0
        out[id] = (score, features)
    return out, {str(t): float(df[t]) for t in range(len(words))}


@pytest.mark.parametrize("query", ["vespa ranking", "vespa ranking engine"])
def test_its_readme_query_answers_as_its_schema_says(bm25f: Path, query: str) -> None:
    result = search(yql=f'select * from bm25f where default contains text("{query}")', ranking="bm25f")
    root = result["root"]
    assert not root.get("errors"), root["errors"]
    scores, frequencies = expected(query.split())
    hits = root["children"]
    assert {h["id"] for h in hits} == set(scores) and root["fields"]["totalCount"] == len(scores)
    assert [h["id"] for h in hits] == sorted(scores, key=lambda i: -scores[i][0])
    for hit in hits:
        score, features = scores[hit["id"]]
        assert hit["relevance"] == pytest.approx(score, rel=1e-6), hit["id"]
        got = hit["fields"]["matchfeatures"]
        for name, value in features.items():
            key = name.replace(", ", ",")
            assert got[key] == pytest.approx(value, rel=1e-9), f"{key} of {hit['id']}"
        for field in ("title", "body"):
            assert got[f"queryTermDocumentFrequency({field})"] == {"type": "tensor<float>(term{})", "cells": frequencies}
    if query == "vespa ranking":
        assert hits[0]["id"] == "id:bm25f:bm25f::1" and hits[0]["relevance"] == pytest.approx(0.631049, abs=1e-6)
    else:
        assert hits[0]["id"] == "id:bm25f:bm25f::1" and hits[0]["relevance"] == pytest.approx(1.522216, abs=1e-6)


def test_there_is_no_system_test_to_run() -> None:
    assert not (BM25F / "app" / "tests").exists() and not (BM25F / "tests").exists(), "the app has tests now: run them with vespa test"
