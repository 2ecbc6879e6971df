"""The estimator benchmark: its vectorised propensities and Cascade-DR against policy.py and doubly_robust.py, the new
estimators' expectations computed exactly by enumerating every slate of a tiny case, the coverage computation on an
estimator whose distribution is known, and the smoke run."""
from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

import synthetic
from dwell_learning import estimator_bench as eb
from dwell_learning.doubly_robust import ReaderFit, dr_values, fit_readers
from dwell_learning.estimators import from_weights
from dwell_learning.policy import prefix_propensities
from test_doubly_robust import RATE, T, _world


def test_prefix_probs_and_target_joint_match_policy() -> None:
    rng = np.random.default_rng(0)
    n, c, k = 60, 7, 4
    scores = rng.normal(size=(n, c))
    order = np.stack([rng.permutation(c)[:k] for _ in range(n)])
    order[:10] = np.argsort(-scores[:10], axis=1, kind="stable")[:, :k]      # some greedy prefixes too
    got = eb.prefix_probs(scores, order, 0.3, 0.6)
    want = np.stack([prefix_propensities(s, o, 0.3, 0.6) for s, o in zip(scores, order)])
    assert got == pytest.approx(want, rel=1e-12, abs=1e-15)
    joint = eb.target_joint(scores, order, 0.3, 0.6)
    assert np.take_along_axis(joint, order[:, :, None], axis=2)[:, :, 0] == pytest.approx(want, rel=1e-12, abs=1e-15)
    # pi(prefix + c) summed over c is pi(prefix)
    before = np.concatenate([np.ones((n, 1)), want[:, :-1]], axis=1)
    assert joint.sum(axis=2) == pytest.approx(before, rel=1e-12)


def test_vectorised_cascade_dr_equals_doubly_robust() -> None:
    logged, feats = _world(120, 11)
    fit = fit_readers(_world(800, 12)[0])
    target = lambda x: 3.0 * x[:, 1] + 0.5 * x[:, 0]  # noqa: E731
    want = dr_values(logged, target, RATE, T, fit)
    features = np.stack(logged.features)
    order = np.stack(logged.order)
    k = order.shape[1]
    read, go = eb.reader_tables(fit, features, k)
    scores = np.stack([target(x) for x in features])
    mu = eb.prefix_probs(np.stack(logged.scores), order, RATE, T)
    joint = eb.target_joint(scores, order, RATE, T)
    w = np.take_along_axis(joint, order[:, :, None], axis=2)[:, :, 0] / mu
    q = eb.cascade_q(read, go, fit.p_open, scores, order)
    baseline, correction = eb.cascade_dr_terms(q, joint, mu, w, logged.rewards, order)
    got = eb.dr_terms(baseline, correction)
    assert got == pytest.approx(want, rel=1e-9)
    assert eb.switch_terms(baseline, correction, w, math.inf) == pytest.approx(got)
    assert eb.switch_terms(baseline, correction, w, -1.0) == pytest.approx(eb.dm_terms(baseline))
    # a switch in between differs from Cascade-DR only on impressions whose weights went over tau
    mid = eb.switch_terms(baseline, correction, w, 5.0)
    switched = (w > 5.0).any(axis=1)
    assert 0 < switched.sum() < len(w)
    assert np.allclose(mid[~switched], got[~switched]) and not np.allclose(mid[switched], got[switched])


# ---------------------------------------------------------------------------------------------
# Exact expectations on a tiny case: 4 candidates, 2 shown, every ordered slate (12) enumerated. (With 3 candidates
# almost every reward of the 6 slates is additive over item-position pairs, which would hide PI's bias.)

C3, K2 = 4, 2
LOG = np.array([1.0, 0.3, -0.5, 0.1])
TGT = np.array([-0.4, 0.2, 0.9, 0.5])
READ = np.array([[4.0, 3.0], [9.0, 7.0], [2.0, 1.5], [6.0, 2.0]])      # seconds of candidate c at position k
GO = np.array([[0.8, 0.7], [0.5, 0.4], [0.9, 0.85], [0.3, 0.6]])        # going on after c at position k
P_OPEN = 0.85


