"""Cascade-DR on a synthetic cascade world whose exact value is known."""
from __future__ import annotations

import numpy as np
import pytest

from dwell_learning.doubly_robust import ReaderFit, dr_difference, dr_estimate, fit_readers
from dwell_learning.estimators import Logged, estimate
from dwell_learning.policy import sample, slate_propensity

RATE, T, K, N_C = 0.3, 0.5, 4, 8
P_OPEN = 0.9


def _read(x: np.ndarray) -> np.ndarray:
    return 2.0 + 10.0 * x[:, 1]


def _go(x: np.ndarray) -> np.ndarray:
    return 0.3 + 0.6 * x[:, 1]


def _expected(x: np.ndarray, slate: np.ndarray) -> float:
    value, reach = 0.0, P_OPEN
    for c in slate:
        value += reach * _read(x[[c]])[0]
        reach *= _go(x[[c]])[0]
    return value


def _world(n: int, seed: int) -> tuple[Logged, list[np.ndarray]]:
    rng = np.random.default_rng(seed)
    feats, scores, orders, rewards, explored, prop = [], [], [], [], [], []
    for _ in range(n):
        x = rng.random((N_C, 9))
        s = 2.0 * x[:, 0] + x[:, 1]
        idx = np.argsort(-s, kind="stable")       # candidates as logged: by logging score
        x, s = x[idx], s[idx]
        order, ex = sample(s, K, RATE, T, rng)
        r = np.zeros(K)
        if rng.random() < P_OPEN:
            for k, c in enumerate(order):
                r[k] = _read(x[[c]])[0] * rng.lognormal(-0.045, 0.3)
                if rng.random() >= _go(x[[c]])[0]:
                    break
        feats.append(x), scores.append(s), orders.append(order), rewards.append(r), explored.append(ex)
        prop.append(slate_propensity(s, order, RATE, T))
    logged = Logged(feats, scores, orders, np.array(rewards), np.full(n, RATE), np.full(n, T),
                    np.array(prop), np.array(explored))
    return logged, feats


def _true_value(feats: list[np.ndarray], score_fn, rng: np.random.Generator, samples: int = 300) -> float:
    total = 0.0
    for x in feats:
        s = score_fn(x)
        greedy = np.argsort(-s, kind="stable")[:K]
        explored = np.mean([_expected(x, np.argsort(-(s / T + rng.gumbel(size=len(s))))[:K]) for _ in range(samples)])
        total += (1 - RATE) * _expected(x, greedy) + RATE * explored
    return total / len(feats)


def target(x: np.ndarray) -> np.ndarray:
    return 3.0 * x[:, 1]        # ranks by what readers like: far from the logging policy


def test_fitted_reader_model_recovers_read_times_and_going_on() -> None:
    logged, _ = _world(1500, 1)
    fit = fit_readers(logged)
    x = np.random.default_rng(2).random((200, 9))
    k = np.zeros(200)
    assert np.corrcoef(fit.read_seconds(x, k), _read(x))[0, 1] > 0.95
    assert np.corrcoef(fit.go_on(x, k), _go(x))[0, 1] > 0.9
    assert abs(fit.p_open - P_OPEN) < 0.03


def near(x: np.ndarray) -> np.ndarray:
    return 2.0 * x[:, 0] + 1.6 * x[:, 1]   # close to the logging policy: IPS is well behaved


def test_dr_agrees_with_cascade_ips_near_the_logging_policy_even_with_a_wrong_model() -> None:
    logged, feats = _world(1500, 3)
    truth = _true_value(feats, near, np.random.default_rng(4), samples=60)
    fitted = fit_readers(_world(1500, 5)[0])
    wrong = ReaderFit(fitted.mean, fitted.scale, np.zeros_like(fitted.read_coef), 0.0,
                      np.zeros_like(fitted.go_coef), 0.5)     # 1 s per read, a coin for going on
    ips = estimate(logged, near, RATE, T, "cascade")
    assert ips.ips_ci[0] <= truth <= ips.ips_ci[1]
    for model in (fitted, wrong):
        e = dr_estimate(logged, near, RATE, T, model)
        assert e.ips_ci[0] <= truth <= e.ips_ci[1], (e, truth)


def test_dr_finds_a_far_policy_where_cascade_ips_has_a_handful_of_weights() -> None:
    logged, feats = _world(1500, 3)
    truth = _true_value(feats, target, np.random.default_rng(4), samples=60)
    fitted = fit_readers(_world(1500, 5)[0])
    ips = estimate(logged, target, RATE, T, "cascade")
    good = dr_estimate(logged, target, RATE, T, fitted)
    assert ips.ess < 20                                  # what cascade IPS rests on here
    assert good.ips_ci[0] <= truth <= good.ips_ci[1], (good, truth)
    assert good.ips_ci[1] - good.ips_ci[0] < 0.6 * (ips.ips_ci[1] - ips.ips_ci[0])


def test_paired_dr_gain_finds_the_better_policy() -> None:
    logged, _ = _world(1000, 6)
    fitted = fit_readers(_world(1000, 7)[0])
    gain, (lo, hi) = dr_difference(logged, target, lambda x: 2.0 * x[:, 0] + x[:, 1], RATE, T, fitted)
    assert lo > 0 and lo <= gain <= hi
    same, (lo2, hi2) = dr_difference(logged, target, target, RATE, T, fitted)
    assert same == 0.0 and lo2 == hi2 == 0.0


def test_reader_model_does_not_extrapolate_beyond_the_logs_it_was_fitted_on() -> None:
    logged, _ = _world(600, 8)
    fit = fit_readers(logged)
    x = np.random.default_rng(9).random((5, 9))
    k = np.zeros(5)
    far = x.copy()
    far[:, 1] = 40.0                         # the features of the logs are in [0, 1)
    assert fit.lo is not None and fit.hi is not None
    # beyond the range of the read comments' features it was fitted on, the model answers as at the edge
    edge = x.copy()
    edge[:, 1] = fit.hi[1] * fit.scale[1] + fit.mean[1]
    assert fit.read_seconds(far, k) == pytest.approx(fit.read_seconds(edge, k))
    assert fit.go_on(far, k) == pytest.approx(fit.go_on(edge, k))
    raw = ReaderFit(fit.mean, fit.scale, fit.read_coef, fit.read_var, fit.go_coef, fit.p_open)
    assert not np.allclose(raw.read_seconds(far, k), fit.read_seconds(far, k))


def test_dr_is_finite_where_the_logged_propensities_underflow() -> None:
    # a logging ranker whose scores spread over ~1000 temperatures: its explored slates' propensities are 0 in
    # doubles (and the steps after its best candidate cancelled to 0), so pi / mu was 0 / 0 for the policy itself
    rng = np.random.default_rng(12)
    logged, _ = _world(300, 13)
    steep = lambda x: 500.0 * (2.0 * x[:, 0] + x[:, 1])
    logged.scores = [steep(x) for x in logged.features]
    logged.order = [sample(s, K, RATE, T, rng)[0] for s in logged.scores]
    fitted = fit_readers(_world(600, 14)[0])
    values = dr_estimate(logged, steep, RATE, T, fitted)
    assert np.isfinite(values.ips) and np.isfinite(values.ips_ci[0]) and np.isfinite(values.ips_ci[1])
    assert np.isfinite(estimate(logged, steep, RATE, T, kind="cascade").snips)
    gain, (lo, hi) = dr_difference(logged, steep, steep, RATE, T, fitted)
    assert gain == 0.0 and lo == hi == 0.0
    assert np.isfinite(dr_difference(logged, target, steep, RATE, T, fitted)[0])
