"""Per-element text features of an array<string> index field (tests/apps/elementwise, issue 18, as sample-apps'
rag-blueprint ranks its chunks): elementwise(bm25(chunks),chunk,float) and its double form, in functions, top(2, ...) and
reduce(..., max/avg, chunk), and elementSimilarity(chunks), as match- and summary-features, against numpy over the
documents fed, with proton's definitions: each chunk's bm25 on its own (k1 1.2, b 0.75; the chunk's length over the
average element length: the node's chunks' terms over its chunks, empty chunks counted; a term's idf from its document
frequency summed over the fields it searches), a cell per chunk a term occurs in, labeled by its index; and per chunk
the greedy walk of elementSimilarity (proximity, order, query coverage by term weight, field coverage), its maximum of
(0.35p + 0.15o + 0.30q + 0.20f)w; the first-phase score built from them and the hit order."""
from __future__ import annotations

import json
import random

import numpy as np
import pytest
from dwell_client import ROOT, Runtime, search

from clients import deployed_runtime

APP = ROOT / "tests" / "apps" / "elementwise"
WORDS = ["stone", "river", "cloud", "moss", "bridge", "field", "grass", "wall", "lamp", "door"]
SEARCHED = {"default": ("title", "chunks"), "chunks": ("chunks",), "title": ("title",)}


