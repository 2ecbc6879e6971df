"""Multi-value attributes (tests/apps/tags, issue 18): arrays and weighted sets of strings and numbers, with and
without fast-search, fed with the vespa CLI, matched by YQL (contains, =, range, weightedSet), ranked on with
attribute(name).count, attribute(name,key).weight and .contains, summarized, and updated through /document/v1
(add, remove, increment); and a mapped tensor imported from a global parent through a reference, ranked on. Every
answer against a reference computed here from what was fed."""
from __future__ import annotations

import json
import random
import re
import struct
import urllib.parse
from pathlib import Path

import pytest
from dwell_client import CONTAINER, ROOT, Runtime, http, search, vespa

from clients import deployed_runtime

APP = ROOT / "tests" / "apps" / "tags"
DOC = f"{CONTAINER}/document/v1/test/item/docid"
WORDS = ["news", "Sport", "sport", "tech", "Art", "food"]
# directions whose cells bfloat16 holds exactly, so the attribute keeps what was fed
DIRECTIONS = [[1.0, 0.0], [0.0, 1.0], [-1.0, 0.0], [0.5, 0.75], [0.875, -0.25], [0.0, -1.0]]


def items(seed: int = 7, count: int = 60) -> dict[str, dict]:
    """The fed items: id -> fields, drawn at random (topics' keys lowercase, so each is one key)."""
    rng = random.Random(seed)
    result = {}
    for i in range(count):
        topics: dict[str, int] = {}
        for _ in range(rng.randrange(3)):
            topics[rng.choice(WORDS).lower()] = rng.randrange(-5, 20)
        codes: dict[str, int] = {}
        for _ in range(rng.randrange(3)):
            codes[str(rng.randrange(10))] = rng.randrange(1, 6)
        result[f"i{i}"] = {
            "name": f"i{i}",
            "featured": i % 3 == 0,
            "direction": DIRECTIONS[i % len(DIRECTIONS)],
            "tags": [rng.choice(WORDS) for _ in range(rng.randrange(4))],
            "labels": [rng.choice(WORDS) for _ in range(rng.randrange(3))],
            "sizes": [rng.randrange(6) for _ in range(rng.randrange(3))],
            "prices": [rng.randrange(40) / 10 for _ in range(rng.randrange(3))],
            "topics": topics,
            "codes": codes,
        }
    structs = random.Random(seed + 2)  # its own draw, so the fields above stay as they were
    for i in range(count):
        parts = []
        for _ in range(structs.randrange(4)):
            part = {"name": structs.choice(WORDS)}
            if structs.random() < 0.8:  # some parts have no qty: their qty matches nothing
                part["qty"] = structs.randrange(6)
            parts.append(part)
        result[f"i{i}"]["parts"] = parts
        result[f"i{i}"]["specs"] = {k: structs.choice(["red", "blue", "Big"]) for k in structs.sample(["color", "size", "shape"], structs.randrange(3))}
    notes = random.Random(seed + 1)  # its own draw, so the fields above stay as they were
    for i in range(count):
        result[f"i{i}"]["notes"] = [" ".join(notes.sample(WORDS, 2)) for _ in range(notes.randrange(3))]
        result[f"i{i}"]["keywords"] = {w.lower(): notes.randrange(1, 9) for w in notes.sample(WORDS, notes.randrange(3))}
    return result


FED = items()
# global parents: a mapped tensor each; items reference c0..c3 in turn, and c3 is never fed
CATEGORIES = {"c0": {"news": 0.5, "sport": 0.25}, "c1": {"tech": 2.0}, "c2": {}}


def category_of(item: str) -> str:
    return f"c{int(item[1:]) % 4}"


@pytest.fixture(scope="module")
def runtime(tmp_path_factory: pytest.TempPathFactory):
    tmp = tmp_path_factory.mktemp("dwell-tags")
    feed = tmp / "feed.jsonl"
    lines = [{"put": f"id:test:category::{c}", "fields": {"ctrs": ctrs}} for c, ctrs in CATEGORIES.items()]
    lines += [{"put": f"id:test:item::{i}", "fields": {**f, "category_ref": f"id:test:category::{category_of(i)}"}} for i, f in FED.items()]
    feed.write_text("".join(json.dumps(line) + "\n" for line in lines))
    yield from deployed_runtime(tmp / "data", APP, feed)


