"""Vespa's sample application examples/mcp-server-app (vespa-engine/sample-apps) on dwell's runtime, unchanged: it
deploys (container-disc's McpRequestHandler on /mcp/ and container-search's McpSearchSpecProvider, on the MCP SDK the
runtime now carries, as Vespa's container-disc bundle embeds it), takes dataset/*.jsonl (30 candidates, 75 jobs) with
`vespa feed`, and answers an MCP client's JSON-RPC as the README's clients would call it: initialize, tools/list
(getSchemas, executeQuery, readQueryExamples), getSchemas with both schemas and their fields, and executeQuery with the
jobs whose title contains "engineer", the same hits as the same YQL through /search/. Runs when DWELL_SAMPLE_APPS
points at a sample-apps checkout; skipped otherwise (CI cannot reach GitHub)."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from dwell_client import search, vespa
from dwell_client.application import deployed_runtime

from clients import mcp_call
from sample_standins import SAMPLE_APPS

EXAMPLE = SAMPLE_APPS / "examples" / "mcp-server-app" if SAMPLE_APPS else None

pytestmark = pytest.mark.skipif(EXAMPLE is None or not (EXAMPLE / "app" / "services.xml").exists(),
                                reason="DWELL_SAMPLE_APPS does not point at a vespa-engine/sample-apps checkout")

ENGINEERS = 'select * from job where title contains "engineer"'


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory):
    work = tmp_path_factory.mktemp("mcp-server-app")
    copy = shutil.copytree(EXAMPLE / "app", work / "app")
    for _ in deployed_runtime(work / "data", copy):
        for name in ("candidates", "jobs"):
            fed = vespa("feed", str(EXAMPLE / "dataset" / f"{name}.jsonl"), check=False)
            assert fed.returncode == 0, fed.stdout + fed.stderr
        yield copy



def test_an_mcp_client_initializes_and_lists_the_tools(app: Path) -> None:
    initialized = mcp_call("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                      "clientInfo": {"name": "dwell-e2e", "version": "1"}})
    assert initialized["serverInfo"]["name"] == "VespaMCP"
    assert "tools" in initialized["capabilities"]
    tools = {tool["name"] for tool in mcp_call("tools/list", request_id=2)["tools"]}
    assert tools == {"getSchemas", "executeQuery", "readQueryExamples"}


def test_get_schemas_answers_both_schemas(app: Path) -> None:
    result = mcp_call("tools/call", {"name": "getSchemas", "arguments": {}}, request_id=3)
    schemas = json.loads(result["content"][0]["text"])
    assert {"candidate", "job"} <= set(schemas)
    assert schemas["job"]["fields"]["title"]["isIndex"] is True
    assert schemas["candidate"]["fields"]["skills"]["type"] == "tensor<float>(skill{})"


def test_execute_query_answers_as_search_does(app: Path) -> None:
    expected = search(yql=ENGINEERS, hits=10, timeout="20s")["root"]
    result = mcp_call("tools/call", {"name": "executeQuery",
                                 "arguments": {"yql": ENGINEERS, "parameters": {"hits": 10, "timeout": "20s"}}}, request_id=4)
    assert result.get("isError") is False, result
    root = json.loads(result["content"][0]["text"])["root"]
    assert "errors" not in root, root["errors"]
    assert root["fields"]["totalCount"] == expected["fields"]["totalCount"] > 0

    def hits(r: dict) -> list[tuple[str, float]]:
        flat = [h for c in r["children"] for h in (c.get("children") or [c])]
        return [(h["fields"]["documentid"], h["relevance"]) for h in flat]
    assert sorted(hits(root)) == sorted(hits(expected))
