"""The experiment over seeds, in a smoke version: two seeds of the tiny corpus, two short iterations each; the
aggregate's intervals checked against numpy."""
from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from dwell_learning import seeds


def test_interval_is_the_t_interval_of_the_mean() -> None:
    values = [0.91, 0.95, 0.93, 0.97, 0.90]
    got = seeds.interval(values)
    half = 2.776 * np.std(values, ddof=1) / math.sqrt(5)
    assert got["mean"] == pytest.approx(np.mean(values)) and got["n"] == 5
    assert (got["lo"], got["hi"]) == pytest.approx((np.mean(values) - half, np.mean(values) + half))
    assert math.isnan(seeds.interval([0.5])["lo"])
    assert seeds.parse_seeds("1-3") == [1, 2, 3] and seeds.parse_seeds("2,7") == [2, 7]


def test_two_seeds_of_the_tiny_corpus(tmp_path: Path) -> None:
    out = tmp_path / "seeds"
    assert seeds.main(["--seeds", "1,2", "--preset", "tiny", "--out", str(out), "--", "--iterations", "2", "--views", "40",
                       "--batch", "20", "--candidates", "10", "--hits", "5", "--epochs", "2", "--freshness-alone", "0",
                       "--export-every-ship", "0"]) == 0
    result = json.loads((out / "summary.json").read_text())
    assert result["seeds"] == [1, 2]
    per_run = [json.loads((out / f"seed-{s}" / "summary.json").read_text()) for s in (1, 2)]
    share = result["figures"]["share of the true ceiling (expected, greedy)"]
    expected = [r["expected_share_of_ceiling"] for r in per_run]
    assert share["per_seed"] == expected and share["mean"] == pytest.approx(np.mean(expected))
    assert 0 < share["mean"] <= 1.0 + 1e-9, "nothing beats the true ceiling"
    assert sum(result["gate"].values()) == sum(sum(r["gate"].values()) for r in per_run)
    assert (out / "corpus-1" / "manifest.json").exists() and (out / "corpus-2" / "manifest.json").exists()
    assert (out / "learning_curves.png").read_bytes()[:4] == b"\x89PNG"
    assert "share of the true ceiling" in (out / "report.md").read_text()
