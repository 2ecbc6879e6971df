"""A comment corpus with the structure of a real comment site, from real texts.

Everything is drawn from one numpy Generator seeded by the caller, so a (preset, seed, now)
gives the same files byte for byte. See feed/README.md for the model; in short:

- comments per article: multinomial over Zipf(s) article popularities;
- author activity: Pareto weights (heavy tail), hidden author skill;
- timestamps: each article is published at a random time in the last `days`, its comments
  follow at truncated-exponential delays (mean `tau` hours per article), never after `now`;
- threads: in time order, a comment replies with probability `reply_prob` to an earlier
  comment of its article (recent ones likelier; of two candidates the better one, mostly),
  nesting capped at `max_depth`;
- a hidden quality in (0, 1) per comment from its text (length, human sentiment rating,
  shouting, links), its author's skill and noise; initial votes and reports depend on it.
"""
from __future__ import annotations

import json
import math
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from .texts import SOURCE_NAMES, Texts, load_texts

ROOT = Path(__file__).resolve().parents[2]
DEFAULT_NOW = 1_763_000_000  # the corpus's "now"; `feed` shifts times so that this is the feed time


@dataclass(frozen=True)
class Preset:
    name: str
    comments: int
    articles: int
    authors: int
    zipf_s: float = 1.05         # comments per article ~ rank^-s
    author_alpha: float = 1.5    # author activity weights ~ 1 + Pareto(alpha)
    days: float = 7.0            # articles are published in the last `days`
    tau_hours: tuple[float, float] = (2.0, 12.0)  # per-article mean comment delay, log-uniform
    reply_prob: float = 0.45
    max_depth: int = 6
    topic_affinity: float = 0.8  # share of an article's texts from its topic's source


PRESETS = {
    "tiny": Preset("tiny", comments=1_000, articles=30, authors=300),
    "medium": Preset("medium", comments=20_000, articles=300, authors=5_000),
    "small": Preset("small", comments=100_000, articles=2_000, authors=20_000),
    "w1": Preset("w1", comments=1_000_000, articles=20_000, authors=200_000),
}


# ---------------------------------------------------------------------------------------------
# Structure


def zipf_weights(n: int, s: float) -> np.ndarray:
    w = np.arange(1, n + 1, dtype=np.float64) ** -s
    return w / w.sum()


def article_sizes(rng: np.random.Generator, comments: int, articles: int, s: float) -> np.ndarray:
    """Comments per article, in popularity-rank order (index 0 is the most popular article)."""
    return rng.multinomial(comments, zipf_weights(articles, s))


def fit_zipf_exponent(sizes: np.ndarray, top: int) -> float:
    """Least-squares slope of log(size) on log(rank) over the `top` largest, as a positive s."""
    ranked = np.sort(np.asarray(sizes))[::-1][:top]
    ranked = ranked[ranked > 0]
    x = np.log(np.arange(1, len(ranked) + 1))
    return float(-np.polyfit(x, np.log(ranked), 1)[0])


def author_weights(rng: np.random.Generator, authors: int, alpha: float) -> np.ndarray:
    w = 1.0 + rng.pareto(alpha, authors)
    return w / w.sum()


def truncated_exponential(rng: np.random.Generator, mean: np.ndarray, limit: np.ndarray) -> np.ndarray:
    """Delays with the given means, conditioned to be below `limit` (inverse CDF)."""
    u = rng.random(len(mean))
    return -mean * np.log1p(-u * (1.0 - np.exp(-limit / mean)))


