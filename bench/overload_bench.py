"""Overload benchmark of dwell's runtime (issue 6): admission under a surge.

    .venv/bin/python bench/overload_bench.py --preset small --profile neural

It starts its own runtime (own data directory), deploys target/application and feeds a generated
corpus, then, open loop with the bench's load generator (PhasedLoad: every request's due time,
latency from then, and status):

1. finds the maximum sustainable query rate: rates rising by 25% in short steps, the last one
   where under 1% of queries are refused or fail and p99 stays under 4x the lowest p99 of the steps so far;
2. runs at that capacity, then at 3x capacity for --surge seconds, then at capacity again;
3. measures /status.html on the same HTTP stack at the capacity rate, as the floor.

It reports the p99 of ADMITTED queries (HTTP 200) during the surge against at capacity (goal <= 2),
the share refused (503) and failed (no answer), and the recovery time: from the end of the surge to
the start of the first 2 s after which every 500 ms window has no refusals and a p99 within 2x
that at capacity (goal <= 5 s). It writes bench/results/overload.md and overload.png.
"""
from __future__ import annotations

import argparse
import csv
import json
import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from dwell_client import Runtime, vespa, wait_for_container

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT / "feed"))
sys.path.insert(0, str(ROOT / "learning"))

from queries import write_query_file  # noqa: E402

JAR = ROOT / "bench" / "target" / "dwell-bench-1.0.0.jar"
WINDOW_MS = 500.0


@dataclass
class Requests:
    """One run's requests: due time (ms from the start), latency (ms) and HTTP status (-1 no answer, -2 not sent)."""
    due: np.ndarray
    latency: np.ndarray
    status: np.ndarray
    client_cpu_ms: float = float("nan")

    def between(self, start_ms: float, end_ms: float) -> "Requests":
        keep = (self.due >= start_ms) & (self.due < end_ms)
        return Requests(self.due[keep], self.latency[keep], self.status[keep])

    def admitted(self) -> np.ndarray:
        return self.latency[self.status == 200]

    def p(self, percentile: float) -> float:
        admitted = self.admitted()
        return float(np.percentile(admitted, percentile)) if len(admitted) else float("nan")

    def share(self, *statuses: int) -> float:
        return float(np.isin(self.status, statuses).mean()) if len(self.status) else float("nan")

    def refused_or_failed(self) -> float:
        return float((self.status != 200).mean()) if len(self.status) else float("nan")


def admission() -> str:
    """The admission settings the runtime runs with (the environment, else the runtime's defaults)."""
    env = os.environ
    return (f"threads {env.get('DWELL_SEARCH_THREADS', '2')} per core, queue {env.get('DWELL_SEARCH_QUEUE', '4')} per thread, "
            f"max wait {env.get('DWELL_SEARCH_MAX_WAIT_MS', '20')} ms, running {env.get('DWELL_SEARCH_RUNNING', '1')} per core")


def run_phases(queries: Path, phases: list[tuple[float, float]], out: Path, timeout_ms: int = 10_000) -> Requests:
    spec = ",".join(f"{rate:.2f}:{seconds:g}" for rate, seconds in phases)
    done = subprocess.run(["java", "-cp", str(JAR), "ai.dwell.bench.PhasedLoad", "-q", str(queries), "--phases", spec,
                           "--out", str(out), "--timeout-ms", str(timeout_ms), "localhost", "8080"],
                          check=True, capture_output=True, text=True, timeout=sum(s for _, s in phases) + timeout_ms / 1000 + 120)
    with out.open() as f:
        rows = list(csv.DictReader(f))
    summary = json.loads(done.stdout.strip().splitlines()[-1])
    return Requests(np.array([float(r["due_ms"]) for r in rows]), np.array([float(r["latency_ms"]) for r in rows]),
                    np.array([int(r["status"]) for r in rows]), summary["cpu_ms"])


def find_capacity(queries: Path, work: Path, start: float, step_seconds: float, max_rate: float) -> tuple[float, list[dict]]:
    """The highest rate of a rising series where under 1% are refused or fail and p99 < 4x the lowest step's."""
    steps, rate, best, lowest_p99 = [], start, None, float("inf")
    while rate <= max_rate:
        requests = run_phases(queries, [(rate, step_seconds)], work / f"step-{rate:.0f}.csv")
        measured = requests.between(1000, step_seconds * 1000)  # the first second warms connections
        row = {"rate": rate, "p50": measured.p(50), "p99": measured.p(99), "refused": measured.share(503),
               "failed": measured.share(-1, -2)}
        steps.append(row)
        print(f"step {rate:7.1f}/s: p50 {row['p50']:7.2f} ms, p99 {row['p99']:7.2f} ms, refused {row['refused']:.3f}, "
              f"failed {row['failed']:.3f}", flush=True)
        lowest_p99 = min(lowest_p99, row["p99"])
        if measured.refused_or_failed() >= 0.01 or row["p99"] > 4 * max(lowest_p99, 2.0):
            break
        best = rate
        rate *= 1.25
    return (best or start), steps


