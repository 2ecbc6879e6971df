"""A small corpus made in memory, with the shape `python -m dwell_feed generate` writes, whose
hidden quality follows features the network sees (length, reputation), so learning can show."""
from __future__ import annotations

import numpy as np

from dwell_learning.service import Corpus

NOW = 1_763_000_000


def corpus(articles: int = 6, per_article: int = 30, seed: int = 0) -> Corpus:
    rng = np.random.default_rng(seed)
    comments, quality, authors, by_article = {}, {}, {}, {}
    for j in range(40):
        authors[f"u{j}"] = {"author_id": f"u{j}", "reputation": float(rng.random()), "comment_count": int(rng.integers(1, 50))}
    for a in range(articles):
        aid = f"a{a}"
        for i in range(per_article):
            cid = f"c{a:02d}{i:03d}"
            author = f"u{int(rng.integers(0, 40))}"
            length = int(rng.integers(5, 400))
            logit = 1.2 * (np.log1p(length) - 4.0) + 2.0 * (authors[author]["reputation"] - 0.5) + rng.normal(0, 0.3)
            comments[cid] = {"article_id": aid, "author_id": author, "text": "x" * length,
                             "created_at": NOW - int(rng.integers(60, 3 * 86400)), "upvotes": int(rng.integers(0, 5)),
                             "downvotes": int(rng.integers(0, 5)), "reply_count": 0, "report_count": 0}
            quality[cid] = float(1 / (1 + np.exp(-logit)))
            by_article.setdefault(aid, []).append(cid)
    return Corpus(comments, authors, quality, by_article, {a: 1 / articles for a in by_article}, NOW)


def write(c: Corpus, directory) -> None:
    """The corpus as files, as the feed's generator writes them (put operations, truth, manifest)."""
    import json
    from pathlib import Path

    d = Path(directory)
    d.mkdir(parents=True, exist_ok=True)
    with (d / "comments.jsonl").open("w") as f:
        for cid, fields in c.comments.items():
            f.write(json.dumps({"put": f"id:dwell:comment::{cid}", "fields": fields}) + "\n")
    with (d / "authors.jsonl").open("w") as f:
        for aid, fields in c.authors.items():
            f.write(json.dumps({"put": f"id:dwell:author::{aid}", "fields": fields}) + "\n")
    with (d / "truth.jsonl").open("w") as f:
        for cid, q in c.quality.items():
            f.write(json.dumps({"comment_id": cid, "article_id": c.comments[cid]["article_id"], "quality": q}) + "\n")
    (d / "manifest.json").write_text(json.dumps({"now": c.now}) + "\n")
