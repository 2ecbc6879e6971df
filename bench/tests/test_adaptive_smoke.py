"""The threads-per-search benchmark in its seconds-long version (--smoke, tiny corpus, one content node),
so that ./dwell bench --adaptive keeps working. It checks the tool, and that the runtime answers every
query the same under each policy (the benchmark refuses to measure otherwise), not the figures."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from dwell_client import ROOT, wait_for_free_ports


def test_adaptive_bench_smoke_writes_its_report(tmp_path: Path) -> None:
    wait_for_free_ports()
    subprocess.run(["mvn", "-B", "-q", "-f", str(ROOT / "bench" / "pom.xml"), "package"], check=True, cwd=ROOT)
    out = tmp_path / "results"
    scratch = tmp_path / "tmp"  # the benchmark's work directory goes here (TMPDIR), and must be gone at the end
    scratch.mkdir()
    # --no-lock: the test suite runs under the runtime lock when it is shared (./dwell test under flock)
    done = subprocess.run([sys.executable, str(ROOT / "bench" / "adaptive_bench.py"), "--preset", "tiny", "--smoke", "--no-build",
                           "--no-lock", "--out", str(out)], capture_output=True, text=True, timeout=900, cwd=ROOT,
                          env={**os.environ, "PYTHONPATH": f"{ROOT / 'feed'}:{ROOT / 'learning'}", "TMPDIR": str(scratch)})
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert list(scratch.glob("dwell-adaptive-*")) == [], "the work directory (corpus, runtime data) was left behind"
    assert "same hits under every policy for 9 queries" in done.stdout, done.stdout[-3000:]
    report = (out / "adaptive.md").read_text()
    cores = os.cpu_count() or 1
    for row in ("| 5 | floor (/status.html) |", "| 5 | static-1 |", f"| 5 | static-{cores} |", "| 5 | adaptive |",
                "| 20 | static-1 |", "| 20 | adaptive |", "| adaptive | "):
        assert row in report, row
    # the content node's trace: an idle query gets one thread under static-1 and every core under the others
    assert "| static-1 | always 1 | 1 thread |" in report, report
    if cores > 1:
        assert f"| adaptive | max(1, {cores} cores / searches in flight on the node) | {cores} threads |" in report, report
    assert (out / "adaptive.png").stat().st_size > 0
