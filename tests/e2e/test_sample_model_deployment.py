"""Vespa's sample application examples/model-deployment (vespa-engine/sample-apps) on dwell's runtime, with a
stand-in for models/Network.onnx, which its notebook trains with PyTorch (tests/sample_apps/iris_network_standin.py:
the same network, input and output, random weights). Its README shows no feed and no queries ("work in progress"):
a few flowers written to its schema are fed, and both of its rank profiles queried with `query(myTensor)` a
tensor<float>(d0[1],d1[4]) of Iris measurements: myRank, sum(onnx(my_onnx_model).outputTensor *
attribute(flowercategory)), and myRankwithpenalty, times the feedback where positive. Each relevance and the hit
order are numpy's over the stand-in. Runs when DWELL_SAMPLE_APPS points at a sample-apps checkout; skipped
otherwise (CI cannot reach GitHub)."""
from __future__ import annotations

import json
import shutil
import sys

import numpy as np
import pytest
from dwell_client import ROOT, search
from dwell_client.application import deployed_runtime

from sample_standins import SAMPLE_APPS

APP = SAMPLE_APPS / "examples" / "model-deployment" if SAMPLE_APPS else None
pytestmark = pytest.mark.skipif(APP is None or not (APP / "services.xml").exists(),
                                reason="DWELL_SAMPLE_APPS does not point at a vespa-engine/sample-apps checkout")

FLOWERS = {  # name: (isFlower, feedback, flowercategory: one-hot setosa, versicolor, virginica)
    "setosa": ("true", 0.0, [1, 0, 0]), "versicolor": ("true", 2.5, [0, 1, 0]), "virginica": ("true", -1.0, [0, 0, 1]),
    "mixed": ("true", 0.5, [0.5, 0.25, 0.25]), "weed": ("false", 3.0, [0.1, 0.1, 0.1])}
MEASUREMENTS = [[5.1, 3.5, 1.4, 0.2], [6.3, 2.9, 5.6, 1.8], [5.9, 3.0, 4.2, 1.5]]


def network():
    sys.path.insert(0, str(ROOT / "tests" / "sample_apps"))
    import iris_network_standin
    return iris_network_standin


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory):
    work = tmp_path_factory.mktemp("model-deployment-sample")
    copy = shutil.copytree(APP, work / "application", ignore=shutil.ignore_patterns("*.ipynb"))
    (copy / "models").mkdir()
    network().write(str(copy / "models" / "Network.onnx"))
    feed = work / "feed.jsonl"
    feed.write_text("".join(json.dumps({"put": f"id:doc:doc::{name}", "fields": {
        "isFlower": flower, "name": name, "feedback": feedback, "flowercategory": [category]}}) + "\n"
        for name, (flower, feedback, category) in FLOWERS.items()))
    for _ in deployed_runtime(work / "data", copy, feed):
        yield copy


@pytest.mark.parametrize("profile", ["myRank", "myRankwithpenalty"])
@pytest.mark.parametrize("measurements", MEASUREMENTS)
def test_both_profiles_score_as_numpy(app, profile: str, measurements: list[float]) -> None:
    result = search(yql="select * from doc where true", ranking=profile, timeout="20s",
                    **{"input.query(myTensor)": json.dumps([measurements])})["root"]
    assert "errors" not in result, result["errors"]
    out = network().network(np.array([measurements], dtype=np.float32))[0].astype(np.float64)
    want = {}
    for name, (_, feedback, category) in FLOWERS.items():
        score = float(out @ np.array(category, dtype=np.float32).astype(np.float64))
        want[name] = score * (feedback if profile == "myRankwithpenalty" and feedback > 0 else 1)
    hits = result["children"]
    assert [h["fields"]["name"] for h in hits] == sorted(want, key=lambda n: -want[n])
    for hit in hits:
        assert hit["relevance"] == pytest.approx(want[hit["fields"]["name"]], rel=1e-5, abs=1e-6)
