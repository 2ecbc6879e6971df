"""The exploration policy of ExplorationSearcher, in numpy, and the propensities that
off-policy estimation needs.

The logging policy is a mixture: with probability 1 - rate the greedy order (candidates by
score, best first), with probability rate a Plackett-Luce order over softmax(score / T), drawn
position by position without replacement (PlackettLuceSampler.java; Gumbel-top-k draws exactly
this). Candidates are indexed in descending-score order of the policy that ranked them, so the
greedy slate of the logging policy is 0, 1, 2, ...

A target policy is given by its own scores of the same logged candidates; its greedy slate is
the stable argsort of those scores, and its probability of a slate prefix is
rate * PL(prefix) + (1 - rate) * [prefix is its greedy prefix].
"""
from __future__ import annotations

import numpy as np


def step_propensities(scores: np.ndarray, order: np.ndarray, temperature: float) -> np.ndarray:
    """P(order[k] chosen at position k | order[:k] chosen), Plackett-Luce over softmax(s / T)."""
    s = np.asarray(scores, dtype=np.float64)
    w = np.exp((s - s.max()) / temperature)
    left = np.ones(len(w), dtype=bool)
    steps = np.empty(len(order))
    for k, i in enumerate(order):
        # the weight left is summed over the candidates not chosen (as PlackettLuceSampler.java): subtracting
        # each choice from the total cancels to 0 where the best candidate's weight dwarfs the rest
        remaining = w[left].sum()
        steps[k] = w[i] / remaining if remaining > 0 else 0.0
        left[i] = False
    return steps


def greedy_order(scores: np.ndarray, shown: int) -> np.ndarray:
    """Best first; ties keep candidate order (Java's sort is stable too)."""
    return np.argsort(-np.asarray(scores, dtype=np.float64), kind="stable")[:shown]


def prefix_propensities(scores: np.ndarray, order: np.ndarray, rate: float, temperature: float) -> np.ndarray:
    """P(the first k+1 shown are order[:k+1]) under the mixture policy, for every k."""
    order = np.asarray(order)
    pl = np.cumprod(step_propensities(scores, order, temperature))
    greedy = greedy_order(scores, len(order))
    is_greedy_prefix = np.cumprod(order == greedy).astype(bool)
    return rate * pl + (1.0 - rate) * is_greedy_prefix


def log_step_propensities(scores: np.ndarray, order: np.ndarray, temperature: float) -> np.ndarray:
    """log P(order[k] chosen at position k | order[:k] chosen), computed in log space: finite for any
    candidate the Plackett-Luce draw can pick, where step_propensities' products underflow to 0."""
    z = (np.asarray(scores, dtype=np.float64) - np.max(scores)) / temperature
    left = np.ones(len(z), dtype=bool)
    steps = np.empty(len(order))
    for k, i in enumerate(order):
        steps[k] = z[i] - np.logaddexp.reduce(z[left])
        left[i] = False
    return steps


def log_prefix_propensities(scores: np.ndarray, order: np.ndarray, rate: float, temperature: float) -> np.ndarray:
    """log of prefix_propensities, computed in log space (-inf for a prefix the policy cannot show). The
    probability of an explored slate can be far below the smallest double (a ranker whose scores spread over
    more than ~700 temperatures); the ratio of two such probabilities, an importance weight, is still finite."""
    order = np.asarray(order)
    log_pl = np.cumsum(log_step_propensities(scores, order, temperature))
    is_greedy_prefix = np.cumprod(order == greedy_order(scores, len(order))).astype(bool)
    with np.errstate(divide="ignore"):
        explored = np.log(rate) + log_pl
        greedy = np.where(is_greedy_prefix, np.log1p(-rate), -np.inf)
    return np.logaddexp(explored, greedy)


def slate_propensity(scores: np.ndarray, order: np.ndarray, rate: float, temperature: float) -> float:
    """P(exactly this shown order) under the mixture policy: the impression's `propensity`."""
    return float(prefix_propensities(scores, order, rate, temperature)[-1])


def sample(scores: np.ndarray, shown: int, rate: float, temperature: float,
           rng: np.random.Generator) -> tuple[np.ndarray, bool]:
    """A shown order from the mixture policy (Gumbel-top-k for the Plackett-Luce part)."""
    s = np.asarray(scores, dtype=np.float64)
    shown = min(shown, len(s))
    if rate > 0 and rng.random() < rate:
        keys = s / temperature + rng.gumbel(size=len(s))
        return np.argsort(-keys, kind="stable")[:shown], True
    return greedy_order(s, shown), False


def position_marginals(scores: np.ndarray, shown: int, rate: float, temperature: float,
                       rng: np.random.Generator, samples: int = 256) -> np.ndarray:
    """P(candidate i at position k), (candidates, shown), under the mixture policy: the greedy
    part exactly, the Plackett-Luce part by Monte Carlo (Gumbel-top-k samples)."""
    s = np.asarray(scores, dtype=np.float64)
    n = len(s)
    shown = min(shown, n)
    keys = s / temperature + rng.gumbel(size=(samples, n))
    orders = np.argsort(-keys, axis=1, kind="stable")[:, :shown]
    pl = np.zeros((n, shown))
    np.add.at(pl, (orders, np.broadcast_to(np.arange(shown), orders.shape)), 1.0 / samples)
    greedy = np.zeros((n, shown))
    greedy[greedy_order(s, shown), np.arange(shown)] = 1.0
    return rate * pl + (1.0 - rate) * greedy
