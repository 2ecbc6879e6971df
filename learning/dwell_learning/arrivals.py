"""A living world: comments arrive while the loop runs (issue 19, item 6; learning/README.md, "A living world").

The corpus is a snapshot of a news site at its `now`: each article was published at some time and its comments
followed at exponential delays (feed/dwell_feed/generate.py: a mean delay tau of 2-12 hours per article). The world
goes on from that snapshot with the same process:

- every article a has a lifecycle: comments arrive at intensity K_a exp(-(t - p_a) / tau_a) / tau_a for t >= p_a
  (p_a its publication, tau_a its mean delay, K_a its expected comments over its life). For the corpus's articles
  tau_a is fitted to its comments' delays (the maximum-likelihood tau of an exponential truncated at the article's
  age, clipped to [1, 24] h) and K_a so that the expected count up to now is what it has (for an article younger
  than a day capped at the largest count of a mature one, since a young article's few comments say little);
- new articles are published as a Poisson process at RATE / mean K per hour, each with the (K, tau) of a mature
  corpus article drawn at random, so that RATE is the site's comment rate once articles come and go steadily;
- a new comment is a corpus comment drawn at random as a template (its author, its text and its hidden quality:
  so new comments have the corpus's joint distribution of length, author reputation and quality), top level, with
  a timestamp and every counter at 0 (no votes, no reads);
- readers come while an article is news: an article's share of views is its current comment intensity, over
  articles whose intensity is at least VIEW_FLOOR of the total (the rest get no views).

Plain functions and one small class holding the state; numpy only. `expected_arrivals` is the process's
expectation over an interval, which the test counts against.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

HOUR = 3600.0
TAU_RANGE_H = (1.0, 24.0)      # the fitted mean delay is clipped to this range
MATURE_H = 24.0                 # an article at least this old has (nearly) all its comments
VIEW_FLOOR = 1e-3               # articles with less than this share of the current intensity get no views


def truncated_mean(tau: float, limit: float) -> float:
    """Mean of an exponential with mean `tau` truncated to [0, limit]."""
    x = limit / tau
    if x > 700:
        return tau
    return tau - limit / math.expm1(x)


def fit_tau(delays: np.ndarray, limit: float) -> float:
    """The maximum-likelihood mean delay of an exponential truncated at `limit` (its mean matches the delays'), by
    bisection in log tau, clipped to TAU_RANGE_H."""
    lo, hi = TAU_RANGE_H[0] * HOUR, TAU_RANGE_H[1] * HOUR
    m = float(np.mean(delays)) if len(delays) else hi
    if truncated_mean(hi, limit) <= m:
        return hi
    if truncated_mean(lo, limit) >= m:
        return lo
    for _ in range(60):
        mid = math.sqrt(lo * hi)
        if truncated_mean(mid, limit) < m:
            lo = mid
        else:
            hi = mid
    return math.sqrt(lo * hi)


def expected_count(potential: np.ndarray, published: np.ndarray, tau: np.ndarray, t0: float, t1: float) -> np.ndarray:
    """Per article, the expected comments in [t0, t1] of the lifecycle K exp(-(t - p) / tau) / tau."""
    a = np.maximum(t0, published) - published
    b = np.maximum(t1, published) - published
    return potential * (np.exp(-a / tau) - np.exp(-b / tau))


def intensity(potential: np.ndarray, published: np.ndarray, tau: np.ndarray, t: float) -> np.ndarray:
    """Per article, comments per second at t."""
    age = t - published
    return np.where(age >= 0, potential * np.exp(-np.maximum(age, 0) / tau) / tau, 0.0)


def new_articles_expected(rate_per_h: float, pool_k: np.ndarray, pool_tau: np.ndarray, start: float,
                          t0: float, t1: float) -> float:
    """Expected comments in [t0, t1] of the articles published after `start` (Poisson at rate / mean K per hour,
    (K, tau) drawn from the pool): with G(t) = nu E[K ((t - start) - tau (1 - exp(-(t - start) / tau)))], G(t1) - G(t0)."""
    nu = rate_per_h / HOUR / float(np.mean(pool_k))

    def g(t: float) -> float:
        s = max(0.0, t - start)
        return nu * float(np.mean(pool_k * (s - pool_tau * (1 - np.exp(-s / pool_tau)))))

    return g(t1) - g(t0)


@dataclass
class World:
    """The articles' lifecycles and the clock; `advance` returns the comments that arrived."""

    rate_per_h: float
    start: float
    now: float
    articles: list[str]
    published: np.ndarray
    tau: np.ndarray
    potential: np.ndarray
    pool: np.ndarray               # indices of the mature corpus articles: new articles' (K, tau) are drawn from them
    templates: list[str]           # corpus comments, the templates of new ones
    rng: np.random.Generator
    born: int = 0                  # new articles so far
    arrived: int = 0               # new comments so far
    prefix: str = "n"
    history: list[dict[str, Any]] = field(default_factory=list)

    def expected(self, t0: float, t1: float) -> float:
        """The process's expected arrivals in [t0, t1] from the state at the run's start (the corpus's articles
        and the new articles' process), which the counts are checked against."""
        corpus_articles = len(self.articles) - self.born
        own = expected_count(self.potential[:corpus_articles], self.published[:corpus_articles],
                             self.tau[:corpus_articles], t0, t1).sum()
        return float(own + new_articles_expected(self.rate_per_h, self.potential[self.pool], self.tau[self.pool],
                                                 self.start, t0, t1))

    def shares(self) -> dict[str, float]:
        """Each article's share of views now: its comment intensity, over articles at or above VIEW_FLOOR."""
        lam = intensity(self.potential, self.published, self.tau, self.now)
        keep = lam >= VIEW_FLOOR * lam.sum()
        total = lam[keep].sum()
        return {self.articles[i]: float(lam[i] / total) for i in np.flatnonzero(keep)}

    def advance(self, t1: float) -> list[tuple[str, str, float, str]]:
        """Moves the clock to t1; returns the comments that arrived in (now, t1] as (id, article, created_at,
        template comment id), in time order."""
        t0, rng = self.now, self.rng
        # new articles, then every article's comments (the new ones' from their publication on)
        births = np.sort(rng.uniform(t0, t1, rng.poisson(self.rate_per_h * (t1 - t0) / HOUR / np.mean(self.potential[self.pool]))))
        for p in births:
            j = int(self.pool[rng.integers(len(self.pool))])
            self.articles.append(f"{self.prefix}a{self.born:05d}")
            self.published = np.append(self.published, p)
            self.tau = np.append(self.tau, self.tau[j])
            self.potential = np.append(self.potential, self.potential[j])
            self.born += 1
        counts = rng.poisson(expected_count(self.potential, self.published, self.tau, t0, t1))
        out = []
        for i in np.flatnonzero(counts):
            a = max(t0, self.published[i]) - self.published[i]
            b = t1 - self.published[i]
            u = rng.random(counts[i])
            # inverse CDF of the exponential lifecycle restricted to [a, b] (age since publication)
            ages = a - self.tau[i] * np.log1p(-u * -np.expm1(-(b - a) / self.tau[i]))
            for age in ages:
                template = self.templates[int(rng.integers(len(self.templates)))]
                out.append((self.articles[i], float(self.published[i] + age), template))
        out.sort(key=lambda x: x[1])
        named = []
        for article, created, template in out:
            named.append((f"{self.prefix}{self.arrived:07d}", article, created, template))
            self.arrived += 1
        self.now = t1
        return named


def world_from(corpus: Any, rate_per_h: float, rng: np.random.Generator, published: dict[str, float] | None = None,
               prefix: str = "n") -> World:
    """The world that goes on from the corpus's snapshot (see the module doc)."""
    now = float(corpus.now)
    published = published or {}
    articles = list(corpus.by_article)
    pub, tau, k = [], [], []
    for a in articles:
        created = np.array([float(corpus.comments[c]["created_at"]) for c in corpus.by_article[a]])
        p = float(published.get(a, created.min() - 60.0))
        p = min(p, float(created.min()))
        limit = max(now - p, 1.0)
        t = fit_tau(created - p, limit)
        pub.append(p)
        tau.append(t)
        k.append(len(created) / -math.expm1(-limit / t))
    pub_a, tau_a, k_a = np.array(pub), np.array(tau), np.array(k)
    mature = np.flatnonzero(now - pub_a >= MATURE_H * HOUR)
    if len(mature) == 0:
        mature = np.arange(len(articles))
    cap = max(len(corpus.by_article[articles[i]]) for i in mature)
    young = now - pub_a < MATURE_H * HOUR
    sizes = np.array([len(corpus.by_article[a]) for a in articles], dtype=np.float64)
    k_a = np.where(young, np.minimum(k_a, np.maximum(cap, sizes)), k_a)
    templates = sorted(corpus.comments)
    return World(rate_per_h, now, now, articles, pub_a, tau_a, k_a, mature, templates, rng, prefix=prefix)


def new_comment(corpus: Any, template: str, article: str, created: float) -> dict[str, Any]:
    """A new comment's fields: the template's author and text, a timestamp, every counter at 0."""
    t = corpus.comments[template]
    return {"article_id": article, "author_id": t["author_id"], "parent_id": "", "text": t["text"],
            "created_at": int(round(created)), "upvotes": 0, "downvotes": 0, "reply_count": 0, "report_count": 0}


def arrive(corpus: Any, world: World, t1: float) -> list[str]:
    """Advances the world to t1 and adds what arrived to the corpus (comments, hidden quality, articles' lists, the
    views' shares and its clock); returns the new comment ids."""
    ids = []
    for cid, article, created, template in world.advance(t1):
        corpus.comments[cid] = new_comment(corpus, template, article, created)
        corpus.quality[cid] = corpus.quality[template]
        corpus.by_article.setdefault(article, []).append(cid)
        ids.append(cid)
    corpus.popularity = view_shares(corpus, world)
    corpus.now = int(math.floor(world.now))
    return ids


def view_shares(corpus: Any, world: World) -> dict[str, float]:
    """The views' shares now (World.shares) over the articles that have comments (a new one may have none yet)."""
    shares = {a: s for a, s in world.shares().items() if corpus.by_article.get(a)}
    total = sum(shares.values())
    return {a: s / total for a, s in shares.items()}
