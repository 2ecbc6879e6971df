"""The learning loop and its experiment: serve with exploration, join impressions with the
readers' signals, estimate off-policy, train, gate, export, repeat.

Each iteration (an "hour" of Yahoo's cycle, compressed to seconds) serves `views` article views
to each of three arms, with the same articles drawn by popularity:

- freshness: rank profile freshness (the hand-written baseline), with exploration;
- learned:   rank profile neural with the live rankingmodel document, with exploration;
- oracle:    the article's comments by hidden quality (no service; a reference, sends no actions).

Readers (simulator.py) read what each view showed; the actions of the freshness and learned
arms go back to the service as counter updates, batch by batch, so features move as readers act.
Then a candidate network is trained on the logs of both explored arms (train.py), evaluated
off-policy on held-out logs of this iteration (estimators.py), and shipped only if the lower
bound of its SNIPS interval beats the live model's estimate on the same logs. A shipped model is
exported three ways (constants, SavedModel -> tf2onnx ONNX, rankingmodel document) and fed.

    python -m dwell_learning.loop --corpus DIR --iterations 10 --runtime-iterations 3 --out DIR
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Mapping

import numpy as np

from .doubly_robust import dr_values, estimate_from_values, fit_readers, gain_from_values
from .estimators import INTERVALS, Logged, bootstrap_counts, estimate, join, mean_interval, snips_difference
from .export import read_constants
from .features import FEATURE_NAMES, READ_FEATURES, baseline_score, input_count
from .network import Weights, forward, linear_weights
from .service import Corpus, OfflineService, RuntimeService, View, load_corpus, sample_views
from .read_curve import PositionCurve
from .simulator import ReaderModel, Readers, counter_updates
from .train import TrainConfig, random_weights, train

if TYPE_CHECKING:
    from .observable import ObservablePosterior

ROOT = Path(__file__).resolve().parents[2]
KINDS = ("cascade", "position", "slate")


@dataclass
class LoopConfig:
    iterations: int = 10
    runtime_iterations: int = 0      # the first ones are served by the running runtime
    views: int = 400                 # per arm and iteration
    batch: int = 100                 # views served before the readers' actions are sent back
    rate: float = 0.1                # exploration's exact cost on the converged model: -2.1% at 0.1, -3.4% at 0.15 (README)
    temperature: float = 0.3
    candidates: int = 40
    hits: int = 10
    init: str = "baseline"           # or "random"
    objective: str = "cascade"
    window: int = 4                  # iterations of logs to train on
    epochs: int = 40
    gate: str = "dr"                 # the estimator of the ship gate: dr (Cascade-DR), cascade or position; kept at
    #                                  dr by the estimator benchmark (README, "Estimator benchmark")
    gate_interval: str = "betting"   # --gate dr: its paired gain's 95% interval (estimators.INTERVALS): betting by the
    #                                  benchmark (README, "The gate's interval and its rule"); normal before
    gate_support: float = 0.0        # ship only if the candidate's greedy slates lie at least this share among the
    #                                  live model's logged candidates (support_share; 0: not checked)
    evaluate_on: str = "learned"     # the logs of the estimates: learned (the live model's) or both
    seed: int = 1
    export_every_ship: bool = True
    deploy_onnx: bool = True         # runtime iterations: deploy a shipped model's ONNX for neural_onnx
    freshness_alone: bool = True     # a reference arm: freshness in a world of its own (see run)
    # Ablations and peers (README, "Ablations, exploration sweep and a peer learner"):
    learner: str = "network"         # network (train.py), fixed (the live model is never retrained) or vw
    drop_features: str = ""          # comma-separated FEATURE_NAMES every trained candidate must not use
    readtime_weight: float = 0.1     # --init readtime: the baseline plus this weight (per second) on read_time
    vw_cb_type: str = "mtr"          # --learner vw: VW's --cb_type (ips, dr, mtr)
    holdout: float = 0.0             # share of the learned arm's views served greedily (rate 0): a held-out share
    explored_value_last: int = 3     # the last iterations whose rows carry the exact value of the explored part
    # A living world (README, "A living world"; arrivals.py): comments arrive during the run. 0: the static world.
    arrivals: float = 0.0            # the site's new comments per simulated hour, in steady state
    iteration_hours: float = 1.0     # simulated hours per iteration (a living world's clock)
    recency: float = 0.0             # readers' taste for newer comments: q' loses recency * (1 - freshness) in logit
    mixture_truth: bool = False      # rows carry the expected dwell of the live and candidate mixtures as served
    save_counters: bool = False      # diagnostics: write the offline replica's counters at the end (counters.json)
    read_feature: str = "time"       # the ninth input (features.READ_FEATURES): time (read_time, seconds per read),
    #                                  logtime (read_logtime, the mean of position-corrected log seconds per read, the
    #                                  position curve fitted on the logged reads: read_curve.PositionCurve) or relative
    #                                  (read_relative: that relative to the article's); the last two offline only;
    #                                  logtime+relative (offline only): read_logtime and read_relative as a tenth input,
    #                                  a 10-9-9-1 network whose models are not exported (the package reads nine)
    text_features: bool = False      # offline only: three more inputs, the text flags shouting, link and short
    #                                  (features.text_flags), after the read inputs; models not exported


@dataclass
class Arm:
    name: str
    profile: str


def _mixture_fn(weights: Weights) -> Callable[[np.ndarray], np.ndarray]:
    return lambda x: forward(weights, x)


@dataclass
class Judged:
    """A candidate against the live model on held-out logs: each estimated off-policy (IPS/SNIPS of KINDS, and "dr",
    Cascade-DR, when there is a reader model), and the paired gain of the candidate that the gate reads."""

    live: dict[str, Any]
    candidate: dict[str, Any]
    gain: float
    gain_ci: tuple[float, float]
    gain_intervals: dict[str, tuple[float, float]] = field(default_factory=dict)   # --gate dr: every construction's

    @property
    def ships(self) -> bool:
        """The gate: the candidate ships only if the lower bound of its paired gain over the live model, on logs it
        was not trained on, is above zero."""
        return self.gain_ci[0] > 0


def judge(evaluation: Logged, live: Weights, candidate: Weights, rate: float, temperature: float,
          readers_fit: Any, gate: str, interval: str = "normal", seed: int = 0) -> Judged:
    """Both models as the mixture policies they are served with (rate, temperature), on `evaluation`; the gain by
    `gate`: "dr" (Cascade-DR with readers_fit, fitted on other logs; no gain without one), or a SNIPS kind. With
    "dr" the gain's 95% interval is `interval`'s (estimators.INTERVALS; bootstrap ones on 2,000 resamples of the
    impressions, drawn with `seed`, shared by both policies), and every other construction's is kept beside it."""
    live_fn, cand_fn = _mixture_fn(live), _mixture_fn(candidate)
    est_live = {k: estimate(evaluation, live_fn, rate, temperature, k) for k in KINDS}
    est_cand = {k: estimate(evaluation, cand_fn, rate, temperature, k) for k in KINDS}
    if readers_fit is not None:
        dr_live = dr_values(evaluation, live_fn, rate, temperature, readers_fit)
        dr_cand = dr_values(evaluation, cand_fn, rate, temperature, readers_fit)
        est_live["dr"], est_cand["dr"] = estimate_from_values(dr_live), estimate_from_values(dr_cand)
    intervals: dict[str, tuple[float, float]] = {}
    if gate == "dr":
        if interval not in INTERVALS:
            raise ValueError(f"unknown gate interval {interval!r}: one of {INTERVALS}")
        if readers_fit is None:
            gain, gain_ci = 0.0, (0.0, 0.0)
        else:
            diff = dr_cand - dr_live
            counts = bootstrap_counts(len(diff), 2000, np.random.default_rng([seed, 29]))
            for method in INTERVALS:
                m, lo, hi = mean_interval(diff, method, counts=counts)
                intervals[method] = (float(lo), float(hi))
            gain, gain_ci = float(diff.mean()), intervals[interval]
    else:
        gain, gain_ci = snips_difference(evaluation, cand_fn, live_fn, rate, temperature, kind=gate)
    return Judged(est_live, est_cand, gain, gain_ci, intervals)


