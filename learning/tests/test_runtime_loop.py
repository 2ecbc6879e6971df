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
        yield corpus, rt.service()


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


def test_one_step_of_the_loop_on_logs_collected_from_containers(served, tmp_path: Path) -> None:
    """dwell_learning.from_logs on what a cluster leaves: the impression lines the runtime wrote, split over two
    "containers" (one copied mid-write), readers' signals from elsewhere (a few views without one), and the live
    rankingmodel document as /document/v1 returns it."""
    import json
    import zlib

    from dwell_learning import from_logs
    from dwell_learning.simulator import ReaderModel, Readers

    corpus, remote = served
    remote.set_model(random_weights(5), version=9)
    start = remote.impressions.stat().st_size
    views = [View(f"logs-{i}", f"a{i % 4}", "neural", 0.3, 0.5, 20, 5, seed=100 + i) for i in range(300)]
    views += [View(f"logs-fresh-{i}", f"a{i % 4}", "freshness", 0.3, 0.5, 20, 5, seed=i) for i in range(20)]
    impressions = remote.serve(views)
    readers, rng = Readers(corpus.quality, ReaderModel(), seed=3), np.random.default_rng(3)
    signals = {i["query_id"]: readers.read(i["query_id"], i["article"], [i["ids"][c] for c in i["shown"]], rng)
               for i in impressions}
    withheld = {f"logs-{i}" for i in range(0, 300, 30)}                       # 10 views the front end lost
    (tmp_path / "signals.jsonl").write_text("".join(json.dumps(s) + "\n" for q, s in signals.items() if q not in withheld))
    with remote.impressions.open("rb") as f:
        f.seek(start)
        lines = f.read().decode().splitlines()
    assert len(lines) == 320
    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / "container0.jsonl").write_text("".join(line + "\n" for line in lines[0::2]))
    (logs / "container1.jsonl").write_text("".join(line + "\n" for line in lines[1::2]) + lines[0][:80])  # copied mid-write
    live = http("GET", "http://localhost:8080/document/v1/dwell/rankingmodel/docid/neural")[1]
    (tmp_path / "live.json").write_text(json.dumps(live))

    assert from_logs.main(["--impressions", str(logs), "--signals", str(tmp_path / "signals.jsonl"), "--live",
                           str(tmp_path / "live.json"), "--out", str(tmp_path / "out"), "--epochs", "5"]) == 0
    report = json.loads((tmp_path / "out" / "report.json").read_text())
    assert report["impressions"] == {"files": 2, "read": 320, "torn_last_lines": 1, "of_neural": 300}
    joins = report["join"]
    assert joins["train"]["joined"] + joins["evaluate"]["joined"] == 290
    assert joins["train"]["unjoined"] + joins["evaluate"]["unjoined"] == 10
    assert (report["rate"], report["temperature"], report["live_version"]) == (0.3, 0.5, 9)
    # The live model is the logging policy: its estimate is the evaluated views' mean dwell, computed here from the signals.
    evaluated = [q for q in signals if q.startswith("logs-") and not q.startswith("logs-fresh") and q not in withheld
                 and zlib.crc32(q.encode()) % 1000 >= 500]
    assert joins["evaluate"]["joined"] == len(evaluated)
    mean = float(np.mean([signals[q]["dwell"] for q in evaluated]))
    assert report["live"]["snips"]["snips"] == pytest.approx(mean, rel=1e-4)
    assert report["shipped"] == (report["gain_ci"][0] > 0)
    exported = tmp_path / "out" / "models" / "v10" / "rankingmodel.json"
    assert exported.exists() == report["shipped"]
    if report["shipped"]:
        assert json.loads(exported.read_text())["fields"]["version"] == 10

    (logs / "container0.jsonl").write_text(lines[0] + "\nnot json\n" + lines[2] + "\n")
    with pytest.raises(ValueError, match="container0.jsonl:2: not an impression"):
        from_logs.read_impressions([logs])


def test_a_living_iteration_feeds_the_new_comments_and_serves_them(served, tmp_path: Path) -> None:
    """One runtime iteration of a living world (issue 19, item 6): the comments that arrive are put through
    /document/v1 (their times moved by the feed's shift), the queries carry the world's clock as vespa.now, and the
    new comments are among the candidates, with the replica's features."""
    corpus, remote = served
    offline = OfflineService(corpus)
    config = LoopConfig(iterations=1, runtime_iterations=1, views=20, batch=10, candidates=40, hits=5, epochs=1,
                        rate=0.3, freshness_alone=False, export_every_ship=False, explored_value_last=0,
                        arrivals=200.0, iteration_hours=1.0, recency=1.0)
    try:
        rows = run(corpus, offline, config, tmp_path, runtime_service=remote, log=lambda _: None)
        living = rows[0]["living"]
        new = [c for c in corpus.comments if c.startswith("n")]
        assert rows[0]["mode"] == "runtime" and living["arrivals"] == len(new) > 0
        assert living["new_share_candidates"] > 0 and remote.now == living["now"]
        for cid in new:
            status, doc = http("GET", f"http://localhost:8080/document/v1/dwell/comment/docid/{cid}")
            assert status == 200 and doc["fields"]["created_at"] == corpus.comments[cid]["created_at"] + remote.shift
        # an article view now, all of the article's comments: freshness at the world's clock, as the replica has it
        article = max(corpus.by_article, key=lambda a: sum(c in new for c in corpus.by_article[a]))
        size = len(corpus.by_article[article])
        imp = remote.serve([View("living-check", article, "freshness", 0.0, 1.0, size, 5, seed=1)])[0]
        assert sorted(imp["ids"]) == sorted(corpus.by_article[article])
        x = offline.features(article)
        for cid, f in zip(imp["ids"], imp["features"]):
            want = x[corpus.by_article[article].index(cid)]
            # (the impression log carries the features as float32)
            assert f[0] == pytest.approx(want[0], rel=1e-6)          # freshness at vespa.now = the world's clock
            if cid in new:                                           # the new comments' every feature
                assert np.allclose(f, want, rtol=1e-6, atol=1e-7), cid
    finally:
        remote.now = None


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