def found(where: str, **parameters) -> list[str]:
    result = search(yql=f"select * from item where {where}", hits=400, **parameters)
    assert "errors" not in result["root"], result["root"]["errors"]
    ids = sorted(hit["fields"]["name"] for hit in result["root"].get("children", []))
    assert result["root"]["fields"]["totalCount"] == len(ids)
    return ids


def expected(accepts) -> list[str]:
    return sorted(i for i, f in FED.items() if accepts(f))


def test_its_own_system_test_passes(runtime: Runtime) -> None:
    result = vespa("test", str(APP / "tests" / "system-test"), check=False)
    assert result.returncode == 0, result.stdout + result.stderr


def test_a_document_matches_when_one_of_its_elements_does(runtime: Runtime) -> None:
    for word in WORDS:
        for field in ("tags", "labels", "topics"):  # tags and topics with fast-search, labels without; all uncased
            assert found(f'{field} contains "{word}"') == expected(
                lambda f: any(e.lower() == word.lower() for e in f[field])), (field, word)
    for size in range(6):
        assert found(f"sizes = {size}") == expected(lambda f: size in f["sizes"]), size
    assert found("range(sizes, 2, 3)") == expected(lambda f: any(2 <= s <= 3 for s in f["sizes"]))
    assert found("prices > 1.5") == expected(lambda f: any(p > 1.5 for p in f["prices"]))
    assert found("codes = 7") == expected(lambda f: "7" in f["codes"]) != []
    assert found('weightedSet(topics, {"tech": 1, "Art": 2})') == expected(
        lambda f: "tech" in f["topics"] or "art" in f["topics"]) != []
    assert found('tags contains "nothing-like-it"') == []


def edits(a: str, b: str) -> int:
    """Levenshtein distance, plainly."""
    row = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        previous, row[0] = row[0], i
        for j, y in enumerate(b, 1):
            previous, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, previous + (x != y))
    return row[-1]


def test_prefix_regexp_and_fuzzy_match_when_one_element_does(runtime: Runtime) -> None:
    """On arrays and weighted sets of strings (tags and topics with fast-search, labels without; uncased), as on a
    single value: a document matches when one of its elements, lowercased, does."""
    cases = [('contains ({prefix:true}"sp")', lambda e: e.startswith("sp")),
             ('contains ({prefix:true}"A")', lambda e: e.startswith("a")),
             ('matches "^(n|f)"', lambda e: re.search("^(n|f)", e) is not None),
             ('matches "O"', lambda e: "o" in e),
             ('contains ({maxEditDistance:1}fuzzy("sprt"))', lambda e: edits("sprt", e) <= 1),
             ('contains ({maxEditDistance:2, prefixLength:1}fuzzy("fod"))', lambda e: e[:1] == "f" and edits("fod", e) <= 2)]
    for field in ("tags", "labels", "topics"):
        for operator, accepts in cases:
            want = expected(lambda f: any(accepts(e.lower()) for e in f[field]))
            assert want, (field, operator)
            assert found(f"{field} {operator}") == want, (field, operator)
    # a ranked prefix term on a weighted set: attribute(topics).count ranks as without it (the term only matches)
    result = search(yql='select * from item where topics contains ({prefix:true}"te")', ranking="counts", hits=400)
    assert sorted(h["fields"]["name"] for h in result["root"]["children"]) == expected(lambda f: "tech" in f["topics"])


def relevance(f: dict) -> float:
    """The counts profile: attribute(tags).count + 10 * attribute(topics,news).weight + 1000 * attribute(topics,sport).contains."""
    return len(f["tags"]) + 10 * f["topics"].get("news", 0) + 1000 * ("sport" in f["topics"])


