"""Issue 19, items 3, 7 and 4 in smoke versions: the arms really differ in what they use (no read features, a fixed
linear ranker with a read-time term, VW's linear scorer), the held-out share and the rate-0 arm log propensity 1, the
exact value of the explored part and the report's figures against independent numpy computations; and the three
experiments end to end on the tiny corpus (two seeds, seconds)."""
from __future__ import annotations

import itertools
import json
import math
from pathlib import Path

import numpy as np
import pytest

from dwell_learning import arms, arms_report
from dwell_learning.estimators import join
from dwell_learning.features import BASELINE_WEIGHTS, FEATURE_NAMES, baseline_score
from dwell_learning.loop import LoopConfig, dropped_features, explored_value, learn, readtime_ranker, run
from dwell_learning.network import LINEAR_SHIFT, baseline_mimicking_weights, forward, linear_weights
from dwell_learning.service import Corpus, OfflineService, View, sample_views
from dwell_learning.simulator import Readers, counter_updates

READS = [FEATURE_NAMES.index("reads"), FEATURE_NAMES.index("read_time")]


def corpus(n_articles: int = 4, per_article: int = 14, seed: int = 3) -> Corpus:
    rng = np.random.default_rng(seed)
    comments, quality, by_article = {}, {}, {}
    for a in range(n_articles):
        for i in range(per_article):
            cid = f"c{a}-{i}"
            comments[cid] = {"article_id": f"a{a}", "author_id": f"u{i % 5}", "created_at": 1_000_000 - int(rng.integers(0, 90_000)),
                             "text": "x" * int(rng.integers(5, 400)), "upvotes": int(rng.integers(0, 30)),
                             "downvotes": int(rng.integers(0, 10))}
            quality[cid] = float(rng.uniform(0.05, 0.95))
            by_article.setdefault(f"a{a}", []).append(cid)
    authors = {f"u{i}": {"reputation": float(rng.uniform(0, 1))} for i in range(5)}
    return Corpus(comments, authors, quality, by_article, {a: 1 / n_articles for a in by_article}, 1_000_000)


def logs(c: Corpus, service: OfflineService, readers: Readers, n: int, seed: int, rate: float = 0.3):
    rng = np.random.default_rng(seed)
    impressions = service.serve(sample_views(c, n, "freshness", rate, 0.5, 10, 5, rng))
    signals = {i["query_id"]: readers.read(i["query_id"], i["article"], [i["ids"][k] for k in i["shown"]], rng)
               for i in impressions}
    service.apply(counter_updates(signals.values()))
    return join(impressions, signals)


def test_a_linear_ranker_inside_the_network_scores_like_the_linear_score() -> None:
    rng = np.random.default_rng(0)
    x = np.abs(rng.normal(0, 5, (200, 9)))
    w, b = rng.normal(0, 1, 9), 0.7
    got = forward(linear_weights(w, b), x)
    want = x @ w.astype(np.float32).astype(np.float64) + b
    assert np.max(np.abs(got - want)) < 1e-3 and np.all(np.argsort(-got) == np.argsort(-want))
    assert abs(w @ x.max(axis=0)) < LINEAR_SHIFT / 10


def test_the_read_time_ranker_is_the_baseline_plus_its_read_time_term() -> None:
    rng = np.random.default_rng(1)
    x = np.abs(rng.normal(0, 3, (100, 9)))
    got = forward(readtime_ranker(0.1), x)
    want = baseline_score(x) + 0.1 * x[:, FEATURE_NAMES.index("read_time")]
    assert np.allclose(got, want, atol=1e-3)
    assert BASELINE_WEIGHTS[FEATURE_NAMES.index("read_time")] == 0.0, "the baseline itself gives read time no weight"
    y = x.copy()
    y[:, FEATURE_NAMES.index("read_time")] += 10.0
    assert np.allclose(forward(readtime_ranker(0.1), y) - got, 1.0, atol=1e-3)


