"""Deploying a shipped model's ONNX export (and constants) for rank profile neural_onnx.

The rankingmodel document makes a new network live for rank profile `neural` without a deploy.
`neural_onnx` evaluates a model file of the application package, so its new model goes out the
way operators ship models: a copy of the built package (target/application) with
models/dwell_nn.onnx and constants/ replaced by the export, deployed with `vespa deploy --wait`
(dwell_client.deploy). application/ in the repository is left as it is.
"""
from __future__ import annotations

import shutil
import urllib.parse
from pathlib import Path

import numpy as np

from dwell_client import http

from .network import Weights, forward

ROOT = Path(__file__).resolve().parents[2]


def package_with_model(exported: Path, out: Path, built: Path = ROOT / "target" / "application") -> Path:
    """A copy of the built package with the exported ONNX model and constants in place."""
    if not (built / "services.xml").exists():
        raise FileNotFoundError(f"{built} is not a built application package: ./dwell build")
    if out.exists():
        shutil.rmtree(out)
    shutil.copytree(built, out)
    shutil.copyfile(exported / "dwell_nn.onnx", out / "models" / "dwell_nn.onnx")
    for constant in (exported / "constants").glob("*.json"):
        shutil.copyfile(constant, out / "constants" / constant.name)
    return out


def onnx_disagreement(weights: Weights, article: str, endpoint: str = "http://localhost:8080") -> float:
    """The largest |nn_score - numpy network| over an article's comments ranked by neural_onnx."""
    from .service import _nn_input

    query = urllib.parse.urlencode({"article": article, "ranking": "neural_onnx", "hits": 50,
                                    "exploration.rate": 0, "timeout": "10s"})
    status, body = http("GET", f"{endpoint}/search/?{query}")
    if status != 200:
        raise RuntimeError(f"neural_onnx query failed ({status}): {body}")
    hits = body.get("root", {}).get("children", [])
    if not hits:
        raise RuntimeError(f"neural_onnx query for {article} returned no hits")
    worst = 0.0
    for hit in hits:
        mf = hit["fields"]["matchfeatures"]
        x = np.array(_nn_input(mf))
        worst = max(worst, abs(float(mf["nn_score"]) - float(forward(weights, x))))
    return worst
