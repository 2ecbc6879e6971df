"""A search chain's server-sent events (`format=sse`, as Vespa's LLM searchers answer) and the gguf stand-in's
greedy completion of the prompt they carry (tests/sample_apps/gguf_llm_standin.py, in numpy)."""
from __future__ import annotations

import json
import sys
import urllib.parse
import urllib.request
from types import ModuleType
from typing import Any

from dwell_client import ROOT
from dwell_client.paths import CONTAINER

STANDINS = ROOT / "tests" / "sample_apps"


def sse_events(**parameters: Any) -> list[tuple[str, dict]]:
    """GET /search/ with format=sse (a__b names parameter a.b); the events as (name, data), in order."""
    query = urllib.parse.urlencode({"format": "sse", **{k.replace("__", "."): v for k, v in parameters.items()}})
    with urllib.request.urlopen(f"{CONTAINER}/search/?{query}", timeout=120) as response:
        assert response.status == 200
        assert response.headers["Content-Type"].startswith("text/event-stream"), response.headers["Content-Type"]
        text = response.read().decode("utf-8")
    events = []
    for block in text.split("\n\n"):
        lines = [line for line in block.split("\n") if line]
        if not lines:
            continue
        name = next(line[len("event:"):].strip() for line in lines if line.startswith("event:"))
        data = "\n".join(line[len("data:"):].lstrip() for line in lines if line.startswith("data:"))
        events.append((name, json.loads(data) if data else {}))
    return events


def greedy_completion(prompt: str, tokens: int) -> str:
    """The stand-in's completion of the prompt, `tokens` tokens at temperature 0, computed in numpy."""
    return _standin_module().complete(prompt, tokens)


def shortfalls(prompt: str, completion: str) -> list[float]:
    """How far each token of the completion is below the stand-in's greedy choice (numpy)."""
    return _standin_module().shortfalls(prompt, completion)


def json_completion(prompt: str, key: str) -> str:
    """The subword stand-in's greedy completion of the prompt under the grammar of {key: array of strings} (numpy)."""
    return _standin_module().complete_json(prompt, key)


def standin(path: str, variant: str = "char") -> None:
    """Writes the stand-in GGUF model (its char or subword vocabulary)."""
    _standin_module().standin(path, variant)


def _standin_module() -> ModuleType:
    """tests/sample_apps/gguf_llm_standin.py, imported once."""
    if str(STANDINS) not in sys.path:
        sys.path.insert(0, str(STANDINS))
    import gguf_llm_standin
    return gguf_llm_standin
