"""Restarts end to end (issue 16): a runtime fed with the tiny corpus answers the same queries
bit-identically (hits, order, relevance, totalCount) after a clean restart and after kill -9, for every
rank profile, a text query and nearestNeighbor; and a feed killed with kill -9 in its middle loses no
acknowledged write and half-applies none. Today's runtime rebuilds its index from the stored documents
on start; with the persisted index it loads the flushed index and replays the log's tail: both must
pass."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from dwell_client import ROOT, Runtime, deployed_runtime, search

sys.path.insert(0, str(ROOT / "bench"))
from restart_bench import EVERY_AUTHOR, EVERY_COMMENT, KillFeed, check_writes, document_state, fed_counts, wait_for_coverage  # noqa: E402

APPLICATION = ROOT / "target" / "application"
PROFILES = ("freshness", "neural", "neural_onnx")
SIMILAR_TEXT = "The referee ignored a clear penalty in the last minute of the match."


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("restart-corpus") / "tiny"
    subprocess.run([sys.executable, "-m", "dwell_feed", "generate", "--preset", "tiny", "--seed", "1", "--out", str(out)],
                   check=True, cwd=ROOT, capture_output=True,
                   env={**os.environ, "PYTHONPATH": f"{ROOT / 'feed'}:{ROOT / 'learning'}"})
    return out


def lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


@pytest.fixture(scope="module")
def runtime(tmp_path_factory: pytest.TempPathFactory, corpus: Path):
    if not (ROOT / "runtime" / "target" / "classpath.txt").exists() or not APPLICATION.exists():
        pytest.fail("build first: ./dwell build")
    data = tmp_path_factory.mktemp("restart") / "data"
    feed = data.parent / "everything.jsonl"   # authors and the ranking model before the comments
    feed.write_text("".join((corpus / f"{part}.jsonl").read_text() for part in ("authors", "rankingmodel", "comments")))
    yield from deployed_runtime(data, APPLICATION, feed=feed)


@pytest.fixture(scope="module")
def counts(runtime: Runtime, corpus: Path) -> dict[str, tuple[int, int]]:
    """The totalCounts of full coverage, once every fed document is searchable (authors counted per content node)."""
    return fed_counts(len(lines(corpus / "comments.jsonl")), len(lines(corpus / "authors.jsonl")), 120)


def biggest_articles(corpus: Path, count: int) -> list[str]:
    sizes: dict[str, int] = {}
    for doc in lines(corpus / "comments.jsonl"):
        sizes[doc["fields"]["article_id"]] = sizes.get(doc["fields"]["article_id"], 0) + 1
    return sorted(sizes, key=lambda a: (-sizes[a], a))[:count]


def queries(corpus: Path) -> dict[str, dict]:
    """Article views with each profile, a text query and nearestNeighbor (similar= and yql), named."""
    now = json.loads((corpus / "manifest.json").read_text())["now"]
    comment = lines(corpus / "comments.jsonl")[0]["put"].split("::")[1]
    fixed = {"ranking.properties.vespa.now": now, "exploration.rate": 0, "hits": 20}
    named: dict[str, dict] = {}
    for article in biggest_articles(corpus, 3):
        for profile in PROFILES:
            named[f"{article} {profile}"] = {"article": article, "ranking": profile, **fixed}
    named["text"] = {"yql": 'select * from comment where text contains "movie"', "ranking": "text", **fixed}
    named["similar to a comment"] = {"similar": comment, **fixed}
    named["similar to a text"] = {"similar.text": SIMILAR_TEXT, **fixed}
    named["similar within an article, HNSW forced"] = {"similar.text": SIMILAR_TEXT, "article": biggest_articles(corpus, 1)[0],
                                                       "ranking.matching.approximateThreshold": 0, **fixed}
    named["yql nearestNeighbor"] = {"yql": "select * from comment where {targetHits:20}nearestNeighbor(embedding, q)",
                                    "input.query(q)": f'embed(minilm, "{SIMILAR_TEXT}")', "ranking": "similar", **fixed}
    return named


def answers(named: dict[str, dict]) -> dict[str, dict]:
    """Each query's totalCount and hits (document id and relevance, in order), exactly as the container gave them."""
    got = {}
    for name, parameters in named.items():
        root = search(**{k.replace(".", "__"): v for k, v in parameters.items()})["root"]
        assert "errors" not in root, (name, root.get("errors"))
        got[name] = {"totalCount": root["fields"]["totalCount"],
                     "hits": [(hit["id"], hit["relevance"]) for hit in root.get("children", [])]}
        assert got[name]["hits"], (name, root)
    return got


