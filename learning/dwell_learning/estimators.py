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
from statistics import NormalDist
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


# ---------------------------------------------------------------------------------------------
# Intervals for the mean of per-impression values (IPS terms, Cascade-DR values, their paired differences).
#
# The values of an importance-weighted estimator are skewed: most impressions carry a weight near 0 or 1 and a rare
# explored one a weight in the hundreds. The normal interval (mean +- z se) then covers less than its level, because
# the sample's sd misses the tail that it has not drawn. The constructions below differ in what they assume:
#
# - normal:     mean +- z sd / sqrt(n) (the central limit theorem; what the gate used).
# - percentile: the 2.5% and 97.5% quantiles of the mean over bootstrap resamples of impressions (Efron 1979). A
#               paired gain resamples the impressions once and takes both policies' values of the same resample.
# - bca:        bias-corrected and accelerated bootstrap (Efron 1987, "Better bootstrap confidence intervals",
#               JASA 82): the percentile levels moved by the bias correction z0 = Phi^-1(share of resampled means
#               below the mean) and the acceleration a, from the jackknife; for a mean the leave-one-out means are
#               (n mean - v_i) / (n - 1), so a = sum d_i^3 / (6 (sum d_i^2)^1.5), d_i = v_i - mean.
# - bootstrap-t: studentized bootstrap (Hall 1988, "Theoretical comparison of bootstrap confidence intervals",
#               Ann. Statist. 16): t*_b = (mean*_b - mean) / se*_b; interval [mean - t*_0.975 se, mean - t*_0.025 se].
# - bernstein:  the empirical Bernstein bound (Maurer & Pontil 2009, "Empirical Bernstein bounds and sample variance
#               penalization", COLT, Theorem 4) for values in a range of width R, each side at delta = alpha / 2:
#               mean -+ (sqrt(2 V ln(2 / delta) / n) + 7 R ln(2 / delta) / (3 (n - 1))), V the sample variance.
#               A valid finite-sample bound only when R bounds the values a priori; with R = the observed range
#               (`range_=None`, what the gate can do: dwell has no a-priori bound) it is a plug-in approximation.
# - betting:    the hedged-capital betting interval (Waudby-Smith & Ramdas 2024, "Estimating means of bounded
#               random variables by betting", JRSS-B 86, Section 4 with the predictable plug-in bets of their eq. 26):
#               m is in the interval while neither capital process prod_i (1 +- lambda_i (x_i - m)) on the values
#               rescaled to [0, 1] reaches 2 / alpha; the same plug-in range caveat as bernstein.

INTERVALS = ("normal", "percentile", "bca", "bootstrap-t", "bernstein", "betting")


_NORMAL = NormalDist()


def _norm_cdf(x: float) -> float:
    return _NORMAL.cdf(x)


def _norm_ppf(p: float) -> float:
    if p <= 0.0:
        return -np.inf
    if p >= 1.0:
        return np.inf
    return _NORMAL.inv_cdf(p)


def bootstrap_counts(n: int, n_boot: int, rng: np.random.Generator) -> np.ndarray:
    """(n_boot, n): how often each impression is drawn in each bootstrap resample (multinomial, as n draws with
    replacement). Sharing one matrix between two policies' values pairs their resamples."""
    return rng.multinomial(n, np.full(n, 1.0 / n), size=n_boot).astype(np.float64)


