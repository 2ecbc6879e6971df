"""Serving benchmark of dwell's runtime (issues 3 and 7): durable feed and update rates through
/document/v1 with Vespa's Java feed client, and query latency at fixed arrival rates for each rank
profile, each figure next to a floor measured in the same run.

    ./dwell bench                       # small corpus (100k comments)
    ./dwell bench --preset tiny --smoke # seconds long: checks that the tools work

It starts its own runtime (own data directory), deploys target/application, feeds authors with the
vespa CLI and comments with FeedBenchmark (bench/, vespa-feed-client), measures updates, then runs
the open-loop load generator (bench/, fbench's interface) against /search/ and, as the floor,
against /status.html on the same HTTP stack; last, writes at half the maximum rates for their
latency. It writes bench/results/runtime.md and PNG plots.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from dwell_client import Runtime, vespa, wait_for_container

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT / "feed"))
sys.path.insert(0, str(ROOT / "learning"))

import onnx_threads  # noqa: E402
import phases  # noqa: E402
from queries import write_query_file  # noqa: E402

PROFILES = ("freshness", "neural", "neural_onnx")


def build() -> Path:
    subprocess.run([str(ROOT / "dwell"), "build"], check=True, cwd=ROOT)
    subprocess.run(["mvn", "-B", "-q", "-f", str(ROOT / "bench" / "pom.xml"), "package"], check=True, cwd=ROOT)
    return ROOT / "bench" / "target" / "dwell-bench-1.0.0.jar"


def bench_classpath(jar: Path) -> str:
    return f"{jar}:{(jar.parent / 'classpath.txt').read_text().strip()}"


def feed_benchmark(jar: Path, mode: str, prefix: str, *, corpus: Path | None = None, count: int = 0,
                   targets: int = 0, rate: float = 0, seconds: int = 10) -> dict:
    """One run of FeedBenchmark (vespa-feed-client): the maximum rate (count operations) or, with a rate, open loop."""
    command = ["java", "-Xmx1g", "-cp", bench_classpath(jar), "ai.dwell.bench.FeedBenchmark", "--mode", mode, "--prefix", prefix]
    if corpus is not None:
        command += ["--corpus", str(corpus)]
    if targets:
        command += ["--targets", str(targets)]
    command += ["--rate", f"{rate:.1f}", "--seconds", str(seconds)] if rate > 0 else ["--count", str(count)]
    before, started = cpu_seconds(RUNTIME_PID[0]), time.time()
    result = subprocess.run([*command, "http://localhost:8080/"], stdout=subprocess.PIPE, text=True, check=True)  # progress on stderr
    row = json.loads(result.stdout.strip().splitlines()[-1])
    idle = (IDLE_CPU_PER_SECOND[0] if IDLE_CPU_PER_SECOND else 0) * (time.time() - started)
    row["cpu_us"] = max(0.0, cpu_seconds(RUNTIME_PID[0]) - before - idle) * 1e6 / max(1, row["ok"] + row["failed"])
    print(f"feed {mode}{f' @ {rate:.0f}/s' if rate else ''}: {row['ok']} ok, {row['failed']} failed, {row['rate']:.0f}/s, "
          f"p50 {row['p50']:.2f} ms, p99 {row['p99']:.2f} ms", flush=True)
    return row


def feed_benchmarks(jar: Path, corpus: Path, updates: int) -> dict:
    """The maximum put and update rates, and the floor: removes of missing documents (document API round
    trip without indexing or a log write). The comments are fed here, under ids c-0, c-1, ..."""
    comments = sum(1 for _ in open(corpus / "comments.jsonl"))
    measure_idle_cpu(3)
    rows = {"floor (remove of a missing document)": feed_benchmark(jar, "remove-missing", "f", count=min(comments, 50_000)),
            "put (comments, max)": feed_benchmark(jar, "put", "c", corpus=corpus / "comments.jsonl", count=comments),
            "update (upvotes += 1, max)": feed_benchmark(jar, "update", "c", targets=comments, count=updates)}
    rows["comments"] = comments
    return rows


def write_latency(jar: Path, corpus: Path, maxima: dict, seconds: int) -> dict:
    """Write latency at half of each maximum rate, and the floor at the same rate."""
    comments = maxima["comments"]
    put_rate = maxima["put (comments, max)"]["rate"] / 2
    update_rate = maxima["update (upvotes += 1, max)"]["rate"] / 2
    return {"floor @ half put rate": feed_benchmark(jar, "remove-missing", "g", rate=put_rate, seconds=seconds),
            "put @ half max": feed_benchmark(jar, "put", "h", corpus=corpus / "comments.jsonl", rate=put_rate, seconds=seconds),
            "floor @ half update rate": feed_benchmark(jar, "remove-missing", "k", rate=update_rate, seconds=seconds),
            "update @ half max": feed_benchmark(jar, "update", "c", targets=comments, rate=update_rate, seconds=seconds)}


def generate(preset: str, seed: int, out: Path) -> Path:
    subprocess.run([sys.executable, "-m", "dwell_feed", "generate", "--preset", preset, "--seed", str(seed), "--out", str(out)],
                   check=True, cwd=ROOT, env={**__import__("os").environ, "PYTHONPATH": f"{ROOT / 'feed'}:{ROOT / 'learning'}"})
    return out


def feed(corpus: Path) -> dict:
    """Feeds authors and models with the vespa CLI (comments go through FeedBenchmark); returns the summaries."""
    summaries = {}
    for part in ("authors", "rankingmodel"):
        path = corpus / f"{part}.jsonl"
        if not path.exists():
            continue
        started = time.time()
        result = vespa("feed", "--connections", "4", str(path), check=True, timeout=3600)
        summary = json.loads(result.stdout[result.stdout.index("{"):])
        summary["wall_seconds"] = time.time() - started
        summaries[part] = summary
        print(f"fed {part}: {summary.get('feeder.ok.count')} documents at {summary.get('feeder.ok.rate')} docs/s", flush=True)
    return summaries


def cpu_seconds(pid: int) -> float:
    """User + system CPU time the process has used (all its threads), from /proc."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


