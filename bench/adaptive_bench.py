"""Parallelism that follows load (issue 7, part 5): one content node ranks a query on several threads when
it is idle and on one thread per query under load. This compares three threads-per-search policies in one
run, on the same runtime process, interleaved, against a floor measured in between:

    static-1    every query on one thread            (ranking.properties.dwell.threadspersearch=1)
    static-max  every query on all cores              (=<cores>, proton's static num-threads-per-search)
    adaptive    max(1, cores / searches in flight)    (=adaptive, the runtime's default)

    ./dwell bench --adaptive                  # small corpus (100k comments) on one content node
    .venv/bin/python bench/adaptive_bench.py --smoke --preset tiny   # seconds long: checks the tool (CI)

It starts its own runtime with one content node (--shards 1), deploys target/application, feeds the corpus,
then, for each round, restarts the runtime (it recovers the data), warms it up, and runs the open-loop load
generator at low rates (latency: p50/p95/p99, SLO miss @10/50 ms) and at a ladder of high rates (the highest
rate sustained, the answered queries/s), for each policy and for the floor (/status.html on the same HTTP
stack), each policy's points next to each other in time. The queries touch many documents each, so that
splitting one matters: the front page (every comment ranked with neural) and views of the most-commented
articles. Before measuring, every query is checked to return the same hits and scores under each policy.
Each round holds /tmp/dwell-runtime.lock (taken here unless the caller holds it) for less than 10 minutes.
Writes bench/results/adaptive.md, adaptive.json and adaptive.png.
"""
from __future__ import annotations

import argparse
import collections
import json
import os
import shutil
import signal
import sys
import tempfile
import time
import urllib.parse
import urllib.request
from pathlib import Path

from dwell_client import Runtime, runtime_lock, vespa, wait_for_container

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

import runtime_bench  # noqa: E402

CORES = os.cpu_count() or 1
POLICIES = {"static-1": "1", f"static-{CORES}": str(CORES), "adaptive": "adaptive"}
FLOOR = "floor (/status.html)"
FRONT_PAGE = "select * from comment where true"




def biggest_articles(corpus: Path, count: int) -> list[tuple[str, int]]:
    sizes: collections.Counter = collections.Counter()
    with open(corpus / "comments.jsonl") as comments:
        for line in comments:
            sizes[json.loads(line)["fields"]["article_id"]] += 1
    return sizes.most_common(count)


