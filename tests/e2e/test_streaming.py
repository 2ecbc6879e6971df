"""Streaming search (tests/apps/streaming, issue 18): a document type in mode="streaming", fed with the vespa CLI
with document ids in groups (id:test:mail:g=<user>:<n>), queried one group at a time with streaming.groupname or
streaming.selection. Every answer is checked against numpy over what was fed: only the group's documents, the
total count per group, nearestNeighbor's order and closeness (exact: every document of the group), text terms,
an attribute filter, grouping, and the error Vespa's container gives a streaming query with neither a group nor a selection."""
from __future__ import annotations

import json
import random
import urllib.parse

import numpy as np
import pytest
from dwell_client import CONTAINER, ROOT, Runtime, http, search, vespa

from clients import deployed_runtime

APP = ROOT / "tests" / "apps" / "streaming"
USERS = ["alice", "bob", "carol"]
WORDS = ["lunch", "invoice", "meeting", "holiday", "report", "party"]


def mails(seed: int = 11, per_user: int = 14) -> dict[str, dict]:
    """The fed mails: document id -> its user and fields, drawn at random."""
    rng = random.Random(seed)
    result = {}
    for user in USERS:
        for n in range(per_user):
            result[f"id:test:mail:g={user}:{n}"] = {
                "user": user,
                "fields": {
                    "subject": " ".join(rng.sample(WORDS, 2)).capitalize(),
                    "year": 2015 + rng.randrange(10),
                    "v": [round(rng.uniform(-1, 1), 3) for _ in range(4)],
                },
            }
    return result


FED = mails()
QUERY = [0.25, -0.5, 0.125, 0.0]


@pytest.fixture(scope="module")
def runtime(tmp_path_factory: pytest.TempPathFactory):
    tmp = tmp_path_factory.mktemp("dwell-streaming")
    feed = tmp / "feed.jsonl"
    feed.write_text("".join(json.dumps({"put": doc_id, "fields": mail["fields"]}) + "\n" for doc_id, mail in FED.items()))
    yield from deployed_runtime(tmp / "data", APP, feed)


def stream(yql: str, **parameters) -> dict:
    result = search(yql=yql, hits=100, timeout="10s", **parameters)
    assert "errors" not in result["root"], result["root"]["errors"]
    return result["root"]


def of_user(user: str) -> dict[str, dict]:
    return {doc_id: mail for doc_id, mail in FED.items() if mail["user"] == user}


def nearest_yql(target_hits: int = 100, also: str = "") -> str:
    return f"select * from mail where {{targetHits:{target_hits}}}nearestNeighbor(v, q){also}"


def test_its_own_system_test_passes(runtime: Runtime) -> None:
    result = vespa("test", str(APP / "tests" / "system-test"), check=False)
    assert result.returncode == 0, result.stdout + result.stderr


def test_nearest_neighbor_ranks_every_document_of_the_group_by_exact_distance(runtime: Runtime) -> None:
    q = np.array(QUERY, dtype=np.float32)
    for user in USERS:
        group = of_user(user)
        ids = list(group)
        vectors = np.array([group[i]["fields"]["v"] for i in ids], dtype=np.float32)
        distances = np.linalg.norm(vectors - q, axis=1)
        order = np.argsort(distances, kind="stable")
        root = stream(nearest_yql(), streaming__groupname=user, **{"input.query(q)": str(QUERY)})
        assert root["fields"]["totalCount"] == len(group), user
        hits = root["children"]
        assert [hit["id"] for hit in hits] == [ids[i] for i in order], user
        for hit in hits:
            d = distances[ids.index(hit["id"])]
            assert hit["relevance"] == pytest.approx(1 / (1 + d), rel=1e-5)
            assert hit["fields"]["matchfeatures"]["distance(field,v)"] == pytest.approx(d, rel=1e-5)
            assert hit["fields"]["subject"] == group[hit["id"]]["fields"]["subject"]


