"""An estimator benchmark with known truth (issue 19, item 5).

For a logging policy (the served exploration mixture around a scorer) and target policies at increasing distances
from it, draw many replicates of logged impressions from the simulator (simulator.Readers reads every view), compute
every estimator's estimate and 95% interval on each replicate, and compare with the TRUE value of the target:

    true value = sum_a share_a [ (1 - rate) E[dwell | greedy slate_a] + rate E_PL[ E[dwell | slate] ] ]

where E[dwell | slate] is Readers.expected_dwell (exact: readers' noise integrated out), the greedy part is exact, and
the Plackett-Luce part is a Monte Carlo average over sampled slates (its standard error is reported; it is far below
the estimators' own errors).

The world of a setting: the articles with at least `candidates` comments (contexts, drawn by their share of views),
each article's candidates = its `candidates` best comments by the logging scorer (features frozen at the corpus's
state: no reader acts back), `hits` shown. Target policies are the same mixture (rate, temperature) over scores
interpolated between the logging scorer's and another scorer's (rescaled to the logging scores' per-article mean and
spread): lambda = 0 is the logging policy itself, lambda = 1 the other scorer. Targets act on the logged candidates
(as the loop's estimates do), so support is never an issue of the candidate set.

    PYTHONPATH=learning .venv/bin/python -m dwell_learning.estimator_bench --out learning/results/estimators
    ... --smoke   (tiny corpus, few replicates: under a minute)

Estimators (the formulas are in each function's docstring): IPS and SNIPS over slates, prefixes (cascade) and item
positions; PseudoInverse (PI) and its self-normalised form (wPI); cascade IPS/SNIPS with clipped weights; Cascade-DR
(doubly_robust.py's estimator, vectorised here and checked against it; also with the reader model's inputs
unclipped, as it was before this benchmark found it extrapolating), switch-DR (the reader model where the prefix
weight exceeds tau) and the direct method (the reader model alone). Intervals: normal (mean +- 1.96 se over
impressions) for the means, percentile bootstrap over impressions (400 resamples, shared by all ratio estimators of a
replicate) for the self-normalised ones; Cascade-DR also with every other construction of estimators.mean_interval
(dr-percentile, dr-bca, dr-bootstrap-t on the same 400 resamples; dr-bernstein and dr-betting with the observed
range as a plug-in for the unknown bound of the values). Every estimate is also taken as a paired gain over the logging policy (the
gate's question); the gate ships when the gain's lower bound is above 0.
"""
from __future__ import annotations

import argparse
import itertools
import json
import math
import sys
import time
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np

from .doubly_robust import ReaderFit, fit_readers
from .estimators import Logged, mean_interval
from .features import baseline_score, feature_vector
from .policy import position_marginals, sample, slate_propensity
from .service import Corpus, OfflineService, load_corpus
from .simulator import ReaderModel, Readers, position_rewards

Z = 1.96


# ---------------------------------------------------------------------------------------------
# The world, the policies and the truth


@dataclass
class World:
    """The contexts of a setting: articles, their share of views, their candidates (in the logging scorer's order)."""

    articles: list[str]
    share: np.ndarray                 # (A,) sums to 1
    ids: list[list[str]]              # (A, C) comment ids
    features: np.ndarray              # (A, C, 9)
    readers: Readers
    hits: int
    scorer: str                       # the logging scorer that chose and ordered the candidates

    @property
    def candidates(self) -> int:
        return self.features.shape[1]


@dataclass(frozen=True)
class Policy:
    """A mixture policy over per-article candidate scores: rate * PL(softmax(s / T)) + (1 - rate) * greedy."""

    name: str
    scores: np.ndarray                # (A, C)
    rate: float
    temperature: float
    lam: float = 0.0                  # interpolation towards `toward`
    toward: str = ""


def scorer_scores(name: str, corpus: Corpus, readers: Readers, article: str, ids: Sequence[str], x: np.ndarray,
                  beta: np.ndarray | None = None, package: Any = None) -> np.ndarray:
    """A scorer's scores of an article's comments: freshness (the baseline), ceiling (q', what readers respond to),
    anti (-q'), oracle (hidden quality q), linear (least squares of q' on the nine features, `beta`), package (the
    network in application/constants)."""
    if name == "freshness":
        return baseline_score(x)
    if name == "ceiling":
        return np.array([readers.perceived(article, c) for c in ids])
    if name == "anti":
        return -np.array([readers.perceived(article, c) for c in ids])
    if name == "oracle":
        return np.array([corpus.quality[c] for c in ids])
    if name == "linear":
        return np.c_[x, np.ones(len(x))] @ beta
    if name == "package":
        from .network import forward

        return forward(package, x)
    raise ValueError(f"unknown scorer {name!r}")


def build_world(corpus: Corpus, readers: Readers, scorer: str, candidates: int, hits: int) -> tuple[World, Callable]:
    """The world of a logging scorer, and a function name -> (A, C) scores of any scorer on its candidates."""
    service = OfflineService(corpus)
    xs = {a: np.stack([feature_vector(service.signals(c), corpus.now) for c in ids])
          for a, ids in corpus.by_article.items()}
    x_all = np.concatenate(list(xs.values()))
    q_all = np.concatenate([[readers.perceived(a, c) for c in ids] for a, ids in corpus.by_article.items()])
    beta = np.linalg.lstsq(np.c_[x_all, np.ones(len(x_all))], q_all, rcond=None)[0]
    package = None
    if scorer == "package":
        from .export import read_constants
        from .loop import ROOT

        package = read_constants(ROOT / "application" / "constants")
    articles, ids, feats, share = [], [], [], []
    for a, cids in corpus.by_article.items():
        if len(cids) < candidates:
            continue
        s = scorer_scores(scorer, corpus, readers, a, cids, xs[a], beta, package)
        top = np.argsort(-s, kind="stable")[:candidates]
        articles.append(a)
        ids.append([cids[i] for i in top])
        feats.append(xs[a][top])
        share.append(corpus.popularity[a])
    share_arr = np.asarray(share)
    world = World(articles, share_arr / share_arr.sum(), ids, np.stack(feats), readers, hits, scorer)

    def scores_of(name: str) -> np.ndarray:
        return np.stack([scorer_scores(name, corpus, readers, a, world.ids[i], world.features[i], beta, package)
                         for i, a in enumerate(world.articles)])

    return world, scores_of


