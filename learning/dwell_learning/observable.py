"""The fair Bayes ranker (diagnostics only): E[q' | what is observable of a comment, every read of it logged so far],
with the corpus generator (feed/dwell_feed/generate.py) and the reader model (simulator.py) known, but the comment's
hidden quality q NOT known. learning/README.md, "A fair Bayes ranker".

q is integrated out on a grid of its logit l, under the generator's own prior given the comment's documents:

- l = 0.9 length_term + sentiment_term + 0.6 skill - (words < 4) - 1.5 shouting - link - 0.2 + N(0, 0.5^2)
  (generate.quality_logit and the line that draws quality). Length, words, shouting and the link are read off the
  comment's text as the generator wrote it. The sentiment term (a function of the human rating of the text's source
  snippets) is hidden: it is integrated out under its distribution over the corpus's comments (binned at 0.01). The
  author's skill is hidden: skill ~ N(0, 1) and reputation = sigmoid(0.8 skill + 0.25 log1p(comment_count) - 0.8 +
  N(0, 0.3^2)), so skill given the author document's reputation and comment count is Gaussian (conjugate).
- the initial votes: votes ~ Poisson(exposure (0.5 + q)), upvotes ~ Binomial(votes, 0.1 + 0.85 q), so upvotes and
  downvotes are independent Poissons with means exposure (0.5 + q)(0.1 + 0.85 q) and exposure (0.5 + q)(0.9 - 0.85 q);
  exposure = 2 sqrt(size) exp(-position / (1 + 0.3 size)) 0.7^depth, from the article's size, the comment's position
  in its article (time order) and its depth in the thread (parent chain): all observable.
- the initial reports: Poisson(0.02 + 1.5 max(0, 0.25 - q)(1 + shouting + link)).

Left out (information the ranker could have and does not use, so this is the Bayes ranker of a subset of what is
observable): the initial reply counts and the thread structure (whom a reply goes to depends on the quality of other
comments too: no per-comment likelihood), the author's other comments and helpful_ratio (skill is shared by an
author's comments: the exact posterior couples them), and the text itself beyond length, words, shouting and link.
Approximations: the sentiment term's distribution is the corpus's marginal (its dependence on how many snippets a text
has, hence on length, is ignored); reputation's rounding to 4 decimals is ignored; the article's engagement (the scale
of its read times) is taken as known, as Readers.posterior_perceived does.

The reads then move the logit of q' = l + taste_sd z (z ~ N(0, 1), per pair) exactly as in
Readers.posterior_perceived; the reads enter through per-comment sufficient statistics (count, sum of the
position- and engagement-corrected log seconds, and the counts of upvotes, downvotes, replies and reports), so the
per-iteration cost is one (comments x 6) @ (6 x grid) product.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any, Iterable, Mapping, Sequence

import numpy as np

from .simulator import ReaderModel

GRID = np.linspace(-8.0, 8.0, 801)   # logit of q and of q' (step 0.02)
SIGMOID = 1.0 / (1.0 + np.exp(-GRID))
QUALITY_NOISE_SD = 0.5               # generate: quality = sigmoid(logit + N(0, 0.5) - 0.2)
QUALITY_SHIFT = -0.2
REPUTATION_NOISE_SD = 0.3            # generate: reputation = sigmoid(0.8 skill + 0.25 log1p(count) - 0.8 + N(0, 0.3))
_LINK = re.compile(r" see www\.site\d+\.example/read$")


def sentiment_term(rating: np.ndarray) -> np.ndarray:
    """generate.quality_logit's sentiment term."""
    rating = np.asarray(rating, dtype=np.float64)
    return 0.4 - 0.3 * np.maximum(0.0, -rating) - 0.2 * np.maximum(0.0, rating - 2.5)


def text_signals(text: str) -> tuple[float, float, bool, bool]:
    """(length, words, shouting, link) of a comment's text as generate.compose_texts wrote it."""
    link = bool(_LINK.search(text))
    body = _LINK.sub("", text) if link else text
    shouting = body.endswith("!!!") and body == body.upper() and any(ch.isalpha() for ch in body)
    return float(len(text)), float(len(text.split())), shouting, link


def known_logit_mean(length: np.ndarray, words: np.ndarray, shouting: np.ndarray, link: np.ndarray) -> np.ndarray:
    """The observable part of the quality logit (everything but the sentiment term, the skill and the noise)."""
    length_term = np.clip((np.log1p(length) - math.log(60.0)) / 1.2, -1.5, 1.0)
    return (0.9 * length_term - 1.0 * (words < 4) - 1.5 * shouting - 1.0 * link + QUALITY_SHIFT)


