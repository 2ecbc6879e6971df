"""Vespa's sample application examples/bayesian_bm25 (vespa-engine/sample-apps), unchanged, on dwell's runtime: it
deploys, its eight documents go in, and each of its README's five queries (every rank profile, and the calibrated one
with alpha, beta and base_rate from the request) answers with the hits, order, scores and summary-features numpy
computes from the documents: bm25(body), fieldLength(body), averageFieldLength(body), matchCount(body) and
fieldTermMatch(body,n).occurrences through foreach. Two things the numbers depend on, as in Vespa: linguistics stems
"machines" to "machine" (so 6 documents hold "machine"), and foreach(terms, ...) averages over its 16 term indexes
(foreach.maxTerms), not over the query's two terms, so avg_tf is the occurrences summed over 16. The app has no
system test. Skipped unless DWELL_SAMPLE_APPS names a sample-apps checkout (see test_sample_apps.py)."""
from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path

import numpy as np
import pytest
from dwell_client import CONTAINER, http
from dwell_client.application import deployed_runtime

SAMPLE_APPS = Path(os.environ["DWELL_SAMPLE_APPS"]) if os.environ.get("DWELL_SAMPLE_APPS") else None
BAYESIAN = SAMPLE_APPS / "examples" / "bayesian_bm25" if SAMPLE_APPS else None

pytestmark = pytest.mark.skipif(SAMPLE_APPS is None or not (BAYESIAN / "app" / "services.xml").exists(),
                                reason="DWELL_SAMPLE_APPS does not point at a vespa-engine/sample-apps checkout with examples/bayesian_bm25")

YQL = 'select * from doc where body contains "machine" and body contains "learning"'
QUERY = ["machine", "learning"]
STEMS = {"machines": "machine"}  # the one inflected form of a query word in the documents


@pytest.fixture(scope="module")
def bayesian(tmp_path_factory: pytest.TempPathFactory):
    work = tmp_path_factory.mktemp("bayesian_bm25")
    app = shutil.copytree(BAYESIAN / "app", work / "app")
    for _ in deployed_runtime(work / "data", app, BAYESIAN / "ext" / "sample-documents.jsonl"):
        yield work


def bodies() -> dict[str, list[str]]:
    lines = (BAYESIAN / "ext" / "sample-documents.jsonl").read_text().splitlines()
    return {d["put"]: [STEMS.get(w, w) for w in re.findall(r"\w+", d["fields"]["body"].lower())]
            for d in map(json.loads, filter(str.strip, lines))}


def logit(p: float) -> float:
    return float(np.log(p / (1 - p)))


def sigmoid(x: float) -> float:
    return float(1 / (1 + np.exp(-x)))


def features(words: list[str], body: dict[str, list[str]], alpha: float, beta: float, base_rate: float) -> dict[str, float]:
    n = len(body)
    average = float(np.mean([len(b) for b in body.values()]))
    df = {w: sum(w in b for b in body.values()) for w in QUERY}
    length = len(words)
    bm25 = sum(np.log(1 + (n - df[w] + 0.5) / (df[w] + 0.5)) * words.count(w) * 2.2 /
               (words.count(w) + 1.2 * (0.25 + 0.75 * length / average)) for w in QUERY)
    likelihood = sigmoid(alpha * (bm25 - beta))
    avg_tf = sum(words.count(w) for w in QUERY) / 16
    tf_prior = 0.2 + 0.7 * min(1, avg_tf / 10)
    fieldnorm_prior = 0.3 + 0.6 * (1 - min(1, abs(length / average - 0.5) * 2))
    composite = max(0.1, min(0.9, 0.7 * tf_prior + 0.3 * fieldnorm_prior))
    posterior = likelihood * composite / (likelihood * composite + (1 - likelihood) * (1 - composite))
    logit_sum = alpha * (bm25 - beta) + logit(tf_prior) + logit(fieldnorm_prior)
    return {"raw_bm25": float(bm25), "likelihood": likelihood, "avg_tf": avg_tf, "tf_prior": tf_prior, "fieldnorm_prior": fieldnorm_prior,
            "composite_prior": composite, "posterior": posterior,
            "calibrated_posterior": posterior * base_rate / (posterior * base_rate + (1 - posterior) * (1 - base_rate)),
            "logit_likelihood": alpha * (bm25 - beta), "logit_tf_prior": logit(tf_prior), "logit_fieldnorm_prior": logit(fieldnorm_prior),
            "logodds": sigmoid(logit_sum), "logodds_calibrated": sigmoid(logit_sum + logit(base_rate)),
            "fieldLength(body)": float(length), "averageFieldLength(body)": average, "matchCount(body)": 2.0}


README_QUERIES = [  # the README's requests: profile, parameters, the score its first phase is
    ("bayesian_bm25", {}, "posterior"),
    ("bayesian_bm25_calibrated", {"ranking.features.query(base_rate)": 0.05}, "calibrated_posterior"),
    ("bayesian_bm25_logodds", {}, "logodds"),
    ("bayesian_bm25_logodds_calibrated", {"ranking.features.query(base_rate)": 0.05}, "logodds_calibrated"),
    ("bayesian_bm25_calibrated", {"ranking.features.query(alpha)": 1.5, "ranking.features.query(beta)": 2.0,
                                  "ranking.features.query(base_rate)": 0.02}, "calibrated_posterior"),
    ("bayesian_bm25_simple", {}, "likelihood"),
]


@pytest.mark.parametrize("profile,parameters,score", README_QUERIES)
def test_its_readme_queries_answer_as_its_schema_says(bayesian: Path, profile: str, parameters: dict, score: str) -> None:
    status, result = http("POST", f"{CONTAINER}/search/", {"yql": YQL, "ranking.profile": profile, **parameters})
    assert status == 200, result
    root = result["root"]
    assert not root.get("errors"), root["errors"]
    body = bodies()
    alpha = parameters.get("ranking.features.query(alpha)", 1.0)
    beta = parameters.get("ranking.features.query(beta)", 3.0)
    base_rate = parameters.get("ranking.features.query(base_rate)", 0.05)
    expected = {id: features(words, body, alpha, beta, base_rate) for id, words in body.items() if all(w in words for w in QUERY)}
    hits = root["children"]
    assert root["fields"]["totalCount"] == len(expected) == 5
    assert [h["id"] for h in hits] == sorted(expected, key=lambda i: -expected[i][score])
    for hit in hits:
        assert hit["relevance"] == pytest.approx(expected[hit["id"]][score], rel=1e-12), hit["id"]
        summary = {k: v for k, v in hit["fields"]["summaryfeatures"].items() if k != "vespa.summaryFeatures.cached"}
        assert summary, hit
        for name, value in summary.items():
            assert value == pytest.approx(expected[hit["id"]][name], rel=1e-12, abs=1e-15), f"{name} of {hit['id']} in {profile}"


def test_there_is_no_system_test_to_run() -> None:
    assert not (BAYESIAN / "app" / "tests").exists() and not (BAYESIAN / "tests").exists(), "the app has tests now: run them with vespa test"
