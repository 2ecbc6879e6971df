"""Where a query's time goes, and which part makes the tail: article views sent at a fixed rate with
Vespa's trace (trace.level=3, trace.timestamps=true), each query's time split into parts from the
container's searcher timestamps (ms) and the content nodes' own phase timers, the rest measured by the
client. Then, for the tail, each part in turn is replaced by its median in every query, and the p99 of
the totals recomputed: the part whose replacement moves p99 most is what the tail is made of.

    .venv/bin/python bench/phases.py --corpus DIR --profile neural --rate 50 --count 600   # against a running runtime

The trace costs time itself (it is rendered with the result), so the parts are shares of traced queries.
"""
from __future__ import annotations

import argparse
import concurrent.futures
import json
import statistics
import time
import urllib.request
from pathlib import Path

import numpy as np

CONTAINER = "http://localhost:8080"

PARTS = (
    ("http", "HTTP, request parsing, rendering (outside the search chain)"),
    ("searchers", "searchers before dispatch (YQL, query profile, dwell's searchers, Vespa's chain)"),
    ("match", "match (slowest content node)"),
    ("first_phase", "first phase (slowest content node)"),
    ("second_phase", "second phase (slowest content node)"),
    ("node_other", "other on that node (rank program, match features, reply)"),
    ("dispatch", "dispatch: RPC to the nodes and back, merging"),
    ("between", "searchers returning the search result"),
    ("summary", "summary fetch (fill: docsum RPC and the searchers it passes)"),
    ("after", "the rest of the chain (exploration, statistics)"),
)


def _messages(trace, out: list) -> None:
    if isinstance(trace, dict):
        message = trace.get("message")
        if isinstance(message, str):
            out.append((float(trace.get("timestamp", 0)), message))
        elif message is not None:
            _messages(message, out)
        if "distribution-key" in trace:
            out.append((None, trace))
        for key, value in trace.items():
            if key != "message":
                _messages(value, out)
    elif isinstance(trace, list):
        for item in trace:
            _messages(item, out)


def parts_of(body: dict, total_ms: float) -> dict | None:
    """The parts of one traced query, in ms, summing to its total as the client measured it."""
    messages: list = []
    _messages(body.get("trace", {}), messages)
    timed = [(t, m) for t, m in messages if t is not None]
    nodes = [m for t, m in messages if t is None]

    def first(prefix: str) -> float | None:
        return next((t for t, m in timed if m.startswith(prefix)), None)

    dispatch_start = next((t for t, m in timed if m.startswith("Dispatching to group") or " search to dispatch:" in m), None)
    dispatch_end = next((t for t, m in timed if "dispatch response" in m), None)
    # StatisticsSearcher's own figures: the search (until the result is back in it), then the summary fetch
    query_time = next((float(m.rsplit(":", 1)[1].strip().split()[0]) for t, m in timed if m.startswith("Query time")), None)
    summary = next((float(m.rsplit(":", 1)[1].strip().split()[0]) for t, m in timed if m.startswith("Summary fetch time")), None)
    end = max(t for t, _ in timed) if timed else None
    if None in (dispatch_start, dispatch_end, query_time, summary, end) or not nodes:
        return None

    def phase(node: dict, name: str) -> float:
        return sum(t.get("duration_ms", 0) for t in node.get("traces", []) if t.get("phase") == name)

    slowest = max(nodes, key=lambda n: n.get("duration_ms", 0))
    node_total = slowest.get("duration_ms", 0)
    row = {"match": phase(slowest, "match"), "first_phase": phase(slowest, "first phase"),
           "second_phase": phase(slowest, "second phase")}
    row["node_other"] = node_total - row["match"] - row["first_phase"] - row["second_phase"]
    row["searchers"] = dispatch_start
    row["dispatch"] = (dispatch_end - dispatch_start) - node_total
    row["between"] = query_time - dispatch_end
    row["summary"] = summary
    row["after"] = end - query_time - summary
    row["http"] = total_ms - end
    row["total"] = total_ms
    return row