def skill_posterior(reputation: np.ndarray, comment_count: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Mean and variance of an author's skill ~ N(0, 1) given reputation and comment count (Gaussian, exact)."""
    rep = np.clip(np.asarray(reputation, dtype=np.float64), 1e-6, 1 - 1e-6)
    y = np.log(rep / (1 - rep)) - 0.25 * np.log1p(np.asarray(comment_count, dtype=np.float64)) + 0.8
    noise = REPUTATION_NOISE_SD ** 2
    precision = 1.0 + 0.64 / noise
    return 0.8 * y / noise / precision, np.full_like(y, 1.0 / precision)


def exposure(size: np.ndarray, position: np.ndarray, depth: np.ndarray) -> np.ndarray:
    """generate's exposure of a comment to the initial votes."""
    size = np.asarray(size, dtype=np.float64)
    return 2.0 * np.sqrt(size) * np.exp(-np.asarray(position) / (1.0 + 0.3 * size)) * 0.7 ** np.asarray(depth)


def sentiment_histogram(terms: Sequence[float], step: float = 0.01) -> tuple[np.ndarray, np.ndarray]:
    """The sentiment term's distribution as (values, weights), binned at `step`."""
    binned = np.round(np.asarray(terms, dtype=np.float64) / step) * step
    values, counts = np.unique(np.round(binned, 6), return_counts=True)
    return values, counts / counts.sum()


def taste_kernel(taste_sd: float) -> np.ndarray:
    """K[i, j]: the probability that the logit of q' is GRID[j] given that of q is GRID[i] (rows sum to 1)."""
    k = np.exp(-0.5 * ((GRID[None, :] - GRID[:, None]) / taste_sd) ** 2)
    return k / k.sum(axis=1, keepdims=True)


def static_posterior(mean: np.ndarray, var: np.ndarray, sentiment: tuple[np.ndarray, np.ndarray],
                     expo: np.ndarray | None = None, upvotes: np.ndarray | None = None,
                     downvotes: np.ndarray | None = None, reports: np.ndarray | None = None,
                     report_factor: np.ndarray | None = None) -> np.ndarray:
    """Per comment (rows), the posterior of the logit of q on GRID (normalised to sum 1) given the prior
    l ~ sum_b w_b N(mean + value_b, var) and, where given, the initial votes (with their exposure) and reports."""
    values, weights = sentiment
    sd = np.sqrt(var)[:, None]
    log_post = np.zeros((len(mean), len(GRID)))
    prior = np.zeros_like(log_post)
    for v, w in zip(values, weights):
        prior += w * np.exp(-0.5 * ((GRID[None, :] - mean[:, None] - v) / sd) ** 2)
    prior /= sd
    q = SIGMOID[None, :]
    if expo is not None:
        lam_up = expo[:, None] * (0.5 + q) * (0.1 + 0.85 * q)
        lam_down = expo[:, None] * (0.5 + q) * (0.9 - 0.85 * q)
        log_post += upvotes[:, None] * np.log(np.maximum(lam_up, 1e-300)) - lam_up
        log_post += downvotes[:, None] * np.log(np.maximum(lam_down, 1e-300)) - lam_down
    if reports is not None:
        lam = 0.02 + 1.5 * np.maximum(0.0, 0.25 - q) * report_factor[:, None]
        log_post += reports[:, None] * np.log(lam) - lam
    post = prior * np.exp(log_post - log_post.max(axis=1, keepdims=True))
    return post / post.sum(axis=1, keepdims=True)


def read_statistics(reads: Iterable[Mapping[str, Any]], engagement: float, model: ReaderModel) -> np.ndarray:
    """The sufficient statistics of one comment's reads for the logit of q': [count, sum of log seconds less the
    engagement, the position's fatigue and the lognormal's mean shift, upvotes, downvotes, replies, reports]."""
    s = np.zeros(6)
    shift = math.log(engagement) - model.read_noise_sd ** 2 / 2
    for r in reads:
        s[0] += 1
        s[1] += math.log(max(r["seconds"], 1e-9)) - shift - r["position"] * math.log(model.fatigue)
        s[2] += bool(r["upvote"])
        s[3] += bool(r["downvote"])
        s[4] += bool(r["reply"])
        s[5] += bool(r["report"])
    return s


def read_log_likelihood(stats: np.ndarray, model: ReaderModel) -> np.ndarray:
    """Rows: the log likelihood (up to a constant) of each comment's reads on GRID (the logit of q'), from
    read_statistics; the same likelihood as Readers.posterior_perceived."""
    qp = SIGMOID
    b = np.log(model.read_base_s + model.read_gain_s * qp ** 2)
    up = model.up_floor + 0.85 * qp
    reply = model.reply_base + model.reply_gain * qp
    report = model.report_gain * np.maximum(0.0, 0.3 - qp)
    var = model.read_noise_sd ** 2
    n = stats[:, 0:1]
    ll = (stats[:, 1:2] * b[None, :] - n * b[None, :] ** 2 / 2) / var
    ll += stats[:, 2:3] * np.log(up) + stats[:, 3:4] * np.log1p(-up)
    ll += stats[:, 4:5] * np.log(reply) + (n - stats[:, 4:5]) * np.log1p(-reply)
    ll += stats[:, 5:6] * np.log(np.maximum(report, 1e-300)) + (n - stats[:, 5:6]) * np.log1p(-report)
    return ll


def posterior_means(prior: np.ndarray, stats: np.ndarray | None, model: ReaderModel) -> np.ndarray:
    """E[q'] per row of `prior` (the logit of q' on GRID, before the reads) after the reads in `stats`."""
    if stats is None:
        return prior @ SIGMOID / prior.sum(axis=1)
    ll = read_log_likelihood(stats, model)
    w = prior * np.exp(ll - ll.max(axis=1, keepdims=True))
    return w @ SIGMOID / w.sum(axis=1)


@dataclass
class ObservablePosterior:
    """The fair Bayes ranker of a corpus: each comment's posterior of the logit of q' before any read (its
    documents only), computed once; `scores` adds the reads logged so far."""
    ids: list[str]
    index: dict[str, int]
    prior: np.ndarray          # rows: comments (corpus order); the logit of q' on GRID, before reads 
    prior_mean: np.ndarray     # E[q' | documents]
    model: ReaderModel

    @classmethod
    def from_corpus(cls, corpus: Any, model: ReaderModel, chunk: int = 2000) -> "ObservablePosterior":
        ids = [c for a in corpus.popularity for c in corpus.by_article[a]]
        fields = corpus.comments
        position, size = {}, {}
        for a, cs in corpus.by_article.items():
            for k, c in enumerate(cs):
                position[c], size[c] = k, len(cs)
        depth: dict[str, int] = {}
        for cs in corpus.by_article.values():
            for c in cs:   # time order: a parent comes before its replies
                p = fields[c].get("parent_id") or ""
                depth[c] = depth[p] + 1 if p in depth else 0

        signals = [text_signals(fields[c].get("text", "")) for c in ids]
        length = np.array([s[0] for s in signals])
        words = np.array([s[1] for s in signals])
        shouting = np.array([s[2] for s in signals], dtype=np.float64)
        link = np.array([s[3] for s in signals], dtype=np.float64)
        authors = [corpus.authors.get(fields[c].get("author_id", ""), {}) for c in ids]
        reputation = np.array([float(a.get("reputation", 0.5)) for a in authors])
        count = np.array([float(a.get("comment_count", 1)) for a in authors])
        s_mean, s_var = skill_posterior(reputation, count)
        mean = known_logit_mean(length, words, shouting, link) + 0.6 * s_mean
        var = 0.36 * s_var + QUALITY_NOISE_SD ** 2
        terms = list(getattr(corpus, "sentiment", {}).values())
        sentiment = sentiment_histogram(sentiment_term(np.array(terms)) if terms else [0.4])
        expo = exposure(np.array([size[c] for c in ids]), np.array([position[c] for c in ids]),
                        np.array([depth[c] for c in ids]))
        up = np.array([float(fields[c].get("upvotes", 0)) for c in ids])
        down = np.array([float(fields[c].get("downvotes", 0)) for c in ids])
        reports = np.array([float(fields[c].get("report_count", 0)) for c in ids])
        kernel = taste_kernel(model.taste_sd)
        prior = np.empty((len(ids), len(GRID)))
        for lo in range(0, len(ids), chunk):
            sl = slice(lo, lo + chunk)
            post = static_posterior(mean[sl], var[sl], sentiment, expo[sl], up[sl], down[sl], reports[sl],
                                    1.0 + shouting[sl] + link[sl])
            prior[sl] = post @ kernel
        prior_mean = posterior_means(prior, None, model)
        return cls(ids, {c: i for i, c in enumerate(ids)}, prior, prior_mean, model)

    def scores(self, article: str, comments: Sequence[str], read_log: Mapping[tuple[str, str], list[dict]],
               engagement: float) -> np.ndarray:
        """E[q' | documents, the logged reads] of an article's comments."""
        rows = np.array([self.index[c] for c in comments])
        out = self.prior_mean[rows].copy()
        read = [k for k, c in enumerate(comments) if read_log.get((article, c))]
        if read:
            stats = np.array([read_statistics(read_log[(article, comments[k])], engagement, self.model) for k in read])
            out[read] = posterior_means(self.prior[rows[read]], stats, self.model)
        return out