def test_ranking_reads_count_weight_and_contains(runtime: Runtime) -> None:
    result = search(yql="select * from item where true", ranking="counts", hits=400)
    hits = result["root"]["children"]
    assert len(hits) == len(FED)
    for hit in hits:
        f = FED[hit["fields"]["name"]]
        assert hit["relevance"] == pytest.approx(relevance(f)), hit["fields"]["name"]
        features = hit["fields"]["matchfeatures"]
        assert features["attribute(tags).count"] == len(f["tags"])
        assert features["attribute(topics,news).weight"] == f["topics"].get("news", 0)
        assert features["attribute(codes,7).weight"] == f["codes"].get("7", 0)
    scores = [hit["relevance"] for hit in hits]
    assert scores == sorted(scores, reverse=True)


def test_summaries_render_arrays_and_weighted_sets(runtime: Runtime) -> None:
    hit = search(yql='select * from item where name contains "i3"')["root"]["children"][0]
    f = FED["i3"]
    for field in ("tags", "labels", "sizes"):
        assert hit["fields"].get(field, []) == f[field], field
    assert hit["fields"].get("prices", []) == pytest.approx(f["prices"])
    assert hit["fields"].get("topics", {}) == f["topics"]
    assert hit["fields"].get("codes", {}) == f["codes"]  # weighted sets render as {key: weight}, numeric keys as strings


def update(doc: str, changes: dict) -> None:
    status, body = http("PUT", f"{DOC}/{doc}", {"fields": changes})
    assert status == 200, body


def test_updates_add_remove_and_increment_elements(runtime: Runtime) -> None:
    doc = "i5"
    before = FED[doc]
    update(doc, {"tags": {"add": ["Brand-New"]}})
    assert found('tags contains "brand-new"') == [doc]
    update(doc, {"tags": {"remove": ["Brand-New"]}})
    assert found('tags contains "brand-new"') == []
    update(doc, {"topics": {"add": {"fresh": 3}}})
    update(doc, {"topics{fresh}": {"increment": 4}})
    update(doc, {"sizes": {"add": [99]}})
    assert found("sizes = 99") == [doc]
    assert found('topics contains "fresh"') == [doc]
    hit = search(yql='select * from item where topics contains "fresh"', ranking="counts")["root"]["children"][0]
    assert hit["fields"]["topics"]["fresh"] == 7
    assert hit["relevance"] == pytest.approx(relevance(before))
    update(doc, {"topics": {"remove": {"fresh": 0}}})
    assert found('topics contains "fresh"') == []
    status, body = http("GET", f"{DOC}/{doc}")
    assert status == 200, body
    assert body["fields"].get("topics", {}) == before["topics"] and body["fields"]["sizes"] == before["sizes"] + [99], body


def test_ranking_reads_a_mapped_tensor_imported_from_the_parent(runtime: Runtime) -> None:
    interest = {"news": 2.0, "tech": 1.0, "art": 5.0}

    def relevances() -> dict[str, float]:
        result = search(yql="select * from item where true", ranking="ctr", hits=400,
                        **{"input.query(interest)": json.dumps(interest)})
        return {hit["fields"]["name"]: hit["relevance"] for hit in result["root"]["children"]}

    def expected_for(categories: dict) -> dict[str, float]:
        return {i: sum(v * interest.get(k, 0.0) for k, v in categories.get(category_of(i), {}).items()) for i in FED}

    assert relevances() == pytest.approx(expected_for(CATEGORIES))
    assert {round(v, 6) for v in relevances().values()} == {1.0, 2.0, 0.0}
    # the parent changes: every child ranks by its new tensor at once
    status, body = http("PUT", f"{CONTAINER}/document/v1/test/category/docid/c1", {"fields": {"ctrs": {"assign": {"tech": 3.0, "art": 0.5}}}})
    assert status == 200, body
    assert relevances() == pytest.approx(expected_for({**CATEGORIES, "c1": {"tech": 3.0, "art": 0.5}}))


