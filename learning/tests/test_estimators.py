"""Propensities and off-policy estimates on cases that can be checked by hand."""
from __future__ import annotations

import math

import numpy as np
import pytest

from dwell_learning.estimators import Logged, estimate, join, snips_difference
from dwell_learning.policy import (log_prefix_propensities, position_marginals, prefix_propensities, sample,
                                   slate_propensity, step_propensities)

E = math.e


def test_step_propensities_are_plackett_luce_by_hand() -> None:
    # scores 1, 0, 0 at T=1: weights e, 1, 1.
    steps = step_propensities(np.array([1.0, 0.0, 0.0]), np.array([1, 0, 2]), 1.0)
    assert steps == pytest.approx([1 / (E + 2), E / (E + 1), 1.0])


def test_step_propensities_stay_exact_where_the_best_candidate_dwarfs_the_rest() -> None:
    # scores 40, 20, 19, 18 at T 0.3: weights e^0, e^-66.7, e^-70, e^-73.3; the total minus the best's weight
    # cancelled to 0 in doubles, and every later step came out 0
    s, order = np.array([40.0, 20.0, 19.0, 18.0]), np.array([0, 2, 1])
    a, b, c = 20 / 0.3, 19 / 0.3, 18 / 0.3
    want = [1.0, 1 / (math.exp(a - b) + 1 + math.exp(c - b)), 1 / (1 + math.exp(c - a))]
    assert step_propensities(s, order, 0.3) == pytest.approx(want, rel=1e-12)
    mixture = 0.15 * np.cumprod(want) + 0.85 * np.array([1, 0, 0])   # [0] is the greedy prefix, [0, 2] is not
    assert prefix_propensities(s, order, 0.15, 0.3) == pytest.approx(mixture, rel=1e-12)
    assert log_prefix_propensities(s, order, 0.15, 0.3) == pytest.approx(np.log(mixture), rel=1e-12)


def test_log_prefix_propensities_where_the_propensities_underflow() -> None:
    # scores 0, -100, ..., -900 at T 0.1: an explored order from the bottom has probability ~e^-25000
    s = -100.0 * np.arange(10)
    order = np.arange(10)[::-1]
    z = s / 0.1
    want = np.cumsum([z[i] - np.logaddexp.reduce(z[order[k:]]) for k, i in enumerate(order)]) + math.log(0.2)
    assert prefix_propensities(s, order, 0.2, 0.1)[-1] == 0.0, "below the smallest double"
    assert log_prefix_propensities(s, order, 0.2, 0.1) == pytest.approx(want, rel=1e-12)
    greedy_pl = np.cumsum([z[k] - np.logaddexp.reduce(z[k:]) for k in range(10)])
    assert log_prefix_propensities(s, np.arange(10), 0.2, 0.1) == pytest.approx(np.log(0.8 + 0.2 * np.exp(greedy_pl)), abs=1e-12)
    assert np.all(log_prefix_propensities(s, order, 0.0, 0.1) == -np.inf), "rate 0 never explores"
    # the logging policy estimated on its own logs: every weight is 1, where pi / mu was 0 / 0
    x = np.zeros((10, 9))
    logged = Logged([x, x], [s, s], [order, np.arange(10)], np.array([[2.0] * 10, [1.0] * 10]), np.array([0.2, 0.2]),
                    np.array([0.1, 0.1]), np.array([0.0, 0.8]), np.array([True, False]))
    for kind in ("cascade", "slate"):
        e = estimate(logged, lambda _: s, 0.2, 0.1, kind=kind)
        assert e.ips == pytest.approx(15.0) and e.snips == pytest.approx(15.0) and e.max_weight == pytest.approx(1.0)


def test_mixture_propensity_of_greedy_and_explored_orders() -> None:
    s = np.array([1.0, 0.0])
    p0 = E / (E + 1)  # PL picks candidate 0 first
    # Showing one of two at rate 0.5: greedy [0] also comes from the PL half.
    assert slate_propensity(s, np.array([0]), 0.5, 1.0) == pytest.approx(0.5 + 0.5 * p0)
    assert slate_propensity(s, np.array([1]), 0.5, 1.0) == pytest.approx(0.5 * (1 - p0))
    # Prefixes of a full order: [1, 0] is not greedy at either depth.
    assert prefix_propensities(s, np.array([1, 0]), 0.5, 1.0) == pytest.approx([0.5 * (1 - p0)] * 2)
    # Temperature: T=0.5 doubles the score gap.
    assert slate_propensity(s, np.array([1]), 1.0, 0.5) == pytest.approx(1 / (E ** 2 + 1))


def test_propensities_match_the_sampling_frequencies() -> None:
    s = np.array([2.0, 1.0, 0.5, 0.0])
    rng = np.random.default_rng(0)
    counts: dict[tuple, int] = {}
    n = 40_000
    for _ in range(n):
        order, _ = sample(s, 2, 0.3, 0.7, rng)
        counts[tuple(order)] = counts.get(tuple(order), 0) + 1
    for order, c in counts.items():
        assert c / n == pytest.approx(slate_propensity(s, np.array(order), 0.3, 0.7), abs=0.01)
    marginals = position_marginals(s, 2, 0.3, 0.7, np.random.default_rng(1), samples=20_000)
    assert marginals.sum(axis=0) == pytest.approx([1.0, 1.0])
    assert marginals[0, 0] == pytest.approx(sum(c for o, c in counts.items() if o[0] == 0) / n, abs=0.015)