def make_passages() -> dict[str, dict]:
    rng = random.Random(18)
    passages = {}
    for i in range(30):
        fields: dict = {"title": " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 3)))}
        if rng.random() < 0.9:  # a few passages have no chunks
            fields["chunks"] = ["" if rng.random() < 0.1 else " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 12)))
                                for _ in range(rng.randint(1, 6))]  # some chunks are empty
        passages[f"p{i}"] = fields
    return passages


PASSAGES = make_passages()


def chunks(passage: dict) -> list[list[str]]:
    return [c.split() for c in passage.get("chunks", [])]


def words(passage: dict, field: str) -> list[list[str]]:
    return chunks(passage) if field == "chunks" else [passage["title"].split()]


class Reference:
    """The features of one query (terms as (index, word, weight)) over PASSAGES, from the words alone."""

    def __init__(self, terms: list[tuple[str, str, int]]) -> None:
        self.terms = [(word, SEARCHED[index], weight) for index, word, weight in terms]
        self.n = len(PASSAGES)
        having = [p for p in PASSAGES.values() if "chunks" in p]
        self.average_field = float(np.mean([sum(len(c) for c in chunks(p)) for p in having]))
        self.average_element = sum(len(c) for p in having for c in chunks(p)) / sum(len(chunks(p)) for p in having)
        self.frequency = [min(sum(sum(1 for p in PASSAGES.values() if any(word in e for e in words(p, f))) for f in fields), self.n)
                          for word, fields, _ in self.terms]

    def idf(self, n: int) -> float:
        df = min(max(1, self.frequency[n]), self.n)
        return float(np.log(1 + (self.n - df + 0.5) / (df + 0.5)))

    def on_chunks(self) -> list[int]:
        return [n for n, (_, fields, _) in enumerate(self.terms) if "chunks" in fields]

    def chunk_scores(self, passage: dict) -> dict[str, float]:
        scores = {}
        for e, chunk in enumerate(chunks(passage)):
            score, any_term = 0.0, False
            for n in self.on_chunks():
                tf = chunk.count(self.terms[n][0])
                if tf:
                    any_term = True
                    score += self.idf(n) * tf * 2.2 / (tf + 1.2 * (0.25 + 0.75 * len(chunk) / self.average_element))
            if any_term:
                scores[str(e)] = score
        return scores

    def bm25(self, passage: dict) -> float:
        length = sum(len(c) for c in chunks(passage))
        score = 0.0
        for n in self.on_chunks():
            tf = sum(c.count(self.terms[n][0]) for c in chunks(passage))
            if tf:
                score += self.idf(n) * tf * 2.2 / (tf + 1.2 * (0.25 + 0.75 * length / self.average_field))
        return score

    def element_similarity(self, passage: dict) -> float:
        """searchlib's walk, per chunk: the earliest occurrence first, then the term whose next occurrence comes first
        after the last match (by position, then term order); once matched a term is done in the chunk."""
        on = self.on_chunks()
        weights = [self.terms[n][2] for n in on]
        total = sum(weights)
        best = None
        for chunk in chunks(passage):
            occurrences = sorted((p, i) for i, n in enumerate(on) for p, w in enumerate(chunk) if w == self.terms[n][0])
            if not occurrences:
                continue
            done: set[int] = set()
            last_position, last_index = occurrences[0]
            done.add(last_index)
            matched, weight, proximity, in_order = 1, weights[last_index], 0.0, 0
            for position, i in occurrences[1:]:
                if i in done or position <= last_position:
                    continue
                distance = position - last_position
                proximity += 0.0 if distance > 8 else 1 - ((distance - 1) / 8) ** 2
                in_order += 1 if i > last_index else 0
                last_position, last_index = position, i
                matched += 1
                weight += weights[i]
                done.add(i)
            length = max(len(chunk), matched)
            if matched < 2:
                p, o = (0.0 if length > 8 else 1 - ((length - 1) / 8) ** 2), float(matched)
            else:
                p, o = proximity / (matched - 1), in_order / (matched - 1)
            score = 0.35 * p + 0.15 * o + 0.30 * weight / total + 0.20 * matched / length
            best = score if best is None else max(best, score)
        return 0.0 if best is None else best

    def matches(self, passage: dict) -> bool:
        return any(any(word in e for f in fields for e in words(passage, f)) for word, fields, _ in self.terms)


QUERIES = [  # terms as (index, word, weight), ORed
    [("chunks", "stone", 100), ("chunks", "river", 100)],
    [("default", "cloud", 100), ("default", "moss", 100), ("default", "bridge", 100)],
    [("chunks", "field", 100), ("chunks", "grass", 50), ("title", "wall", 100)],
    [("chunks", "lamp", 200), ("default", "door", 100), ("chunks", "stone", 100)],
]


def yql(terms: list[tuple[str, str, int]]) -> str:
    return "select * from passage where " + " or ".join(
        f'{i} contains ({{weight:{w}}}"{word}")' for i, word, w in terms)


@pytest.fixture(scope="module")
def runtime(tmp_path_factory: pytest.TempPathFactory):
    tmp = tmp_path_factory.mktemp("dwell-elementwise")
    passages = tmp / "passages.jsonl"
    passages.write_text("".join(json.dumps({"put": f"id:test:passage::{name}", "fields": fields}) + "\n"
                                for name, fields in PASSAGES.items()))
    for rt in deployed_runtime(tmp / "data", APP, passages):
        yield rt


def f32(x: float) -> float:
    return float(np.float32(x))


def assert_cells(expected: dict[str, float], actual: dict, cell_type: str, what: str) -> None:
    assert actual["type"] == f"tensor{cell_type}(chunk{{}})", what
    cells = actual.get("cells", {})
    assert set(cells) == set(expected), what
    for label, value in expected.items():
        assert cells[label] == pytest.approx(f32(value) if cell_type else value, rel=1e-6 if cell_type else 1e-12), f"{what} {label}"


@pytest.mark.parametrize("terms", QUERIES)
def test_chunk_scores_and_element_similarity_as_numpy_computes_them(runtime: Runtime, terms: list) -> None:
    reference = Reference(terms)
    expected_ids = {i for i, p in PASSAGES.items() if reference.matches(p)}
    assert expected_ids, "a query that matches nothing checks nothing"
    # a generous timeout: the default 0.5 s ran out once, getting the summaries, on a machine at load 20
    result = search(yql=yql(terms), ranking="elementwise", hits=100, timeout="20s")
    root = result["root"]
    assert not root.get("errors"), root["errors"]
    assert root["fields"]["totalCount"] == len(expected_ids)
    hits = root.get("children", [])
    assert {h["id"].split("::")[1] for h in hits} == expected_ids
    with_chunks = 0
    expected_scores = []
    for hit in hits:
        name = hit["id"].split("::")[1]
        passage = PASSAGES[name]
        features = hit["fields"]["matchfeatures"]
        what = f"{name} for {terms}"
        scores = reference.chunk_scores(passage)
        with_chunks += len(scores) > 1
        assert_cells(scores, features["chunk_scores"], "<float>", f"chunk_scores of {what}")
        assert_cells(scores, features["elementwise(bm25(chunks),chunk)"], "", f"double chunk scores of {what}")
        ranked = sorted((f32(v) for v in scores.values()), reverse=True)
        top2 = features["top_2_chunk_scores"].get("cells", {})
        assert sorted(top2.values(), reverse=True) == pytest.approx(ranked[:2], rel=1e-6), what
        assert all(f32(scores[label]) >= ranked[min(1, len(ranked) - 1)] * (1 - 1e-6) for label in top2), what
        best = ranked[0] if ranked else 0.0
        average = float(np.mean(ranked[:2])) if ranked else 0.0
        assert features["max_chunk_score"] == pytest.approx(best, rel=1e-6), what
        assert features["avg_top_2_chunk_scores"] == pytest.approx(average, rel=1e-6), what
        similarity = reference.element_similarity(passage)
        assert features["elementSimilarity(chunks)"] == pytest.approx(similarity, rel=1e-12, abs=1e-15), what
        assert features["bm25(chunks)"] == pytest.approx(reference.bm25(passage), rel=1e-12, abs=1e-15), what
        summary = hit["fields"]["summaryfeatures"]
        assert_cells(scores, summary["chunk_scores"], "<float>", f"summary chunk_scores of {what}")
        expected_scores.append(best + average + similarity)
        assert hit["relevance"] == pytest.approx(expected_scores[-1], rel=1e-6), what
    assert with_chunks > 0, "no hit has two scored chunks: top and reduce check little"
    relevance = [h["relevance"] for h in hits]
    assert relevance == sorted(relevance, reverse=True)
    assert sorted(expected_scores, reverse=True) == pytest.approx(expected_scores, rel=1e-6), "hit order"