def test_sorting_on_one_takes_its_lowest_element_ascending_and_highest_descending(runtime: Runtime) -> None:
    """As proton's sort blob writers for a multi-value attribute: ascending by the lowest element, descending by the
    highest, and a document without elements last in either order, or first with missing(x,first). Checked against
    the values each hit holds (the byte-level blobs: runtime MultiValueSortBlobWriterTest)."""
    def hits(sorting: str) -> list[dict]:
        result = search(yql="select * from item where true", sorting=sorting, hits=400)
        assert "errors" not in result["root"], result["root"]
        children = result["root"]["children"]
        assert len(children) == len(FED)
        return [h["fields"] for h in children]

    def keys(fields: list[dict], field: str, pick, encode=lambda e: e) -> list:
        return [pick(encode(e) for e in f[field]) if f.get(field) else None for f in fields]

    def assert_order(values: list, descending: bool, missing_first: bool = False) -> None:
        present = [v for v in values if v is not None]
        missing = [v for v in values if v is None]
        assert present == sorted(present, reverse=descending), values
        assert values == (missing + present if missing_first else present + missing), values
        assert len(set(present)) > 2 and missing, "the order checks nothing"

    for field in ("sizes", "prices"):
        assert_order(keys(hits(f"+{field}"), field, min), descending=False)
        assert_order(keys(hits(f"-{field}"), field, max), descending=True)
        assert_order(keys(hits(f"-missing({field},first)"), field, max), descending=True, missing_first=True)
    # a string attribute sorts by its sort function, UCA by default, which Vespa's ValidateSortingSearcher sends as
    # lowercase(x) when the query has no locale: the elements lowercased, then their UTF-8 bytes
    lowered = lambda e: e.lower().encode()
    assert_order(keys(hits("+tags"), "tags", min, lowered), descending=False)
    assert_order(keys(hits("-tags"), "tags", max, lowered), descending=True)
    assert_order(keys(hits("+lowercase(tags)"), "tags", min, lowered), descending=False)
    assert_order(keys(hits("-labels"), "labels", max, lowered), descending=True)
    assert_order(keys(hits("-topics"), "topics", max, lowered), descending=True)
    # missing(x,as,v): a document without elements sorts as if it held v
    values = keys(hits("+missing(sizes,as,3)"), "sizes", min)
    assert [3 if v is None else v for v in values] == sorted(3 if v is None else v for v in values)


def test_list_features_lists_the_profiles_rank_features(runtime: Runtime) -> None:
    """ranking.listFeatures fills the rankfeatures summary field with the profile's rank-features, when it sets
    ignore-default-rank-features (else proton would add its default features: see the next test)."""
    result = search(yql="select * from item where true", ranking="listed", ranking__listFeatures="true", hits=400)
    hits = result["root"]["children"]
    assert len(hits) == len(FED)
    for hit in hits:
        f = FED[hit["fields"]["name"]]
        assert hit["fields"]["rankfeatures"] == {"attribute(tags).count": len(f["tags"]),
                                                 "attribute(topics,news).weight": f["topics"].get("news", 0),
                                                 "firstPhase": pytest.approx(relevance(f))}, hit
        assert hit["relevance"] == pytest.approx(relevance(f))
    plain = search(yql="select * from item where true", ranking="listed", hits=5)["root"]["children"]
    assert all("rankfeatures" not in hit["fields"] for hit in plain), plain


def test_list_features_lists_protons_default_features_of_weighted_sets(runtime: Runtime) -> None:
    """Without ignore-default-rank-features proton lists its default features of every field (tests/e2e/
    test_bm25f_features.py checks them all); of this schema's weighted set index field (keywords, one-word keys) that
    includes elementCompleteness and elementSimilarity, which weigh each element by its weight: for a query of two
    terms, the best element is the heaviest key matched, complete in itself and half of the query."""
    result = search(yql='select * from item where keywords contains "sport" or keywords contains "food"', ranking="counts",
                    ranking__listFeatures="true", hits=400)
    assert "errors" not in result["root"], result["root"]
    hits = result["root"]["children"]
    assert sorted(h["fields"]["name"] for h in hits) == expected(lambda f: "sport" in f["keywords"] or "food" in f["keywords"]) != []
    for hit in hits:
        features, keywords = hit["fields"]["rankfeatures"], FED[hit["fields"]["name"]]["keywords"]
        heaviest = max(w for k, w in keywords.items() if k in ("sport", "food"))
        assert features["elementCompleteness(keywords).elementWeight"] == heaviest, hit
        assert features["elementCompleteness(keywords).completeness"] == pytest.approx(0.5 * 1 + 0.5 * 0.5), hit
        assert features["elementSimilarity(keywords)"] == pytest.approx((0.35 + 0.15 + 0.30 * 0.5 + 0.20) * heaviest), hit
        assert features["matches(keywords)"] == 1.0 and features["matches(tags)"] == 0.0
        assert list(features) == sorted(features) and len(features) > 200


