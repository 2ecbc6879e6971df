"""Simulated readers whose ground truth is known (see learning/README.md, "The reader model").

A reader of an article view opens the comment section or not, then reads the shown comments
top to bottom (a cascade): every comment reached is read, for a time that grows with how good
that comment looks to this article's readers, and the reader goes on to the next with a
probability that grows with it too and shrinks with the reader's fatigue. While reading, the
reader may upvote, downvote, reply to or report the comment. Dwell on the comment section is
the sum of the read times.

"Looks good to this article's readers" is the comment's hidden quality from the corpus
(truth.jsonl) moved by an article-level taste: a fixed random offset on the quality logit per
(article, comment) pair, and an article-level engagement factor on read times. Neither is
visible to ranking; both are deterministic under the simulator's seed, so every view of the
same article sees the same taste.
"""
from __future__ import annotations

import math
import zlib
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping

import numpy as np


@dataclass(frozen=True)
class ReaderModel:
    open_prob: float = 0.85            # a view's reader opens the comment section
    patience_a: float = 9.0            # per-reader patience ~ Beta(a, b), mean 0.9
    patience_b: float = 1.0
    continue_floor: float = 0.2        # P(next) = patience * (floor + (1 - floor) q') * fatigue^k
    fatigue: float = 0.97              # per position, on read time and on going on
    read_base_s: float = 1.0           # read time = engagement * (base + gain q'^2) * fatigue^k * noise
    read_gain_s: float = 24.0
    read_noise_sd: float = 0.3         # lognormal noise of a read time
    taste_sd: float = 0.5              # article-level taste: N(0, sd) on the quality logit per pair
    engagement_sd: float = 0.25        # article-level engagement: lognormal factor on read times
    vote_prob: float = 0.15            # a read comment gets a vote ...
    up_floor: float = 0.1              # ... an upvote with P = floor + 0.85 q' (the corpus's p_up)
    reply_base: float = 0.02           # a reply with P = base + gain q'
    reply_gain: float = 0.10
    report_gain: float = 0.2           # a report with P = gain * max(0, 0.3 - q')
    recency: float = 0.0               # a living world's readers: q' loses recency * (1 - freshness) on its logit as
    #                                    the comment ages (freshness = exp(-age_h / 24), the ranking feature); 0: none


# Probabilists' Gauss-Hermite nodes and weights, normalised to integrate against the standard normal density.
_HERMITE_NODES, _HERMITE_WEIGHTS = np.polynomial.hermite_e.hermegauss(40)
_HERMITE_WEIGHTS = _HERMITE_WEIGHTS / math.sqrt(2 * math.pi)
# A uniform grid of the taste for posteriors (Readers.posterior_perceived), with the standard normal density as weights.
_TASTE_GRID = np.linspace(-6.0, 6.0, 601)
_TASTE_PRIOR = np.exp(-_TASTE_GRID ** 2 / 2)


def _pair_seed(seed: int, *names: str) -> list[int]:
    return [seed, *(zlib.crc32(n.encode()) for n in names)]


