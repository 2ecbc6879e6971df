"""The fair Bayes ranker (observable.py) against Bayes' rule computed by sampling the corpus generator and the reader
model; with q known it is Readers.posterior_perceived, and with nothing observed it is the generator's prior."""
from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np
import pytest

from dwell_learning import observable as ob
from dwell_learning.service import Corpus
from dwell_learning.simulator import ReaderModel, Readers

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "feed"))
from dwell_feed.generate import quality_logit  # noqa: E402

NOW = 1_763_000_000
RATINGS = [-1.5, 0.3, 1.2, 2.0, 3.1]      # the corpus's sentiment ratings: the prior of the hidden one
PLAIN = "this one is quite a reasonable little comment really"
LOUD = "THIS ONE IS QUITE A REASONABLE LITTLE COMMENT REALLY!!! see www.site12.example/read"


def small_corpus(target_text: str, up: int, down: int, reports: int) -> Corpus:
    """One article of three comments (time order); the third, the target, replies to the first (depth 1)."""
    comments = {
        "c0": {"article_id": "a", "author_id": "u0", "parent_id": "", "text": PLAIN, "created_at": NOW - 300,
               "upvotes": 3, "downvotes": 0, "reply_count": 1, "report_count": 0},
        "c1": {"article_id": "a", "author_id": "u0", "parent_id": "", "text": PLAIN, "created_at": NOW - 200,
               "upvotes": 0, "downvotes": 2, "reply_count": 0, "report_count": 0},
        "c2": {"article_id": "a", "author_id": "u1", "parent_id": "c0", "text": target_text, "created_at": NOW - 100,
               "upvotes": up, "downvotes": down, "reply_count": 0, "report_count": reports},
    }
    authors = {"u0": {"reputation": 0.4, "comment_count": 3}, "u1": {"reputation": 0.62, "comment_count": 7}}
    quality = {"c0": 0.6, "c1": 0.3, "c2": 0.5}
    return Corpus(comments, authors, quality, {"a": ["c0", "c1", "c2"]}, {"a": 1.0}, NOW,
                  sentiment={f"x{i}": r for i, r in enumerate(RATINGS)})


def by_sampling(corpus: Corpus, reads: list[dict], engagement: float, n: int = 3_000_000, seed: int = 3) -> float:
    """E[q' | the target's documents and reads]: draw the generator's skill, rating and noise, then its initial votes
    and reports exactly as generate.py does, keep the draws whose counts match, and weight them by the density of the
    author's reputation and by the likelihood of the reads (the reader model written out)."""
    rng = np.random.default_rng(seed)
    c = corpus.comments["c2"]
    text = c["text"]
    shouting, link = "!!!" in text, "www." in text
    author = corpus.authors[c["author_id"]]
    skill = rng.normal(size=n)
    rating = np.array(RATINGS)[rng.integers(0, len(RATINGS), n)]
    logit = quality_logit(np.full(n, float(len(text))), np.full(n, float(len(text.split()))), rating,
                          np.full(n, shouting), np.full(n, link), skill)
    q = 1 / (1 + np.exp(-(logit + rng.normal(0.0, 0.5, n) - 0.2)))
    size, position, depth = 3, 2, 1
    exposure = 2.0 * math.sqrt(size) * math.exp(-position / (1.0 + 0.3 * size)) * 0.7 ** depth
    votes = rng.poisson(exposure * (0.5 + q))
    up = rng.binomial(votes, 0.1 + 0.85 * q)
    reports = rng.poisson(0.02 + 1.5 * np.maximum(0.0, 0.25 - q) * (1 + shouting + link))
    keep = (up == c["upvotes"]) & (votes - up == c["downvotes"]) & (reports == c["report_count"])
    q, skill = q[keep], skill[keep]
    rep = author["reputation"]
    mean = 0.8 * skill + 0.25 * math.log1p(author["comment_count"]) - 0.8
    log_w = -0.5 * ((math.log(rep / (1 - rep)) - mean) / 0.3) ** 2
    m = ReaderModel()
    qp = 1 / (1 + np.exp(-(np.log(q / (1 - q)) + m.taste_sd * rng.normal(size=len(q)))))
    for x in reads:
        mu = np.log(engagement * (m.read_base_s + m.read_gain_s * qp ** 2) * m.fatigue ** x["position"]) - 0.045
        log_w = log_w - 0.5 * ((np.log(x["seconds"]) - mu) / m.read_noise_sd) ** 2
        p_up = m.up_floor + 0.85 * qp
        log_w = log_w + (np.log(p_up) if x["upvote"] else np.log(1 - p_up) if x["downvote"] else 0.0)
        reply = m.reply_base + m.reply_gain * qp
        log_w = log_w + np.log(reply if x["reply"] else 1 - reply)
        report = m.report_gain * np.maximum(0.0, 0.3 - qp)
        log_w = log_w + np.log(np.maximum(report, 1e-300) if x["report"] else 1 - report)
    w = np.exp(log_w - np.max(log_w))
    assert keep.sum() > 20_000 and w.sum() ** 2 / (w ** 2).sum() > 3_000, "enough effective draws"
    return float(w @ qp / w.sum())


