"""Serving benchmark of dwell's runtime (issue 3): durable feed rate, and query latency at fixed
arrival rates for each rank profile, each figure next to a floor measured in the same run.

    .venv/bin/python bench/runtime_bench.py --preset small --rates 25,50,100,200 --seconds 20

It starts its own runtime (own data directory), deploys target/application, feeds a generated
corpus with the vespa CLI, then runs the open-loop load generator (bench/, fbench's interface)
against /search/ and, as the floor, against /status.html on the same HTTP stack. It writes
bench/results/runtime.md and PNG plots.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "e2e"))
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT / "feed"))
sys.path.insert(0, str(ROOT / "learning"))

from queries import write_query_file  # noqa: E402
from runtime import Runtime, vespa, wait_for_container  # noqa: E402

PROFILES = ("freshness", "neural", "neural_onnx")


def build() -> Path:
    subprocess.run([str(ROOT / "dwell"), "build"], check=True, cwd=ROOT)
    subprocess.run(["mvn", "-B", "-q", "-f", str(ROOT / "bench" / "pom.xml"), "package"], check=True, cwd=ROOT)
    return ROOT / "bench" / "target" / "dwell-bench-1.0.0.jar"


def generate(preset: str, seed: int, out: Path) -> Path:
    subprocess.run([sys.executable, "-m", "dwell_feed", "generate", "--preset", preset, "--seed", str(seed), "--out", str(out)],
                   check=True, cwd=ROOT, env={**__import__("os").environ, "PYTHONPATH": f"{ROOT / 'feed'}:{ROOT / 'learning'}"})
    return out


def feed(corpus: Path) -> dict:
    """Feeds authors, then comments, then models; returns the comment feed's summary."""
    summaries = {}
    for part in ("authors", "comments", "rankingmodel"):
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


def load(jar: Path, queries: Path, rate: float, seconds: int) -> dict:
    result = subprocess.run(["java", "-cp", str(jar), "ai.dwell.bench.LoadGenerator", "-s", str(seconds), "-q", str(queries),
                             "-i", str(int(rate)), "--rate", str(rate), "--slo", "10,50", "localhost", "8080"],
                            capture_output=True, text=True, check=True)
    return json.loads(result.stdout.strip().splitlines()[-1])


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


def report(feed_summary: dict, results: dict, network: str, args: argparse.Namespace, out: Path) -> str:
    floor = {r["rate"]: r for r in results["floor (/status.html)"]}
    lines = [f"# dwell runtime: serving benchmark ({args.preset} corpus)", "",
             f"Open loop, {args.seconds} s per point, first second dropped, on this machine (2 cores, shared). "
             "The floor is /status.html on the same container and HTTP stack, at the same rate, in the same run.", "",
             "## Feed (durable: acknowledged after fsync)", "", "| part | documents | docs/s |", "|---|---|---|"]
    for part, summary in feed_summary.items():
        lines.append(f"| {part} | {summary.get('feeder.ok.count')} | {summary.get('feeder.ok.rate')} |")
    lines += ["", "## Queries", "", "| path | rate | achieved | p50 ms | p95 ms | p99 ms | miss@10ms | miss@50ms | p50 / floor | p99 / floor |",
              "|---|---|---|---|---|---|---|---|---|---|"]
    for name, rows in results.items():
        for r in rows:
            f = floor[r["rate"]]
            lines.append(f"| {name} | {r['rate']:.0f} | {r['achieved']:.1f} | {r['p50']:.2f} | {r['p95']:.2f} | {r['p99']:.2f} | "
                         f"{r['miss_10ms']:.3f} | {r['miss_50ms']:.3f} | {r['p50'] / f['p50']:.1f}x | {r['p99'] / f['p99']:.1f}x |")
    lines += ["", "![p99 and SLO miss rate vs offered load](runtime.png)", "",
              "## Second phase per document (2,000-comment article, same run)", "", "```", network, "```", "",
              "The machine is shared with other work while this runs: compare ratios within a run, not absolute times across runs.", ""]
    text = "\n".join(lines)
    (out / "runtime.md").write_text(text)
    return text


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--preset", default="small")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--rates", default="25,50,100,200")
    parser.add_argument("--seconds", type=int, default=20)
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    jar = build()
    work = Path(tempfile.mkdtemp(prefix="dwell-bench-"))
    corpus = generate(args.preset, args.seed, work / "corpus")
    runtime = Runtime(work / "data")
    runtime.start()
    try:
        vespa("deploy", "--wait", "300", str(ROOT / "target" / "application"))
        wait_for_container()
        feed_summary = feed(corpus)
        floor_queries = work / "floor.txt"
        floor_queries.write_text("/status.html\n")
        results: dict[str, list[dict]] = {"floor (/status.html)": []}
        rates = [float(r) for r in args.rates.split(",")]
        for rate in rates:
            results["floor (/status.html)"].append(load(jar, floor_queries, rate, args.seconds))
        for profile in PROFILES:
            queries = write_query_file(corpus, profile, work / f"{profile}.txt")
            load(jar, queries, 50, 10)  # warm up this profile's code paths (JIT) before measuring
            results[profile] = []
            for rate in rates:
                row = load(jar, queries, rate, args.seconds)
                results[profile].append(row)
                print(f"{profile} @ {rate:.0f}/s: p50 {row['p50']:.2f} ms, p99 {row['p99']:.2f} ms, miss@10ms {row['miss_10ms']:.3f}", flush=True)
    finally:
        runtime.stop()
    plot(results, args.out / "runtime.png")
    print(report(feed_summary, results, second_phase_cost(), args, args.out))


if __name__ == "__main__":
    main()