READS = FEATURE_NAMES.index("reads")  # log(1 + reads): above 0 once a comment was read


def true_value(corpus: Corpus, service: OfflineService, readers: Readers, weights: Weights | str, hits: int,
               read_log: Mapping[tuple[str, str], list[dict]] | None = None,
               observable: ObservablePosterior | None = None) -> float:
    """Diagnostics only: the exact expected dwell per view of a greedy ranking on the offline
    replica's current features (readers' noise integrated out, articles by popularity).
    `weights`: network weights, or "freshness" (the baseline), "oracle" (hidden quality q),
    "ceiling" (the true ceiling: by what readers respond to, the perceived quality q' of each comment
    for this article's readers; read time and continuation both rise in q', so this order maximises
    the expected dwell of every view, as test_simulator checks against every order of small cases),
    "linear" (the least-squares fit of q' on the nine features: about the best a ranker of these
    features alone can do), or "informed" (a bound on what reads can reveal: q' itself for every comment read at
    least once so far, E[q' | q] over the taste for the others, so it knows q exactly and the taste of every read
    comment without noise), or "posterior" (the Bayes ranker of the logged reads: E[q' | q, the comment's reads in
    `read_log`] with the reader model known, Readers.posterior_perceived: what the reads as logged, noise and all,
    reveal to a ranker that also knows q), or "observable" (the fair Bayes ranker: E[q' | the comment's documents,
    its reads in `read_log`] with the corpus generator and the reader model known but q not, observable.py;
    `observable`: its precomputed priors, made here if not given). The loop never uses it to decide anything."""
    xs = {a: service.features(a) for a in corpus.popularity}
    if weights == "linear":
        x = np.concatenate(list(xs.values()))
        q = np.concatenate([[readers.perceived(a, c) for c in corpus.by_article[a]] for a in corpus.popularity])
        a1 = np.c_[x, np.ones(len(x))]
        beta = np.linalg.lstsq(a1, q, rcond=None)[0]
    if weights == "observable" and observable is None:
        from .observable import ObservablePosterior

        observable = ObservablePosterior.from_corpus(corpus, readers.model)
    total = 0.0
    for article, share in corpus.popularity.items():
        ids = corpus.by_article[article]
        x = xs[article]
        if weights == "freshness":
            s = baseline_score(x)
        elif weights == "oracle":
            s = np.array([corpus.quality[c] for c in ids])
        elif weights == "ceiling":
            s = np.array([readers.perceived(article, c) for c in ids])
        elif weights == "informed":
            read = x[:, READS] > 0
            s = np.array([readers.perceived(article, c) if r else readers.expected_perceived(article, c)
                          for c, r in zip(ids, read)])
        elif weights == "posterior":
            log = read_log or {}
            s = np.array([readers.posterior_perceived(article, c, log.get((article, c), ())) for c in ids])
        elif weights == "observable":
            s = observable.scores(article, ids, read_log or {}, readers.engagement(article))
        elif weights == "linear":
            s = np.c_[x, np.ones(len(x))] @ beta
        else:
            s = forward(weights, x)
        top = np.argsort(-s, kind="stable")[:hits]
        total += share * readers.expected_dwell(article, [ids[i] for i in top])
    return float(total)


