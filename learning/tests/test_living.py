"""Issue 19, item 6 in a smoke version: the living world's arrivals against the process's expectation (computed here
by numerical integration of the lifecycles), new comments in the candidate sets, the replica's rows and the true
ceiling, and the living experiment's report figures against numpy on the runs' rows (tiny corpus, two seeds,
two iterations, seconds)."""
from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

import synthetic
from dwell_learning import arms, arms_report
from dwell_learning.arrivals import HOUR, arrive, fit_tau, truncated_mean, world_from
from dwell_learning.features import feature_vector
from dwell_learning.loop import LoopConfig, run
from dwell_learning.service import OfflineService
from dwell_learning.simulator import ReaderModel, Readers


def lifecycle_integral(k: float, p: float, tau: float, t0: float, t1: float, n: int = 20001) -> float:
    """The expected comments of one article in [t0, t1]: its intensity k exp(-(t - p) / tau) / tau integrated by
    the trapezoid rule (an independent computation of arrivals.expected_count)."""
    t = np.linspace(max(t0, p), max(t1, p), n)
    y = k * np.exp(-(t - p) / tau) / tau
    return float(np.sum((y[1:] + y[:-1]) / 2 * np.diff(t)))


def test_the_fitted_lifecycle_matches_the_delays_and_the_counts() -> None:
    rng = np.random.default_rng(0)
    tau, limit = 5 * HOUR, 30 * HOUR
    delays = -tau * np.log1p(-rng.random(20000) * -np.expm1(-limit / tau))   # truncated exponential draws
    assert fit_tau(delays, limit) == pytest.approx(tau, rel=0.03)
    # the truncated mean by numerical integration
    x = np.linspace(0, limit, 200001)
    density = np.exp(-x / tau)
    assert truncated_mean(tau, limit) == pytest.approx(np.trapezoid(x * density, x) / np.trapezoid(density, x), rel=1e-6)
    c = synthetic.corpus(articles=6, per_article=30, seed=1)
    world = world_from(c, 40.0, np.random.default_rng(1))
    for i, a in enumerate(world.articles):   # the expected count up to the snapshot is what the article has
        assert c.now - world.published[i] >= 24 * HOUR   # (mature: its K is not capped)
        created = [c.comments[x]["created_at"] for x in c.by_article[a]]
        assert world.published[i] <= min(created)
        assert lifecycle_integral(world.potential[i], world.published[i], world.tau[i], world.published[i], c.now) \
            == pytest.approx(len(created), rel=1e-3)


def test_arrivals_come_at_the_process_expectation() -> None:
    """Over 300 independent worlds, two hours each: the mean count of new comments is the expectation (the corpus's
    articles by integrating their lifecycles here; new articles' by simulating their births and lifecycles in numpy),
    and the corpus's articles' counts and the births are Poisson (variance = mean)."""
    c = synthetic.corpus(articles=6, per_article=30, seed=1)
    rate, hours = 40.0, 2.0
    base = world_from(c, rate, np.random.default_rng(0))
    t0, t1 = float(c.now), c.now + hours * HOUR
    own = sum(lifecycle_integral(base.potential[i], base.published[i], base.tau[i], t0, t1) for i in range(6))
    pool_k, pool_tau = base.potential[base.pool], base.tau[base.pool]
    sim = np.random.default_rng(5)
    draws = []
    for _ in range(20000):   # new articles: Poisson births at rate / mean K per hour, (K, tau) from the pool
        births = sim.uniform(t0, t1, sim.poisson(rate / pool_k.mean() * hours))
        j = sim.integers(len(pool_k), size=len(births))
        draws.append(float(np.sum(pool_k[j] * -np.expm1(-(t1 - births) / pool_tau[j]))))
    new = float(np.mean(draws))
    assert base.expected(t0, t1) == pytest.approx(own + new, rel=0.02)

    totals, corpus_counts, births = [], [], []
    for r in range(300):
        world = world_from(synthetic.corpus(articles=6, per_article=30, seed=1), rate, np.random.default_rng(100 + r))
        got = world.advance(t0 + HOUR) + world.advance(t1)
        totals.append(len(got))
        corpus_counts.append(sum(1 for _, a, _, _ in got if a in c.by_article))
        births.append(world.born)
        assert all(t0 < created <= t1 for _, _, created, _ in got)
    for values, mean in ((totals, own + new), (corpus_counts, own), (births, rate / pool_k.mean() * hours)):
        se = np.std(values, ddof=1) / math.sqrt(len(values))
        assert abs(np.mean(values) - mean) < 4 * se, (np.mean(values), mean, se)
    assert np.var(corpus_counts, ddof=1) == pytest.approx(own, rel=0.3)
    assert np.var(births, ddof=1) == pytest.approx(rate / pool_k.mean() * hours, rel=0.3)


def test_new_comments_join_the_replicas_rows_and_the_clock_moves_only_freshness() -> None:
    c = synthetic.corpus(articles=4, per_article=20, seed=2)
    service = OfflineService(c)
    for a in c.by_article:
        service.features(a)
    service.apply({c.by_article["a0"][0]: {"upvotes": 3, "reads": 2, "read_ms": 9000}})
    world = world_from(c, 300.0, np.random.default_rng(3))
    ids = arrive(c, world, world.now + 2 * HOUR)
    service.arrived(ids)
    service.now = world.now
    assert ids and c.now == int(world.now)
    for a in list(c.by_article):
        want = np.stack([feature_vector(service.signals(x), world.now) for x in c.by_article[a]])
        assert np.array_equal(service.features(a), want), a
    x = service.features(c.comments[ids[0]]["article_id"])
    row = c.by_article[c.comments[ids[0]]["article_id"]].index(ids[0])
    assert x[row, 1:8].tolist() == [0.0, 0.0, 0.0, c.authors[c.comments[ids[0]]["author_id"]]["reputation"],
                                    math.log1p(len(c.comments[ids[0]]["text"])), 0.0, 0.0]
    assert c.quality[ids[0]] in {c.quality[t] for t in world.templates}