def attribute_match(fed: dict, terms: list[tuple[str, str]]) -> dict[str, float]:
    """proton's attributeMatch outputs for one item, as searchlib's AttributeMatchExecutor defines them, for a query
    of the given (field, word) terms, each of weight 100 and each on an attribute, with the default maxWeight 256 and
    fieldCompletenessImportance 0.05."""
    total_weight = 100 * len(terms)

    def plain(field: str, values: list[str]) -> tuple[int, float, float]:
        mine = [w for f, w in terms if f == field]
        matches = sum(any(v.lower() == w.lower() for v in values) for w in mine)
        field_completeness = min(1.0, matches / len(values)) if values else 0.0
        query_completeness = matches / len(mine)
        return matches, query_completeness, field_completeness

    n_matches, n_qc, n_fc = plain("name", [fed["name"]])
    t_matches, t_qc, t_fc = plain("tags", fed["tags"])
    weights = [fed["topics"][w.lower()] for f, w in terms if f == "topics" and w.lower() in fed["topics"]]
    topic_total = sum(weights)
    weight_sum = sum(fed["topics"].values())
    topic_fc = 0.0 if topic_total <= 0 else 1.0 if weight_sum <= 0 else min(1.0, topic_total / weight_sum)
    topic_terms = sum(1 for f, _ in terms if f == "topics")
    return {
        "attributeMatch(name)": n_qc * (0.95 + 0.05 * n_fc),
        "attributeMatch(tags)": t_qc * (0.95 + 0.05 * t_fc),
        "attributeMatch(tags).queryCompleteness": t_qc,
        "attributeMatch(tags).fieldCompleteness": t_fc,
        "attributeMatch(tags).matches": t_matches,
        "attributeMatch(tags).weight": 100 * t_matches / total_weight,
        "attributeMatch(topics)": len(weights) / topic_terms * (0.95 + 0.05 * topic_fc),
        "attributeMatch(topics).fieldCompleteness": topic_fc,
        "attributeMatch(topics).totalWeight": topic_total,
        "attributeMatch(topics).maxWeight": max(weights) if weights else 0,
        "attributeMatch(topics).averageWeight": topic_total / len(weights) if weights else 0,
        "attributeMatch(topics).normalizedWeight": min(1.0, topic_total / (256 * len(terms))) if topic_total > 0 else 0,
        "attributeMatch(topics).normalizedWeightedWeight": min(1.0, topic_total * 100 / (256 * total_weight)) if topic_total > 0 else 0,
    }


def test_attribute_match_is_protons_for_arrays_weighted_sets_and_single_values(runtime: Runtime) -> None:
    terms = [("tags", "news"), ("tags", "Tech"), ("topics", "sport"), ("name", "i3")]
    where = " or ".join(f'{field} contains "{word}"' for field, word in terms)
    result = search(yql=f"select * from item where {where}", ranking="attribute_match", hits=400)
    assert "errors" not in result["root"], result["root"]["errors"]
    hits = result["root"]["children"]
    assert sorted(hit["fields"]["name"] for hit in hits) == expected(
        lambda f: any(t.lower() in ("news", "tech") for t in f["tags"]) or "sport" in f["topics"] or f["name"] == "i3")
    wanted = [attribute_match(FED[hit["fields"]["name"]], terms) for hit in hits]
    # the draw covers both tags matched, a negative weight matched in topics and a field only partly matched
    assert any(w["attributeMatch(tags).matches"] == 2 for w in wanted)
    assert any(w["attributeMatch(topics).totalWeight"] < 0 for w in wanted)
    assert any(0 < w["attributeMatch(topics).fieldCompleteness"] < 1 for w in wanted)
    for hit in hits:
        want = attribute_match(FED[hit["fields"]["name"]], terms)
        got = hit["fields"]["matchfeatures"]
        assert got == pytest.approx(want), hit["fields"]["name"]
        assert hit["relevance"] == pytest.approx(2 * want["attributeMatch(name)"] + want["attributeMatch(tags)"]
                                                  + want["attributeMatch(tags).queryCompleteness"])
    relevance = [hit["relevance"] for hit in hits]
    assert relevance == sorted(relevance, reverse=True)