def support_share(corpus: Corpus, service: Any, weights: Weights, live: Weights, candidates: int, hits: int) -> float:
    """What the estimators can see of a model on the live model's logs: per article (by popularity), the share of the
    model's greedy top `hits` over all the article's comments that lies among the live model's best `candidates` (what
    the live model's impressions log as candidates), on the current features. The gate's estimates act on the logged
    candidates only, so a model whose slates leave them is judged on slates it would not show."""
    inside = 0.0
    for article, share in corpus.popularity.items():
        x = service.features(article)
        logged = np.argsort(-forward(live, x), kind="stable")[:candidates]
        top = np.argsort(-forward(weights, x), kind="stable")[:hits]
        inside += share * float(np.isin(top, logged).mean())
    return float(inside)


def supported_value(corpus: Corpus, service: Any, readers: Readers, weights: Weights, live: Weights, candidates: int,
                    hits: int) -> float:
    """Diagnostics only: the expected dwell of the model's greedy slate chosen among the live model's best
    `candidates` comments of each article (the support-restricted value that the estimates aim at)."""
    value = 0.0
    for article, share in corpus.popularity.items():
        ids = corpus.by_article[article]
        x = service.features(article)
        logged = np.argsort(-forward(live, x), kind="stable")[:candidates]
        restricted = logged[np.argsort(-forward(weights, x)[logged], kind="stable")[:hits]]
        value += share * readers.expected_dwell(article, [ids[i] for i in restricted])
    return float(value)


def new_in_ceiling(corpus: Corpus, readers: Readers, hits: int, is_new: Callable[[str], bool]) -> float:
    """Diagnostics: the share of the true ceiling's shown comments (views by popularity) that arrived during the run."""
    total = 0.0
    for article, share in corpus.popularity.items():
        ids = corpus.by_article[article]
        s = np.array([readers.perceived(article, c) for c in ids])
        top = np.argsort(-s, kind="stable")[:hits]
        total += share * float(np.mean([is_new(ids[i]) for i in top]))
    return total


def dropped_features(names: str) -> list[int]:
    """Indices (in FEATURE_NAMES) of a comma-separated list of feature names."""
    from .features import FEATURE_NAMES

    out = []
    for name in filter(None, (n.strip() for n in names.split(","))):
        if name not in FEATURE_NAMES:
            raise ValueError(f"unknown feature {name!r}; one of {', '.join(FEATURE_NAMES)}")
        out.append(FEATURE_NAMES.index(name))
    return out


def readtime_ranker(weight: float) -> dict[str, np.ndarray]:
    """The hand-written baseline plus `weight` per second of the smoothed read time (features.read_time), a linear
    ranker of the same nine inputs, served as the network (network.linear_weights)."""
    from .features import BASELINE_WEIGHTS, FEATURE_NAMES

    w = np.array(BASELINE_WEIGHTS, dtype=np.float64)
    w[FEATURE_NAMES.index("read_time")] = weight
    return linear_weights(w)


