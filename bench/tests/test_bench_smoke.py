"""Smoke test of the benchmark tools, seconds long, so they keep working: the query-file
generator and the load generator in both modes against a real runtime. It checks that the tools
work and report what they should, not what the figures are."""
from __future__ import annotations

import collections
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from dwell_client import ROOT, Runtime, vespa, wait_for_container

from queries import article_popularity, write_query_file

JAR = ROOT / "bench" / "target" / "dwell-bench-1.0.0.jar"


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("corpus") / "tiny"
    subprocess.run([sys.executable, "-m", "dwell_feed", "generate", "--preset", "tiny", "--seed", "2", "--out", str(out)],
                   check=True, cwd=ROOT, env={**os.environ, "PYTHONPATH": f"{ROOT / 'feed'}:{ROOT / 'learning'}"})
    return out


def test_query_files_draw_articles_by_popularity(corpus: Path, tmp_path: Path) -> None:
    path = write_query_file(corpus, "neural", tmp_path / "q.txt", count=3000)
    lines = path.read_text().splitlines()
    assert len(lines) == 3000 and all(line.startswith("/search/?article=") and "ranking=neural" in line for line in lines)
    drawn = collections.Counter(line.split("article=")[1].split("&")[0] for line in lines)
    popularity = article_popularity(corpus)
    top = popularity.most_common(1)[0][0]
    assert drawn.most_common(1)[0][0] == top, "the most commented article is viewed most"
    assert set(drawn) <= set(popularity)


def test_query_files_carry_the_extra_parameters(corpus: Path, tmp_path: Path) -> None:
    plain = write_query_file(corpus, "neural", tmp_path / "plain.txt", count=50).read_text().splitlines()
    extra = write_query_file(corpus, "neural", tmp_path / "extra.txt", count=50, params="ranking.matchPhase.maxHits=100&trace.level=1")
    assert extra.read_text().splitlines() == [line + "&ranking.matchPhase.maxHits=100&trace.level=1" for line in plain]


def load(*args: str) -> dict:
    result = subprocess.run(["java", "-cp", str(JAR), "ai.dwell.bench.LoadGenerator", *args, "localhost", "8080"],
                            capture_output=True, text=True, check=True, timeout=120)
    assert "Benchmark Summary" in result.stdout and "99.0 percentile" in result.stdout, result.stdout
    return json.loads(result.stdout.strip().splitlines()[-1])


def feed_benchmark(*args: str) -> dict:
    classpath = f"{JAR}:{(JAR.parent / 'classpath.txt').read_text().strip()}"
    result = subprocess.run(["java", "-cp", classpath, "ai.dwell.bench.FeedBenchmark", *args, "http://localhost:8080/"],
                            capture_output=True, text=True, check=True, timeout=120)
    return json.loads(result.stdout.strip().splitlines()[-1])


def test_the_load_generator_measures_a_runtime(corpus: Path, tmp_path: Path) -> None:
    subprocess.run(["mvn", "-B", "-q", "-f", str(ROOT / "bench" / "pom.xml"), "package"], check=True, cwd=ROOT)
    runtime = Runtime(tmp_path / "data")
    runtime.start()
    try:
        assert vespa("deploy", "--wait", "300", str(ROOT / "target" / "application"), check=False).returncode == 0
        wait_for_container()
        assert vespa("feed", str(corpus / "authors.jsonl"), check=False).returncode == 0
        assert vespa("feed", str(corpus / "comments.jsonl"), check=False).returncode == 0
        queries = write_query_file(corpus, "freshness", tmp_path / "q.txt", count=200)
        floor = tmp_path / "floor.txt"
        floor.write_text("/status.html\n")

        open_loop = load("-s", "3", "-q", str(queries), "--rate", "20", "--slo", "10,50")
        assert open_loop["failed"] == 0 and open_loop["ok"] >= 50, open_loop
        assert 0 < open_loop["p50"] <= open_loop["p95"] <= open_loop["p99"], open_loop
        assert 0 <= open_loop["miss_10ms"] <= 1 and 0 <= open_loop["miss_50ms"] <= open_loop["miss_10ms"], open_loop

        closed_loop = load("-n", "2", "-c", "0", "-s", "2", "-q", str(floor))
        assert closed_loop["failed"] == 0 and closed_loop["ok"] > 10, closed_loop

        puts = feed_benchmark("--mode", "put", "--corpus", str(corpus / "comments.jsonl"), "--prefix", "s", "--count", "300")
        assert puts["ok"] == 300 and puts["failed"] == 0 and 0 < puts["p50"] <= puts["p99"], puts
        updates = feed_benchmark("--mode", "update", "--prefix", "s", "--targets", "300", "--count", "600")
        assert updates["ok"] == 600 and updates["failed"] == 0, updates
        floor_writes = feed_benchmark("--mode", "remove-missing", "--prefix", "s", "--count", "200")
        assert floor_writes["ok"] == 200 and floor_writes["failed"] == 0, floor_writes
        open_puts = feed_benchmark("--mode", "put", "--corpus", str(corpus / "comments.jsonl"), "--prefix", "o", "--rate", "50", "--seconds", "2")
        assert open_puts["ok"] == 100 and open_puts["offered"] == 50, open_puts
        # the updates were applied, each once: the last comment put has 2 more upvotes than its corpus line
        document = vespa("document", "get", "id:dwell:comment::s-299", check=False)
        fed = json.loads((corpus / "comments.jsonl").read_text().splitlines()[299])["fields"]
        assert json.loads(document.stdout)["fields"]["upvotes"] == fed["upvotes"] + 2, document.stdout
    finally:
        runtime.stop()
