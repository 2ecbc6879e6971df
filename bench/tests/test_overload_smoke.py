"""Smoke test of the overload benchmark's tools against a real runtime, seconds long: a burst of
queries far beyond what the machine ranks gets 503s at once from the container's bounded search
thread pool, never timeouts or dropped connections, and the runtime is calm again after it. It
checks behaviour, not figures (those are bench/overload_bench.py's)."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np

from overload_bench import JAR, recovery_seconds, run_phases
from queries import write_query_file
from dwell_client import ROOT, Runtime, vespa, wait_for_container


def test_a_query_burst_gets_503s_not_timeouts_and_the_runtime_recovers(tmp_path: Path) -> None:
    subprocess.run(["mvn", "-B", "-q", "-f", str(ROOT / "bench" / "pom.xml"), "package"], check=True, cwd=ROOT)
    assert JAR.exists()
    corpus = tmp_path / "tiny"
    subprocess.run([sys.executable, "-m", "dwell_feed", "generate", "--preset", "tiny", "--seed", "3", "--out", str(corpus)],
                   check=True, cwd=ROOT, env={**os.environ, "PYTHONPATH": f"{ROOT / 'feed'}:{ROOT / 'learning'}"})
    runtime = Runtime(tmp_path / "data")
    runtime.start()
    try:
        assert vespa("deploy", "--wait", "300", str(ROOT / "target" / "application"), check=False).returncode == 0
        wait_for_container()
        for part in ("authors", "comments"):
            assert vespa("feed", str(corpus / f"{part}.jsonl"), check=False).returncode == 0
        queries = write_query_file(corpus, "neural_onnx", tmp_path / "q.txt", count=5000)
        # 2 s at 1,500 queries/s (far beyond a small machine), then 8 s at 5/s
        run = run_phases(queries, [(1500, 2), (5, 8)], tmp_path / "run.csv", timeout_ms=20_000)
    finally:
        runtime.stop()
    statuses = dict(zip(*np.unique(run.status, return_counts=True)))
    assert len(run.status) == 3000 + 40
    assert set(statuses) <= {200, 503}, f"every query is answered, 200 or 503: {statuses}"
    assert statuses.get(503, 0) > 0, f"no query was refused at 1,500/s: {statuses}"
    assert statuses.get(200, 0) > 0
    burst = run.between(0, 2000)
    assert burst.share(503) > 0 and burst.p(50) > 0
    # after the burst, the runtime is calm again: answers without refusals (no figure asserted)
    assert run.between(2000, 10_000).status[-20:].tolist() == [200] * 20
    assert recovery_seconds(run.between(2000, 10_000), 2000, capacity_p99=float("inf"), settle_ms=2000) < float("inf")