RUNTIME_PID: list[int] = []
IDLE_CPU_PER_SECOND: list[float] = []


def measure_idle_cpu(seconds: float = 5) -> None:
    """The runtime's CPU use with no requests (model refresh, pings, compilation), subtracted from each run."""
    before = cpu_seconds(RUNTIME_PID[0])
    time.sleep(seconds)
    IDLE_CPU_PER_SECOND[:] = [(cpu_seconds(RUNTIME_PID[0]) - before) / seconds]


def load(jar: Path, queries: Path, rate: float, seconds: int) -> dict:
    """One open-loop run; with the runtime's CPU time per request (cpu_ms: answered, refused or failed), which
    other work on the machine does not inflate as it does latency: 2 cores' worth of it is the runtime's capacity here."""
    before = cpu_seconds(RUNTIME_PID[0]) if RUNTIME_PID else None
    started = time.time()
    row = _load(jar, queries, rate, seconds)
    row["seconds"] = seconds
    if before is not None:
        idle = (IDLE_CPU_PER_SECOND[0] if IDLE_CPU_PER_SECOND else 0) * (time.time() - started)
        row["cpu_ms"] = max(0.0, cpu_seconds(RUNTIME_PID[0]) - before - idle) * 1000 / max(1, row["ok"] + row.get("refused", 0) + row.get("failed", 0))
    return row


def _load(jar: Path, queries: Path, rate: float, seconds: int) -> dict:
    result = subprocess.run(["java", "-cp", str(jar), "ai.dwell.bench.LoadGenerator", "-s", str(seconds), "-q", str(queries),
                             "-i", str(int(rate)), "--rate", str(rate), "--slo", "10,50", "localhost", "8080"],
                            capture_output=True, text=True, check=True)
    return json.loads(result.stdout.strip().splitlines()[-1])