def restart(runtime: Runtime, counts: dict[str, tuple[int, int]], kill: bool) -> float:
    """Stops the runtime (cleanly, or with kill -9) and starts it again; returns the seconds to full coverage."""
    if kill:
        runtime.kill9()
    else:
        runtime.stop()
    started = time.perf_counter()
    runtime.start()
    return wait_for_coverage(counts, started, 600)["full_coverage_s"]


def extracted_libraries(directory: Path) -> list[str]:
    """What the JVM's native libraries extracted to a temporary directory: ONNX Runtime's, lz4-java's, the tokenizers'."""
    return sorted(p.name for p in directory.iterdir() if p.name.startswith(("onnxruntime-java", "liblz4-java", "hf-tokenizer")))


@pytest.mark.parametrize("kill", [False, True], ids=["clean stop", "kill -9"])
def test_a_restart_answers_bit_identically(runtime: Runtime, corpus: Path, counts: dict, kill: bool) -> None:
    named = queries(corpus)
    before = answers(named)
    extracted_before = extracted_libraries(runtime.data / "tmp")
    assert any(name.startswith("onnxruntime-java") for name in extracted_before), extracted_before
    restart(runtime, counts, kill)
    after = answers(named)
    for name in named:
        assert after[name] == before[name], name
    # the runtime's temporary directory is its own and emptied at each start: what the last run extracted is gone
    extracted_after = extracted_libraries(runtime.data / "tmp")
    assert extracted_after and not set(extracted_after) & set(extracted_before), (extracted_before, extracted_after)
    if not kill and os.environ.get("DWELL_CDS") != "off":
        # after a clean stop there is a class data archive (this runtime's JVM wrote it at its exit, or an earlier one's
        # did), and the JVM started after it maps it: the JVM left it out if the jar or the class path differ from it
        archive = ROOT / "runtime" / "target" / "dwell-runtime.jsa"
        assert archive.exists(), "no class data archive after a clean stop (is runtime/target's jar older than its classes?)"
        assert str(archive) in Path(f"/proc/{runtime.pid()}/maps").read_text(), "the JVM did not map the class data archive"


def test_kill_9_in_the_middle_of_a_feed_loses_no_acknowledged_write(runtime: Runtime, corpus: Path, counts: dict) -> None:
    comments = [doc["put"].split("::")[1] for doc in lines(corpus / "comments.jsonl")]
    threads, per = 3, 10
    update_targets = [comments[t * per:(t + 1) * per] for t in range(threads)]
    remove_targets = [comments[(threads + t) * per:(threads + t + 1) * per] for t in range(threads)]
    before = {doc: document_state(doc) for docs in update_targets + remove_targets for doc in docs}
    feed = KillFeed(threads, update_targets, remove_targets)
    feed.start()
    time.sleep(4)
    runtime.kill9()
    feed.join()
    assert feed.acknowledged() > 20, "the feed wrote too little before the kill to test anything"
    put_acked, put_open = feed.puts()
    removed_acked, removed_open = feed.removes()
    total = len(comments)
    expected = {EVERY_COMMENT: (total + put_acked - removed_acked - removed_open, total + put_acked + put_open - removed_acked),
                EVERY_AUTHOR: counts[EVERY_AUTHOR]}
    started = time.perf_counter()
    runtime.start()
    wait_for_coverage(expected, started, 600)
    checked = check_writes(feed, before)
    assert checked["lost"] == [], checked["lost"][:5]
    assert checked["half_applied"] == [], checked["half_applied"][:5]
    assert checked["checked"] == len(feed.history)
    # the index agrees with the document store: every acknowledged put of the killed feed is searchable
    killed = search(yql='select * from comment where article_id contains "kill"', hits=0)["root"]["fields"]["totalCount"]
    assert put_acked <= killed <= put_acked + put_open
