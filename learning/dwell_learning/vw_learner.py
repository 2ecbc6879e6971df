"""A peer learner: Vowpal Wabbit's contextual bandit (`--cb_adf`, with `--cb_type` ips, dr or mtr) on the same
logged impressions the network trains on, served through the same rank path.

The slate is taken apart as the cascade reader sees it (the conditional form): each examined position k of an
impression (a comment that was read) is one contextual-bandit decision whose actions are the candidates not shown
above k, whose chosen action is the comment shown at k, whose cost is minus the log of its read seconds (the
network's regression target, so the two learners differ in the learner, not in the target) and whose probability is
the logging mixture's probability of that choice given the prefix, P(prefix[:k+1]) / P(prefix[:k]), floored at
`min_probability` (importance weights at most 1/min_probability). Actions are the nine logged features, namespace f,
with no interactions: VW's scorer is then linear in them, and the learned function is read back as nine weights
(probes around the data's mean, checked against VW's own predictions on logged candidates) and served as a linear
ranker inside the 9-9-9-1 network (network.linear_weights), so the runtime ranks with it through rank profile
neural like any model. Exploration stays the served mixture (rate, temperature), the same as the network's:
VW's own exploration (cb_explore_adf's epsilon or softmax) would change what is served, not what is learned.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .estimators import Logged, logging_prefix_propensities
from .network import N_FEATURES, linear_weights


@dataclass
class VWModel:
    weights: np.ndarray          # (9,): score = weights · x + bias (minus VW's predicted cost)
    bias: float
    agreement: float             # max |linear score - VW's score| on logged candidates (the read-back check)
    examples: int                # contextual-bandit decisions learned from

    def network(self) -> dict[str, np.ndarray]:
        return linear_weights(self.weights, self.bias)


def _action(x: np.ndarray) -> str:
    return "|f " + " ".join(f"x{j}:{v:.6g}" for j, v in enumerate(x))


def decisions(logged: Logged, min_probability: float = 0.02) -> list[tuple[np.ndarray, int, float, float]]:
    """(features of the remaining candidates, index of the chosen one among them, cost, probability) for every
    examined position of every impression."""
    prefix = logging_prefix_propensities(logged)
    out = []
    for i, order in enumerate(logged.order):
        x = np.asarray(logged.features[i])
        remaining = list(range(len(x)))
        before = 1.0
        for k, c in enumerate(order):
            seconds = logged.rewards[i, k]
            if seconds <= 0:
                break                     # not examined: the reader left above k
            p = prefix[i, k] / before if before > 0 else 0.0
            before = prefix[i, k]
            out.append((x[remaining], remaining.index(int(c)), -float(np.log(seconds)), max(float(p), min_probability)))
            remaining.remove(int(c))
    return out


def example(x: np.ndarray, chosen: int | None = None, cost: float = 0.0, probability: float = 1.0) -> list[str]:
    """One cb_adf multi-line example: a line per action, the chosen one labelled `0:cost:probability`."""
    return [(f"0:{cost:.6g}:{probability:.6g} " if a == chosen else "") + _action(row) for a, row in enumerate(x)]


def train_vw(logged: Logged, cb_type: str = "mtr", passes: int = 1, seed: int = 0,
             min_probability: float = 0.02) -> VWModel:
    """VW cb_adf on the logs; its linear scorer read back (score = -predicted cost)."""
    import vowpalwabbit

    data = decisions(logged, min_probability)
    vw = vowpalwabbit.Workspace(f"--cb_adf --cb_type {cb_type} --quiet --random_seed {seed}")
    try:
        rng = np.random.default_rng(seed)
        for _ in range(passes):
            for j in rng.permutation(len(data)):
                x, chosen, cost, p = data[j]
                vw.learn(example(x, chosen, cost, p))
        every = np.concatenate(logged.features) if len(logged) else np.zeros((1, N_FEATURES))
        mean, sd = every.mean(axis=0), np.maximum(every.std(axis=0), 1e-3)
        probes = np.vstack([mean, mean + np.diag(sd)])
        costs = np.asarray(vw.predict(example(probes)), dtype=np.float64)
        w = -(costs[1:] - costs[0]) / sd
        bias = float(-costs[0] - w @ mean)
        sample = np.asarray(logged.features[0]) if len(logged) else probes
        got = -np.asarray(vw.predict(example(sample)), dtype=np.float64)
        agreement = float(np.max(np.abs(got - (sample @ w + bias))))
    finally:
        vw.finish()
    return VWModel(w, bias, agreement, len(data))
