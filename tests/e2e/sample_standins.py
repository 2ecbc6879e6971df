"""Shared by the sample-app tests: a sample app's package copied with its models stood in for (services.xml's `url=`
set to `path=` files in standin/), its feed, the MiniLM stand-in's hidden states as the hugging-face-embedder computes
them, and bfloat16 as Vespa converts cells."""
from __future__ import annotations

import io
import json
import os
import re
import shutil
import sys
import zipfile
from fnmatch import fnmatch
from pathlib import Path
from typing import Callable

import numpy as np
from dwell_client import ROOT

SAMPLE_APPS = Path(os.environ["DWELL_SAMPLE_APPS"]) if os.environ.get("DWELL_SAMPLE_APPS") else None
MODEL = ROOT / "application" / "embedder"


def zipped(directory: Path, left_out: list[str]) -> bytes:
    """The directory as `zip -r - . -x PATTERN...` sends it: every file but those matching a pattern of left_out."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for path in sorted(directory.rglob("*")):
            relative = path.relative_to(directory).as_posix()
            if path.is_file() and not any(fnmatch(relative, pattern) for pattern in left_out):
                archive.write(path, relative)
    return buffer.getvalue()


def with_standins(app: Path, work: Path, models: dict[str, str], package: str = "app") -> Path:
    """A copy of the app's package (its `package` folder, "" for the app's root) with standin/ and each `url=` ending
    in a key set to `path=` standin/<value>."""
    copy = shutil.copytree(app / package, work / "application")
    (copy / "standin").mkdir()
    shutil.copy(MODEL / "tokenizer.json", copy / "standin" / "tokenizer.json")
    services = (copy / "services.xml").read_text()
    for ending, file in models.items():
        services, count = re.subn(rf'url="[^"]*{re.escape(ending)}"', f'path="standin/{file}"', services)
        assert count == 1, ending
    (copy / "services.xml").write_text(services)
    return copy


def feed_of(directory: Path, work: Path) -> Path:
    """The directory's *.json documents as one JSONL file."""
    feed = work / "feed.jsonl"
    feed.write_text("".join(p.read_text().strip() + "\n" for p in sorted(directory.glob("*.json"))))
    return feed


def documents(directory: Path) -> dict[str, dict]:
    """The fields of each document of the directory's *.json, by the id's last part."""
    puts = [json.loads(p.read_text()) for p in sorted(directory.glob("*.json"))]
    return {put["put"].split("::")[1]: put["fields"] for put in puts}


def bfloat16(x: np.ndarray | float) -> np.ndarray:
    """float32 to bfloat16 as Vespa converts cells: the low 16 bits dropped."""
    bits = np.asarray(x, dtype=np.float32).view(np.uint32) & np.uint32(0xFFFF0000)
    return bits.view(np.float32)




def hidden_states() -> Callable[[str], np.ndarray]:
    """The last hidden state (a row per token) of a text in dwell's MiniLM-L6-v2, the stand-in for the apps' e5 and
    other BERT-shaped embedders, as the hugging-face-embedder runs the model (numpy and onnxruntime)."""
    sys.path.insert(0, str(ROOT))
    from embedder.reference import ReferenceEmbedder
    model = ReferenceEmbedder(MODEL)

    def run(text: str) -> np.ndarray:
        e = model.tokenizer.encode(text)
        feed = {"input_ids": [e.ids], "attention_mask": [e.attention_mask], "token_type_ids": [e.type_ids]}
        return model.session.run(["last_hidden_state"], {k: np.array(v, dtype=np.int64) for k, v in feed.items()})[0][0]
    return run


def mean_pooled() -> Callable[[str], np.ndarray]:
    """The stand-in's embedding of a text as a hugging-face-embedder with mean pooling and no normalization (the
    default) computes it."""
    hidden = hidden_states()
    return lambda text: hidden(text).mean(axis=0).astype(np.float32)
