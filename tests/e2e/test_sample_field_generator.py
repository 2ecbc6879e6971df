"""Vespa's sample application field-generator (vespa-engine/sample-apps) on dwell's runtime, with
tests/sample_apps/gguf_llm_standin.py's random-weight llama model for the Phi-3.5-mini GGUF its LocalLLM downloads
from huggingface.co (services.xml's `url=` set to `path=` it, everything else unchanged). It deploys: its schema's
`generate questions_generator` and `generate names_extractor` statements run the container's
LanguageModelFieldGenerator components over the LocalLLM. Feeding data/feed_1.jsonl gets the LocalLLM's own refusal
(400), as Vespa would answer with this model: the stand-in's vocabulary is one token per character, so the prompt
fills the 500 tokens its maxPromptTokens truncates to, and 501 (with <s>) + maxTokens 500 exceed the 1000 tokens per
request its contextOverflowPolicy FAIL allows; Phi-3.5's tokenizer makes about a quarter as many tokens of the same
text. Runs when DWELL_SAMPLE_APPS points at a sample-apps checkout; skipped otherwise (CI cannot reach GitHub)."""
from __future__ import annotations

from pathlib import Path

import pytest
from dwell_client import vespa
from dwell_client.application import deployed_runtime

from llm_stream import standin
from sample_standins import SAMPLE_APPS, with_standins

NAME = "field-generator"
pytestmark = pytest.mark.skipif(SAMPLE_APPS is None or not (SAMPLE_APPS / NAME / "services.xml").exists(),
                                reason="DWELL_SAMPLE_APPS does not point at a vespa-engine/sample-apps checkout")


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory):
    work = tmp_path_factory.mktemp("field-generator-sample")
    copy = with_standins(SAMPLE_APPS / NAME, work, {"Phi-3.5-mini-instruct-Q4_K_M.gguf": "llm.gguf"}, package="")
    standin(str(copy / "standin" / "llm.gguf"))
    for _ in deployed_runtime(work / "data", copy):
        yield copy


def test_it_deploys_and_its_generators_run_the_local_llm_at_feed_time(app: Path) -> None:
    fed = vespa("feed", str(SAMPLE_APPS / NAME / "data" / "feed_1.jsonl"), "--connections", "1", check=False)
    assert ("Context size per request (1000 tokens) is too small to fit the prompt (501) and completion (500) tokens"
            in fed.stdout + fed.stderr), fed.stdout + fed.stderr
