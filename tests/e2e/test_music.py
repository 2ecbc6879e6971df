"""A package that is not dwell's (tests/apps/music: one container, one content node, no hosts.xml)
deploys, takes its feed, passes its own system test in Vespa's format, and takes every update
operation on arrays, weighted sets, maps and tensors. A text query on its default profile ranks by
nativeRank as numpy computes it from searchlib's formulas. On one host it gets the runtime's protections
as dwell's package does: a 400 for documents Vespa's reader fails on, and the token for writes."""
from __future__ import annotations

import urllib.parse

import numpy as np
import pytest
from dwell_client import CONTAINER, ROOT, Runtime, http, search, vespa

from clients import deployed_runtime, visit_all

APP = ROOT / "tests" / "apps" / "music"
DOC = f"{CONTAINER}/document/v1/music/album/docid"


@pytest.fixture(scope="module")
def runtime(tmp_path_factory: pytest.TempPathFactory):
    yield from deployed_runtime(tmp_path_factory.mktemp("dwell-music"), APP, APP / "feed.jsonl")


def fields(doc: str) -> dict:
    status, body = http("GET", f"{DOC}/{doc}")
    assert status == 200, body
    return body["fields"]


def update(doc: str, changes: dict, **parameters) -> int:
    status, body = http("PUT", f"{DOC}/{doc}?" + urllib.parse.urlencode(parameters), {"fields": changes})
    assert status in (200, 412), body
    return status


def test_its_own_system_test_passes(runtime: Runtime) -> None:
    result = vespa("test", str(APP / "tests" / "system-test"), check=False)
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_feed_is_searchable_with_summaries_of_every_field_type(runtime: Runtime) -> None:
    result = search(yql='select * from album where artist contains "John Coltrane"', ranking="popularity",
                    **{"input.query(taste)": "[1,0,0,0]"})
    hits = result["root"]["children"]
    assert [h["id"] for h in hits] == ["id:music:album::a-love-supreme", "id:music:album::blue-train"]
    assert hits[0]["relevance"] == pytest.approx(1.0 + 0.7, abs=1e-5)
    first = hits[0]["fields"]
    assert first["tracks"] == ["Acknowledgement", "Resolution"]
    # Vespa 8 renders weighted sets and maps as JSON objects by default
    assert first["genres"] == {"jazz": 100, "spiritual": 70}, first["genres"]
    assert first["plays"] == {"Resolution": 80}, first["plays"]
    assert first["embedding"]["values"] == pytest.approx([0.7, 0.3, 0.1, 0.0])


