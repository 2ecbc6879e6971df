"""Where article views are served: the running dwell runtime (HTTP), or an offline replica.

Both give impressions in one parsed form:
  {query_id, article, profile, model_version, rate, temperature, explored, propensity,
   ids: [comment id per candidate], scores: [...], features: [[9 floats] per candidate],
   shown: [candidate index per position]}
and take the readers' actions back as counter increments of comments.

RuntimeService queries /search/?article=... with exploration.* parameters, reads the
impressions that ExplorationSearcher wrote to $DWELL_DATA/logs/dwell/impressions.jsonl, and
sends partial updates to /document/v1. OfflineService computes the same features (features.py),
scores (network.py or the baseline) and shown orders (policy.py) in numpy, from the corpus
files and the counters that the readers' actions changed.
"""
from __future__ import annotations

import json
import math
import time
import urllib.parse
import uuid
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

import numpy as np

from dwell_client import http, put, update

from .export import rankingmodel_put
from .features import (ARTICLE_READ_FEATURES, FEATURE_NAMES, CommentSignals, age_hours, baseline_score, feature_vector,
                       text_flags)
from .network import Weights, forward
from .policy import sample, slate_propensity

FRESHNESS = FEATURE_NAMES.index("freshness")


@dataclass(frozen=True)
class View:
    """One article view to serve."""

    query_id: str
    article: str
    profile: str
    rate: float
    temperature: float
    candidates: int
    hits: int
    seed: int


def local_id(document_id: str) -> str:
    return document_id.rsplit("::", 1)[-1]


def _nn_input(features: Mapping[str, Any]) -> list[float]:
    value = features["nn_input"]
    if isinstance(value, Mapping):
        if "values" in value:
            return [float(v) for v in value["values"]]
        cells = sorted(value["cells"], key=lambda c: int(c["address"]["x"]))
        return [float(c["value"]) for c in cells]
    return [float(v) for v in value]


def parse_impression(raw: Mapping[str, Any]) -> dict[str, Any]:
    """ExplorationSearcher's JSON line in the form the learning loop uses."""
    return {
        "query_id": raw["query_id"], "article": raw["article"], "profile": raw["profile"],
        "model_version": raw.get("model_version"), "rate": float(raw["rate"]),
        "temperature": float(raw["temperature"]), "explored": bool(raw["explored"]),
        "propensity": float(raw["propensity"]), "pl_propensity": float(raw.get("pl_propensity", 0.0)),
        "ids": [local_id(c["id"]) for c in raw["candidates"]],
        "scores": [float(c["score"]) for c in raw["candidates"]],
        "features": [_nn_input(c["features"]) for c in raw["candidates"]],
        "shown": [int(s["candidate"]) for s in raw["shown"]],
        "step_propensity": [float(s["step_propensity"]) for s in raw["shown"]],
    }


# ---------------------------------------------------------------------------------------------
# The corpus


@dataclass
class Corpus:
    comments: dict[str, dict[str, Any]]          # id -> fields
    authors: dict[str, dict[str, Any]]
    quality: dict[str, float]
    by_article: dict[str, list[str]]
    popularity: dict[str, float]                  # article -> share of views
    now: int
    published: dict[str, float] = field(default_factory=dict)   # article -> publication time (articles.jsonl)
    sentiment: dict[str, float] = field(default_factory=dict)   # comment id -> hidden sentiment rating (truth.jsonl):
    #                                                               only its distribution, for observable.py's prior

    @property
    def articles(self) -> list[str]:
        return list(self.popularity)


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    with path.open() as f:
        return [json.loads(line) for line in f if line.strip()]


def load_corpus(directory: Path) -> Corpus:
    """A corpus directory as `python -m dwell_feed generate` writes it."""
    manifest = json.loads((directory / "manifest.json").read_text())
    comments = {local_id(c["put"]): dict(c["fields"]) for c in read_jsonl(directory / "comments.jsonl")}
    authors = {local_id(a["put"]): dict(a["fields"]) for a in read_jsonl(directory / "authors.jsonl")}
    truth = [t for t in read_jsonl(directory / "truth.jsonl") if "comment_id" in t]
    quality = {t["comment_id"]: float(t["quality"]) for t in truth}
    sentiment = {t["comment_id"]: float(t["sentiment"]) for t in truth if "sentiment" in t}
    by_article: dict[str, list[str]] = {}
    for cid, c in comments.items():
        by_article.setdefault(c["article_id"], []).append(cid)
    sizes = {a: len(ids) for a, ids in by_article.items()}
    total = sum(sizes.values())
    published = ({a["article_id"]: float(a["published_at"]) for a in read_jsonl(directory / "articles.jsonl")}
                 if (directory / "articles.jsonl").exists() else {})
    return Corpus(comments, authors, quality, by_article, {a: s / total for a, s in sizes.items()},
                  int(manifest.get("now", 0)), published, sentiment)


