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


def test_gate_by_interval_counts_each_constructions_decisions() -> None:
    rows = [
        {"iteration": 0, "true_candidate": 60.0, "true_live": 60.0},                       # no candidate judged
        {"gain_intervals": {"normal": [0.5, 2.0], "betting": [-1.0, 3.0]}, "true_candidate": 61.0, "true_live": 60.0,
         "true_candidate_mixture": 58.0, "true_live_mixture": 59.0},
        {"gain_intervals": {"normal": [0.1, 1.0], "betting": [-2.0, 2.0]}, "true_candidate": 59.0, "true_live": 60.0},
        {"gain_intervals": {"normal": [-1.0, 1.0], "betting": [0.2, 2.0]}, "true_candidate": 63.0, "true_live": 61.0},
    ]
    got = seeds.gate_by_interval(rows)
    assert got["greedy"]["candidates"] == 3
    assert got["greedy"]["by_interval"]["normal"] == {"shipped_better": 1, "shipped_worse": 1, "kept_better": 1,
                                                      "kept_worse": 0}
    assert got["greedy"]["by_interval"]["betting"] == {"shipped_better": 1, "shipped_worse": 0, "kept_better": 1,
                                                       "kept_worse": 1}
    assert got["greedy >= 1 s"]["candidates"] == 3
    assert seeds.gate_by_interval(rows, margin=1.5)["greedy >= 1.5 s"]["by_interval"]["normal"] == {
        "shipped_better": 0, "shipped_worse": 0, "kept_better": 1, "kept_worse": 0}
    assert "normal + support 0.9" not in got["greedy"]["by_interval"]      # rows without a support share
    for r, share in zip(rows[1:], (0.95, 0.5, 0.9)):
        r["candidate_support"] = share
    with_support = seeds.gate_by_interval(rows)["greedy"]["by_interval"]
    assert with_support["normal"] == got["greedy"]["by_interval"]["normal"]
    assert with_support["normal + support 0.9"] == {"shipped_better": 1, "shipped_worse": 0, "kept_better": 1,
                                                    "kept_worse": 1}
    assert with_support["betting + support 0.9"] == {"shipped_better": 1, "shipped_worse": 0, "kept_better": 1,
                                                     "kept_worse": 1}
    assert got["mixture"]["candidates"] == 1
    assert got["mixture"]["by_interval"]["normal"] == {"shipped_better": 0, "shipped_worse": 1, "kept_better": 0,
                                                       "kept_worse": 0}
