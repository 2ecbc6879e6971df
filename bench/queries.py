"""Query files for the load generator, from a generated corpus: article views drawn by popularity
(comment count), as readers would view them, one /search/?... path a line (vespa-fbench's format).

    .venv/bin/python bench/queries.py --corpus data/corpus/small --profile neural --count 2000 --out neural.txt
"""
from __future__ import annotations

import argparse
import collections
import json
import random
from pathlib import Path


def article_popularity(corpus: Path) -> collections.Counter:
    counts: collections.Counter = collections.Counter()
    with open(corpus / "comments.jsonl") as comments:
        for line in comments:
            counts[json.loads(line)["fields"]["article_id"]] += 1
    return counts


def write_query_file(corpus: Path, profile: str, out: Path, count: int = 2000, hits: int = 10, seed: int = 3,
                     params: str = "") -> Path:
    """count views; params: more query parameters for every line (e.g. ranking.matchPhase.maxHits=2000)."""
    popularity = article_popularity(corpus)
    articles, weights = zip(*popularity.items())
    rng = random.Random(seed)
    with open(out, "w") as file:
        for article in rng.choices(articles, weights=weights, k=count):
            file.write(f"/search/?article={article}&ranking={profile}&hits={hits}&timeout=5s{'&' + params if params else ''}\n")
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", type=Path, required=True)
    parser.add_argument("--profile", default="neural", choices=["freshness", "neural", "neural_onnx", "text"])
    parser.add_argument("--count", type=int, default=2000)
    parser.add_argument("--hits", type=int, default=10)
    parser.add_argument("--seed", type=int, default=3)
    parser.add_argument("--params", default="", help="more query parameters for every line, a=1&b=2")
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    print(write_query_file(args.corpus, args.profile, args.out, args.count, args.hits, args.seed, args.params))


if __name__ == "__main__":
    main()
