"""The nine network inputs, computed exactly as rank-profile `features` in comment.sd does.

Keep the two in step: the order here is the order of the cells of nn_input.

Seven inputs are what the hand-written baseline reads (or could): freshness, votes, replies,
reports, the author's reputation and the text length. The last two are what readers did with
the comment so far: how many read it, and how long they stayed on it per read (smoothed toward
READ_PRIOR_S seconds by one pseudo-read, so an unread comment is neither good nor bad). Every
read is fed back as a partial update (increments of `reads` and `read_ms`), as votes are.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass

import numpy as np

FEATURE_NAMES: tuple[str, ...] = (
    "freshness",
    "upvotes",
    "downvotes",
    "replies",
    "author_reputation",
    "length",
    "reports",
    "reads",
    "read_time",
)

# Weights of the hand-written baseline over the features above (function baseline).
BASELINE_WEIGHTS = np.array([2.0, 0.5, -0.5, 0.25, 1.0, 0.0, -0.5, 0.0, 0.0])

READ_PRIOR_S = 5.0  # f_read_time of a comment nobody has read yet
READ_PRIOR_LOG_S = math.log(READ_PRIOR_S)  # read_logtime of a comment nobody has read yet (log seconds)
# What the ninth input is: "time", the smoothed seconds per read (read_time, what comment.sd computes); offline only,
# "logtime", the smoothed mean of position-corrected log seconds per read (read_logtime), or "relative", that relative
# to the article's mean (read_relative). learning/README.md, "The position-corrected log read time".
# "logtime+relative" (offline only) keeps read_logtime as the ninth input and adds read_relative as a tenth: the
# network then has ten inputs (learning/README.md, "A tenth input: the read time relative to the article's").
READ_FEATURES: tuple[str, ...] = ("time", "logtime", "relative", "logtime+relative")
# The read features that need the article's read sums (an article document's counters, imported into its comments).
ARTICLE_READ_FEATURES: tuple[str, ...] = ("relative", "logtime+relative")


# Offline only (--text-features): three flags of the comment's text, as a front end could compute them, appended after
# the read inputs. They are the text terms of the corpus generator's quality logit besides length (feed/dwell_feed/
# generate.py: compose_texts writes a shouted text upper case ending in '!!!', a link as ' see www.siteN.example/read';
# quality_logit has words < 4). The source snippets' own "http://url_removed" placeholders are not links the generator
# draws (nor a term of the quality logit): the link flag is a www. address. learning/README.md, "Text inputs".
TEXT_FEATURE_NAMES: tuple[str, ...] = ("shouting", "link", "short")
_LINK = re.compile(r"(?:^|\s)(?:https?://)?www\.\S+")


def input_count(read_feature: str, text_features: bool = False) -> int:
    """How many inputs the network reads with this read feature: 9, or 10 for logtime+relative; 3 more with the
    text flags."""
    return len(FEATURE_NAMES) + (read_feature == "logtime+relative") + (len(TEXT_FEATURE_NAMES) if text_features else 0)


def text_flags(text: str) -> np.ndarray:
    """shouting, link and short (1.0 or 0.0) of a comment's text. link: it contains a www. address; shouting: the text
    before it (or the whole text) has letters, all upper case, and ends with '!!!'; short: fewer than 4
    whitespace-separated words (the whole text, as generate.py counts words)."""
    found = _LINK.search(text)
    bare = (text[: found.start()] if found else text).rstrip()
    if found and bare.endswith(" see"):   # generate.py's link suffix is ' see <address>'
        bare = bare[: -len(" see")].rstrip()
    shouting = bare.endswith("!!!") and any(ch.isalpha() for ch in bare) and bare == bare.upper()
    return np.array([float(shouting), float(found is not None), float(len(text.split()) < 4)], dtype=np.float64)


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
    reads: int = 0
    read_ms: int = 0
    read_logms: int = 0    # sum over reads of 1000 * (log seconds - the position's offset), rounded per read
    article_reads: int = 0        # the same two counters summed over the comment's article (an article document's,
    article_read_logms: int = 0   # imported as author_reputation is): for read_relative


def age_hours(created_at: float, now: float) -> float:
    return max(0.0, now - created_at) / 3600.0


def read_time(reads: int, read_ms: int) -> float:
    """Seconds per read, smoothed: (read_ms / 1000 + READ_PRIOR_S) / (reads + 1)."""
    return (max(0, read_ms) / 1000.0 + READ_PRIOR_S) / (max(0, reads) + 1.0)


def read_logtime(reads: int, read_logms: int) -> float:
    """Mean position-corrected log seconds per read, smoothed by one pseudo-read of log(READ_PRIOR_S):
    (read_logms / 1000 + log(READ_PRIOR_S)) / (reads + 1). read_logms may be negative (reads under a second)."""
    return (read_logms / 1000.0 + READ_PRIOR_LOG_S) / (max(0, reads) + 1.0)


def read_relative(reads: int, read_logms: int, article_reads: int, article_read_logms: int) -> float:
    """The comment's mean position-corrected log seconds per read relative to its article's, smoothed toward the
    article's by one pseudo-read: (read_logms / 1000 - reads * m) / (reads + 1), with m the article's smoothed mean
    (article_read_logms / 1000 + log(READ_PRIOR_S)) / (article_reads + 1). 0 for an unread comment. An article's
    engagement scales all its read times alike: this takes it out."""
    m = (article_read_logms / 1000.0 + READ_PRIOR_LOG_S) / (max(0, article_reads) + 1.0)
    return (read_logms / 1000.0 - max(0, reads) * m) / (max(0, reads) + 1.0)


def feature_vector(c: CommentSignals, now: float, read_feature: str = "time") -> np.ndarray:
    """nn_input for one comment, as float64 (Vespa evaluates the cells in double). `read_feature` (READ_FEATURES)
    picks the ninth input: read_time, read_logtime or read_relative; with "logtime+relative" the ninth is read_logtime
    and a tenth, read_relative, follows."""
    if read_feature not in READ_FEATURES:
        raise ValueError(f"unknown read feature {read_feature!r}; one of {', '.join(READ_FEATURES)}")
    reputation = 0.0 if math.isnan(c.author_reputation) else c.author_reputation
    if read_feature == "logtime+relative":
        return np.append(feature_vector(c, now, "logtime"),
                         read_relative(c.reads, c.read_logms, c.article_reads, c.article_read_logms))
    return np.array(
        [
            math.exp(-age_hours(c.created_at, now) / 24.0),
            math.log1p(max(0, c.upvotes)),
            math.log1p(max(0, c.downvotes)),
            math.log1p(max(0, c.reply_count)),
            reputation,
            math.log1p(max(0, c.text_length)),
            math.log1p(max(0, c.report_count)),
            math.log1p(max(0, c.reads)),
            read_time(c.reads, c.read_ms) if read_feature == "time"
            else read_logtime(c.reads, c.read_logms) if read_feature == "logtime"
            else read_relative(c.reads, c.read_logms, c.article_reads, c.article_read_logms),
        ],
        dtype=np.float64,
    )


def baseline_score(features: np.ndarray) -> np.ndarray:
    """The first-phase score of rank-profile `freshness`, for one vector or a batch (of the first nine inputs: a tenth,
    --read-feature logtime+relative, has no weight in it)."""
    return np.asarray(features)[..., : len(BASELINE_WEIGHTS)] @ BASELINE_WEIGHTS