def test_target_hits_are_the_best_of_the_group(runtime: Runtime) -> None:
    q = np.array(QUERY, dtype=np.float32)
    group = of_user("bob")
    ids = list(group)
    distances = np.linalg.norm(np.array([group[i]["fields"]["v"] for i in ids], dtype=np.float32) - q, axis=1)
    best = [ids[i] for i in np.argsort(distances, kind="stable")[:3]]
    root = stream(nearest_yql(3), streaming__groupname="bob", **{"input.query(q)": str(QUERY)})
    assert [hit["id"] for hit in root["children"]] == best
    assert root["fields"]["totalCount"] == 3


def test_a_text_term_matches_only_the_groups_documents(runtime: Runtime) -> None:
    for user in USERS:
        for word in WORDS:
            expected = sorted((mail["fields"]["year"], doc_id) for doc_id, mail in of_user(user).items()
                              if word in mail["fields"]["subject"].lower().split())
            root = stream(f'select * from mail where subject contains "{word.upper()}"', streaming__groupname=user, ranking="by_year")
            assert root["fields"]["totalCount"] == len(expected), (user, word)
            got = [(hit["fields"]["year"], hit["id"]) for hit in root.get("children", [])]
            assert sorted(got) == expected, (user, word)
            assert [year for year, _ in got] == sorted((year for year, _ in expected), reverse=True)


def test_nearest_neighbor_with_an_attribute_filter(runtime: Runtime) -> None:
    q = np.array(QUERY, dtype=np.float32)
    group = {i: m for i, m in of_user("carol").items() if m["fields"]["year"] >= 2020}
    ids = list(group)
    distances = np.linalg.norm(np.array([group[i]["fields"]["v"] for i in ids], dtype=np.float32) - q, axis=1)
    root = stream(nearest_yql(also=" and year >= 2020"), streaming__groupname="carol", **{"input.query(q)": str(QUERY)})
    assert root["fields"]["totalCount"] == len(group)
    assert [hit["id"] for hit in root.get("children", [])] == [ids[i] for i in np.argsort(distances, kind="stable")]


def test_a_selection_selects_the_documents(runtime: Runtime) -> None:
    expected = sorted(doc_id for doc_id, mail in FED.items() if mail["user"] in ("alice", "carol") and mail["fields"]["year"] < 2018)
    root = stream("select * from mail where true", ranking="by_year",
                  streaming__selection='(id.group == "alice" or id.group == "carol") and mail.year < 2018')
    assert root["fields"]["totalCount"] == len(expected)
    assert sorted(hit["id"] for hit in root.get("children", [])) == expected


def test_a_streaming_query_without_a_group_or_selection_is_refused_as_in_vespa(runtime: Runtime) -> None:
    query = urllib.parse.urlencode({"yql": "select * from mail where true", "timeout": "10s"})
    status, body = http("GET", f"{CONTAINER}/search/?{query}")
    assert status == 400, body
    errors = body["root"]["errors"]
    assert [(e["code"], e["message"]) for e in errors] == [(3, "Streaming search requires either streaming.groupname or streaming.selection")]


def test_an_update_is_seen_by_the_next_streaming_query(runtime: Runtime) -> None:
    doc_id = "id:test:mail:g=alice:0"
    status, body = http("PUT", f"{CONTAINER}/document/v1/test/mail/group/alice/0", {"fields": {"subject": {"assign": "Quarterly zebra"}}})
    assert status == 200, body
    try:
        root = stream('select * from mail where subject contains "zebra"', streaming__groupname="alice")
        assert [hit["id"] for hit in root["children"]] == [doc_id]
        assert stream('select * from mail where subject contains "zebra"', streaming__groupname="bob")["fields"]["totalCount"] == 0
    finally:
        http("PUT", f"{CONTAINER}/document/v1/test/mail/group/alice/0", {"fields": {"subject": {"assign": FED[doc_id]["fields"]["subject"]}}})


def test_grouping_counts_the_groups_documents(runtime: Runtime) -> None:
    from collections import Counter
    expected = Counter(mail["fields"]["year"] for mail in of_user("alice").values())
    root = stream("select * from mail where true | all(group(year) each(output(count())))", streaming__groupname="alice")
    grouping = next(child for child in root["children"] if child["id"] == "group:root:0")
    groups = grouping["children"][0]["children"]
    assert {int(group["value"]): group["fields"]["count()"] for group in groups} == dict(expected)
