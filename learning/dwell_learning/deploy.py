"""Deploying a shipped model's ONNX export (and constants) for rank profile neural_onnx.

The rankingmodel document makes a new network live for rank profile `neural` without a deploy.
`neural_onnx` evaluates a model file of the application package, so its new model goes out the
way operators ship models: a copy of the built package (target/application) with
models/dwell_nn.onnx and constants/ replaced by the export, deployed with `vespa deploy --wait`.
application/ in the repository is left as it is.
"""
from __future__ import annotations

import shutil
import subprocess
import time
import urllib.parse
from pathlib import Path

import numpy as np

from .network import Weights, forward

ROOT = Path(__file__).resolve().parents[2]


def vespa_binary() -> str:
    from vespacli import get_binary_path

    return get_binary_path()


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


def answers(url: str) -> bool:
    """Whether the URL answers 200 within 2 s."""
    import urllib.request

    try:
        with urllib.request.urlopen(url, timeout=2) as response:
            return response.status == 200
    except OSError:
        return False


def deploy(package: Path, endpoint: str = "http://localhost:8080", timeout: float = 300) -> float:
    """`vespa deploy --wait` of the package; returns the seconds until the container answers."""
    started = time.time()
    done = subprocess.run([vespa_binary(), "deploy", "--target", "local", "--wait", str(int(timeout)), str(package)],
                          capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"vespa deploy failed: {done.stdout}{done.stderr}")
    while not answers(f"{endpoint}/status.html"):
        if time.time() - started > timeout:
            raise TimeoutError("the container did not come back after the deploy")
        time.sleep(0.2)
    return time.time() - started


def onnx_disagreement(weights: Weights, article: str, endpoint: str = "http://localhost:8080") -> float:
    """The largest |nn_score - numpy network| over an article's comments ranked by neural_onnx."""
    from .service import _nn_input, http

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