def one_at_a_time(jar: Path, queries: Path, seconds: int) -> dict:
    """One client, each request sent when the last was answered, over one kept-alive connection (closed loop, an idle
    runtime but for it); the first 20 dropped as warm-up. With the runtime's CPU time per request, as load()."""
    before, started = cpu_seconds(RUNTIME_PID[0]), time.time()
    result = subprocess.run(["java", "-cp", str(jar), "ai.dwell.bench.LoadGenerator", "-n", "1", "-s", str(seconds), "-q", str(queries),
                             "-i", "20", "--slo", "10,50", "localhost", "8080"], capture_output=True, text=True, check=True)
    row = json.loads(result.stdout.strip().splitlines()[-1])
    idle = (IDLE_CPU_PER_SECOND[0] if IDLE_CPU_PER_SECOND else 0) * (time.time() - started)
    row["cpu_ms"] = max(0.0, cpu_seconds(RUNTIME_PID[0]) - before - idle) * 1000 / max(1, row["ok"] + row.get("refused", 0) + row.get("failed", 0))
    return row


def largest_article(corpus: Path) -> tuple[str, int]:
    """The article with the most comments in a generated corpus, and their number."""
    with open(corpus / "articles.jsonl") as file:
        articles = [json.loads(line) for line in file]
    best = max(articles, key=lambda a: a["comments"])
    return best["article_id"], best["comments"]


def measure_idle_views(jar: Path, corpus: Path, work: Path, args: argparse.Namespace) -> dict:
    """Views of the largest article one at a time on an otherwise idle runtime, for each profile with the engine
    alone (cache=false), next to /status.html measured the same way."""
    article, comments = largest_article(corpus)
    seconds = 2 if args.smoke else 10
    floor = work / "idle-floor.txt"
    floor.write_text("/status.html\n")
    rows = {"floor (/status.html)": one_at_a_time(jar, floor, seconds)}
    for profile in args.profiles.split(","):
        path = work / f"idle-{profile}.txt"
        params = "&".join(p for p in (args.query_params, "cache=false") if p)
        path.write_text(f"/search/?article={article}&ranking={profile}&hits=10&timeout=5s&{params}\n")
        rows[profile] = one_at_a_time(jar, path, seconds)
        print(f"idle views of {article} ({comments} comments), {profile}: p50 {rows[profile]['p50']:.2f} ms, p90 {rows[profile]['p90']:.2f} ms", flush=True)
    return {"article": article, "comments": comments, "seconds": seconds, "rows": rows}


def idle_report(idle: dict) -> list[str]:
    if not idle:
        return []
    floor = idle["rows"]["floor (/status.html)"]
    lines = ["## One view at a time", "",
             f"The largest article, {idle['article']} ({idle['comments']:,} comments), viewed by one client over one kept-alive "
             f"connection, each view sent when the last was answered, for {idle['seconds']} s (the engine alone: cache=false), "
             "next to /status.html measured the same way.", "",
             "| path | views | p50 ms | p90 ms | p99 ms | p50 / floor | cpu ms/view |", "|---|---|---|---|---|---|---|"]
    for name, r in idle["rows"].items():
        lines.append(f"| {name} | {r['ok']} | {r['p50']:.2f} | {r.get('p90', float('nan')):.2f} | {r['p99']:.2f} | "
                     f"{r['p50'] / floor['p50']:.1f}x | {r['cpu_ms']:.2f} |")
    return lines + [""]


def second_phase_cost() -> str:
    """The network per document: the engine's compiled `neural`, its batched `neural_onnx`, and ONNX
    Runtime alone on the same feature matrix, measured in one run (runtime's NeuralBenchmarkTest)."""
    subprocess.run(["mvn", "-B", "-q", "-f", str(ROOT / "runtime" / "pom.xml"), "surefire:test", "-Dtest=NeuralBenchmarkTest",
                    "-Dsurefire.failIfNoSpecifiedTests=false"], check=True, cwd=ROOT, capture_output=True)
    output = ROOT / "runtime" / "target" / "surefire-reports" / "ai.dwell.runtime.rank.NeuralBenchmarkTest-output.txt"
    return "\n".join(line for line in output.read_text().splitlines() if "µs" in line or "second phase" in line)


