"""Lucene analysis that a package's own bundle brings (tests/apps/lucene-bundle, issue 18): the bundle embeds
lucene-linguistics and lucene-analysis-phonetic (not on the runtime's class path) and holds a token filter factory of
its own, which Lucene's SPI finds in it; Vespa's LuceneLinguistics, created from the bundle, analyzes documents and
queries with them. The expected tokens are computed here: American Soundex (the `phonetic` filter's `soundex`
encoder, as commons-codec defines it) written out in Python, and the package's `dwellSuffix` filter (the lowercased
token with "_d" appended); the literals are the same worked by hand."""
from __future__ import annotations

import json
import shutil

import pytest
from dwell_client import ROOT, Runtime, search

from clients import deployed_runtime, maven_package

APP = ROOT / "tests" / "apps" / "lucene-bundle"
PEOPLE = {
    "p1": {"name": "Robert Smith", "motto": "Keep Calm"},
    "p2": {"name": "Rubin Lee", "motto": "carry on"},
    "p3": {"name": "Ada Lovelace", "motto": "Analytical Engine"},
}
CODES = {**dict.fromkeys("bfpv", "1"), **dict.fromkeys("cgjkqsxz", "2"), **dict.fromkeys("dt", "3"),
         "l": "4", **dict.fromkeys("mn", "5"), "r": "6"}


def soundex(word: str) -> str:
    """American Soundex: the first letter, then the digits of the consonants that follow, a digit not repeated for
    letters of one code next to each other or with only h or w between them, vowels breaking a run; four characters."""
    word = word.lower()
    digits, last = [], CODES.get(word[0])
    for c in word[1:]:
        code = CODES.get(c)
        if code is None:
            if c not in "hw":
                last = None  # a vowel (or y) separates two letters of one code
            continue
        if code != last:
            digits.append(code)
        last = code
    return (word[0].upper() + "".join(digits) + "000")[:4]


def sounds(text: str) -> list[str]:
    return [soundex(word) for word in text.split()]


def suffixed(text: str) -> list[str]:
    return [word.lower() + "_d" for word in text.split()]


@pytest.fixture(scope="module")
def runtime(tmp_path_factory: pytest.TempPathFactory):
    tmp = tmp_path_factory.mktemp("dwell-lucene-bundle")
    app = tmp / "app"
    shutil.copytree(APP, app, ignore=shutil.ignore_patterns("target"))
    maven_package(app)
    feed = tmp / "feed.jsonl"
    feed.write_text("".join(json.dumps({"put": f"id:test:person::{name}", "fields": fields}) + "\n"
                            for name, fields in PEOPLE.items()))
    yield from deployed_runtime(tmp / "data", app / "target" / "application", feed)


def hits(yql: str) -> tuple[int, list[str]]:
    result = search(yql=yql, hits="10")
    assert "errors" not in result["root"], result
    return result["root"]["fields"]["totalCount"], sorted(h["id"] for h in result["root"].get("children", []))


def test_soundex_as_written_here_gives_the_textbook_codes() -> None:
    assert [soundex(w) for w in ["Robert", "Rupert", "Rubin", "Tymczak", "Ashcraft", "Pfister", "Lee", "hello"]] == \
           ["R163", "R163", "R150", "T522", "A261", "P236", "L000", "H400"]


def test_tokens_are_the_bundles_analyzers(runtime: Runtime) -> None:
    result = search(yql="select * from person where true", summary="tokens", hits="10")
    by_id = {h["id"]: h["fields"] for h in result["root"]["children"]}
    assert sorted(by_id) == [f"id:test:person::{name}" for name in PEOPLE]
    for name, fields in PEOPLE.items():
        person = by_id[f"id:test:person::{name}"]
        assert person["name_tokens"] == sounds(fields["name"]), name
        assert person["motto_tokens"] == suffixed(fields["motto"]), name
    assert by_id["id:test:person::p1"]["name_tokens"] == ["R163", "S530"]  # by hand
    assert by_id["id:test:person::p3"]["name_tokens"] == ["A300", "L142"]
    assert by_id["id:test:person::p2"]["motto_tokens"] == ["carry_d", "on_d"]


def test_a_name_matches_by_its_sound(runtime: Runtime) -> None:
    assert hits('select * from person where name contains text("Rupert")') == (1, ["id:test:person::p1"])  # R163
    assert hits('select * from person where name contains text("Robin")') == (1, ["id:test:person::p2"])   # R150
    assert hits('select * from person where name contains text("Smyth")') == (1, ["id:test:person::p1"])   # S530
    assert hits('select * from person where name contains text("Lovelace Ada")') == (1, ["id:test:person::p3"])
    assert hits('select * from person where name contains text("Zebra")') == (0, [])                       # Z160


def test_the_packages_own_filter_applies_to_queries_too(runtime: Runtime) -> None:
    assert hits('select * from person where motto contains text("CALM")') == (1, ["id:test:person::p1"])
    assert hits('select * from person where motto contains text("engine")') == (1, ["id:test:person::p3"])
    # the query term is suffixed as well: "calm_d" becomes calm_d_d, which no motto holds
    assert hits('select * from person where motto contains text("calm_d")') == (0, [])
