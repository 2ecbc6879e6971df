"""The 9-9-9-1 ELU network of rank profiles `neural` and `neural_onnx`, in numpy.

This is the independent reference that tests compare Vespa's evaluation against.
"""
from __future__ import annotations

from typing import Mapping

import numpy as np

N_FEATURES = 9
HIDDEN1 = 9
HIDDEN2 = 9

# Tensor name -> (Vespa tensor type, numpy shape). Names match rankingmodel.sd fields,
# the constants in comment.sd and the query(...) inputs of rank-profile neural.
TENSOR_TYPES: dict[str, tuple[str, tuple[int, ...]]] = {
    "W_0": ("tensor<float>(x[9],h1[9])", (N_FEATURES, HIDDEN1)),
    "b_0": ("tensor<float>(h1[9])", (HIDDEN1,)),
    "W_1": ("tensor<float>(h1[9],h2[9])", (HIDDEN1, HIDDEN2)),
    "b_1": ("tensor<float>(h2[9])", (HIDDEN2,)),
    "W_2": ("tensor<float>(h2[9],o[1])", (HIDDEN2, 1)),
    "b_2": ("tensor<float>(o[1])", (1,)),
}

Weights = Mapping[str, np.ndarray]


def elu(z: np.ndarray) -> np.ndarray:
    return np.where(z > 0, z, np.expm1(np.minimum(z, 0)))


def forward(weights: Weights, features: np.ndarray) -> np.ndarray:
    """Scores for a batch (n, 9) or one vector (9,). Weights are used as float32, as
    Vespa stores them; the arithmetic is float64, as Vespa's evaluator does it."""
    w = {k: np.asarray(v, dtype=np.float32).astype(np.float64) for k, v in weights.items()}
    x = np.atleast_2d(np.asarray(features, dtype=np.float64))
    h1 = elu(x @ w["W_0"] + w["b_0"])
    h2 = elu(h1 @ w["W_1"] + w["b_1"])
    out = (h2 @ w["W_2"] + w["b_2"])[:, 0]
    return out if np.ndim(features) > 1 else out[0]


def baseline_mimicking_weights(seed: int = 7, noise: float = 0.05) -> dict[str, np.ndarray]:
    """Initial weights whose unit 0 carries the hand-written baseline through both layers
    (ELU is monotonic, so the order is the baseline's), plus small random paths for
    learning to grow. Deterministic under the seed."""
    from .features import BASELINE_WEIGHTS

    rng = np.random.default_rng(seed)
    w0 = rng.normal(0.0, noise, (N_FEATURES, HIDDEN1))
    w0[:, 0] = BASELINE_WEIGHTS
    b0 = rng.normal(0.0, noise, HIDDEN1)
    b0[0] = 4.0  # keeps unit 0 in ELU's linear part for typical inputs
    w1 = rng.normal(0.0, noise, (HIDDEN1, HIDDEN2))
    w1[0, :] = 0.0
    w1[:, 0] = 0.0
    w1[0, 0] = 1.0
    b1 = rng.normal(0.0, noise, HIDDEN2)
    b1[0] = 0.0
    w2 = rng.normal(0.0, noise, (HIDDEN2, 1))
    w2[0, 0] = 1.0
    b2 = np.array([-4.0])
    return {
        "W_0": w0.astype(np.float32),
        "b_0": b0.astype(np.float32),
        "W_1": w1.astype(np.float32),
        "b_1": b1.astype(np.float32),
        "W_2": w2.astype(np.float32),
        "b_2": b2.astype(np.float32),
    }


# The shift that keeps a linear ranker's unit in ELU's identity part (w·x + LINEAR_SHIFT > 0 for every input the
# features produce: |w·x| stays far below it for weights of order 1-10 on inputs of order 1-100).
LINEAR_SHIFT = 4096.0


def linear_weights(w: np.ndarray, bias: float = 0.0) -> dict[str, np.ndarray]:
    """A linear ranker score = w·x + bias as the 9-9-9-1 ELU network (unit 0 carries it, shifted into ELU's linear
    part and shifted back; every other weight 0), so the runtime ranks with it through rank profile neural like any
    model. Exact up to float32 weights while w·x + bias > -LINEAR_SHIFT."""
    w = np.asarray(w, dtype=np.float64)
    if w.shape != (N_FEATURES,):
        raise ValueError(f"a linear ranker needs {N_FEATURES} weights, got {w.shape}")
    w0 = np.zeros((N_FEATURES, HIDDEN1))
    w0[:, 0] = w
    b0 = np.zeros(HIDDEN1)
    b0[0] = bias + LINEAR_SHIFT
    w1 = np.zeros((HIDDEN1, HIDDEN2))
    w1[0, 0] = 1.0
    w2 = np.zeros((HIDDEN2, 1))
    w2[0, 0] = 1.0
    return {"W_0": w0.astype(np.float32), "b_0": b0.astype(np.float32), "W_1": w1.astype(np.float32),
            "b_1": np.zeros(HIDDEN2, np.float32), "W_2": w2.astype(np.float32),
            "b_2": np.array([-LINEAR_SHIFT], np.float32)}
