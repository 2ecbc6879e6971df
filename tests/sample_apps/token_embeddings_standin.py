"""A stand-in for a transformer that a sample app's hugging-face-embedder downloads from data.vespa-cloud.com (not
reachable here): sample-apps' rag-blueprint's nomic-ai-modernbert-embed-base, 768 dimensions.

    .venv/bin/python tests/sample_apps/token_embeddings_standin.py <app>/models/standin.onnx 768

writes a model of the original's inputs and output: `input_ids` and `attention_mask`, int64 [batch, sequence], and
`token_embeddings`, float [batch, sequence, D]: a fixed random embedding of each token id (mod 4096). Pair it with
dwell's MiniLM tokenizer.json (application/embedder/) for the tokenizer-model, and set each `url=` in services.xml to
`path=` the two files. The embeddings mean nothing; the app's pipeline (embed, pack_bits, hamming) runs on them.
"""
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def standin(path: str, dim: int) -> None:
    table = np.random.default_rng(7).standard_normal((4096, dim)).astype(np.float32)
    nodes = [helper.make_node("Mod", ["input_ids", "vocab"], ["ids"]),
             helper.make_node("Gather", ["table", "ids"], ["emb"], axis=0),
             helper.make_node("Cast", ["attention_mask"], ["mask"], to=TensorProto.FLOAT),
             helper.make_node("Unsqueeze", ["mask", "last"], ["mask3"]),
             helper.make_node("Mul", ["emb", "mask3"], ["token_embeddings"])]
    graph = helper.make_graph(nodes, "token_embeddings_standin",
                              [helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["batch", "seq"]),
                               helper.make_tensor_value_info("attention_mask", TensorProto.INT64, ["batch", "seq"])],
                              [helper.make_tensor_value_info("token_embeddings", TensorProto.FLOAT, ["batch", "seq", dim])],
                              [numpy_helper.from_array(table, "table"),
                               numpy_helper.from_array(np.array(4096, dtype=np.int64), "vocab"),
                               numpy_helper.from_array(np.array([2], dtype=np.int64), "last")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    onnx.save(model, path)


if __name__ == "__main__":
    standin(sys.argv[1], int(sys.argv[2]))