def _enumerated(rate: float = 0.4, temperature: float = 0.7, t_rate: float = 0.4, t_temperature: float = 0.5):
    gamma, slates, mu_s = eb.gamma_exact(LOG, K2, rate, temperature)
    _, _, pi_s = eb.gamma_exact(TGT, K2, t_rate, t_temperature)
    order = np.stack(slates)
    n = len(order)
    mu = eb.prefix_probs(np.tile(LOG, (n, 1)), order, rate, temperature)
    joint = eb.target_joint(np.tile(TGT, (n, 1)), order, t_rate, t_temperature)
    w = np.take_along_axis(joint, order[:, :, None], axis=2)[:, :, 0] / mu
    assert mu_s.sum() == pytest.approx(1.0) and pi_s.sum() == pytest.approx(1.0)
    assert mu[:, -1] == pytest.approx(mu_s) and w[:, -1] * mu_s == pytest.approx(pi_s)
    return gamma, order, mu_s, pi_s, mu, joint, w


def _cascade_rewards(order: np.ndarray) -> np.ndarray:
    """E[dwell at k | slate] of a cascade reader: depends on the slate up to k only."""
    r = np.zeros(order.shape)
    reach = np.full(len(order), P_OPEN)
    for k in range(order.shape[1]):
        r[:, k] = reach * READ[order[:, k], k]
        reach = reach * GO[order[:, k], k]
    return r


def _additive_rewards(order: np.ndarray) -> np.ndarray:
    """E[dwell at k | slate] = phi(item at k, k): an item-position (additive) reader."""
    return READ[order, np.arange(order.shape[1])]


def _interacting_rewards(order: np.ndarray) -> np.ndarray:
    """Position 0's dwell depends on what is shown BELOW it: neither cascade nor additive."""
    r = _additive_rewards(order)
    r[:, 0] += 6.0 * (order[:, 1] == 2)
    return r


def _marginals(order: np.ndarray, p: np.ndarray) -> np.ndarray:
    m = np.zeros((C3, K2))
    for s, ps in zip(order, p):
        m[s, np.arange(K2)] += ps
    return m


def test_slate_and_cascade_ips_are_unbiased_where_they_should_be() -> None:
    _, order, mu_s, pi_s, _, _, w = _enumerated()
    for rewards in (_cascade_rewards(order), _additive_rewards(order), _interacting_rewards(order)):
        truth = float(pi_s @ rewards.sum(axis=1))
        assert mu_s @ eb.ips_terms(w[:, -1:], rewards.sum(axis=1, keepdims=True)) == pytest.approx(truth)
    cascade = _cascade_rewards(order)
    assert mu_s @ eb.ips_terms(w, cascade) == pytest.approx(float(pi_s @ cascade.sum(axis=1)))
    interacting = _interacting_rewards(order)   # the cascade form misses what position 1 does to position 0
    assert abs(mu_s @ eb.ips_terms(w, interacting) - float(pi_s @ interacting.sum(axis=1))) > 0.05
    # clipping below the largest weight biases it
    assert w.max() > 2.0
    assert abs(mu_s @ eb.ips_terms(eb.clipped(w, 2.0), cascade) - float(pi_s @ cascade.sum(axis=1))) > 0.05


def test_pseudoinverse_is_unbiased_under_an_additive_reader_only() -> None:
    gamma, order, mu_s, pi_s, _, _, _ = _enumerated()
    q_pi = _marginals(order, pi_s).ravel()
    u = eb.pseudoinverse_vector(gamma, q_pi).reshape(C3, K2)
    weights = eb.pi_weights(u[None], np.zeros(len(order), dtype=np.int64), order)
    additive = _additive_rewards(order).sum(axis=1)
    assert mu_s @ (weights * additive) == pytest.approx(float(pi_s @ additive), rel=1e-9)
    cascade = _cascade_rewards(order).sum(axis=1)
    assert abs(mu_s @ (weights * cascade) - float(pi_s @ cascade)) > 0.05
    # the position (item-position) IPS with exact marginals: unbiased under the additive reader too
    wp = eb.position_weights(_marginals(order, pi_s)[None], _marginals(order, mu_s)[None],
                             np.zeros(len(order), dtype=np.int64), order, 1e-12)
    assert mu_s @ eb.ips_terms(wp, _additive_rewards(order)) == pytest.approx(float(pi_s @ additive))


def test_gamma_by_monte_carlo_approaches_the_enumeration() -> None:
    gamma, _, _, _, _, _, _ = _enumerated()
    mc = eb.gamma_mc(LOG, K2, 0.4, 0.7, np.random.default_rng(3), 200_000)
    assert mc == pytest.approx(gamma, abs=4e-3)
    assert np.trace(mc) == pytest.approx(K2)         # one item per position in every slate


