"""Restart benchmark (issue 16): how long a fed runtime takes to serve every document again after
`./dwell start`, against the floor of reading its whole data directory once, sequentially.

    ./dwell bench --restart                          # tiny and medium corpora
    ./dwell bench --restart --presets tiny,medium,w1  # W1 needs DWELL_HEAP=10g and about half an hour today
    ./dwell bench --restart --presets tiny --smoke    # seconds long: checks the tool (CI)

For each corpus size it starts a runtime of its own (own data directory), deploys target/application,
feeds authors and the ranking model with the vespa CLI and the comments with FeedBenchmark
(vespa-feed-client, ids c-0, c-1, ...), and stops it cleanly. Then, in the same run:

  floor    every file of the data directory read once, sequentially (`cat` to /dev/null)
  start    `./dwell start` until the first /search/ query (`select * from comment where true`, hits=0,
           polled every 50 ms; the same for author) whose totalCount is what was fed
  ratio    start / floor
  bytes    du of the data directory / comments

The page cache is dropped (`echo 3 > /proc/sys/vm/drop_caches`, root only) before the floor and
before each start, or before neither (--warm, or when it cannot be dropped): the report says which.

Then, on the largest corpus: a feed of puts, two-field updates and removes through /document/v1 from
several threads is killed with kill -9 in its middle; the runtime is started again, the time to full
coverage measured, and every acknowledged write checked (0 lost). Last, the cost of index flushes
while serving: query p99 (LoadGenerator, fixed rate) and the update rate (FeedBenchmark, maximum)
run together with flushes on, then with DWELL_INDEX_FLUSH=off, in the same run. Before the persisted
index (issue 16) the runtime has no flushes: the report then says that the switch has no effect.

Writes bench/results/restart.md, restart.json and restart.png (start time vs corpus size, with the floor).
"""
from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
from pathlib import Path

from dwell_client import CONTAINER, Runtime, http, runtime_lock, vespa, wait_for_container

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

import runtime_bench  # noqa: E402

EVERY_COMMENT = "select * from comment where true"
EVERY_AUTHOR = "select * from author where true"
# issue 16's goals: seconds from ./dwell start to full coverage, and the most start / floor may be
GOALS = {"medium": {"start_s": 2.0, "comments": 20_000}, "w1": {"start_s": 15.0, "ratio": 2.0, "comments": 1_000_000}}
KILL9_GOAL_S = {"w1": 20.0}
LOADED = re.compile(r"Loaded index of (\S+) on node (\S+): (\d+) documents in (\d+) ms")
READY = re.compile(r"Content nodes ready: (\d+) documents")




def drop_page_cache() -> bool:
    """sync and drop the page cache (root only); whether it was dropped."""
    os.sync()
    try:
        Path("/proc/sys/vm/drop_caches").write_text("3\n")
        return True
    except OSError:
        return False


def can_drop_page_cache() -> bool:
    return drop_page_cache()


def data_files(data: Path) -> list[Path]:
    """Every regular file under the data directory, in a stable order."""
    return sorted(p for p in data.rglob("*") if p.is_file() and not p.is_symlink())


def sequential_read(data: Path, cold: bool) -> dict:
    """The floor: `cat` of every file of the data directory, one after the other, to /dev/null."""
    files = data_files(data)
    if cold:
        drop_page_cache()
    started = time.perf_counter()
    for chunk in range(0, len(files), 500):
        subprocess.run(["cat", *map(str, files[chunk:chunk + 500])], stdout=subprocess.DEVNULL, check=True)
    seconds = time.perf_counter() - started
    size = sum(p.stat().st_size for p in files)
    return {"seconds": seconds, "files": len(files), "bytes": size, "mb_per_s": size / 1e6 / max(seconds, 1e-9)}


def disk_bytes(data: Path) -> int:
    """Bytes on disk (du -sb) of the data directory, logs excluded."""
    done = subprocess.run(["du", "-sb", "--exclude=logs", str(data)], capture_output=True, text=True, check=True)
    return int(done.stdout.split()[0])


def filesystem(data: Path) -> str:
    """The data directory's file system and device (df -T)."""
    done = subprocess.run(["df", "-T", str(data)], capture_output=True, text=True)
    fields = done.stdout.splitlines()[-1].split() if done.returncode == 0 else []
    return f"{fields[1]} on {fields[0]}" if len(fields) > 1 else "?"


