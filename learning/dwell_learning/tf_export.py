"""The TensorFlow side of the exports: the network as a SavedModel, converted to ONNX with
tf2onnx (`python -m tf2onnx.convert --saved-model DIR --output m.onnx --opset 17`), and the
check that all exports score the same features alike.

The SavedModel's serving signature takes `features` float32[batch, 9] and returns `score`
float32[batch, 1], the names comment.sd's onnx-model block binds (nn_input -> features,
output score).
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any, Mapping

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ.setdefault("TF_ENABLE_ONEDNN_OPTS", "0")

import numpy as np

from .export import ONNX_INPUT, ONNX_OUTPUT, _dims, dimensions, rankingmodel_put, read_constants, write_constants
from .network import TENSOR_TYPES, Weights, forward


def tf_module(weights: Weights):
    import tensorflow as tf

    class Network(tf.Module):
        def __init__(self) -> None:
            super().__init__(name="dwell_nn")
            self.w = {k: tf.Variable(np.asarray(v, np.float32), name=k, trainable=False) for k, v in weights.items()}

        @tf.function(input_signature=[tf.TensorSpec([None, 9], tf.float32, name=ONNX_INPUT)])
        def serve(self, features):
            w = self.w
            h1 = tf.nn.elu(tf.matmul(features, w["W_0"]) + w["b_0"])
            h2 = tf.nn.elu(tf.matmul(h1, w["W_1"]) + w["b_1"])
            return {ONNX_OUTPUT: tf.matmul(h2, w["W_2"]) + w["b_2"]}

    return Network()


def tf_scores(weights: Weights, features: np.ndarray) -> np.ndarray:
    module = tf_module(weights)  # keep a reference: tf.function methods hold their instance weakly
    return module.serve(np.asarray(features, np.float32))[ONNX_OUTPUT].numpy()[:, 0]


def save_savedmodel(weights: Weights, directory: Path) -> Path:
    import tensorflow as tf

    module = tf_module(weights)
    tf.saved_model.save(module, str(directory), signatures={"serving_default": module.serve})
    return directory


def savedmodel_to_onnx(saved_model: Path, output: Path, opset: int = 17) -> Path:
    """tf2onnx's command line, as documented; its Python from_keras fails under Keras 3."""
    output.parent.mkdir(parents=True, exist_ok=True)
    command = [sys.executable, "-m", "tf2onnx.convert", "--saved-model", str(saved_model),
               "--output", str(output), "--opset", str(opset)]
    done = subprocess.run(command, capture_output=True, text=True,
                          env={**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3", "CUDA_VISIBLE_DEVICES": ""})
    if done.returncode != 0:
        raise RuntimeError(f"tf2onnx failed:\n{done.stderr[-3000:]}")
    _name_io(output)
    return output


def _name_io(path: Path) -> None:
    """tf2onnx names inputs after the signature's TensorSpec (maybe with ':0') and outputs after
    its keys; make sure they are exactly `features` and `score` with a free batch dimension."""
    import onnx

    model = onnx.load(str(path))
    graph = model.graph
    renames = {}
    for value, name in ((graph.input[0], ONNX_INPUT), (graph.output[0], ONNX_OUTPUT)):
        if value.name != name:
            renames[value.name] = name
            value.name = name
    if renames:
        for node in graph.node:
            node.input[:] = [renames.get(i, i) for i in node.input]
            node.output[:] = [renames.get(o, o) for o in node.output]
    for value in (graph.input[0], graph.output[0]):
        dim = value.type.tensor_type.shape.dim[0]
        dim.ClearField("dim_value")
        dim.dim_param = "batch"
    onnx.checker.check_model(model)
    onnx.save(model, str(path))


def onnx_scores(path: Path, features: np.ndarray) -> np.ndarray:
    import onnxruntime as ort

    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    return session.run([ONNX_OUTPUT], {ONNX_INPUT: np.asarray(features, np.float32)})[0][:, 0]


def document_weights(document: Mapping[str, Any]) -> dict[str, np.ndarray]:
    """The weights as a rankingmodel document carries them: a put's tensor cells, or /document/v1's GET reply, which
    renders a dense tensor in the short form ({"type": ..., "values": nested lists}, nested in the order of the
    dimensions of its type, which Vespa sorts by name)."""
    out = {}
    for name, (_, shape) in TENSOR_TYPES.items():
        tensor = document["fields"][name]
        if "cells" in tensor:
            array = np.zeros(shape, np.float32)
            for cell in tensor["cells"]:
                array[tuple(int(cell["address"][d]) for d in _dims(name))] = cell["value"]
        elif "values" in tensor and "type" in tensor:
            dims = dimensions(tensor["type"])
            if sorted(dims) != sorted(_dims(name)):
                raise ValueError(f"{name} has type {tensor['type']}, not the dimensions {_dims(name)}")
            values = np.asarray(tensor["values"], np.float32).reshape([shape[_dims(name).index(d)] for d in dims])
            array = values.transpose([dims.index(d) for d in _dims(name)])
        else:
            raise ValueError(f"{name}: neither tensor cells nor a dense tensor's type and values")
        out[name] = np.ascontiguousarray(array)
    return out


def export_all(weights: Weights, out: Path, profile: str, version: int) -> dict[str, Any]:
    """Writes the three exports of one model under `out`: constants/, dwell_nn.onnx (via a
    SavedModel and tf2onnx) and rankingmodel.json (the document put)."""
    out.mkdir(parents=True, exist_ok=True)
    write_constants(weights, out / "constants")
    saved = save_savedmodel(weights, out / "saved_model")
    onnx_path = savedmodel_to_onnx(saved, out / "dwell_nn.onnx")
    document = rankingmodel_put(weights, profile, version)
    (out / "rankingmodel.json").write_text(json.dumps(document) + "\n")
    return {"constants": out / "constants", "saved_model": saved, "onnx": onnx_path, "document": document}


def agreement(weights: Weights, exported: Mapping[str, Any], features: np.ndarray) -> dict[str, float]:
    """Max absolute score difference of each export from the numpy network on `features`."""
    reference = forward(weights, features)
    return {
        "tensorflow": float(np.max(np.abs(tf_scores(weights, features) - reference))),
        "onnx": float(np.max(np.abs(onnx_scores(exported["onnx"], features) - reference))),
        "document": float(np.max(np.abs(forward(document_weights(exported["document"]), features) - reference))),
        "constants": float(np.max(np.abs(forward(read_constants(exported["constants"]), features) - reference))),
    }


if __name__ == "__main__":  # a quick manual check: python -m dwell_learning.tf_export
    from .network import baseline_mimicking_weights

    with tempfile.TemporaryDirectory() as d:
        w = baseline_mimicking_weights()
        e = export_all(w, Path(d), "neural", 1)
        print(agreement(w, e, np.random.default_rng(0).random((100, 9)) * 5))