def test_the_arm_without_read_features_never_uses_them_and_the_full_network_does() -> None:
    c = corpus()
    service = OfflineService(c)
    readers = Readers(c.quality, seed=2)
    data = logs(c, service, readers, 200, seed=4)
    assert dropped_features("reads, read_time") == READS
    config = LoopConfig(epochs=1)
    live = baseline_mimicking_weights()
    without = learn(data, live, config, 1, READS)
    full = learn(data, live, config, 1, [])
    assert np.all(without["W_0"][READS] == 0)
    x = np.concatenate(data.features)
    y = x.copy()
    y[:, READS] = np.random.default_rng(5).uniform(0, 30, (len(x), 2))
    assert np.array_equal(forward(without, x), forward(without, y)), "scores do not move with the read features"
    assert not np.allclose(forward(full, x), forward(full, y)), "the full network reads them"
    assert learn(data, live, LoopConfig(learner="fixed"), 1, []) is live
    with pytest.raises(ValueError):
        dropped_features("reads,nonsense")


def test_vw_reads_back_its_linear_scorer_and_its_probabilities_are_the_logging_policys() -> None:
    from dwell_learning.policy import step_propensities
    from dwell_learning.vw_learner import decisions, train_vw

    c = corpus()
    service = OfflineService(c)
    data = logs(c, service, Readers(c.quality, seed=2), 150, seed=6)
    got = decisions(data, min_probability=0.0)
    # independently: per examined position, (1 - rate) [greedy prefix] + rate PL(prefix), as a conditional
    want = []
    for i, order in enumerate(data.order):
        s, rate, t = np.asarray(data.scores[i]), data.rate[i], data.temperature[i]
        greedy = np.argsort(-s, kind="stable")
        steps = step_propensities(s, order, t)
        prefix = [rate * np.prod(steps[: k + 1]) + (1 - rate) * float(np.all(order[: k + 1] == greedy[: k + 1]))
                  for k in range(len(order))]
        for k in range(len(order)):
            if data.rewards[i, k] <= 0:
                break
            want.append((prefix[k] / (prefix[k - 1] if k else 1.0), -math.log(data.rewards[i, k]), len(s) - k))
    assert len(got) == len(want) and len(got) > 50
    for (x, chosen, cost, p), (wp, wc, n) in zip(got, want):
        assert p == pytest.approx(wp, rel=1e-9) and cost == pytest.approx(wc) and len(x) == n
    for cb_type in ("mtr", "dr", "ips"):
        model = train_vw(data, cb_type, seed=1)
        assert model.agreement < 1e-3 and model.examples == len(got)
        x = np.concatenate(data.features)
        assert np.allclose(forward(model.network(), x), x @ model.weights + model.bias, atol=1e-3)


def test_the_held_out_share_and_the_rate_0_arm_log_propensity_1() -> None:
    c = corpus()
    service = OfflineService(c)
    service.set_model(baseline_mimicking_weights(), 0)
    views = [View(f"q{i}", "a1", "neural", 0.0, 0.3, 10, 5, i) for i in range(30)]
    for imp in service.serve(views):
        assert imp["propensity"] == 1.0 and not imp["explored"] and imp["shown"] == list(range(5))


def test_a_loop_with_a_held_out_share(tmp_path: Path) -> None:
    c = corpus()
    config = LoopConfig(iterations=2, views=60, batch=20, candidates=10, hits=5, epochs=1, holdout=0.25, rate=0.5,
                        freshness_alone=False, export_every_ship=False, explored_value_last=1)
    rows = run(c, OfflineService(c), config, tmp_path, log=lambda _: None)
    for r in rows:
        assert 0 < r["holdout_views"] < 60 and r["learned_holdout"] is not None and r["rate"] == 0.5
    assert "true_live_pl" in rows[-1] and "true_live_pl" not in rows[0]


def test_the_explored_value_is_the_plackett_luce_expectation() -> None:
    """Against an exact enumeration of every ordered choice of 2 of 4 candidates with its PL probability."""
    c = corpus(n_articles=1, per_article=6)
    service = OfflineService(c)
    readers = Readers(c.quality, seed=9)
    w = baseline_mimicking_weights()
    article, ids = "a0", c.by_article["a0"]
    s = forward(w, service.features(article))
    top = np.argsort(-s, kind="stable")[:4]
    t = 0.5
    e = np.exp((s[top] - s[top].max()) / t)
    exact = 0.0
    for i, j in itertools.permutations(range(4), 2):
        p = e[i] / e.sum() * e[j] / (e.sum() - e[i])
        exact += p * readers.expected_dwell(article, [ids[top[i]], ids[top[j]]])
    got = explored_value(c, service, readers, w, 4, 2, t, np.random.default_rng(0), samples=20000)
    assert got == pytest.approx(exact, rel=0.01)