def test_a_bool_attribute_is_fed_as_a_boolean_and_matched_by_true_and_false(runtime: Runtime) -> None:
    assert found("featured = true") == expected(lambda f: f["featured"]) != []
    assert found("featured = false") == expected(lambda f: not f["featured"]) != []
    assert search(yql='select * from item where name contains "i3"')["root"]["children"][0]["fields"]["featured"] is True


def test_a_float_query_vector_searches_a_bfloat16_attribute_with_the_deprecated_innerproduct(runtime: Runtime) -> None:
    """innerproduct is prenormalized-angular's old name: distance 1 - q.v, closeness 1 / (1 + distance); closeness(name)
    of a tensor attribute is closeness(field, name). The query vector takes the attribute's cell type, bfloat16 by
    truncation (as vespalib's BFloat16), so 0.6 and 0.8 search as 0.59765625 and 0.796875."""
    q = [0.6, 0.8]
    q16 = [struct.unpack("<f", struct.pack("<I", struct.unpack("<I", struct.pack("<f", x))[0] & 0xFFFF0000))[0] for x in q]
    assert q16 == [0.59765625, 0.796875]
    result = search(yql="select * from item where {targetHits: 400}nearestNeighbor(direction, q)", ranking="nearest",
                    hits=400, **{"input.query(q)": json.dumps(q)})
    assert "errors" not in result["root"], result["root"]["errors"]
    hits = result["root"]["children"]
    assert len(hits) == len(FED)
    for hit in hits:
        v = FED[hit["fields"]["name"]]["direction"]
        distance = 1 - (q16[0] * v[0] + q16[1] * v[1])
        features = hit["fields"]["matchfeatures"]
        assert features["distance(direction)"] == pytest.approx(distance, abs=1e-6), hit["fields"]["name"]
        assert hit["relevance"] == pytest.approx(1 / (1 + distance), abs=1e-6)
        assert features["closeness(field,direction)"] == pytest.approx(hit["relevance"])


def test_an_array_or_weighted_set_of_strings_is_an_index_field_of_all_its_elements(runtime: Runtime) -> None:
    """array<string> and weightedset<string> with indexing: index match a word in any element; a phrase matches
    within one element, never across two."""
    def words(text: str) -> list[str]:
        return text.lower().split()

    for word in WORDS:
        assert found(f'notes contains "{word}"') == expected(lambda f: any(word.lower() in words(n) for n in f["notes"])), word
        assert found(f'keywords contains "{word}"') == expected(lambda f: word.lower() in f["keywords"]), word
    spans = 0
    for first in WORDS[:3]:
        for second in WORDS[3:]:
            phrase = [first.lower(), second.lower()]
            within = expected(lambda f: any(words(n) == phrase for n in f["notes"]))
            assert found(f'notes contains phrase("{first}", "{second}")') == within, phrase
            spans += len(expected(lambda f: any(words(a)[-1:] + words(b)[:1] == phrase for a, b in zip(f["notes"], f["notes"][1:]))))
    assert spans > 0, "the draw has phrases across two elements, which must not match"
    assert found('notes contains "nothing-like-it"') == []
    assert found('weightedSet(notes, {"Tech": 1, "art": 2})') == expected(
        lambda f: any({"tech", "art"} & set(words(n)) for n in f["notes"])) != []
    assert found('weightedSet(keywords, {"food": 1})') == expected(lambda f: "food" in f["keywords"]) != []


