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


def fake_run(directory: Path, share: float, candidates: list[tuple[float, float]]) -> Path:
    """A run directory with what aggregate and paired read: summary.json's figures, iterations.jsonl's candidates."""
    directory.mkdir(parents=True)
    summary = {"expected_share_of_ceiling": share, "expected_lift_over_freshness": 0.1, "lift_over_freshness": 0.08,
               "expected_ceiling_over_freshness": 0.2, "expected_oracle_share_of_ceiling": 0.9,
               "exploration_cost_learned": -0.03,
               "gate": {"shipped_better": 1, "shipped_worse": 0, "kept_better": 2, "kept_worse": 1}}
    (directory / "summary.json").write_text(json.dumps(summary))
    (directory / "iterations.jsonl").write_text("".join(json.dumps(
        {"true_candidate": c, "true_ceiling": t, "true_live": c, "true_oracle": c, "true_freshness": c}) + "\n"
        for c, t in candidates))
    return directory


def test_paired_differences_and_the_candidates_share_against_numpy(tmp_path: Path) -> None:
    new = {s: fake_run(tmp_path / "new" / f"seed-{s}", v, [(70.0, 80.0), (72.0, 80.0), (74.0, 80.0 + s), (76.0, 80.0)])
           for s, v in ((1, 0.93), (2, 0.91), (3, 0.95))}
    old = {s: fake_run(tmp_path / "old" / f"seed-{s}", v, [(60.0, 80.0), (70.0, 80.0), (71.0, 80.0), (72.0, 80.0)])
           for s, v in ((1, 0.92), (2, 0.92), (3, 0.90), (4, 0.5))}
    want_new = [np.mean([72 / 80, 74 / (80 + s), 76 / 80]) for s in (1, 2, 3)]
    assert [seeds.candidate_share(new[s]) for s in (1, 2, 3)] == pytest.approx(want_new, rel=1e-12)
    got = seeds.paired(new, old)
    assert got["seeds"] == [1, 2, 3], "only the seeds both have"
    diffs = np.array([0.93 - 0.92, 0.91 - 0.92, 0.95 - 0.90])
    share = got["figures"]["share of the true ceiling (expected, greedy)"]
    half = 4.303 * diffs.std(ddof=1) / math.sqrt(3)
    assert share["per_seed"] == pytest.approx(diffs) and (share["lo"], share["hi"]) == pytest.approx(
        (diffs.mean() - half, diffs.mean() + half))
    cand = got["figures"][seeds.CANDIDATES]["per_seed"]
    assert cand == pytest.approx(np.array(want_new) - np.mean([70 / 80, 71 / 80, 72 / 80]))
    result = seeds.aggregate(new, tmp_path / "new", against=tmp_path / "old")
    assert result["figures"][seeds.CANDIDATES]["per_seed"] == pytest.approx(want_new)
    assert "Paired by seed against" in (tmp_path / "new" / "report.md").read_text()
    assert (tmp_path / "new" / "learning_curves.png").read_bytes()[:4] == b"\x89PNG"
