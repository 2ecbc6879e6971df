"""Vespa's sample application album-recommendation (vespa-engine/sample-apps), unchanged, on
dwell's runtime: it deploys, its feed goes in, its queries rank as its schema says, and its system
test passes with `vespa test`. sample-apps is not on any package registry and its code is not
copied here: set DWELL_SAMPLE_APPS to a checkout (git clone https://github.com/vespa-engine/sample-apps)
to run this; it is skipped otherwise (CI cannot reach GitHub).

The current sample-apps keep no system test for album-recommendation (it was moved out in
23720f23, "Remove tests, moved to other repo"); from a git checkout the test takes the last one,
album-recommendation/tests/system-test/feed-and-search-test.json, from the commit before."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
from dwell_client import search, vespa
from dwell_client.application import deployed_runtime

SAMPLE_APPS = Path(os.environ["DWELL_SAMPLE_APPS"]) if os.environ.get("DWELL_SAMPLE_APPS") else None
ALBUMS = SAMPLE_APPS / "album-recommendation" if SAMPLE_APPS else None
LAST_SYSTEM_TEST = ("23720f23^", "album-recommendation/tests/system-test/feed-and-search-test.json")

pytestmark = pytest.mark.skipif(SAMPLE_APPS is None or not (ALBUMS / "app" / "services.xml").exists(),
                                reason="DWELL_SAMPLE_APPS does not point at a vespa-engine/sample-apps checkout")


def system_tests(into: Path) -> Path | None:
    """album-recommendation's system tests: the checkout's own, or the last ones in its git history."""
    for candidate in (ALBUMS / "app" / "tests" / "system-test", ALBUMS / "tests" / "system-test"):
        if candidate.is_dir():
            return candidate
    revision, path = LAST_SYSTEM_TEST
    shown = subprocess.run(["git", "-C", str(SAMPLE_APPS), "show", f"{revision}:{path}"], capture_output=True, text=True)
    if shown.returncode != 0:
        return None
    into.mkdir(parents=True, exist_ok=True)
    (into / Path(path).name).write_text(shown.stdout)
    return into


@pytest.fixture(scope="module")
def albums(tmp_path_factory: pytest.TempPathFactory):
    work = tmp_path_factory.mktemp("albums")
    app = shutil.copytree(ALBUMS / "app", work / "app")
    for _ in deployed_runtime(work / "data", app):
        yield work


# Verified against sample-apps 529d5240 (2026-08-20): both tests pass.


def documents() -> list[dict]:
    return [json.loads(line) for line in (ALBUMS / "dataset" / "documents.jsonl").read_text().splitlines() if line.strip()]


def test_its_feed_goes_in_and_its_queries_rank_as_its_schema_says(albums: Path) -> None:
    fed = vespa("feed", str(ALBUMS / "dataset" / "documents.jsonl"), check=False)
    assert fed.returncode == 0, fed.stderr + fed.stdout
    albums_fed = documents()
    assert json.loads(fed.stdout)["feeder.ok.count"] == len(albums_fed)
    # the README's text query
    result = search(yql="select * from music where album contains 'head'", language="en")
    assert [h["fields"]["album"] for h in result["root"]["children"]] == ["A Head Full of Dreams"]
    # rank_albums: bm25(album) + 0.25 * sum(query(user_profile) * attribute(category_scores));
    # with no query terms bm25 is 0, so the score is the weighted category sum, computed here with numpy
    profile = {"pop": 0.8, "rock": 0.2, "jazz": 0.1}
    result = search(yql="select * from music where true", ranking="rank_albums", hits=10,
                    **{"input.query(user_profile)": "{" + ",".join(f"{{cat:{k}}}:{v}" for k, v in profile.items()) + "}"})
    got = {h["fields"]["album"]: h["relevance"] for h in result["root"]["children"]}
    expected = {d["fields"]["album"]: 0.25 * float(np.dot([profile[c] for c in sorted(d["fields"]["category_scores"])],
                                                          [d["fields"]["category_scores"][c] for c in sorted(d["fields"]["category_scores"])]))
                for d in albums_fed}
    assert set(got) == set(expected)
    for album, score in expected.items():
        assert got[album] == pytest.approx(score, rel=1e-5), album
    assert [h["fields"]["album"] for h in result["root"]["children"]] == sorted(expected, key=lambda a: -expected[a])


def test_its_system_test_passes_with_vespa_test(albums: Path) -> None:
    tests = system_tests(albums / "system-test")
    if tests is None:
        pytest.skip("no album-recommendation system test in this checkout or its history")
    result = vespa("test", str(tests), check=False)
    assert result.returncode == 0, result.stdout + result.stderr