def threads(rng: np.random.Generator, starts: np.ndarray, sizes: np.ndarray, quality: np.ndarray,
            reply_prob: float, max_depth: int) -> tuple[np.ndarray, np.ndarray]:
    """Parent index (-1 for top level) and depth (0 for top level) of comments that are sorted
    by article, then time. A reply goes to an earlier comment of the same article: two
    candidates, drawn with a bias to recent comments, and the better one of them with
    probability 0.75. A reply to a comment at max_depth goes to that comment's parent instead."""
    n = int(sizes.sum())
    parent = [-1] * n
    depth = [0] * n
    is_reply = (rng.random(n) < reply_prob).tolist()
    u1 = rng.random(n).tolist()
    u2 = rng.random(n).tolist()
    pick_better = (rng.random(n) < 0.75).tolist()
    q = quality.tolist()
    for start, size in zip(starts.tolist(), sizes.tolist()):
        for i in range(start + 1, start + size):
            if not is_reply[i]:
                continue
            k = i - start
            c1 = i - 1 - int(k * u1[i] ** 2)
            c2 = i - 1 - int(k * u2[i] ** 2)
            better, worse = (c1, c2) if q[c1] >= q[c2] else (c2, c1)
            p = better if pick_better[i] else worse
            while depth[p] >= max_depth:
                p = parent[p]
            parent[i] = p
            depth[i] = depth[p] + 1
    return np.asarray(parent, dtype=np.int64), np.asarray(depth, dtype=np.int64)


# ---------------------------------------------------------------------------------------------
# Texts and quality


@dataclass
class CommentTexts:
    text: list[str]
    rating: np.ndarray
    source: np.ndarray
    shouting: np.ndarray
    link: np.ndarray


def compose_texts(rng: np.random.Generator, texts: Texts, topic: np.ndarray, affinity: float) -> CommentTexts:
    """One text per comment: 1 to 3 snippets of one source (mostly the article's topic),
    occasionally shouted (upper case, '!!!') or carrying a link."""
    n = len(topic)
    by_source = [np.flatnonzero(texts.source == s) for s in range(len(SOURCE_NAMES))]
    source = np.where(rng.random(n) < affinity, topic, rng.integers(0, len(SOURCE_NAMES), n))
    parts = 1 + (rng.random(n) < 0.25).astype(np.int64) + (rng.random(n) < 0.06).astype(np.int64)
    picks = np.empty((n, 3), dtype=np.int64)
    for s, pool in enumerate(by_source):
        rows = np.flatnonzero(source == s)
        picks[rows] = pool[rng.integers(0, len(pool), (len(rows), 3))]
    shouting = rng.random(n) < 0.03
    link = rng.random(n) < 0.015
    link_host = rng.integers(0, 1000, n)
    out: list[str] = []
    rating = np.empty(n)
    for i in range(n):
        chosen = picks[i, : parts[i]]
        t = " ".join(texts.text[j] for j in chosen)
        if shouting[i]:
            t = t.upper().rstrip(".!?") + "!!!"
        if link[i]:
            t = f"{t} see www.site{link_host[i]}.example/read"
        out.append(t)
        rating[i] = texts.rating[chosen].mean()
    return CommentTexts(out, rating, source, shouting, link)


def sigmoid(z: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-z))


def quality_logit(length: np.ndarray, words: np.ndarray, rating: np.ndarray, shouting: np.ndarray,
                  link: np.ndarray, author_skill: np.ndarray) -> np.ndarray:
    """The noiseless part of the hidden quality (a logit). See feed/README.md."""
    length_term = np.clip((np.log1p(length) - math.log(60.0)) / 1.2, -1.5, 1.0)
    sentiment_term = 0.4 - 0.3 * np.maximum(0.0, -rating) - 0.2 * np.maximum(0.0, rating - 2.5)
    return (0.9 * length_term + sentiment_term + 0.6 * author_skill
            - 1.0 * (words < 4) - 1.5 * shouting - 1.0 * link)


# ---------------------------------------------------------------------------------------------
# The corpus


@dataclass
class Corpus:
    preset: Preset
    seed: int
    now: int
    authors: list[dict[str, Any]]
    comments: list[dict[str, Any]]
    truth: list[dict[str, Any]]
    articles: list[dict[str, Any]]
    stats: dict[str, Any] = field(default_factory=dict)