def interpolate(logging: np.ndarray, other: np.ndarray, lam: float) -> np.ndarray:
    """(1 - lam) * logging + lam * other', other' = other rescaled per article to logging's mean and spread."""
    lm, ls = logging.mean(axis=1, keepdims=True), logging.std(axis=1, keepdims=True)
    om, os_ = other.mean(axis=1, keepdims=True), other.std(axis=1, keepdims=True)
    rescaled = np.where(os_ > 0, (other - om) / np.where(os_ > 0, os_, 1.0), 0.0) * ls + lm
    return (1.0 - lam) * logging + lam * rescaled


def true_value(world: World, policy: Policy, samples: int, rng: np.random.Generator) -> tuple[float, float]:
    """The exact greedy part plus a Monte Carlo Plackett-Luce part (samples spread by share, at least 20 an article);
    returns (value, standard error of the Monte Carlo part)."""
    value, var = 0.0, 0.0
    k = world.hits
    for i, article in enumerate(world.articles):
        s = policy.scores[i]
        ids = world.ids[i]
        greedy = np.argsort(-s, kind="stable")[:k]
        g = world.readers.expected_dwell(article, [ids[c] for c in greedy])
        part = (1.0 - policy.rate) * g
        if policy.rate > 0:
            m = max(20, int(round(samples * world.share[i])))
            keys = s[None, :] / policy.temperature + rng.gumbel(size=(m, len(s)))
            orders = np.argsort(-keys, axis=1, kind="stable")[:, :k]
            d = np.array([world.readers.expected_dwell(article, [ids[c] for c in o]) for o in orders])
            part += policy.rate * d.mean()
            var += (world.share[i] * policy.rate) ** 2 * d.var(ddof=1) / m
        value += world.share[i] * part
    return float(value), float(math.sqrt(var))


# ---------------------------------------------------------------------------------------------
# Logged data


@dataclass
class Replicate:
    """n logged impressions: context (article index), shown candidates, dwell per position, explored or not."""

    article: np.ndarray               # (n,)
    order: np.ndarray                 # (n, K)
    rewards: np.ndarray               # (n, K)
    explored: np.ndarray              # (n,)


def simulate(world: World, logging: Policy, n: int, rng: np.random.Generator) -> Replicate:
    """Views drawn by share, shown orders sampled from the logging mixture (policy.sample), read by the readers."""
    a = rng.choice(len(world.articles), size=n, p=world.share)
    k = world.hits
    order = np.empty((n, k), dtype=np.int64)
    rewards = np.zeros((n, k))
    explored = np.zeros(n, dtype=bool)
    for i, ai in enumerate(a):
        o, ex = sample(logging.scores[ai], k, logging.rate, logging.temperature, rng)
        signal = world.readers.read(f"q{i}", world.articles[ai], [world.ids[ai][c] for c in o], rng)
        order[i], explored[i] = o, ex
        rewards[i] = position_rewards(signal, k)
    return Replicate(a, order, rewards, explored)


def to_logged(world: World, logging: Policy, rep: Replicate) -> Logged:
    """The replicate as the loop's Logged (for fit_readers and the cross-checks with estimators.py)."""
    p = prefix_probs(logging.scores[rep.article], rep.order, logging.rate, logging.temperature)
    return Logged([world.features[a] for a in rep.article], [logging.scores[a] for a in rep.article],
                  list(rep.order), rep.rewards.copy(), np.full(len(rep.article), logging.rate),
                  np.full(len(rep.article), logging.temperature), p[:, -1].copy(), rep.explored.copy(),
                  [world.articles[a] for a in rep.article])


# ---------------------------------------------------------------------------------------------
# Propensities (vectorised policy.prefix_propensities)


def prefix_probs(scores: np.ndarray, order: np.ndarray, rate: float, temperature: float) -> np.ndarray:
    """(n, K): P(the first k+1 shown are order[:k+1]) = rate * prod_j step_j + (1 - rate) * [greedy prefix],
    step_j = w(order_j) / (sum w - sum_{l<j} w(order_l)), w = exp((s - max s) / T); policy.prefix_propensities for
    a batch."""
    rows = np.arange(len(order))[:, None]
    w = np.exp((scores - scores.max(axis=1, keepdims=True)) / temperature)
    ws = w[rows, order]
    remaining = w.sum(axis=1, keepdims=True) - np.cumsum(ws, axis=1) + ws
    step = np.where(remaining > 0, ws / np.where(remaining > 0, remaining, 1.0), 0.0)
    greedy = np.argsort(-scores, axis=1, kind="stable")[:, : order.shape[1]]
    return rate * np.cumprod(step, axis=1) + (1.0 - rate) * np.cumprod(order == greedy, axis=1)


def target_joint(scores: np.ndarray, order: np.ndarray, rate: float, temperature: float) -> np.ndarray:
    """(n, K, C): pi(order[:k] + [c]), the target's probability of the logged prefix before k continued by c (0 for
    candidates already shown): rate * PL(order[:k]) * w_c / remaining_k + (1 - rate) * [order[:k] greedy, c = g_k]."""
    n, c = scores.shape
    k_max = order.shape[1]
    rows = np.arange(n)
    w = np.exp((scores - scores.max(axis=1, keepdims=True)) / temperature)
    remaining = w.sum(axis=1)
    greedy = np.argsort(-scores, axis=1, kind="stable")
    pl = np.ones(n)
    greedy_so_far = np.ones(n, dtype=bool)
    taken = np.zeros((n, c), dtype=bool)
    out = np.empty((n, k_max, c))
    for k in range(k_max):
        step = np.where(remaining[:, None] > 0, w / np.where(remaining > 0, remaining, 1.0)[:, None], 0.0)
        joint = rate * pl[:, None] * step
        joint[rows[greedy_so_far], greedy[greedy_so_far, k]] += 1.0 - rate
        joint[taken] = 0.0
        out[:, k] = joint
        a = order[:, k]
        pl = pl * step[rows, a]
        remaining = np.maximum(0.0, remaining - w[rows, a])
        greedy_so_far &= a == greedy[:, k]
        taken[rows, a] = True
    return out


# ---------------------------------------------------------------------------------------------
# The estimators. Each gives per-impression values (a mean-type estimator: the estimate is their mean) or a
# numerator and denominator per impression and position (a ratio-type one: sum_k sum_i num_ik / sum_i den_ik).


