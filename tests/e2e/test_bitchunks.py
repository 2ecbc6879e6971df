"""Chunks of bit-packed embeddings (tests/apps/bitchunks, issue 18, as sample-apps' rag-blueprint ranks its chunks): a
tensor<int8>(chunk{},x[8]) attribute, each chunk's cosine of unpack_bits(attribute(embeddings)) (64 bits, the most
significant bit of each byte first) with a float query vector, top(2, ...), its average and the maximum over the chunks,
as match- and summary-features and the first-phase score, against numpy (np.unpackbits) over 40 generated documents
(0 to 6 chunks, some without the field; an all-zero chunk, whose cosine is NaN, in one), with the hit order. Cells
and numbers are those of Vespa's Java evaluator, in double (chunk cells are rounded to float only where a tensor<float>
is written out in a response); proton keeps the cells of a tensor<float> in float."""
from __future__ import annotations

import json
import math
import random

import numpy as np
import pytest
from dwell_client import ROOT, Runtime, search

from clients import deployed_runtime

APP = ROOT / "tests" / "apps" / "bitchunks"


def make_documents() -> dict[str, dict[str, list[int]] | None]:
    rng = random.Random(18)
    documents: dict[str, dict[str, list[int]] | None] = {}
    for i in range(40):
        if i % 9 == 4:
            documents[f"d{i}"] = None  # no embeddings
            continue
        labels = rng.sample(range(20), rng.randint(0, 6))
        documents[f"d{i}"] = {str(label): [rng.randint(-128, 127) for _ in range(8)] for label in labels}
    documents["d1"] = {"0": [0] * 8, "7": [-1] * 8, "3": [1, 2, 4, 8, 16, 32, 64, -128]}
    return documents


DOCUMENTS = make_documents()


def query_length(q: np.ndarray) -> float:
    """|q| as the profile has it, folded once per query: q * q is a tensor<float>, so each square is rounded to float."""
    return float(np.sqrt(np.sum((q * q).astype(np.float32).astype(np.float64))))


def cosines(chunks: dict[str, list[int]] | None, q: np.ndarray) -> dict[str, float]:
    result = {}
    with np.errstate(invalid="ignore", divide="ignore"):
        for label, cells in (chunks or {}).items():
            bits = np.unpackbits(np.array(cells, dtype=np.int8).view(np.uint8)).astype(np.float64)  # bitorder big
            result[label] = float(bits @ q / (np.sqrt(bits @ bits) * query_length(q)))
    return result


def top(scores: dict[str, float], n: int) -> dict[str, float]:
    """cell_order's order: NaN first, then by value, descending."""
    ranked = sorted(scores.items(), key=lambda item: (not math.isnan(item[1]), -item[1] if not math.isnan(item[1]) else 0))
    return dict(ranked[:n])


@pytest.fixture(scope="module")
def runtime(tmp_path_factory: pytest.TempPathFactory):
    tmp = tmp_path_factory.mktemp("dwell-bitchunks")
    feed = tmp / "documents.jsonl"
    feed.write_text("".join(json.dumps({"put": f"id:test:doc::{name}", "fields": {"name": name} | (
                                            {"embeddings": {"blocks": chunks}} if chunks is not None else {})}) + "\n"
                            for name, chunks in DOCUMENTS.items()))
    for rt in deployed_runtime(tmp / "data", APP, feed):
        yield rt


def rendered_nan(value) -> bool:
    """NaN as the container's JSON renders it: null (JSON has no NaN)."""
    return value is None or isinstance(value, float) and math.isnan(value)


def assert_cells(expected: dict[str, float], actual: dict, what: str) -> None:
    assert actual["type"] == "tensor<float>(chunk{})", what
    cells = actual.get("cells", {})
    assert set(cells) == set(expected), what
    for label, value in expected.items():
        if math.isnan(value):
            assert rendered_nan(cells[label]), f"{what} {label}"
        else:
            assert cells[label] == pytest.approx(float(np.float32(value)), rel=1e-6), f"{what} {label}"


@pytest.mark.parametrize("seed", [1, 2])
def test_chunk_cosines_as_numpy_computes_them(runtime: Runtime, seed: int) -> None:
    q = np.random.default_rng(seed).normal(size=64).astype(np.float32).astype(np.float64)
    result = search(yql="select * from doc where true", ranking="cosines", hits=100,
                    **{"input.query(q)": json.dumps([float(v) for v in q])})
    root = result["root"]
    assert not root.get("errors"), root["errors"]
    hits = root["children"]
    assert {h["fields"]["name"] for h in hits} == set(DOCUMENTS)
    expected_scores = []
    for hit in hits:
        name = hit["fields"]["name"]
        scores = cosines(DOCUMENTS[name], q)
        best2 = top(scores, 2)
        finite = [v for v in scores.values() if not math.isnan(v)]
        best = max(finite) if finite else (-math.inf if scores else 0.0)
        mean = float(np.mean(list(best2.values()))) if best2 else 0.0
        features, what = hit["fields"]["matchfeatures"], f"{name} (seed {seed})"
        assert_cells(scores, features["cosines"], f"cosines of {what}")
        assert_cells(best2, features["top2"], f"top2 of {what}")
        assert_cells(best2, hit["fields"]["summaryfeatures"]["top2"], f"summary top2 of {what}")
        assert features["best"] == pytest.approx(best, rel=1e-12), what
        if math.isnan(mean):
            assert rendered_nan(features["mean_top2"]), what
        else:
            assert features["mean_top2"] == pytest.approx(mean, rel=1e-12, abs=1e-15), what
            expected_scores.append((name, best + mean))
            assert hit["relevance"] == pytest.approx(best + mean, rel=1e-12, abs=1e-15), what
    served = [score for _, score in expected_scores]  # in the order served
    assert served == sorted(served, reverse=True), "hit order"
    assert len(expected_scores) >= 30