def sample_views(corpus: Corpus, n: int, profile: str, rate: float, temperature: float, candidates: int,
                 hits: int, rng: np.random.Generator, tag: str = "") -> list[View]:
    """Article views, articles drawn by popularity (their share of comments)."""
    articles = corpus.articles
    p = np.array([corpus.popularity[a] for a in articles])
    picks = rng.choice(len(articles), size=n, p=p / p.sum())
    return [View(f"{tag}{uuid.UUID(int=int(rng.integers(0, 2**63)) << 64 | i)}", articles[j], profile, rate,
                 temperature, candidates, hits, int(rng.integers(0, 2**62))) for i, j in enumerate(picks)]


# ---------------------------------------------------------------------------------------------
# Offline


@dataclass
class OfflineService:
    corpus: Corpus
    model: Weights | None = None
    model_version: int = 0
    now: float | None = None
    counters: dict[str, dict[str, int]] = field(default_factory=dict)
    read_feature: str = "time"     # the ninth input (features.READ_FEATURES): read_time, read_logtime or read_relative;
    #                                logtime+relative: read_logtime and a tenth input, read_relative
    text_features: bool = False    # offline only: the text flags (features.text_flags) appended after the read inputs
    # Each article's feature rows (nn_input of its comments, in corpus order), computed once and kept up to date row
    # by row as counters change, and column by column as the clock moves (only freshness depends on it): the same
    # feature_vector values, without recomputing every comment of a view. New comments (a living world) add rows.
    _features: dict[str, np.ndarray] = field(default_factory=dict, repr=False)
    _at: dict[str, float] = field(default_factory=dict, repr=False)     # the clock each article's rows are at
    _row: dict[str, tuple[str, int]] = field(default_factory=dict, repr=False)

    def _now(self) -> float:
        return self.now if self.now is not None else self.corpus.now

    def features(self, article: str) -> np.ndarray:
        """The feature rows of the article's comments (corpus order), as feature_vector computes them now. Read-only."""
        now = self._now()
        x = self._features.get(article)
        if x is None:
            ids = self.corpus.by_article[article]
            x = self._vectors(article, ids, now)
            if not self._row:
                self._row = {c: (a, i) for a, cs in self.corpus.by_article.items() for i, c in enumerate(cs)}
        elif self._at[article] != now:   # the clock moved: only the freshness column changes
            x = x.copy()
            x[:, FRESHNESS] = [math.exp(-age_hours(int(self.corpus.comments[c]["created_at"]), now) / 24.0)
                               for c in self.corpus.by_article[article]]
        else:
            return x
        x.flags.writeable = False
        self._features[article], self._at[article] = x, now
        return x

    def arrived(self, ids: Sequence[str]) -> None:
        """New comments, already appended to the corpus's articles (arrivals.arrive): rows added to what is kept."""
        if not self._row:
            return   # nothing kept yet: features() reads the corpus as it is
        by_article: dict[str, list[str]] = {}
        for cid in ids:
            by_article.setdefault(self.corpus.comments[cid]["article_id"], []).append(cid)
        for article, new in by_article.items():
            first = len(self.corpus.by_article[article]) - len(new)
            if self.corpus.by_article[article][first:] != new:
                raise ValueError(f"the new comments of {article} are not the last of its comments")
            self._row.update((cid, (article, first + i)) for i, cid in enumerate(new))
            if article in self._features:
                rows = self._vectors(article, new, self._at[article])
                x = np.concatenate([self._features[article], rows])
                x.flags.writeable = False
                self._features[article] = x

    def signals(self, cid: str) -> CommentSignals:
        c = self.corpus.comments[cid]
        delta = self.counters.get(cid, {})
        author = self.corpus.authors.get(c["author_id"])
        return CommentSignals(
            created_at=int(c["created_at"]),
            upvotes=int(c.get("upvotes", 0)) + delta.get("upvotes", 0),
            downvotes=int(c.get("downvotes", 0)) + delta.get("downvotes", 0),
            reply_count=int(c.get("reply_count", 0)) + delta.get("reply_count", 0),
            report_count=int(c.get("report_count", 0)) + delta.get("report_count", 0),
            text_length=len(c["text"]),
            author_reputation=float(author["reputation"]) if author else float("nan"),
            reads=int(c.get("reads", 0)) + delta.get("reads", 0),
            read_ms=int(c.get("read_ms", 0)) + delta.get("read_ms", 0),
            read_logms=int(c.get("read_logms", 0)) + delta.get("read_logms", 0),
        )

    def _vectors(self, article: str, ids: Sequence[str], now: float) -> np.ndarray:
        """feature_vector of the given comments of one article, with the article's read sums where the read input needs
        them (computed once for all the rows)."""
        if self.read_feature not in ARTICLE_READ_FEATURES:
            x = np.stack([feature_vector(self.signals(c), now, self.read_feature) for c in ids])
        else:
            sums = self._article_reads(article)
            x = np.stack([feature_vector(replace(self.signals(c), **sums), now, self.read_feature) for c in ids])
        if self.text_features:
            x = np.hstack([x, np.stack([text_flags(self.corpus.comments[c]["text"]) for c in ids])])
        return x

    def _article_reads(self, article: str) -> dict[str, int]:
        """The counters reads and read_logms summed over the article's comments (an article document's, fed alike)."""
        ids = self.corpus.by_article[article]
        return {"article_reads": sum(int(self.corpus.comments[c].get("reads", 0)) + self.counters.get(c, {}).get("reads", 0)
                                     for c in ids),
                "article_read_logms": sum(int(self.corpus.comments[c].get("read_logms", 0))
                                          + self.counters.get(c, {}).get("read_logms", 0) for c in ids)}

    def set_model(self, weights: Weights, version: int) -> float:
        self.model, self.model_version = weights, version
        return 0.0

    def serve(self, views: Sequence[View]) -> list[dict[str, Any]]:
        out = []
        for v in views:
            ids = self.corpus.by_article[v.article]
            x = self.features(v.article)
            if v.profile == "freshness":
                s = baseline_score(x)
            else:
                s = forward(self.model, x) if self.model is not None else baseline_score(x)
            top = np.argsort(-s, kind="stable")[: v.candidates]
            scores, feats = s[top], x[top]
            order, explored = sample(scores, v.hits, v.rate, v.temperature, np.random.default_rng(v.seed))
            out.append({
                "query_id": v.query_id, "article": v.article, "profile": v.profile,
                "model_version": self.model_version if v.profile != "freshness" else None,
                "rate": v.rate, "temperature": v.temperature, "explored": explored,
                "propensity": slate_propensity(scores, order, v.rate, v.temperature),
                "ids": [ids[i] for i in top], "scores": scores.tolist(), "features": feats.tolist(),
                "shown": order.tolist(),
            })
        return out

    def apply(self, updates: Mapping[str, Mapping[str, int]]) -> int:
        for cid, inc in updates.items():
            row = self.counters.setdefault(cid, {})
            for name, n in inc.items():
                row[name] = row.get(name, 0) + n
        changed: dict[str, list[tuple[int, str]]] = {}
        for cid in updates:
            where = self._row.get(cid)
            if where is not None and where[0] in self._features:
                changed.setdefault(where[0], []).append((where[1], cid))
        for article, rows in changed.items():   # a new array: what callers hold stays as it was
            x = self._features[article].copy()
            if self.read_feature in ARTICLE_READ_FEATURES:   # the article's sums moved: every row's read input with them
                x = self._vectors(article, self.corpus.by_article[article], self._at[article])
            else:
                for i, cid in rows:
                    x[i] = self._vectors(article, [cid], self._at[article])[0]
            x.flags.writeable = False
            self._features[article] = x
        return len(updates)


