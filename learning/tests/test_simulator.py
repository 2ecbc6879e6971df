"""The reader simulator: its ground truth shows through in what readers do."""
from __future__ import annotations

import numpy as np
import pytest

from dwell_learning.simulator import ReaderModel, Readers, counter_updates, position_rewards

QUALITY = {f"c{i}": q for i, q in enumerate(np.linspace(0.05, 0.95, 10))}
BEST_FIRST = sorted(QUALITY, key=lambda c: -QUALITY[c])


def readers(**model) -> Readers:
    return Readers(QUALITY, ReaderModel(**model), seed=1)


def mean_dwell(r: Readers, shown: list[str], n: int = 4000, seed: int = 0) -> float:
    rng = np.random.default_rng(seed)
    return float(np.mean([r.read(f"q{i}", "a1", shown, rng)["dwell"] for i in range(n)]))


def test_good_comments_first_means_more_dwell_and_expectation_is_exact() -> None:
    r = readers()
    best, worst = BEST_FIRST, BEST_FIRST[::-1]
    assert mean_dwell(r, best) > 1.5 * mean_dwell(r, worst)
    for order in (best, worst):
        assert mean_dwell(r, order, n=20_000) == pytest.approx(r.expected_dwell("a1", order), rel=0.03)


def test_reads_are_a_cascade_with_position_bias() -> None:
    r = readers()
    rng = np.random.default_rng(2)
    reads_at = np.zeros(10)
    for i in range(3000):
        s = r.read(f"q{i}", "a1", BEST_FIRST, rng)
        positions = [x["position"] for x in s["reads"]]
        assert positions == list(range(len(positions)))  # top to bottom, no gaps
        assert s["dwell"] == pytest.approx(sum(x["seconds"] for x in s["reads"]), abs=1e-3)
        reads_at[: len(positions)] += 1
    assert np.all(np.diff(reads_at) <= 0) and reads_at[0] > 3 * reads_at[5]
    assert reads_at[0] / 3000 == pytest.approx(0.85, abs=0.03)  # the share of readers who open


def test_taste_is_fixed_per_article_and_differs_between_articles() -> None:
    r = readers(taste_sd=1.0)
    assert r.perceived("a1", "c3") == r.perceived("a1", "c3")
    assert readers(taste_sd=1.0).perceived("a1", "c3") == r.perceived("a1", "c3")  # seeded
    assert r.perceived("a1", "c3") != r.perceived("a2", "c3")
    assert readers(taste_sd=0.0).perceived("a1", "c3") == pytest.approx(QUALITY["c3"])


def test_fatigue_lowers_later_reads() -> None:
    same = {f"c{i}": 0.7 for i in range(10)}
    r = Readers(same, ReaderModel(read_noise_sd=0.0, taste_sd=0.0, engagement_sd=0.0), seed=0)
    s = r.read("q", "a", list(same), np.random.default_rng(0))
    seconds = [x["seconds"] for x in s["reads"]]
    assert len(seconds) >= 2 and all(a > b for a, b in zip(seconds, seconds[1:]))


def test_votes_follow_quality_and_become_counter_updates() -> None:
    r = readers(vote_prob=1.0)
    rng = np.random.default_rng(4)
    signals = [r.read(f"q{i}", "a1", ["c9", "c0"], rng) for i in range(2000)]
    updates = counter_updates(signals)
    good, bad = updates["c9"], updates.get("c0", {})
    assert good["upvotes"] / (good["upvotes"] + good["downvotes"]) > 0.75
    assert bad.get("downvotes", 0) > bad.get("upvotes", 0)
    assert good.get("reply_count", 0) > bad.get("reply_count", 0)
    assert position_rewards(signals[0], 2)[0] == signals[0]["reads"][0]["seconds"] if signals[0]["reads"] else True


def test_every_read_becomes_reads_and_read_ms_increments() -> None:
    r = readers()
    rng = np.random.default_rng(5)
    signals = [r.read(f"q{i}", "a1", ["c9", "c0"], rng) for i in range(300)]
    updates = counter_updates(signals)
    for cid in ("c9", "c0"):
        reads = [x for s in signals for x in s["reads"] if x["id"] == cid]
        assert updates[cid]["reads"] == len(reads) > 0
        assert updates[cid]["read_ms"] == sum(int(round(1000 * x["seconds"])) for x in reads)
    # the better comment is read for longer per read: what feature read_time picks up
    per_read = {c: updates[c]["read_ms"] / updates[c]["reads"] for c in ("c9", "c0")}
    assert per_read["c9"] > per_read["c0"]