def test_dot_product_matches_any_token_and_raw_score_is_the_weighted_sum(runtime: Runtime) -> None:
    """dotProduct on weighted sets and arrays (of strings and of longs): the items holding any token, rawScore the sum of
    query weight times the item's weight of the token (its weight in a weighted set, its occurrences in an array)."""
    topics = {"news": 3, "sport": -2, "tech": 5}
    tags = {"Art": 7, "food": 1}
    codes = {"7": 4, "3": 2}
    where = (f"dotProduct(topics, {json.dumps(topics)}) or dotProduct(tags, {json.dumps(tags)})"
             f" or dotProduct(codes, {json.dumps(codes)})")
    result = search(yql=f"select * from item where {where}", ranking="raw_score", hits=400)
    assert "errors" not in result["root"], result["root"]["errors"]
    hits = result["root"]["children"]

    def raw(f: dict) -> tuple[float, float, float]:
        return (sum(w * f["topics"].get(k, 0) for k, w in topics.items()),
                sum(w * sum(1 for t in f["tags"] if t.lower() == k.lower()) for k, w in tags.items()),
                sum(w * f["codes"].get(k, 0) for k, w in codes.items()))

    assert sorted(hit["fields"]["name"] for hit in hits) == expected(
        lambda f: bool(set(topics) & set(f["topics"]) or {k.lower() for k in tags} & {t.lower() for t in f["tags"]}
                       or set(codes) & set(f["codes"])))
    assert any(raw(FED[hit["fields"]["name"]])[0] < 0 for hit in hits) and any(raw(FED[hit["fields"]["name"]])[1] > 7 for hit in hits)
    for hit in hits:
        topic_score, tag_score, code_score = raw(FED[hit["fields"]["name"]])
        features = hit["fields"]["matchfeatures"]
        assert (features["rawScore(topics)"], features["rawScore(tags)"], features["rawScore(codes)"]) == (
            topic_score, tag_score, code_score), hit["fields"]["name"]
        assert hit["relevance"] == pytest.approx(topic_score + 0.001 * tag_score)


def test_the_dot_product_feature_of_a_weighted_set_and_of_an_array(runtime: Runtime) -> None:
    """dotProduct(name, vector) with the vector a rank property of the query: {key:weight} for a weighted set, [v0 v1 ..]
    for an array (by element index); 0 where the query gives no vector."""
    interest = {"news": 2, "Sport": -1.5}  # the topics' keys are lowercase; the attribute is uncased
    scale = [1, 10, 100]
    result = search(yql="select * from item where true", ranking="dot_product", hits=400, **{
        "ranking.properties.dotProduct.interest": "{" + ",".join(f"{k}:{v}" for k, v in interest.items()) + "}",
        "ranking.properties.dotProduct.scale": "[" + " ".join(map(str, scale)) + "]"})
    assert "errors" not in result["root"], result["root"]["errors"]
    hits = result["root"]["children"]
    assert len(hits) == len(FED)
    for hit in hits:
        # each item as it is now (an earlier test updates one), from its summary
        f = {"topics": hit["fields"].get("topics") or {}, "sizes": hit["fields"].get("sizes") or []}
        topics = sum(w * f["topics"].get(k.lower(), 0) for k, w in interest.items())
        sizes = sum(v * s for v, s in zip(f["sizes"], scale))
        features = hit["fields"]["matchfeatures"]
        assert features["dotProduct(topics,interest)"] == pytest.approx(topics), hit["fields"]["name"]
        assert features["dotProduct(sizes,scale)"] == pytest.approx(sizes), hit["fields"]["name"]
        assert features["dotProduct(codes,interest)"] == 0  # no key of the vector is a number
        assert hit["relevance"] == pytest.approx(topics + sizes)
    assert len({hit["relevance"] for hit in hits}) > 10