def test_readers_taste_for_newer_comments() -> None:
    c = synthetic.corpus(articles=1, per_article=5, seed=4)
    cid = c.by_article["a0"][0]
    still = Readers(c.quality, ReaderModel(), seed=1)
    aging = Readers(c.quality, ReaderModel(recency=1.0), seed=1, comments=c.comments)
    created = c.comments[cid]["created_at"]
    aging.now = created                     # brand new: the corpus's q' (taste noise only)
    assert aging.perceived("a0", cid) == pytest.approx(still.perceived("a0", cid), rel=1e-12)
    aging.now = created + 24 * HOUR         # a day old: the logit lost 1 - exp(-1)
    logit = lambda q: math.log(q / (1 - q))
    assert logit(aging.perceived("a0", cid)) == pytest.approx(logit(still.perceived("a0", cid)) - (1 - math.exp(-1)))


def test_a_living_loop_serves_the_new_comments_and_ranks_them_in_the_ceiling(tmp_path: Path) -> None:
    c = synthetic.corpus(articles=6, per_article=30, seed=5)
    service = OfflineService(c)
    start = c.now
    config = LoopConfig(iterations=2, views=60, batch=20, candidates=20, hits=5, epochs=1, rate=0.3,
                        freshness_alone=False, export_every_ship=False, explored_value_last=1, arrivals=60.0,
                        iteration_hours=1.0, recency=1.0)
    rows = run(c, service, config, tmp_path, log=lambda _: None)
    new = [x for x in c.comments if x.startswith("n")]
    assert sum(r["living"]["arrivals"] for r in rows) == len(new) == rows[-1]["living"]["new_comments"] > 0
    assert [r["living"]["now"] for r in rows] == [start + 3600, start + 7200]   # 3 batches of 1,200 s an iteration
    assert rows[-1]["living"]["new_share_candidates"] > 0 and rows[-1]["living"]["new_share_shown"] > 0
    # the ceiling now, computed here: per viewed article its comments (new ones too) by q' at the world's clock
    readers = Readers(c.quality, ReaderModel(recency=1.0), seed=config.seed, comments=c.comments)
    readers.now = rows[-1]["living"]["now"]
    ceiling, share_new = 0.0, 0.0
    for article, p in c.popularity.items():
        ids = c.by_article[article]
        q = np.array([readers.perceived(article, x) for x in ids])
        top = [ids[i] for i in np.argsort(-q, kind="stable")[:5]]
        ceiling += p * readers.expected_dwell(article, top)
        share_new += p * np.mean([x in new for x in top])
    assert rows[-1]["true_ceiling"] == pytest.approx(ceiling, rel=1e-9)
    assert rows[-1]["living"]["new_share_ceiling"] == pytest.approx(share_new, rel=1e-9) and share_new > 0
    assert math.isclose(sum(c.popularity.values()), 1.0) and all(c.by_article[a] for a in c.popularity)


def test_the_living_experiment_on_the_tiny_corpus(tmp_path: Path) -> None:
    out, corpora = tmp_path / "living", tmp_path / "corpora"
    small = ["--", "--iterations", "2", "--views", "30", "--batch", "15", "--candidates", "10", "--hits", "5",
             "--epochs", "1"]
    assert arms.main(["living", "--seeds", "1,2", "--preset", "tiny", "--out", str(out), "--corpora", str(corpora),
                      *small]) == 0
    result = json.loads((out / "living" / "summary.json").read_text())
    lift, ceiling_lift, arrivals, expected = [], [], [], []
    for s in (1, 2):
        run_dir = arms.run_dir(out, "living", s)
        config = json.loads((run_dir / "config.json").read_text())
        assert config["arrivals"] == float(arms.ARMS["living"]["--arrivals"]) and config["recency"] == 1.0
        rows = [json.loads(x) for x in (run_dir / "iterations.jsonl").read_text().splitlines()]
        tail = rows[-arms_report.LAST:]
        mean = lambda k: np.mean([r[k] for r in tail])
        lift.append(mean("true_live") / mean("true_freshness") - 1)
        ceiling_lift.append(mean("true_ceiling") / mean("true_freshness") - 1)
        arrivals.append(sum(r["living"]["arrivals"] for r in rows))
        expected.append(sum(r["living"]["arrivals_expected"] for r in rows))
    figures = result["arms"]["living"]
    assert figures["lift_expected"]["per_seed"] == pytest.approx(lift)
    assert figures["ceiling_lift"]["per_seed"] == pytest.approx(ceiling_lift)
    half = 12.706 * np.std(lift, ddof=1) / math.sqrt(2)
    assert (figures["lift_expected"]["lo"], figures["lift_expected"]["hi"]) == pytest.approx((np.mean(lift) - half,
                                                                                             np.mean(lift) + half))
    assert figures["arrivals"]["per_seed"] == pytest.approx(arrivals)
    assert figures["arrivals_expected"]["per_seed"] == pytest.approx(expected)
    assert (out / "living" / "living.png").read_bytes()[:4] == b"\x89PNG"