def test_the_order_by_perceived_quality_is_the_true_ceiling() -> None:
    """Read time and continuation both rise in q', so showing the comments with the highest q' in that order
    gives the most expected dwell of any choice and order (the loop's "ceiling"); the hidden quality q's order
    (the "oracle") does not always. Every ordered choice of 4 of 7 comments, over 200 draws."""
    from itertools import permutations

    rng = np.random.default_rng(0)
    oracle_short = 0
    for draw in range(200):
        quality = {f"c{i}": float(rng.uniform(0.01, 0.99)) for i in range(7)}
        r = Readers(quality, ReaderModel(), seed=draw)
        best = max(r.expected_dwell("a", list(p)) for p in permutations(quality, 4))
        ceiling = sorted(quality, key=lambda c: -r.perceived("a", c))[:4]
        oracle = sorted(quality, key=lambda c: -quality[c])[:4]
        assert r.expected_dwell("a", ceiling) == pytest.approx(best, rel=1e-12)
        oracle_short += r.expected_dwell("a", oracle) < best * (1 - 1e-9)
    assert oracle_short > 50, "the q oracle is below the ceiling in many draws"


def test_expected_perceived_quality_is_the_mean_over_the_taste() -> None:
    """E[q' | q] over the taste z ~ N(0, 1), against a Monte Carlo mean of sigmoid(logit q + sd z) (10^6 draws):
    above q below 1/2 and below it above (the logistic bends towards 1/2), and q itself with no taste."""
    r = readers()
    z = np.random.default_rng(7).normal(size=1_000_000)
    for c, q in QUALITY.items():
        mc = float(np.mean(1 / (1 + np.exp(-(np.log(q / (1 - q)) + 0.5 * z)))))
        assert r.expected_perceived("a1", c) == pytest.approx(mc, abs=2e-4)
        assert (r.expected_perceived("a1", c) - q) * (0.5 - q) > 0
    assert readers(taste_sd=0.0).expected_perceived("a1", "c3") == pytest.approx(QUALITY["c3"], rel=1e-12)


def test_the_read_informed_bound_knows_the_taste_of_read_comments_only() -> None:
    """true_value(..., "informed"): with every comment read it is the true ceiling; with none read it ranks by
    E[q' | q], the q oracle's order; in between, never above the ceiling."""
    from synthetic import corpus
    from dwell_learning.loop import true_value
    from dwell_learning.service import OfflineService

    c = corpus()
    service = OfflineService(c)
    r = Readers(c.quality, seed=3)
    assert true_value(c, service, r, "informed", 5) == pytest.approx(true_value(c, service, r, "oracle", 5), rel=1e-12)
    half = {i: {"reads": 1, "read_ms": 3000} for k, i in enumerate(c.comments) if k % 2 == 0}
    service.apply(half)
    partly = true_value(c, service, r, "informed", 5)
    assert partly <= true_value(c, service, r, "ceiling", 5) + 1e-9
    service.apply({i: {"reads": 1, "read_ms": 3000} for k, i in enumerate(c.comments) if k % 2 == 1})
    assert true_value(c, service, r, "informed", 5) == pytest.approx(true_value(c, service, r, "ceiling", 5), rel=1e-12)