def recovery_seconds(after: Requests, surge_end_ms: float, capacity_p99: float, settle_ms: float = 2000) -> float:
    """From the surge's end to the start of the first settle_ms in which every window is calm."""
    end = after.due.max() if len(after.due) else surge_end_ms
    windows = np.arange(surge_end_ms, end, WINDOW_MS)
    calm = []
    for start in windows:
        window = after.between(start, start + WINDOW_MS)
        ok = len(window.status) > 0 and window.refused_or_failed() == 0 and window.p(99) <= 2 * capacity_p99
        calm.append(ok)
    needed = int(settle_ms / WINDOW_MS)
    for i in range(len(calm) - needed + 1):
        if all(calm[i:i + needed]):
            return (windows[i] - surge_end_ms) / 1000
    return float("inf")


def plot(run: Requests, capacity: float, phases: list[tuple[float, float]], out: Path) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (top, bottom) = plt.subplots(2, 1, figsize=(10, 7), sharex=True)
    admitted = run.status == 200
    top.scatter(run.due[admitted] / 1000, run.latency[admitted], s=2, alpha=0.4, label="admitted (200)")
    edges = np.arange(0, run.due.max() + WINDOW_MS, WINDOW_MS)
    centers, p99s = [], []
    for start in edges:
        window = run.between(start, start + WINDOW_MS)
        if (window.status == 200).any():
            centers.append((start + WINDOW_MS / 2) / 1000)
            p99s.append(window.p(99))
    top.plot(centers, p99s, color="black", label="p99 of admitted, per 500 ms")
    top.set_yscale("log")
    top.set_ylabel("latency from due time (ms)")
    top.legend(loc="upper left")
    seconds = np.arange(0, run.due.max() / 1000 + 1, 1.0)
    for status, label in ((200, "200 admitted"), (503, "503 refused"), (-1, "no answer")):
        counts = np.histogram(run.due[run.status == status] / 1000, bins=seconds)[0]
        bottom.plot(seconds[:-1] + 0.5, counts, label=label)
    bottom.set_ylabel("requests per second (by due time)")
    bottom.set_xlabel("seconds")
    bottom.legend(loc="upper left")
    t = 0.0
    for rate, length in phases:
        for axis in (top, bottom):
            axis.axvspan(t, t + length, alpha=0.06 if rate > capacity * 1.5 else 0.0, color="red")
        t += length
    fig.suptitle(f"Overload: capacity {capacity:.0f} q/s, surge at {3 * capacity:.0f} q/s")
    fig.tight_layout()
    fig.savefig(out, dpi=110)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--preset", default="small")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--profile", default="neural")
    parser.add_argument("--start-rate", type=float, default=50)
    parser.add_argument("--max-rate", type=float, default=5000)
    parser.add_argument("--step-seconds", type=float, default=6)
    parser.add_argument("--phase-seconds", type=float, default=20)
    parser.add_argument("--surge", type=float, default=20)
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    subprocess.run(["mvn", "-B", "-q", "-f", str(ROOT / "bench" / "pom.xml"), "package"], check=True, cwd=ROOT)
    work = Path(tempfile.mkdtemp(prefix="dwell-overload-"))
    subprocess.run([sys.executable, "-m", "dwell_feed", "generate", "--preset", args.preset, "--seed", str(args.seed),
                    "--out", str(work / "corpus")], check=True, cwd=ROOT,
                   env={**__import__("os").environ, "PYTHONPATH": f"{ROOT / 'feed'}:{ROOT / 'learning'}"})
    runtime = Runtime(work / "data")
    runtime.start()
    try:
        vespa("deploy", "--wait", "300", str(ROOT / "target" / "application"))
        wait_for_container()
        for part in ("authors", "comments", "rankingmodel"):
            if (work / "corpus" / f"{part}.jsonl").exists():
                vespa("feed", "--connections", "4", str(work / "corpus" / f"{part}.jsonl"), timeout=3600)
        queries = write_query_file(work / "corpus", args.profile, work / "queries.txt", count=200_000)
        # JIT: rising to 4x the first step, well under any capacity this finds (refusals here are not counted)
        run_phases(queries, [(args.start_rate, 3), (2 * args.start_rate, 3), (4 * args.start_rate, 4)], work / "warmup.csv")
        capacity, steps = find_capacity(queries, work, args.start_rate, args.step_seconds, args.max_rate)
        print(f"capacity: {capacity:.1f} q/s", flush=True)
        phases = [(capacity, args.phase_seconds), (3 * capacity, args.surge), (capacity, args.phase_seconds)]
        run = run_phases(queries, phases, work / "surge.csv")
        floor_queries = work / "floor.txt"
        floor_queries.write_text("/status.html\n")
        floor = run_phases(floor_queries, [(capacity, 10)], work / "floor.csv").between(1000, 10_000)
    finally:
        runtime.stop()

    first_end, surge_end = args.phase_seconds * 1000, (args.phase_seconds + args.surge) * 1000
    at_capacity = run.between(3000, first_end)  # after 3 s of settling in
    surge = run.between(first_end, surge_end)
    after = run.between(surge_end, run.due.max() + 1)
    recovery = recovery_seconds(after, surge_end, at_capacity.p(99))
    ratio = surge.p(99) / at_capacity.p(99)
    client_cpu_us = run.client_cpu_ms * 1000 / len(run.status)
    plot(run, capacity, phases, args.out / "overload.png")
    lines = [
        "# Overload: admission at 3x the sustainable query rate",
        "",
        f"`bench/overload_bench.py --preset {args.preset} --profile {args.profile}`: one runtime on this machine "
        "(2 cores, shared with other work while measured: figures are ratios within one run). Open loop "
        "(bench's PhasedLoad): latency from each query's due time, so queueing shows. The load generator drives "
        "kept-alive connections, opened before the first query, from one selector thread: it took "
        f"{client_cpu_us:.0f} µs of CPU per request in the surge run, on the same two cores as the runtime.",
        "",
        "Admission: the search handler's thread pool bounds how many queries wait (Vespa's own `<search><threadpool>`, "
        "which the runtime sizes to DWELL_SEARCH_THREADS per core with a queue of DWELL_SEARCH_QUEUE per thread unless "
        "the package sets it; past it a query gets 503 at once), and the runtime's SearchWaitGuard bounds how long "
        f"they wait and how many run ({admission()}): while the queue drains threads take the oldest query; once its "
        "oldest has waited half the bound they take the newest, and refuse (503) those that waited over the bound from a "
        "standing queue; at most DWELL_SEARCH_RUNNING queries per core run at once.",
        "",
        "## Sustainable rate",
        "",
        "| offered q/s | p50 ms | p99 ms | refused (503) | failed |",
        "|---:|---:|---:|---:|---:|",
        *[f"| {s['rate']:.0f} | {s['p50']:.2f} | {s['p99']:.2f} | {s['refused']:.3f} | {s['failed']:.3f} |" for s in steps],
        "",
        f"Maximum sustainable rate: **{capacity:.0f} q/s** (the last step with under 1% refused or failed and p99 under 4x "
        "the lowest step's).",
        "",
        "## Capacity, then 3x for the surge, then capacity",
        "",
        "| phase | offered q/s | admitted | refused (503) | failed | p50 admitted ms | p99 admitted ms |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for name, part, rate in (("capacity (from 3 s)", at_capacity, capacity), ("surge", surge, 3 * capacity),
                             ("after", after, capacity)):
        lines.append(f"| {name} | {rate:.0f} | {int((part.status == 200).sum())} | {part.share(503):.3f} | "
                     f"{part.share(-1, -2):.3f} | {part.p(50):.2f} | {part.p(99):.2f} |")
    lines += [
        f"| floor: /status.html at capacity | {capacity:.0f} | {int((floor.status == 200).sum())} | {floor.share(503):.3f} | "
        f"{floor.share(-1, -2):.3f} | {floor.p(50):.2f} | {floor.p(99):.2f} |",
        "",
        f"- **p99 of admitted queries, surge / capacity: {ratio:.2f}** (goal <= 2).",
        f"- **Recovery after the surge: {recovery:.1f} s** (goal <= 5 s): from the surge's end to the first 2 s in which "
        "every 500 ms window has no refusals and a p99 within 2x that at capacity.",
        f"- Floor: p99 at capacity is {at_capacity.p(99) / floor.p(99):.1f}x the p99 of /status.html on the same HTTP stack.",
        "",
        "![latency and outcomes over time](overload.png)",
        "",
    ]
    (args.out / "overload.md").write_text("\n".join(lines))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
