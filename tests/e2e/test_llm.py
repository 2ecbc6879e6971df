"""A local LLM (tests/apps/llm, issue 18): Vespa's LocalLLM (llama.cpp through jllama) with a GGUF model by path,
tests/sample_apps/gguf_llm_standin.py's random-weight llama model written into the package at test time, and a chain
whose RAGSearcher streams the model's completion of a prompt made of the hits; a `generate` field written at feed time
by a LanguageModelFieldGenerator over that LLM (its completion of the prompt template with the text). The tokens are
checked against the stand-in's greedy completion of that prompt computed in numpy: exactly at temperature 0, and at the
default temperature each token within a small margin of the greedy choice (the stand-in's logits are far apart). The
prompt comes as the stream's first event with traceLevel=1, as on Vespa."""
from __future__ import annotations

import json
import re
import shutil

import pytest
from dwell_client import ROOT, Runtime, search

from clients import deployed_runtime
from llm_stream import greedy_completion, shortfalls, sse_events, standin

APP = ROOT / "tests" / "apps" / "llm"
# How far below the best logit a token sampled at the default temperature (0.8) may be: the logits spread about 140, so
# a token this close is the greedy one or all but tied with it (llama.cpp's float16 attention moves logits too)
LENIENT = 5.0
NOTES = {"n1": "The Manhattan Project produced the first nuclear weapons during World War II.",
         "n2": "Hanford was selected as a site for the Manhattan Project B Reactor.",
         "n3": "The Columbia River is the largest river flowing into the Pacific Ocean."}


@pytest.fixture(scope="module")
def runtime(tmp_path_factory: pytest.TempPathFactory):
    tmp = tmp_path_factory.mktemp("dwell-llm")
    package = shutil.copytree(APP, tmp / "llm")
    (package / "models").mkdir()
    standin(str(package / "models" / "llm.gguf"))
    feed = tmp / "feed.jsonl"
    feed.write_text("".join(json.dumps({"put": f"id:test:note::{name}", "fields": {"text": text}}) + "\n"
                            for name, text in NOTES.items()))
    yield from deployed_runtime(tmp / "data", package, feed)


def test_the_rag_chain_streams_the_models_greedy_completion_of_the_prompt_of_the_hits(runtime: Runtime) -> None:
    events = sse_events(query="manhattan project", hits=2, searchChain="rag", llm__temperature=0, traceLevel=1,
                         timeout="60s")
    names = [name for name, _ in events]
    assert names[0] == "prompt" and names[-2:] == ["stats", "end"] and "error" not in names, events
    prompt = events[0][1]["prompt"]
    hits = search(query="manhattan project", hits=2)["root"]["children"]
    assert len(hits) == 2
    for hit in hits:
        assert hit["fields"]["text"] in prompt
    assert prompt.endswith("manhattan project")
    tokens = [data["token"] for name, data in events if name == "token"]
    assert len([t for t in tokens if t]) == 12  # the package's maxTokens
    assert "".join(tokens) == greedy_completion(prompt, 12)


def test_llm_npredict_and_the_default_temperature(runtime: Runtime) -> None:
    events = sse_events(query="columbia river", searchChain="rag", llm__npredict=5, traceLevel=1, timeout="60s")
    prompt = events[0][1]["prompt"]
    assert NOTES["n3"] in prompt
    tokens = "".join(data["token"] for name, data in events if name == "token")
    assert len(tokens) == 5 and max(shortfalls(prompt, tokens)) < LENIENT, tokens


def test_generate_writes_the_field_generators_completion_at_feed_time(runtime: Runtime) -> None:
    hits = search(yql="select * from note where true", hits=10)["root"]["children"]
    assert len(hits) == len(NOTES)
    for hit in hits:
        text = hit["fields"]["text"]
        # LanguageModelFieldGenerator's prompt: its template with {input} the text; 12 tokens, the LocalLLM's maxTokens
        # sampled at the default temperature: each token the greedy one but where the best two are near (LENIENT)
        generated = hit["fields"]["summarized"]
        assert len(generated) == 12 and max(shortfalls("Summarize: " + text, generated)) < LENIENT, (text, generated)
    word = max(re.findall(r"[A-Za-z]+", hits[0]["fields"]["summarized"]), key=len)  # the generated field is indexed
    found = search(yql=f'select * from note where summarized contains "{word}"')["root"].get("children", [])
    assert hits[0]["id"] in [hit["id"] for hit in found], (word, found)

