"""The interval constructions of estimators.mean_interval (the gate's paired gain): each against an explicit
computation, and its coverage on synthetics with a known mean; the loop's gate reads the construction it is told."""
from __future__ import annotations

from statistics import NormalDist

import numpy as np
import pytest

from dwell_learning.doubly_robust import dr_values, fit_readers
from dwell_learning.estimators import INTERVALS, betting_interval, bootstrap_counts, mean_interval
from dwell_learning.loop import Judged, LoopConfig, judge
from dwell_learning.network import forward, linear_weights

TRIALS = 200
# 200 trials: a coverage of c is observed within c +- 3 sqrt(c (1 - c) / 200), about +-0.046 at 95%.
BAND = 3 * np.sqrt(0.95 * 0.05 / TRIALS)


def _explicit(v: np.ndarray, method: str, idx: np.ndarray) -> tuple[float, float]:
    """The bootstrap intervals from explicit resamples (index arrays) and an explicit jackknife, by loops."""
    n, m = len(v), float(np.mean(v))
    means = np.array([v[i].mean() for i in idx])
    if method == "percentile":
        return tuple(np.quantile(means, [0.025, 0.975]))
    if method == "bootstrap-t":
        se = np.std(v, ddof=1) / np.sqrt(n)
        t = np.array([(v[i].mean() - m) / (np.std(v[i], ddof=1) / np.sqrt(n)) for i in idx])
        return m - np.quantile(t, 0.975) * se, m - np.quantile(t, 0.025) * se
    assert method == "bca"
    nd = NormalDist()
    z0 = nd.inv_cdf(float(np.mean(means < m)))
    jack = np.array([np.delete(v, j).mean() for j in range(n)])
    d = jack.mean() - jack
    a = (d ** 3).sum() / (6 * ((d ** 2).sum()) ** 1.5)
    levels = [nd.cdf(z0 + (z0 + z) / (1 - a * (z0 + z))) for z in (nd.inv_cdf(0.025), nd.inv_cdf(0.975))]
    return tuple(np.quantile(means, levels))


@pytest.mark.parametrize("method", ["percentile", "bca", "bootstrap-t"])
def test_bootstrap_intervals_equal_an_explicit_computation(method: str) -> None:
    rng = np.random.default_rng(3)
    v = rng.lognormal(0.0, 1.0, 60)
    idx = rng.integers(0, len(v), (300, len(v)))
    counts = np.stack([np.bincount(i, minlength=len(v)) for i in idx]).astype(float)
    m, lo, hi = mean_interval(v, method, counts=counts)
    assert m == pytest.approx(v.mean())
    assert (lo, hi) == pytest.approx(_explicit(v, method, idx), rel=1e-9)


def test_normal_and_bernstein_equal_their_formulas() -> None:
    v = np.random.default_rng(4).random(50)
    se = np.std(v, ddof=1) / np.sqrt(50)
    assert mean_interval(v, "normal")[1:] == pytest.approx((v.mean() - 1.959964 * se, v.mean() + 1.959964 * se))
    log_term = np.log(2 / 0.025)
    half = np.sqrt(2 * np.var(v, ddof=1) * log_term / 50) + 7 * 1.0 * log_term / (3 * 49)
    assert mean_interval(v, "bernstein", range_=1.0)[1:] == pytest.approx((v.mean() - half, v.mean() + half))


def _coverage(draw, truth: float, methods, seed: int, **kw) -> dict[str, tuple[float, float]]:
    rng = np.random.default_rng(seed)
    hits = {m: 0 for m in methods}
    widths = {m: 0.0 for m in methods}
    for _ in range(TRIALS):
        v = draw(rng)
        counts = bootstrap_counts(len(v), 400, rng) if {"percentile", "bca", "bootstrap-t"} & set(methods) else None
        for m in methods:
            _, lo, hi = mean_interval(v, m, counts=counts, **kw)
            hits[m] += lo <= truth <= hi
            widths[m] += (hi - lo) / TRIALS
    return {m: (hits[m] / TRIALS, widths[m]) for m in methods}


