"""Vespa's sample application field-generator (vespa-engine/sample-apps) on dwell's runtime, with
tests/sample_apps/gguf_llm_standin.py's random-weight llama model (its subword vocabulary) for the Phi-3.5-mini GGUF its
LocalLLM downloads from huggingface.co (services.xml's `url=` set to `path=` it, everything else unchanged). Its
schema's `generate questions_generator` and `generate names_extractor` statements run the container's
LanguageModelFieldGenerator components over the LocalLLM, with their default JSON response format: llama.cpp's grammar
of the field's JSON schema ({"passage.names": [strings]}) holds the model to it. The stand-in's SentencePiece pieces
make the names_extractor prompts of data/feed_10.jsonl 324-408 tokens, within the 500 of maxPromptTokens (with the
char variant's vocabulary each was truncated to 501 and refused by the LocalLLM's context check, contextOverflowPolicy
FAIL). The README's feed is accepted and its query answers the 10 passages, each generated field the stand-in's greedy
completion of the field's prompt under that grammar, computed in numpy; a completion that does not close its JSON
within maxTokens (500) is discarded (invalidResponseFormatPolicy DISCARD, the default) and the field left out, as on
Vespa. Runs when DWELL_SAMPLE_APPS points at a sample-apps checkout; skipped otherwise (CI cannot reach GitHub)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from dwell_client import vespa
from dwell_client.application import deployed_runtime

from llm_stream import json_completion, standin
from sample_standins import SAMPLE_APPS, with_standins

NAME = "field-generator"
pytestmark = pytest.mark.skipif(SAMPLE_APPS is None or not (SAMPLE_APPS / NAME / "services.xml").exists(),
                                reason="DWELL_SAMPLE_APPS does not point at a vespa-engine/sample-apps checkout")


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory):
    work = tmp_path_factory.mktemp("field-generator-sample")
    copy = with_standins(SAMPLE_APPS / NAME, work, {"Phi-3.5-mini-instruct-Q4_K_M.gguf": "llm.gguf"}, package="")
    standin(str(copy / "standin" / "llm.gguf"), "subword")
    for _ in deployed_runtime(work / "data", copy):
        yield copy


def expected(prompt: str, key: str) -> list[str] | None:
    """The field's value from the stand-in's completion: its list, or None where the JSON does not close (discarded)."""
    completion = json_completion(prompt, key)
    try:
        return json.loads(completion)[key]
    except json.JSONDecodeError:
        return None


def test_the_readmes_feed_and_query_answer_the_generated_fields(app: Path) -> None:
    fed = vespa("feed", str(SAMPLE_APPS / NAME / "data" / "feed_10.jsonl"), "--connections", "1", check=False)
    assert fed.returncode == 0, fed.stdout + fed.stderr
    summary = json.loads(fed.stdout)
    assert summary["feeder.ok.count"] == 10 and summary.get("feeder.error.count", 0) == 0, summary
    answered = vespa("query", "yql=select * from passage where true", "hits=10", "ranking=enriched", check=False)
    assert answered.returncode == 0 and "id:msmarco:passage::963" in answered.stdout, answered.stdout + answered.stderr
    hits = json.loads(answered.stdout)["root"]["children"]
    assert len(hits) == 10
    template = (SAMPLE_APPS / NAME / "files" / "names_extractor.txt").read_text()
    generated = 0
    for hit in hits:
        fields, text = hit["fields"], hit["fields"]["text"]
        for field, prompt in (("names", template.replace("{input}", text)),
                              ("questions", "Generate 3 questions relevant for this text: " + text)):
            value = expected(prompt, f"passage.{field}")
            if value:
                assert fields.get(field) == value, (hit["id"], field, fields.get(field), value)
                generated += 1
            else:
                assert fields.get(field) in (None, []), (hit["id"], field, fields.get(field), value)
    assert generated >= 10, generated