def plot(results: dict, out: Path) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(11, 4))
    for name, rows in results.items():
        rates = [r["rate"] for r in rows]
        axes[0].plot(rates, [r["p99"] for r in rows], marker="o", label=name)
        axes[1].plot(rates, [r["miss_10ms"] for r in rows], marker="o", label=name)
    axes[0].set(xlabel="offered load (queries/s)", ylabel="p99 latency (ms)", yscale="log", title="p99 vs offered load")
    axes[1].set(xlabel="offered load (queries/s)", ylabel="share slower than 10 ms", title="SLO miss rate @ 10 ms")
    for ax in axes:
        ax.grid(True, alpha=0.3)
        ax.legend()
    fig.tight_layout()
    fig.savefig(out, dpi=120)


def ratio(value: float, floor: float) -> float:
    """value / floor; NaN where the floor is zero (a short smoke run can measure no CPU for the floor)."""
    return value / floor if floor else float("nan")


def report(feed_summary: dict, writes: dict, latency: dict, results: dict, idle: dict, network: str, args: argparse.Namespace, out: Path) -> str:
    lines = [f"# dwell runtime: serving benchmark ({args.preset} corpus)", "",
             f"Open loop, {args.seconds} s per point, first second dropped, on this machine (2 cores, shared with other work: "
             "compare the ratios within a run, not absolute figures across runs). "
             "The query floor is /status.html on the same container and HTTP stack, at the same rate, in the same run.", ""]
    if args.query_params:
        lines += [f"Every query also carries `{args.query_params}`.", ""]
    if writes:
        lines += write_report(feed_summary, writes, latency)
    lines += idle_report(idle)
    lines += query_report(results, network)
    text = "\n".join(lines)
    (out / "runtime.md").write_text(text)
    (out / "runtime.json").write_text(json.dumps({"feed": feed_summary, "writes": writes, "write_latency": latency, "idle_views": idle,
                                                  "queries": results}, indent=1))
    return text


