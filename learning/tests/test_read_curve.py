"""read_logtime: the position curve fitted on the logged reads, the read_logms counter it corrects, and the feature."""
from __future__ import annotations

import json
import math

import numpy as np
import pytest

from dwell_learning.features import READ_PRIOR_S, CommentSignals, feature_vector, read_logtime
from dwell_learning.read_curve import PositionCurve, corrected_log_ms, fit_position_offsets
from dwell_learning.simulator import ReaderModel, Readers, counter_updates


def selected_reads(seed: int = 0, pairs: int = 300, positions: int = 6) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Synthetic reads with known offsets where good comments are shown high (pair effect and position correlated),
    as a ranking shows them: each pair is read a few times near a position that falls with its effect."""
    rng = np.random.default_rng(seed)
    offsets = -np.linspace(0, 0.4, positions) ** 1.3
    effect = rng.normal(2.0, 0.6, size=pairs)
    rank = np.argsort(np.argsort(-effect)) * positions // pairs     # the best pairs sit at position 0
    pair, position = [], []
    for p in range(pairs):
        for _ in range(int(rng.integers(1, 6))):
            pair.append(p)
            position.append(int(np.clip(rank[p] + rng.integers(-1, 2), 0, positions - 1)))
    pair, position = np.array(pair), np.array(position)
    y = effect[pair] + offsets[position] + rng.normal(0, 0.3, size=len(pair))
    return pair, position, y, offsets


def test_offsets_are_the_least_squares_of_a_pair_plus_position_model() -> None:
    """Against an independent fit: the full dummy design (one column per pair, one per position but 0) by lstsq."""
    pair, position, y, _ = selected_reads()
    got = fit_position_offsets(pair * 7 + 3, position, y, 6)    # pair labels need not be 0..n-1
    design = np.zeros((len(y), pair.max() + 1 + 5))
    design[np.arange(len(y)), pair] = 1.0
    for k in range(1, 6):
        design[position == k, pair.max() + k] = 1.0
    want = np.linalg.lstsq(design, y, rcond=None)[0][pair.max() + 1:]
    assert got[0] == 0.0
    np.testing.assert_allclose(got[1:], want, atol=1e-9)


def test_offsets_recover_the_curve_where_the_per_position_means_do_not() -> None:
    """Good comments are shown high, so the raw mean log seconds by position fall far faster than the true curve;
    the fit with a free effect per comment recovers it."""
    pair, position, y, offsets = selected_reads(pairs=4000)
    got = fit_position_offsets(pair, position, y, 6)
    np.testing.assert_allclose(got, offsets - offsets[0], atol=0.03)
    naive = np.array([y[position == k].mean() for k in range(6)])
    assert np.max(np.abs((naive - naive[0]) - (offsets - offsets[0]))) > 0.5


def test_unconnected_positions_and_single_reads_give_zero_offsets() -> None:
    assert fit_position_offsets(np.array([], dtype=int), np.array([], dtype=int), np.array([]), 4).tolist() == [0.0] * 4
    # every pair read once: nothing separates a pair from its position
    assert fit_position_offsets(np.arange(3), np.array([0, 1, 2]), np.array([1.0, 0.5, 0.2]), 4).tolist() == [0.0] * 4
    # one pair read at 0 and 2: offset 2 is the difference, 1 and 3 stay 0
    got = fit_position_offsets(np.array([5, 5]), np.array([0, 2]), np.array([1.0, 0.7]), 4)
    np.testing.assert_allclose(got, [0.0, 0.0, -0.3, 0.0], atol=1e-12)
    with pytest.raises(ValueError):
        fit_position_offsets(np.array([0]), np.array([4]), np.array([1.0]), 4)


def test_the_curve_of_simulated_readers_is_their_fatigue() -> None:
    """Readers shown random orders: the fitted offsets are position * log(fatigue), which the fit never sees."""
    rng = np.random.default_rng(0)
    quality = {f"c{i}": float(rng.uniform(0.05, 0.95)) for i in range(40)}
    r = Readers(quality, ReaderModel(fatigue=0.9), seed=3)
    curve = PositionCurve(10)
    signals = [r.read(str(v), f"a{v % 5}", list(rng.permutation(list(quality))[:10]), rng) for v in range(8000)]
    assert curve.add(signals[:4000]) + curve.add(signals[4000:]) == sum(len(s["reads"]) for s in signals)
    np.testing.assert_allclose(curve.offsets[:6], np.arange(6) * math.log(0.9), atol=0.03)


def test_read_logms_is_the_sum_of_position_corrected_log_milliseconds() -> None:
    r = Readers({"c0": 0.2, "c1": 0.8}, seed=1)
    rng = np.random.default_rng(5)
    signals = [r.read(f"q{i}", "a1", ["c1", "c0"], rng) for i in range(300)]
    offsets = np.array([0.0, -0.25])
    updates = counter_updates(signals, offsets)
    for cid in ("c0", "c1"):
        reads = [x for s in signals for x in s["reads"] if x["id"] == cid]
        want = sum(int(round(1000 * (math.log(x["seconds"]) - offsets[x["position"]]))) for x in reads)
        assert updates[cid]["read_logms"] == want
        assert updates[cid]["reads"] == len(reads)
    assert "read_logms" not in counter_updates(signals)["c0"], "no curve, no read_logms"
    assert corrected_log_ms(0.0, 0, offsets) == int(round(1000 * math.log(1e-3)))
    with pytest.raises(ValueError):
        corrected_log_ms(1.0, 2, offsets)


def test_read_logtime_is_the_smoothed_mean_of_log_seconds_and_the_ninth_input() -> None:
    assert read_logtime(0, 0) == pytest.approx(math.log(READ_PRIOR_S), rel=1e-15)
    # three reads of 2 s, 8 s and 0.5 s at position 0: (log 2 + log 8 + log 0.5 + log 5) / 4
    logms = sum(int(round(1000 * math.log(s))) for s in (2.0, 8.0, 0.5))
    assert read_logtime(3, logms) == pytest.approx((logms / 1000 + math.log(5)) / 4, rel=1e-15)
    assert read_logtime(1, -2000) == pytest.approx((-2.0 + math.log(5)) / 2, rel=1e-15), "negative sums count"
    c = CommentSignals(created_at=0, reads=3, read_ms=10_500, read_logms=logms)
    time_, log_ = feature_vector(c, 3600.0), feature_vector(c, 3600.0, "logtime")
    np.testing.assert_array_equal(time_[:8], log_[:8])
    assert time_[8] == pytest.approx((10.5 + 5) / 4) and log_[8] == read_logtime(3, logms)
    with pytest.raises(ValueError):
        feature_vector(c, 0.0, "seconds")


def test_the_loop_with_read_logtime_feeds_read_logms_and_serves_it_as_the_ninth_input(tmp_path) -> None:
    from synthetic import corpus
    from dwell_learning.loop import LoopConfig, run
    from dwell_learning.service import OfflineService

    c = corpus()
    service = OfflineService(c)
    config = LoopConfig(iterations=2, views=60, batch=20, candidates=20, hits=5, epochs=1, rate=0.3,
                        read_feature="logtime", export_every_ship=False, save_counters=True)
    rows = run(c, service, config, tmp_path, log=lambda _: None)
    assert json.loads((tmp_path / "counters.json").read_text())["counters"] == service.counters
    assert all(len(r["position_offsets"]) == 5 and r["position_offsets"][0] == 0.0 for r in rows)
    read = {cid: n for cid, n in service.counters.items() if n.get("reads", 0) > 0}
    assert read and all("read_logms" in n for n in read.values())
    for article, ids in c.by_article.items():
        x = service.features(article)
        want = [(service.counters.get(cid, {}).get("read_logms", 0) / 1000 + math.log(5))
                / (service.counters.get(cid, {}).get("reads", 0) + 1) for cid in ids]
        np.testing.assert_allclose(x[:, 8], want, rtol=1e-14)
    with pytest.raises(ValueError):
        run(c, OfflineService(c), LoopConfig(read_feature="seconds"), tmp_path, log=lambda _: None)


def test_read_relative_is_the_deviation_from_the_articles_mean_and_moves_with_the_article() -> None:
    from dwell_learning.features import read_relative
    from dwell_learning.service import OfflineService
    from synthetic import corpus

    assert read_relative(0, 0, 40, 80_000) == 0.0, "an unread comment sits at its article's mean"
    m = (80.0 + math.log(5)) / 41
    assert read_relative(3, 9_000, 40, 80_000) == pytest.approx((9.0 - 3 * m) / 4, rel=1e-14)
    c = corpus()
    service = OfflineService(c, read_feature="relative")
    article = c.by_article["a0"]
    service.features("a0")
    service.apply({article[0]: {"reads": 2, "read_logms": 4_000}, article[1]: {"reads": 1, "read_logms": 500}})

    def want() -> np.ndarray:
        n = np.array([service.counters.get(x, {}).get("reads", 0) for x in article], dtype=float)
        logms = np.array([service.counters.get(x, {}).get("read_logms", 0) for x in article], dtype=float)
        mean = (logms.sum() / 1000 + math.log(5)) / (n.sum() + 1)
        return (logms / 1000 - n * mean) / (n + 1)

    np.testing.assert_allclose(service.features("a0")[:, 8], want(), rtol=1e-13, atol=1e-15)
    before = service.features("a0")[1, 8]
    service.apply({article[5]: {"reads": 10, "read_logms": 40_000}})      # another comment's reads move the mean
    after = service.features("a0")
    np.testing.assert_allclose(after[:, 8], want(), rtol=1e-13, atol=1e-15)
    assert after[1, 8] < before
    fresh = OfflineService(c, counters=service.counters, read_feature="relative")
    np.testing.assert_array_equal(fresh.features("a0"), after)


def test_logtime_plus_relative_keeps_read_logtime_ninth_and_adds_read_relative_tenth() -> None:
    """--read-feature logtime+relative: ten inputs, the first nine those of logtime, the tenth the comment's mean
    position-corrected log read time shrunk toward its article's by one pseudo-read, minus the article's (numpy below,
    from the raw counters), kept up to date as any comment of the article is read."""
    from dwell_learning.features import baseline_score, input_count
    from dwell_learning.service import OfflineService
    from synthetic import corpus

    assert input_count("logtime+relative") == 10 and all(input_count(f) == 9 for f in ("time", "logtime", "relative"))
    c = corpus()
    both, logtime = OfflineService(c, read_feature="logtime+relative"), OfflineService(c, read_feature="logtime")
    article = c.by_article["a1"]
    both.features("a1")
    updates = {article[0]: {"reads": 3, "read_logms": 7_500}, article[2]: {"reads": 1, "read_logms": -300},
               article[7]: {"reads": 5, "read_logms": 12_000, "upvotes": 1}}

    def want() -> np.ndarray:
        n = np.array([both.counters.get(x, {}).get("reads", 0) for x in article], dtype=np.float64)
        s = np.array([both.counters.get(x, {}).get("read_logms", 0) for x in article], dtype=np.float64) / 1000
        m = (s.sum() + np.log(5.0)) / (n.sum() + 1)
        return np.c_[(s + np.log(5.0)) / (n + 1), (s - n * m) / (n + 1)]

    for step in (updates, {article[9]: {"reads": 20, "read_logms": 90_000}}):   # the second moves every row's tenth
        both.apply(step)
        logtime.apply(step)
        x = both.features("a1")
        assert x.shape == (len(article), 10)
        np.testing.assert_array_equal(x[:, :9], logtime.features("a1"))
        np.testing.assert_allclose(x[:, 8:], want(), rtol=1e-13, atol=1e-15)
    assert x[1, 9] == 0.0, "an unread comment's tenth input is 0"
    np.testing.assert_array_equal(baseline_score(x), baseline_score(x[:, :9]))
    fresh = OfflineService(c, counters=both.counters, read_feature="logtime+relative")
    np.testing.assert_array_equal(fresh.features("a1"), x)


def test_the_loop_with_a_tenth_input_trains_a_ten_input_network_and_exports_nothing(tmp_path) -> None:
    from synthetic import corpus
    from dwell_learning.export import read_constants
    from dwell_learning.loop import ROOT, LoopConfig, run, widened
    from dwell_learning.network import forward
    from dwell_learning.service import OfflineService

    package = read_constants(ROOT / "application" / "constants")
    wide = widened(package, 10)
    assert wide["W_0"].shape == (10, package["W_0"].shape[1]) and not wide["W_0"][9].any()
    x = np.random.default_rng(3).normal(size=(50, 10))
    np.testing.assert_array_equal(forward(wide, x), forward(package, x[:, :9]))
    c = corpus()
    service = OfflineService(c)
    config = LoopConfig(iterations=3, views=60, batch=20, candidates=20, hits=5, epochs=2, rate=0.3,
                        read_feature="logtime+relative", gate="cascade")
    rows = run(c, service, config, tmp_path, log=lambda _: None)
    assert len(rows) == 3 and service.features("a0").shape[1] == 10
    assert not (tmp_path / "models").exists(), "a ten-input model is not exported: the package reads nine"
    assert all(0 < r["true_candidate"] <= r["true_ceiling"] + 1e-9 for r in rows)
    with pytest.raises(ValueError):
        run(c, OfflineService(c), LoopConfig(read_feature="logtime+relative", learner="vw"), tmp_path / "vw",
            log=lambda _: None)