def generate(preset: Preset, seed: int, now: int = DEFAULT_NOW, texts: Texts | None = None) -> Corpus:
    texts = texts or load_texts()
    rng = np.random.default_rng(seed)
    n, n_articles, n_authors = preset.comments, preset.articles, preset.authors

    # Articles, in popularity-rank order; ids name the topic and a shuffled number.
    sizes = article_sizes(rng, n, n_articles, preset.zipf_s)
    topic = rng.integers(0, len(SOURCE_NAMES), n_articles)
    numbers = rng.permutation(n_articles)
    article_ids = [f"{SOURCE_NAMES[t]}-{k:05d}" for t, k in zip(topic.tolist(), numbers.tolist())]
    published = now - (rng.random(n_articles) * preset.days * 86400).astype(np.int64) - 60
    lo, hi = np.log(preset.tau_hours[0]), np.log(preset.tau_hours[1])
    tau = np.exp(rng.uniform(lo, hi, n_articles)) * 3600

    # Comments sorted by article, then time.
    article = np.repeat(np.arange(n_articles), sizes)
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    delay = truncated_exponential(rng, tau[article], (now - published[article]).astype(np.float64))
    created = published[article] + delay.astype(np.int64)
    order = np.lexsort((created, article))
    created = created[order]  # article is already sorted and stays so

    # Authors: heavy-tailed activity, hidden skill.
    author = rng.choice(n_authors, size=n, p=author_weights(rng, n_authors, preset.author_alpha))
    skill = rng.normal(0.0, 1.0, n_authors)

    # Texts and hidden quality.
    ct = compose_texts(rng, texts, topic[article], preset.topic_affinity)
    length = np.fromiter((len(t) for t in ct.text), dtype=np.float64, count=n)
    words = np.fromiter((len(t.split()) for t in ct.text), dtype=np.float64, count=n)
    logit = quality_logit(length, words, ct.rating, ct.shouting, ct.link, skill[author])
    quality = sigmoid(logit + rng.normal(0.0, 0.5, n) - 0.2)

    parent, depth = threads(rng, starts, sizes, quality, preset.reply_prob, preset.max_depth)
    reply_count = np.bincount(parent[parent >= 0], minlength=n)

    # Initial votes: exposure grows with the article's audience, shrinks for late and nested
    # comments; the share of upvotes and the reports follow quality.
    position = np.arange(n) - starts[article]
    audience = np.sqrt(sizes[article].astype(np.float64))
    exposure = 2.0 * audience * np.exp(-position / (1.0 + 0.3 * sizes[article])) * 0.7 ** depth
    p_up = 0.1 + 0.85 * quality
    votes = rng.poisson(exposure * (0.5 + quality))
    upvotes = rng.binomial(votes, p_up)
    downvotes = votes - upvotes
    reports = rng.poisson(0.02 + 1.5 * np.maximum(0.0, 0.25 - quality) * (1 + ct.shouting + ct.link))

    comment_ids = [f"c{i:07d}" for i in range(n)]
    author_ids = [f"u{i:06d}" for i in range(n_authors)]

    comments, truth = [], []
    for i in range(n):
        a = int(article[i])
        p = int(parent[i])
        comments.append({
            "put": f"id:dwell:comment::{comment_ids[i]}",
            "fields": {
                "article_id": article_ids[a],
                "author_id": author_ids[author[i]],
                "parent_id": comment_ids[p] if p >= 0 else "",
                "text": ct.text[i],
                "created_at": int(created[i]),
                "upvotes": int(upvotes[i]),
                "downvotes": int(downvotes[i]),
                "reply_count": int(reply_count[i]),
                "report_count": int(reports[i]),
            },
        })
        truth.append({
            "comment_id": comment_ids[i],
            "article_id": article_ids[a],
            "quality": round(float(quality[i]), 6),
            "p_up": round(float(p_up[i]), 6),
            "sentiment": round(float(ct.rating[i]), 4),
            "source": SOURCE_NAMES[int(ct.source[i])],
            "depth": int(depth[i]),
            "shouting": bool(ct.shouting[i]),
            "link": bool(ct.link[i]),
        })

    # Author documents, consistent with the comments.
    count = np.bincount(author, minlength=n_authors)
    helpful = np.bincount(author, weights=(upvotes > downvotes).astype(np.float64), minlength=n_authors)
    helpful_ratio = np.divide(helpful, count, out=np.zeros(n_authors), where=count > 0)
    first = np.full(n_authors, now, dtype=np.int64)
    np.minimum.at(first, author, created)
    joined = first - (rng.exponential(365.0, n_authors) * 86400).astype(np.int64) - 3600
    reputation = sigmoid(0.8 * skill + 0.25 * np.log1p(count) - 0.8 + rng.normal(0, 0.3, n_authors))
    authors = [{
        "put": f"id:dwell:author::{author_ids[j]}",
        "fields": {
            "author_id": author_ids[j],
            "reputation": round(float(reputation[j]), 4),
            "helpful_ratio": round(float(helpful_ratio[j]), 4),
            "comment_count": int(count[j]),
            "joined_at": int(joined[j]),
        },
    } for j in range(n_authors)]
    for j in range(n_authors):
        truth.append({"author_id": author_ids[j], "skill": round(float(skill[j]), 6)})

    articles = [{
        "article_id": article_ids[a], "topic": SOURCE_NAMES[int(topic[a])], "published_at": int(published[a]),
        "comments": int(sizes[a]), "popularity_rank": a + 1,
    } for a in range(n_articles)]
    stats = {
        "comments": n, "articles": n_articles, "authors": n_authors,
        "largest_article": int(sizes.max()), "replies": int((parent >= 0).sum()), "max_depth": int(depth.max()),
        "fitted_zipf_s": round(fit_zipf_exponent(sizes, min(200, n_articles)), 3),
        "mean_quality": round(float(quality.mean()), 4),
    }
    return Corpus(preset, seed, now, authors, comments, truth, articles, stats)


