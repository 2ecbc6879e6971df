"""Shared by test_sample_colbert.py and test_sample_splade.py: a sample app's package copied with its models stood in
for (services.xml's `url=` set to `path=` files in standin/), its feed, and bfloat16 as Vespa converts cells."""
from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path

import numpy as np
from dwell_client import ROOT

SAMPLE_APPS = Path(os.environ["DWELL_SAMPLE_APPS"]) if os.environ.get("DWELL_SAMPLE_APPS") else None
MODEL = ROOT / "application" / "embedder"


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