def traced_query(path: str) -> dict | None:
    url = f"{CONTAINER}{path}&trace.level=3&trace.timestamps=true"
    started = time.perf_counter()
    with urllib.request.urlopen(url, timeout=30) as response:
        body = json.loads(response.read())
    return parts_of(body, (time.perf_counter() - started) * 1000)


def run(query_file: Path, rate: float, count: int) -> list[dict]:
    """count traced queries from the file, due at a fixed rate (open loop, at most 32 in flight)."""
    paths = query_file.read_text().splitlines()
    rows: list[dict] = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=32) as pool:
        futures = []
        begin = time.perf_counter() + 0.05
        for i in range(count):
            wait = begin + i / rate - time.perf_counter()
            if wait > 0:
                time.sleep(wait)
            futures.append(pool.submit(traced_query, paths[i % len(paths)]))
        for future in futures:
            try:
                row = future.result()
            except OSError:
                row = None
            if row is not None:
                rows.append(row)
    return rows


def tail_analysis(rows: list[dict]) -> dict:
    """p99 of the totals, and of the totals with each part replaced by its median in every query."""
    totals = np.array([r["total"] for r in rows])
    p99 = float(np.percentile(totals, 99))
    moved = {}
    for name, _ in PARTS:
        values = np.array([r[name] for r in rows])
        replaced = totals - values + float(np.median(values))
        moved[name] = float(np.percentile(replaced, 99))
    return {"p99": p99, "p99_with_median": moved}


def report(results: dict, rate: float) -> str:
    lines = ["# Where a query's time goes (per-phase cost, and the tail)", "",
             f"Article views drawn by popularity, {rate:.0f} queries/s open loop, traced (trace.level=3, timestamps), on this "
             "machine (2 cores, shared with other work: compare shares and ratios, not absolute times across runs). "
             "Container parts come from the searchers' trace timestamps (whole ms), content-node parts from the "
             "nodes' own timers (the slowest node of each query, which the query waits for), HTTP and rendering "
             "are the client's total minus the traced span. The trace adds cost of its own.", ""]
    for profile, rows in results.items():
        if not rows:
            continue
        tail = tail_analysis(rows)
        total_median = statistics.median(r["total"] for r in rows)
        lines += [f"## {profile} ({len(rows)} queries)", "",
                  f"Total: median {total_median:.2f} ms, p99 {tail['p99']:.2f} ms.", "",
                  "| part | median ms | mean ms | p99 ms | share of mean total | p99 of totals with this part at its median | p99 change |",
                  "|---|---|---|---|---|---|---|"]
        mean_total = statistics.fmean(r["total"] for r in rows)
        for name, description in PARTS:
            values = [r[name] for r in rows]
            moved = tail["p99_with_median"][name]
            lines.append(f"| {description} | {statistics.median(values):.2f} | {statistics.fmean(values):.2f} | "
                         f"{float(np.percentile(values, 99)):.2f} | {statistics.fmean(values) / mean_total:.0%} | {moved:.2f} | "
                         f"{(moved - tail['p99']) / tail['p99']:+.0%} |")
        worst = min(tail["p99_with_median"].items(), key=lambda item: item[1])
        lines += ["", f"The tail: putting `{worst[0]}` at its median moves p99 most, "
                      f"{tail['p99']:.2f} → {worst[1]:.2f} ms ({(worst[1] - tail['p99']) / tail['p99']:+.0%}).", ""]
    return "\n".join(lines)


def main() -> None:
    import sys
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from queries import write_query_file

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", type=Path, required=True)
    parser.add_argument("--profiles", default="freshness,neural,neural_onnx")
    parser.add_argument("--rate", type=float, default=50)
    parser.add_argument("--count", type=int, default=600)
    parser.add_argument("--out", type=Path, default=Path(__file__).resolve().parent / "results" / "phases.md")
    args = parser.parse_args()
    results = {}
    for profile in args.profiles.split(","):
        queries = write_query_file(args.corpus, profile, Path(f"/tmp/dwell-phases-{profile}.txt"))
        results[profile] = run(queries, args.rate, args.count)
        print(f"{profile}: {len(results[profile])} traced queries", flush=True)
    text = report(results, args.rate)
    args.out.write_text(text)
    print(text)


if __name__ == "__main__":
    main()
