"""python -m dwell_feed generate | feed | live | check | top  (see feed/README.md)."""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from .generate import DEFAULT_NOW, PRESETS, generate_to


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m dwell_feed")
    commands = parser.add_subparsers(dest="command", required=True)

    g = commands.add_parser("generate", help="write a corpus: authors, comments, rankingmodel, truth (JSONL)")
    g.add_argument("--preset", choices=PRESETS, default="tiny")
    g.add_argument("--seed", type=int, default=1)
    g.add_argument("--now", type=int, default=DEFAULT_NOW, help="the corpus's now, epoch seconds")
    g.add_argument("--out", type=Path, help="default data/corpus/<preset>")

    f = commands.add_parser("feed", help="feed a preset (generated if missing) with `vespa feed`")
    f.add_argument("--preset", choices=PRESETS, default="tiny")
    f.add_argument("--seed", type=int, default=1)
    f.add_argument("--corpus", type=Path, help="default data/corpus/<preset>")
    f.add_argument("--target", default="local", help="vespa CLI target: local, or a container URL")
    f.add_argument("--no-shift", action="store_true", help="feed the times as generated (default: the "
                   "corpus's now becomes the time of feeding)")

    live = commands.add_parser("live", help="stream votes, comments, replies and reputation changes")
    live.add_argument("--preset", choices=PRESETS, default="tiny")
    live.add_argument("--corpus", type=Path, help="default data/corpus/<preset>")
    live.add_argument("--endpoint", default="http://localhost:8080")
    live.add_argument("--rate", type=float, default=200, help="operations per second")
    live.add_argument("--seconds", type=float, default=20)
    live.add_argument("--seed", type=int)
    live.add_argument("--record", type=Path, default=Path("data/live/ops.jsonl"))
    live.add_argument("--check", action="store_true", help="afterwards, compare the counters with the record")

    c = commands.add_parser("check", help="compare documents with the totals of a live record")
    c.add_argument("--record", type=Path, default=Path("data/live/ops.jsonl"))
    c.add_argument("--endpoint", default="http://localhost:8080")

    t = commands.add_parser("top", help="the most-commented articles of a generated corpus")
    t.add_argument("--preset", choices=PRESETS, default="tiny")
    t.add_argument("--corpus", type=Path)
    t.add_argument("-n", type=int, default=1)

    args = parser.parse_args(argv)
    from .feed import corpus_dir, ensure_corpus, feed_preset, log

    if args.command == "generate":
        out = args.out or corpus_dir(args.preset)
        manifest = generate_to(args.preset, args.seed, out, args.now)
        log(f"wrote {out}: " + json.dumps({k: v for k, v in manifest.items() if k not in ("preset", "top_articles")}))
        return 0
    if args.command == "feed":
        results = feed_preset(args.preset, args.seed, args.target, args.corpus, 0 if args.no_shift else None)
        return 1 if any(r.errors or r.ok != r.operations for r in results) else 0
    if args.command == "live":
        from .live import check, run_live

        directory = args.corpus or ensure_corpus(args.preset, 1)
        log(f"live traffic on {directory} to {args.endpoint}: {args.rate:g}/s for {args.seconds:g} s, "
            f"recorded in {args.record}")
        result = run_live(directory, args.record, args.endpoint, args.rate, args.seconds, args.seed,
                          progress=log)
        log(json.dumps(result))
        if args.check:
            problems = check(args.record, args.endpoint)
            log(f"check: {len(problems)} counters differ from the record" if problems else
                "check: every counter equals its recorded total")
            for p in problems[:20]:
                log(p)
            return 1 if problems else 0
        return 0
    if args.command == "check":
        from .live import check

        problems = check(args.record, args.endpoint)
        for p in problems[:50]:
            print(p)
        print(f"{len(problems)} counters differ" if problems else "every counter equals its recorded total")
        return 1 if problems else 0
    if args.command == "top":
        directory = args.corpus or corpus_dir(args.preset)
        for article in json.loads((directory / "manifest.json").read_text())["top_articles"][: args.n]:
            print(article["article_id"], article["comments"])
        return 0
    return 2


if __name__ == "__main__":
    sys.exit(main())
