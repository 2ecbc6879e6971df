"""A number on the left of a tensor in -, / and ^ (tests/apps/scalar-operands, issue 18): proton joins it with each
cell; searchlib's Java evaluator refused it ("Cannot perform divide on ..."), which failed visual-retrieval-colpali's
max_sim_binary, sum(reduce(1 / (1 + sum(hamming(qtb, embedding), v)), max, patch), querytoken). Each relevance and
match feature against numpy: hamming is the popcount of the xor of the int8 cells."""
from __future__ import annotations

import json

import numpy as np
import pytest
from dwell_client import ROOT, search

from clients import deployed_runtime

APP = ROOT / "tests" / "apps" / "scalar-operands"
RNG = np.random.default_rng(18)
PAGES = {f"p{n}": RNG.integers(-128, 128, size=(int(RNG.integers(1, 5)), 2)) for n in range(12)}
QUERY = RNG.integers(-128, 128, size=(3, 2))


@pytest.fixture(scope="module")
def runtime(tmp_path_factory: pytest.TempPathFactory):
    tmp = tmp_path_factory.mktemp("dwell-scalar-operands")
    feed = tmp / "feed.jsonl"
    feed.write_text("".join(json.dumps({"put": f"id:test:page::{name}", "fields": {
        "name": name, "embedding": {str(p): cells.tolist() for p, cells in enumerate(patches)}}}) + "\n"
        for name, patches in PAGES.items()))
    yield from deployed_runtime(tmp / "data", APP, feed)


def hamming(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.unpackbits((a.astype(np.int8) ^ b.astype(np.int8)).view(np.uint8)).sum())


def test_a_number_left_of_a_tensor(runtime) -> None:
    result = search(yql="select * from page where true", ranking="binary_max_sim", hits=20, timeout="20s",
                    **{"input.query(qtb)": json.dumps({str(t): q.tolist() for t, q in enumerate(QUERY)})})["root"]
    assert "errors" not in result, result["errors"]
    want = {}
    for name, patches in PAGES.items():
        max_sim = sum(max(1 / (1 + hamming(q, p)) for p in patches) for q in QUERY)
        other = float((2 - patches.astype(np.float32)).sum() + (2.0 ** (0 - patches.astype(np.float32) / 64)).sum())
        want[name] = (max_sim, other)
    hits = result["children"]
    assert [h["fields"]["name"] for h in hits] == sorted(want, key=lambda n: -want[n][0])
    for hit in hits:
        max_sim, other = want[hit["fields"]["name"]]
        assert hit["relevance"] == pytest.approx(max_sim, rel=1e-6)
        assert hit["fields"]["matchfeatures"]["max_sim_binary"] == pytest.approx(max_sim, rel=1e-6)
        assert hit["fields"]["matchfeatures"]["minus_and_power"] == pytest.approx(other, rel=1e-5)