def without(weights: Weights, dropped: list[int]) -> dict[str, np.ndarray]:
    """The same network with the input weights of the dropped features at 0: it does not read them."""
    w = {k: np.array(v, dtype=np.float32) for k, v in weights.items()}
    w["W_0"][dropped, :] = 0.0
    return w


def masked(data: Logged, dropped: list[int]) -> Logged:
    """The logs with the dropped features' columns at 0 (what a learner that must not use them sees)."""
    if not dropped:
        return data
    features = []
    for x in data.features:
        x = np.array(x, dtype=np.float64)
        x[:, dropped] = 0.0
        features.append(x)
    return Logged(features, data.scores, data.order, data.rewards, data.rate, data.temperature, data.propensity,
                  data.explored, data.articles, data.unjoined)


def widened(weights: Weights, inputs: int) -> Weights:
    """The same network reading `inputs` inputs: W_0 gets zero rows for the inputs it lacks (so it ignores them)."""
    w0 = np.asarray(weights["W_0"], dtype=np.float32)
    if w0.shape[0] >= inputs:
        return weights
    out = {k: np.array(v, dtype=np.float32) for k, v in weights.items()}
    out["W_0"] = np.vstack([w0, np.zeros((inputs - w0.shape[0], w0.shape[1]), np.float32)])
    return out


def learn(data: Logged, live: Weights, config: LoopConfig, it: int, dropped: list[int]) -> Weights:
    """A candidate from the training logs, by config.learner; `live` itself for the fixed learner."""
    if config.learner == "fixed":
        return live
    if config.learner == "vw":
        from .vw_learner import train_vw

        model = train_vw(masked(data, dropped), config.vw_cb_type, seed=config.seed + it)
        w = model.weights.copy()
        w[dropped] = 0.0
        return linear_weights(w, model.bias)
    candidate = train(masked(data, dropped), without(live, dropped) if dropped else live,
                      TrainConfig(objective=config.objective, epochs=config.epochs, seed=config.seed + it,
                                  temperature=config.temperature))
    return without(candidate, dropped) if dropped else candidate


def explored_value(corpus: Corpus, service: Any, readers: Readers, weights: Weights, candidates: int, hits: int,
                   temperature: float, rng: np.random.Generator, samples: int = 24) -> float:
    """Diagnostics only: the expected dwell per view of the Plackett-Luce part of the mixture around `weights`
    (softmax(score / T) over its best `candidates`, drawn without replacement), articles by popularity: exact per
    drawn slate (Readers.expected_dwell), Monte Carlo over `samples` Gumbel-top-k slates per article."""
    total = 0.0
    for article, share in corpus.popularity.items():
        ids = corpus.by_article[article]
        s = forward(weights, service.features(article))
        top = np.argsort(-s, kind="stable")[:candidates]
        keys = s[top] / temperature + rng.gumbel(size=(samples, len(top)))
        orders = np.argsort(-keys, axis=1, kind="stable")[:, :hits]
        total += share * float(np.mean([readers.expected_dwell(article, [ids[top[i]] for i in o]) for o in orders]))
    return float(total)


def _mixture_value(corpus: Corpus, service: Any, readers: Readers, weights: Weights, config: LoopConfig,
                   it: int) -> float:
    """Diagnostics only: the expected dwell per view of the mixture as served, (1 - rate) greedy + rate explored."""
    greedy = true_value(corpus, service, readers, weights, config.hits)
    pl = explored_value(corpus, service, readers, weights, config.candidates, config.hits, config.temperature,
                        np.random.default_rng([config.seed, it, 31]), samples=48)
    return (1.0 - config.rate) * greedy + config.rate * pl


def oracle_views(corpus: Corpus, readers: Readers, views: list[View], rng: np.random.Generator) -> list[dict]:
    out = []
    for v in views:
        ids = sorted(corpus.by_article[v.article], key=lambda c: -corpus.quality[c])[: v.hits]
        out.append(readers.read(v.query_id, v.article, ids, rng))
    return out


