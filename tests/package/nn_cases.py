"""Hand-made comments and the scores numpy gives them, for NetworkEvaluationIT.

The Java test evaluates Vespa's derived rank profiles on the same attribute values and must
agree with these numbers. test_nn_cases.py checks that nn_cases.json is what this computes
from the constants now in application/, so the two can't drift apart.

    python tests/package/nn_cases.py > tests/package/nn_cases.json
"""
from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "learning"))

from dwell_learning.export import read_constants  # noqa: E402,F401 (also imported from here)
from dwell_learning.features import CommentSignals, baseline_score, feature_vector  # noqa: E402
from dwell_learning.network import TENSOR_TYPES, forward  # noqa: E402

NOW = 1_763_000_000

CASES = [
    CommentSignals(created_at=NOW - 600, upvotes=12, downvotes=1, reply_count=3, report_count=0,
                   text_length=240, author_reputation=0.8, reads=40, read_ms=610_000),
    CommentSignals(created_at=NOW - 3 * 86400, upvotes=300, downvotes=40, reply_count=25, report_count=2,
                   text_length=1200, author_reputation=0.35, reads=2_500, read_ms=30_000_000),
    CommentSignals(created_at=NOW - 7200, upvotes=0, downvotes=9, reply_count=0, report_count=5,
                   text_length=12, author_reputation=0.05, reads=30, read_ms=41_000),
    # No author document: the imported reputation is NaN, and ranking must read it as 0.
    # Nobody has read it yet.
    CommentSignals(created_at=NOW + 60, upvotes=2, downvotes=0, reply_count=1, report_count=0,
                   text_length=80),
]
AUTHOR_COMMENTS = [120, 4000, 1, 0]  # the authors' comment_count (not a network input)


def query_weights() -> dict[str, np.ndarray]:
    """Weights a rankingmodel document could carry: different from the package's."""
    rng = np.random.default_rng(2026)
    return {name: rng.normal(0, 0.5, shape).astype(np.float32) for name, (_, shape) in TENSOR_TYPES.items()}


def cases() -> dict[str, Any]:
    package = read_constants(ROOT / "application" / "constants")
    alternative = query_weights()
    out = []
    for c, author_comments in zip(CASES, AUTHOR_COMMENTS):
        x = feature_vector(c, NOW)
        out.append({
            "attributes": {
                "created_at": c.created_at, "upvotes": c.upvotes, "downvotes": c.downvotes,
                "reply_count": c.reply_count, "report_count": c.report_count,
                "text_length": c.text_length, "author_reputation": c.author_reputation,
                "author_comment_count": author_comments, "reads": c.reads, "read_ms": c.read_ms,
            },
            "features": x.tolist(),
            "baseline": float(baseline_score(x)),
            "neural_package": float(forward(package, x)),
            "neural_query": float(forward(alternative, x)),
        })
    return {
        "now": NOW,
        "query_model_version": 3,
        "query_weights": {name: w.tolist() for name, w in alternative.items()},
        "cases": out,
    }


def render() -> str:
    return json.dumps(cases(), indent=1, allow_nan=True) + "\n"


if __name__ == "__main__":
    sys.stdout.write(render())
