"""Vespa's sample application commerce-product-ranking (vespa-engine/sample-apps) on dwell's runtime, with stand-ins
for the models its build downloads from the internet (tests/sample_apps/commerce_product_ranking.py): it deploys, its
system test passes with `vespa test`, and every rank profile answers a query with its match-features. Runs when
DWELL_SAMPLE_APPS points at a sample-apps checkout; skipped otherwise (CI cannot reach GitHub)."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from dwell_client import ROOT, search, vespa
from dwell_client.application import deployed_runtime

SAMPLE_APPS = Path(os.environ["DWELL_SAMPLE_APPS"]) if os.environ.get("DWELL_SAMPLE_APPS") else None
APP = SAMPLE_APPS / "commerce-product-ranking" / "application" if SAMPLE_APPS else None
PROFILES = ["default", "random", "bm25", "nativeRank", "fieldMatch", "semantic-title", "semantic-description", "cross-title",
            "features", "gbdt-lightgbm-simple", "gbdt-xgboost-simple", "gbdt-lightgbm-full", "gbdt-xgboost-full", "ensemble"]

pytestmark = pytest.mark.skipif(APP is None or not (APP / "services.xml").exists(),
                                reason="DWELL_SAMPLE_APPS does not point at a vespa-engine/sample-apps checkout")


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory):
    work = tmp_path_factory.mktemp("commerce")
    copy = shutil.copytree(APP, work / "application")
    subprocess.run([sys.executable, str(ROOT / "tests" / "sample_apps" / "commerce_product_ranking.py"), str(copy)], check=True)
    for _ in deployed_runtime(work / "data", copy):
        yield copy


def test_its_system_test_passes_with_vespa_test(app: Path) -> None:
    result = vespa("test", str(app / "tests" / "system-test"), check=False)
    assert result.returncode == 0, result.stdout + result.stderr


def test_every_profile_answers_with_its_match_features(app: Path) -> None:
    for i, title in enumerate(["bmw 325i radio oem navigation", "oem radio for bmw cars"]):
        put = vespa("document", "put", f"id:commerce:product::t{i}", "--data",
                    f'{{"fields": {{"id": "t{i}", "title": "{title}", "description": "a radio", "brand": "bmw"}}}}', check=False)
        assert put.returncode == 0, put.stderr + put.stdout
    for profile in PROFILES:
        # select id, as its system test: title has bolding, juniper's highlighting, which this engine refuses by name
        result = search(yql="select id from product where userQuery()", query="bmw radio oem", ranking=profile,
                        **{"input.query(q_title)": "embed(title, @query)", "input.query(q_description)": "embed(description, @query)",
                           "input.query(query_tokens)": "embed(tokenizer, @query)"})
        assert "errors" not in result["root"], (profile, result["root"].get("errors"))
        hits = result["root"].get("children", [])
        assert len(hits) == 2, profile
        if profile in ("features",) or profile.startswith("gbdt") or profile == "ensemble":
            features = hits[0]["fields"]["matchfeatures"]
            assert features["queryTermCount"] == 3.0
            assert features["fieldMatch(title).matches"] > 0
            assert "cross_encoder" in features and "textSimilarity(title).proximity" in features
