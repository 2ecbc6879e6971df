"""Diagnostics: how much of the true ceiling a ranker of given inputs could reach on a run's final counters, if it knew
the best mapping from those inputs to what readers respond to.

    PYTHONPATH=learning .venv/bin/python -m dwell_learning.feature_ceiling --corpus DIR --run RUN_DIR

RUN_DIR is a run of the loop with --save-counters 1 (counters.json: the offline replica's counters at the end, reads
fed with read_logms, i.e. --read-feature logtime). For each input set, a gradient-boosted regression of q' (the
perceived quality, Readers.perceived: hidden, diagnostics only) on the inputs is fitted on half of the articles and
ranks the other half (cross-fitted by article, so no comment is ranked by a fit that saw its own q'); the expected
greedy dwell of its rankings (loop.true_value's sum, articles by popularity) is reported as a share of the true
ceiling. Input sets: the nine inputs with read_time or with read_logtime; those plus logit q (what a learner that knew
q could make of the same reads); logit q with the two read inputs only; the nine with read_logtime plus an article-level
readout (the article's mean log read time, or its hidden engagement) or plus read_relative (the tenth input of
--read-feature logtime+relative); and for reference the q oracle and the true ceiling.
"""
from __future__ import annotations

import argparse
import json
import math
from pathlib import Path
from typing import Callable, Sequence

import numpy as np

from .loop import READS
from .service import Corpus, OfflineService, load_corpus
from .simulator import ReaderModel, Readers


def share_of_ceiling(corpus: Corpus, readers: Readers, scores: dict[str, np.ndarray], hits: int) -> float:
    """Expected greedy dwell of ranking each article by `scores` (corpus order), over the true ceiling's."""
    value, ceiling = 0.0, 0.0
    for article, share in corpus.popularity.items():
        ids = corpus.by_article[article]
        top = np.argsort(-scores[article], kind="stable")[:hits]
        value += share * readers.expected_dwell(article, [ids[i] for i in top])
        q = np.array([readers.perceived(article, c) for c in ids])
        ceiling += share * readers.expected_dwell(article, [ids[i] for i in np.argsort(-q, kind="stable")[:hits]])
    return value / ceiling


def cross_fitted(corpus: Corpus, inputs: dict[str, np.ndarray], target: dict[str, np.ndarray], seed: int,
                 make: Callable[[], object]) -> dict[str, np.ndarray]:
    """Per article, the prediction of a regressor fitted on the other half of the articles (two folds by article)."""
    articles = list(corpus.popularity)
    fold = np.random.default_rng(seed).permutation(len(articles)) % 2
    out: dict[str, np.ndarray] = {}
    for k in (0, 1):
        train = [a for a, f in zip(articles, fold) if f != k]
        model = make()
        model.fit(np.concatenate([inputs[a] for a in train]), np.concatenate([target[a] for a in train]))
        for a, f in zip(articles, fold):
            if f == k:
                out[a] = model.predict(inputs[a])
    return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, required=True)
    parser.add_argument("--run", type=Path, required=True, help="a run directory with counters.json and config.json")
    args = parser.parse_args(argv)
    from sklearn.ensemble import HistGradientBoostingRegressor

    config = json.loads((args.run / "config.json").read_text())
    state = json.loads((args.run / "counters.json").read_text())
    corpus = load_corpus(args.corpus)
    readers = Readers(corpus.quality, ReaderModel(), seed=int(config["seed"]))
    hits = int(config["hits"])
    x: dict[str, dict[str, np.ndarray]] = {}
    for feature in ("time", "logtime", "logtime+relative"):
        service = OfflineService(corpus, now=state["now"], counters=state["counters"], read_feature=feature)
        x[feature] = {a: service.features(a) for a in corpus.popularity}
    logit_q = {a: np.array([[math.log(min(max(corpus.quality[c], 1e-6), 1 - 1e-6) / (1 - min(max(corpus.quality[c], 1e-6), 1 - 1e-6)))]
                            for c in corpus.by_article[a]]) for a in corpus.popularity}
    target = {a: np.array([readers.perceived(a, c) for c in corpus.by_article[a]]) for a in corpus.popularity}
    make = lambda: HistGradientBoostingRegressor(max_iter=300, learning_rate=0.05, random_state=0)  # noqa: E731
    rows = {
        "true ceiling (by q')": {a: target[a] for a in corpus.popularity},
        "q oracle (by q)": {a: logit_q[a][:, 0] for a in corpus.popularity},
    }
    for feature, name in (("time", "read_time"), ("logtime", "read_logtime")):
        rows[f"best ranker of the nine inputs with {name}"] = cross_fitted(corpus, x[feature], target, 1, make)
        rows[f"... with {name}, plus logit q"] = cross_fitted(
            corpus, {a: np.c_[x[feature][a], logit_q[a]] for a in corpus.popularity}, target, 1, make)
        rows[f"logit q, reads and {name} (what the Bayes ranker knows, in these two counters)"] = cross_fitted(
            corpus, {a: np.c_[logit_q[a], x[feature][a][:, READS:]] for a in corpus.popularity}, target, 1, make)
    # The article's engagement scales every read time of the article: the Bayes ranker knows it, no comment's inputs do.
    # Its readout from the counters: the article's mean position-corrected log seconds over all its reads.
    counters = state["counters"]
    article_log = {}
    for a in corpus.popularity:
        n = sum(counters.get(c, {}).get("reads", 0) for c in corpus.by_article[a])
        logms = sum(counters.get(c, {}).get("read_logms", 0) for c in corpus.by_article[a])
        article_log[a] = logms / 1000 / n if n else math.log(5.0)
    log_g = {a: math.log(readers.engagement(a)) for a in corpus.popularity}
    for extra, column in (("the article's mean log read time", article_log), ("log engagement (hidden)", log_g)):
        rows[f"nine inputs with read_logtime, plus {extra}"] = cross_fitted(
            corpus, {a: np.c_[x["logtime"][a], np.full(len(x["logtime"][a]), column[a])] for a in corpus.popularity},
            target, 1, make)
        rows[f"logit q, reads and read_logtime, plus {extra}"] = cross_fitted(
            corpus, {a: np.c_[logit_q[a], x["logtime"][a][:, READS:], np.full(len(logit_q[a]), column[a])]
                     for a in corpus.popularity}, target, 1, make)
    rows["nine inputs with read_logtime, plus read_relative (--read-feature logtime+relative)"] = cross_fitted(
        corpus, x["logtime+relative"], target, 1, make)
    rows["logit q, reads and read_logtime, plus read_relative"] = cross_fitted(
        corpus, {a: np.c_[logit_q[a], x["logtime+relative"][a][:, READS:]] for a in corpus.popularity}, target, 1, make)
    result = {name: share_of_ceiling(corpus, readers, s, hits) for name, s in rows.items()}
    read_share = float(np.mean(np.concatenate([x["time"][a][:, READS] > 0 for a in corpus.popularity])))
    result["share of comments read at least once"] = read_share
    (args.run / "feature_ceiling.json").write_text(json.dumps(result, indent=1) + "\n")
    for name, v in result.items():
        print(f"{v:7.1%}  {name}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
