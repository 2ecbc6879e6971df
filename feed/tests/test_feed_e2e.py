"""The corpus and the live stream against dwell's runtime: started and deployed with the real
vespa CLI as tests/e2e does, fed with `vespa feed`, checked over /document/v1 and /search/."""
from __future__ import annotations

import json
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from dwell_client import CONFIG_SERVER, CONTAINER, ROOT, Runtime, deployed_runtime, http, search, vespa, wait_for_container  # noqa: F401

from dwell_feed.feed import feed_corpus
from dwell_feed.generate import PRESETS, generate, write_corpus
from dwell_feed.live import check, run_live
from faulty_proxy import FaultyProxy

APPLICATION = ROOT / "target" / "application"


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("tiny")
    write_corpus(generate(PRESETS["tiny"], seed=1), directory)
    return directory


@pytest.fixture(scope="module")
def runtime(tmp_path_factory: pytest.TempPathFactory):
    if not (ROOT / "runtime" / "target" / "classpath.txt").exists() or not APPLICATION.exists():
        pytest.fail("build first: ./dwell build")
    yield from deployed_runtime(tmp_path_factory.mktemp("dwell-data"), APPLICATION)


@pytest.fixture(scope="module")
def fed(runtime: Runtime, tiny: Path):
    return feed_corpus(tiny, "local", progress=False)


def lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.open()]


def test_every_tiny_document_is_accepted(runtime: Runtime, tiny: Path, fed) -> None:
    assert [(r.name, r.ok, r.errors) for r in fed] == [("authors", 300, 0), ("comments", 1000, 0),
                                                      ("rankingmodel", 1, 0)], runtime.log()
    result = search(yql="select * from comment where true", hits=0)
    assert result["root"]["fields"]["totalCount"] == 1000
    # (A query for global author documents counts each once per content node, so read them.)
    for op in lines(tiny / "authors.jsonl")[:: 29]:
        status, body = http("GET", f"{CONTAINER}/document/v1/dwell/author/docid/{op['put'].split('::')[1]}")
        assert status == 200 and body["fields"]["comment_count"] == op["fields"]["comment_count"]
    shift = json.loads((tiny / "fed.json").read_text())["time_shift"]
    for op in lines(tiny / "comments.jsonl")[:: 97]:
        status, body = http("GET", f"{CONTAINER}/document/v1/dwell/comment/docid/{op['put'].split('::')[1]}")
        assert status == 200
        for name, value in op["fields"].items():
            assert body["fields"].get(name, "") == (value + shift if name == "created_at" else value), name
        assert body["fields"]["text_length"] == len(op["fields"]["text"])
    status, body = http("GET", f"{CONTAINER}/document/v1/dwell/rankingmodel/docid/neural")
    assert status == 200 and body["fields"]["version"] == 1


def test_the_most_commented_article_is_ranked(runtime: Runtime, tiny: Path, fed) -> None:
    top = json.loads((tiny / "manifest.json").read_text())["top_articles"][0]
    deadline = time.time() + 5   # RankingModelSearcher re-reads the fed model every 250 ms
    while True:
        result = search(article=top["article_id"], hits=5)
        if result["root"]["fields"]["model_version"] == 1 or time.time() > deadline:
            break
        time.sleep(0.25)
    assert result["root"]["fields"]["totalCount"] == top["comments"]
    assert result["root"]["fields"]["model_version"] == 1
    assert len(result["root"]["children"]) == 5


def test_live_totals_equal_the_counters(runtime: Runtime, tiny: Path, fed, tmp_path: Path) -> None:
    record = tmp_path / "ops.jsonl"
    result = run_live(tiny, record, CONTAINER, rate=100, seconds=6, seed=1)
    assert result["operations"] == 600
    assert not [k for k in result["outcomes"] if not k.endswith(" ok")], result
    assert check(record, CONTAINER) == []
    ops = lines(record)
    assert sum(1 for o in ops if o["op"] == "vote" and o["status"] == "ok") > 300
    assert any(o["op"] == "reply" for o in ops) and any(o["op"] == "reputation" for o in ops)


def test_live_is_exact_when_writes_are_refused_or_their_replies_lost(runtime: Runtime, tiny: Path, fed,
                                                                     tmp_path: Path) -> None:
    record = tmp_path / "ops.jsonl"
    with FaultyProxy(8080, reject=0.1, lose_reply=0.15) as proxy:
        result = run_live(tiny, record, f"http://localhost:{proxy.port}", rate=60, seconds=6, seed=2)
    assert proxy.counts["rejected"] > 20 and proxy.counts["reply_lost"] > 20, proxy.counts
    assert not [k for k in result["outcomes"] if not k.endswith(" ok")], result
    ops = lines(record)
    # Retried increments whose first try was applied: counted once, not twice.
    assert any("applied-earlier" in o.get("attempts", []) for o in ops)
    assert check(record, CONTAINER) == []