def bayes_by_sampling(r: Readers, article: str, comment: str, reads: list[dict]) -> float:
    """E[q' | q, reads] from 400,000 tastes drawn from N(0, 1), each weighted by the likelihood of the reads written
    out from the reader model: lognormal seconds around engagement * (base + gain q'^2) * fatigue^position, an
    upvote or downvote, a reply and a report each Bernoulli in q'."""
    m, g, q = r.model, r.engagement(article), QUALITY[comment]
    z = np.random.default_rng(11).normal(size=400_000)
    qp = 1 / (1 + np.exp(-(np.log(q / (1 - q)) + m.taste_sd * z)))
    log_l = np.zeros_like(z)
    for x in reads:
        mu = np.log(g * (m.read_base_s + m.read_gain_s * qp ** 2) * m.fatigue ** x["position"]) - m.read_noise_sd ** 2 / 2
        log_l += -0.5 * ((np.log(x["seconds"]) - mu) / m.read_noise_sd) ** 2
        up = m.up_floor + 0.85 * qp
        log_l += np.log(up) if x["upvote"] else np.log(1 - up) if x["downvote"] else 0.0
        reply = m.reply_base + m.reply_gain * qp
        log_l += np.log(reply if x["reply"] else 1 - reply)
        report = m.report_gain * np.maximum(0.0, 0.3 - qp)
        log_l += np.log(np.maximum(report, 1e-300) if x["report"] else 1 - report)
    w = np.exp(log_l - log_l.max())
    return float(w @ qp / w.sum())


def test_the_posterior_of_the_logged_reads_is_bayes_rule_over_the_taste() -> None:
    """Readers.posterior_perceived against Bayes' rule computed by sampling (bayes_by_sampling), on reads the
    simulator logged and on reads written by hand whose seconds say little and whose votes, replies or reports say
    much; with no read it is E[q' | q], and with many reads it closes in on the comment's own q'."""
    r = readers()
    rng = np.random.default_rng(5)
    logged = [read for i in range(6) for read in r.read(f"q{i}", "a1", ["c6", "c2", "c8"], rng)["reads"]]
    for c in ("c2", "c6", "c8"):
        reads = [x for x in logged if x["id"] == c]
        assert reads, "the test's seed reads each comment at least once"
        assert r.posterior_perceived("a1", c, reads) == pytest.approx(bayes_by_sampling(r, "a1", c, reads), abs=2e-3)
        assert r.posterior_perceived("a1", c, []) == pytest.approx(r.expected_perceived("a1", c), abs=1e-6)
    typical = r.engagement("a1") * (r.model.read_base_s + r.model.read_gain_s * 0.5 ** 2)   # a read of q' = 0.5
    plain = {"position": 0, "id": "c4", "seconds": typical, "upvote": False, "downvote": False, "reply": False,
             "report": False}
    by_hand = {"upvotes": [dict(plain, upvote=True)] * 12, "downvotes": [dict(plain, downvote=True)] * 12,
               "replies": [dict(plain, reply=True)] * 12, "reports": [dict(plain, report=True)] * 3}
    seconds_only = r.posterior_perceived("a1", "c4", [plain] * 12)
    for name, reads in by_hand.items():
        value = r.posterior_perceived("a1", "c4", reads)
        assert value == pytest.approx(bayes_by_sampling(r, "a1", "c4", reads), abs=2e-3), name
        assert abs(value - seconds_only) > 0.01, f"{name} moved the estimate"
    many = [read for i in range(300) for read in r.read(f"m{i}", "a1", ["c7"], rng)["reads"]]
    assert len(many) > 200
    assert r.posterior_perceived("a1", "c7", many) == pytest.approx(r.perceived("a1", "c7"), abs=0.01)
    assert abs(r.expected_perceived("a1", "c7") - r.perceived("a1", "c7")) > 0.02, "the reads moved it"


def test_the_bayes_ranker_sits_between_the_q_oracle_and_the_read_informed_bound() -> None:
    """true_value(..., "posterior"): with no read logged it ranks by E[q' | q] (the informed bound's order with
    nothing read); with reads logged it is never above the true ceiling."""
    from synthetic import corpus
    from dwell_learning.loop import true_value
    from dwell_learning.service import OfflineService

    c = corpus()
    service = OfflineService(c)
    r = Readers(c.quality, seed=3)
    assert true_value(c, service, r, "posterior", 5, {}) == pytest.approx(true_value(c, service, r, "informed", 5), rel=1e-9)
    rng = np.random.default_rng(2)
    log: dict = {}
    for article, ids in c.by_article.items():
        for i in range(20):
            sig = r.read(f"{article}-{i}", article, list(rng.permutation(ids))[:5], rng)
            for x in sig["reads"]:
                log.setdefault((article, x["id"]), []).append(x)
    assert true_value(c, service, r, "posterior", 5, log) <= true_value(c, service, r, "ceiling", 5) + 1e-9
