"""Vespa's sample application examples/predicate-fields (vespa-engine/sample-apps) on dwell's runtime, as its README
runs it with the vespa CLI: deployed as Maven built it (its Java searcher, SubqueriesSearcher, in the bundle), fed with
users.jsonl, one user updated with `vespa document`, each README query answered with the users the README says, then the
ranking data fed and the two ranked queries ordered as the README says (cpc; cpc times closeness to the query's
profile, computed here with numpy). Runs when DWELL_SAMPLE_APPS points at a sample-apps checkout whose
examples/predicate-fields was built with `mvn package`; skipped otherwise (CI cannot reach GitHub)."""
from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import numpy as np
import pytest
from dwell_client import vespa
from dwell_client.application import deployed_runtime

SAMPLE_APPS = Path(os.environ["DWELL_SAMPLE_APPS"]) if os.environ.get("DWELL_SAMPLE_APPS") else None
EXAMPLE = SAMPLE_APPS / "examples" / "predicate-fields" if SAMPLE_APPS else None
APP = EXAMPLE / "target" / "application" if EXAMPLE else None

pytestmark = pytest.mark.skipif(APP is None or not (APP / "services.xml").exists(),
                                reason="DWELL_SAMPLE_APPS has no examples/predicate-fields built with mvn package")

RONALD = 'select * from sources * where predicate(target, {"gender":["male"]}, {"age":32, "income": 3000})'
POORER = 'select * from sources * where predicate(target, {"gender":["male"]}, {"age":32, "income": 100})'
JON = 'select * from sources * where predicate(target, {"gender":["male"], "hobby":["sports"]}, {"age":32, "income": 100})'
JON_MEN = JON + ' and gender contains "male"'
PROFILE = [0.10958350208504841, 0.4642735718813399, 0.7250558657395969, 0.1689946673589695]
NEAREST = ('select documentid from sources * where (predicate(target, {"gender":["male"]}, {"age":32, "income": 3000})) '
           'and ({targetHits:10}nearestNeighbor(profile,profile))')


@pytest.fixture(scope="module")
def example(tmp_path_factory: pytest.TempPathFactory):
    work = tmp_path_factory.mktemp("predicate-fields")
    for name in ("users.jsonl", "user.json", "users_with_ranking_data.jsonl"):
        shutil.copy(EXAMPLE / name, work / name)
    for _ in deployed_runtime(work / "data", APP, work / "users.jsonl"):
        yield work


def query(yql: str, *parameters: str) -> list[dict]:
    result = vespa("query", f"yql={yql}", *parameters, check=False)
    assert result.returncode == 0, result.stdout + result.stderr
    root = json.loads(result.stdout)["root"]
    assert "errors" not in root, root["errors"]
    hits = root.get("children", [])
    assert root["fields"]["totalCount"] == len(hits)
    return hits


def users(hits: list[dict]) -> list[str]:
    return [hit["id"].split("::")[1] for hit in hits]


def test_the_readme_queries_find_the_users_it_names(example: Path) -> None:
    updated = vespa("document", "-v", str(example / "user.json"), check=False)
    assert updated.returncode == 0, updated.stdout + updated.stderr
    assert sorted(users(query(RONALD))) == ["alice", "karen"]  # "will retrieve both Karen and Alice"
    assert users(query(POORER)) == ["karen"]  # "Alice will no longer match"
    assert sorted(users(query(JON))) == ["bob", "karen"]  # "The query returns both Bob and Karen"
    assert users(query(JON_MEN)) == ["bob"]
    for hit in query(RONALD):
        # SubqueriesSearcher's field: subqueries(target).msb << 32 | .lsb of the summary features, all 64 subqueries
        assert hit["fields"]["subqueries(target)"] == -1, hit
        assert "summaryfeatures" not in hit["fields"]


def test_ranked_by_cpc_then_by_closeness_to_the_profile(example: Path) -> None:
    fed = vespa("feed", str(example / "users_with_ranking_data.jsonl"), check=False)
    assert fed.returncode == 0, fed.stdout + fed.stderr
    data = {json.loads(line)["put"].split("::")[1]: json.loads(line)["fields"]
            for line in (example / "users_with_ranking_data.jsonl").read_text().splitlines() if line.strip()}
    cpc = {user: float(np.float32(fields["cpc"])) for user, fields in data.items()}

    hits = query(RONALD)
    assert users(hits) == ["karen", "alice"]  # "Karen is ranked higher because karen has paid more"
    assert [hit["relevance"] for hit in hits] == pytest.approx([cpc["karen"], cpc["alice"]], rel=1e-6)

    hits = query(NEAREST, f"input.query(profile)={PROFILE}")
    assert users(hits) == ["alice", "karen"]  # "Alice is ranked higher than Karen"
    query_vector = np.array(PROFILE, dtype=np.float32)
    for hit in hits:
        user = users([hit])[0]
        vector = np.array(data[user]["profile"]["values"], dtype=np.float32)
        closeness = 1 / (1 + float(np.linalg.norm(vector.astype(np.float64) - query_vector.astype(np.float64))))
        assert hit["relevance"] == pytest.approx(cpc[user] * closeness, rel=1e-5), user
