"""The generator's distributions, within tolerance for fixed seeds, and the consistency of a
tiny corpus. Fast: synthetic sizes or the tiny preset."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from dwell_feed.generate import (PRESETS, article_sizes, author_weights, fit_zipf_exponent, generate,
                                 rankingmodel_lines, threads, write_corpus)
from dwell_feed.texts import load_texts


@pytest.fixture(scope="module")
def texts():
    return load_texts()


@pytest.fixture(scope="module")
def tiny(texts):
    return generate(PRESETS["tiny"], seed=1, texts=texts)


def test_the_texts_are_the_human_rated_snippets(texts) -> None:
    assert len(texts) == 23_703
    assert np.bincount(texts.source).tolist() == [4200, 3708, 10605, 5190]
    assert texts.rating.min() >= -4 and texts.rating.max() <= 4


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_comments_per_article_follow_zipf(seed: int) -> None:
    sizes = article_sizes(np.random.default_rng(seed), 200_000, 2_000, 1.05)
    assert fit_zipf_exponent(sizes, top=200) == pytest.approx(1.05, abs=0.06)


def test_the_largest_w1_article_has_over_100k_comments() -> None:
    w1 = PRESETS["w1"]
    sizes = article_sizes(np.random.default_rng(1), w1.comments, w1.articles, w1.zipf_s)
    assert sizes.max() >= 100_000 and sizes.sum() == 1_000_000


def test_author_activity_is_heavy_tailed() -> None:
    rng = np.random.default_rng(1)
    counts = np.bincount(rng.choice(20_000, size=100_000, p=author_weights(rng, 20_000, 1.5)), minlength=20_000)
    top = np.sort(counts)[::-1]
    assert top[:200].sum() / counts.sum() > 0.08   # the top 1% write over 8%
    assert np.median(counts) <= 4 and top[0] > 20 * counts.mean()


@pytest.mark.parametrize("seed", [1, 2])
def test_threads_reply_share_and_depth(seed: int) -> None:
    rng = np.random.default_rng(seed)
    sizes = article_sizes(rng, 100_000, 2_000, 1.05)
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    quality = rng.random(sizes.sum())
    parent, depth = threads(rng, starts, sizes, quality, reply_prob=0.45, max_depth=6)
    eligible = sizes.sum() - (sizes > 0).sum()   # an article's first comment can't reply
    assert (parent >= 0).sum() / eligible == pytest.approx(0.45, abs=0.01)
    assert depth[depth > 0].mean() == pytest.approx(1.73, abs=0.05)
    by_depth = np.bincount(depth)
    assert len(by_depth) == 7 and all(by_depth[d + 1] < 0.6 * by_depth[d] for d in range(5))
    # Replies go to better comments than average (of two candidates, mostly the better).
    assert quality[parent[parent >= 0]].mean() > quality.mean() + 0.05


def test_a_tiny_corpus_is_consistent(tiny) -> None:
    comments = [c["fields"] for c in tiny.comments]
    ids = [c["put"].split("::")[1] for c in tiny.comments]
    index = {c: i for i, c in enumerate(ids)}
    assert len(comments) == 1_000 and len(tiny.authors) == 300
    children = np.zeros(len(ids), dtype=int)
    for i, c in enumerate(comments):
        assert c["text"].strip() and len(c["text"]) <= 10_000
        assert c["created_at"] <= tiny.now
        if c["parent_id"]:
            p = index[c["parent_id"]]
            assert p < i and comments[p]["article_id"] == c["article_id"]
            assert comments[p]["created_at"] <= c["created_at"]
            children[p] += 1
    assert [c["reply_count"] for c in comments] == children.tolist()
    written = {a["fields"]["author_id"]: a["fields"]["comment_count"] for a in tiny.authors}
    for author, n in zip(*np.unique([c["author_id"] for c in comments], return_counts=True)):
        assert written[author] == n
    assert sum(written.values()) == len(comments)
    for a in tiny.authors:
        assert 0 <= a["fields"]["reputation"] <= 1 and 0 <= a["fields"]["helpful_ratio"] <= 1


def test_the_hidden_quality_stays_out_of_the_documents(tiny) -> None:
    assert {k for c in tiny.comments for k in c["fields"]} == {
        "article_id", "author_id", "parent_id", "text", "created_at", "upvotes", "downvotes", "reply_count",
        "report_count"}
    assert {k for a in tiny.authors for k in a["fields"]} == {
        "author_id", "reputation", "helpful_ratio", "comment_count", "joined_at"}
    truth = {t["comment_id"]: t for t in tiny.truth if "comment_id" in t}
    assert set(truth) == {c["put"].split("::")[1] for c in tiny.comments}


def test_timestamps_cluster_after_publication(tiny) -> None:
    published = {a["article_id"]: a["published_at"] for a in tiny.articles}
    delays = np.array([c["fields"]["created_at"] - published[c["fields"]["article_id"]] for c in tiny.comments])
    assert delays.min() >= 0
    hours = delays / 3600
    assert np.mean(hours < 24) > 0.85
    assert np.mean(hours < 3) > np.mean((hours >= 3) & (hours < 6)) > np.mean((hours >= 6) & (hours < 9))


def test_quality_relates_to_text_and_votes(tiny, texts) -> None:
    corpus = generate(PRESETS["tiny"], seed=5, texts=texts)
    truth = [t for t in corpus.truth if "comment_id" in t]
    q = np.array([t["quality"] for t in truth])
    up = np.array([c["fields"]["upvotes"] for c in corpus.comments])
    down = np.array([c["fields"]["downvotes"] for c in corpus.comments])
    assert np.corrcoef(q, (up + 1) / (up + down + 2))[0, 1] > 0.4
    length = np.array([len(c["fields"]["text"]) for c in corpus.comments])
    assert np.corrcoef(q, np.log(length))[0, 1] > 0.2
    sentiment = np.array([t["sentiment"] for t in truth])
    assert q[sentiment < -2].mean() < q[(sentiment > 0) & (sentiment < 2.5)].mean() - 0.1
    shouting = np.array([t["shouting"] for t in truth])
    assert q[shouting].mean() < q[~shouting].mean() - 0.2


def test_the_same_seed_gives_the_same_files(tmp_path: Path, texts) -> None:
    a = write_corpus(generate(PRESETS["tiny"], seed=3, texts=texts), tmp_path / "a")
    b = write_corpus(generate(PRESETS["tiny"], seed=3, texts=texts), tmp_path / "b")
    c = write_corpus(generate(PRESETS["tiny"], seed=4, texts=texts), tmp_path / "c")
    for name in ("authors", "comments", "truth", "rankingmodel"):
        assert (tmp_path / "a" / f"{name}.jsonl").read_bytes() == (tmp_path / "b" / f"{name}.jsonl").read_bytes()
    assert (tmp_path / "a" / "comments.jsonl").read_bytes() != (tmp_path / "c" / "comments.jsonl").read_bytes()
    assert a == b != c


def test_the_initial_rankingmodel_is_the_package_constants() -> None:
    from dwell_learning.export import read_constants
    from dwell_feed.generate import ROOT

    [put] = rankingmodel_lines()
    assert put["put"] == "id:dwell:rankingmodel::neural" and put["fields"]["version"] == 1
    constants = read_constants(ROOT / "application" / "constants")
    cells = put["fields"]["W_0"]["cells"]
    assert len(cells) == 81
    assert cells[10]["value"] == pytest.approx(float(constants["W_0"][1, 1]))
