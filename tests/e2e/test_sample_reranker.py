"""Vespa's sample application examples/reranker (vespa-engine/sample-apps) on dwell's runtime: a stateless container
whose searchers send each query on to another Vespa application's endpoint (VespaSearcher, with the request's
`Authorization: Bearer` header) and rerank the hits it gets back with an XGBoost model over their summary-features
(RerankingSearcher, `<model-evaluation/>`, models/xgboost_model_example.json).

The application it reranks is tests/apps/rerank-target (album-recommendation's music with the `firstPhase` profile
the reranker's config names, its summary-features the model's fieldMatch features), fed album-recommendation's
dataset/documents.jsonl, in a runtime of its own bound to 0.0.0.0. The reranker runs in a second runtime in a
network namespace of its own (`unshare -n`), joined to the first by a veth pair (10.9.0.1, 10.9.0.2), so both have
their own ports as two Vespa applications on two hosts would. The reranker is built as its README says (`mvn
package`, its 4 unit tests included) with cloud-tenant-base pinned to 8.700.24, services.xml's `[your endpoint]`
set to the target (README step 3), and one build change: Vespa 8.700.24's parent pom compiles with -Werror and its
Jackson deprecates JsonNode.fields(), which ResultReader calls, so the compiler's showDeprecation is turned off.

The README's two requests answer with the target's hits for `album contains 'to'`; each relevance is the XGBoost
model (its trees walked in Python, `feature < split_condition` goes `yes`) over the hit's summary-features, which are
the target's own for the same query; the hits come in that relevance's order. A request without the header gets
the searcher's error. Needs a sample-apps checkout (DWELL_SAMPLE_APPS), Maven with the artifacts in ~/.m2, and
root in a network namespace (as these tests run: `unshare -n`); skipped otherwise."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
import urllib.parse
import urllib.request
from pathlib import Path

import pytest
from dwell_client import ROOT
from dwell_client.application import deployed_runtime
from dwell_client.cli import vespa_binary

from sample_standins import SAMPLE_APPS

APP = SAMPLE_APPS / "examples" / "reranker" if SAMPLE_APPS else None
pytestmark = pytest.mark.skipif(APP is None or not (APP / "pom.xml").exists() or shutil.which("mvn") is None
                                or os.geteuid() != 0,
                                reason="needs DWELL_SAMPLE_APPS (a sample-apps checkout), Maven and root")

TARGET, RERANKER = "10.9.0.1", "10.9.0.2"


def own_network_namespace() -> bool:
    """Whether this process runs in a network namespace of its own, as `unshare -n` makes it: nothing but loopback.
    The veth pair is made only there, never on the machine's own network."""
    links = subprocess.run(["ip", "-o", "link", "show"], capture_output=True, text=True)
    names = {line.split(":")[1].strip().split("@")[0] for line in links.stdout.splitlines() if ":" in line}
    return links.returncode == 0 and names == {"lo"}
TOKEN = {"Authorization": "Bearer a-token"}
YQL = "select * from sources * where album contains 'to'"