def write_report(feed_summary: dict, writes: dict, latency: dict) -> list[str]:
    lines = ["## Feed (durable: acknowledged after fsync)", "",
             "Through /document/v1 with Vespa's Java feed client (HTTP/2, 4 connections). The floor is a remove of a missing "
             "document: the same client, HTTP/2 and document API round trip, with no indexing and no log write.", "",
             "cpu µs/op: the runtime's CPU time (all threads) per operation; 2 cores / cpu µs/op is the most operations/s "
             "the runtime could take here with nothing else running (the feed client runs on the same machine, too).", "",
             "| operation | ok | failed | ops/s | p50 ms | p99 ms | ops/s / floor | goal | of goal | cpu µs/op | capacity on 2 cores |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    write_floor = writes["floor (remove of a missing document)"]
    goals = {"put (comments, max)": 10_000, "update (upvotes += 1, max)": 20_000}
    for name, row in writes.items():
        if name == "comments":
            continue
        goal = goals.get(name)
        of_goal = f"{row['rate'] / goal:.2f}" if goal else ""
        goal_text = f"{goal:,}/s" if goal else ""
        cpu = row.get("cpu_us", float("nan"))
        lines.append(f"| {name} | {row['ok']} | {row['failed']} | {row['rate']:.0f} | {row['p50']:.2f} | {row['p99']:.2f} | "
                     f"{row['rate'] / write_floor['rate']:.2f}x | {goal_text} | {of_goal} | {cpu:.0f} | {2e6 / cpu:.0f}/s |")
    lines += ["", "At half the maximum rate (open loop, latency from the intended send time):", "",
              "| operation | offered/s | achieved/s | p50 ms | p95 ms | p99 ms | p50 / floor | p99 / floor | p50 goal 1 ms |", "|---|---|---|---|---|---|---|---|---|"]
    for name in ("put @ half max", "update @ half max"):
        row = latency[name]
        f = latency["floor @ half put rate" if name.startswith("put") else "floor @ half update rate"]
        achieved = row["ok"] / max(row["seconds"], 1e-9)
        lines.append(f"| {name} | {row['offered']:.0f} | {achieved:.0f} | {row['p50']:.2f} | {row['p95']:.2f} | {row['p99']:.2f} | "
                     f"{row['p50'] / f['p50']:.1f}x | {row['p99'] / f['p99']:.1f}x | {row['p50'] / 1.0:.2f}x |")
    for name in ("floor @ half put rate", "floor @ half update rate"):
        row = latency[name]
        lines.append(f"| {name} | {row['offered']:.0f} | {row['ok'] / max(row['seconds'], 1e-9):.0f} | {row['p50']:.2f} | {row['p95']:.2f} | {row['p99']:.2f} | 1.0x | 1.0x | |")
    lines += ["", "Authors and the model, with the vespa CLI:", "", "| part | documents | docs/s |", "|---|---|---|"]
    for part, summary in feed_summary.items():
        lines.append(f"| {part} | {summary.get('feeder.ok.count')} | {summary.get('feeder.ok.rate')} |")
    return lines + [""]


def refused(row: dict) -> int:
    """Requests answered with another status than 2xx (503 when the runtime sheds load)."""
    return sum(n for code, n in row.get("status", {}).items() if not str(code).startswith("2"))


def sustained(row: dict) -> bool:
    """Whether the rate was kept up: at least 95% of what could be answered (the first second of a run is dropped, so at
    full speed (seconds - 1) / seconds of the offered rate), under 0.1% refused."""
    seconds = row.get("seconds", 15)
    return row["achieved"] >= 0.95 * row["rate"] * (seconds - 1) / seconds and refused(row) <= 0.001 * (row["ok"] + refused(row))


def query_report(results: dict, network: str) -> list[str]:
    floor = {r["rate"]: r for r in results["floor (/status.html)"]}
    best, peak, capacity = {}, {}, {}
    for name, rows in results.items():
        within = [r["rate"] for r in rows if sustained(r) and r["p99"] <= 10]
        best[name] = max(within) if within else 0
        peak[name] = max(r["achieved"] for r in rows)
        cpu = sorted(r["cpu_ms"] for r in rows if r.get("cpu_ms") and sustained(r))
        if cpu:
            capacity[name] = 2000 / cpu[len(cpu) // 2]
    queries = [name for name in results if not name.startswith("floor")]
    lines = ["## Queries", "",
             "The runtime's capacity from its CPU time per query (median over the rates it sustained; 2 cores, nothing else running): " +
             ", ".join(f"{name} {rate:.0f}/s" for name, rate in capacity.items()) + ".", "",
             "Highest offered rate sustained with p99 ≤ 10 ms (goal: 1,000/s): " +
             ", ".join(f"{name} {best[name]:.0f}/s" for name in queries) +
             f"; the floor sustained {best.get('floor (/status.html)', 0):.0f}/s at that p99. "
             "Most queries answered per second at any offered rate: " + ", ".join(f"{name} {peak[name]:.0f}/s" for name in queries) + ".", "",
             "answered/s: queries answered with 200 per second. refused: answered 503, when the runtime sheds load past its capacity "
             "(runtime/README.md, search overload); refused queries are not in the latency percentiles, and count as misses at every SLO target. "
             "cpu ms/query: the runtime's CPU time (all threads, less its CPU use when idle) per request at that rate, which other work on the "
             "machine does not inflate as it inflates latency; 2 cores / cpu ms/query is the most queries/s the runtime could serve here.", "",
             "| path | offered/s | answered/s | refused | p50 ms | p95 ms | p99 ms | miss@10ms | miss@50ms | p50 / floor | p99 / floor | cpu ms/query | cpu / floor |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for name, rows in results.items():
        for r in rows:
            f = floor[r["rate"]]
            total = r["ok"] + refused(r) + r.get("failed", 0)
            lines.append(f"| {name} | {r['rate']:.0f} | {r['achieved']:.1f} | {refused(r) / max(1, total):.1%} | {r['p50']:.2f} | {r['p95']:.2f} | {r['p99']:.2f} | "
                         f"{r['miss_10ms']:.3f} | {r['miss_50ms']:.3f} | {r['p50'] / f['p50']:.1f}x | {r['p99'] / f['p99']:.1f}x | "
                         f"{r.get('cpu_ms', float('nan')):.2f} | {ratio(r.get('cpu_ms', float('nan')), f.get('cpu_ms', float('nan'))):.1f}x |")
    lines += ["", "![p99 and SLO miss rate vs offered load](runtime.png)", ""]
    if network:
        lines += ["## Second phase per document (2,000-comment article, same run)", "", "```", network, "```", ""]
    lines += ["The machine is shared with other work while this runs: compare ratios within a run, not absolute times across runs.", ""]
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--preset", default="small")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--rates", default="50,100,200,400,800,1200")
    parser.add_argument("--seconds", type=int, default=15)
    parser.add_argument("--updates", type=int, default=100_000, help="updates in the maximum-rate run")
    parser.add_argument("--phase-rate", type=float, default=40, help="traced queries/s for the per-phase breakdown")
    parser.add_argument("--phase-count", type=int, default=600, help="traced queries per profile")
    parser.add_argument("--onnx-threads", action="store_true", help="also neural_onnx with 1 vs 2 intra-op threads (redeploys twice)")
    parser.add_argument("--no-build", action="store_true", help="use what is built (target/application, runtime, bench jar)")
    parser.add_argument("--smoke", action="store_true", help="seconds long, to check the tools (CI)")
    parser.add_argument("--keep", action="store_true", help="keep the work directory (the corpus and the runtime's data), "
                        "which is removed at the end otherwise")
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results")
    parser.add_argument("--queries-only", type=Path, metavar="DATA",
                        help="measure only queries, against the runtime already serving DATA (./dwell start with DWELL_DATA=DATA, "
                             "e.g. the data of an earlier run, recovered); with --corpus, the corpus fed into it")
    parser.add_argument("--corpus", type=Path, help="with --queries-only: the generated corpus the runtime holds")
    parser.add_argument("--profiles", default=",".join(PROFILES), help="the rank profiles to load, comma-separated")
    parser.add_argument("--query-params", default="", help="more parameters for every query, e.g. "
                        "'ranking.matchPhase.maxHits=2000&ranking.matchPhase.attribute=created_at'")
    parser.add_argument("--cache", choices=["off", "on", "both"], default="off",
                        help="the package's hot-article cache: off (cache=false on every view: the engine alone, the default), "
                             "on, or both (each profile twice: '<profile>' with it off, '<profile> + cache' with it on)")
    args = parser.parse_args()
    if args.smoke:
        args.rates, args.seconds, args.updates = "20,40", 2, 500
    if args.queries_only and not args.corpus:
        parser.error("--queries-only needs --corpus")
    args.out.mkdir(parents=True, exist_ok=True)
    jar = ROOT / "bench" / "target" / "dwell-bench-1.0.0.jar" if args.no_build else build()
    work = Path(tempfile.mkdtemp(prefix="dwell-bench-"))
    try:
        run(args, jar, work)
    finally:  # the corpus and the runtime's data (~300 MB for the tiny preset) are the run's own
        if args.keep:
            print(f"kept {work}", file=sys.stderr)
        else:
            shutil.rmtree(work, ignore_errors=True)


def run(args: argparse.Namespace, jar: Path, work: Path) -> None:
    """Feeds and measures in work (a new directory): the report goes to args.out."""
    if args.queries_only:
        RUNTIME_PID.append(int((args.queries_only / "runtime.pid").read_text()))
        wait_for_container()
        # the writes measured when the corpus was fed, by an earlier run into the same --out, stay in the report
        earlier = json.loads((args.out / "runtime.json").read_text()) if (args.out / "runtime.json").exists() else {}
        results, idle = measure_queries(jar, args.corpus, work, args)
        plot(results, args.out / "runtime.png")
        print(report(earlier.get("feed", {}), earlier.get("writes", {}), earlier.get("write_latency", {}), results, idle,
                     "(not measured in a smoke run)" if args.smoke else second_phase_cost(), args, args.out))
        return
    corpus = generate(args.preset, args.seed, work / "corpus")
    runtime = Runtime(work / "data")
    runtime.start()
    RUNTIME_PID.append(int((work / "data" / "runtime.pid").read_text()))
    try:
        vespa("deploy", "--wait", "300", str(ROOT / "target" / "application"))
        wait_for_container()
        feed_summary = feed(corpus)
        writes = feed_benchmarks(jar, corpus, args.updates)
        results, idle = measure_queries(jar, corpus, work, args)
        latency = write_latency(jar, corpus, writes, args.seconds)
        if args.onnx_threads:
            clients = (1, 4) if args.smoke else onnx_threads.CLIENTS
            seconds = 2 if args.smoke else args.seconds
            threads = onnx_threads.run(jar, ROOT / "target" / "application", work / "neural_onnx.txt", work, seconds, clients)
            onnx_threads.plot(threads, args.out / "onnx_threads.png")
            (args.out / "onnx_threads.md").write_text(onnx_threads.report(threads, seconds))
    finally:
        runtime.stop()
    plot(results, args.out / "runtime.png")
    print(report(feed_summary, writes, latency, results, idle, "(not measured in a smoke run)" if args.smoke else second_phase_cost(), args, args.out))


def measure_queries(jar: Path, corpus: Path, work: Path, args: argparse.Namespace) -> tuple[dict[str, list[dict]], dict]:
    """Views one at a time (idle), the floor and each profile at each rate (open loop), then the traced per-phase
    breakdown (phases.md)."""
    floor_queries = work / "floor.txt"
    floor_queries.write_text("/status.html\n")
    results: dict[str, list[dict]] = {"floor (/status.html)": []}
    rates = [float(r) for r in args.rates.split(",")]
    load(jar, floor_queries, 100, 2 if args.smoke else 5)  # warm up the HTTP path
    measure_idle_cpu(2 if args.smoke else 5)
    idle = measure_idle_views(jar, corpus, work, args)
    for rate in rates:
        results["floor (/status.html)"].append(load(jar, floor_queries, rate, args.seconds))
    profiles = args.profiles.split(",")
    variants = {"off": [False], "on": [True], "both": [False, True]}[args.cache]
    for profile in profiles:
        for cached in variants:
            name = f"{profile} + cache" if cached and args.cache == "both" else profile
            params = "&".join(p for p in (args.query_params, "" if cached else "cache=false") if p)
            queries = write_query_file(corpus, profile, work / f"{name.replace(' + ', '-')}.txt", params=params)
            load(jar, queries, 50, 2 if args.smoke else 10)  # warm up this profile's code paths (JIT) before measuring
            results[name] = []
            for rate in rates:
                row = load(jar, queries, rate, args.seconds)
                results[name].append(row)
                print(f"{name} @ {rate:.0f}/s: answered {row['achieved']:.0f}/s, refused {refused(row)}, p50 {row['p50']:.2f} ms, "
                      f"p99 {row['p99']:.2f} ms, miss@10ms {row['miss_10ms']:.3f}", flush=True)
    traced = {}
    for profile in profiles:
        traced[profile] = phases.run(work / f"{profile}.txt", args.phase_rate, 20 if args.smoke else args.phase_count)
        print(f"phases of {profile}: {len(traced[profile])} traced queries", flush=True)
    (args.out / "phases.md").write_text(phases.report(traced, args.phase_rate))
    return results, idle


if __name__ == "__main__":
    main()