# ---------------------------------------------------------------------------------------------
# The running runtime


@dataclass
class RuntimeService:
    endpoint: str
    impressions: Path          # $DWELL_DATA/logs/dwell/impressions.jsonl
    threads: int = 4
    model_version: int = 0
    now: float | None = None   # a living world's clock (corpus time): sent as vespa.now, so freshness is computed at it
    shift: int = 0             # runtime time - corpus time (the feed moved every timestamp by it)
    _offset: int = 0
    _pending: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        self._offset = self.impressions.stat().st_size if self.impressions.exists() else 0

    def _query(self, v: View) -> dict:
        params = {"article": v.article, "ranking": v.profile, "hits": v.hits, "query_id": v.query_id,
                  "exploration.rate": v.rate, "exploration.temperature": v.temperature,
                  "exploration.candidates": v.candidates, "exploration.seed": v.seed,
                  # "default" carries documentid; with the article view's own summary "short" the
                  # impression log names candidates by their index:... hit ids (reported).
                  "presentation.summary": "default", "timeout": "10s"}
        if self.now is not None:
            params["ranking.properties.vespa.now"] = int(self.now) + self.shift
        status, body = http("GET", f"{self.endpoint}/search/?{urllib.parse.urlencode(params)}")
        if status != 200 or "errors" in body.get("root", {}):
            raise RuntimeError(f"query failed ({status}): {json.dumps(body)[:500]}")
        return body

    def _read_new(self) -> None:
        if not self.impressions.exists():
            return
        with self.impressions.open("rb") as f:
            f.seek(self._offset)
            data = f.read()
        end = data.rfind(b"\n") + 1
        self._offset += end
        for line in data[:end].splitlines():
            if line.strip():
                raw = json.loads(line)
                self._pending[raw["query_id"]] = raw

    def serve(self, views: Sequence[View], timeout: float = 60) -> list[dict[str, Any]]:
        with ThreadPoolExecutor(self.threads) as pool:
            list(pool.map(self._query, views))
        wanted = {v.query_id for v in views}
        deadline = time.time() + timeout
        while True:
            self._read_new()
            if wanted <= self._pending.keys():
                break
            if time.time() > deadline:
                raise TimeoutError(f"{len(wanted - self._pending.keys())} impressions never reached {self.impressions}")
            time.sleep(0.05)
        return [parse_impression(self._pending.pop(v.query_id)) for v in views]

    def _update(self, item: tuple[str, Mapping[str, int]]) -> None:
        """One comment's counter increments. A 429 (the document API's queue is full: the update was not taken) is
        retried after a backoff, as Vespa's feed clients retry it; any other failure, or 429s for ~10 s, raises."""
        cid, inc = item
        for attempt in range(12):
            status, reply = update("comment", cid, {name: {"increment": n} for name, n in inc.items()},
                                   endpoint=self.endpoint)
            if status != 429:
                break
            time.sleep(min(2.0, 0.01 * 2 ** attempt))
        if status != 200:
            raise RuntimeError(f"update of {cid} failed ({status}): {reply}")

    def apply(self, updates: Mapping[str, Mapping[str, int]]) -> int:
        with ThreadPoolExecutor(self.threads) as pool:
            list(pool.map(self._update, updates.items()))
        return len(updates)

    def _put(self, item: tuple[str, Mapping[str, Any]]) -> None:
        """One new comment, `POST /document/v1` (its created_at moved by `shift`); a 429 is retried as in _update."""
        cid, fields = item
        fields = dict(fields) | {"created_at": int(fields["created_at"]) + self.shift}
        for attempt in range(12):
            status, reply = put("comment", cid, fields, endpoint=self.endpoint)
            if status != 429:
                break
            time.sleep(min(2.0, 0.01 * 2 ** attempt))
        if status != 200:
            raise RuntimeError(f"put of {cid} failed ({status}): {reply}")

    def add(self, comments: Mapping[str, Mapping[str, Any]]) -> int:
        """Feeds new comments (a living world's arrivals) through /document/v1, as the counter updates go."""
        with ThreadPoolExecutor(self.threads) as pool:
            list(pool.map(self._put, comments.items()))
        return len(comments)

    def set_model(self, weights: Weights, version: int, profile: str = "neural", timeout: float = 10,
                  curve: Mapping[str, Sequence[float]] | None = None) -> float:
        """Feeds the rankingmodel document (with the run's learning curve so far, when given) and waits
        until queries are ranked by it; returns the seconds from the put's acknowledgement until a query
        reported the new version."""
        document = rankingmodel_put(weights, profile, version, curve=curve)
        status, reply = put("rankingmodel", profile, document["fields"], endpoint=self.endpoint)
        if status != 200:
            raise RuntimeError(f"rankingmodel put failed ({status}): {reply}")
        fed = time.time()
        while time.time() - fed < timeout:
            status, body = http("GET", f"{self.endpoint}/search/?" + urllib.parse.urlencode(
                {"yql": "select * from comment where true", "ranking": profile, "hits": 0}))
            if body.get("root", {}).get("fields", {}).get("model_version") == version:
                self.model_version = version
                return time.time() - fed
            time.sleep(0.02)
        raise TimeoutError(f"model version {version} not live within {timeout} s")
