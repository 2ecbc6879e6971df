"""--text-features: the text flags computed from a comment's text match the corpus generator's draws, and the loop
runs with them as three more inputs of the offline replica (not exported)."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from dwell_feed.generate import generate_to
from dwell_learning.features import FEATURE_NAMES, TEXT_FEATURE_NAMES, input_count, text_flags
from dwell_learning.loop import LoopConfig, run
from dwell_learning.service import OfflineService, load_corpus, read_jsonl


def test_the_flags_match_the_generators_draws(tmp_path: Path) -> None:
    """On two small generated corpora: shouting and link as generate.py drew them (truth.jsonl), short as its quality
    logit counts words (fewer than 4); each flag is seen both ways."""
    seen = np.zeros((3, 2), dtype=int)
    for seed in (1, 2):
        generate_to("tiny", seed, tmp_path / str(seed))
        c = load_corpus(tmp_path / str(seed))
        truth = {t["comment_id"]: t for t in read_jsonl(tmp_path / str(seed) / "truth.jsonl") if "comment_id" in t}
        assert truth.keys() == c.comments.keys()
        for cid, comment in c.comments.items():
            text = comment["text"]
            want = [truth[cid]["shouting"], truth[cid]["link"], len(text.split()) < 4]
            got = text_flags(text)
            assert got.tolist() == [float(w) for w in want], (cid, text)
            seen[np.arange(3), got.astype(int)] += 1
    assert (seen > 0).all(), seen


def test_flags_of_written_texts() -> None:
    assert text_flags("GREAT POINT, THANK YOU!!!").tolist() == [1.0, 0.0, 0.0]
    assert text_flags("GREAT POINT!!! see www.site7.example/read").tolist() == [1.0, 1.0, 0.0]
    assert text_flags("Great point, thank you!!!").tolist() == [0.0, 0.0, 0.0]
    assert text_flags("more at https://www.example.org/x today").tolist() == [0.0, 1.0, 0.0]
    assert text_flags("see http://url_removed and more").tolist() == [0.0, 0.0, 0.0]
    assert text_flags("Agreed.").tolist() == [0.0, 0.0, 1.0]
    assert text_flags("!!!").tolist() == [0.0, 0.0, 1.0]


def test_the_loop_reads_three_more_inputs_offline_only(tmp_path: Path) -> None:
    generate_to("tiny", 3, tmp_path / "corpus")
    c = load_corpus(tmp_path / "corpus")
    assert input_count("time", True) == len(FEATURE_NAMES) + len(TEXT_FEATURE_NAMES)
    assert input_count("logtime+relative", True) == len(FEATURE_NAMES) + 1 + len(TEXT_FEATURE_NAMES)
    service = OfflineService(c)
    config = LoopConfig(iterations=3, views=60, batch=20, candidates=20, hits=5, epochs=2, rate=0.3,
                        text_features=True, gate="cascade")
    rows = run(c, service, config, tmp_path / "out", log=lambda _: None)
    article = next(iter(c.by_article))
    x = service.features(article)
    assert len(rows) == 3 and x.shape[1] == 12
    want = np.stack([text_flags(c.comments[cid]["text"]) for cid in c.by_article[article]])
    np.testing.assert_array_equal(x[:, 9:], want)
    assert not (tmp_path / "out" / "models").exists(), "a twelve-input model is not exported: the package reads nine"
    assert all(0 < r["true_candidate"] <= r["true_ceiling"] + 1e-9 for r in rows)
    plain = OfflineService(c)
    assert plain.features(article).shape[1] == 9, "the default is unchanged: nine inputs"
    with pytest.raises(ValueError):
        run(c, OfflineService(c), LoopConfig(text_features=True, learner="vw"), tmp_path / "vw", log=lambda _: None)
