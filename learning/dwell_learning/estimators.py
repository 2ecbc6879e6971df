"""Off-policy estimates of a ranking policy's dwell from logged impressions: IPS and SNIPS,
over whole slates and over slate prefixes (the cascade form), with confidence intervals.

Every logged impression i has candidates (with the logging policy's scores and the logged
features), the shown order (candidate indices), the logging policy's rate and temperature,
and the dwell per shown position r_ik from the join with the readers' signals.

- slate:   w_i = pi(shown_i) / mu(shown_i), reward = total dwell. Unbiased for any reward, but
           the variance grows with the number of possible slates.
- cascade: w_ik = pi(shown_i[:k+1]) / mu(shown_i[:k+1]) on the dwell at position k. Unbiased
           when the reward at position k depends only on what was shown at positions 0..k (a
           cascade reader, as the simulator assumes), with much smaller weights.

IPS is the mean of sum_k w_ik r_ik; SNIPS divides by the weights' mean instead of 1 (per
position in the cascade form). IPS intervals are normal (mean +- z se); SNIPS intervals are
bootstrap percentiles over impressions.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Mapping, Sequence

import numpy as np

from .policy import log_prefix_propensities, position_marginals, prefix_propensities

ScoreFn = Callable[[np.ndarray], np.ndarray]  # features (n, 9) -> scores (n,)


@dataclass
class Logged:
    """Joined impressions, ready for estimation and training."""

    features: list[np.ndarray]      # per impression, (candidates, 9) as logged
    scores: list[np.ndarray]        # the logging policy's candidate scores
    order: list[np.ndarray]         # shown candidate indices
    rewards: np.ndarray             # (n, K) dwell per position, 0 past the shown length or last read
    rate: np.ndarray                # (n,)
    temperature: np.ndarray         # (n,)
    propensity: np.ndarray          # (n,) logged propensity of the whole shown order
    explored: np.ndarray            # (n,) bool
    articles: list[str] | None = None   # per impression, for the trainer's article offsets
    unjoined: int = 0                   # impressions that had no signal, left out (see join)

    def __len__(self) -> int:
        return len(self.order)

    @property
    def dwell(self) -> np.ndarray:
        return self.rewards.sum(axis=1)

    def subset(self, index: np.ndarray) -> "Logged":
        idx = [int(i) for i in np.asarray(index)]
        return Logged([self.features[i] for i in idx], [self.scores[i] for i in idx],
                      [self.order[i] for i in idx], self.rewards[idx], self.rate[idx],
                      self.temperature[idx], self.propensity[idx], self.explored[idx],
                      None if self.articles is None else [self.articles[i] for i in idx])


def join(impressions: Sequence[Mapping[str, Any]], signals: Mapping[str, Mapping[str, Any]]) -> Logged:
    """Impressions (parsed, see service.parse_impression) joined with signals by query id.
    Impressions without a signal are left out, and counted (Logged.unjoined), so that a join that lost views says so."""
    rows = [i for i in impressions if i["query_id"] in signals]
    k_max = max((len(i["shown"]) for i in rows), default=1)
    rewards = np.zeros((len(rows), k_max))
    for n, imp in enumerate(rows):
        for read in signals[imp["query_id"]]["reads"]:
            rewards[n, read["position"]] = read["seconds"]
    return Logged(
        features=[np.asarray(i["features"], dtype=np.float64) for i in rows],
        scores=[np.asarray(i["scores"], dtype=np.float64) for i in rows],
        order=[np.asarray(i["shown"], dtype=np.int64) for i in rows],
        rewards=rewards,
        rate=np.array([i["rate"] for i in rows], dtype=np.float64),
        temperature=np.array([i["temperature"] for i in rows], dtype=np.float64),
        propensity=np.array([i["propensity"] for i in rows], dtype=np.float64),
        explored=np.array([bool(i["explored"]) for i in rows]),
        articles=[i.get("article", "") for i in rows],
        unjoined=len(impressions) - len(rows),
    )


def _padded(p: np.ndarray, k_max: int) -> np.ndarray:
    """Prefix propensities carried past the shown length (those positions have reward 0)."""
    out = np.empty(k_max)
    out[: len(p)] = p
    out[len(p):] = p[-1] if len(p) else 1.0
    return out


def logging_prefix_propensities(logged: Logged) -> np.ndarray:
    k = logged.rewards.shape[1]
    return np.stack([_padded(prefix_propensities(s, o, r, t), k) for s, o, r, t in
                     zip(logged.scores, logged.order, logged.rate, logged.temperature)])


def target_prefix_propensities(logged: Logged, score_fn: ScoreFn, rate: float, temperature: float) -> np.ndarray:
    k = logged.rewards.shape[1]
    return np.stack([_padded(prefix_propensities(score_fn(x), o, rate, temperature), k)
                     for x, o in zip(logged.features, logged.order)])


def logging_log_prefix_propensities(logged: Logged) -> np.ndarray:
    """log of logging_prefix_propensities, in log space (see policy.log_prefix_propensities)."""
    k = logged.rewards.shape[1]
    return np.stack([_padded(log_prefix_propensities(s, o, r, t), k) for s, o, r, t in
                     zip(logged.scores, logged.order, logged.rate, logged.temperature)])


def target_log_prefix_propensities(logged: Logged, score_fn: ScoreFn, rate: float, temperature: float) -> np.ndarray:
    k = logged.rewards.shape[1]
    return np.stack([_padded(log_prefix_propensities(score_fn(x), o, rate, temperature), k)
                     for x, o in zip(logged.features, logged.order)])


def prefix_weights(logged: Logged, score_fn: ScoreFn, rate: float, temperature: float,
                   log_mu: np.ndarray | None = None) -> np.ndarray:
    """Cascade weights pi(shown[:k+1]) / mu(shown[:k+1]), (n, K), as exp(log pi - log mu): finite where both
    propensities underflow to 0 (their quotient was 0/0, NaN), 0 where the target cannot show the prefix."""
    log_mu = logging_log_prefix_propensities(logged) if log_mu is None else log_mu
    return np.exp(target_log_prefix_propensities(logged, score_fn, rate, temperature) - log_mu)


@dataclass
class Estimate:
    kind: str
    n: int
    ips: float
    ips_ci: tuple[float, float]
    snips: float
    snips_ci: tuple[float, float]
    ess: float        # effective sample size of the (last-position) weights
    max_weight: float

    def row(self) -> dict[str, Any]:
        return {"kind": self.kind, "n": self.n, "ips": self.ips, "ips_lo": self.ips_ci[0], "ips_hi": self.ips_ci[1],
                "snips": self.snips, "snips_lo": self.snips_ci[0], "snips_hi": self.snips_ci[1],
                "ess": self.ess, "max_weight": self.max_weight}


def from_weights(weights: np.ndarray, rewards: np.ndarray, kind: str, z: float = 1.96,
                 n_boot: int = 400, seed: int = 0) -> Estimate:
    """IPS and SNIPS with intervals from per-position weights (n, K) and rewards (n, K)."""
    n = len(rewards)
    terms = (weights * rewards).sum(axis=1)
    ips = float(terms.mean())
    se = float(terms.std(ddof=1) / np.sqrt(n)) if n > 1 else float("inf")

    def snips_of(w: np.ndarray, r: np.ndarray) -> np.ndarray:
        # w, r: (..., n, K) -> (...,)
        num = (w * r).sum(axis=-2)
        den = w.sum(axis=-2)
        return np.where(den > 0, num / np.where(den > 0, den, 1), 0.0).sum(axis=-1)

    snips = float(snips_of(weights, rewards))
    rng = np.random.default_rng(seed)
    boot = []
    for chunk in np.array_split(np.arange(n_boot), max(1, n_boot // 50)):
        idx = rng.integers(0, n, (len(chunk), n))
        boot.append(snips_of(weights[idx], rewards[idx]))
    boot_all = np.concatenate(boot)
    lo, hi = np.percentile(boot_all, [100 * (1 - 0.95) / 2, 100 * (1 + 0.95) / 2])
    last = weights[:, -1]
    ess = float(last.sum() ** 2 / (last ** 2).sum()) if (last ** 2).sum() > 0 else 0.0
    return Estimate(kind, n, ips, (ips - z * se, ips + z * se), snips, (float(lo), float(hi)), ess,
                    float(weights.max()))


def position_weights(logged: Logged, score_fn: ScoreFn, rate: float, temperature: float,
                     seed: int = 0, samples: int = 256) -> np.ndarray:
    """Item-position weights P_pi(item at k) / P_mu(item at k) (the position-based model's
    IPS): unbiased when the reward at a position depends only on the item there and the
    position, which a cascade reader violates (what comes before matters), so this trades bias
    for far smaller weights. The same Gumbel noise is used for pi and mu (common random numbers)."""
    k_max = logged.rewards.shape[1]
    w = np.zeros((len(logged), k_max))
    for i, (x, s, o, r, t) in enumerate(zip(logged.features, logged.scores, logged.order, logged.rate,
                                            logged.temperature)):
        mu = position_marginals(s, len(o), r, t, np.random.default_rng([seed, i]), samples)
        pi = position_marginals(score_fn(x), len(o), rate, temperature, np.random.default_rng([seed, i]), samples)
        k = np.arange(len(o))
        w[i, : len(o)] = pi[o, k] / np.maximum(mu[o, k], max(r / samples, 1e-12))
        w[i, len(o):] = 1.0
    return w


def estimate(logged: Logged, score_fn: ScoreFn, rate: float, temperature: float,
             kind: str = "cascade", mu: np.ndarray | None = None, **kw: Any) -> Estimate:
    """The value (mean dwell per view) of the mixture policy (score_fn, rate, temperature)."""
    if kind == "position":
        return from_weights(position_weights(logged, score_fn, rate, temperature), logged.rewards, kind, **kw)
    if kind not in ("slate", "cascade"):
        raise ValueError(f"unknown estimator kind {kind!r}")
    with np.errstate(divide="ignore"):
        log_mu = None if mu is None else np.log(mu)
    w = prefix_weights(logged, score_fn, rate, temperature, log_mu)
    if kind == "slate":
        return from_weights(w[:, -1:], logged.rewards.sum(axis=1, keepdims=True), kind, **kw)
    return from_weights(w, logged.rewards, kind, **kw)


def snips_difference(logged: Logged, score_a, score_b, rate: float, temperature: float,
                     n_boot: int = 400, seed: int = 0, kind: str = "cascade") -> tuple[float, tuple[float, float]]:
    """Cascade SNIPS of policy a minus that of policy b on the same logs, with a paired
    bootstrap interval (the same resampled impressions for both): much narrower than the two
    separate intervals, because both estimates share the logged rewards."""
    if kind == "position":
        wa = position_weights(logged, score_a, rate, temperature)
        wb = position_weights(logged, score_b, rate, temperature)
    else:
        log_mu = logging_log_prefix_propensities(logged)
        wa = prefix_weights(logged, score_a, rate, temperature, log_mu)
        wb = prefix_weights(logged, score_b, rate, temperature, log_mu)
    r = logged.rewards

    def snips(w: np.ndarray, rr: np.ndarray) -> np.ndarray:
        den = w.sum(axis=-2)
        return np.where(den > 0, (w * rr).sum(axis=-2) / np.where(den > 0, den, 1), 0.0).sum(axis=-1)

    diff = float(snips(wa, r) - snips(wb, r))
    rng = np.random.default_rng(seed)
    n = len(r)
    boot = []
    for _ in range(max(1, n_boot // 50)):
        idx = rng.integers(0, n, (50, n))
        boot.append(snips(wa[idx], r[idx]) - snips(wb[idx], r[idx]))
    lo, hi = np.percentile(np.concatenate(boot), [2.5, 97.5])
    return diff, (float(lo), float(hi))