READS = [{"position": 0, "seconds": 9.0, "upvote": True, "downvote": False, "reply": False, "report": False},
         {"position": 3, "seconds": 4.0, "upvote": False, "downvote": False, "reply": True, "report": False},
         {"position": 1, "seconds": 12.0, "upvote": False, "downvote": False, "reply": False, "report": False}]


@pytest.mark.parametrize("text, up, down, reports, reads", [
    (PLAIN, 1, 1, 0, []), (PLAIN, 2, 0, 0, READS), (LOUD, 0, 1, 1, []), (LOUD, 0, 0, 0, READS[:1])])
def test_the_fair_posterior_is_bayes_rule_over_the_generator(text: str, up: int, down: int, reports: int,
                                                             reads: list[dict]) -> None:
    corpus = small_corpus(text, up, down, reports)
    assert ob.text_signals(text)[2:] == ((True, True) if text == LOUD else (False, False))
    post = ob.ObservablePosterior.from_corpus(corpus, ReaderModel())
    g = 1.3
    got = post.scores("a", ["c2"], {("a", "c2"): reads} if reads else {}, g)[0]
    assert got == pytest.approx(by_sampling(corpus, reads, g), abs=2e-3)


def test_with_q_known_it_is_the_posterior_of_the_logged_reads() -> None:
    """A prior of the logit of q' that is q's logit moved by the taste alone gives Readers.posterior_perceived."""
    r = Readers({"c": 0.37}, seed=4)
    rng = np.random.default_rng(1)
    reads = [x for i in range(8) for x in r.read(f"v{i}", "a", ["c"], rng)["reads"]]
    assert reads
    prior = np.exp(-0.5 * ((ob.GRID - math.log(0.37 / 0.63)) / r.model.taste_sd) ** 2)[None, :]
    for some in (reads, reads[:1], []):
        stats = np.array([ob.read_statistics(some, r.engagement("a"), r.model)])
        assert ob.posterior_means(prior, stats, r.model)[0] == pytest.approx(
            r.posterior_perceived("a", "c", some), abs=1e-5)


def test_with_nothing_observed_it_is_the_generators_prior() -> None:
    """No votes, reports or reads: E[q'] under the generator's prior of the quality logit, moved by the taste."""
    mean, var = np.array([0.3]), np.array([0.4])
    values, weights = ob.sentiment_histogram(ob.sentiment_term(np.array(RATINGS)))
    post = ob.static_posterior(mean, var, (values, weights))
    got = ob.posterior_means(post @ ob.taste_kernel(0.5), None, ReaderModel())[0]
    rng = np.random.default_rng(0)
    n = 2_000_000
    logit = mean[0] + rng.choice(values, n, p=weights) + math.sqrt(var[0]) * rng.normal(size=n) + 0.5 * rng.normal(size=n)
    assert got == pytest.approx(float(np.mean(1 / (1 + np.exp(-logit)))), abs=1e-3)
    # and with no read a comment's score is its documents' posterior mean
    corpus = small_corpus(PLAIN, 1, 0, 0)
    p = ob.ObservablePosterior.from_corpus(corpus, ReaderModel())
    assert list(p.scores("a", ["c0", "c1", "c2"], {}, 1.0)) == list(p.prior_mean)


def test_the_fair_ranker_is_below_the_ceiling_in_the_loop() -> None:
    from synthetic import corpus
    from dwell_learning.loop import true_value
    from dwell_learning.service import OfflineService

    c = corpus()
    service = OfflineService(c)
    r = Readers(c.quality, seed=3)
    rng = np.random.default_rng(2)
    log: dict = {}
    for article, ids in c.by_article.items():
        for i in range(20):
            for x in r.read(f"{article}-{i}", article, list(rng.permutation(ids))[:5], rng)["reads"]:
                log.setdefault((article, x["id"]), []).append(x)
    assert 0 < true_value(c, service, r, "observable", 5, log) <= true_value(c, service, r, "ceiling", 5) + 1e-9
