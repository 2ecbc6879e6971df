"""Vespa's MCP server (tests/apps/mcp, issue 18; sample-apps' mcp-server-app serves it the same way): container-disc's
McpRequestHandler on /mcp/ answers an MCP client's JSON-RPC (initialize, tools/list, tools/call of getSchemas and
executeQuery) from the deployed package, the query through the container's search chain: the same hits, relevance and
totalCount as /search/ gives for the same YQL (the tool's result nests them in a group per source), bm25 order checked against a computation here."""
from __future__ import annotations

import json
import math

import pytest
from dwell_client import ROOT, search

from clients import deployed_runtime, mcp_call

APP = ROOT / "tests" / "apps" / "mcp"
BOOKS = {"b1": ("The Hobbit", 1937), "b2": ("The Lord of the Rings", 1954), "b3": ("The Silmarillion", 1977),
         "b4": ("A Wizard of Earthsea", 1968)}


@pytest.fixture(scope="module")
def runtime(tmp_path_factory: pytest.TempPathFactory):
    tmp = tmp_path_factory.mktemp("dwell-mcp")
    feed = tmp / "feed.jsonl"
    feed.write_text("".join(json.dumps({"put": f"id:test:book::{name}", "fields": {"title": title, "year": year}}) + "\n"
                            for name, (title, year) in BOOKS.items()))
    yield from deployed_runtime(tmp / "data", APP, feed)



def test_initialize_and_tools(runtime) -> None:
    assert mcp_call("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                               "clientInfo": {"name": "dwell-e2e", "version": "1"}})["serverInfo"]["name"] == "VespaMCP"
    assert {t["name"] for t in mcp_call("tools/list", request_id=2)["tools"]} == {"getSchemas", "executeQuery", "readQueryExamples"}


def test_get_schemas_describes_the_package(runtime) -> None:
    schemas = json.loads(mcp_call("tools/call", {"name": "getSchemas", "arguments": {}}, 3)["content"][0]["text"])
    fields = schemas["book"]["fields"]
    assert fields["title"]["isIndex"] is True and fields["year"]["isAttribute"] is True


def test_execute_query_answers_as_search(runtime) -> None:
    yql = 'select * from book where title contains "the"'
    result = mcp_call("tools/call", {"name": "executeQuery",
                                 "arguments": {"yql": yql, "parameters": {"ranking": "bm25", "timeout": "20s"}}}, 4)
    assert result.get("isError") is False, result
    root = json.loads(result["content"][0]["text"])["root"]
    assert "errors" not in root, root["errors"]
    expected = search(yql=yql, ranking="bm25", timeout="20s")["root"]

    def hits(r: dict) -> list[tuple[str, float]]:
        """The hits, also where the MCP tool's result nests them in a group per source (source:books)."""
        flat = [h for c in r["children"] for h in (c["children"] if c["id"].startswith("source:") else [c])]
        return [(h["fields"]["documentid"], h["relevance"]) for h in flat]
    assert hits(root) == hits(expected)
    # bm25(title) of 'the' (k1 1.2, b 0.75, its occurrences in the title): three of four titles hold it
    with_the = {n: t for n, (t, _) in BOOKS.items() if "the" in t.lower().split()}
    avg = sum(len(t.split()) for t, _ in BOOKS.values()) / len(BOOKS)
    idf = math.log(1 + (len(BOOKS) - len(with_the) + 0.5) / (len(with_the) + 0.5))
    def bm25(title: str) -> float:
        tf = title.lower().split().count("the")
        return idf * tf * 2.2 / (tf + 1.2 * (0.25 + 0.75 * len(title.split()) / avg))
    want = {f"id:test:book::{n}": bm25(t) for n, t in with_the.items()}
    # The Hobbit and The Silmarillion tie (one 'the' in two words): the order among equal scores is the engine's
    found = hits(root)
    assert sorted(d for d, _ in found) == sorted(want)
    for doc, relevance in found:
        assert relevance == pytest.approx(want[doc], rel=1e-6)
    assert [r for _, r in found] == sorted((r for _, r in found), reverse=True)
    assert found[0][0] == max(want, key=want.get)
