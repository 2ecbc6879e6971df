"""Stand-ins for the two models sample-apps' hypencoder downloads from huggingface.co (andreer/hypencoder-onnx, not
reachable here), of the originals' inputs and outputs:

    python tests/sample_apps/hypencoder_standin.py <app>/standin/passage_encoder.onnx <app>/models/query_encoder.onnx

- the passage encoder (hugging-face-embedder, CLS pooling, not normalized): `input_ids` and `attention_mask`, int64
  [batch, sequence], output `last_hidden_state`, float [batch, sequence, 768]: each token's fixed random embedding
  (id mod 4096) plus the masked mean of the sequence's, so the CLS token's state depends on the whole text;
- the query encoder (the schema's onnx-model): `input_ids` and `attention_mask`, float [1, 64], outputs the q-net's
  weights `W0` [768, 768], `b0` [768], `W1` [768, 768], `b1` [768], `Wout` [768]: the masked mean p of a 16-wide
  embedding of the ids (mod 4096), then each W = U diag(p) V / 32 (rank 16) and each vector p M, with fixed random
  U, V, M.

Pair them with dwell's MiniLM tokenizer.json (bert-base-uncased's vocabulary, with [PAD]). The weights mean nothing;
the app's q-net runs on them. `passage(ids, mask)` and `query_encoder(ids, mask)` compute the same in numpy.
"""
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

VOCAB = 4096
DIM = 768
RANK = 16
OUTPUTS = ["W0", "b0", "W1", "b1", "Wout"]


def _rng(seed: int) -> np.random.Generator:
    return np.random.default_rng(seed)


def passage_table() -> np.ndarray:
    return _rng(31).standard_normal((VOCAB, DIM)).astype(np.float32)


def query_tables() -> dict[str, np.ndarray]:
    rng = _rng(37)
    tables = {"emb": rng.standard_normal((VOCAB, RANK)).astype(np.float32)}
    for name in ("W0", "W1"):
        tables[name + "_u"] = rng.standard_normal((DIM, RANK)).astype(np.float32)
        tables[name + "_v"] = (rng.standard_normal((RANK, DIM)) / 32).astype(np.float32)
    for name in ("b0", "b1", "Wout"):
        tables[name + "_m"] = rng.standard_normal((RANK, DIM)).astype(np.float32)
    return tables


def passage(ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """What the passage encoder outputs, [batch, sequence, 768]."""
    m = np.asarray(mask, dtype=np.float32)[..., None]
    emb = passage_table()[np.asarray(ids) % VOCAB] * m
    return emb + emb.sum(axis=1, keepdims=True) / m.sum(axis=1, keepdims=True)


def query_encoder(ids: np.ndarray, mask: np.ndarray) -> dict[str, np.ndarray]:
    """What the query encoder outputs for float ids and mask [1, 64]."""
    t = query_tables()
    m = np.asarray(mask, dtype=np.float32)[0][:, None]
    p = (t["emb"][np.asarray(ids, dtype=np.float32)[0].astype(np.int64) % VOCAB] * m).sum(axis=0) / m.sum()
    out = {name: (t[name + "_u"] * p) @ t[name + "_v"] for name in ("W0", "W1")}
    out.update({name: p @ t[name + "_m"] for name in ("b0", "b1", "Wout")})
    return out


def _save(graph: onnx.GraphProto, path: str) -> None:
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    onnx.save(model, path)


def write_passage(path: str) -> None:
    nodes = [helper.make_node("Mod", ["input_ids", "vocab"], ["ids"]),
             helper.make_node("Gather", ["table", "ids"], ["emb"], axis=0),
             helper.make_node("Cast", ["attention_mask"], ["mask"], to=TensorProto.FLOAT),
             helper.make_node("Unsqueeze", ["mask", "last"], ["mask3"]),
             helper.make_node("Mul", ["emb", "mask3"], ["masked"]),
             helper.make_node("ReduceSum", ["masked", "seq_axis"], ["total"], keepdims=1),
             helper.make_node("ReduceSum", ["mask3", "seq_axis"], ["count"], keepdims=1),
             helper.make_node("Div", ["total", "count"], ["mean"]),
             helper.make_node("Add", ["masked", "mean"], ["last_hidden_state"])]
    graph = helper.make_graph(nodes, "hypencoder_passage_standin",
                              [helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["batch", "seq"]),
                               helper.make_tensor_value_info("attention_mask", TensorProto.INT64, ["batch", "seq"])],
                              [helper.make_tensor_value_info("last_hidden_state", TensorProto.FLOAT,
                                                             ["batch", "seq", DIM])],
                              [numpy_helper.from_array(passage_table(), "table"),
                               numpy_helper.from_array(np.array(VOCAB, dtype=np.int64), "vocab"),
                               numpy_helper.from_array(np.array([2], dtype=np.int64), "last"),
                               numpy_helper.from_array(np.array([1], dtype=np.int64), "seq_axis")])
    _save(graph, path)


def write_query_encoder(path: str) -> None:
    t = query_tables()
    nodes = [helper.make_node("Cast", ["input_ids"], ["ids_int"], to=TensorProto.INT64),
             helper.make_node("Mod", ["ids_int", "vocab"], ["ids"]),
             helper.make_node("Gather", ["emb", "ids"], ["e"], axis=0),  # [1, 64, 16]
             helper.make_node("Unsqueeze", ["attention_mask", "last"], ["mask3"]),
             helper.make_node("Mul", ["e", "mask3"], ["masked"]),
             helper.make_node("ReduceSum", ["masked", "seq_axes"], ["total"], keepdims=0),  # [16]
             helper.make_node("ReduceSum", ["attention_mask", "seq_axes"], ["count"], keepdims=0),  # []
             helper.make_node("Div", ["total", "count"], ["p"])]
    for name in ("W0", "W1"):
        nodes += [helper.make_node("Mul", [name + "_u", "p"], [name + "_up"]),
                  helper.make_node("MatMul", [name + "_up", name + "_v"], [name])]
    for name in ("b0", "b1", "Wout"):
        nodes.append(helper.make_node("MatMul", ["p", name + "_m"], [name]))
    shapes = {"W0": [DIM, DIM], "b0": [DIM], "W1": [DIM, DIM], "b1": [DIM], "Wout": [DIM]}
    graph = helper.make_graph(nodes, "hypencoder_query_standin",
                              [helper.make_tensor_value_info("input_ids", TensorProto.FLOAT, [1, 64]),
                               helper.make_tensor_value_info("attention_mask", TensorProto.FLOAT, [1, 64])],
                              [helper.make_tensor_value_info(n, TensorProto.FLOAT, shapes[n]) for n in OUTPUTS],
                              [numpy_helper.from_array(v, k) for k, v in t.items()]
                              + [numpy_helper.from_array(np.array(VOCAB, dtype=np.int64), "vocab"),
                                 numpy_helper.from_array(np.array([2], dtype=np.int64), "last"),
                                 numpy_helper.from_array(np.array([0, 1], dtype=np.int64), "seq_axes")])
    _save(graph, path)


if __name__ == "__main__":
    write_passage(sys.argv[1])
    write_query_encoder(sys.argv[2])
