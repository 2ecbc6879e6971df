"""A stand-in for models/Network.onnx of sample-apps' examples/model-deployment, which its notebook
(ONNXModelExport.ipynb) trains on the Iris data with PyTorch and exports: the same network and interface,
Linear(4, 24), ReLU, Linear(24, 24), ReLU, Linear(24, 3) as Gemm nodes (opset 12, what torch.onnx.export writes),
input `input` float [batch, 4], output `output` float [batch, 3], batch a dynamic axis named as the notebook names
it. The weights are fixed random numbers, not trained (the notebook's training is not reproducible anyway: it
splits the data at random).

    python tests/sample_apps/iris_network_standin.py <app>/models/Network.onnx

`network(x)` computes the same in numpy.
"""
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

SIZES = [(4, 24), (24, 24), (24, 3)]


def weights() -> list[tuple[np.ndarray, np.ndarray]]:
    rng = np.random.default_rng(41)
    return [((rng.standard_normal((o, i)) / np.sqrt(i)).astype(np.float32), rng.standard_normal(o).astype(np.float32) / 4)
            for i, o in SIZES]


def network(x: np.ndarray) -> np.ndarray:
    """The output for input [batch, 4]."""
    h = np.asarray(x, dtype=np.float32)
    for layer, (w, b) in enumerate(weights()):
        h = h @ w.T + b
        if layer < len(SIZES) - 1:
            h = np.maximum(h, 0)
    return h


def write(path: str) -> None:
    nodes, initializers, previous = [], [], "input"
    for layer, (w, b) in enumerate(weights()):
        out = "output" if layer == len(SIZES) - 1 else f"linear{layer}"
        nodes.append(helper.make_node("Gemm", [previous, f"w{layer}", f"b{layer}"], [out], alpha=1.0, beta=1.0, transB=1))
        initializers += [numpy_helper.from_array(w, f"w{layer}"), numpy_helper.from_array(b, f"b{layer}")]
        if out != "output":
            nodes.append(helper.make_node("Relu", [out], [f"relu{layer}"]))
            previous = f"relu{layer}"
    graph = helper.make_graph(nodes, "main_graph",
                              [helper.make_tensor_value_info("input", TensorProto.FLOAT, ["input", 4])],
                              [helper.make_tensor_value_info("output", TensorProto.FLOAT, ["output", 3])],
                              initializers)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 12)])
    model.ir_version = 7
    onnx.checker.check_model(model, full_check=True)
    onnx.save(model, path)


if __name__ == "__main__":
    write(sys.argv[1])
