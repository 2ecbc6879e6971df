"""A Linguistics of the package's own code (tests/apps/bundle-linguistics, issue 18): AnagramLinguistics, in the package's
bundle, extends Vespa's OpenNlpLinguistics and indexes and searches each word as its letters in order, so that anagrams
match ("silent" finds "Listen"). The container injects it where Vespa uses linguistics, and the documents are indexed
with it as well (they were indexed with Vespa's default OpenNLP while queries used the package's, the gap
linguistics-asia's 06-opennlp-icu and 07-opennlp-opencc showed). The expected tokens are computed here: the words
lowercased, their letters sorted (words English stemming leaves as they are: the field stems, as a query term goes
through the package's Stemmer only where its field does)."""
from __future__ import annotations

import json
import re
import shutil

import pytest
from dwell_client import ROOT, Runtime, search

from clients import deployed_runtime, maven_package

APP = ROOT / "tests" / "apps" / "bundle-linguistics"
NOTES = {
    "n1": "Listen here",
    "n2": "Enlist now",
    "n3": "Night shift",
}


def anagrams(text: str) -> list[str]:
    return ["".join(sorted(word.lower())) for word in re.findall(r"\w+", text)]


@pytest.fixture(scope="module")
def runtime(tmp_path_factory: pytest.TempPathFactory):
    tmp = tmp_path_factory.mktemp("dwell-bundle-linguistics")
    app = tmp / "app"
    shutil.copytree(APP, app, ignore=shutil.ignore_patterns("target"))
    maven_package(app)
    feed = tmp / "feed.jsonl"
    feed.write_text("".join(json.dumps({"put": f"id:test:note::{name}", "fields": {"text": text}}) + "\n"
                            for name, text in NOTES.items()))
    yield from deployed_runtime(tmp / "data", app / "target" / "application", feed)


def hits(word: str) -> tuple[int, list[str]]:
    result = search(yql=f'select * from note where text contains "{word}"', hits="10", language="en", timeout="10s")
    assert "errors" not in result["root"], result
    return result["root"]["fields"]["totalCount"], sorted(h["id"] for h in result["root"].get("children", []))


def test_the_anagrams_as_computed_here() -> None:
    assert anagrams("Listen here") == ["eilnst", "eehr"]
    assert anagrams("Night thing") == ["ghint", "ghint"]


def test_documents_are_indexed_with_the_packages_linguistics(runtime: Runtime) -> None:
    result = search(yql="select * from note where true", summary="tokens", hits="10", language="en", timeout="10s")
    by_id = {h["id"]: h["fields"] for h in result["root"]["children"]}
    assert sorted(by_id) == [f"id:test:note::{name}" for name in NOTES]
    for name, text in NOTES.items():
        assert by_id[f"id:test:note::{name}"]["text_tokens"] == anagrams(text), name


def test_an_anagram_matches(runtime: Runtime) -> None:
    assert hits("silent") == (2, ["id:test:note::n1", "id:test:note::n2"])  # listen, enlist: eilnst
    assert hits("TINSEL") == (2, ["id:test:note::n1", "id:test:note::n2"])
    assert hits("thing") == (1, ["id:test:note::n3"])                       # night: ghint
    assert hits("eilnst") == (2, ["id:test:note::n1", "id:test:note::n2"])  # the indexed term itself
    assert hits("listens") == (2, ["id:test:note::n1", "id:test:note::n2"]) # stemmed to listen first
    assert hits("silent here") == (1, ["id:test:note::n1"])                 # a phrase of two words: eilnst eehr
    assert hits("here silent") == (0, [])                                   # not in that order
