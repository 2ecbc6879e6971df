"""The BM25F family of rank features (tests/apps/bm25f-features, issue 18): fieldTermMatch(field,n), fieldLength,
averageFieldLength, queryTermDocumentFrequency, num_docs_indexed, matchCount, and bm25 beside them, as match-features
and summary-features, against numpy over the documents fed, with proton's definitions: a term's occurrences and
first and last position in a field (1000000 for none; positions within an array's element), past the query's last term
or in a field the term does not search none; a field's length only where a term searching it matched (else 1000000);
this node's average over the documents that have the field; a term's document frequency summed over the fields it
searches, at most the node's documents; and rank profiles built from them (a BM25F score, a foreach average over
16 term indexes), in order."""
from __future__ import annotations

import json
import random

import numpy as np
import pytest
from dwell_client import CONTAINER, ROOT, Runtime, feed, http, search, vespa

from clients import deployed_runtime

APP = ROOT / "tests" / "apps" / "bm25f-features"
WORDS = ["stone", "river", "cloud", "moss", "bridge", "field", "grass", "wall"]
UNKNOWN = 1_000_000.0
SEARCHED = {"default": ("heading", "text"), "heading": ("heading",), "text": ("text",), "keywords": ("keywords",), "kind": ("kind",)}


def make_notes() -> dict[str, dict]:
    rng = random.Random(30)
    notes = {}
    for i in range(40):
        fields: dict = {"heading": " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 4))), "kind": rng.choice(["a", "b"])}
        if rng.random() < 0.85:  # some notes have no text
            fields["text"] = " ".join(rng.choice(WORDS[:5]) if rng.random() < 0.4 else f"filler{rng.randint(0, 9)}"
                                      for _ in range(rng.randint(1, 25)))
        if rng.random() < 0.6:
            fields["keywords"] = [" ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 3))) for _ in range(rng.randint(1, 3))]
        notes[f"e{i}"] = fields
    return notes


NOTES = make_notes()


def elements(note: dict, field: str) -> list[list[str]]:
    value = note.get(field)
    if value is None:
        return []
    return [e.split() for e in value] if isinstance(value, list) else [value.split()]


class Reference:
    """The features of one query over NOTES, from the words alone."""

    def __init__(self, terms: list[tuple[str, str]]) -> None:
        self.terms = [(word, SEARCHED[index]) for index, word in terms]
        self.n = len(NOTES)
        self.average = {f: float(np.mean([sum(len(e) for e in elements(note, f)) for note in NOTES.values() if f in note]))
                        for f in ("heading", "text", "keywords")}
        self.frequency = [min(sum(sum(1 for note in NOTES.values() if any(word in e for e in elements(note, f))) for f in fields), self.n)
                          for word, fields in self.terms]

    def positions(self, note: dict, field: str, n: int) -> list[int]:
        if n >= len(self.terms) or field not in self.terms[n][1]:
            return []
        return [p for e in elements(note, field) for p, w in enumerate(e) if w == self.terms[n][0]]

    def term_match(self, note: dict, field: str, n: int) -> tuple[float, float, float]:
        found = self.positions(note, field, n)
        return (float(len(found)), float(min(found)), float(max(found))) if found else (0.0, UNKNOWN, UNKNOWN)

    def matched(self, note: dict, field: str) -> list[int]:
        return [n for n in range(len(self.terms)) if self.positions(note, field, n)]

    def field_length(self, note: dict, field: str) -> float:
        return float(len(elements(note, field)[0])) if self.matched(note, field) else UNKNOWN

    def frequencies(self, field: str) -> dict[str, float]:
        return {str(n): float(self.frequency[n]) for n, (_, fields) in enumerate(self.terms) if field in fields}

    def idf(self, n: int) -> float:
        df = min(max(1, self.frequency[n]), self.n)
        return float(np.log(1 + (self.n - df + 0.5) / (df + 0.5)))

    def bm25(self, note: dict, field: str) -> float:
        length = sum(len(e) for e in elements(note, field))
        score = 0.0
        for n in range(len(self.terms)):
            tf = len(self.positions(note, field, n))
            if tf:
                score += self.idf(n) * tf * 2.2 / (tf + 1.2 * (0.25 + 0.75 * length / self.average[field]))
        return score

    def features(self, note: dict) -> dict[str, object]:
        expected: dict[str, object] = {}
        for field in ("heading", "text"):
            for n in range(4):
                occurrences, first, last = self.term_match(note, field, n)
                expected[f"fieldTermMatch({field},{n}).occurrences"] = occurrences
                expected[f"fieldTermMatch({field},{n}).firstPosition"] = first
                expected[f"fieldTermMatch({field},{n}).lastPosition"] = last
            expected[f"fieldLength({field})"] = self.field_length(note, field)
            expected[f"queryTermDocumentFrequency({field})"] = self.frequencies(field)
            expected[f"bm25({field})"] = self.bm25(note, field)
        occurrences, first, _ = self.term_match(note, "keywords", 0)
        expected["fieldTermMatch(keywords,0).occurrences"] = occurrences
        expected["fieldTermMatch(keywords,0).firstPosition"] = first
        for field in ("heading", "text", "keywords"):
            expected[f"matchCount({field})"] = float(len(self.matched(note, field)))
            expected[f"averageFieldLength({field})"] = self.average[field]
        expected["matchCount(kind)"] = 0.0
        expected["num_docs_indexed"] = float(self.n)
        return expected

    def bm25f(self, note: dict) -> float:
        def norm(field: str) -> float:
            return 0.3 + 0.7 * self.field_length(note, field) / self.average[field]
        score = 0.0
        for label, frequency in self.frequencies("heading").items():  # idf has cells for the terms searching heading
            n = int(label)
            if n >= 4:
                continue
            tf = 3 * len(self.positions(note, "heading", n)) / norm("heading") + len(self.positions(note, "text", n)) / norm("text")
            idf = np.float32(np.log(1 + (self.n - np.float32(frequency) + 0.5) / (np.float32(frequency) + 0.5)))  # tensor<float> cells
            score += float(idf) * tf / (1.5 + tf)
        return score

    def prior(self, note: dict) -> tuple[float, float]:
        occurrences = sum(len(self.positions(note, "text", n)) for n in range(16)) / 16  # foreach averages over its 16 indexes
        return occurrences, occurrences * 16 + 1 / (1 + abs(self.field_length(note, "text") / self.average["text"] - 1))

    def matches(self, note: dict, conjunction: bool) -> bool:
        found = [any(self.positions(note, f, n) for f in fields) for n, (_, fields) in enumerate(self.terms)]
        return all(found) if conjunction else any(found)


QUERIES = [  # (terms as (index, word), AND rather than OR)
    ([("default", "stone"), ("default", "river"), ("default", "cloud")], False),
    ([("heading", "moss"), ("text", "bridge")], False),
    ([("default", "stone"), ("default", "bridge")], True),
    ([("keywords", "grass"), ("default", "field"), ("heading", "wall")], False),
    ([("default", "nosuchword"), ("text", "river")], False),
]


def yql(terms: list[tuple[str, str]], conjunction: bool) -> str:
    return "select * from note where " + (" and " if conjunction else " or ").join(f'{i} contains "{w}"' for i, w in terms)


@pytest.fixture(scope="module")
def runtime(tmp_path_factory: pytest.TempPathFactory):
    tmp = tmp_path_factory.mktemp("dwell-bm25f")
    notes = tmp / "notes.jsonl"
    notes.write_text("".join(json.dumps({"put": f"id:test:note::{name}", "fields": fields}) + "\n" for name, fields in NOTES.items()))
    for rt in deployed_runtime(tmp / "data", APP, notes):
        rt.notes = notes
        yield rt


def remove_every_note() -> None:
    status, body = http("DELETE", f"{CONTAINER}/document/v1/test/note/docid/?selection=true&cluster=notes")
    assert status == 200, body
    assert search(yql="select * from note where true")["root"]["fields"]["totalCount"] == 0


def hits_of(result: dict, expected_ids: set[str]) -> list[dict]:
    root = result["root"]
    assert not root.get("errors"), root["errors"]
    assert root["fields"]["totalCount"] == len(expected_ids)
    hits = root.get("children", [])
    assert {h["id"].split("::")[1] for h in hits} == expected_ids
    relevance = [h["relevance"] for h in hits]
    assert relevance == sorted(relevance, reverse=True)
    return hits


def assert_value(expected: object, actual: object, what: str) -> None:
    if isinstance(expected, dict):
        assert actual["type"] == "tensor<float>(term{})", what
        assert actual["cells"] == pytest.approx(expected, rel=1e-7), what
    else:
        assert actual == pytest.approx(expected, rel=1e-12, abs=1e-12), what


def test_its_own_system_test_passes(runtime: Runtime) -> None:
    """On its own four notes (the statistics are the node's): the module's notes are removed first and fed again after."""
    remove_every_note()
    try:
        result = vespa("test", str(APP / "tests" / "system-test"), check=False)
        assert result.returncode == 0, result.stdout + result.stderr
    finally:
        remove_every_note()
        feed(runtime.notes)


@pytest.mark.parametrize("terms,conjunction", QUERIES)
def test_every_feature_as_numpy_computes_it(runtime: Runtime, terms: list, conjunction: bool) -> None:
    reference = Reference(terms)
    expected_ids = {i for i, note in NOTES.items() if reference.matches(note, conjunction)}
    assert expected_ids, "a query that matches nothing checks nothing"
    hits = hits_of(search(yql=yql(terms, conjunction), ranking="features", hits=100), expected_ids)
    for hit in hits:
        note = NOTES[hit["id"].split("::")[1]]
        expected = reference.features(note)
        features = hit["fields"]["matchfeatures"]
        assert set(features) == set(expected)
        for name, value in expected.items():
            assert_value(value, features[name], f"{name} of {hit['id']} for {terms}")
        assert hit["relevance"] == expected["matchCount(heading)"] + expected["matchCount(text)"]
        summary = hit["fields"]["summaryfeatures"]
        for name in ("fieldTermMatch(text,0).occurrences", "fieldLength(text)", "averageFieldLength(text)", "matchCount(text)"):
            assert_value(expected[name], summary[name], f"summary feature {name} of {hit['id']}")


@pytest.mark.parametrize("terms,conjunction", QUERIES)
def test_a_bm25f_score_and_a_prior_rank_as_numpy_computes_them(runtime: Runtime, terms: list, conjunction: bool) -> None:
    reference = Reference(terms)
    expected_ids = {i for i, note in NOTES.items() if reference.matches(note, conjunction)}
    hits = hits_of(search(yql=yql(terms, conjunction), ranking="bm25f", hits=100), expected_ids)
    scores = [reference.bm25f(NOTES[h["id"].split("::")[1]]) for h in hits]
    assert [h["relevance"] for h in hits] == pytest.approx(scores, rel=1e-6)
    if any(s > 0 for s in scores):
        assert len(set(round(s, 9) for s in scores)) > 1, "every hit scored alike: the order checks nothing"
    hits = hits_of(search(yql=yql(terms, conjunction), ranking="prior", hits=100), expected_ids)
    for hit in hits:
        occurrences, score = reference.prior(NOTES[hit["id"].split("::")[1]])
        assert hit["relevance"] == pytest.approx(score, rel=1e-12)
        assert hit["fields"]["summaryfeatures"]["occurrences"] == pytest.approx(occurrences, rel=1e-12)


ATTRIBUTE_MATCH_OUTPUTS = ("completeness", "queryCompleteness", "fieldCompleteness", "normalizedWeight", "normalizedWeightedWeight",
                           "weight", "significance", "importance", "matches", "totalWeight", "averageWeight", "maxWeight")
FIELD_MATCH_OUTPUTS = ("proximity", "completeness", "queryCompleteness", "fieldCompleteness", "orderness", "relatedness", "earliness",
                       "longestSequenceRatio", "segmentProximity", "unweightedProximity", "absoluteProximity", "occurrence",
                       "absoluteOccurrence", "weightedOccurrence", "weightedAbsoluteOccurrence", "significantOccurrence", "weight",
                       "significance", "importance", "segments", "matches", "outOfOrder", "gaps", "gapLength", "longestSequence",
                       "head", "tail", "segmentDistance", "degradedMatches")
ELEMENT_COMPLETENESS_OUTPUTS = ("completeness", "fieldCompleteness", "queryCompleteness", "elementWeight")


def default_dump_features() -> set[str]:
    """What proton lists for ranking.listFeatures on this schema (its features profile sets no rank-features), as
    searchlib's blueprints visit their dump features: per attribute of a primitive type attributeMatch and its outputs,
    per field matches; per index field bm25, fieldTermMatch of terms 0-4, elementCompleteness; per single-value index
    field fieldMatch and textSimilarity; per array index field elementSimilarity; and the query-wide ones."""
    names = {"firstPhase", "nativeAttributeMatch", "nativeFieldMatch", "nativeProximity", "nativeRank", "queryTermCount"}
    names |= {f"term({n}).{o}" for n in range(5) for o in ("connectedness", "significance", "weight")}
    names |= {"attributeMatch(kind)", "matches(kind)"} | {f"attributeMatch(kind).{o}" for o in ATTRIBUTE_MATCH_OUTPUTS}
    for f in ("heading", "text", "keywords"):
        names |= {f"matches({f})", f"bm25({f})"} | {f"elementCompleteness({f}).{o}" for o in ELEMENT_COMPLETENESS_OUTPUTS}
        names |= {f"fieldTermMatch({f},{n}).{o}" for n in range(5) for o in ("firstPosition", "occurrences", "weight")}
    for f in ("heading", "text"):
        names |= {f"fieldMatch({f})"} | {f"fieldMatch({f}).{o}" for o in FIELD_MATCH_OUTPUTS}
        names |= {f"textSimilarity({f}).{o}" for o in ("score", "proximity", "order", "queryCoverage", "fieldCoverage")}
    names.add("elementSimilarity(keywords)")
    return names


def element_completeness(reference: Reference, note: dict, field: str) -> dict[str, float]:
    """searchlib's elementCompleteness: the element with the best completeness (in order; a later one only if better,
    from 0), where completeness = 0.5 * min(length, matched)/length + 0.5 * matched terms' weight / the weight of all
    terms searching the field (each term's weight is 100)."""
    searching = [n for n, (_, fields) in enumerate(reference.terms) if field in fields]
    best = {"completeness": 0.0, "fieldCompleteness": 0.0, "queryCompleteness": 0.0, "elementWeight": 0.0}
    for element in elements(note, field):
        matched = [n for n in searching if reference.terms[n][0] in element]
        if not matched:
            continue
        query_completeness = len(matched) / len(searching)
        field_completeness = min(len(element), len(matched)) / len(element)
        completeness = 0.5 * field_completeness + 0.5 * query_completeness
        if completeness > best["completeness"]:
            best = {"completeness": completeness, "fieldCompleteness": field_completeness,
                    "queryCompleteness": query_completeness, "elementWeight": 1.0}
    return best


def test_list_features_lists_protons_default_features(runtime: Runtime) -> None:
    """ranking.listFeatures with a profile that does not set ignore-default-rank-features (features): every hit's
    rankfeatures holds proton's default features of this schema, ordered by name, with the values numpy computes for
    the term matches, bm25, elementCompleteness and attributeMatch."""
    terms = [("default", "stone"), ("keywords", "grass"), ("kind", "a"), ("heading", "wall")]
    reference = Reference(terms)
    expected_ids = {i for i, note in NOTES.items() if reference.matches(note, False)}
    hits = hits_of(search(yql=yql(terms, False), ranking="features", hits=100, ranking__listFeatures="true"), expected_ids)
    for hit in hits:
        note = NOTES[hit["id"].split("::")[1]]
        features = hit["fields"]["rankfeatures"]
        what = f"{hit['id']} for {terms}"
        assert set(features) == default_dump_features(), sorted(set(features) ^ default_dump_features())
        assert list(features) == sorted(features), "proton lists them by name"
        assert features["firstPhase"] == pytest.approx(hit["relevance"], rel=1e-12)
        assert features["queryTermCount"] == len(terms)
        for f in ("heading", "text", "keywords", "kind"):
            assert features[f"matches({f})"] == (1.0 if reference.matched(note, f) else 0.0), f"matches({f}) of {what}"
        for f in ("heading", "text", "keywords"):
            for n in range(5):
                occurrences, first, _ = reference.term_match(note, f, n)
                assert features[f"fieldTermMatch({f},{n}).occurrences"] == occurrences, f"fieldTermMatch({f},{n}) of {what}"
                assert features[f"fieldTermMatch({f},{n}).firstPosition"] == first, f"fieldTermMatch({f},{n}) of {what}"
            assert features[f"bm25({f})"] == pytest.approx(reference.bm25(note, f), rel=1e-12, abs=1e-12), f"bm25({f}) of {what}"
            for output, value in element_completeness(reference, note, f).items():
                assert features[f"elementCompleteness({f}).{output}"] == pytest.approx(value, rel=1e-12), f"elementCompleteness({f}).{output} of {what}"
        matched = 1.0 if note["kind"] == "a" else 0.0
        weight = matched / len(terms)  # every term weighs 100
        significance = matched * features["term(2).significance"] / sum(features[f"term({n}).significance"] for n in range(len(terms)))
        expected = {"matches": matched, "queryCompleteness": matched, "fieldCompleteness": matched,
                    "completeness": matched * (1 - 0.05 + 0.05 * matched), "weight": weight, "significance": significance,
                    "importance": (weight + significance) / 2, "normalizedWeight": 0.0, "normalizedWeightedWeight": 0.0,
                    "totalWeight": 0.0, "averageWeight": 0.0, "maxWeight": 0.0}
        for output, value in expected.items():
            assert features[f"attributeMatch(kind).{output}"] == pytest.approx(value, rel=1e-12, abs=1e-15), f"attributeMatch(kind).{output} of {what}"
        assert features["attributeMatch(kind)"] == features["attributeMatch(kind).completeness"]
        assert 0.5 <= features["term(2).significance"] <= 1.0
    assert any(NOTES[h["id"].split("::")[1]]["kind"] == "a" for h in hits) and any(NOTES[h["id"].split("::")[1]]["kind"] == "b" for h in hits)
    assert {h["fields"]["rankfeatures"]["elementCompleteness(keywords).completeness"] for h in hits} - {0.0}, "no keyword element matched"
