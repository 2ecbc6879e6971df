"""Feeding a generated corpus with the Vespa CLI (`vespa feed`, HTTP/2 to /document/v1):
authors first (global documents), then comments, then the initial rankingmodel documents.

Times are shifted when fed, so that the corpus's `now` becomes the time of feeding and the
newest comments are minutes old, not a year; the shift is written to fed.json.
"""
from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Callable, Iterator

from dwell_client import vespa_binary

from .generate import DEFAULT_NOW, PRESETS, ROOT, generate_to

FILES = ("authors", "comments", "rankingmodel")


def corpus_dir(preset: str) -> Path:
    return ROOT / "data" / "corpus" / preset


def ensure_corpus(preset: str, seed: int, out: Path | None = None) -> Path:
    out = out or corpus_dir(preset)
    manifest = out / "manifest.json"
    if manifest.exists():
        m = json.loads(manifest.read_text())
        if m.get("seed") == seed and m.get("preset", {}).get("name") == preset and all(
                (out / f"{f}.jsonl").exists() for f in FILES):
            return out
    log(f"generating the {preset} corpus (seed {seed}) into {out}")
    m = generate_to(preset, seed, out)
    log(f"generated {m['comments']:,} comments, {m['authors']:,} authors, {m['articles']:,} articles "
        f"in {m['generate_seconds']} s")
    return out


def log(message: str) -> None:
    print(f"[feed] {message}", file=sys.stderr, flush=True)


def shifted_lines(path: Path, shift: int) -> Iterator[str]:
    """The file's lines with created_at and joined_at moved by `shift` seconds."""
    with path.open() as f:
        for line in f:
            if shift == 0:
                yield line
                continue
            op = json.loads(line)
            fields = op.get("fields", {})
            for name in ("created_at", "joined_at"):
                if name in fields:
                    fields[name] += shift
            yield json.dumps(op, ensure_ascii=False, separators=(",", ":")) + "\n"


@dataclass
class FeedResult:
    name: str
    operations: int
    ok: int
    errors: int
    seconds: float
    rate: float
    codes: dict


def feed_lines(name: str, lines: Iterator[str], total: int, target: str, progress: bool = True) -> FeedResult:
    """Pipes JSONL operations into `vespa feed -` and shows its periodic stats as progress."""
    command = [vespa_binary(), "feed", "--target", target, "--progress", "1", "-"]
    started = time.time()
    process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True, bufsize=1 << 16)
    errors: list[str] = []
    stats: dict = {}

    def blocks(stream, on_stats: Callable[[dict], None], on_other: Callable[[str], None]) -> None:
        """`vespa feed` prints stats as indented JSON objects: periodic ones on stderr, the
        final one on stdout. Anything else on stderr is an error message."""
        block: list[str] = []
        for line in stream:
            if block or line.startswith("{"):
                block.append(line)
                if line.startswith("}"):
                    try:
                        on_stats(json.loads("".join(block)))
                    except json.JSONDecodeError:
                        on_other("".join(block))
                    block = []
            elif line.strip():
                on_other(line.rstrip())

    def show(periodic: dict) -> None:
        if progress:
            ok = periodic.get("feeder.ok.count", 0)
            elapsed = time.time() - started
            print(f"\r[feed] {name}: {ok:,}/{total:,} ok, {ok / max(elapsed, 1e-9):,.0f} docs/s, "
                  f"{periodic.get('http.response.error.count', 0)} errors", end="", file=sys.stderr, flush=True)

    def write() -> None:
        try:
            for line in lines:
                process.stdin.write(line)  # type: ignore[union-attr]
        except BrokenPipeError:
            pass
        finally:
            try:
                process.stdin.close()  # type: ignore[union-attr]
            except BrokenPipeError:
                pass

    threads = [threading.Thread(target=write, daemon=True),
               threading.Thread(target=blocks, args=(process.stderr, show, errors.append), daemon=True)]
    for t in threads:
        t.start()
    blocks(process.stdout, stats.update, errors.append)
    process.wait()
    for t in threads:
        t.join(timeout=5)
    if progress:
        print(file=sys.stderr)
    seconds = time.time() - started
    ok = int(stats.get("feeder.ok.count", 0))
    operations = int(stats.get("feeder.operation.count", 0))
    failed = operations - ok + (0 if operations == total else abs(total - operations))
    for e in errors[:5]:
        log(e)
    if len(errors) > 5:
        log(f"... and {len(errors) - 5} more errors")
    if process.returncode != 0:
        log(f"vespa feed exited with {process.returncode}")
        failed = max(failed, 1)
    return FeedResult(name, total, ok, failed, round(seconds, 2), round(ok / max(seconds, 1e-9), 1),
                      stats.get("http.response.code.counts", {}))


def count_lines(path: Path) -> int:
    with path.open("rb") as f:
        return sum(1 for _ in f)


def feed_corpus(directory: Path, target: str = "local", shift_to: int | None = None,
                progress: bool = True) -> list[FeedResult]:
    """Feeds authors, comments and rankingmodel documents of a corpus directory, in that order.
    shift_to: the epoch second the corpus's `now` becomes (default: now; 0: no shift)."""
    manifest = json.loads((directory / "manifest.json").read_text())
    corpus_now = int(manifest.get("now", DEFAULT_NOW))
    shift = 0 if shift_to == 0 else int(shift_to or time.time()) - corpus_now
    results = []
    for name in FILES:
        path = directory / f"{name}.jsonl"
        result = feed_lines(name, shifted_lines(path, shift), count_lines(path), target, progress)
        results.append(result)
        log(f"{name}: {result.ok:,} of {result.operations:,} documents in {result.seconds} s "
            f"({result.rate:,.0f} docs/s), {result.errors} errors")
    (directory / "fed.json").write_text(json.dumps({
        "target": target, "fed_at": int(time.time()), "time_shift": shift,
        "results": [asdict(r) for r in results]}, indent=1) + "\n")
    return results


def summary(results: list[FeedResult]) -> str:
    ok = sum(r.ok for r in results)
    errors = sum(r.errors for r in results)
    seconds = sum(r.seconds for r in results)
    return f"fed {ok:,} documents in {seconds:.1f} s ({ok / max(seconds, 1e-9):,.0f} docs/s), {errors} errors"


def feed_preset(preset: str, seed: int = 1, target: str = "local", out: Path | None = None,
                shift_to: int | None = None) -> list[FeedResult]:
    if preset not in PRESETS:
        raise SystemExit(f"unknown preset {preset!r}; one of {', '.join(PRESETS)}")
    directory = ensure_corpus(preset, seed, out)
    results = feed_corpus(directory, target, shift_to)
    log(summary(results))
    return results
