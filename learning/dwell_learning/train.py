"""Training the 9-9-9-1 ELU network in TensorFlow (CPU) on logged impressions.

Two counterfactual objectives (see learning/README.md, "Training objective"):

- "cascade" (default): regression of the log read time of every *examined* comment on its
  logged features, plus a learned offset per position that absorbs position effects (fatigue)
  and is dropped at export. Under the cascade reader, a comment at position k was examined
  exactly when the reader read on to k, which the signals record; given examination, what the
  reader does depends on the comment and the position only, so the examination-conditioned
  regression is free of the position bias of the logging policy, without importance weights.
  The network learns E[log read time | features], whose order is the order that maximises dwell
  when read time and going on both grow with the comment's quality.
- "snips": the policy-gradient form: maximise the cascade SNIPS estimate of the Plackett-Luce
  policy softmax(f(x)/T) over the logged candidates, with prefix weights clipped at `clip`
  (BanditNet / POEM style). It optimises the estimate the ship gate uses, but its weights are
  products of up to K step ratios and its gradient is noisy on small logs.

Inputs are standardised while training and the standardisation is folded into W_0 and b_0 at
export, so the exported network is exactly x[9] -> h1[9] -> h2[9] -> o[1] on raw features.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Mapping

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ.setdefault("TF_ENABLE_ONEDNN_OPTS", "0")

import numpy as np

from .estimators import Logged, logging_log_prefix_propensities
from .network import HIDDEN1, HIDDEN2, N_FEATURES, Weights


@dataclass
class TrainConfig:
    objective: str = "cascade"
    epochs: int = 40
    batch_size: int = 256
    learning_rate: float = 0.01
    l2: float = 1e-4
    temperature: float = 0.3   # of the policy the "snips" objective optimises
    clip: float = 20.0         # of the "snips" objective's prefix weights
    seed: int = 0
    article_offsets: bool = True


def examined(logged: Logged, with_articles: bool = False):
    """Features, position and read seconds of every comment that a reader read (and, with
    with_articles, the index of its article)."""
    xs, ps, ys, arts = [], [], [], []
    names: dict[str, int] = {}
    for i, order in enumerate(logged.order):
        for k, c in enumerate(order):
            seconds = logged.rewards[i, k]
            if seconds > 0:
                xs.append(logged.features[i][c])
                ps.append(k)
                ys.append(seconds)
                a = logged.articles[i] if logged.articles is not None else ""
                arts.append(names.setdefault(a, len(names)))
    if not xs:
        out = (np.zeros((0, N_FEATURES)), np.zeros(0, dtype=np.int64), np.zeros(0))
        return out + (np.zeros(0, dtype=np.int64),) if with_articles else out
    out = (np.asarray(xs), np.asarray(ps, dtype=np.int64), np.asarray(ys))
    return out + (np.asarray(arts, dtype=np.int64),) if with_articles else out


def standardisation(logged: Logged) -> tuple[np.ndarray, np.ndarray]:
    x = np.concatenate(logged.features)
    mu = x.mean(axis=0)
    sd = x.std(axis=0)
    return mu, np.where(sd > 1e-6, sd, 1.0)


def to_standardised(weights: Weights, mu: np.ndarray, sd: np.ndarray) -> dict[str, np.ndarray]:
    """Weights of the same function on standardised inputs z = (x - mu) / sd."""
    w = {k: np.asarray(v, dtype=np.float64) for k, v in weights.items()}
    w["b_0"] = w["b_0"] + mu @ w["W_0"]
    w["W_0"] = sd[:, None] * w["W_0"]
    return w


def from_standardised(weights: Mapping[str, np.ndarray], mu: np.ndarray, sd: np.ndarray) -> dict[str, np.ndarray]:
    """The inverse of to_standardised: weights on raw features, as float32 for export."""
    w = {k: np.asarray(v, dtype=np.float64) for k, v in weights.items()}
    w["W_0"] = w["W_0"] / sd[:, None]
    w["b_0"] = w["b_0"] - mu @ w["W_0"]
    return {k: v.astype(np.float32) for k, v in w.items()}


class _Net:
    """The network as TensorFlow variables, in the rankingmodel tensors' names and shapes."""

    def __init__(self, weights: Mapping[str, np.ndarray]):
        import tensorflow as tf

        self.vars = {k: tf.Variable(np.asarray(v, dtype=np.float32), name=k) for k, v in weights.items()}

    def __call__(self, x):
        import tensorflow as tf

        v = self.vars
        h1 = tf.nn.elu(tf.matmul(x, v["W_0"]) + v["b_0"])
        h2 = tf.nn.elu(tf.matmul(h1, v["W_1"]) + v["b_1"])
        return tf.matmul(h2, v["W_2"]) + v["b_2"]  # (batch, 1)

    def numpy(self) -> dict[str, np.ndarray]:
        return {k: v.numpy() for k, v in self.vars.items()}


def random_weights(seed: int = 0) -> dict[str, np.ndarray]:
    """Glorot-uniform weights, zero biases: the 'from random weights' start."""
    rng = np.random.default_rng(seed)

    def glorot(i: int, o: int) -> np.ndarray:
        limit = np.sqrt(6.0 / (i + o))
        return rng.uniform(-limit, limit, (i, o)).astype(np.float32)

    return {"W_0": glorot(N_FEATURES, HIDDEN1), "b_0": np.zeros(HIDDEN1, np.float32),
            "W_1": glorot(HIDDEN1, HIDDEN2), "b_1": np.zeros(HIDDEN2, np.float32),
            "W_2": glorot(HIDDEN2, 1), "b_2": np.zeros(1, np.float32)}


