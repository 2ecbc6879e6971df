"""A small, hand-made comment section with known signals, for end-to-end tests."""
from __future__ import annotations

import json
from pathlib import Path

from dwell_learning.features import CommentSignals

NOW = 1_763_000_000
ARTICLE = "news-1"

AUTHORS = {"ann": 0.9, "bob": 0.4, "cy": 0.05}
AUTHOR_COMMENTS = {"ann": 300, "bob": 12, "cy": 1}

# comment id -> (author, hours old, upvotes, downvotes, replies, reports, text)
COMMENTS = {
    "c1": ("ann", 1, 40, 2, 6, 0, "A careful reading of the budget shows the cuts fall on schools."),
    "c2": ("bob", 2, 3, 1, 0, 0, "I agree with this."),
    "c3": ("cy", 0.2, 0, 12, 0, 4, "FAKE NEWS!!! www.spam.example"),
    "c4": ("bob", 30, 120, 10, 25, 0, "The minister said the same thing in 2019, and the numbers did not add up then either."),
    "c5": ("ann", 5, 8, 0, 1, 0, "Source: the audit office report, page 14."),
    "c6": ("cy", 70, 1, 0, 0, 0, "first"),
    "c7": ("nobody", 3, 5, 1, 0, 0, "A comment by an author we have no document for."),
}
OTHER_ARTICLE = {"d1": ("ann", 1, 500, 0, 50, 0, "Elsewhere, about something else.")}
# comment id -> (reads, read_ms): what readers did so far; the others are unread.
READS = {"c1": (60, 900_000), "c2": (10, 25_000), "c4": (300, 4_200_000), "d1": (900, 9_000_000)}


def signals(comment_id: str) -> CommentSignals:
    author, hours, up, down, replies, reports, text = {**COMMENTS, **OTHER_ARTICLE}[comment_id]
    return CommentSignals(
        created_at=int(NOW - hours * 3600), upvotes=up, downvotes=down, reply_count=replies,
        report_count=reports, text_length=len(text),
        author_reputation=AUTHORS.get(author, float("nan")),
        reads=READS.get(comment_id, (0, 0))[0], read_ms=READS.get(comment_id, (0, 0))[1],
    )


def feed_lines() -> list[dict]:
    lines: list[dict] = []
    for author, reputation in AUTHORS.items():
        lines.append({"put": f"id:dwell:author::{author}",
                      "fields": {"author_id": author, "reputation": reputation,
                                 "comment_count": AUTHOR_COMMENTS[author]}})
    for article, comments in ((ARTICLE, COMMENTS), ("news-2", OTHER_ARTICLE)):
        for cid, (author, hours, up, down, replies, reports, text) in comments.items():
            lines.append({"put": f"id:dwell:comment::{cid}",
                          "fields": {"article_id": article, "author_id": author, "text": text,
                                     "created_at": int(NOW - hours * 3600), "upvotes": up, "downvotes": down,
                                     "reply_count": replies, "report_count": reports,
                                     **({"reads": READS[cid][0], "read_ms": READS[cid][1]} if cid in READS else {})}})
    return lines


def write_jsonl(path: Path) -> Path:
    path.write_text("".join(json.dumps(line) + "\n" for line in feed_lines()))
    return path