def built(work: Path) -> Path:
    copy = shutil.copytree(APP, work / "reranker")
    pom = (copy / "pom.xml").read_text()
    pom = pom.replace("<version>[8,9)</version>", "<version>8.700.24</version>")
    pom = pom.replace("</dependencies>", "</dependencies>\n    <build><plugins><plugin>"
                      "<groupId>org.apache.maven.plugins</groupId><artifactId>maven-compiler-plugin</artifactId>"
                      "<configuration><showDeprecation>false</showDeprecation></configuration></plugin></plugins></build>", 1)
    (copy / "pom.xml").write_text(pom)
    services = copy / "src" / "main" / "application" / "services.xml"
    services.write_text(services.read_text().replace("[your endpoint]", f"http://{TARGET}:8080"))
    done = subprocess.run(["mvn", "-q", "-o", "package", "-DvespaCompilerArgs.xlint=-Xlint:all,-deprecation"],
                          cwd=copy, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout[-5000:] + done.stderr[-5000:]
    return copy / "target" / "application"


def in_namespace(pid: int, *command: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(["nsenter", "-t", str(pid), "-n", *command], capture_output=True, text=True, cwd=ROOT,
                          env=env)


@pytest.fixture(scope="module")
def reranker(tmp_path_factory: pytest.TempPathFactory):
    if not own_network_namespace():
        pytest.skip("run it in a network namespace of its own (unshare -n): it joins two with a veth pair")
    work = tmp_path_factory.mktemp("reranker-sample")
    application = built(work)
    for _ in deployed_runtime(work / "target-data", ROOT / "tests" / "apps" / "rerank-target",
                              SAMPLE_APPS / "album-recommendation" / "dataset" / "documents.jsonl",
                              start_args=("--bind", "0.0.0.0")):
        other = subprocess.Popen(["unshare", "-n", "sleep", "infinity"])
        data = work / "reranker-data"
        env = {**os.environ, "DWELL_DATA": str(data)}
        try:
            time.sleep(0.5)
            for command in (["ip", "link", "add", "va", "type", "veth", "peer", "name", "vb"],
                            ["ip", "link", "set", "vb", "netns", str(other.pid)],
                            ["ip", "addr", "add", f"{TARGET}/24", "dev", "va"], ["ip", "link", "set", "va", "up"]):
                done = subprocess.run(command, capture_output=True, text=True)
                if done.returncode != 0:
                    pytest.skip(f"cannot join two network namespaces here: {done.stderr}")
            for command in (["ip", "link", "set", "lo", "up"], ["ip", "addr", "add", f"{RERANKER}/24", "dev", "vb"],
                            ["ip", "link", "set", "vb", "up"]):
                assert in_namespace(other.pid, *command).returncode == 0
            started = in_namespace(other.pid, str(ROOT / "dwell"), "start", "--bind", "0.0.0.0", env=env)
            assert started.returncode == 0, started.stderr
            deployed = in_namespace(other.pid, vespa_binary(), "deploy", "--wait", "300", str(application),
                                    "--target", "local", env=env)
            assert deployed.returncode == 0, deployed.stdout + deployed.stderr
            # the target's first queries after its start can pass the default 500 ms on this loaded machine, and the
            # reranker's ResultReader fails on hits whose summaries were not filled in time: warm it up first
            for _ in range(3):
                assert search(TARGET, {}, yql=YQL, ranking="firstPhase", timeout="20s")[0] == 200
            yield
        finally:
            subprocess.run([str(ROOT / "dwell"), "stop"], env=env, cwd=ROOT, check=False)
            other.kill()
            other.wait()


def search(host: str, headers: dict[str, str], **parameters) -> tuple[int, dict]:
    url = f"http://{host}:8080/search/?" + urllib.parse.urlencode(parameters)
    request = urllib.request.Request(url, headers=headers)
    for _ in range(60):  # the container comes up a moment after the deploy
        try:
            with urllib.request.urlopen(request, timeout=30) as reply:
                return reply.status, json.load(reply)
        except urllib.error.HTTPError as e:
            if e.code != 503:
                return e.code, json.load(e)
        except urllib.error.URLError:
            pass
        time.sleep(1)
    raise TimeoutError(url)


def xgboost(features: dict[str, float]) -> float:
    """The model's trees, summed, as Vespa's XGBoost import evaluates them."""
    trees = json.loads((APP / "src" / "main" / "application" / "models" / "xgboost_model_example.json").read_text())

    def walk(node: dict) -> float:
        if "leaf" in node:
            return node["leaf"]
        value = features.get(node["split"])
        child = node["missing"] if value is None else node["yes"] if value < node["split_condition"] else node["no"]
        return walk(next(c for c in node["children"] if c["nodeid"] == child))
    return sum(walk(tree) for tree in trees)


@pytest.mark.parametrize("parameters", [{}, {"rerank.model": "xgboost_model_example", "rerank.hits": 100,
                                             "profile": "firstPhase"}], ids=["minimal", "all-parameters"])
@pytest.mark.parametrize("yql", [YQL, "select * from sources * where album contains 'love' or artist contains 'metallica'"])
def test_the_readme_requests_rerank_the_targets_hits(reranker, parameters: dict, yql: str) -> None:
    status, reply = search(RERANKER, TOKEN, yql=yql, **parameters)
    assert status == 200, json.dumps(reply)[:3000]
    result = reply["root"]
    assert "errors" not in result, result["errors"]
    status, target = search(TARGET, {}, yql=yql, ranking="firstPhase", hits=100)
    assert status == 200, target
    features = {h["id"]: h["fields"]["summaryfeatures"] for h in target["root"]["children"]}
    hits = result["children"]
    assert sorted(h["id"] for h in hits) == sorted(features) and hits
    for hit in hits:
        assert hit["fields"]["summaryfeatures"] == pytest.approx(features[hit["id"]])
        assert hit["relevance"] == pytest.approx(xgboost(features[hit["id"]]), rel=1e-12)
    assert [h["relevance"] for h in hits] == sorted((h["relevance"] for h in hits), reverse=True)


def test_a_request_without_the_token_gets_the_searchers_error(reranker) -> None:
    status, reply = search(RERANKER, {}, yql=YQL)
    assert "Request must have an 'Authorization' header" in json.dumps(reply), (status, reply)