def native_rank(terms: list[tuple[str, int]], title: list[str], frequency: dict[str, int], documents: int) -> float:
    """nativeRank of the default profile for these (word, weight) terms searched in the title (the fieldset default,
    one index field of weight 100), by the formulas of Vespa's nativeRank reference: each term's significance from
    its document frequency on the content node; nativeFieldMatch from the first occurrence and occurrence count
    tables, nativeProximity from the forward and reverse proximity tables of each pair of terms at most 3 apart in
    the query (connectedness 0.1 / their distance), both over their largest table sums; no attribute terms."""
    x = np.arange(256)
    first, count = 8000 * np.exp(-x / 12.5), 1500 * np.log(1 + x / 19) + 4000
    forward, backward = 500 * np.exp(-x / 3), 400 * np.exp(-x / 3)

    def significance(word: str) -> float:
        in_million = min(max(1.0, frequency[word] * 1e6 / documents), 1e6)
        return 0.5 + 0.5 * (np.log(1e6) - np.log(in_million)) / np.log(1e6)

    def table(values: np.ndarray, index: int) -> float:
        return float(values[min(index, len(values) - 1)])

    length = len(title)
    field_match, divisor = 0.0, 0.0
    for word, weight in terms:
        term_weight = significance(word) * weight
        divisor += term_weight * 100
        positions = [p for p, w in enumerate(title) if w == word]
        if positions:
            value = 0.5 * table(first, positions[0] * 255 // (max(6, length) - 1)) + 0.5 * table(count, len(positions) * 255 // max(6, length))
            field_match += term_weight * value * 100 / (0.5 * first.max() + 0.5 * count.max())
    field_match /= divisor

    def distance(a: str, b: str) -> int:
        gaps = [q - p for p, w in enumerate(title) if w == a for q, v in enumerate(title) if v == b and q > p]
        return min(gaps) if gaps else 1_000_000

    proximity, pair_weights = 0.0, 0.0
    for i in range(len(terms)):
        for j in range(i + 1, min(i + 4, len(terms))):
            (a, wa), (b, wb) = terms[i], terms[j]
            pair_weight = (significance(a) * wa + significance(b) * wb) * 0.1 / (j - i)
            proximity += pair_weight * (0.5 * table(forward, max(0, distance(a, b) - 1)) + 0.5 * table(backward, max(0, distance(b, a) - 1))) / 450
            pair_weights += pair_weight
    proximity = proximity / pair_weights if pair_weights else 0.0
    return (100 * field_match + 25 * proximity + 100 * 0) / 225


def test_a_text_query_on_the_default_profile_ranks_by_native_rank(runtime: Runtime) -> None:
    everything = search(yql="select * from album where true", hits=400)["root"]
    documents = everything["fields"]["totalCount"]
    titles = {h["id"]: h["fields"].get("title", "").lower().split() for h in everything["children"]}
    frequency = {word: sum(word in title for title in titles.values()) for word in ("blue", "train")}
    assert frequency["blue"] >= 2 and frequency["train"] >= 1 and documents > frequency["blue"]
    for yql, terms in (('title contains "blue"', [("blue", 100)]),
                       ('title contains "blue" or title contains ({weight: 200}"train")', [("blue", 100), ("train", 200)]),
                       ('title contains ({weight: 30}"train") or default contains "blue"', [("train", 30), ("blue", 100)])):
        hits = search(yql=f"select * from album where {yql}", hits=400)["root"]["children"]
        matching = {i for i, title in titles.items() if any(word in title for word, _ in terms)}
        assert {h["id"] for h in hits} == matching, yql
        for hit in hits:
            assert hit["relevance"] == pytest.approx(native_rank(terms, titles[hit["id"]], frequency, documents), rel=1e-9, abs=1e-12), (yql, hit)
    # an attribute term: nativeAttributeMatch = the weight table linear(1,0) at the match's weight 1, over its largest, 255
    hits = search(yql='select * from album where artist contains "John Coltrane"')["root"]["children"]
    assert len(hits) >= 2
    for hit in hits:
        assert hit["relevance"] == pytest.approx(100 * (1 / 255) / 225, rel=1e-12), hit


def test_array_weighted_set_and_map_updates(runtime: Runtime) -> None:
    doc = "kind-of-blue"
    update(doc, {"tracks": {"add": ["All Blues", "Flamenco Sketches"]}})
    assert fields(doc)["tracks"] == ["So What", "Freddie Freeloader", "Blue in Green", "All Blues", "Flamenco Sketches"]
    update(doc, {"tracks": {"remove": ["Freddie Freeloader"]}})
    assert "Freddie Freeloader" not in fields(doc)["tracks"]
    update(doc, {"tracks[0]": {"assign": "So What (take 3)"}})
    assert fields(doc)["tracks"][0] == "So What (take 3)"

    update(doc, {"genres": {"add": {"cool": 30}}})
    assert fields(doc)["genres"] == {"jazz": 90, "modal": 50, "cool": 30}
    update(doc, {"genres{jazz}": {"increment": 10}})
    update(doc, {"genres{modal}": {"decrement": 20}})
    update(doc, {"genres": {"remove": {"cool": 0}}})
    assert fields(doc)["genres"] == {"jazz": 100, "modal": 30}

    update(doc, {"plays{All Blues}": {"assign": 7}})
    update(doc, {"plays{So What}": {"increment": 5}})
    update(doc, {"plays{Blue in Green}": {"multiply": 2}})
    update(doc, {"plays{So What}": {"divide": 5}})
    assert fields(doc)["plays"] == {"So What": 61, "Blue in Green": 240, "All Blues": 7}
    update(doc, {"plays{All Blues}": {"remove": 0}})
    assert "All Blues" not in fields(doc)["plays"]
    update(doc, {"plays": {"assign": {"Solo": 1}}})
    assert fields(doc)["plays"] == {"Solo": 1}


def test_arithmetic_and_match_updates(runtime: Runtime) -> None:
    doc = "blue-train"
    update(doc, {"sales": {"increment": 500}, "price": {"multiply": 2}})
    assert fields(doc)["sales"] == 500500 and fields(doc)["price"] == pytest.approx(16.0)
    update(doc, {"sales": {"decrement": 500}, "price": {"divide": 4}})
    assert fields(doc)["sales"] == 500000 and fields(doc)["price"] == pytest.approx(4.0)
    update(doc, {"tracks": {"match": {"element": 1, "assign": "Moment's Notice (alt)"}}})
    assert fields(doc)["tracks"][1] == "Moment's Notice (alt)"
    update(doc, {"genres": {"match": {"element": "jazz", "increment": 5}}})
    assert fields(doc)["genres"]["jazz"] == 85
    # a map entry is updated through its field path; Vespa's document model has no match on maps
    update(doc, {"plays{Blue Train}": {"assign": 3}})
    assert fields(doc)["plays"]["Blue Train"] == 3


def test_tensor_modify_add_and_remove(runtime: Runtime) -> None:
    doc = "a-love-supreme"
    update(doc, {"embedding": {"modify": {"operation": "replace", "cells": [{"address": {"x": "0"}, "value": 0.25}]}}})
    update(doc, {"embedding": {"modify": {"operation": "add", "cells": [{"address": {"x": "1"}, "value": 0.5}]}}})
    update(doc, {"embedding": {"modify": {"operation": "multiply", "cells": [{"address": {"x": "2"}, "value": 3}]}}})
    assert fields(doc)["embedding"]["values"] == pytest.approx([0.25, 0.8, 0.3, 0.0])
    update(doc, {"ratings": {"add": {"cells": [{"address": {"user": "cy"}, "value": 3.0}]}}})
    update(doc, {"ratings": {"remove": {"addresses": [{"user": "ann"}]}}})
    assert fields(doc)["ratings"]["cells"] == {"cy": 3.0}
    update(doc, {"ratings": {"assign": {"cells": {"dee": 1.0}}}})
    assert fields(doc)["ratings"]["cells"] == {"dee": 1.0}
    # the ranked attribute follows
    result = search(yql='select * from album where artist contains "John Coltrane"', ranking="popularity",
                    **{"input.query(taste)": "[1,0,0,0]"})
    assert result["root"]["children"][0]["relevance"] == pytest.approx(1.0 + 0.25, abs=1e-5)


def test_conditions_create_and_ignored_fields(runtime: Runtime) -> None:
    assert update("blue-train", {"year": {"assign": 1900}}, condition="album.year==1901") == 412
    assert fields("blue-train")["year"] == 1957
    assert update("blue-train", {"year": {"assign": 1958}}, condition="album.year==1957") == 200
    assert update("new-album", {"artist": {"assign": "Nobody"}, "tracks": {"add": ["One"]}}, create="true") == 200
    assert fields("new-album") == {"artist": "Nobody", "tracks": ["One"]}
    # this package ignores undefined fields, and says so
    from test_clients import raw
    import json
    status, headers, body = raw("POST", f"{DOC}/ignoring", json.dumps({"fields": {"artist": "X", "nosuchfield": 1}}).encode(), "application/json")
    assert status == 200, body
    assert headers.get("X-Vespa-Ignored-Fields") == "true"
    assert fields("ignoring") == {"artist": "X"}


def test_visit_with_wanted_document_count(runtime: Runtime) -> None:
    ids = {d["id"] for d in visit_all("music")}
    assert {"id:music:album::kind-of-blue", "id:music:album::blue-train"} <= ids
    selection = urllib.parse.quote("album.year>1950")
    status, body = http("GET", f"{CONTAINER}/document/v1/?cluster=music&wantedDocumentCount=1&selection={selection}")
    assert status == 200, body
    assert 1 <= body["documentCount"] and "documents" in body


def test_documents_the_json_reader_fails_on_are_400_and_change_nothing(runtime: Runtime) -> None:
    """Vespa's handler answers these 500 (its reader throws other than IllegalArgumentException);
    the runtime's /document/v1 guard makes them 400, in this one-host package too."""
    before = fields("kind-of-blue")
    # more values than the dense tensor has cells: the reader's ArrayIndexOutOfBoundsException
    status, body = http("POST", f"{DOC}/too-many", {"fields": {"artist": "X", "embedding": {"values": [1, 2, 3, 4, 5, 6]}}})
    assert status == 400, body
    assert body["message"].startswith("Invalid document operation: ArrayIndexOutOfBoundsException"), body
    # "add" to a number: the reader's IllegalStateException
    status, body = http("PUT", f"{DOC}/kind-of-blue", {"fields": {"year": {"add": 5}}})
    assert status == 400, body
    assert body["message"].startswith("Invalid document operation: IllegalStateException"), body
    assert http("GET", f"{DOC}/too-many")[0] == 404
    assert fields("kind-of-blue") == before
