"""feature_ceiling: its share of the ceiling against loop.true_value, and its cross-fitting by article."""
from __future__ import annotations

import numpy as np
import pytest

from dwell_learning.feature_ceiling import cross_fitted, share_of_ceiling
from dwell_learning.loop import true_value
from dwell_learning.service import OfflineService
from dwell_learning.simulator import Readers
from synthetic import corpus


def test_share_of_ceiling_is_true_values_ratio() -> None:
    c = corpus()
    r = Readers(c.quality, seed=3)
    service = OfflineService(c)
    perceived = {a: np.array([r.perceived(a, x) for x in c.by_article[a]]) for a in c.popularity}
    assert share_of_ceiling(c, r, perceived, 5) == pytest.approx(1.0, rel=1e-12)
    q = {a: np.array([c.quality[x] for x in c.by_article[a]]) for a in c.popularity}
    want = true_value(c, service, r, "oracle", 5) / true_value(c, service, r, "ceiling", 5)
    assert share_of_ceiling(c, r, q, 5) == pytest.approx(want, rel=1e-12)


class Remembers:
    """A regressor that predicts the mean target of what it was fitted on, and remembers the rows it saw."""

    seen: list[set[float]] = []

    def fit(self, x: np.ndarray, y: np.ndarray) -> None:
        self.mean = float(y.mean())
        Remembers.seen.append(set(x[:, 0].tolist()))

    def predict(self, x: np.ndarray) -> np.ndarray:
        self.rows = set(x[:, 0].tolist())
        assert not self.rows & Remembers.seen[-1], "an article ranked by a fit that saw it"
        return np.full(len(x), self.mean)


def test_cross_fitting_never_ranks_an_article_with_a_fit_that_saw_it() -> None:
    c = corpus(articles=8)
    articles = list(c.popularity)
    inputs = {a: np.full((len(c.by_article[a]), 2), float(i)) for i, a in enumerate(articles)}
    target = {a: np.full(len(c.by_article[a]), float(i)) for i, a in enumerate(articles)}
    Remembers.seen = []
    got = cross_fitted(c, inputs, target, 1, Remembers)
    assert set(got) == set(articles) and len(Remembers.seen) == 2
    assert Remembers.seen[0].isdisjoint(Remembers.seen[1]) and len(Remembers.seen[0] | Remembers.seen[1]) == 8
    for i, a in enumerate(articles):
        other = Remembers.seen[1] if float(i) in Remembers.seen[0] else Remembers.seen[0]
        assert float(i) not in other
        want = np.concatenate([target[articles[int(j)]] for j in sorted(other)]).mean()
        np.testing.assert_allclose(got[a], want, rtol=1e-12)


def test_main_on_a_loop_run_reports_every_input_set(tmp_path) -> None:
    import json
    from dataclasses import asdict

    from dwell_learning.feature_ceiling import main
    from dwell_learning.loop import LoopConfig, run
    from synthetic import write

    c = corpus()
    write(c, tmp_path / "corpus")
    config = LoopConfig(iterations=1, views=60, batch=20, candidates=20, hits=5, epochs=1, rate=0.3,
                        read_feature="logtime", export_every_ship=False, save_counters=True)
    run(c, OfflineService(c), config, tmp_path, log=lambda _: None)
    (tmp_path / "config.json").write_text(json.dumps(asdict(config)))
    assert main(["--corpus", str(tmp_path / "corpus"), "--run", str(tmp_path)]) == 0
    got = json.loads((tmp_path / "feature_ceiling.json").read_text())
    assert got["true ceiling (by q')"] == pytest.approx(1.0, rel=1e-12)
    r = Readers(c.quality, seed=1)
    service = OfflineService(c)
    assert got["q oracle (by q)"] == pytest.approx(true_value(c, service, r, "oracle", 5) / true_value(c, service, r, "ceiling", 5), rel=1e-12)
    assert all(0 < v <= 1 + 1e-12 for v in got.values())
    assert "nine inputs with read_logtime, plus read_relative (--read-feature logtime+relative)" in got
