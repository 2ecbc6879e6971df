"""Training on logged data (small), the three exports agreeing, and the loop offline."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from synthetic import corpus
from dwell_learning.estimators import join
from dwell_learning.export import read_constants
from dwell_learning.loop import LoopConfig, run, true_value
from dwell_learning.network import baseline_mimicking_weights, forward
from dwell_learning.service import OfflineService, sample_views
from dwell_learning.simulator import Readers, counter_updates
from dwell_learning.train import TrainConfig, from_standardised, random_weights, to_standardised, train

ROOT = Path(__file__).resolve().parents[2]


def logged_views(c, service: OfflineService, readers: Readers, n: int, seed: int):
    rng = np.random.default_rng(seed)
    impressions = service.serve(sample_views(c, n, "freshness", 0.3, 0.5, 20, 5, rng))
    signals = {i["query_id"]: readers.read(i["query_id"], i["article"], [i["ids"][k] for k in i["shown"]], rng)
               for i in impressions}
    service.apply(counter_updates(signals.values()))
    return join(impressions, signals)


def test_standardisation_folds_into_the_first_layer_exactly() -> None:
    w = baseline_mimicking_weights(seed=2)
    x = np.random.default_rng(0).random((50, 9)) * 4
    mu, sd = x.mean(axis=0), x.std(axis=0)
    ws = to_standardised(w, mu, sd)
    assert np.allclose(forward(ws, (x - mu) / sd), forward(w, x), atol=1e-4)
    back = from_standardised(ws, mu, sd)
    assert np.allclose(forward(back, x), forward(w, x), atol=1e-4)


def test_the_snips_objective_raises_its_own_estimate() -> None:
    """The policy-gradient objective maximises the (clipped) cascade SNIPS of the logged data."""
    from dwell_learning.estimators import estimate

    c = corpus()
    logged = logged_views(c, OfflineService(c), Readers(c.quality, seed=0), 400, seed=1)
    start = random_weights(0)
    trained = train(logged, start, TrainConfig(objective="snips", epochs=40, learning_rate=0.03, temperature=0.5))
    value = lambda w: estimate(logged, lambda x: forward(w, x), 1.0, 0.5, "cascade", n_boot=10).snips
    assert value(trained) > value(start)


@pytest.mark.parametrize("objective", ["cascade"])
def test_training_from_random_weights_learns_to_rank_by_quality(objective: str) -> None:
    c = corpus()
    service = OfflineService(c)
    readers = Readers(c.quality, seed=0)
    logged = logged_views(c, service, readers, 600, seed=1)
    start = random_weights(0)
    trained = train(logged, start, TrainConfig(objective=objective, epochs=30 if objective == "cascade" else 60,
                                               learning_rate=0.01 if objective == "cascade" else 0.03))
    before = true_value(c, service, readers, start, 5)
    after = true_value(c, service, readers, trained, 5)
    assert after > before
    ids = list(c.comments)
    from dwell_learning.features import feature_vector

    x = np.stack([feature_vector(service.signals(i), c.now) for i in ids])
    q = np.array([c.quality[i] for i in ids])
    assert np.corrcoef(forward(trained, x), q)[0, 1] > 0.5


def test_the_three_exports_agree_with_numpy_and_tensorflow(tmp_path: Path) -> None:
    """numpy vs TensorFlow vs ONNX (SavedModel -> tf2onnx) vs the rankingmodel document's cells
    vs the package constants, on trained weights and logged features: to 1e-5."""
    from dwell_learning.tf_export import agreement, export_all, onnx_scores

    c = corpus(articles=3, per_article=20)
    service = OfflineService(c)
    logged = logged_views(c, service, Readers(c.quality, seed=0), 150, seed=2)
    weights = train(logged, baseline_mimicking_weights(), TrainConfig(epochs=3))
    exported = export_all(weights, tmp_path, "neural", version=3)
    features = np.concatenate(logged.features)
    diffs = agreement(weights, exported, features)
    assert max(diffs.values()) <= 1e-5, diffs
    # The ONNX model keeps comment.sd's names and a free batch dimension.
    import onnx

    model = onnx.load(str(exported["onnx"]))
    assert [i.name for i in model.graph.input] == ["features"]
    assert [o.name for o in model.graph.output] == ["score"]
    assert onnx_scores(exported["onnx"], features[:1]).shape == (1,)
    assert exported["document"]["put"] == "id:dwell:rankingmodel::neural"
    assert exported["document"]["fields"]["version"] == 3
    assert json.loads((tmp_path / "rankingmodel.json").read_text()) == exported["document"]
    assert set(p.name for p in (tmp_path / "constants").iterdir()) == {f"{n}.json" for n in weights}


def test_package_constants_are_the_baseline_mimicking_start() -> None:
    package = read_constants(ROOT / "application" / "constants")
    x = np.random.default_rng(0).random((20, 9))
    from dwell_learning.features import baseline_score

    assert np.argsort(forward(package, x)).tolist() == np.argsort(baseline_score(x)).tolist()


def test_the_loop_offline_serves_joins_estimates_and_trains(tmp_path: Path) -> None:
    c = corpus(articles=4, per_article=25)
    config = LoopConfig(iterations=2, views=60, batch=30, candidates=20, hits=5, epochs=3, export_every_ship=False)
    rows = run(c, OfflineService(c), config, tmp_path, log=lambda _: None)
    assert [r["iteration"] for r in rows] == [0, 1]
    for r in rows:
        assert r["dwell_oracle"] >= 0.8 * r["dwell_freshness"]
        assert {"cascade", "position", "slate"} <= set(r["candidate_estimate"])
    assert rows[1]["predicted_snips"] is not None
    assert len((tmp_path / "iterations.jsonl").read_text().splitlines()) == 2