def test_wand_keeps_the_best_dot_products_and_ranks_by_them(runtime: Runtime) -> None:
    """wand on a weighted set: every hit holds a token and scores above 0 (the threshold only rises), the best
    targetHits by dot product are among the hits, and rawScore is the dot product. With targetHits above the number
    of items that score, it returns exactly those."""
    tokens = {"news": 3, "tech": 2, "sport": 1}

    def run(target: int) -> list[dict]:
        result = search(yql=f"select * from item where {{targetHits: {target}}}wand(topics, {json.dumps(tokens)})",
                        ranking="raw_score", hits=400)
        assert "errors" not in result["root"], result["root"]["errors"]
        return result["root"].get("children", [])

    def score(topics: dict) -> int:
        return sum(w * topics.get(k, 0) for k, w in tokens.items())

    current = {hit["fields"]["name"]: hit["fields"].get("topics") or {}
               for hit in search(yql="select * from item where true", hits=400)["root"]["children"]}
    scoring = sorted((i for i, t in current.items() if score(t) > 0), key=lambda i: -score(current[i]))
    assert len(scoring) > 8
    everything = run(400)
    assert sorted(hit["fields"]["name"] for hit in everything) == sorted(scoring)
    for hit in everything:
        assert hit["fields"]["matchfeatures"]["rawScore(topics)"] == score(current[hit["fields"]["name"]])
    few = run(3)
    names = {hit["fields"]["name"] for hit in few}
    assert names <= set(scoring)
    third = score(current[scoring[2]])
    assert {i for i in scoring if score(current[i]) > third} <= names
    assert len(names) < len(scoring), "the threshold rose and kept some scoring items out"


def test_item_raw_score_is_the_labelled_items_dot_product(runtime: Runtime) -> None:
    """itemRawScore(label): the raw score of the one item labelled so; two dotProducts on the same field keep apart."""
    first, second = {"news": 3, "tech": -1}, {"news": 10, "food": 2}
    where = (f'({{label: "first"}}dotProduct(topics, {json.dumps(first)}))'
             f' or ({{label: "second"}}dotProduct(topics, {json.dumps(second)}))')
    result = search(yql=f"select * from item where {where}", ranking="item_raw_score", hits=400)
    assert "errors" not in result["root"], result["root"]["errors"]
    hits = result["root"]["children"]
    assert hits
    for hit in hits:
        topics = hit["fields"].get("topics") or {}
        a = sum(w * topics.get(k, 0) for k, w in first.items())
        b = sum(w * topics.get(k, 0) for k, w in second.items())
        features = hit["fields"]["matchfeatures"]
        assert (features["itemRawScore(first)"], features["itemRawScore(second)"], features["itemRawScore(absent)"]) == (a, b, 0)
        assert hit["relevance"] == pytest.approx(a + 0.001 * b)


def test_struct_field_attributes_and_same_element(runtime: Runtime) -> None:
    """Struct-field attributes of an array of structs and of a map (parts.name, parts.qty, specs.key, specs.value)
    match as arrays of their values; sameElement matches only where one element matches every condition."""
    current = {hit["fields"]["name"]: hit["fields"] for hit in search(yql="select * from item where true", hits=400)["root"]["children"]}

    def now(accepts) -> list[str]:
        return sorted(i for i, f in current.items() if accepts(f))

    def parts(f: dict) -> list[dict]:
        return f.get("parts") or []

    def specs(f: dict) -> dict:
        return f.get("specs") or {}

    assert now(lambda f: True) == sorted(FED)
    for word in ("news", "Art"):
        assert found(f'parts.name contains "{word}"') == now(lambda f: any(p["name"].lower() == word.lower() for p in parts(f))) != []
    assert found("parts.qty > 3") == now(lambda f: any(p.get("qty", -1) > 3 for p in parts(f))) != []
    within = now(lambda f: any(p["name"].lower() == "tech" and p.get("qty", -1) >= 2 for p in parts(f)))
    apart = now(lambda f: any(p["name"].lower() == "tech" for p in parts(f)) and any(p.get("qty", -1) >= 2 for p in parts(f)))
    assert found('parts contains sameElement(name contains "tech", qty >= 2)') == within
    assert len(apart) > len(within), "the draw has items with the two conditions in different elements"
    assert found('specs.key contains "color"') == now(lambda f: "color" in specs(f)) != []
    assert found('specs contains sameElement(key contains "size", value contains "big")') == now(
        lambda f: specs(f).get("size", "").lower() == "big") != []
    # a changed array changes its struct-field attributes
    update("i7", {"parts": {"assign": [{"name": "Brand-New", "qty": 42}]}})
    assert found('parts contains sameElement(name contains "brand-new", qty = 42)') == ["i7"]
    assert found('parts.name contains "brand-new"') == ["i7"]