def disk_breakdown(data: Path) -> dict[str, int]:
    """Bytes per top-level entry of the data directory (du -sb), to see what the bytes per comment are made of."""
    sizes = {}
    for entry in sorted(data.iterdir()):
        if entry.name == "logs":
            continue
        done = subprocess.run(["du", "-sb", str(entry)], capture_output=True, text=True)
        if done.returncode == 0:
            sizes[entry.name] = int(done.stdout.split()[0])
    return sizes


def total_count(yql: str) -> int | None:
    """totalCount of a hits=0 query, or None while the container does not answer it (or answers with an error
    or with partial coverage)."""
    try:
        status, body = http("GET", f"{CONTAINER}/search/?" + urllib.parse.urlencode({"yql": yql, "hits": 0, "timeout": "5s"}),
                            timeout=10)
    except OSError:
        return None
    if status != 200 or "errors" in body.get("root", {}):
        return None
    return body["root"]["fields"].get("totalCount")


def fed_counts(comments: int, authors: int, timeout: float = 600) -> dict[str, tuple[int, int]]:
    """The totalCounts that mean full coverage on the fed runtime: every comment, and the authors as the
    runtime counts them (a global document is on every content node, and each node's copy is counted, so
    authors times the nodes): measured here, once every comment is searchable, and checked to be a multiple."""
    expected = {EVERY_COMMENT: (comments, comments)}
    wait_for_coverage(expected, time.perf_counter(), timeout)
    if authors:
        counted = total_count(EVERY_AUTHOR)
        if not counted or counted % authors:
            raise RuntimeError(f"{counted} authors counted, not a multiple of the {authors} fed")
        expected[EVERY_AUTHOR] = (counted, counted)
    return expected


def stable_count(yql: str, timeout: float) -> int:
    """The totalCount of a query once it answers and stays the same for 2 s."""
    deadline, last = time.time() + timeout, None
    while time.time() < deadline:
        count = total_count(yql)
        if count is not None and count == last:
            return count
        last = count
        time.sleep(2)
    raise RuntimeError(f"no stable totalCount for {yql} in {timeout} s")


def wait_for_coverage(expected: dict[str, tuple[int, int]], started: float, timeout: float, interval: float = 0.05) -> dict:
    """Polls every interval seconds until each query's totalCount is within [low, high] of expected; returns
    the seconds since started at the first answer and at full coverage, and the counts seen on the way."""
    first_answer = None
    seen: list[tuple[float, dict]] = []
    deadline = time.time() + timeout
    while time.time() < deadline:
        counts = {yql: total_count(yql) for yql in expected}
        now = time.perf_counter() - started
        if first_answer is None and any(c is not None for c in counts.values()):
            first_answer = now
        if not seen or seen[-1][1] != counts:
            seen.append((round(now, 3), counts))
        if all(c is not None and low <= c <= high for (low, high), c in zip(expected.values(), counts.values())):
            return {"first_answer_s": first_answer, "full_coverage_s": now, "counts": counts, "seen": seen[-20:]}
        time.sleep(interval)
    raise TimeoutError(f"no full coverage within {timeout:.0f} s: expected {expected}, last seen {seen[-3:]}")


def load_lines(runtime: Runtime, since: int) -> dict:
    """The runtime's log lines about loading a flushed index (written after since bytes of the log)."""
    text = runtime.log_file.read_text(errors="replace")[since:] if runtime.log_file.exists() else ""
    loaded = [{"type": m[0], "node": m[1], "documents": int(m[2]), "ms": int(m[3])} for m in LOADED.findall(text)]
    ready = [int(n) for n in READY.findall(text)]
    return {"loaded": loaded, "ready": ready}


def log_size(runtime: Runtime) -> int:
    return len(runtime.log_file.read_text(errors="replace")) if runtime.log_file.exists() else 0


def timed_start(runtime: Runtime, expected: dict[str, tuple[int, int]], cold: bool, timeout: float, env: dict | None = None) -> dict:
    """./dwell start on a fed data directory, until full coverage."""
    if cold:
        drop_page_cache()
    since = log_size(runtime)
    saved = {k: os.environ.get(k) for k in (env or {})}
    os.environ.update(env or {})
    try:
        started = time.perf_counter()
        runtime.start()
        config_server = time.perf_counter() - started
        row = wait_for_coverage(expected, started, timeout)
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    row["config_server_s"] = config_server
    row["load_average"] = os.getloadavg()[0]
    row.update(load_lines(runtime, since))
    return row