def query_paths(articles: list[tuple[str, int]], policy: str, count: int) -> list[str]:
    """Front-page queries and views of the biggest articles, alternating, all ranked with neural."""
    front = "/search/?" + urllib.parse.urlencode({"yql": FRONT_PAGE, "ranking": "neural", "hits": 10, "timeout": "5s"})
    views = [f"/search/?article={article}&ranking=neural&hits=10&timeout=5s&cache=false" for article, _ in articles]  # the engine
    suffix = f"&ranking.properties.dwell.threadspersearch={policy}"
    paths = []
    for i in range(count):
        base = front if i % 2 == 0 else views[(i // 2) % len(views)]
        paths.append(base + suffix)
    return paths


def write_query_files(articles: list[tuple[str, int]], work: Path, count: int) -> dict[str, Path]:
    files = {}
    for name, policy in POLICIES.items():
        files[name] = work / f"adaptive-{name}.txt"
        files[name].write_text("\n".join(query_paths(articles, policy, count)) + "\n")
    files[FLOOR] = work / "floor.txt"
    files[FLOOR].write_text("/status.html\n")
    return files


def get(path: str) -> dict:
    with urllib.request.urlopen("http://localhost:8080" + path, timeout=30) as response:
        return json.load(response)


def check_same_results(articles: list[tuple[str, int]]) -> list[str]:
    """Each distinct query under every policy: the same hits, in the same order, with the same relevance.
    Returns the queries checked; raises if a policy answers differently."""
    checked = []
    for base in query_paths(articles, "1", 2 * len(articles))[:1 + len(articles)]:
        base = base.rsplit("&ranking.properties", 1)[0]
        answers = {}
        for name, policy in POLICIES.items():
            root = get(f"{base}&ranking.properties.dwell.threadspersearch={policy}&exploration.rate=0")["root"]
            answers[name] = [(hit["id"], hit["relevance"]) for hit in root.get("children", [])], root["fields"]["totalCount"]
        first = answers["static-1"]
        for name, answer in answers.items():
            if answer != first:
                raise AssertionError(f"{name} answers {base} differently from static-1: {answer} vs {first}")
        checked.append(f"{base} ({first[1]} matches)")
    return checked


def threads_used(articles: list[tuple[str, int]]) -> dict[str, str]:
    """What the content node's trace says about the threads of one idle front-page query per policy."""
    used = {}
    base = query_paths(articles, "1", 1)[0].rsplit("&ranking.properties", 1)[0]
    for name, policy in POLICIES.items():
        text = json.dumps(get(f"{base}&ranking.properties.dwell.threadspersearch={policy}&trace.level=3").get("trace", {}))
        marker = text.find(" ranked with 'neural' on ")
        used[name] = text[marker + len(" ranked with 'neural' on "):].split('"')[0] if marker >= 0 else "?"
    return used


def measure(jar: Path, queries: Path, rate: float, seconds: int) -> dict:
    row = runtime_bench.load(jar, queries, rate, seconds)
    good = row["ok"]  # answered with 2xx; refused (e.g. 503) and failed requests are errors
    errors = row.get("refused", 0) + row["failed"]
    measured = max(1e-9, seconds - 1)  # the first second is dropped (-i)
    row.update(good=good, errors=errors, throughput=good / measured,
               error_rate=errors / max(1, good + errors))
    return row


def run_round(jar: Path, files: dict[str, Path], low: list[float], high: list[float], seconds: int, round_no: int,
              results: dict, smoke: bool) -> None:
    order = [FLOOR, *POLICIES]
    warm = 2 if smoke else 8
    for name in POLICIES:  # JIT and the rank program cache, for every policy
        runtime_bench.load(jar, files[name], 20, warm)
    runtime_bench.measure_idle_cpu(1 if smoke else 3)
    for kind, rates in (("low", low), ("high", high)):
        for i, rate in enumerate(rates):
            turn = order[(i + round_no) % len(order):] + order[:(i + round_no) % len(order)]  # no policy always first
            for name in turn:
                row = measure(jar, files[name], rate, seconds)
                row.update(round=round_no, load=kind)
                results[name].append(row)
                print(f"round {round_no} {kind} {name} @ {rate:.0f}/s: {row['throughput']:.1f} answered/s, p50 {row['p50']:.2f} ms, "
                      f"p99 {row['p99']:.2f} ms, miss@10ms {row['miss_10ms']:.3f}, errors {row['errors']}", flush=True)


def median(values: list[float]) -> float:
    """The median (the mean of the middle two of an even count)."""
    values = sorted(values)
    n = len(values)
    if n == 0:
        return float("nan")
    return values[n // 2] if n % 2 else (values[n // 2 - 1] + values[n // 2]) / 2


def summarise(results: dict, low: list[float], high: list[float]) -> dict:
    """Per policy and rate, the median over rounds of each figure; the highest sustained rate of each round."""
    table: dict = {}
    for name, rows in results.items():
        table[name] = {}
        for rate in [*low, *high]:
            at = [r for r in rows if abs(r["rate"] - rate) < 1e-6]
            if at:
                table[name][rate] = {key: median([r[key] for r in at]) for key in
                                     ("p50", "p95", "p99", "miss_10ms", "miss_50ms", "throughput", "error_rate", "cpu_ms")
                                     if all(key in r for r in at)}
        sustained = []
        for round_no in sorted({r["round"] for r in rows}):
            ok = [r["rate"] for r in rows if r["round"] == round_no and r["load"] == "high"
                  and r["throughput"] >= 0.95 * r["rate"] and r["error_rate"] <= 0.01 and r["p99"] <= 1000]
            sustained.append(max(ok) if ok else 0.0)
        table[name]["sustained"] = median(sustained)
        table[name]["sustained_rounds"] = sustained
        table[name]["peak"] = max((table[name][rate]["throughput"] for rate in high if rate in table[name]), default=0.0)
    return table


def plot(table: dict, low: list[float], high: list[float], out: Path) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rates = [*low, *high]
    fig, axes = plt.subplots(1, 3, figsize=(16, 4.2))
    for name, rows in table.items():
        at = [r for r in rates if r in rows]
        axes[0].plot(at, [rows[r]["p99"] for r in at], marker="o", label=name)
        axes[1].plot(at, [rows[r]["throughput"] for r in at], marker="o", label=name)
        axes[2].plot(at, [rows[r]["miss_10ms"] for r in at], marker="o", label=name)
    axes[1].plot(rates, rates, color="grey", linestyle=":", label="offered")
    axes[0].set(xlabel="offered load (queries/s)", ylabel="p99 latency (ms)", yscale="log", title="p99 vs offered load")
    axes[1].set(xlabel="offered load (queries/s)", ylabel="answered (200) queries/s", title="throughput")
    axes[2].set(xlabel="offered load (queries/s)", ylabel="share slower than 10 ms or failed", title="SLO miss @ 10 ms")
    for ax in axes:
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out, dpi=120)


def report(table: dict, low: list[float], high: list[float], args: argparse.Namespace, articles: list[tuple[str, int]],
           checked: list[str], used: dict[str, str], load_average: tuple[str, str]) -> str:
    floor = table[FLOOR]
    policies = list(POLICIES)
    lines = [f"# Parallelism that follows load ({args.preset} corpus, one content node)", "",
             f"One runtime process, one content node (`--shards 1`) holding the whole corpus, {CORES} cores. "
             f"{args.rounds} round(s); in each the runtime is restarted (recovering its data), warmed up, and every policy and the floor "
             f"run at each rate next to each other in time ({args.seconds} s per point, open loop, latency from the intended send time, "
             "the first second dropped). Figures are medians over the rounds. The floor is /status.html on the same container and HTTP "
             "stack at the same rate. The machine's load average was "
             f"{load_average[0]} before and {load_average[1]} after (its own load included; other work would show there too): compare policies within this run, as ratios, not absolute figures across runs.", "",
             "Policies, chosen per query with the rank property `dwell.threadspersearch` (the runtime's default comes from "
             "`DWELL_THREADS_PER_SEARCH`):", "",
             "| policy | threads for one query | threads an idle front-page query got (content node's trace) |", "|---|---|---|"]
    meaning = {"static-1": "always 1", f"static-{CORES}": f"always {CORES} (proton's static num-threads-per-search)",
               "adaptive": f"max(1, {CORES} cores / searches in flight on the node)"}
    for name in policies:
        lines.append(f"| {name} | {meaning[name]} | {used.get(name, '?')} |")
    lines += ["", "Queries (all ranked with `neural`: first phase over every match, the network over the best 2,000), alternating: "
              f"the front page (`{FRONT_PAGE}`, every comment) and views of the {len(articles)} most-commented articles "
              f"({', '.join(f'{a} {n:,}' for a, n in articles)} comments). "
              f"Every query was checked to return the same hits, order and relevance under each policy before measuring ({len(checked)} queries).", "",
              "## Low load: latency", "",
              "| rate | path | p50 ms | p95 ms | p99 ms | miss@10ms | miss@50ms | p99 / floor | p99 / static-1 | cpu ms/query |", "|---|---|---|---|---|---|---|---|---|---|"]
    for rate in low:
        for name in [FLOOR, *policies]:
            r = table[name].get(rate)
            if not r:
                continue
            lines.append(f"| {rate:.0f} | {name} | {r['p50']:.2f} | {r['p95']:.2f} | {r['p99']:.2f} | {r['miss_10ms']:.3f} | {r['miss_50ms']:.3f} | "
                         f"{r['p99'] / floor[rate]['p99']:.1f}x | {r['p99'] / table['static-1'][rate]['p99']:.2f} | {r.get('cpu_ms', float('nan')):.2f} |")
    lines += ["", "## High load: throughput", "",
              "Sustained: answered (HTTP 200) queries/s ≥ 95% of the offered rate, ≤ 1% errors (the container's admission answers 503 past its "
              "queue) and p99 ≤ 1 s; the highest such offered rate of each round, and their median. Peak: the most answered queries/s at any rate (of the "
              "medians over rounds). Past capacity the latency percentiles include the admission's quick 503s.", "",
              "| rate | path | answered/s | of offered | errors | p50 ms | p99 ms | miss@50ms | p99 / floor | cpu ms/query |", "|---|---|---|---|---|---|---|---|---|---|"]
    for rate in high:
        for name in [FLOOR, *policies]:
            r = table[name].get(rate)
            if not r:
                continue
            lines.append(f"| {rate:.0f} | {name} | {r['throughput']:.1f} | {r['throughput'] / rate:.2f} | {r['error_rate']:.3f} | {r['p50']:.2f} | "
                         f"{r['p99']:.2f} | {r['miss_50ms']:.3f} | {r['p99'] / floor[rate]['p99']:.1f}x | {r.get('cpu_ms', float('nan')):.2f} |")
    lines += ["", "| path | highest sustained rate (each round) | / static-1 | peak answered/s | / static-1 | / floor's answered/s at the top rate |", "|---|---|---|---|---|---|"]
    top = max(high)
    for name in [FLOOR, *policies]:
        s, p = table[name]["sustained"], table[name]["peak"]
        s1, p1 = table["static-1"]["sustained"], table["static-1"]["peak"]
        each = " / ".join(f"{x:.0f}" for x in table[name]["sustained_rounds"])
        lines.append(f"| {name} | {s:.0f}/s ({each}) | {s / s1 if s1 else float('nan'):.2f} | {p:.1f} | {p / p1 if p1 else float('nan'):.2f} | "
                     f"{p / floor[top]['throughput'] if floor.get(top, {}).get('throughput') else float('nan'):.2f} |")
    lines += ["", "## Verdict (computed from the tables above)", "",
              f"Read with the noise in mind: {args.rounds} round(s), on a shared machine; at low load a point holds "
              f"{int(min(low) * (args.seconds - 1))}–{int(max(low) * (args.seconds - 1))} queries a round, so its p99 is one of the few slowest, "
              "and differences of several percent are within the noise between rounds.", ""]
    static_max = f"static-{CORES}"
    a, s1, sm = table["adaptive"], table["static-1"], table[static_max]
    for rate in [*low, *[r for r in high if all(table[n].get(r, {}).get("error_rate", 1) == 0 for n in POLICIES)]]:
        lines.append(f"- p99 at {rate:.0f}/s: adaptive {a[rate]['p99']:.2f} ms ({a[rate]['p99'] / floor[rate]['p99']:.1f}x floor) vs static-1 "
                     f"{s1[rate]['p99']:.2f} ms ({s1[rate]['p99'] / floor[rate]['p99']:.1f}x) and {static_max} {sm[rate]['p99']:.2f} ms "
                     f"({sm[rate]['p99'] / floor[rate]['p99']:.1f}x): adaptive is "
                     f"{'below both' if a[rate]['p99'] < min(s1[rate]['p99'], sm[rate]['p99']) else 'not below both'}.")
    lines.append(f"- Highest sustained rate: adaptive {a['sustained']:.0f}/s vs static-1 {s1['sustained']:.0f}/s and {static_max} {sm['sustained']:.0f}/s; "
                 f"peak answered/s {a['peak']:.1f} vs {s1['peak']:.1f} and {sm['peak']:.1f}: adaptive is "
                 f"{'above both' if a['peak'] > max(s1['peak'], sm['peak']) else 'not above both'} in peak throughput.")
    lines += ["", "![p99, throughput and SLO misses vs offered load, per policy](adaptive.png)", ""]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--preset", default="small")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--corpus", type=Path, help="a generated corpus to use instead of generating one")
    parser.add_argument("--articles", type=int, default=8, help="the most-commented articles to view")
    parser.add_argument("--low-rates", default="5,15")
    parser.add_argument("--high-rates", default="100,180,260,350,450")
    parser.add_argument("--seconds", type=int, default=10)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--no-build", action="store_true", help="use what is built (target/application, runtime, bench jar)")
    parser.add_argument("--no-lock", action="store_true", help="the caller holds /tmp/dwell-runtime.lock")
    parser.add_argument("--smoke", action="store_true", help="seconds long, to check the tool (CI)")
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results")
    parser.add_argument("--keep", action="store_true", help="keep the work directory (the corpus and the runtime's data), "
                        "which is removed at the end otherwise")
    parser.add_argument("--report-only", type=Path, help="write the report and plot again from an adaptive.json of an earlier run")
    args = parser.parse_args()
    if args.report_only:
        write_report(json.loads(args.report_only.read_text()), args.out)
        return
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # stop our runtime on the way out
    if args.smoke:
        args.low_rates, args.high_rates, args.seconds, args.rounds = "5", "20", 2, 1
    low = [float(r) for r in args.low_rates.split(",")]
    high = [float(r) for r in args.high_rates.split(",")]
    args.out.mkdir(parents=True, exist_ok=True)
    jar = ROOT / "bench" / "target" / "dwell-bench-1.0.0.jar" if args.no_build else runtime_bench.build()
    work = Path(tempfile.mkdtemp(prefix="dwell-adaptive-"))
    try:
        corpus = args.corpus or runtime_bench.generate(args.preset, args.seed, work / "corpus")
        articles = biggest_articles(corpus, args.articles)
        files = write_query_files(articles, work, 2000)
        runtime = Runtime(work / "data")
        if args.smoke:  # the tiny corpus's articles are small: let them be split anyway, so the parallel path runs
            os.environ["DWELL_MIN_HITS_PER_THREAD"] = "50"
        results: dict[str, list[dict]] = {FLOOR: [], **{name: [] for name in POLICIES}}
        load_before = f"{os.getloadavg()[0]:.1f}"
        with runtime_lock(not args.no_lock):
            started = time.time()
            runtime.start("--shards", "1")
            try:
                vespa("deploy", "--wait", "300", str(ROOT / "target" / "application"))
                wait_for_container()
                runtime_bench.RUNTIME_PID[:] = [int((work / "data" / "runtime.pid").read_text())]
                runtime_bench.feed(corpus)
                runtime_bench.feed_benchmark(jar, "put", "c", corpus=corpus / "comments.jsonl",
                                             count=sum(1 for _ in open(corpus / "comments.jsonl")))
                checked = check_same_results(articles)
                used = threads_used(articles)
                print(f"same hits under every policy for {len(checked)} queries; threads of an idle query: {used}", flush=True)
                if args.smoke:
                    run_round(jar, files, low, high, args.seconds, 0, results, True)
            finally:
                runtime.stop()
            print(f"fed and checked in {time.time() - started:.0f} s", flush=True)
        for round_no in range(0 if args.smoke else args.rounds):
            with runtime_lock(not args.no_lock):
                started = time.time()
                runtime.start("--shards", "1")
                try:
                    wait_for_container(600)
                    runtime_bench.RUNTIME_PID[:] = [int((work / "data" / "runtime.pid").read_text())]
                    run_round(jar, files, low, high, args.seconds, round_no, results, False)
                finally:
                    runtime.stop()
                print(f"round {round_no} in {time.time() - started:.0f} s (lock held)", flush=True)
        run = {"cores": CORES, "preset": args.preset, "rounds": args.rounds, "seconds": args.seconds, "low": low, "high": high,
               "articles": articles, "checked": checked, "threads_used": used, "load_average": [load_before, f"{os.getloadavg()[0]:.1f}"],
               "rows": results}
        (args.out / "adaptive.json").write_text(json.dumps(run, indent=1))
        print(write_report(run, args.out))
    finally:  # the corpus and the runtime's data are the run's own
        if args.keep:
            print(f"kept {work}", file=sys.stderr)
        else:
            shutil.rmtree(work, ignore_errors=True)

def write_report(run: dict, out: Path) -> str:
    """adaptive.md and adaptive.png from the rows of a run."""
    low, high = run["low"], run["high"]
    table = summarise(run["rows"], low, high)
    plot(table, low, high, out / "adaptive.png")
    args = argparse.Namespace(preset=run["preset"], rounds=run["rounds"], seconds=run["seconds"])
    text = report(table, low, high, args, [tuple(a) for a in run["articles"]], run["checked"], run["threads_used"], tuple(run["load_average"]))
    (out / "adaptive.md").write_text(text)
    return text


if __name__ == "__main__":
    main()
