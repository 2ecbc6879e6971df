"""The loop end to end against the running runtime: article views served by ExplorationSearcher,
impressions read from its log, readers' actions sent back as partial updates, a trained model
fed as a rankingmodel document and live without a redeploy. A couple of short iterations."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from dwell_client import http

import synthetic
from dwell_learning.experiment import LoopRuntime
from dwell_learning.export import read_constants
from dwell_learning.loop import ROOT, LoopConfig, run
from dwell_learning.network import forward
from dwell_learning.policy import prefix_propensities, step_propensities
from dwell_learning.service import OfflineService, RuntimeService, View, load_corpus
from dwell_learning.train import random_weights


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory):
    if not (ROOT / "runtime" / "target" / "classpath.txt").exists() or not (ROOT / "target" / "application").exists():
        pytest.fail("build first: ./dwell build")
    corpus_dir = tmp_path_factory.mktemp("corpus")
    synthetic.write(synthetic.corpus(articles=4, per_article=25), corpus_dir)
    corpus = load_corpus(corpus_dir)
    data = tmp_path_factory.mktemp("dwell-learn-data")
    with LoopRuntime(data) as rt:
        rt.deploy_and_feed(corpus_dir, corpus.now)
        yield corpus, RuntimeService("http://localhost:8080", data / "logs" / "dwell" / "impressions.jsonl")


def test_impressions_carry_scores_and_propensities_that_numpy_reproduces(served) -> None:
    corpus, remote = served
    views = [View(f"check-{i}", "a0", "neural", 0.5, 0.5, 20, 5, seed=i) for i in range(20)]
    impressions = remote.serve(views)
    package = read_constants(ROOT / "application" / "constants")
    assert any(i["explored"] for i in impressions) and not all(i["explored"] for i in impressions)
    for imp in impressions:
        x, s, order = np.array(imp["features"]), np.array(imp["scores"]), np.array(imp["shown"])
        assert len(s) == 20 and len(order) == 5
        assert set(imp["ids"]) <= set(corpus.by_article["a0"])            # candidates named by document id
        assert np.allclose(s, forward(package, x), atol=1e-5)           # neural with the package constants
        assert np.allclose(imp["step_propensity"], step_propensities(s, order, 0.5), rtol=1e-9)
        assert imp["propensity"] == pytest.approx(prefix_propensities(s, order, 0.5, 0.5)[-1], rel=1e-9)


def test_a_fed_model_is_live_within_a_second_and_ranks_the_impressions(served) -> None:
    corpus, remote = served
    weights = random_weights(5)
    seconds = remote.set_model(weights, version=7)
    assert seconds < 1.0
    imp = remote.serve([View("model-7", "a1", "neural", 0.0, 1.0, 20, 5, seed=1)])[0]
    assert imp["model_version"] == 7
    assert np.allclose(imp["scores"], forward(weights, np.array(imp["features"])), atol=1e-5)


def test_two_iterations_through_the_runtime(served, tmp_path: Path) -> None:
    corpus, remote = served
    offline = OfflineService(corpus)
    before = http("GET", "http://localhost:8080/document/v1/dwell/comment/docid/c00000")[1]["fields"]
    config = LoopConfig(iterations=2, runtime_iterations=2, views=40, batch=20, candidates=20, hits=5, epochs=5,
                        rate=0.3, init="random")
    rows = run(corpus, offline, config, tmp_path, runtime_service=remote, log=lambda _: None)
    assert [r["mode"] for r in rows] == ["runtime", "runtime"]
    assert all(r["dwell_learned"] > 0 and r["dwell_freshness"] > 0 for r in rows)
    # The readers' actions reached the documents: the runtime's counters are the corpus's plus
    # what the offline replica recorded as sent.
    changed = [cid for cid, inc in offline.counters.items() if inc]
    assert changed
    for cid in changed[:10]:
        fields = http("GET", f"http://localhost:8080/document/v1/dwell/comment/docid/{cid}")[1]["fields"]
        for counter, n in offline.counters[cid].items():
            assert fields.get(counter, 0) == corpus.comments[cid].get(counter, 0) + n, (cid, counter)
    assert before["comment_id"] == "c00000"
    # A shipped model also went out as ONNX for neural_onnx, by a deploy, and scores as numpy does.
    for r in rows:
        if r["shipped"]:
            assert r["onnx_deploy_s"] > 0 and r["onnx_disagreement"] < 1e-5
    # The live rankingmodel document carries the run's learning curve up to the iteration that shipped it
    # (the comments page draws it); the random start (version 1) has none.
    model = http("GET", "http://localhost:8080/document/v1/dwell/rankingmodel/docid/neural")[1]["fields"]
    shipped = [i for i, r in enumerate(rows) if r["shipped"]]
    assert model["version"] == 1 + len(shipped)
    if shipped:
        last = shipped[-1]
        assert model["curve_learned"] == pytest.approx([r["dwell_learned"] for r in rows[:last + 1]], rel=1e-6)
        assert model["curve_freshness"] == pytest.approx([r["dwell_freshness"] for r in rows[:last + 1]], rel=1e-6)
        assert model["shipped_at"] >= model["trained_at"] > 0
    else:
        assert "curve_learned" not in model


def test_a_shipped_model_is_deployed_as_onnx_for_neural_onnx(served, tmp_path: Path) -> None:
    """The ONNX export (SavedModel -> tf2onnx) goes out in a copy of the built package with
    `vespa deploy`; neural_onnx then scores like the numpy network. application/ is untouched.
    Runs last in this module: the deploy restarts the container."""
    from dwell_client import deploy
    from dwell_learning.deploy import onnx_disagreement, package_with_model
    from dwell_learning.tf_export import export_all

    weights = random_weights(11)
    assert onnx_disagreement(weights, "a2") > 1e-2              # some other model is served now
    onnx_before = (ROOT / "application" / "models" / "dwell_nn.onnx").read_bytes()
    export_all(weights, tmp_path / "v1", "neural", 1)
    package = package_with_model(tmp_path / "v1", tmp_path / "deploy")
    assert deploy(package) > 0
    assert onnx_disagreement(weights, "a2") < 1e-5
    assert (ROOT / "application" / "models" / "dwell_nn.onnx").read_bytes() == onnx_before