def run(corpus: Corpus, service: Any, config: LoopConfig, out: Path, runtime_service: Any = None,
        log: Callable[[str], None] = print, after_runtime: Callable[[], None] | None = None) -> list[dict[str, Any]]:
    """Runs the loop; returns one row per iteration (also written to out/iterations.jsonl).
    `after_runtime` is called once the runtime iterations are done (to stop the runtime)."""
    out.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(config.seed)
    readers = Readers(corpus.quality, ReaderModel(recency=config.recency), seed=config.seed, comments=corpus.comments)
    package = read_constants(ROOT / "application" / "constants")
    live: Weights = package               # version 0: the package constants
    version = 0
    if config.init not in ("baseline", "random", "readtime"):
        raise ValueError(f"unknown init {config.init!r}")
    if config.learner not in ("network", "fixed", "vw"):
        raise ValueError(f"unknown learner {config.learner!r}")
    dropped = dropped_features(config.drop_features)
    if config.read_feature not in READ_FEATURES:
        raise ValueError(f"unknown read feature {config.read_feature!r}; one of {', '.join(READ_FEATURES)}")
    if config.read_feature != "time" and runtime_service is not None and config.runtime_iterations > 0:
        raise ValueError(f"--read-feature {config.read_feature} is offline only: the package's rank profiles compute read_time")
    if config.text_features and runtime_service is not None and config.runtime_iterations > 0:
        raise ValueError("--text-features is offline only: the package's rank profiles compute nine inputs")
    # the position curve of log read times, fitted on every read logged so far (both arms): with read_logtime, the
    # reads sent back carry their position-corrected log milliseconds (counter read_logms)
    positions = PositionCurve(config.hits) if config.read_feature in ("logtime", "relative", "logtime+relative") else None
    inputs = input_count(config.read_feature, config.text_features)
    if inputs != len(FEATURE_NAMES) and config.learner == "vw":
        raise ValueError(f"these inputs ({inputs}) are not nine: --learner vw reads nine")
    live = package = widened(package, inputs)
    targets = [s for s in (service, runtime_service) if s is not None]
    for s in targets:
        if isinstance(s, OfflineService):
            s.set_model(package, 0)
    if config.init in ("random", "readtime"):
        live, version = (random_weights(config.seed) if config.init == "random" else readtime_ranker(config.readtime_weight)), 1
        live = widened(live, inputs)
        for s in targets:
            s.set_model(live, version)
    # "freshness alone": the baseline served to readers in an offline replica of its own, which
    # only its own readers' actions change. The freshness arm shares its documents with the
    # learned arm, whose readers' votes and reads also lift the baseline (A/B interference); this
    # arm is the baseline as it would be if it were all the traffic, as before any learning.
    alone = (OfflineService(corpus, now=getattr(service, "now", None), read_feature=config.read_feature,
                            text_features=config.text_features)
             if config.freshness_alone else None)
    if isinstance(service, OfflineService):
        if service._features and service.read_feature != config.read_feature:
            raise ValueError("the offline replica's features were computed with another read feature")
        if service._features and service.text_features != config.text_features:
            raise ValueError("the offline replica's features were computed with other text inputs")
        service.read_feature = config.read_feature
        service.text_features = config.text_features
    alone_rng = np.random.default_rng([config.seed, 7])
    world = None
    if config.arrivals > 0:
        from .arrivals import arrive, view_shares, world_from

        world = world_from(corpus, config.arrivals, np.random.default_rng([config.seed, 17]), corpus.published)
        corpus.popularity = view_shares(corpus, world)
        replicas = [s for s in (service, alone) if s is not None]
        _set_clock(world.now, replicas, runtime_service, readers)
    new_ids: set[str] = set()
    read_log: dict[tuple[str, str], list[dict]] = {}   # (article, comment) -> its reads so far: for the Bayes ranker
    # the fair Bayes ranker's priors (observable.py), from the corpus's documents: once a run, static worlds only
    observable = None
    if not config.recency and config.arrivals <= 0:
        from .observable import ObservablePosterior

        observable = ObservablePosterior.from_corpus(corpus, readers.model)
    history: list[Logged] = []
    predicted: dict[str, Any] | None = None      # cascade SNIPS of the policy live next
    predicted_dr: dict[str, Any] | None = None   # its Cascade-DR estimate
    rows = []
    for it in range(config.iterations):
        mode = "runtime" if it < config.runtime_iterations and runtime_service is not None else "offline"
        if mode == "offline" and runtime_service is not None and after_runtime is not None:
            after_runtime()
            after_runtime = None
        svc = runtime_service if mode == "runtime" else service
        started = time.time()
        seconds: dict[str, float] = {"serve": 0.0, "read": 0.0, "update": 0.0}
        logs: dict[str, list[dict]] = {"freshness": [], "learned": []}
        signals: dict[str, dict] = {}
        dwell: dict[str, list[float]] = {"freshness": [], "learned": [], "oracle": [], "freshness_alone": [],
                                         "learned_holdout": [], "learned_served": []}
        explored: dict[str, list[bool]] = {"freshness": [], "learned": []}
        living: dict[str, Any] = {}
        if world is None:
            articles = sample_views(corpus, config.views, "x", 0, 1, 1, 1, rng)
        else:
            batches = -(-config.views // config.batch)
            t_start, step = world.now, round(config.iteration_hours * 3600 / batches)
            living = {"arrivals": 0, "expected": world.expected(t_start, t_start + batches * step), "fed_s": 0.0,
                      "candidates": 0, "new_candidates": 0, "shown": 0, "new_shown": 0}
        for b in range(0, config.views, config.batch):
            if world is not None:
                # the comments of the next slice of the hour arrive, the clock moves, then this batch's views come
                ids = arrive(corpus, world, world.now + step)
                new_ids.update(ids)
                for s in replicas:
                    s.arrived(ids)
                if mode == "runtime" and ids:
                    t0 = time.time()
                    svc.add({c: corpus.comments[c] for c in ids})
                    living["fed_s"] += time.time() - t0
                _set_clock(world.now, replicas, runtime_service, readers)
                living["arrivals"] += len(ids)
                chunk = sample_views(corpus, min(config.batch, config.views - b), "x", 0, 1, 1, 1, rng)
            else:
                chunk = articles[b: b + config.batch]
            actions: list[dict] = []
            # the held-out share of the learned arm: views served greedily (rate 0), drawn apart from the readers' rng
            held = np.random.default_rng([config.seed, it, b, 11]).random(len(chunk)) < config.holdout
            for arm, profile in (("freshness", "freshness"), ("learned", "neural")):
                views = [View(f"{it}-{arm}-{v.query_id}", v.article, profile,
                              0.0 if arm == "learned" and h else config.rate, config.temperature,
                              config.candidates, config.hits, v.seed) for v, h in zip(chunk, held)]
                t0 = time.time()
                impressions = svc.serve(views)
                seconds["serve"] += time.time() - t0
                t0 = time.time()
                for imp in impressions:
                    shown = [imp["ids"][c] for c in imp["shown"]]
                    sig = readers.read(imp["query_id"], imp["article"], shown, rng)
                    signals[imp["query_id"]] = sig
                    actions.append(sig)
                    dwell[arm].append(sig["dwell"])
                    explored[arm].append(imp["explored"])
                    if arm == "learned" and config.holdout > 0:
                        dwell["learned_holdout" if imp["rate"] == 0 else "learned_served"].append(sig["dwell"])
                seconds["read"] += time.time() - t0
                logs[arm].extend(impressions)
                if world is not None:
                    for imp in impressions:
                        living["candidates"] += len(imp["ids"])
                        living["new_candidates"] += sum(c in new_ids for c in imp["ids"])
                        living["shown"] += len(imp["shown"])
                        living["new_shown"] += sum(imp["ids"][c] in new_ids for c in imp["shown"])
            for sig in actions:
                for r in sig["reads"]:
                    read_log.setdefault((sig["article"], r["id"]), []).append(r)
            t0 = time.time()
            if positions is not None:
                positions.add(actions)
            updates = counter_updates(actions, positions.offsets if positions is not None else None)
            svc.apply(updates)
            if mode == "runtime":
                service.apply(updates)   # the offline replica mirrors the runtime's counters
            seconds["update"] += time.time() - t0
            oracle = oracle_views(corpus, readers, [View(f"{it}-oracle-{v.query_id}", v.article, "oracle", 0, 1, 0,
                                                          config.hits, v.seed) for v in chunk], rng)
            dwell["oracle"].extend(s["dwell"] for s in oracle)
            if alone is not None:
                served = alone.serve([View(f"{it}-alone-{v.query_id}", v.article, "freshness", config.rate,
                                           config.temperature, config.candidates, config.hits, v.seed) for v in chunk])
                own = [readers.read(imp["query_id"], imp["article"], [imp["ids"][c] for c in imp["shown"]], alone_rng)
                       for imp in served]
                alone.apply(counter_updates(own, positions.offsets if positions is not None else None))
                dwell["freshness_alone"].extend(s["dwell"] for s in own)

        # Join, split, train, estimate, gate.
        joined = join(logs["freshness"] + logs["learned"], signals)
        # Held out (the candidate never trained on it). By default the live model's own logs:
        # the candidate is closer to the live model than to freshness, so its weights are smaller,
        # and the live model's estimate is then its on-policy mean.
        evaluation = join(logs["learned"], signals) if config.evaluate_on == "learned" else joined
        t0 = time.time()
        readers_fit = None
        if history:
            data = _concat(history[-config.window:])
            candidate = learn(data, live, config, it, dropped)
            # The reader model of Cascade-DR: fitted on the training logs, not on the logs it
            # evaluates (cross-fitting).
            readers_fit = fit_readers(data)
        else:
            candidate = live                 # the first iteration only collects
        history.append(joined)
        seconds["train"] = time.time() - t0
        t0 = time.time()
        judged = judge(evaluation, live, candidate, config.rate, config.temperature, readers_fit, config.gate,
                       config.gate_interval, seed=config.seed * 1000 + it)
        est_live, est_cand, diff, diff_ci = judged.live, judged.candidate, judged.gain, judged.gain_ci
        seconds["estimate"] = time.time() - t0
        support = (support_share(corpus, service, candidate, live, config.candidates, config.hits)
                   if candidate is not live and (config.gate_support > 0 or config.mixture_truth) else None)
        ship = judged.ships and candidate is not live and (config.gate_support <= 0 or support >= config.gate_support)
        learned_dwell = float(np.mean(dwell["learned"]))
        row: dict[str, Any] = {
            "iteration": it, "mode": mode, "model_version": version, "rate": config.rate,
            # what the join covered: every impression served this iteration, those with a reader signal, those without
            "join": {"impressions": len(logs["freshness"]) + len(logs["learned"]), "joined": len(joined), "unjoined": joined.unjoined},
            "dwell_freshness": float(np.mean(dwell["freshness"])),
            "dwell_learned": learned_dwell,
            "dwell_oracle": float(np.mean(dwell["oracle"])),
            "dwell_freshness_alone": float(np.mean(dwell["freshness_alone"])) if dwell["freshness_alone"] else None,
            "learned_greedy": _mean(dwell["learned"], explored["learned"], False),
            "learned_explored": _mean(dwell["learned"], explored["learned"], True),
            "freshness_greedy": _mean(dwell["freshness"], explored["freshness"], False),
            "freshness_explored": _mean(dwell["freshness"], explored["freshness"], True),
            "predicted_snips": predicted["snips"] if predicted else None,
            "predicted_snips_lo": predicted["snips_lo"] if predicted else None,
            "predicted_snips_hi": predicted["snips_hi"] if predicted else None,
            "predicted_ips": predicted["ips"] if predicted else None,
            "predicted_dr": predicted_dr["ips"] if predicted_dr else None,
            "predicted_dr_lo": predicted_dr["ips_lo"] if predicted_dr else None,
            "predicted_dr_hi": predicted_dr["ips_hi"] if predicted_dr else None,
            "live_estimate": {k: e.row() for k, e in est_live.items()},
            "candidate_estimate": {k: e.row() for k, e in est_cand.items()}, "shipped": bool(ship),
            "gain": diff, "gain_ci": list(diff_ci), "gain_estimator": config.gate, "candidate_support": support,
            "gain_interval": config.gate_interval if config.gate == "dr" else "percentile",
            "gain_intervals": {k: list(v) for k, v in judged.gain_intervals.items()},
            "true_live": true_value(corpus, service, readers, live, config.hits),
            "true_freshness": true_value(corpus, service, readers, "freshness", config.hits),
            "true_oracle": true_value(corpus, service, readers, "oracle", config.hits),
            "true_ceiling": true_value(corpus, service, readers, "ceiling", config.hits),
            "true_linear": true_value(corpus, service, readers, "linear", config.hits),
            "true_informed": true_value(corpus, service, readers, "informed", config.hits),
            **({"true_posterior": true_value(corpus, service, readers, "posterior", config.hits, read_log)}
               if not config.recency else {}),
            **({"true_observable": true_value(corpus, service, readers, "observable", config.hits, read_log,
                                              observable)}
               if observable is not None else {}),
            "true_candidate": true_value(corpus, service, readers, candidate, config.hits),
            # the gate judges the mixtures as served: their exact greedy part and a Monte Carlo Plackett-Luce part
            # (explored_value, 48 slates an article, the same draws for both)
            **({"true_candidate_mixture": _mixture_value(corpus, service, readers, candidate, config, it),
                "true_live_mixture": _mixture_value(corpus, service, readers, live, config, it),
                "true_candidate_supported": supported_value(corpus, service, readers, candidate, live,
                                                            config.candidates, config.hits)}
               if config.mixture_truth and candidate is not live else {}),
            "learned_holdout": float(np.mean(dwell["learned_holdout"])) if dwell["learned_holdout"] else None,
            "learned_served": float(np.mean(dwell["learned_served"])) if dwell["learned_served"] else None,
            "holdout_views": len(dwell["learned_holdout"]),
            # read_logtime's position curve as fitted at the end of the iteration (log seconds against position 0)
            "position_offsets": positions.offsets.tolist() if positions is not None else None,
        }
        if world is not None:
            row["living"] = {
                "now": world.now, "arrivals": living["arrivals"], "arrivals_expected": living["expected"],
                "articles_born": world.born, "comments": len(corpus.comments), "new_comments": len(new_ids),
                "viewed_articles": len(corpus.popularity), "fed_s": round(living["fed_s"], 2),
                "new_share_candidates": living["new_candidates"] / max(1, living["candidates"]),
                "new_share_shown": living["new_shown"] / max(1, living["shown"]),
                "new_share_ceiling": new_in_ceiling(corpus, readers, config.hits, new_ids.__contains__),
            }
        if it >= config.iterations - config.explored_value_last:
            # the exact expected dwell of the live model's explored part (Plackett-Luce over its candidates), so
            # that the cost of exploring at rate r is r * (this / true_live - 1), free of the readers' noise
            row["true_live_pl"] = explored_value(corpus, service, readers, live, config.candidates, config.hits,
                                                 config.temperature, np.random.default_rng([config.seed, it, 13]))
        if ship:
            version += 1
            live = candidate
            t0 = time.time()
            if config.export_every_ship and inputs == len(FEATURE_NAMES):   # the exports' tensors are nine wide
                from .tf_export import agreement, export_all

                exported = export_all(candidate, out / "models" / f"v{version}", "neural", version)
                probe = np.concatenate(evaluation.features)[:512]
                row["export_agreement"] = agreement(candidate, exported, probe)
            seconds["export"] = time.time() - t0
            if mode == "runtime":   # the runtime's rankingmodel document carries the curve so far (the page draws it)
                curve = {"learned": [r["dwell_learned"] for r in rows] + [row["dwell_learned"]],
                         "freshness": [r["dwell_freshness"] for r in rows] + [row["dwell_freshness"]]}
                row["live_after_s"] = svc.set_model(candidate, version, curve=curve)
                service.set_model(candidate, version)
                if config.deploy_onnx and config.export_every_ship and inputs == len(FEATURE_NAMES):
                    from dwell_client import deploy

                    from .deploy import onnx_disagreement, package_with_model

                    package = package_with_model(out / "models" / f"v{version}", out / "deploy" / f"v{version}")
                    row["onnx_deploy_s"] = deploy(package)
                    row["onnx_disagreement"] = onnx_disagreement(candidate, evaluation.articles[0])
            else:
                row["live_after_s"] = svc.set_model(candidate, version)
            predicted, predicted_dr = est_cand["cascade"].row(), _row(est_cand.get("dr"))
        else:
            predicted, predicted_dr = est_live["cascade"].row(), _row(est_live.get("dr"))
        row["seconds"] = {k: round(v, 2) for k, v in seconds.items()} | {"total": round(time.time() - started, 2)}
        rows.append(row)
        with (out / "iterations.jsonl").open("a") as f:
            f.write(json.dumps(row) + "\n")
        log(f"it {it:2d} [{mode:7s}] v{row['model_version']}: dwell fresh {row['dwell_freshness']:6.2f} "
            f"learned {row['dwell_learned']:6.2f} oracle {row['dwell_oracle']:6.2f} | "
            f"predicted {_fmt(row['predicted_snips'])}/{_fmt(row['predicted_dr'])} | live est "
            f"{est_live.get(config.gate, est_live['cascade']).snips:6.2f} "
            f"cand {est_cand['cascade'].snips:6.2f}/{_fmt(est_cand['dr'].ips if 'dr' in est_cand else None)} "
            f"gain {diff:+.2f} [{diff_ci[0]:+.2f}, {diff_ci[1]:+.2f}] {'SHIP' if ship else 'keep'} "
            f"| true live {row['true_live']:.2f} cand {row['true_candidate']:.2f} | {row['seconds']['total']:.1f} s")
    if config.save_counters and isinstance(service, OfflineService):
        (out / "counters.json").write_text(json.dumps({"now": service._now(), "counters": service.counters}))
    return rows


def _set_clock(now: float, replicas: list[OfflineService], runtime_service: Any, readers: Readers) -> None:
    """A living world's clock, everywhere freshness is computed: the replicas, the runtime's queries, the readers."""
    for s in replicas:
        s.now = now
    if runtime_service is not None:
        runtime_service.now = now
    readers.now = now


def _row(e: Any) -> dict[str, Any] | None:
    return e.row() if e is not None else None


def _fmt(v: float | None) -> str:
    return "   -  " if v is None else f"{v:6.2f}"


def _mean(values: list[float], flags: list[bool], flag: bool) -> float | None:
    chosen = [v for v, f in zip(values, flags) if f == flag]
    return float(np.mean(chosen)) if chosen else None


def _concat(parts: list[Logged]) -> Logged:
    k = max(p.rewards.shape[1] for p in parts)
    pad = [np.pad(p.rewards, ((0, 0), (0, k - p.rewards.shape[1]))) for p in parts]
    return Logged(sum((p.features for p in parts), []), sum((p.scores for p in parts), []),
                  sum((p.order for p in parts), []), np.concatenate(pad),
                  np.concatenate([p.rate for p in parts]), np.concatenate([p.temperature for p in parts]),
                  np.concatenate([p.propensity for p in parts]), np.concatenate([p.explored for p in parts]),
                  None if any(p.articles is None for p in parts) else sum((p.articles for p in parts), []))
