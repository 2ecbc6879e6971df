"""Vespa's sample application retrieval-augmented-generation (vespa-engine/sample-apps) on dwell's runtime, with a
stand-in for the GGUF model its LocalLLM downloads from data.vespa-cloud.com (llama-3.2-1b-instruct, not reachable
here): tests/sample_apps/gguf_llm_standin.py's random-weight llama model, services.xml's `url=` set to `path=` it,
everything else unchanged. It deploys, feeds ext/docs.jsonl with `vespa feed` and answers the README's queries with
the vespa CLI: the retrieval query and the `local` chain's event stream (its prompt, made of the five hits, then the
generated tokens: each the stand-in's greedy choice, computed in numpy, up to float16 rounding). Runs when DWELL_SAMPLE_APPS
points at a sample-apps checkout; skipped otherwise (CI cannot reach GitHub)."""
from __future__ import annotations

from pathlib import Path

import pytest
from dwell_client import Runtime, vespa
from dwell_client.application import deployed_runtime

from llm_stream import greedy_completion, shortfalls, sse_events, standin
from sample_standins import SAMPLE_APPS, with_standins

NAME = "retrieval-augmented-generation"
pytestmark = pytest.mark.skipif(SAMPLE_APPS is None or not (SAMPLE_APPS / NAME / "services.xml").exists(),
                                reason="DWELL_SAMPLE_APPS does not point at a vespa-engine/sample-apps checkout")
QUESTION = "what was the manhattan project?"


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory):
    work = tmp_path_factory.mktemp("rag-sample")
    copy = with_standins(SAMPLE_APPS / NAME, work, {"llama-3.2-1b-instruct-q8_0.gguf": "llm.gguf"}, package="")
    standin(str(copy / "standin" / "llm.gguf"))
    for _ in deployed_runtime(work / "data", copy, SAMPLE_APPS / NAME / "ext" / "docs.jsonl"):
        yield copy


def test_the_readme_retrieval_query(app: Path) -> None:
    done = vespa("query", f"query={QUESTION}", "hits=5", check=False)
    assert done.returncode == 0, done.stderr
    assert "Manhattan" in done.stdout  # the README's data-test-assert-contains


def test_the_readme_local_generation_query_streams_tokens(app: Path) -> None:
    done = vespa("query", "--timeout", "120", f"query={QUESTION}", "hits=5", "searchChain=local", "format=sse",
                 "traceLevel=1", check=False)
    assert done.returncode == 0, done.stderr
    assert "Manhattan" in done.stdout  # the README's data-test-assert-contains (the prompt event)
    generated = done.stdout.split("event: stats")[0].rsplit("\n}\n", 1)[1].strip()
    assert len(generated) > 100, done.stdout[-2000:]  # up to the LocalLLM's default maxTokens, 512
    assert "Generated tokens: " in done.stdout


def test_the_local_chain_streams_the_models_greedy_completion(app: Path) -> None:
    events = sse_events(query=QUESTION, hits=5, searchChain="local", traceLevel=1, llm__temperature=0,
                        llm__npredict=16, timeout="120s")
    assert events[0][0] == "prompt" and "error" not in [name for name, _ in events], events
    prompt = events[0][1]["prompt"]
    assert prompt.count("document [") == 5 and prompt.endswith(QUESTION)
    tokens = "".join(data["token"] for name, data in events if name == "token")
    assert len(tokens) == 16 and tokens[:3] == greedy_completion(prompt, 3)
    # each token the greedy choice given those before it, up to llama.cpp's float16 attention over this 2,039-token
    # prompt (a near tie, 0.9 apart, flips at the fourth; the logits' spread is about 140)
    assert max(shortfalls(prompt, tokens)) < 2.5, tokens