@dataclass
class Readers:
    quality: Mapping[str, float]       # comment id -> hidden quality in (0, 1)
    model: ReaderModel = field(default_factory=ReaderModel)
    seed: int = 0
    comments: Mapping[str, Mapping[str, Any]] | None = None   # id -> fields (created_at): for model.recency
    now: float | None = None                                  # the world's clock: for model.recency
    _taste: dict = field(default_factory=dict)
    _engagement: dict = field(default_factory=dict)

    def perceived(self, article: str, comment: str) -> float:
        """q': the hidden quality as this article's readers see it (and, with model.recency, as old as it is now)."""
        if self.model.recency and self.now is not None and self.comments is not None:
            return self._aged(article, comment)
        key = (article, comment)
        if key not in self._taste:
            z = np.random.default_rng(_pair_seed(self.seed, article, comment)).normal()
            q = min(max(self.quality[comment], 1e-6), 1 - 1e-6)
            logit = math.log(q / (1 - q)) + self.model.taste_sd * z
            self._taste[key] = 1.0 / (1.0 + math.exp(-logit))
        return self._taste[key]

    def _aged(self, article: str, comment: str) -> float:
        key = (article, comment, "logit")
        if key not in self._taste:
            z = np.random.default_rng(_pair_seed(self.seed, article, comment)).normal()
            q = min(max(self.quality[comment], 1e-6), 1 - 1e-6)
            self._taste[key] = math.log(q / (1 - q)) + self.model.taste_sd * z
        age_h = max(0.0, self.now - float(self.comments[comment]["created_at"])) / 3600.0
        freshness = math.exp(-age_h / 24.0)
        return 1.0 / (1.0 + math.exp(-(self._taste[key] - self.model.recency * (1.0 - freshness))))

    def expected_perceived(self, article: str, comment: str) -> float:
        """E[q'] over the article's taste z ~ N(0, 1), for a comment whose taste nobody has seen (Gauss-Hermite, 40
        nodes: exact to ~1e-12 here). Diagnostics only: what the most a ranker can know of q' without reads."""
        q = min(max(self.quality[comment], 1e-6), 1 - 1e-6)
        shift = 0.0
        if self.model.recency and self.now is not None and self.comments is not None:
            age_h = max(0.0, self.now - float(self.comments[comment]["created_at"])) / 3600.0
            shift = self.model.recency * (1.0 - math.exp(-age_h / 24.0))
        logits = math.log(q / (1 - q)) + self.model.taste_sd * _HERMITE_NODES - shift
        return float(np.dot(_HERMITE_WEIGHTS, 1.0 / (1.0 + np.exp(-logits))))

    def posterior_perceived(self, article: str, comment: str, reads: Iterable[Mapping[str, Any]]) -> float:
        """E[q' | q, the logged reads of this comment in this article], with this reader model known: the Bayes
        estimate of what readers respond to from what was logged (each read's seconds, position and vote, reply and
        report), over the taste z ~ N(0, 1) on a grid of 601 points in [-6, 6] (a posterior after many reads is
        narrower than the Hermite nodes' spacing). A read's seconds
        are lognormal around engagement * (base + gain q'^2) * fatigue^position; a vote is up with P = floor + 0.85 q'
        (whether there was one does not depend on q'); a reply and a report are Bernoulli in q'. Whether the reader
        went on after it is not used (it also depends on the reader's patience). Diagnostics only."""
        if self.model.recency:
            raise ValueError("posterior_perceived supports the static world only (recency 0)")
        m = self.model
        q = min(max(self.quality[comment], 1e-6), 1 - 1e-6)
        perceived = 1.0 / (1.0 + np.exp(-(math.log(q / (1 - q)) + m.taste_sd * _TASTE_GRID)))
        log_likelihood = np.zeros_like(perceived)
        g = self.engagement(article)
        for r in reads:
            mean = (np.log(g * (m.read_base_s + m.read_gain_s * perceived ** 2)) + r["position"] * math.log(m.fatigue)
                    - m.read_noise_sd ** 2 / 2)
            log_likelihood += -0.5 * ((math.log(max(r["seconds"], 1e-9)) - mean) / m.read_noise_sd) ** 2
            up = m.up_floor + 0.85 * perceived
            if r["upvote"]:
                log_likelihood += np.log(up)
            elif r["downvote"]:
                log_likelihood += np.log1p(-up)
            reply = m.reply_base + m.reply_gain * perceived
            log_likelihood += np.log(reply) if r["reply"] else np.log1p(-reply)
            report = m.report_gain * np.maximum(0.0, 0.3 - perceived)
            log_likelihood += np.log(np.maximum(report, 1e-300)) if r["report"] else np.log1p(-report)
        weights = _TASTE_PRIOR * np.exp(log_likelihood - log_likelihood.max())
        return float(np.dot(weights, perceived) / weights.sum())

    def engagement(self, article: str) -> float:
        if article not in self._engagement:
            z = np.random.default_rng(_pair_seed(self.seed, article)).normal()
            self._engagement[article] = math.exp(self.model.engagement_sd * z - self.model.engagement_sd ** 2 / 2)
        return self._engagement[article]

    def expected_dwell(self, article: str, shown: list[str]) -> float:
        """E[dwell] of a view of `article` that shows `shown`, over readers (exact)."""
        m = self.model
        g = self.engagement(article)
        total, reach = 0.0, m.open_prob
        for k, comment in enumerate(shown):
            q = self.perceived(article, comment)
            tired = m.fatigue ** k
            total += reach * g * (m.read_base_s + m.read_gain_s * q * q) * tired
            # E[patience^(k+1)] / E[patience^k] for Beta(a, b)
            reach *= (m.patience_a + k) / (m.patience_a + m.patience_b + k)
            reach *= (m.continue_floor + (1 - m.continue_floor) * q) * tired
        return total

    def read(self, query_id: str, article: str, shown: list[str], rng: np.random.Generator) -> dict[str, Any]:
        """One reader of one article view: which of the shown comments were read, for how long,
        and what the reader did. Positions past the last read one were not examined."""
        m = self.model
        reads: list[dict[str, Any]] = []
        opened = bool(rng.random() < m.open_prob)
        if opened:
            patience = rng.beta(m.patience_a, m.patience_b)
            g = self.engagement(article)
            for k, comment in enumerate(shown):
                q = self.perceived(article, comment)
                tired = m.fatigue ** k
                seconds = g * (m.read_base_s + m.read_gain_s * q * q) * tired * math.exp(
                    m.read_noise_sd * rng.normal() - m.read_noise_sd ** 2 / 2)
                vote = rng.random() < m.vote_prob
                up = vote and rng.random() < m.up_floor + 0.85 * q
                reads.append({
                    "position": k, "id": comment, "seconds": round(float(seconds), 4),
                    "upvote": bool(up), "downvote": bool(vote and not up),
                    "reply": bool(rng.random() < m.reply_base + m.reply_gain * q),
                    "report": bool(rng.random() < m.report_gain * max(0.0, 0.3 - q)),
                })
                if rng.random() >= patience * (m.continue_floor + (1 - m.continue_floor) * q) * tired:
                    break
        return {"query_id": query_id, "article": article, "opened": opened, "shown": len(shown),
                "dwell": round(sum(r["seconds"] for r in reads), 4), "reads": reads}