def test_run_figures_against_numpy() -> None:
    rng = np.random.default_rng(3)
    rows = [{"true_live": 60 + i + rng.random(), "true_ceiling": 80 + rng.random(), "true_freshness": 55.0,
             "true_oracle": 70.0, "true_linear": 58.0, "dwell_learned": 61.0 + i, "dwell_freshness": 54.0,
             "shipped": i == 2, "true_candidate": 61.0 + i, "rate": 0.2, "learned_served": 60.0, "learned_holdout": 62.0,
             "holdout_views": 10} for i in range(6)]
    for r in rows[-3:]:
        r["true_live_pl"] = 0.8 * r["true_live"]
    f = arms_report.run_figures(rows)
    tail = rows[-3:]
    assert f["share"] == pytest.approx(np.mean([r["true_live"] for r in tail]) / np.mean([r["true_ceiling"] for r in tail]))
    assert f["cost_exact"] == pytest.approx(0.2 * (0.8 - 1))
    assert f["cost_online"] == pytest.approx(60 / 62 - 1)
    assert f["mean_share_all"] == pytest.approx(np.mean([r["true_live"] / r["true_ceiling"] for r in rows]))


def test_the_three_experiments_on_the_tiny_corpus(tmp_path: Path) -> None:
    out, corpora = tmp_path / "arms", tmp_path / "corpora"
    small = ["--", "--iterations", "2", "--views", "30", "--batch", "15", "--candidates", "10", "--hits", "5",
             "--epochs", "1"]
    for experiment in ("ablation", "exploration", "vw"):
        assert arms.main([experiment, "--seeds", "1,2", "--preset", "tiny", "--out", str(out), "--corpora", str(corpora),
                          *small]) == 0
        result = json.loads((out / experiment / "summary.json").read_text())
        first = arms.EXPERIMENTS[experiment]["arms"][0]
        for arm in arms.EXPERIMENTS[experiment]["arms"]:
            per = []
            for s in (1, 2):
                rows = [json.loads(x) for x in (arms.run_dir(out, arm, s) / "iterations.jsonl").read_text().splitlines()]
                tail = rows[-arms_report.LAST:]
                per.append(np.mean([r["true_live"] for r in tail]) / np.mean([r["true_ceiling"] for r in tail]))
                config = json.loads((arms.run_dir(out, arm, s) / "config.json").read_text())
                assert config["holdout"] == 0.1 and config["seed"] == s
            assert result["arms"][arm]["share"]["per_seed"] == pytest.approx(per)
            if arm != first:
                ref = result["arms"][first]["share"]["per_seed"]
                assert result["paired"][f"{arm} - {first}"]["share"]["per_seed"] == pytest.approx(np.subtract(per, ref))
        assert (out / experiment / f"{experiment}.png").read_bytes()[:4] == b"\x89PNG"
    # what the arms use, from their configs
    config = lambda arm: json.loads((arms.run_dir(out, arm, 1) / "config.json").read_text())
    assert config("no-read-features")["drop_features"] == "reads,read_time"
    assert config("baseline+read-time")["learner"] == "fixed" and config("baseline+read-time")["init"] == "readtime"
    assert config("vw-mtr")["learner"] == "vw" and config("rate-0")["rate"] == 0.0
    # the rate-0 arm: every impression greedy, so its exact exploration cost is 0
    assert result_of(out, "exploration")["arms"]["rate-0"]["cost_exact"]["per_seed"] == [0.0, 0.0]
    assert (out / "exploration" / "sweep.png").exists()
    # the shared network arm ran once for all three experiments
    assert not (out / "runs" / "rate-0.15").exists()


def result_of(out: Path, experiment: str) -> dict:
    return json.loads((out / experiment / "summary.json").read_text())
