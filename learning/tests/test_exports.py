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