def test_cascade_dr_is_unbiased_for_any_reader_model_and_switch_is_not() -> None:
    _, order, mu_s, pi_s, mu, joint, w = _enumerated()
    rewards = _cascade_rewards(order)
    truth = float(pi_s @ rewards.sum(axis=1))
    n = len(order)
    rng = np.random.default_rng(5)
    wrong_read = rng.uniform(0.5, 12.0, size=(n, C3, K2))[:1].repeat(n, axis=0)   # one wrong model for all slates
    wrong_go = rng.uniform(0.1, 0.95, size=(n, C3, K2))[:1].repeat(n, axis=0)
    q = eb.cascade_q(wrong_read, wrong_go, 0.6, np.tile(TGT, (n, 1)), order)
    baseline, correction = eb.cascade_dr_terms(q, joint, mu, w, rewards, order)
    assert mu_s @ eb.dr_terms(baseline, correction) == pytest.approx(truth, rel=1e-9)
    dm = float(mu_s @ eb.dm_terms(baseline))
    assert abs(dm - truth) > 0.1                               # the wrong model alone is biased
    assert abs(mu_s @ eb.switch_terms(baseline, correction, w, 1.0) - truth) > 0.05
    # with the true model, the direct method is exact too for a greedy target (Q continues with the target's greedy
    # order, so for an exploring target it is not)
    _, order, mu_s, pi_s, mu, joint, w = _enumerated(t_rate=0.0)
    rewards = _cascade_rewards(order)
    truth = float(pi_s @ rewards.sum(axis=1))
    true_read = np.broadcast_to(READ, (n, C3, K2))
    true_go = np.broadcast_to(GO, (n, C3, K2))
    q_true = eb.cascade_q(np.ascontiguousarray(true_read), np.ascontiguousarray(true_go), P_OPEN,
                          np.tile(TGT, (n, 1)), order)
    b_true, _ = eb.cascade_dr_terms(q_true, joint, mu, w, rewards, order)
    assert mu_s @ eb.dm_terms(b_true) == pytest.approx(truth, rel=1e-9)


# ---------------------------------------------------------------------------------------------
# Intervals and coverage


def test_coverage_of_a_known_normal_estimator() -> None:
    rng = np.random.default_rng(7)
    truth, sd, r = 10.0, 2.0, 4000
    e = rng.normal(truth, sd, r)
    for half, want in ((1.96, 0.95), (1.0, 0.6827), (0.5, 0.3829)):
        est = np.c_[e, e - half * sd, e + half * sd]
        s = eb.summarise_estimates(est, truth)
        assert s["coverage"] == pytest.approx(want, abs=0.025)
        assert s["width"] == pytest.approx(2 * half * sd)
    biased = np.c_[e + 1.96 * sd, e, e + 3.92 * sd]      # intervals of width 1.96 sd*2 centred 1.96 sd off
    s = eb.summarise_estimates(biased, truth)
    assert s["coverage"] == pytest.approx(0.5, abs=0.03)
    assert s["bias"] == pytest.approx(e.mean() + 1.96 * sd - truth)
    assert s["rmse"] == pytest.approx(math.sqrt(np.mean((e + 1.96 * sd - truth) ** 2)))
    # normal_interval itself: the mean of 100 normal draws, 2000 times
    hits = [eb.normal_interval(rng.normal(3.0, 1.0, 100)) for _ in range(2000)]
    assert np.mean([lo <= 3.0 <= hi for _, lo, hi in hits]) == pytest.approx(0.95, abs=0.015)


def test_ratio_estimates_agree_with_estimators_snips() -> None:
    rng = np.random.default_rng(8)
    w, r = rng.exponential(size=(300, 4)), rng.exponential(size=(300, 4))
    ref = from_weights(w, r, "cascade")
    assert eb.ratio_value(w * r, w) == pytest.approx(ref.snips)
    assert eb.snips_value(w, r) == pytest.approx(ref.snips)
    assert eb.ips_terms(w, r).mean() == pytest.approx(ref.ips)
    counts = rng.multinomial(300, np.full(300, 1 / 300), size=400).astype(float)
    lo, hi = eb.percentile_interval(eb.ratio_boot(w * r, w, counts))
    assert lo < ref.snips < hi
    assert (hi - lo) == pytest.approx(ref.snips_ci[1] - ref.snips_ci[0], rel=0.25)
    assert eb.ratio_boot(w * r, w, np.ones((1, 300))) == pytest.approx([ref.snips])