def ips_terms(w: np.ndarray, r: np.ndarray) -> np.ndarray:
    """IPS: V = mean_i sum_k w_ik r_ik (slate: one column, w = pi(s)/mu(s) on the total dwell; cascade:
    w_ik = pi(s_i[:k+1]) / mu(s_i[:k+1]); position: w_ik = P_pi(s_ik at k) / P_mu(s_ik at k))."""
    return (w * r).sum(axis=1)


def snips_value(w: np.ndarray, r: np.ndarray) -> float:
    """SNIPS: V = sum_k (sum_i w_ik r_ik) / (sum_i w_ik), 0 for a position whose weights are all 0."""
    num, den = (w * r).sum(axis=0), w.sum(axis=0)
    return float(np.where(den != 0, num / np.where(den != 0, den, 1.0), 0.0).sum())


def clipped(w: np.ndarray, c: float) -> np.ndarray:
    """Clipped weights min(w, c) (Bottou et al. 2013; Strehl et al. 2010): bias towards the logging policy's value
    where the weights are large, for variance."""
    return np.minimum(w, c)


def position_weights(marg_pi: np.ndarray, marg_mu: np.ndarray, article: np.ndarray, order: np.ndarray,
                     floor: float) -> np.ndarray:
    """(n, K): P_pi(s_ik at k) / max(P_mu(s_ik at k), floor), from per-article marginals (A, C, K)."""
    k = np.arange(order.shape[1])[None, :]
    return marg_pi[article[:, None], order, k] / np.maximum(marg_mu[article[:, None], order, k], floor)


def slate_indicator_index(order: np.ndarray, k_max: int) -> np.ndarray:
    """Indices of the ones of the slate indicator 1_s in R^(C*K): item c at position k is c * K + k."""
    return order * k_max + np.arange(order.shape[-1])


def gamma_exact(scores: np.ndarray, k_max: int, rate: float, temperature: float) -> tuple[np.ndarray, list, np.ndarray]:
    """Gamma = E_mu[1_s 1_s^T] by enumerating every ordered slate (small cases); also the slates and their mu."""
    c = len(scores)
    slates = [np.array(p) for p in itertools.permutations(range(c), k_max)]
    mu = np.array([slate_propensity(scores, s, rate, temperature) for s in slates])
    gamma = np.zeros((c * k_max, c * k_max))
    for s, p in zip(slates, mu):
        idx = slate_indicator_index(s, k_max)
        gamma[np.ix_(idx, idx)] += p
    return gamma, slates, mu


def gamma_mc(scores: np.ndarray, k_max: int, rate: float, temperature: float, rng: np.random.Generator,
             samples: int) -> np.ndarray:
    """Gamma = E_mu[1_s 1_s^T] of the mixture: the greedy slate exactly, the Plackett-Luce part by Monte Carlo."""
    c = len(scores)
    d = c * k_max
    keys = scores[None, :] / temperature + rng.gumbel(size=(samples, c))
    orders = np.argsort(-keys, axis=1, kind="stable")[:, :k_max]
    idx = slate_indicator_index(orders, k_max)
    pairs = (idx[:, :, None] * d + idx[:, None, :]).ravel()
    gamma = rate * np.bincount(pairs, minlength=d * d).reshape(d, d) / samples
    g = slate_indicator_index(np.argsort(-scores, kind="stable")[:k_max], k_max)
    gamma[np.ix_(g, g)] += 1.0 - rate
    return gamma


def pseudoinverse_vector(gamma: np.ndarray, q_pi: np.ndarray, rcond: float = 1e-10) -> np.ndarray:
    """u = Gamma_mu^+ q_pi (Swaminathan et al. 2017), q_pi = E_pi[1_s] the target's position marginals (flattened
    c * K + k). The PI weight of a logged slate s is u . 1_s = sum_k u[s_k, k]."""
    return np.linalg.pinv(gamma, rcond=rcond, hermitian=True) @ q_pi


def pi_weights(u: np.ndarray, article: np.ndarray, order: np.ndarray) -> np.ndarray:
    """(n,): the PseudoInverse weight sum_k u_a[s_k, k] of each impression, from per-article u (A, C, K).
    PI: V = mean_i w_i * (total dwell_i), unbiased when E[dwell | s] is additive over (item, position) pairs;
    wPI: V = sum_i w_i dwell_i / sum_i w_i."""
    k = np.arange(order.shape[1])[None, :]
    return u[article[:, None], order, k].sum(axis=1)


def reader_tables(fit: ReaderFit, features: np.ndarray, k_max: int) -> tuple[np.ndarray, np.ndarray]:
    """The fitted reader model's E[read seconds] and P(go on) of every candidate at every position, (A, C, K) each."""
    a, c, d = features.shape
    xx = np.repeat(features.reshape(-1, d), k_max, axis=0)
    kk = np.tile(np.arange(k_max, dtype=np.float64), a * c)
    return fit.read_seconds(xx, kk).reshape(a, c, k_max), fit.go_on(xx, kk).reshape(a, c, k_max)


def cascade_q(read: np.ndarray, go: np.ndarray, p_open: float, target_scores: np.ndarray,
              order: np.ndarray) -> np.ndarray:
    """(n, K, C): Q_k(order[:k] + [c]), the reader model's expected dwell from position k on when c is shown at k
    after the logged prefix and the target's greedy order of the rest follows (doubly_robust.dr_values' Q):
    Q = reach_k (read[c, k] + go[c, k] tail), reach_k = p_open prod_{j<k} go[order_j, j], tail the value of the
    continuation from k + 1. read and go are (n, C, K), per impression."""
    n, c, k_max = read.shape
    rows = np.arange(n)[:, None]
    greedy = np.argsort(-target_scores, axis=1, kind="stable")
    taken = np.zeros((n, c), dtype=bool)
    reach = np.full(n, p_open)
    out = np.empty((n, k_max, c))
    for k in range(k_max):
        after = k_max - 1 - k
        available = ~taken[rows, greedy]
        rest = np.take_along_axis(greedy, np.argsort(~available, axis=1, kind="stable")[:, : after + 1], axis=1)
        tail = np.zeros((n, c))
        if after > 0:
            pos = k + 1 + np.arange(after)
            a_ = read[rows, rest[:, :after], pos]           # rest[j] read at position k+1+j
            g_ = go[rows, rest[:, :after], pos]
            reach_j = np.concatenate([np.ones((n, 1)), np.cumprod(g_, axis=1)], axis=1)    # (n, after+1)
            before = np.concatenate([np.zeros((n, 1)), np.cumsum(a_ * reach_j[:, :after], axis=1)], axis=1)
            b_ = read[rows, rest[:, 1: after + 1], pos]     # rest[j+1] moved up to position k+1+j
            h_ = go[rows, rest[:, 1: after + 1], pos]
            shifted = np.zeros((n, after + 1))
            for j in range(after - 1, -1, -1):
                shifted[:, j] = b_[:, j] + h_[:, j] * shifted[:, j + 1]
            tail[:] = before[:, after: after + 1]           # the greedy rest, for any c outside it
            tail[rows, rest[:, :after]] = before[:, :after] + reach_j[:, :after] * shifted[:, :after]
        out[:, k] = reach[:, None] * (read[:, :, k] + go[:, :, k] * tail)
        a = order[:, k]
        reach = reach * go[rows[:, 0], a, k]
        taken[rows[:, 0], a] = True
    return out


