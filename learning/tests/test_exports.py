"""The three exports of one set of weights agree with the numpy network."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import onnxruntime as ort

from dwell_learning.export import rankingmodel_put, write_constants, write_onnx
from dwell_learning.network import TENSOR_TYPES, baseline_mimicking_weights, forward


def test_onnx_export_matches_numpy(tmp_path: Path) -> None:
    weights = baseline_mimicking_weights(seed=3)
    session = ort.InferenceSession(str(write_onnx(weights, tmp_path / "m.onnx")))
    x = np.random.default_rng(1).random((64, 9)).astype(np.float32)
    onnx_scores = session.run(["score"], {"features": x})[0][:, 0]
    assert np.allclose(onnx_scores, forward(weights, x), atol=1e-5)


def test_constants_and_document_carry_the_same_cells(tmp_path: Path) -> None:
    weights = baseline_mimicking_weights(seed=3)
    write_constants(weights, tmp_path)
    document = rankingmodel_put(weights, "neural", version=4, trained_at_ms=1)
    assert document["put"] == "id:dwell:rankingmodel::neural"
    assert document["fields"]["version"] == 4
    for name in TENSOR_TYPES:
        constant = json.loads((tmp_path / f"{name}.json").read_text())
        assert constant == document["fields"][name]
        values = [c["value"] for c in constant["cells"]]
        assert np.allclose(values, np.asarray(weights[name], dtype=np.float32).ravel())


def test_version_zero_is_reserved_for_the_package() -> None:
    try:
        rankingmodel_put(baseline_mimicking_weights(), "neural", version=0)
    except ValueError:
        return
    raise AssertionError("version 0 accepted")


def test_the_document_carries_the_learning_curve_when_given() -> None:
    weights = baseline_mimicking_weights(seed=3)
    plain = rankingmodel_put(weights, "neural", version=2, trained_at_ms=5)["fields"]
    assert "curve_learned" not in plain and plain["shipped_at"] >= plain["trained_at"]
    fields = rankingmodel_put(weights, "neural", version=2, curve={"learned": [1, 2.5], "freshness": [1, 1.5]})["fields"]
    assert fields["curve_learned"] == [1.0, 2.5] and fields["curve_freshness"] == [1.0, 1.5]
    for bad in ({"learned": [1.0]}, {"learned": [1.0], "freshness": [1.0, 2.0]}):
        try:
            rankingmodel_put(weights, "neural", version=2, curve=bad)
        except ValueError:
            continue
        raise AssertionError(f"curve {bad} accepted")


def test_weights_read_back_from_a_put_and_from_a_get_reply() -> None:
    """A put carries tensor cells; /document/v1's GET renders a dense tensor as its type and nested values, in the
    order of the type's dimensions, which Vespa sorts by name (W_0's x[9],h1[9] becomes h1[9],x[9])."""
    from dwell_learning.tf_export import document_weights

    weights = baseline_mimicking_weights(seed=5)
    put = rankingmodel_put(weights, "neural", version=3)
    reply = {"fields": {"W_0": {"type": "tensor<float>(h1[9],x[9])", "values": np.asarray(weights["W_0"]).T.tolist()},
                        "b_0": {"type": "tensor<float>(h1[9])", "values": np.asarray(weights["b_0"]).tolist()},
                        "W_1": {"type": "tensor<float>(h1[9],h2[9])", "values": np.asarray(weights["W_1"]).tolist()},
                        "b_1": {"type": "tensor<float>(h2[9])", "values": np.asarray(weights["b_1"]).tolist()},
                        "W_2": {"type": "tensor<float>(h2[9],o[1])", "values": np.asarray(weights["W_2"]).tolist()},
                        "b_2": {"type": "tensor<float>(o[1])", "values": np.asarray(weights["b_2"]).tolist()}}}
    for document in (put, reply):
        read = document_weights(document)
        for name in TENSOR_TYPES:
            assert np.array_equal(read[name], np.asarray(weights[name], dtype=np.float32)), name
