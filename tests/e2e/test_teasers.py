"""Dynamic summaries (tests/apps/teasers, issue 18): `summary: dynamic` as proton's juniper writes it where this engine
makes it exactly, and refused by name elsewhere. Expectations from juniper's documented behaviour: a field the query
does not match shows its beginning (juniperrc's prefix: the words within 256 bytes of juniper's input, then the
continuation mark, which the container renders <sep />); a field juniper shows whole marks each matching word
(the container renders <hi>); a gram field's marked gram is recombined by the container's NGramSearcher; a longer field
the query matches shows juniper's snippets around its best matches (traced by hand through juniper's sumdesc.cpp over
its input: the text with a unit separator after each word and each gap)."""
from __future__ import annotations

import json

import pytest
from dwell_client import ROOT, Runtime, search, vespa

from clients import deployed_runtime

APP = ROOT / "tests" / "apps" / "teasers"
TITLE = "Ranking with XGBoost Models"
BODY = " ".join(["abcd"] * 60)
ZORK_BODY = " ".join(["qqqq"] * 40 + ["zork"] + ["vvvv"] * 40 + ["zork"] + ["kkkk"] * 40)
GRAMS_OR_DEFAULT = ('select * from page where ([{"defaultIndex":"default"}]userQuery()) '
                    'or ([{"defaultIndex":"grams"}]userInput(@query))')


@pytest.fixture(scope="module")
def runtime(tmp_path_factory: pytest.TempPathFactory):
    tmp = tmp_path_factory.mktemp("dwell-teasers")
    feed = tmp / "feed.jsonl"
    pages = {"p1": {"title": TITLE, "body": BODY, "label": "Ranking label"},
             "p2": {"title": "Learning to rank", "body": "Short body about gradient boosting", "label": "second"},
             "p3": {"title": "Nothing", "label": "third"},
             "p4": {"title": "Notes", "label": "fourth",
                    "notes": ["a first note on ranking", "nothing here", " ".join(["long"] * 80) + " ranking"]},
             "p5": {"title": "Snippets", "label": "fifth", "body": ZORK_BODY}}
    feed.write_text("".join(json.dumps({"put": f"id:test:page::{name}", "fields": fields}) + "\n" for name, fields in pages.items()))
    yield from deployed_runtime(tmp / "data", APP, feed)


def only_hit(result: dict) -> dict:
    assert result["root"]["fields"]["totalCount"] == 1, result
    return result["root"]["children"][0]["fields"]


def test_its_own_system_test_passes(runtime: Runtime) -> None:
    result = vespa("test", str(APP / "tests" / "system-test"), check=False)
    assert result.returncode == 0, result.stdout + result.stderr


def test_a_short_field_is_shown_whole_with_its_matches_marked(runtime: Runtime) -> None:
    hit = only_hit(search(yql='select * from page where userQuery()', query="gradient"))
    assert hit["body"] == "Short body about <hi>gradient</hi> boosting"
    assert hit["title"] == "Learning to rank"  # not matched: the whole title, unmarked
    hit = only_hit(search(yql='select * from page where label contains "third"'))
    assert hit["title"] == "Nothing" and "body" not in hit  # a document without the field has none


def test_each_element_of_a_bolding_array_is_shown_whole_with_its_matches_marked(runtime: Runtime) -> None:
    hit = only_hit(search(yql='select * from page where notes contains "ranking"'))
    assert hit["notes"] == ["a first note on <hi>ranking</hi>", "nothing here", " ".join(["long"] * 80) + " <hi>ranking</hi>"]
    hit = only_hit(search(yql='select * from page where label contains "fourth"'))
    assert hit["notes"] == ["a first note on ranking", "nothing here", " ".join(["long"] * 80) + " ranking"]  # no match: whole


def test_a_field_the_query_does_not_match_shows_its_beginning(runtime: Runtime) -> None:
    hit = only_hit(search(yql=GRAMS_OR_DEFAULT, query="xgb"))
    assert hit["title"] == TITLE
    assert hit["body"] == " ".join(["abcd"] * 51) + "<sep />"  # 4 + 50 * 5 = 254 bytes; a 52nd word would pass 256
    assert hit["gram_title"] == "Ranking with <hi>XGB</hi>oost Models"
    assert hit["label"] == "Ranking label"


def test_a_match_in_a_long_field_shows_juniper_snippets(runtime: Runtime) -> None:
    # Juniper's input: word i at byte 7i of 418 ("abcd", unit separator, space, unit separator). It chooses the matches
    # of words 0, 4 and 32 (its overlap test compares the first's end byte with a later one's word number); its
    # estimate (456 bytes) exceeds 256, so each context gets 68 bytes; every match within the contexts is marked, and
    # the words cut at bytes 98 and 294 are taken whole: words 0 to 14, then 22 to 42.
    result = search(yql='select * from page where body contains "abcd"')
    hit = only_hit(result)
    assert "body" in hit, result["root"].get("errors")
    marked = "<hi>abcd</hi>"
    assert hit["body"] == " ".join([marked] * 15) + "<sep />" + " ".join([marked] * 21) + "<sep />"
    assert hit["title"] == TITLE and hit["label"] == "Ranking label"
    # One word in the middle: "zork" at byte 280 (word 40) of 852; the second "zork" (word 81) overlaps the first by
    # juniper's test. 128 bytes each side: [152, 280) starts at white space, so moves on to the next word (154);
    # [284, 412) ends at a separator, so moves back to the end of the last word (410).
    hit = only_hit(search(yql='select * from page where body contains "zork"'))
    assert hit["body"] == "<sep />" + "qqqq " * 18 + "<hi>zork</hi> " + "vvvv " * 17 + "vvvv" + "<sep />"
