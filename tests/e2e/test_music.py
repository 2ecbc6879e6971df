"""A package that is not dwell's (tests/apps/music: one container, one content node, no hosts.xml)
deploys, takes its feed, passes its own system test in Vespa's format, and takes every update
operation on arrays, weighted sets, maps and tensors. On one host it gets the runtime's protections
as dwell's package does: a 400 for documents Vespa's reader fails on, and the token for writes."""
from __future__ import annotations

import urllib.parse

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
