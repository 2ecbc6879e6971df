"""A stand-in for the CLIP text transformer that sample-apps' text-image-search and billion-scale-image-search download from
data.vespa-cloud.com at build time (not reachable here, and no registry ships CLIP).

    .venv/bin/python tests/sample_apps/clip_text_standin.py <sample-apps>/text-image-search/src/main/application/models/transformer.onnx 512
    .venv/bin/python tests/sample_apps/clip_text_standin.py <sample-apps>/billion-scale-image-search/app/src/main/application/models/text_transformer.onnx 768

then build the app with `mvn package -DskipTests -Dexec.skip=true` (the exec plugin would download the original).

Same input and output as the original: `input`, int64 [batch, sequence] token ids (what the apps' BPE tokenizers give),
and `output`, float [batch, D]: here a fixed random embedding of each token id (mod 4096), averaged over the sequence.
The apps' searchers slice and normalize it as they do CLIP's.
"""
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def standin(path: str, dim: int) -> None:
    table = np.random.default_rng(7).standard_normal((4096, dim)).astype(np.float32)
    nodes = [helper.make_node("Mod", ["input", "vocab"], ["ids"]),
             helper.make_node("Gather", ["table", "ids"], ["emb"], axis=0),
             helper.make_node("ReduceMean", ["emb"], ["output"], axes=[1], keepdims=0)]
    graph = helper.make_graph(nodes, "clip_text_standin",
                              [helper.make_tensor_value_info("input", TensorProto.INT64, ["batch", "seq"])],
                              [helper.make_tensor_value_info("output", TensorProto.FLOAT, ["batch", dim])],
                              [numpy_helper.from_array(table, "table"),
                               numpy_helper.from_array(np.array(4096, dtype=np.int64), "vocab")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    onnx.save(model, path)


if __name__ == "__main__":
    standin(sys.argv[1], int(sys.argv[2]))