def feed_corpus(jar: Path, corpus: Path) -> dict:
    """Authors and models with the vespa CLI, comments with FeedBenchmark (ids c-0, c-1, ...)."""
    summaries = runtime_bench.feed(corpus)
    comments = sum(1 for _ in open(corpus / "comments.jsonl"))
    summaries["comments"] = runtime_bench.feed_benchmark(jar, "put", "c", corpus=corpus / "comments.jsonl", count=comments)
    if summaries["comments"]["failed"]:
        raise RuntimeError(f"{summaries['comments']['failed']} comment puts failed")
    return summaries


class KillFeed:
    """Writes from several threads through /document/v1 until stopped, remembering what each write was and
    whether it was acknowledged (200). Thread t puts new comments kill-t-i, assigns upvotes and downvotes
    (both = i, one update) on comments of its own, and removes comments of its own, in turn: every document
    has one writer, so its expected state after a crash is known (the last acknowledged write, or the one
    in flight when the runtime died)."""

    def __init__(self, threads: int, update_targets: list[list[str]], remove_targets: list[list[str]]):
        self.threads = threads
        self.update_targets = update_targets
        self.remove_targets = remove_targets
        self.stop = threading.Event()
        # doc id -> list of (state, acknowledged): state None = absent, else (upvotes, downvotes)
        self.history: dict[str, list[tuple[tuple[int, int] | None, bool]]] = {}
        self.lock = threading.Lock()
        self.workers = [threading.Thread(target=self.run, args=(t,), daemon=True) for t in range(threads)]

    def start(self) -> None:
        for worker in self.workers:
            worker.start()

    def join(self) -> None:
        self.stop.set()
        for worker in self.workers:
            worker.join()

    def record(self, doc: str, state: tuple[int, int] | None, acknowledged: bool) -> None:
        with self.lock:
            self.history.setdefault(doc, []).append((state, acknowledged))

    def run(self, t: int) -> None:
        i = 0
        updates, removes = list(self.update_targets[t]), list(self.remove_targets[t])
        while not self.stop.is_set():
            kind = i % 3
            if kind == 1 and updates:
                doc = updates[(i // 3) % len(updates)]
                method, body, state = "PUT", {"fields": {"upvotes": {"assign": i}, "downvotes": {"assign": i}}}, (i, i)
            elif kind == 2 and removes:
                doc, method, body, state = removes.pop(), "DELETE", None, None
            else:
                doc = f"kill-{t}-{i}"
                method, body, state = "POST", {"fields": {"article_id": "kill", "author_id": f"k{t}", "text": f"killed feed {t} {i}",
                                                          "created_at": 1_763_000_000, "upvotes": i, "downvotes": i}}, (i, i)
            try:
                status, _ = http(method, f"{CONTAINER}/document/v1/dwell/comment/docid/{doc}", body, timeout=10)
            except Exception:   # refused, reset, cut off mid-answer: in flight when the runtime died, not acknowledged
                status = None
            self.record(doc, state, status == 200)
            if status is None:
                return
            i += 1

    def acknowledged(self) -> int:
        return sum(ack for ops in self.history.values() for _, ack in ops)

    def puts(self) -> tuple[int, int]:
        """(acknowledged puts of new documents, puts not acknowledged)."""
        ops = [ops[0][1] for doc, ops in self.history.items() if doc.startswith("kill-")]
        return sum(ops), len(ops) - sum(ops)

    def removes(self) -> tuple[int, int]:
        ops = [ack for doc, history in self.history.items() if not doc.startswith("kill-")
               for state, ack in history if state is None]
        return sum(ops), len(ops) - sum(ops)


def document_state(doc: str) -> tuple[int, int] | None:
    status, body = http("GET", f"{CONTAINER}/document/v1/dwell/comment/docid/{doc}", timeout=30)
    if status == 404:
        return None
    assert status == 200, body
    return body["fields"].get("upvotes"), body["fields"].get("downvotes")


def check_writes(feed: KillFeed, before: dict[str, tuple[int, int] | None]) -> dict:
    """Every acknowledged write is there; a write in flight is either applied whole or not at all."""
    lost, half, checked = [], [], 0
    for doc, ops in feed.history.items():
        acked = [state for state, ack in ops if ack]
        expected_states = []
        if acked:
            expected_states.append(acked[-1])
        else:
            expected_states.append(before.get(doc))
        if not ops[-1][1]:
            expected_states.append(ops[-1][0])      # in flight: its new state is fine too
        state = document_state(doc)
        checked += 1
        if state not in expected_states:
            (half if state is not None and state[0] != state[1] and doc.startswith("kill-") else lost).append(
                {"doc": doc, "found": state, "expected one of": expected_states})
    return {"checked": checked, "lost": lost, "half_applied": half}


def kill9_run(runtime: Runtime, comments: int, authors: tuple[int, int] | None, seconds: float, threads: int, cold: bool, timeout: float) -> dict:
    """A feed killed with kill -9 in its middle, then a start: time to full coverage, and no acknowledged write lost."""
    per = 20
    update_targets = [[f"c-{t * per + j}" for j in range(per)] for t in range(threads)]
    remove_targets = [[f"c-{threads * per + t * per + j}" for j in range(per)] for t in range(threads)]
    before = {doc: document_state(doc) for docs in update_targets + remove_targets for doc in docs}
    feed = KillFeed(threads, update_targets, remove_targets)
    feed.start()
    time.sleep(seconds)
    runtime.kill9()
    feed.join()
    put_acked, put_open = feed.puts()
    removed_acked, removed_open = feed.removes()
    low = comments + put_acked - removed_acked - removed_open
    high = comments + put_acked + put_open - removed_acked
    expected = {EVERY_COMMENT: (low, high), **({EVERY_AUTHOR: authors} if authors else {})}
    row = timed_start(runtime, expected, cold, timeout)
    row.update(fed_seconds=seconds, threads=threads, acknowledged=feed.acknowledged(),
               not_acknowledged=sum(not ack for ops in feed.history.values() for _, ack in ops),
               puts_acknowledged=put_acked, removes_acknowledged=removed_acked, expected=[low, high])
    row.update(check_writes(feed, before))
    print(f"kill -9 after {seconds:.0f} s of feed ({row['acknowledged']} acknowledged writes): full coverage "
          f"{row['full_coverage_s']:.2f} s after start, {len(row['lost'])} lost, {len(row['half_applied'])} half applied", flush=True)
    return row


def flush_switch_present() -> bool:
    """Whether the runtime reads DWELL_INDEX_FLUSH at all (it does only with the persisted index)."""
    sources = ROOT / "runtime" / "src" / "main"
    done = subprocess.run(["grep", "-rl", "DWELL_INDEX_FLUSH", str(sources)], capture_output=True, text=True)
    return bool(done.stdout.strip())


def flush_lines(runtime: Runtime, since: int) -> int:
    text = runtime.log_file.read_text(errors="replace")[since:] if runtime.log_file.exists() else ""
    return sum(1 for line in text.splitlines() if "flush" in line.lower())


def serving_cost(jar: Path, runtime: Runtime, queries: Path, comments: int, expected: dict, rate: float, seconds: int,
                 updates_count: int, flush: str, timeout: float) -> dict:
    """Query p99 at a fixed rate for seconds and updates_count updates at the maximum rate, started together,
    with index flushes on or off."""
    # flushes every third of the phase, so that some run while it is measured (the runtime's default is 60 s)
    env = {"DWELL_INDEX_FLUSH": flush, "DWELL_INDEX_FLUSH_SECONDS": str(max(5, seconds // 3))}
    timed_start(runtime, expected, False, timeout, env)
    runtime_bench.RUNTIME_PID[:] = [runtime.pid()]
    runtime_bench.load(jar, queries, rate, 3)     # warm up
    since = log_size(runtime)
    updates = subprocess.Popen(["java", "-Xmx512m", "-cp", runtime_bench.bench_classpath(jar), "ai.dwell.bench.FeedBenchmark",
                                "--mode", "update", "--prefix", "c", "--targets", str(comments), "--count", str(updates_count),
                                "http://localhost:8080/"],
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    queried = runtime_bench.load(jar, queries, rate, seconds)
    fed = json.loads(updates.communicate()[0].strip().splitlines()[-1])
    row = {"flush": flush, "query_rate": rate, "seconds": seconds, "query_p50": queried["p50"], "query_p99": queried["p99"],
           "queries_ok": queried["ok"], "queries_failed": queried["failed"] + queried.get("refused", 0),
           "update_rate": fed["rate"], "update_seconds": fed["seconds"], "updates_ok": fed["ok"], "updates_failed": fed["failed"],
           "flush_log_lines": flush_lines(runtime, since)}
    runtime.stop()
    print(f"flush {flush}: query p99 {row['query_p99']:.1f} ms at {rate:.0f}/s, updates {row['update_rate']:.0f}/s, "
          f"{row['flush_log_lines']} log lines about flushes", flush=True)
    return row


def plot(rows: list[dict], out: Path) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = sorted(rows, key=lambda r: r["comments"])
    x = [r["comments"] for r in rows]
    fig, ax = plt.subplots(figsize=(7, 4.5))
    ax.plot(x, [r["start"]["full_coverage_s"] for r in rows], marker="o", label="./dwell start → every document searchable")
    ax.plot(x, [r["floor"]["seconds"] for r in rows], marker="s", label="floor: sequential read of the data directory")
    for name, goal in GOALS.items():   # shown whether or not that corpus was run
        ax.scatter([goal["comments"]], [goal["start_s"]], marker="*", s=120, zorder=3,
                   label=f"goal: {name} ≤ {goal['start_s']:.0f} s" + (" (not run)" if name not in {r["preset"] for r in rows} else ""))
    ax.set(xscale="log", yscale="log", xlabel="comments in the corpus", ylabel="seconds", title="Restart: time to full coverage")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out, dpi=120)


PACKAGES = ("applications", "served")   # the deployed application package (models included): a constant, not per comment


def data_bytes(row: dict) -> int:
    """The data directory's bytes without the application packages it keeps."""
    return row["disk_bytes"] - sum(row["breakdown"].get(name, 0) for name in PACKAGES)


def verdict(ok: bool | None) -> str:
    return "—" if ok is None else ("met" if ok else "not met")


def report(run: dict) -> str:
    rows = run["presets"]
    cache = "dropped (`echo 3 > /proc/sys/vm/drop_caches`) before the floor and before every start" if run["cold"] \
        else "not dropped, neither before the floor nor before a start (warm: both read what the page cache holds)"
    pick = ("the fastest of the starts (the least disturbed by the other work on this shared machine)" if run.get("pick") == "fastest"
            else "the median of the starts (of two, the slower one)")
    lines = [f"# Restart: time to full coverage ({', '.join(r['preset'] for r in rows)})", ""]
    if run.get("label"):
        lines += [f"**{run['label']}**", ""]
    lines += [f"Measured {run['date']} on this machine ({os.cpu_count()} cores, shared with other work: compare the ratios within a run). "
              f"Start: from `./dwell start` to the first `{EVERY_COMMENT}` (and `{EVERY_AUTHOR}`) with hits=0, polled every 50 ms, "
              "whose totalCount is what was fed (authors: times the content nodes, each of which holds every global document and counts it). Floor: `cat` of every file of the data directory, one after the other, to /dev/null, "
              f"in the same run, on {', '.join(sorted({r.get('filesystem', '?') for r in rows}))} (a virtual disk: the host may cache it too, "
              f"so a cold read can be faster than the device). Page cache: {cache}. Start s: {pick}, each start in brackets; "
              f"the ratio is of that start. Load: the machine's 1-minute load average when the "
              "start ended (other agents' builds and tests included; the start's own JVM too). Bytes: `du -sb` of the data directory without its logs, per comment; "
              "without packages: also without the deployed application packages (`applications/`, `served/`: the models, a constant).", "",
              "| corpus | comments | authors | floor s (MB) | config server s | first answer s | start s (each) | start / floor | load | bytes/comment | without packages | goal | met |",
              "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        s, f = r["start"], r["floor"]
        goal = GOALS.get(r["preset"])
        goal_text = "—"
        met = None
        if goal:
            goal_text = f"≤ {goal['start_s']:.0f} s" + (f", ≤ {goal['ratio']:.0f}× floor" if "ratio" in goal else "")
            met = s["full_coverage_s"] <= goal["start_s"] and ("ratio" not in goal or r["ratio"] <= goal["ratio"])
        lines.append(f"| {r['preset']} | {r['comments']:,} | {r['authors']:,} | {f['seconds']:.2f} ({f['bytes'] / 1e6:.1f}) | "
                     f"{s['config_server_s']:.2f} | {s['first_answer_s'] or float('nan'):.2f} | {s['full_coverage_s']:.2f} "
                     f"({' / '.join(f'{x:.1f}' for x in r['starts'])}) | {r['ratio']:.1f}× | {s.get('load_average', float('nan')):.1f} | {r['bytes_per_comment']:,.0f} | {data_bytes(r) / r['comments']:,.0f} | {goal_text} | {verdict(met)} |")
    lines += ["", "Goal ratios (measured / goal; ≤ 1 meets it):", ""]
    for r in rows:
        goal = GOALS.get(r["preset"])
        if goal:
            text = f"- {r['preset']}: start {r['start']['full_coverage_s']:.2f} s / {goal['start_s']:.0f} s = {r['start']['full_coverage_s'] / goal['start_s']:.2f}"
            if "ratio" in goal:
                text += f"; start / floor {r['ratio']:.1f} / {goal['ratio']:.0f} = {r['ratio'] / goal['ratio']:.2f}"
            lines.append(text)
    if not any(GOALS.get(r["preset"]) for r in rows):
        lines.append("- no corpus with a goal was run")
    lines += ["", "What the data directory holds (bytes per comment, `du -sb` per entry):", "",
              "| corpus | " + " | ".join(sorted({k for r in rows for k in r["breakdown"]})) + " |",
              "|---|" + "---|" * len({k for r in rows for k in r["breakdown"]})]
    keys = sorted({k for r in rows for k in r["breakdown"]})
    for r in rows:
        lines.append(f"| {r['preset']} | " + " | ".join(f"{r['breakdown'].get(k, 0) / r['comments']:,.0f}" for k in keys) + " |")
    loaded = [(r["preset"], x) for r in rows for x in r["start"]["loaded"]]
    lines += ["", "Index loads the runtime logged on start (`Loaded index of <type> on node <key>: ...`):", ""]
    if loaded:
        lines += ["| corpus | type | node | documents | ms |", "|---|---|---|---|---|"]
        lines += [f"| {p} | {x['type']} | {x['node']} | {x['documents']:,} | {x['ms']:,} |" for p, x in loaded]
    else:
        lines.append("none: this runtime rebuilds the index from the stored documents on every start (no persisted index).")
    k = run.get("kill9")
    lines += ["", "## kill -9 in the middle of a feed", ""]
    if k:
        goal = KILL9_GOAL_S.get(k["preset"])
        lines += [f"Corpus {k['preset']}: {k['threads']} threads wrote through /document/v1 (puts of new comments, updates assigning "
                  f"upvotes and downvotes together, removes) for {k['fed_seconds']:.0f} s; then kill -9 of the runtime, and `./dwell start`.", "",
                  "| acknowledged writes | not acknowledged (in flight) | start → full coverage s | lost | half applied | goal | met |",
                  "|---|---|---|---|---|---|---|",
                  f"| {k['acknowledged']:,} | {k['not_acknowledged']} | {k['full_coverage_s']:.2f} | {len(k['lost'])} | {len(k['half_applied'])} | "
                  f"{'≤ %.0f s, 0 lost' % goal if goal else '0 lost'} | "
                  f"{verdict((k['full_coverage_s'] <= goal if goal else True) and not k['lost'] and not k['half_applied'])} |"]
        if k["lost"] or k["half_applied"]:
            lines += ["", "```", json.dumps((k["lost"] + k["half_applied"])[:10], indent=1), "```"]
    else:
        lines.append("not run (--no-kill9)")
    c = run.get("flush_cost")
    lines += ["", "## The cost of index flushes while serving", ""]
    if c:
        on, off = c["on"], c["off"]
        lines += [f"Corpus {c['preset']}, the same run: queries (front page and article views, ranked with "
                  f"freshness) at {on['query_rate']:.0f}/s with the load generator for {c['seconds']} s, and {c['updates']:,} upvote "
                  "updates at the maximum rate (FeedBenchmark), started together; once with background flushes every "
                  f"{max(5, c['seconds'] // 3)} s (`DWELL_INDEX_FLUSH_SECONDS`; the runtime's default is 60 s), once with `DWELL_INDEX_FLUSH=off`. "
                  "A flush writes a type under its node's read lock: writes to that node wait until it is written, and searches "
                  "that arrive behind a waiting write wait too.", "",
                  "| flushes | query p50 ms | query p99 ms | update rate /s | log lines about flushes |", "|---|---|---|---|---|"]
        for row in (on, off):
            lines.append(f"| {row['flush']} | {row['query_p50']:.2f} | {row['query_p99']:.2f} | {row['update_rate']:.0f} | {row['flush_log_lines']} |")
        lines += ["", f"On / off: query p99 {on['query_p99'] / off['query_p99']:.2f}×, update rate {on['update_rate'] / max(off['update_rate'], 1e-9):.2f}×."]
        if not c["switch_present"]:
            lines += ["", "**The runtime measured here does not read `DWELL_INDEX_FLUSH`** (no index flushes exist before the persisted "
                      "index): both rows run the same code, and their difference is noise."]
    else:
        lines.append("not run (--no-flush-cost)")
    lines += ["", "![start time vs corpus size, with the floor](restart.png)", ""]
    return "\n".join(lines)


def query_file(corpus: Path, work: Path) -> Path:
    """Article views of the most-commented articles and the front page, ranked with freshness."""
    sizes: dict[str, int] = {}
    with open(corpus / "comments.jsonl") as comments:
        for line in comments:
            article = json.loads(line)["fields"]["article_id"]
            sizes[article] = sizes.get(article, 0) + 1
    articles = sorted(sizes, key=sizes.get, reverse=True)[:8]
    paths = [f"/search/?article={a}&ranking=freshness&hits=10&cache=false" for a in articles]  # the engine, not the hot-article cache
    paths.append("/search/?" + urllib.parse.urlencode({"yql": EVERY_COMMENT, "ranking": "freshness", "hits": 10}))
    path = work / "restart-queries.txt"
    path.write_text("\n".join(paths * 50) + "\n")
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--presets", default="tiny,medium")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--repeats", type=int, default=1, help="starts per corpus (the fastest is reported, each is listed)")
    parser.add_argument("--warm", action="store_true", help="do not drop the page cache (neither for the floor nor for a start)")
    parser.add_argument("--kill9-seconds", type=float, default=10)
    parser.add_argument("--kill9-threads", type=int, default=4)
    parser.add_argument("--no-kill9", action="store_true")
    parser.add_argument("--no-flush-cost", action="store_true")
    parser.add_argument("--flush-seconds", type=int, default=30, help="seconds of load in each flush-cost phase")
    parser.add_argument("--flush-updates", type=int, default=30_000, help="updates (max rate) in each flush-cost phase")
    parser.add_argument("--query-rate", type=float, default=20)
    parser.add_argument("--timeout", type=float, default=3600, help="seconds a start may take to full coverage")
    parser.add_argument("--label", default="", help="a line for the top of the report, e.g. which runtime was measured")
    parser.add_argument("--no-build", action="store_true", help="use what is built (target/application, runtime, bench jar)")
    parser.add_argument("--no-lock", action="store_true", help="the caller holds /tmp/dwell-runtime.lock")
    parser.add_argument("--smoke", action="store_true", help="seconds long, to check the tool (CI)")
    parser.add_argument("--keep", action="store_true", help="keep the work directory (corpora, data directories)")
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results")
    parser.add_argument("--report-only", type=Path, help="write the report and plot again from a restart.json of an earlier run")
    parser.add_argument("--data", type=Path, help="measure the data directory of an earlier run (kept with --keep) instead of "
                                                  "generating and feeding a corpus: one preset, with --corpus")
    parser.add_argument("--corpus", type=Path, help="with --data: the generated corpus that data holds")
    args = parser.parse_args()
    if args.report_only:
        run = json.loads(args.report_only.read_text())
        args.out.mkdir(parents=True, exist_ok=True)
        write_report(run, args.out)
        return
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # stop our runtime on the way out
    if args.data and (not args.corpus or "," in args.presets):
        parser.error("--data needs --corpus and one preset")
    if args.smoke:
        args.kill9_seconds, args.flush_seconds, args.flush_updates, args.query_rate, args.timeout = 3, 4, 500, 10, 600
    args.out.mkdir(parents=True, exist_ok=True)
    jar = ROOT / "bench" / "target" / "dwell-bench-1.0.0.jar" if args.no_build else runtime_bench.build()
    work = Path(tempfile.mkdtemp(prefix="dwell-restart-"))
    cold = not args.warm and can_drop_page_cache()
    run: dict = {"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "cold": cold, "label": args.label, "pick": "fastest",
                 "cores": os.cpu_count(), "presets": []}
    try:
        with runtime_lock(not args.no_lock):
            last = None
            for preset in args.presets.split(","):
                corpus = args.corpus if args.data else runtime_bench.generate(preset, args.seed, work / "corpus" / preset)
                comments = sum(1 for _ in open(corpus / "comments.jsonl"))
                authors = sum(1 for _ in open(corpus / "authors.jsonl")) if (corpus / "authors.jsonl").exists() else 0
                runtime = Runtime(args.data or work / f"data-{preset}")
                runtime.start()
                try:
                    if args.data:
                        fed = {"comments": {"rate": float("nan")}}
                    else:
                        vespa("deploy", "--wait", "300", str(ROOT / "target" / "application"))
                        wait_for_container()
                        runtime_bench.RUNTIME_PID[:] = [runtime.pid()]
                        fed = feed_corpus(jar, corpus)
                    if args.data:   # what the data holds now (an earlier kill -9 run added and removed comments)
                        comments = stable_count(EVERY_COMMENT, args.timeout)
                    expected = fed_counts(comments, authors, args.timeout)
                finally:
                    runtime.stop()
                floor = sequential_read(runtime.data, cold)
                starts = []
                for _ in range(args.repeats):
                    starts.append(timed_start(runtime, expected, cold, args.timeout))
                    runtime.stop()
                start = min(starts, key=lambda s: s["full_coverage_s"])   # the least disturbed by other work on the machine
                size = disk_bytes(runtime.data)
                row = {"preset": preset, "comments": comments, "authors": authors, "feed_rate": fed["comments"]["rate"],
                       "floor": floor, "start": start, "starts": [s["full_coverage_s"] for s in starts], "start_runs": starts,
                       "ratio": start["full_coverage_s"] / max(floor["seconds"], 1e-9), "disk_bytes": size,
                       "bytes_per_comment": size / comments, "breakdown": disk_breakdown(runtime.data),
                       "filesystem": filesystem(runtime.data)}
                run["presets"].append(row)
                print(f"{preset}: {comments} comments; floor {floor['seconds']:.2f} s ({floor['bytes'] / 1e6:.1f} MB), start → full coverage "
                      f"{start['full_coverage_s']:.2f} s ({row['ratio']:.1f}× floor), {row['bytes_per_comment']:.0f} bytes/comment", flush=True)
                last = (preset, corpus, comments, authors, expected, runtime)
            preset, corpus, comments, authors, expected, runtime = last
            if not args.no_flush_cost:
                queries = query_file(corpus, work)
                on = serving_cost(jar, runtime, queries, comments, expected, args.query_rate, args.flush_seconds, args.flush_updates,
                                  "on", args.timeout)
                off = serving_cost(jar, runtime, queries, comments, expected, args.query_rate, args.flush_seconds, args.flush_updates,
                                   "off", args.timeout)
                run["flush_cost"] = {"preset": preset, "seconds": args.flush_seconds, "updates": args.flush_updates, "on": on, "off": off,
                                     "switch_present": flush_switch_present()}
            if not args.no_kill9:
                timed_start(runtime, expected, False, args.timeout)
                row = kill9_run(runtime, comments, expected.get(EVERY_AUTHOR), args.kill9_seconds, args.kill9_threads, cold, args.timeout)
                row["preset"] = preset
                run["kill9"] = row
                runtime.stop()
    finally:
        for preset in args.presets.split(","):
            Runtime(args.data or work / f"data-{preset}").stop(check=False)
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    (args.out / "restart.json").write_text(json.dumps(run, indent=1))
    print(write_report(run, args.out))


def write_report(run: dict, out: Path) -> str:
    """restart.md and restart.png from a run."""
    plot(run["presets"], out / "restart.png")
    text = report(run)
    (out / "restart.md").write_text(text)
    return text


if __name__ == "__main__":
    main()