def cascade_dr_terms(q: np.ndarray, joint: np.ndarray, mu: np.ndarray, w: np.ndarray, rewards: np.ndarray,
                     order: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Cascade-DR's two terms per impression and position (Kiyohara et al. 2022), (n, K) each:
    baseline_k = sum_c pi(order[:k] + [c]) Q_k(order[:k] + [c]) / mu(order[:k])   (= w_1:k-1 E_pi[Q_k | prefix])
    correction_k = w_1:k (r_k - Q_k(order[:k+1])).   Cascade-DR: V = mean_i sum_k (baseline_ik + correction_ik)."""
    n = len(order)
    mu_before = np.concatenate([np.ones((n, 1)), mu[:, :-1]], axis=1)
    baseline = (joint * q).sum(axis=2) / mu_before
    q_logged = np.take_along_axis(q, order[:, :, None], axis=2)[:, :, 0]
    return baseline, w * (rewards - q_logged)


def dr_terms(baseline: np.ndarray, correction: np.ndarray) -> np.ndarray:
    """Cascade-DR per impression: sum_k baseline_k + correction_k."""
    return baseline.sum(axis=1) + correction.sum(axis=1)


def switch_terms(baseline: np.ndarray, correction: np.ndarray, w: np.ndarray, tau: float) -> np.ndarray:
    """Switch-DR (after Wang et al. 2017) per impression: Cascade-DR up to the first position k* whose prefix weight
    w_1:k* exceeds tau, the reader model from there on: sum_{k <= k*} baseline_k + sum_{k < k*} correction_k.
    tau = inf is Cascade-DR; tau below every weight is the direct method."""
    k_max = w.shape[1]
    over = w > tau
    first = np.where(over.any(axis=1), over.argmax(axis=1), k_max)
    k = np.arange(k_max)[None, :]
    return (baseline * (k <= first[:, None])).sum(axis=1) + (correction * (k < first[:, None])).sum(axis=1)


def dm_terms(baseline: np.ndarray) -> np.ndarray:
    """The direct method per impression: the reader model's value of the target's slate distribution, baseline_0."""
    return baseline[:, 0].copy()


# ---------------------------------------------------------------------------------------------
# Intervals


def normal_interval(values: np.ndarray, z: float = Z) -> tuple[float, float, float]:
    """Mean and mean +- z * sd / sqrt(n)."""
    m = float(values.mean())
    se = float(values.std(ddof=1) / math.sqrt(len(values)))
    return m, m - z * se, m + z * se


def ratio_value(num: np.ndarray, den: np.ndarray) -> float:
    """sum_k sum_i num_ik / sum_i den_ik."""
    n_, d_ = num.sum(axis=0), den.sum(axis=0)
    return float(np.where(d_ != 0, n_ / np.where(d_ != 0, d_, 1.0), 0.0).sum())


def ratio_boot(num: np.ndarray, den: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """The ratio estimate on every bootstrap resample, given as resample counts (B, n) per impression."""
    n_, d_ = counts @ num, counts @ den
    return np.where(d_ != 0, n_ / np.where(d_ != 0, d_, 1.0), 0.0).sum(axis=1)


def percentile_interval(boot: np.ndarray) -> tuple[float, float]:
    lo, hi = np.percentile(boot, [2.5, 97.5])
    return float(lo), float(hi)


# ---------------------------------------------------------------------------------------------
# One setting


@dataclass
class Setting:
    name: str
    scorer: str                        # the logging scorer
    rate: float
    temperature: float
    views: int                         # impressions per replicate
    targets: list[tuple[str, float]]   # (toward scorer, lambda); ("", 0.0) is the logging policy itself
    target_rate: float | None = None   # None: the logging policy's
    target_temperature: float | None = None


@dataclass
class BenchConfig:
    candidates: int = 40
    hits: int = 10
    replicates: int = 200
    clips: tuple[float, ...] = (10.0, 100.0)
    taus: tuple[float, ...] = (10.0, 100.0)
    boot: int = 400
    truth_samples: int = 40_000        # Monte Carlo slates of the truth's Plackett-Luce part, per target
    marginal_samples: int = 4_000      # per article: position marginals (position IPS, PI's q_pi)
    gamma_samples: int = 20_000        # per article: PI's Gamma of the logging policy
    seed: int = 1
    settings: list[Setting] = field(default_factory=list)


def estimator_names(config: BenchConfig) -> list[str]:
    names = ["ips-slate", "snips-slate", "ips-cascade", "snips-cascade", "ips-position", "snips-position", "pi", "wpi"]
    for c in config.clips:
        names += [f"ips-cascade-clip{c:g}", f"snips-cascade-clip{c:g}"]
    names += ["dr"] + [f"dr-{m}" for m in DR_INTERVALS]
    names += ["dr-unclipped-model"] + [f"switch-dr-{t:g}" for t in config.taus] + ["dm"]
    return names


# Cascade-DR's values with the other interval constructions of estimators.mean_interval (the bootstrap ones on the
# replicate's shared resamples, so a paired gain resamples the impressions once for both policies).
DR_INTERVALS = ("percentile", "bca", "bootstrap-t", "bernstein", "betting")


def _estimators(config: BenchConfig, rep: Replicate, wc: np.ndarray, wp: np.ndarray, pi_w: np.ndarray,
                baseline: np.ndarray, correction: np.ndarray, raw: np.ndarray) -> dict[str, tuple[str, Any]]:
    """Every estimator of one target on one replicate: ("mean", per-impression values) or ("ratio", (num, den))."""
    r, total = rep.rewards, rep.rewards.sum(axis=1, keepdims=True)
    ws = wc[:, -1:]
    out: dict[str, tuple[str, Any]] = {
        "ips-slate": ("mean", ips_terms(ws, total)), "snips-slate": ("ratio", (ws * total, ws)),
        "ips-cascade": ("mean", ips_terms(wc, r)), "snips-cascade": ("ratio", (wc * r, wc)),
        "ips-position": ("mean", ips_terms(wp, r)), "snips-position": ("ratio", (wp * r, wp)),
        "pi": ("mean", pi_w * total[:, 0]), "wpi": ("ratio", (pi_w[:, None] * total, pi_w[:, None])),
    }
    for c in config.clips:
        w = clipped(wc, c)
        out[f"ips-cascade-clip{c:g}"] = ("mean", ips_terms(w, r))
        out[f"snips-cascade-clip{c:g}"] = ("ratio", (w * r, w))
    out["dr"] = ("mean", dr_terms(baseline, correction))
    for m in DR_INTERVALS:
        out[f"dr-{m}"] = (f"mean:{m}", out["dr"][1])
    out["dr-unclipped-model"] = ("mean", raw)
    for t in config.taus:
        out[f"switch-dr-{t:g}"] = ("mean", switch_terms(baseline, correction, wc, t))
    out["dm"] = ("mean", dm_terms(baseline))
    return out


def _point_and_interval(kind: str, data: Any, counts: np.ndarray) -> tuple[float, float, float]:
    if kind == "mean":
        return normal_interval(data)
    if kind.startswith("mean:"):
        return mean_interval(data, kind[5:], counts=counts)
    num, den = data
    return (ratio_value(num, den), *percentile_interval(ratio_boot(num, den, counts)))


def _gain(kind: str, data: Any, base: Any, counts: np.ndarray) -> tuple[float, float, float]:
    """The paired gain over the logging policy, on the same impressions (and the same resamples)."""
    if kind == "mean":
        return normal_interval(data - base)
    if kind.startswith("mean:"):
        return mean_interval(data - base, kind[5:], counts=counts)
    point = ratio_value(*data) - ratio_value(*base)
    return (point, *percentile_interval(ratio_boot(*data, counts) - ratio_boot(*base, counts)))


def run_setting(world: World, scores_of: Callable[[str], np.ndarray], setting: Setting, config: BenchConfig,
                log: Callable[[str], None] = print) -> dict[str, Any]:
    """Every estimator on every target of a setting, over config.replicates replicates."""
    rng = np.random.default_rng([config.seed, zlib.crc32(setting.name.encode())])
    k_max, n_art = world.hits, len(world.articles)
    logging_scores = scores_of(world.scorer)
    logging = Policy("logging", logging_scores, setting.rate, setting.temperature)
    t_rate = setting.rate if setting.target_rate is None else setting.target_rate
    t_temp = setting.temperature if setting.target_temperature is None else setting.target_temperature
    targets = []
    for toward, lam in setting.targets:
        scores = logging_scores if not toward else interpolate(logging_scores, scores_of(toward), lam)
        name = "logging" if not toward else f"{lam:g}->{toward}"
        rate, temp = (setting.rate, setting.temperature) if not toward else (t_rate, t_temp)
        targets.append(Policy(name, scores, rate, temp, lam, toward))
    assert targets[0].name == "logging", "the first target is the logging policy itself (the gains' reference)"
    started = time.time()
    truths = [true_value(world, p, config.truth_samples, rng) for p in targets]
    log(f"[{setting.name}] truths {[round(t[0], 3) for t in truths]} ({time.time() - started:.0f} s)")
    # Position marginals and PI vectors, per article.
    t0 = time.time()
    marg_mu = np.stack([position_marginals(logging_scores[a], k_max, setting.rate, setting.temperature,
                                           np.random.default_rng([config.seed, 11, a]), config.marginal_samples)
                        for a in range(n_art)])
    marg_pi = [np.stack([position_marginals(p.scores[a], k_max, p.rate, p.temperature,
                                            np.random.default_rng([config.seed, 11, a]), config.marginal_samples)
                         for a in range(n_art)]) for p in targets]
    u = np.zeros((len(targets), n_art, world.candidates, k_max))
    for a in range(n_art):
        gamma = gamma_mc(logging_scores[a], k_max, setting.rate, setting.temperature,
                         np.random.default_rng([config.seed, 13, a]), config.gamma_samples)
        pinv = np.linalg.pinv(gamma, rcond=1e-10, hermitian=True)
        for t in range(len(targets)):
            u[t, a] = (pinv @ marg_pi[t][a].ravel()).reshape(world.candidates, k_max)
    floor = setting.rate / config.marginal_samples
    log(f"[{setting.name}] marginals and PI vectors ({time.time() - t0:.0f} s)")
    t0 = time.time()
    reps = [simulate(world, logging, setting.views, rng) for _ in range(config.replicates)]
    log(f"[{setting.name}] {config.replicates} replicates of {setting.views} views ({time.time() - t0:.0f} s)")
    names = estimator_names(config)
    est = np.zeros((len(targets), len(names), config.replicates, 3))
    gain = np.zeros((len(targets), len(names), config.replicates, 3))
    ess = np.zeros((len(targets), config.replicates))
    t0 = time.time()
    for i, rep in enumerate(reps):
        # The reader model of the DR estimators: fitted on another replicate (cross-fitting, as the loop fits it on
        # the training logs).
        fit = fit_readers(to_logged(world, logging, reps[i - 1]))
        read_a, go_a = reader_tables(fit, world.features, k_max)
        read, go = read_a[rep.article], go_a[rep.article]
        # the reader model as it was before this benchmark found it extrapolating (inputs not clipped)
        raw_fit = fit_readers(to_logged(world, logging, reps[i - 1]), clip=False)
        raw_read_a, raw_go_a = reader_tables(raw_fit, world.features, k_max)
        raw_read, raw_go = raw_read_a[rep.article], raw_go_a[rep.article]
        counts = rng.multinomial(len(rep.article), np.full(len(rep.article), 1.0 / len(rep.article)),
                                 size=config.boot).astype(np.float64)
        mu = prefix_probs(logging_scores[rep.article], rep.order, setting.rate, setting.temperature)
        base: dict[str, tuple[str, Any]] = {}
        for t, p in enumerate(targets):
            s = p.scores[rep.article]
            joint = target_joint(s, rep.order, p.rate, p.temperature)
            wc = np.take_along_axis(joint, rep.order[:, :, None], axis=2)[:, :, 0] / mu
            wp = position_weights(marg_pi[t], marg_mu, rep.article, rep.order, floor)
            q = cascade_q(read, go, fit.p_open, s, rep.order)
            baseline, correction = cascade_dr_terms(q, joint, mu, wc, rep.rewards, rep.order)
            raw = dr_terms(*cascade_dr_terms(cascade_q(raw_read, raw_go, fit.p_open, s, rep.order), joint, mu, wc,
                                             rep.rewards, rep.order))
            values = _estimators(config, rep, wc, wp, pi_weights(u[t], rep.article, rep.order), baseline, correction,
                                 raw)
            last = wc[:, -1]
            ess[t, i] = last.sum() ** 2 / (len(last) * (last ** 2).sum()) if (last ** 2).sum() > 0 else 0.0
            if t == 0:
                base = values
            for e, name in enumerate(names):
                kind, data = values[name]
                est[t, e, i] = _point_and_interval(kind, data, counts)
                gain[t, e, i] = _gain(kind, data, base[name][1], counts)
        if (i + 1) % max(1, config.replicates // 10) == 0:
            log(f"[{setting.name}] replicate {i + 1}/{config.replicates} ({time.time() - t0:.0f} s)")
    return {"setting": setting, "targets": targets, "truths": truths, "names": names, "estimates": est,
            "gains": gain, "ess": ess}


# ---------------------------------------------------------------------------------------------
# Summary


def coverage(lo: np.ndarray, hi: np.ndarray, truth: float) -> float:
    """The share of intervals [lo, hi] that contain the truth."""
    return float(np.mean((lo <= truth) & (truth <= hi)))


def summarise_estimates(est: np.ndarray, truth: float) -> dict[str, float]:
    """Bias, its Monte Carlo standard error, RMSE, coverage and mean width, from (replicates, 3) = (estimate, lo, hi)."""
    e = est[:, 0]
    return {"bias": float(e.mean() - truth), "bias_se": float(e.std(ddof=1) / math.sqrt(len(e))),
            "rmse": float(math.sqrt(np.mean((e - truth) ** 2))), "sd": float(e.std(ddof=1)),
            "coverage": coverage(est[:, 1], est[:, 2], truth), "width": float(np.mean(est[:, 2] - est[:, 1])),
            "replicates": len(e)}


def summarise(result: dict[str, Any]) -> dict[str, Any]:
    setting: Setting = result["setting"]
    truths = [t[0] for t in result["truths"]]
    rows = []
    for t, p in enumerate(result["targets"]):
        true_gain = truths[t] - truths[0]
        target = {"target": p.name, "toward": p.toward, "lambda": p.lam, "rate": p.rate, "temperature": p.temperature,
                  "truth": truths[t], "truth_mc_se": result["truths"][t][1], "true_gain": true_gain,
                  "ess_share": float(result["ess"][t].mean()), "estimators": {}}
        for e, name in enumerate(result["names"]):
            row = summarise_estimates(result["estimates"][t, e], truths[t])
            g = result["gains"][t, e]
            if t > 0:
                row["gain"] = summarise_estimates(g, true_gain)
                shipped = g[:, 1] > 0
                better = true_gain > 0
                row["gate"] = {"shipped_better": int(shipped.sum()) if better else 0,
                               "shipped_worse": 0 if better else int(shipped.sum()),
                               "kept_better": int((~shipped).sum()) if better else 0,
                               "kept_worse": 0 if better else int((~shipped).sum())}
            target["estimators"][name] = row
        rows.append(target)
    return {"setting": {k: v for k, v in setting.__dict__.items()}, "targets": rows}


BANDS: dict[str, float | None] = {"all targets": None, "lambda <= 0.1": 0.1, "lambda <= 0.05": 0.05}


def _band_rows(summaries: list[dict[str, Any]], max_lambda: float | None) -> list[dict[str, Any]]:
    """The targets other than the logging policy, of every setting, at most max_lambda from it (None: all)."""
    return [t for s in summaries for t in s["targets"][1:] if max_lambda is None or t["lambda"] <= max_lambda + 1e-12]


def choose_gate(summaries: list[dict[str, Any]], names: Sequence[str], min_coverage: float = 0.90,
                bands: dict[str, float | None] | None = None) -> dict[str, Any]:
    """The gate's estimator, per band of targets (all, or those at most lambda from the logging policy): among the
    estimators whose value intervals AND paired-gain intervals cover the truth at least min_coverage of the time in
    every target of the band (and the logging policy's value), the one with the smallest mean gain-interval width
    (then RMSE); None if none qualifies. Also each estimator's gate confusion (shipped/kept x better/worse) summed
    over the band's targets and replicates."""
    bands = BANDS if bands is None else bands
    logging_rows = [s["targets"][0] for s in summaries]
    out: dict[str, Any] = {"min_coverage": min_coverage, "bands": {}}
    for band, max_lambda in bands.items():
        rows = _band_rows(summaries, max_lambda)
        table = {}
        for name in names:
            r = [t["estimators"][name] for t in rows]
            conf = {k: int(sum(x["gate"][k] for x in r)) for k in ("shipped_better", "shipped_worse", "kept_better",
                                                                     "kept_worse")} if r else {}
            table[name] = {
                "min_coverage": min([x["coverage"] for x in r] + [t["estimators"][name]["coverage"] for t in logging_rows]),
                "min_gain_coverage": min(x["gain"]["coverage"] for x in r) if r else float("nan"),
                "mean_gain_width": float(np.mean([x["gain"]["width"] for x in r])) if r else float("nan"),
                "mean_rmse": float(np.mean([x["rmse"] for x in r])) if r else float("nan"),
                "gate": conf}
        ok = [n for n in names if table[n]["min_coverage"] >= min_coverage and table[n]["min_gain_coverage"] >= min_coverage]
        chosen = min(ok, key=lambda n: (table[n]["mean_gain_width"], table[n]["mean_rmse"])) if ok else None
        out["bands"][band] = {"max_lambda": max_lambda, "targets": len(rows), "chosen": chosen, "qualified": ok,
                              "by_estimator": table}
    return out


def _pct(x: float) -> str:
    return f"{100 * x:.0f}%"


def report(summaries: list[dict[str, Any]], gate: dict[str, Any], config: BenchConfig, seconds: float) -> str:
    lines = ["# Estimator benchmark (known truth)", "",
             f"{config.replicates} replicates per setting; candidates {config.candidates}, shown {config.hits}; "
             f"truth: exact greedy part + Monte Carlo Plackett-Luce part ({config.truth_samples} slates a target, "
             f"readers' noise integrated exactly by Readers.expected_dwell); {seconds / 60:.1f} minutes.", ""]
    for s in summaries:
        st = s["setting"]
        lines += [f"## Setting {st['name']}: logging = mixture around `{st['scorer']}`, rate {st['rate']}, "
                  f"T {st['temperature']}, {st['views']} views per replicate", ""]
        head = "| target | " + " | ".join(t["target"] for t in s["targets"]) + " |"
        sep = "|---|" + "---|" * len(s["targets"])
        lines += [head, sep,
                  "| true value (s) | " + " | ".join(f"{t['truth']:.2f} (±{t['truth_mc_se']:.3f})" for t in s["targets"]) + " |",
                  "| true gain over logging (s) | " + " | ".join(f"{t['true_gain']:+.2f}" for t in s["targets"]) + " |",
                  "| cascade ESS / n | " + " | ".join(f"{t['ess_share']:.3f}" for t in s["targets"]) + " |", ""]
        for metric, title, fmt in (("coverage", "95% interval coverage of the value", _pct),
                                   ("bias", "bias (s)", lambda x: f"{x:+.2f}"),
                                   ("rmse", "RMSE (s)", lambda x: f"{x:.2f}"),
                                   ("width", "mean interval width (s)", lambda x: f"{x:.2f}")):
            lines += [f"**{title}**", "", "| estimator | " + " | ".join(t["target"] for t in s["targets"]) + " |", sep]
            for name in s["targets"][0]["estimators"]:
                lines.append(f"| {name} | " + " | ".join(fmt(t["estimators"][name][metric]) for t in s["targets"]) + " |")
            lines.append("")
        lines += ["**paired gain over the logging policy: coverage / mean width (s) / gate shipped of "
                  f"{config.replicates}**", "", "| estimator | " + " | ".join(t["target"] for t in s["targets"][1:]) + " |",
                  "|---|" + "---|" * (len(s["targets"]) - 1)]
        for name in s["targets"][0]["estimators"]:
            cells = []
            for t in s["targets"][1:]:
                g = t["estimators"][name]["gain"]
                gate_ = t["estimators"][name]["gate"]
                cells.append(f"{_pct(g['coverage'])} / {g['width']:.2f} / {gate_['shipped_better'] + gate_['shipped_worse']}")
            lines.append(f"| {name} | " + " | ".join(cells) + " |")
        lines.append("")
    lines += ["## The gate's estimator", "",
              f"Rule: value and paired-gain coverage ≥ {_pct(gate['min_coverage'])} in every target of the band (and "
              "the value of the logging policy itself), then the smallest mean gain-interval width. Gate: ship when "
              "the lower bound of the paired gain is above 0; its confusion summed over the band's targets and "
              "replicates (shipped better / shipped worse / kept better / kept worse).", ""]
    for band, b in gate["bands"].items():
        if not b["targets"]:
            continue
        lines += [f"**{band}** ({b['targets']} targets)", "",
                  "| estimator | min coverage (value) | min coverage (gain) | mean gain width (s) | mean RMSE (s) | gate |",
                  "|---|---|---|---|---|---|"]
        for name, row in b["by_estimator"].items():
            g = row["gate"]
            lines.append(f"| {name} | {_pct(row['min_coverage'])} | {_pct(row['min_gain_coverage'])} | "
                         f"{row['mean_gain_width']:.2f} | {row['mean_rmse']:.2f} | "
                         f"{g.get('shipped_better', 0)} / {g.get('shipped_worse', 0)} / {g.get('kept_better', 0)} / "
                         f"{g.get('kept_worse', 0)} |")
        lines += ["", f"Chosen by the rule: **{b['chosen']}** (qualified: {', '.join(b['qualified']) or 'none'}).", ""]
    return "\n".join(lines)


def _signed_distance(t: dict[str, Any]) -> float:
    """lambda towards a better scorer, minus lambda towards a worse one (anti)."""
    return -t["lambda"] if t["toward"] == "anti" else t["lambda"]


def plot(summaries: list[dict[str, Any]], out: Path) -> list[Path]:
    """Per setting: coverage of the value and of the paired gain against the distance from the logging policy, one
    line per estimator; and RMSE and |bias| bars per estimator and target."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    paths = []
    for s in summaries:
        name = s["setting"]["name"]
        targets = s["targets"]
        order = np.argsort([_signed_distance(t) for t in targets], kind="stable")
        x = np.arange(len(targets))
        labels = [f"{_signed_distance(targets[i]):+g}\n{targets[i]['target']}\nESS {targets[i]['ess_share']:.2f}"
                  for i in order]
        names = list(targets[0]["estimators"])
        colours = plt.get_cmap("tab20")
        markers = "os^vD<>"
        fig, axes = plt.subplots(1, 2, figsize=(16, 6), sharey=True)
        for ax, key, title in ((axes[0], None, "value"), (axes[1], "gain", "paired gain over logging")):
            for j, e in enumerate(names):
                ys = [(targets[i]["estimators"][e] if key is None else targets[i]["estimators"][e].get(key, {})).get(
                    "coverage", np.nan) for i in order]
                ax.plot(x, ys, marker=markers[j % len(markers)], ms=4, lw=1.2, label=e, color=colours(j % 20))
            ax.axhline(0.95, color="k", lw=1)
            ax.axhline(0.90, color="k", lw=1, ls=":")
            ax.set_xticks(x, labels, fontsize=7)
            ax.set_title(f"{name}: 95% interval coverage of the {title}", fontsize=10)
            ax.set_xlabel("target: lambda towards the ceiling (+) or its reverse (-); cascade ESS share")
        axes[0].set_ylabel("coverage over replicates")
        axes[1].legend(fontsize=7, loc="center left", bbox_to_anchor=(1.01, 0.5))
        fig.tight_layout()
        p = out / f"coverage_{name}.png"
        fig.savefig(p, dpi=100)
        plt.close(fig)
        paths.append(p)
        fig, axes = plt.subplots(len(targets), 1, figsize=(12, 2.2 * len(targets)), sharex=True)
        for ax, i in zip(np.atleast_1d(axes), order):
            t = targets[i]
            rm = np.array([t["estimators"][e]["rmse"] for e in names])
            bias = np.array([abs(t["estimators"][e]["bias"]) for e in names])
            xx = np.arange(len(names))
            ax.bar(xx - 0.2, rm, 0.4, label="RMSE")
            ax.bar(xx + 0.2, bias, 0.4, label="|bias|")
            ax.set_yscale("log")
            ax.set_ylabel("s")
            ax.set_title(f"{name}, target {t['target']} (true {t['truth']:.1f} s, ESS share {t['ess_share']:.3f})",
                         fontsize=9)
        np.atleast_1d(axes)[0].legend(fontsize=8)
        np.atleast_1d(axes)[-1].set_xticks(np.arange(len(names)), names, rotation=45, ha="right", fontsize=8)
        fig.tight_layout()
        p = out / f"bias_rmse_{name}.png"
        fig.savefig(p, dpi=100)
        plt.close(fig)
        paths.append(p)
    return paths


def rewrite(out: Path) -> str:
    """The table, the gate's choice and the plots again from out/estimators.json (no simulation)."""
    data = json.loads((out / "estimators.json").read_text())
    cfg = {k: v for k, v in data["config"].items() if k in BenchConfig.__dataclass_fields__ and k != "settings"}
    for k in ("clips", "taus"):
        cfg[k] = tuple(cfg[k])
    config = BenchConfig(**cfg)
    summaries = data["settings"]
    names = list(summaries[0]["targets"][0]["estimators"])
    gate = choose_gate(summaries, names)
    text = report(summaries, gate, config, data["seconds"])
    (out / "estimators.md").write_text(text)
    data["gate"] = gate
    (out / "estimators.json").write_text(json.dumps(data, indent=1, default=str) + "\n")
    plot(summaries, out)
    return text


# ---------------------------------------------------------------------------------------------
# Configurations and the command

TARGETS = [("", 0.0), ("ceiling", 0.1), ("ceiling", 0.25), ("ceiling", 0.5), ("ceiling", 1.0), ("anti", 0.1),
           ("anti", 0.25)]
NEAR = [("", 0.0), ("ceiling", 0.02), ("ceiling", 0.05), ("ceiling", 0.1), ("anti", 0.02), ("anti", 0.05)]


def full_config(seed: int = 1) -> BenchConfig:
    """The loop's settings (rate 0.15, T 0.3, 40 candidates, 10 shown, 1,600 views: one iteration's evaluation logs)
    with logging around the linear ranker of the nine features (a stand-in for a trained network) and around
    freshness; then more exploration (rate 0.3, T 0.5), fewer views (400), greedy targets (rate 0), and targets nearer
    the logging policy (2-10% of the way), as the loop's candidates are."""
    return BenchConfig(seed=seed, settings=[
        Setting("linear", "linear", 0.15, 0.3, 1600, TARGETS),
        Setting("freshness", "freshness", 0.15, 0.3, 1600, TARGETS),
        Setting("linear-explore", "linear", 0.3, 0.5, 1600, TARGETS),
        Setting("linear-400", "linear", 0.15, 0.3, 400, TARGETS),
        Setting("linear-greedy-targets", "linear", 0.15, 0.3, 1600, TARGETS, target_rate=0.0),
        Setting("linear-near", "linear", 0.15, 0.3, 1600, NEAR),
    ])


def smoke_config(seed: int = 1) -> BenchConfig:
    return BenchConfig(candidates=8, hits=4, replicates=12, boot=100, truth_samples=2000, marginal_samples=500,
                       gamma_samples=2000, seed=seed,
                       settings=[Setting("smoke", "linear", 0.3, 0.5, 150, [("", 0.0), ("ceiling", 0.5), ("anti", 0.5)])])


def run(corpus: Corpus, config: BenchConfig, out: Path, log: Callable[[str], None] = print) -> dict[str, Any]:
    out.mkdir(parents=True, exist_ok=True)
    started = time.time()
    readers = Readers(corpus.quality, ReaderModel(), seed=config.seed)
    summaries = []
    names: list[str] = []
    for setting in config.settings:
        world, scores_of = build_world(corpus, readers, setting.scorer, config.candidates, config.hits)
        log(f"[{setting.name}] {len(world.articles)} articles with >= {config.candidates} comments")
        result = run_setting(world, scores_of, setting, config, log)
        names = result["names"]
        summary = summarise(result)
        summary["setting"]["articles"] = len(world.articles)
        summaries.append(summary)
    gate = choose_gate(summaries, names)
    seconds = time.time() - started
    text = report(summaries, gate, config, seconds)
    (out / "estimators.md").write_text(text)
    cfg = {k: v for k, v in config.__dict__.items() if k != "settings"}
    (out / "estimators.json").write_text(json.dumps({"config": cfg, "settings": summaries, "gate": gate,
                                                     "seconds": seconds}, indent=1, default=str) + "\n")
    plot(summaries, out)
    return {"summaries": summaries, "gate": gate, "text": text}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--corpus", type=Path, help="a corpus directory (default: generate --preset/--seed into data/corpus-PRESET-SEED)")
    parser.add_argument("--preset", default="medium")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--smoke", action="store_true", help="tiny corpus, few replicates (under a minute)")
    parser.add_argument("--replicates", type=int, help="override the replicates per setting")
    parser.add_argument("--settings", help="comma-separated names of the settings to run (default: all)")
    parser.add_argument("--rewrite", action="store_true",
                        help="only rewrite the table, the gate's choice and the plots from --out/estimators.json")
    args = parser.parse_args(argv)
    if args.rewrite:
        print(rewrite(args.out))
        return 0
    config = smoke_config(args.seed) if args.smoke else full_config(args.seed)
    if args.replicates:
        config.replicates = args.replicates
    if args.settings:
        keep = set(args.settings.split(","))
        config.settings = [s for s in config.settings if s.name in keep]
    corpus_dir = args.corpus
    if corpus_dir is None:
        preset = "tiny" if args.smoke else args.preset
        from .loop import ROOT

        corpus_dir = ROOT / "data" / f"corpus-{preset}-{args.seed}"
        if not (corpus_dir / "manifest.json").exists():
            if str(ROOT / "feed") not in sys.path:
                sys.path.insert(0, str(ROOT / "feed"))
            from dwell_feed.generate import generate_to

            generate_to(preset, args.seed, corpus_dir)
    result = run(load_corpus(corpus_dir), config, args.out,
                 log=lambda m: print(m, file=sys.stderr, flush=True))
    print(result["text"])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
