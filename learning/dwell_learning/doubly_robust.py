"""The doubly robust cascade estimator (Cascade-DR, after Kiyohara et al., WSDM 2022): the
cascade IPS estimate with a model of the readers as control variate.

Cascade IPS weighs the dwell at position k by w_1:k = pi(shown[:k+1]) / mu(shown[:k+1]). A target
policy whose greedy slate differs from the logging policy's early gets weight from the explored
impressions only, so its estimate rests on a handful of them. Cascade-DR adds, per position,

    w_1:k (r_k - Q_k(shown[:k+1]))  +  w_1:k-1 * sum_a pi(a | shown[:k]) Q_k(shown[:k] + a)

where Q_k(prefix) is a model's expected dwell from position k on, given the prefix. The two new
terms cancel in expectation for ANY Q (so the estimate stays unbiased under the cascade reader,
like cascade IPS), and when Q is good the remaining terms are residuals, which have far smaller
variance. The first term of position 0 is the model's value of the target's whole list.

The reader model (ReaderFit) is fitted on logs the estimate is not computed on (cross-fitting):
- p_open: the share of views whose first comment was read;
- read seconds given examination: log-seconds regression on the nine features, their squares
  and products (standardised) and the position;
- going on after a read: logistic regression on the same inputs.
The standardised inputs are clipped to their 0.5-99.5% range in the fitting logs (in the fit and
in every prediction): the squares and
products extrapolate explosively, and a rare input far out (a comment with reports: 0.1-0.4% of the
read comments, 20-45 standard deviations out) got read times of 10^3-10^6 s, which sent Cascade-DR's
estimate of the logging policy itself from 63 s to 279 s on one replicate of the estimator benchmark
(estimator_bench.py). Clipped, the largest modelled read is 25-28 s. Any Q keeps Cascade-DR unbiased;
clipping only keeps Q from being absurd.
Q continues the prefix with the target's greedy order of the remaining candidates (the target
is greedy with probability 1 - rate).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .estimators import Estimate, Logged, ScoreFn, logging_log_prefix_propensities
from .policy import greedy_order, log_prefix_propensities


def _design(z: np.ndarray, k: np.ndarray) -> np.ndarray:
    n, d = z.shape
    iu = np.triu_indices(d)
    products = (z[:, :, None] * z[:, None, :])[:, iu[0], iu[1]]
    return np.c_[z, products, k[:, None] / 10.0, np.ones(n)]


def _ridge(a: np.ndarray, y: np.ndarray, lam: float) -> np.ndarray:
    reg = lam * np.eye(a.shape[1])
    reg[-1, -1] = 0.0
    return np.linalg.solve(a.T @ a + reg, a.T @ y)


def _logistic(a: np.ndarray, y: np.ndarray, lam: float, iterations: int = 25) -> np.ndarray:
    beta = np.zeros(a.shape[1])
    reg = lam * np.eye(a.shape[1])
    reg[-1, -1] = 0.0
    for _ in range(iterations):
        p = 1.0 / (1.0 + np.exp(-np.clip(a @ beta, -30, 30)))
        hessian = a.T @ (a * (p * (1 - p))[:, None]) + reg
        step = np.linalg.solve(hessian, a.T @ (p - y) + reg @ beta)
        beta -= step
        if np.abs(step).max() < 1e-8:
            break
    return beta


@dataclass
class ReaderFit:
    """A fitted model of the cascade reader over the logged features."""

    mean: np.ndarray
    scale: np.ndarray
    read_coef: np.ndarray
    read_var: float
    go_coef: np.ndarray
    p_open: float
    lo: np.ndarray | None = None       # the standardised inputs are clipped to [lo, hi] (None: not clipped):
    #                                    their 0.5% and 99.5% quantiles in the fitting logs
    hi: np.ndarray | None = None

    def _a(self, x: np.ndarray, k: np.ndarray) -> np.ndarray:
        z = (x - self.mean) / self.scale
        if self.lo is not None and self.hi is not None:
            z = np.clip(z, self.lo, self.hi)
        return _design(z, k)

    def read_seconds(self, x: np.ndarray, k: np.ndarray) -> np.ndarray:
        """E[seconds | examined at position k] for feature rows x."""
        return np.exp(self._a(x, k) @ self.read_coef + self.read_var / 2)

    def go_on(self, x: np.ndarray, k: np.ndarray) -> np.ndarray:
        """P(the reader goes on to k + 1 | read at k)."""
        return 1.0 / (1.0 + np.exp(-np.clip(self._a(x, k) @ self.go_coef, -30, 30)))


def fit_readers(logged: Logged, lam: float = 1.0, clip: bool = True) -> ReaderFit:
    """The reader model on the read comments of `logged`; clip=False leaves the inputs unclipped (as before)."""
    xs, ks, seconds, go_x, go_k, go_y = [], [], [], [], [], []
    for i, order in enumerate(logged.order):
        r = logged.rewards[i]
        for k, c in enumerate(order):
            if r[k] <= 0:
                break
            xs.append(logged.features[i][c])
            ks.append(k)
            seconds.append(r[k])
            if k + 1 < len(order):
                go_x.append(logged.features[i][c])
                go_k.append(k)
                go_y.append(float(r[k + 1] > 0))
    x = np.asarray(xs)
    mean, scale = x.mean(axis=0), np.maximum(x.std(axis=0), 1e-6)
    z = (x - mean) / scale
    lo, hi = np.percentile(z, [0.5, 99.5], axis=0) if clip else (z.min(axis=0), z.max(axis=0))
    a = _design(np.clip(z, lo, hi), np.asarray(ks, dtype=np.float64))
    y = np.log(np.asarray(seconds))
    read_coef = _ridge(a, y, lam)
    read_var = float(np.var(y - a @ read_coef))
    ag = _design(np.clip((np.asarray(go_x) - mean) / scale, lo, hi), np.asarray(go_k, dtype=np.float64))
    go_coef = _logistic(ag, np.asarray(go_y), lam)
    p_open = float(np.mean(logged.rewards[:, 0] > 0))
    return ReaderFit(mean, scale, read_coef, read_var, go_coef, p_open, *((lo, hi) if clip else (None, None)))


def _tail_value(read: np.ndarray, go: np.ndarray, items: list[int], first: int) -> float:
    """Expected dwell of showing `items` from position `first` on, given position `first` is reached."""
    value = 0.0
    for j in range(len(items) - 1, -1, -1):
        c = items[j]
        value = read[c, first + j] + go[c, first + j] * value
    return value


def dr_values(logged: Logged, score_fn: ScoreFn, rate: float, temperature: float, readers: ReaderFit,
              log_mu: np.ndarray | None = None) -> np.ndarray:
    """Cascade-DR's value of the mixture policy (score_fn, rate, temperature), per impression. Propensities are
    taken in log space and divided as exp(log pi - log mu): an explored slate's probability can underflow to 0
    under both policies (scores spread over more than ~700 temperatures), where their ratio is still finite."""
    log_mu = logging_log_prefix_propensities(logged) if log_mu is None else log_mu
    with np.errstate(divide="ignore"):
        log_rate, log_greedy = np.log(rate), np.log1p(-rate)
    out = np.empty(len(logged))
    for i, (x, order) in enumerate(zip(logged.features, logged.order)):
        n_c, n_k = len(x), len(order)
        positions = np.arange(n_k, dtype=np.float64)
        xx = np.repeat(x, n_k, axis=0)
        kk = np.tile(positions, n_c)
        read = readers.read_seconds(xx, kk).reshape(n_c, n_k)
        go = readers.go_on(xx, kk).reshape(n_c, n_k)
        s = np.asarray(score_fn(x), dtype=np.float64)
        log_pi_prefix = log_prefix_propensities(s, order, rate, temperature)
        greedy = greedy_order(s, n_c).tolist()
        z = (s - s.max()) / temperature
        left = np.ones(n_c, dtype=bool)
        log_pl_prefix, greedy_so_far = 0.0, True
        reach, value, log_mu_before = readers.p_open, 0.0, 0.0
        taken: set[int] = set()
        r = logged.rewards[i]
        for k in range(n_k):
            rest = [c for c in greedy if c not in taken]
            after = n_k - 1 - k
            base = rest[:after]
            q = np.empty(n_c)
            tail_base = _tail_value(read, go, base, k + 1)
            q[:] = tail_base
            for j, c in enumerate(rest[: after + 1]):
                if j < after:   # taking c now shifts the rest of the greedy list up by one
                    q[c] = _tail_value(read, go, rest[:j] + rest[j + 1: after + 1], k + 1)
            q = reach * (read[:, k] + go[:, k] * q)
            log_step = np.full(n_c, -np.inf)   # the candidates taken cannot come again
            log_step[left] = z[left] - np.logaddexp.reduce(z[left])
            log_joint = log_rate + log_pl_prefix + log_step   # log pi(logged prefix, then c)
            if greedy_so_far:
                log_joint[greedy[k]] = np.logaddexp(log_joint[greedy[k]], log_greedy)
            a = int(order[k])
            value += float(np.exp(log_joint - log_mu_before) @ q)
            value += float(np.exp(log_pi_prefix[k] - log_mu[i, k])) * (r[k] - q[a])
            # move on along the logged prefix
            log_mu_before = log_mu[i, k]
            reach *= go[a, k]
            log_pl_prefix += log_step[a]
            left[a] = False
            greedy_so_far = greedy_so_far and a == greedy[k]
            taken.add(a)
        out[i] = value
    return out


def _mean_ci(v: np.ndarray, z: float) -> tuple[float, tuple[float, float]]:
    mean = float(v.mean())
    se = float(v.std(ddof=1) / np.sqrt(len(v))) if len(v) > 1 else float("inf")
    return mean, (mean - z * se, mean + z * se)


def estimate_from_values(values: np.ndarray, z: float = 1.96) -> Estimate:
    """Cascade-DR with a normal interval (reported in both the ips and snips slots)."""
    mean, ci = _mean_ci(values, z)
    return Estimate("dr", len(values), mean, ci, mean, ci, float(len(values)), float("nan"))


def gain_from_values(values_a: np.ndarray, values_b: np.ndarray, z: float = 1.96) -> tuple[float, tuple[float, float]]:
    """Policy a minus policy b, paired per impression, with a normal interval."""
    return _mean_ci(values_a - values_b, z)


def dr_estimate(logged: Logged, score_fn: ScoreFn, rate: float, temperature: float, readers: ReaderFit,
                z: float = 1.96) -> Estimate:
    return estimate_from_values(dr_values(logged, score_fn, rate, temperature, readers), z)


def dr_difference(logged: Logged, score_a: ScoreFn, score_b: ScoreFn, rate: float, temperature: float,
                  readers: ReaderFit, z: float = 1.96) -> tuple[float, tuple[float, float]]:
    """Cascade-DR of policy a minus that of policy b on the same impressions."""
    log_mu = logging_log_prefix_propensities(logged)
    return gain_from_values(dr_values(logged, score_a, rate, temperature, readers, log_mu),
                            dr_values(logged, score_b, rate, temperature, readers, log_mu), z)
