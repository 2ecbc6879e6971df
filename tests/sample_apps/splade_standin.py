"""A stand-in for the masked-language model a sample app's splade-embedder downloads from huggingface.co (not
reachable here): splade's Splade_PP_en_v1.

    .venv/bin/python tests/sample_apps/splade_standin.py <app>/standin/splade.onnx

writes a model of the original's inputs and output: `input_ids`, `attention_mask` and `token_type_ids`, int64
[batch, sequence], and `logits`, float [batch, sequence, 30522] (one logit per word piece of the vocabulary of dwell's
MiniLM tokenizer.json, bert-base-uncased's): for a token t and a vocabulary entry v,
`BOOST * [v == t] + (E[t mod 512] . W[:, v]) - OFFSET`, with E (rows of norm sqrt(8)) and W fixed random matrices of rank 8. So a text's
own word pieces get the largest weights, and a few others (the same ones for the same token) small ones, as a SPLADE
model's expansion; after the embedder's log(1 + relu(.)) most entries are 0. `logits(ids)` computes the same in numpy.
"""
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

VOCAB = 30522
BUCKETS = 512
RANK = 8
BOOST = 4.0
OFFSET = 1.5
SEED = 11


def weights() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(SEED)
    e = rng.standard_normal((BUCKETS, RANK))
    e *= np.sqrt(RANK) / np.linalg.norm(e, axis=1, keepdims=True)  # each token spreads alike
    return (e.astype(np.float32),
            (rng.standard_normal((RANK, VOCAB)) * 0.27).astype(np.float32))


def logits(ids: np.ndarray) -> np.ndarray:
    """What the model outputs for these ids, [batch, sequence, VOCAB] (it does not read the mask)."""
    ids = np.asarray(ids, dtype=np.int64)
    e, w = weights()
    out = (e[ids % BUCKETS] @ w - np.float32(OFFSET)).astype(np.float32)
    out += np.float32(BOOST) * (ids[..., None] == np.arange(VOCAB)).astype(np.float32)
    return out


def standin(path: str) -> None:
    e, w = weights()
    nodes = [helper.make_node("Mod", ["input_ids", "buckets"], ["bucket"]),
             helper.make_node("Gather", ["e", "bucket"], ["low"], axis=0),
             helper.make_node("MatMul", ["low", "w"], ["spread"]),
             helper.make_node("Sub", ["spread", "offset"], ["shifted"]),
             helper.make_node("OneHot", ["input_ids", "depth", "onoff"], ["own"], axis=-1),
             helper.make_node("Add", ["shifted", "own"], ["logits"])]
    graph = helper.make_graph(nodes, "splade_standin",
                              [helper.make_tensor_value_info(name, TensorProto.INT64, ["batch", "seq"])
                               for name in ("input_ids", "attention_mask", "token_type_ids")],
                              [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", "seq", VOCAB])],
                              [numpy_helper.from_array(e, "e"), numpy_helper.from_array(w, "w"),
                               numpy_helper.from_array(np.array(BUCKETS, dtype=np.int64), "buckets"),
                               numpy_helper.from_array(np.array(OFFSET, dtype=np.float32), "offset"),
                               numpy_helper.from_array(np.array(VOCAB, dtype=np.int64), "depth"),
                               numpy_helper.from_array(np.array([0.0, BOOST], dtype=np.float32), "onoff")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    onnx.save(model, path)


if __name__ == "__main__":
    standin(sys.argv[1])