def mean_interval(values: np.ndarray, method: str = "normal", level: float = 0.95, counts: np.ndarray | None = None,
                  seed: int = 0, n_boot: int = 2000, range_: float | None = None) -> tuple[float, float, float]:
    """The mean of `values` and its `level` interval by `method` (INTERVALS, see above): (mean, lo, hi).
    Bootstrap methods use `counts` (bootstrap_counts) when given, else n_boot resamples drawn with `seed`."""
    v = np.asarray(values, dtype=np.float64)
    n = len(v)
    m = float(v.mean())
    alpha = 1.0 - level
    if n < 2:
        return m, -np.inf, np.inf
    sd = float(v.std(ddof=1))
    if method == "normal":
        h = _norm_ppf(1 - alpha / 2) * sd / np.sqrt(n)
        return m, m - h, m + h
    if method == "bernstein":
        r = float(v.max() - v.min()) if range_ is None else float(range_)
        log_term = np.log(2.0 / (alpha / 2))
        h = np.sqrt(2 * sd ** 2 * log_term / n) + 7 * r * log_term / (3 * (n - 1))
        return m, m - h, m + h
    if method == "betting":
        return (m, *betting_interval(v, alpha, range_))
    if counts is None:
        counts = bootstrap_counts(n, n_boot, np.random.default_rng(seed))
    boot = counts @ v / n
    if method == "percentile":
        lo, hi = np.quantile(boot, [alpha / 2, 1 - alpha / 2])
        return m, float(lo), float(hi)
    if method == "bca":
        share = float(np.mean(boot < m) + 0.5 * np.mean(boot == m))
        z0 = _norm_ppf(min(max(share, 1.0 / (len(boot) + 1)), 1 - 1.0 / (len(boot) + 1)))
        d = v - m
        den = 6.0 * float((d ** 2).sum()) ** 1.5
        a = float((d ** 3).sum()) / den if den > 0 else 0.0
        levels = []
        for z in (_norm_ppf(alpha / 2), _norm_ppf(1 - alpha / 2)):
            levels.append(_norm_cdf(z0 + (z0 + z) / (1 - a * (z0 + z))))
        lo, hi = np.quantile(boot, levels)
        return m, float(lo), float(hi)
    if method == "bootstrap-t":
        se = sd / np.sqrt(n)
        second = counts @ (v ** 2) / n
        var_b = np.maximum(second - boot ** 2, 0.0) * n / (n - 1)
        se_b = np.sqrt(var_b / n)
        ok = se_b > 0
        t = (boot[ok] - m) / se_b[ok]
        if not ok.any():
            return m, m, m
        t_lo, t_hi = np.quantile(t, [alpha / 2, 1 - alpha / 2])
        return m, float(m - t_hi * se), float(m - t_lo * se)
    raise ValueError(f"unknown interval method {method!r}")


def betting_interval(values: np.ndarray, alpha: float = 0.05, range_: float | None = None,
                     steps: int = 40) -> tuple[float, float]:
    """The hedged-capital betting interval of Waudby-Smith & Ramdas (2024) for the mean of values in [lo, lo + R]
    (lo = the minimum; R = range_ or the observed range, a plug-in then), on the values rescaled to [0, 1]: m is
    excluded when max_t K_t(m) reaches 1 / alpha, K_t(m) = (K+_t(m) + K-_t(m)) / 2,
    K+-_t(m) = prod_{i<=t} (1 +- lambda_i(m) (x_i - m)), lambda_i the predictable plug-in
    sqrt(2 log(2 / alpha) / (sigma^2_{i-1} n)) with the running variance estimate of their eq. (26) (mean 1/2 and
    variance 1/4 before any data), truncated at 0.5 / m and 0.5 / (1 - m). The kept set is taken to be an interval
    around the sample mean: each edge by bisection (`steps` halvings) between the mean and 0 or 1. The values are
    taken in the order given (impressions in logging order)."""
    v = np.asarray(values, dtype=np.float64)
    n = len(v)
    lo_v = float(v.min())
    r = float(v.max() - lo_v) if range_ is None else float(range_)
    if r <= 0:
        return float(v.mean()), float(v.mean())
    x = np.clip((v - lo_v) / r, 0.0, 1.0)
    t = np.arange(1, n + 1)
    mu_hat = (0.5 + np.cumsum(x)) / (t + 1)
    var_hat = (0.25 + np.cumsum((x - mu_hat) ** 2)) / (t + 1)
    lam = np.sqrt(2 * np.log(2 / alpha) / (n * np.r_[0.25, var_hat[:-1]]))
    threshold = np.log(1.0 / alpha)

    def excluded(m: float) -> bool:
        if m <= 0.0 or m >= 1.0:
            return True
        log_kp = np.cumsum(np.log1p(np.minimum(lam, 0.5 / m) * (x - m)))
        log_km = np.cumsum(np.log1p(-np.minimum(lam, 0.5 / (1 - m)) * (x - m)))
        return bool((np.logaddexp(log_kp, log_km) + np.log(0.5)).max() >= threshold)

    centre = float(x.mean())
    edges = []
    for outer in (0.0, 1.0):
        inside, out = centre, outer
        for _ in range(steps):
            mid = 0.5 * (inside + out)
            if excluded(mid):
                out = mid
            else:
                inside = mid
        edges.append(out)
    return lo_v + r * edges[0], lo_v + r * edges[1]
