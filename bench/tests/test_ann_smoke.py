"""Smoke test of the ANN benchmark (bench/ann_bench.py --smoke): 1,000 embedded comments, FAISS,
hnswlib and dwell's engine, seconds long. It checks that the comparison runs and reports, and the
one property that must hold at any size: a search within one article returns that article's
nearest comments (dwell filters during the search and falls back to exact search)."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from dwell_client import ROOT


def test_ann_benchmark_smoke(tmp_path: Path) -> None:
    out = tmp_path / "ann.md"
    subprocess.run([sys.executable, str(ROOT / "bench" / "ann_bench.py"), "--smoke", "--cache", str(tmp_path / "cache"),
                    "--out", str(out)], check=True, cwd=ROOT, capture_output=True, timeout=600)
    report = json.loads(out.with_suffix(".json").read_text())
    curves = report["curves"]
    assert {"FAISS Flat", "FAISS HNSW32", "hnswlib M16", "dwell engine"} <= set(curves)
    assert all(p["recall"] == 1.0 for p in curves["FAISS Flat"]["unfiltered"]), "the truth is exact search"
    dwell = curves["dwell engine"]
    assert max(p["recall"] for p in dwell["unfiltered"]) >= 0.95
    assert min(p["recall"] for p in dwell["filtered"]) >= 0.95, "filtered recall@10 at every setting"
    assert out.with_suffix(".png").stat().st_size > 0
    assert "QPS at recall@10 = 0.95" in out.read_text()