def test_coverage_of_an_importance_weighted_mean() -> None:
    """v = B r / p, B ~ Bernoulli(0.2), r ~ LogNormal(0, 0.5): a skewed weighted mean whose mean is E r."""
    p, n = 0.2, 400
    truth = float(np.exp(0.125))

    def draw(rng: np.random.Generator) -> np.ndarray:
        return (rng.random(n) < p) * rng.lognormal(0.0, 0.5, n) / p

    got = _coverage(draw, truth, ["normal", "percentile", "bca", "bootstrap-t"], seed=5)
    for m, (cov, width) in got.items():
        assert 0.95 - BAND - 0.02 <= cov <= 0.95 + BAND, (m, cov)   # asymptotic 95% (the 0.02: n = 400 is finite)
        assert 0.0 < width < 1.0, (m, width)
    # a wrong interval does fail: the same widths shifted by one half-width cover about half the time
    rng = np.random.default_rng(6)
    shifted = 0
    for _ in range(TRIALS):
        m, lo, hi = mean_interval(draw(rng), "normal")
        shifted += lo + (hi - lo) / 2 <= truth <= hi + (hi - lo) / 2
    assert shifted / TRIALS < 0.75


def test_concentration_intervals_cover_with_a_known_range() -> None:
    """Beta(0.5, 3) values in [0, 1] (mean 1/7): with the a-priori range 1, empirical Bernstein and the betting
    interval are valid at any n, so they cover at least 95% (within the band), and betting is the narrower."""
    n = 300

    def draw(rng: np.random.Generator) -> np.ndarray:
        return rng.beta(0.5, 3.0, n)

    got = _coverage(draw, 1 / 7, ["bernstein", "betting"], seed=7, range_=1.0)
    for m, (cov, _) in got.items():
        assert cov >= 0.95 - BAND, (m, cov)
    assert got["betting"][1] < got["bernstein"][1]


def test_betting_interval_shrinks_around_the_mean() -> None:
    rng = np.random.default_rng(8)
    small, large = rng.random(100), rng.random(3000)
    lo_s, hi_s = betting_interval(small, range_=1.0)
    lo_l, hi_l = betting_interval(large, range_=1.0)
    assert lo_s < small.mean() < hi_s and lo_l < large.mean() < hi_l
    assert hi_l - lo_l < 0.5 * (hi_s - lo_s)      # width ~ 1/sqrt(n): 30 times the data, about 0.18 of the width
    assert 0.45 < lo_l and hi_l < 0.55


def test_the_gate_reads_the_chosen_construction() -> None:
    from test_doubly_robust import _world

    logged, _ = _world(300, seed=11)
    fit = fit_readers(_world(600, seed=12)[0])
    live = linear_weights(np.r_[2.0, 1.0, np.zeros(7)])
    cand = linear_weights(np.r_[1.0, 2.0, np.zeros(7)])
    diff = (dr_values(logged, lambda x: forward(cand, x), 0.3, 0.5, fit)
            - dr_values(logged, lambda x: forward(live, x), 0.3, 0.5, fit))
    counts = bootstrap_counts(len(diff), 2000, np.random.default_rng([9, 29]))
    for chosen in {CHOSEN, "normal"}:
        judged = judge(logged, live, cand, 0.3, 0.5, fit, "dr", chosen, seed=9)
        assert judged.gain == pytest.approx(diff.mean())
        assert set(judged.gain_intervals) == set(INTERVALS)
        for method in INTERVALS:
            assert judged.gain_intervals[method] == pytest.approx(mean_interval(diff, method, counts=counts)[1:]), method
        expected = mean_interval(diff, chosen, counts=counts)
        assert judged.gain_ci == pytest.approx(expected[1:])
        assert judged.ships == (expected[1] > 0)
    assert LoopConfig().gate == "dr" and LoopConfig().gate_interval == CHOSEN
    assert Judged({}, {}, 1.0, (0.1, 2.0)).ships and not Judged({}, {}, 1.0, (-0.1, 2.0)).ships


CHOSEN = "betting"   # the gate's construction (README, "The gate's interval and its rule")