def train(logged: Logged, start: Weights, config: TrainConfig = TrainConfig()) -> dict[str, np.ndarray]:
    """New weights (on raw features, float32) trained from `start` on the logged data."""
    import tensorflow as tf

    tf.random.set_seed(config.seed)
    mu, sd = standardisation(logged)
    net = _Net(to_standardised(start, mu, sd))
    if config.objective == "cascade":
        _train_cascade(net, logged, mu, sd, config)
    elif config.objective == "snips":
        _train_snips(net, logged, mu, sd, config)
    else:
        raise ValueError(f"unknown objective {config.objective!r}")
    return from_standardised(net.numpy(), mu, sd)


def _train_cascade(net: _Net, logged: Logged, mu: np.ndarray, sd: np.ndarray, config: TrainConfig) -> None:
    import tensorflow as tf

    x, pos, seconds, art = examined(logged, with_articles=True)
    if len(x) == 0:
        return
    z = ((x - mu) / sd).astype(np.float32)
    y = np.log(seconds).astype(np.float32)[:, None]
    k_max = int(pos.max()) + 1
    offset = tf.Variable(np.zeros((k_max, 1), np.float32), name="position_offset")
    # Per-article offsets (dropped at export too) take what differs between articles and not
    # between an article's comments (its readers' engagement, its age): without them the network
    # learns article-level coincidences, which cannot help ranking within an article.
    n_art = int(art.max()) + 1 if config.article_offsets else 1
    art_offset = tf.Variable(np.zeros((n_art, 1), np.float32), name="article_offset")
    if not config.article_offsets:
        art = np.zeros_like(art)
    # The network's output level is free (only order matters), the offsets take position effects.
    params = list(net.vars.values()) + [offset] + ([art_offset] if config.article_offsets else [])
    optimizer = tf.keras.optimizers.Adam(config.learning_rate)
    data = tf.data.Dataset.from_tensor_slices((z, pos.astype(np.int32), art.astype(np.int32), y))
    data = data.shuffle(len(z), seed=config.seed, reshuffle_each_iteration=True).batch(config.batch_size)

    @tf.function
    def step(zb, pb, ab, yb):
        with tf.GradientTape() as tape:
            offsets = tf.gather(offset, pb) - offset[0]   # position 0 has offset 0
            pred = net(zb) + offsets + tf.gather(art_offset, ab)
            loss = tf.reduce_mean(tf.square(pred - yb))
            loss += config.l2 * tf.add_n([tf.reduce_sum(tf.square(net.vars[k])) for k in ("W_0", "W_1", "W_2")])
        optimizer.apply_gradients(zip(tape.gradient(loss, params), params))
        return loss

    for _ in range(config.epochs):
        for zb, pb, ab, yb in data:
            step(zb, pb, ab, yb)


def _train_snips(net: _Net, logged: Logged, mu: np.ndarray, sd: np.ndarray, config: TrainConfig) -> None:
    import tensorflow as tf

    n = len(logged)
    c_max = max(len(s) for s in logged.scores)
    k_max = logged.rewards.shape[1]
    z = np.zeros((n, c_max, N_FEATURES), np.float32)
    mask = np.zeros((n, c_max), bool)
    order = np.zeros((n, k_max), np.int32)
    shown = np.zeros((n, k_max), bool)
    for i, (x, o) in enumerate(zip(logged.features, logged.order)):
        z[i, : len(x)] = (x - mu) / sd
        mask[i, : len(x)] = True
        order[i, : len(o)] = o
        shown[i, : len(o)] = True
    log_mu = logging_log_prefix_propensities(logged).astype(np.float32)
    r = logged.rewards.astype(np.float32)
    optimizer = tf.keras.optimizers.Adam(config.learning_rate)
    params = list(net.vars.values())
    t = config.temperature

    @tf.function
    def step(zb, mb, ob, sb, lmu, rb):
        with tf.GradientTape() as tape:
            b = tf.shape(zb)[0]
            s = tf.reshape(net(tf.reshape(zb, (-1, N_FEATURES))), (b, c_max)) / t
            s = tf.where(mb, s, -1e9)
            log_p = tf.zeros((b,))
            prefix = []
            available = mb
            for k in range(k_max):
                chosen = ob[:, k]
                lse = tf.reduce_logsumexp(tf.where(available, s, -1e9), axis=1)
                pick = tf.gather(s, chosen, batch_dims=1)
                log_p = log_p + tf.where(sb[:, k], pick - lse, 0.0)
                prefix.append(log_p)
                available = tf.logical_and(available, tf.logical_not(tf.one_hot(chosen, c_max) > 0.5) | ~sb[:, k:k + 1])
            log_pi = tf.stack(prefix, axis=1)
            w = tf.minimum(tf.exp(log_pi - lmu), config.clip)
            value = tf.reduce_sum(tf.reduce_sum(w * rb, axis=0) / (tf.reduce_sum(w, axis=0) + 1e-9))
            loss = -value + config.l2 * tf.add_n([tf.reduce_sum(tf.square(net.vars[k])) for k in ("W_0", "W_1", "W_2")])
        optimizer.apply_gradients(zip(tape.gradient(loss, params), params))
        return value

    rng = np.random.default_rng(config.seed)
    batch = max(config.batch_size, 512)
    for _ in range(config.epochs):
        idx = rng.permutation(n)
        for b in range(0, n, batch):
            j = idx[b: b + batch]
            step(z[j], mask[j], order[j], shown[j], log_mu[j], r[j])