def two_impressions() -> Logged:
    """Two candidates with logging scores 1 and 0, one shown, rate 0.5, T 1. Impression A showed
    candidate 0 (greedy) and got 1 s, impression B showed candidate 1 (explored) and got 3 s."""
    x = np.array([[1.0] + [0.0] * 8, [0.0] * 9])  # feature 0 tells the candidates apart
    return Logged(features=[x, x], scores=[np.array([1.0, 0.0])] * 2,
                  order=[np.array([0]), np.array([1])], rewards=np.array([[1.0], [3.0]]),
                  rate=np.array([0.5, 0.5]), temperature=np.array([1.0, 1.0]),
                  propensity=np.array([0.5 + 0.5 * E / (E + 1), 0.5 / (E + 1)]), explored=np.array([False, True]))


def test_ips_and_snips_by_hand() -> None:
    logged = two_impressions()
    mu_a, mu_b = logged.propensity
    # A deterministic target that prefers candidate 1: weights 0 and 1 / mu_b.
    prefers_1 = lambda x: -x[:, 0]
    for kind in ("slate", "cascade"):
        e = estimate(logged, prefers_1, rate=0.0, temperature=1.0, kind=kind, n_boot=50)
        assert e.ips == pytest.approx((0 * 1 + 3 / mu_b) / 2)       # = 11.15
        assert e.snips == pytest.approx(3.0)
    # The logging policy itself: weights 1, IPS = SNIPS = the mean.
    same = lambda x: x[:, 0]
    e = estimate(logged, same, rate=0.5, temperature=1.0, kind="cascade", n_boot=50)
    assert e.ips == pytest.approx(2.0) and e.snips == pytest.approx(2.0)
    # The uniform policy (rate 1 at a huge temperature): weights 0.5 / mu.
    e = estimate(logged, same, rate=1.0, temperature=1e9, kind="slate", n_boot=50)
    assert e.ips == pytest.approx((0.5 / mu_a * 1 + 0.5 / mu_b * 3) / 2)
    assert e.snips == pytest.approx((0.5 / mu_a * 1 + 0.5 / mu_b * 3) / (0.5 / mu_a + 0.5 / mu_b))


def test_cascade_weights_use_prefixes() -> None:
    # Scores 1, 0; both shown; the logged order [1, 0] was explored; rewards 2 s then 1 s.
    x = np.array([[1.0] + [0.0] * 8, [0.0] * 9])
    logged = Logged([x], [np.array([1.0, 0.0])], [np.array([1, 0])], np.array([[2.0, 1.0]]),
                    np.array([0.5]), np.array([1.0]), np.array([0.5 / (E + 1)]), np.array([True]))
    e = estimate(logged, lambda f: -f[:, 0], rate=0.0, temperature=1.0, kind="cascade", n_boot=10)
    mu = 0.5 / (E + 1)  # both prefixes [1] and [1, 0] have this probability
    assert e.ips == pytest.approx(2.0 / mu + 1.0 / mu)


def test_intervals_contain_the_estimate_and_the_paired_gain_is_narrower() -> None:
    rng = np.random.default_rng(3)
    n = 400
    feats, scores, orders, rewards, explored, prop = [], [], [], [], [], []
    for i in range(n):
        x = rng.random((5, 9))
        s = x[:, 0] * 2
        order, ex = sample(s, 3, 0.3, 0.5, rng)
        feats.append(x)
        scores.append(np.sort(s)[::-1])
        # candidates are in descending logging score order, as logged
        idx = np.argsort(-s, kind="stable")
        feats[-1] = x[idx]
        order, ex = sample(scores[-1], 3, 0.3, 0.5, rng)
        orders.append(order)
        rewards.append([feats[-1][c, 1] * 10 for c in order])
        explored.append(ex)
        prop.append(slate_propensity(scores[-1], order, 0.3, 0.5))
    logged = Logged(feats, scores, orders, np.array(rewards), np.full(n, 0.3), np.full(n, 0.5),
                    np.array(prop), np.array(explored))
    a = lambda f: f[:, 1] * 2
    b = lambda f: f[:, 0] * 2
    ea, eb = estimate(logged, a, 0.3, 0.5), estimate(logged, b, 0.3, 0.5)
    assert ea.snips_ci[0] <= ea.snips <= ea.snips_ci[1] and ea.ips_ci[0] <= ea.ips <= ea.ips_ci[1]
    diff, (lo, hi) = snips_difference(logged, a, b, 0.3, 0.5)
    assert diff == pytest.approx(ea.snips - eb.snips)
    assert lo <= diff <= hi
    # Policy a ranks by the feature that is the reward: it must beat the logging policy b.
    assert lo > 0


def test_join_by_query_id_drops_unmatched_and_places_rewards() -> None:
    imp = {"query_id": "q1", "features": [[0.0] * 9, [1.0] * 9], "scores": [2.0, 1.0], "shown": [1, 0],
           "rate": 0.1, "temperature": 1.0, "propensity": 0.05, "explored": True}
    other = dict(imp, query_id="q2")
    signals = {"q1": {"reads": [{"position": 0, "seconds": 4.0}, {"position": 1, "seconds": 2.5}]}}
    logged = join([imp, other], signals)
    assert len(logged) == 1
    assert logged.unjoined == 1, "the impression without a signal is counted"
    assert logged.rewards.tolist() == [[4.0, 2.5]]
    assert logged.dwell.tolist() == [6.5]
