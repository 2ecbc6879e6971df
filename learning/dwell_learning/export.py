"""Exports of one set of network weights, in the three forms that dwell serves:

- constant tensor files for the application package (application/constants/*.json),
- an ONNX model for rank-profile neural_onnx (application/models/dwell_nn.onnx),
- a rankingmodel document that RankingModelSearcher injects into queries (fed, no redeploy).

All three carry the same float32 weights, so their scores agree to float rounding.
"""
from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any, Mapping, Sequence

import numpy as np

from .network import TENSOR_TYPES, Weights, baseline_mimicking_weights

ONNX_INPUT = "features"
ONNX_OUTPUT = "score"


def dimensions(tensor_type: str) -> list[str]:
    """The dimension names of a tensor type, in its order: tensor<float>(x[9],h1[9]) -> [x, h1]."""
    inner = tensor_type[tensor_type.index("(") + 1 : tensor_type.rindex(")")]
    return [d.split("[")[0] for d in inner.split(",")]


def _dims(name: str) -> list[str]:
    return dimensions(TENSOR_TYPES[name][0])


def tensor_cells(name: str, value: np.ndarray) -> dict[str, Any]:
    """Vespa's tensor JSON in the verbose cells form, which every reader accepts."""
    dims = _dims(name)
    value = np.asarray(value, dtype=np.float32)
    cells = []
    for index in np.ndindex(value.shape):
        address = {d: str(i) for d, i in zip(dims, index)}
        cells.append({"address": address, "value": float(value[index])})
    return {"cells": cells}


def read_constants(directory: Path) -> Weights:
    """The package's constant tensors (Vespa's cells JSON, as write_constants writes them)
    as numpy arrays."""
    weights = {}
    for name, (spec, shape) in TENSOR_TYPES.items():
        dims = _dims(name)
        array = np.zeros(shape, dtype=np.float32)
        for cell in json.loads((directory / f"{name}.json").read_text())["cells"]:
            array[tuple(int(cell["address"][d]) for d in dims)] = cell["value"]
        weights[name] = array
    return weights


def write_constants(weights: Weights, directory: Path) -> list[Path]:
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    for name in TENSOR_TYPES:
        path = directory / f"{name}.json"
        path.write_text(json.dumps(tensor_cells(name, weights[name]), indent=1) + "\n")
        written.append(path)
    return written


def onnx_model(weights: Weights):
    """The network as an ONNX graph with a symbolic batch dimension: features[batch, 9]
    to score[batch, 1]."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    initializers = [
        numpy_helper.from_array(np.asarray(weights[name], dtype=np.float32), name)
        for name in TENSOR_TYPES
    ]
    nodes = [
        helper.make_node("MatMul", [ONNX_INPUT, "W_0"], ["z0"]),
        helper.make_node("Add", ["z0", "b_0"], ["a0"]),
        helper.make_node("Elu", ["a0"], ["h1"], alpha=1.0),
        helper.make_node("MatMul", ["h1", "W_1"], ["z1"]),
        helper.make_node("Add", ["z1", "b_1"], ["a1"]),
        helper.make_node("Elu", ["a1"], ["h2"], alpha=1.0),
        helper.make_node("MatMul", ["h2", "W_2"], ["z2"]),
        helper.make_node("Add", ["z2", "b_2"], [ONNX_OUTPUT]),
    ]
    graph = helper.make_graph(
        nodes,
        "dwell_nn",
        [helper.make_tensor_value_info(ONNX_INPUT, TensorProto.FLOAT, ["batch", 9])],
        [helper.make_tensor_value_info(ONNX_OUTPUT, TensorProto.FLOAT, ["batch", 1])],
        initializers,
    )
    model = helper.make_model(
        graph, producer_name="dwell", opset_imports=[helper.make_opsetid("", 17)]
    )
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model


def write_onnx(weights: Weights, path: Path) -> Path:
    import onnx

    path.parent.mkdir(parents=True, exist_ok=True)
    onnx.save(onnx_model(weights), str(path))
    return path


def rankingmodel_put(weights: Weights, profile: str, version: int, trained_at_ms: int | None = None,
                     curve: Mapping[str, Sequence[float]] | None = None, shipped_at_ms: int | None = None) -> dict[str, Any]:
    """A Vespa JSON put of the rankingmodel document for one rank profile. trained_at and shipped_at are now
    unless given (a generated corpus gives 0 for both: its files are the same for the same seed); curve, when
    given, is the run's learning curve so far ({"learned": [...], "freshness": [...]}, mean dwell per view by
    iteration), which the comments page draws."""
    if version <= 0:
        raise ValueError("version must be positive: 0 stands for the package constants")
    now_ms = int(time.time() * 1000)
    fields: dict[str, Any] = {
        "profile": profile,
        "version": version,
        "trained_at": now_ms if trained_at_ms is None else trained_at_ms,
        "shipped_at": now_ms if shipped_at_ms is None else shipped_at_ms,
    }
    if curve is not None:
        if set(curve) != {"learned", "freshness"} or len(curve["learned"]) != len(curve["freshness"]):
            raise ValueError("curve must have 'learned' and 'freshness' of the same length")
        fields["curve_learned"] = [float(v) for v in curve["learned"]]
        fields["curve_freshness"] = [float(v) for v in curve["freshness"]]
    for name in TENSOR_TYPES:
        fields[name] = tensor_cells(name, weights[name])
    return {"put": f"id:dwell:rankingmodel::{profile}", "fields": fields}


def main() -> None:
    parser = argparse.ArgumentParser(description="Write the initial network into the application package.")
    parser.add_argument("--application", type=Path, default=Path(__file__).resolve().parents[2] / "application")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    weights = baseline_mimicking_weights(args.seed)
    for path in write_constants(weights, args.application / "constants"):
        print(f"wrote {path}")
    print(f"wrote {write_onnx(weights, args.application / 'models' / 'dwell_nn.onnx')}")


if __name__ == "__main__":
    main()