def test_choose_gate_takes_the_narrowest_estimator_that_covers() -> None:
    def row(cov: float, gcov: float | None, width: float) -> dict:
        r = {"coverage": cov, "rmse": width}
        if gcov is not None:
            r |= {"gain": {"coverage": gcov, "width": width},
                  "gate": {"shipped_better": 1, "shipped_worse": 0, "kept_better": 2, "kept_worse": 3}}
        return r

    summaries = [{"targets": [
        {"lambda": 0.0, "estimators": {"a": row(0.95, None, 0), "b": row(0.95, None, 0), "c": row(1, None, 0)}},
        {"lambda": 0.05, "estimators": {"a": row(0.93, 0.94, 2.0), "b": row(0.95, 0.91, 1.0), "c": row(0.99, 0.99, 5.0)}},
        {"lambda": 0.5, "estimators": {"a": row(0.93, 0.94, 2.0), "b": row(0.95, 0.80, 1.0), "c": row(0.99, 0.99, 5.0)}},
    ]}]
    gate = eb.choose_gate(summaries, ["a", "b", "c"], bands={"all": None, "near": 0.1})
    assert gate["bands"]["all"]["chosen"] == "a" and gate["bands"]["all"]["qualified"] == ["a", "c"]
    assert gate["bands"]["near"]["chosen"] == "b" and gate["bands"]["near"]["targets"] == 1
    assert gate["bands"]["all"]["by_estimator"]["c"]["gate"] == {"shipped_better": 2, "shipped_worse": 0,
                                                                 "kept_better": 4, "kept_worse": 6}
    summaries[0]["targets"][0]["estimators"]["a"]["coverage"] = 0.5      # the logging policy's own value counts too
    assert eb.choose_gate(summaries, ["a", "b", "c"], bands={"all": None})["bands"]["all"]["chosen"] == "c"


def test_smoke_run_has_every_estimator(tmp_path: Path) -> None:
    corpus = synthetic.corpus(articles=6, per_article=30, seed=3)
    config = eb.smoke_config()
    result = eb.run(corpus, config, tmp_path, log=lambda m: None)
    text = (tmp_path / "estimators.md").read_text()
    data = json.loads((tmp_path / "estimators.json").read_text())
    names = eb.estimator_names(config)
    assert len(names) == 17 + len(eb.DR_INTERVALS)
    for name in names:
        assert f"| {name} |" in text
        for target in data["settings"][0]["targets"]:
            row = target["estimators"][name]
            assert row["replicates"] == config.replicates and 0.0 <= row["coverage"] <= 1.0
    targets = data["settings"][0]["targets"]
    assert targets[0]["target"] == "logging" and targets[0]["true_gain"] == 0.0
    # on the logging policy itself every weight is 1: IPS of every form is the on-policy mean
    logging = targets[0]["estimators"]
    assert logging["ips-slate"]["bias"] == pytest.approx(logging["ips-cascade"]["bias"])
    assert logging["ips-cascade"]["bias"] == pytest.approx(logging["snips-cascade"]["bias"])
    assert targets[0]["ess_share"] == pytest.approx(1.0)
    # Cascade-DR with every interval construction: the same estimates, each construction's own interval
    for t in targets:
        for m in eb.DR_INTERVALS:
            assert t["estimators"][f"dr-{m}"]["bias"] == pytest.approx(t["estimators"]["dr"]["bias"])
    assert result["gate"]["bands"]["all targets"]["by_estimator"].keys() == set(names)
    for png in ("coverage_smoke.png", "bias_rmse_smoke.png"):
        assert (tmp_path / png).read_bytes()[:4] == b"\x89PNG"


def test_obp_agrees() -> None:
    """Open Bandit Pipeline's slate IPS/SNIPS (standard, independent, reward interaction) and Cascade-DR on its own
    synthetic slate data, against ours on the same data mapped into Logged: the same formulas, so to rounding.
    ./dwell test installs obp (requirements/test.txt, test-nodeps.txt); without it this fails, it does not skip."""
    from dwell_learning.obp_crosscheck import crosscheck

    rows = crosscheck(n_rounds=200, seed=7)
    assert len(rows) == 12
    for row in rows:
        assert row["abs_diff"] < 1e-9, row
    assert all(abs(r["ours"]) > 0.1 for r in rows if "vs" in r["what"])
