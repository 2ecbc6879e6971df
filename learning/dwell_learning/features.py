"""The nine network inputs, computed exactly as rank-profile `features` in comment.sd does.

Keep the two in step: the order here is the order of the cells of nn_input.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

FEATURE_NAMES: tuple[str, ...] = (
    "freshness",
    "upvotes",
    "downvotes",
    "replies",
    "vote_ratio",
    "author_reputation",
    "author_activity",
    "length",
    "reports",
)

# Weights of the hand-written baseline over the features above (function baseline).
BASELINE_WEIGHTS = np.array([2.0, 0.5, -0.5, 0.25, 0.0, 1.0, 0.0, 0.0, -0.5])


@dataclass(frozen=True)
class CommentSignals:
    """The attributes of one comment (and its imported author fields) that ranking reads."""

    created_at: int
    upvotes: int = 0
    downvotes: int = 0
    reply_count: int = 0
    report_count: int = 0
    text_length: int = 0
    author_reputation: float = float("nan")  # NaN: no author document
    author_comment_count: int = 0


def age_hours(created_at: float, now: float) -> float:
    return max(0.0, now - created_at) / 3600.0


def feature_vector(c: CommentSignals, now: float) -> np.ndarray:
    """nn_input for one comment, as float64 (Vespa evaluates the cells in double)."""
    up = max(0, c.upvotes)
    down = max(0, c.downvotes)
    reputation = 0.0 if math.isnan(c.author_reputation) else c.author_reputation
    return np.array(
        [
            math.exp(-age_hours(c.created_at, now) / 24.0),
            math.log1p(up),
            math.log1p(down),
            math.log1p(max(0, c.reply_count)),
            (up + 1.0) / (up + down + 2.0),
            reputation,
            math.log1p(max(0, c.author_comment_count)),
            math.log1p(max(0, c.text_length)),
            math.log1p(max(0, c.report_count)),
        ],
        dtype=np.float64,
    )


def baseline_score(features: np.ndarray) -> np.ndarray:
    """The first-phase score of rank-profile `freshness`, for one vector or a batch."""
    return features @ BASELINE_WEIGHTS
