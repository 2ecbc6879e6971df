"""A stand-in for a transformer that a sample app's embedder downloads (data.vespa-cloud.com, huggingface.co: not
reachable here): rag-blueprint's nomic-ai-modernbert-embed-base (hugging-face-embedder, 768 dimensions, output
`token_embeddings`), colbert's colbertv2.0 (colbert-embedder, 128 dimensions, output `contextual`).

    .venv/bin/python tests/sample_apps/token_embeddings_standin.py <app>/models/standin.onnx 768
    .venv/bin/python tests/sample_apps/token_embeddings_standin.py <app>/standin/colbert.onnx 128 contextual

writes a model of the original's inputs and output: `input_ids` and `attention_mask`, int64 [batch, sequence], and
the output (`token_embeddings` unless named), float [batch, sequence, D]: a fixed random embedding of each token id
(mod 4096), times the attention mask. Pair it with dwell's MiniLM tokenizer.json (application/embedder/) for the
tokenizer-model, and set each `url=` in services.xml to `path=` the two files. The embeddings mean nothing but that
equal tokens (mod 4096) embed equally; the app's pipeline (embed, pack_bits, hamming, max-sim) runs on them.
`embeddings(ids, mask, dim)` computes the same in numpy, for tests.
"""
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

VOCAB = 4096
SEED = 7


def table(dim: int) -> np.ndarray:
    return np.random.default_rng(SEED).standard_normal((VOCAB, dim)).astype(np.float32)


def embeddings(ids: np.ndarray, mask: np.ndarray, dim: int) -> np.ndarray:
    """What the model outputs for these inputs, [batch, sequence, dim]."""
    return table(dim)[np.asarray(ids) % VOCAB] * np.asarray(mask, dtype=np.float32)[..., None]


def standin(path: str, dim: int, output: str = "token_embeddings") -> None:
    nodes = [helper.make_node("Mod", ["input_ids", "vocab"], ["ids"]),
             helper.make_node("Gather", ["table", "ids"], ["emb"], axis=0),
             helper.make_node("Cast", ["attention_mask"], ["mask"], to=TensorProto.FLOAT),
             helper.make_node("Unsqueeze", ["mask", "last"], ["mask3"]),
             helper.make_node("Mul", ["emb", "mask3"], [output])]
    graph = helper.make_graph(nodes, "token_embeddings_standin",
                              [helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["batch", "seq"]),
                               helper.make_tensor_value_info("attention_mask", TensorProto.INT64, ["batch", "seq"])],
                              [helper.make_tensor_value_info(output, TensorProto.FLOAT, ["batch", "seq", dim])],
                              [numpy_helper.from_array(table(dim), "table"),
                               numpy_helper.from_array(np.array(VOCAB, dtype=np.int64), "vocab"),
                               numpy_helper.from_array(np.array([2], dtype=np.int64), "last")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    onnx.save(model, path)


if __name__ == "__main__":
    standin(sys.argv[1], int(sys.argv[2]), *sys.argv[3:4])
