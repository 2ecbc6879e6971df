"""The whole serving benchmark in its seconds-long version (--smoke, tiny corpus), so that
./dwell bench keeps working: it must write every report and plot, with a row for each thing it
measures. It checks the tools, not the figures."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from dwell_client import ROOT, wait_for_free_ports


def test_dwell_bench_smoke_writes_every_report(tmp_path: Path) -> None:
    wait_for_free_ports()
    subprocess.run(["mvn", "-B", "-q", "-f", str(ROOT / "bench" / "pom.xml"), "package"], check=True, cwd=ROOT)
    out = tmp_path / "results"
    scratch = tmp_path / "tmp"  # the benchmark's work directory goes here (TMPDIR), and must be gone at the end
    scratch.mkdir()
    done = subprocess.run([sys.executable, str(ROOT / "bench" / "runtime_bench.py"), "--preset", "tiny", "--smoke", "--onnx-threads",
                           "--no-build", "--out", str(out)], capture_output=True, text=True, timeout=1200, cwd=ROOT,
                          env={**os.environ, "PYTHONPATH": f"{ROOT / 'feed'}:{ROOT / 'learning'}", "TMPDIR": str(scratch)})
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert list(scratch.glob("dwell-bench-*")) == [], "the work directory (corpus, runtime data) was left behind"
    runtime = (out / "runtime.md").read_text()
    for row in ("| floor (remove of a missing document) |", "| put (comments, max) |", "| update (upvotes += 1, max) |",
                "| put @ half max |", "| update @ half max |", "| floor (/status.html) | 20 |", "| freshness | 40 |",
                "| neural | 20 |", "| neural_onnx | 40 |"):
        assert row in runtime, row
    idle = runtime[runtime.index("## One view at a time"):runtime.index("## Queries")]
    assert all(f"\n| {path} | " in idle for path in ("floor (/status.html)", "freshness", "neural", "neural_onnx")), idle
    phases = (out / "phases.md").read_text()
    assert all(f"## {profile} (" in phases for profile in ("freshness", "neural", "neural_onnx")), phases
    threads = (out / "onnx_threads.md").read_text()
    assert "\n| 1 | " in threads and "\n| 4 | " in threads, threads
    assert (out / "runtime.png").stat().st_size > 0 and (out / "onnx_threads.png").stat().st_size > 0