def counter_updates(signals: Iterable[Mapping[str, Any]],
                    position_offsets: np.ndarray | None = None) -> dict[str, dict[str, int]]:
    """Per comment, the counter increments that the readers' actions add up to: every read
    (`reads` +1, `read_ms` + its milliseconds) and every vote, reply and report. With `position_offsets` (the position
    curve of log read times estimated from the logs, read_curve.PositionCurve), every read also adds its
    position-corrected log milliseconds to `read_logms` (read_curve.corrected_log_ms)."""
    from .read_curve import corrected_log_ms

    out: dict[str, dict[str, int]] = {}
    names = {"upvote": "upvotes", "downvote": "downvotes", "reply": "reply_count", "report": "report_count"}
    for s in signals:
        for r in s["reads"]:
            row = out.setdefault(r["id"], {})
            row["reads"] = row.get("reads", 0) + 1
            row["read_ms"] = row.get("read_ms", 0) + int(round(1000 * r["seconds"]))
            if position_offsets is not None:
                row["read_logms"] = row.get("read_logms", 0) + corrected_log_ms(r["seconds"], r["position"],
                                                                               position_offsets)
            for action, counter in names.items():
                if r[action]:
                    row = out.setdefault(r["id"], {})
                    row[counter] = row.get(counter, 0) + 1
    return out


def position_rewards(signal: Mapping[str, Any], shown: int) -> np.ndarray:
    """Dwell per shown position (0 where not read): the per-position rewards of the estimators."""
    r = np.zeros(shown)
    for read in signal["reads"]:
        if read["position"] < shown:
            r[read["position"]] = read["seconds"]
    return r
