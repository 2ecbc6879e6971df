"""Vespa's lucene-linguistics (tests/apps/lucene, issue 18): the package's LuceneLinguistics analyzes the documents
at indexing and the query terms, per field by the schema's linguistics profiles, and the `tokens` summary shows
what the indexing made. The expected tokens are computed here, independently, for the package's "folded" analyzer
(split on whitespace, lowercase, fold to ASCII, drop the stop list) and written out by hand for "plural" (that,
then Lucene's English minimal stemmer: -ies to -y, -es to -e, a final -s dropped)."""
from __future__ import annotations

import json
import unicodedata

import pytest
from dwell_client import ROOT, Runtime, search, vespa

from clients import deployed_runtime

APP = ROOT / "tests" / "apps" / "lucene"
STOP = set((APP / "lucene-linguistics" / "stopwords.txt").read_text().split())
# What ASCII folding does to the letters these texts hold that are no accent on a base letter
LIGATURES = {"œ": "oe", "æ": "ae", "ø": "o", "ß": "ss"}
NOTES = {
    "n1": {"language": "en", "text": "Café AND Crème of the Day", "tags": ["Naïve Art", "the Œuvre"],
           "plural": "berries and boxes"},
    "n2": {"language": "en", "text": "Cafeteria menu", "tags": ["Smørbrød"], "plural": "berry pie"},
    "n3": {"language": "en", "text": "Nothing here", "tags": [], "plural": "cats"},
}


def folded(text: str) -> list[str]:
    """The "folded" analyzer's tokens, computed without Lucene."""
    tokens = []
    for word in text.split():
        word = word.lower()
        word = "".join(LIGATURES.get(c, c) for c in word)
        word = "".join(c for c in unicodedata.normalize("NFKD", word) if not unicodedata.combining(c))
        if word not in STOP:
            tokens.append(word)
    return tokens


@pytest.fixture(scope="module")
def runtime(tmp_path_factory: pytest.TempPathFactory):
    tmp = tmp_path_factory.mktemp("dwell-lucene")
    feed = tmp / "feed.jsonl"
    feed.write_text("".join(json.dumps({"put": f"id:test:note::{name}", "fields": fields}) + "\n"
                            for name, fields in NOTES.items()))
    yield from deployed_runtime(tmp / "data", APP, feed)


def hits(yql: str, **parameters: str) -> tuple[int, list[str], dict]:
    result = search(yql=yql, hits="10", language="en", **parameters)
    assert "errors" not in result["root"], result
    children = result["root"].get("children", [])
    return result["root"]["fields"]["totalCount"], sorted(h["id"] for h in children), result


def test_its_own_system_test_passes(runtime: Runtime) -> None:
    result = vespa("test", str(APP / "tests" / "system-test"), check=False)
    assert result.returncode == 0, result.stdout + result.stderr


def test_tokens_summary_is_what_the_analyzer_makes(runtime: Runtime) -> None:
    result = search(yql="select * from note where true", summary="tokens", hits="10", language="en")
    assert result["root"]["fields"]["totalCount"] == 3
    by_id = {h["id"]: h["fields"] for h in result["root"]["children"]}
    assert sorted(by_id) == [f"id:test:note::{name}" for name in NOTES]
    for name, fields in NOTES.items():
        note = by_id[f"id:test:note::{name}"]
        assert note["text_tokens"] == folded(fields["text"]), name
        assert note.get("tags_tokens", []) == [folded(tag) for tag in fields["tags"]], name  # an array: one array per element
    assert by_id["id:test:note::n1"]["text_tokens"] == ["cafe", "creme", "day"]  # the computation above, by hand
    assert by_id["id:test:note::n1"]["tags_tokens"] == [["naive", "art"], ["oeuvre"]]
    assert by_id["id:test:note::n1"]["plural_tokens"] == ["berry", "and", "boxe"]  # no stop list in "plural"
    assert by_id["id:test:note::n2"]["plural_tokens"] == ["berry", "pie"]
    assert by_id["id:test:note::n3"]["plural_tokens"] == ["cat"]


def test_an_accent_matches_only_through_folding(runtime: Runtime) -> None:
    assert hits('select * from note where text contains "cafe"')[:2] == (1, ["id:test:note::n1"])
    assert hits('select * from note where text contains "CAFÉ"')[:2] == (1, ["id:test:note::n1"])
    assert hits('select * from note where tags contains "oeuvre"')[:2] == (1, ["id:test:note::n1"])
    assert hits('select * from note where tags contains "smorbrod"')[:2] == (1, ["id:test:note::n2"])
    assert hits('select * from note where text contains "caf"')[:2] == (0, [])  # no prefix or stem in "folded"


def test_a_plural_matches_only_in_the_stemming_profile(runtime: Runtime) -> None:
    assert hits('select * from note where plural contains "berries"')[:2] == (2, ["id:test:note::n1", "id:test:note::n2"])
    assert hits('select * from note where plural contains "berry"')[:2] == (2, ["id:test:note::n1", "id:test:note::n2"])
    assert hits('select * from note where plural contains "cat"')[:2] == (1, ["id:test:note::n3"])
    assert hits('select * from note where text contains "cafes"')[:2] == (0, [])  # "folded" does not stem


def test_a_stop_word_is_indexed_only_where_the_analyzer_keeps_it(runtime: Runtime) -> None:
    assert hits('select * from note where plural contains "and"')[:2] == (1, ["id:test:note::n1"])  # "plural" has no stop list
    assert hits('select * from note where text contains "day"')[:2] == (1, ["id:test:note::n1"])