def write_jsonl(path: Path, rows: list[dict[str, Any]]) -> None:
    tmp = path.with_suffix(path.suffix + ".tmp")
    with tmp.open("w") as f:
        for row in rows:
            f.write(json.dumps(row, ensure_ascii=False, separators=(",", ":")))
            f.write("\n")
    tmp.replace(path)


def rankingmodel_lines() -> list[dict[str, Any]]:
    """The initial rankingmodel document of each neural profile, from the package's constants."""
    from dwell_learning.export import rankingmodel_put, read_constants

    weights = read_constants(ROOT / "application" / "constants")
    return [rankingmodel_put(weights, "neural", version=1, trained_at_ms=0, shipped_at_ms=0)]


def write_corpus(corpus: Corpus, out: Path) -> dict[str, Any]:
    out.mkdir(parents=True, exist_ok=True)
    write_jsonl(out / "authors.jsonl", corpus.authors)
    write_jsonl(out / "comments.jsonl", corpus.comments)
    write_jsonl(out / "rankingmodel.jsonl", rankingmodel_lines())
    write_jsonl(out / "truth.jsonl", corpus.truth)
    write_jsonl(out / "articles.jsonl", corpus.articles)
    manifest = {"preset": asdict(corpus.preset), "seed": corpus.seed, "now": corpus.now, **corpus.stats,
                "top_articles": corpus.articles[:5]}
    (out / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n")
    return manifest


def generate_to(preset: str, seed: int, out: Path, now: int = DEFAULT_NOW) -> dict[str, Any]:
    started = time.time()
    corpus = generate(PRESETS[preset], seed, now)
    manifest = write_corpus(corpus, out)
    manifest["generate_seconds"] = round(time.time() - started, 2)
    (out / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n")
    return manifest
