"""Intra-op threads for `neural_onnx`: the same queries served with the ONNX model run on 1 and on 2
intra-op threads per model call, under 1 to 32 concurrent clients (closed loop, fbench style), as
throughput and latency curves.

The thread count comes from the rank profile's `onnx-model { intraop-threads: N }`; this deploys a copy of
the built package with that one setting changed (application/ is never changed), against a running runtime
that holds the corpus. Called by runtime_bench.py (--onnx-threads); writes onnx_threads.md and .png.
"""
from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

from dwell_client import vespa, wait_for_container

ROOT = Path(__file__).resolve().parents[1]


CLIENTS = (1, 2, 4, 8, 16, 32)


def variant(application: Path, threads: int, out: Path) -> Path:
    """A copy of the built package whose neural_onnx model runs on this many intra-op threads."""
    if out.exists():
        shutil.rmtree(out)
    shutil.copytree(application, out)
    schema = out / "schemas" / "comment.sd"
    text = schema.read_text()
    changed, count = re.subn(r"(onnx-model dwell_nn \{[^}]*?intraop-threads:\s*)\d+", rf"\g<1>{threads}", text)
    if count != 1:
        raise ValueError(f"expected one onnx-model dwell_nn with intraop-threads in {schema}, found {count}")
    schema.write_text(changed)
    return out


def closed_loop(jar: Path, queries: Path, clients: int, seconds: int) -> dict:
    result = subprocess.run(["java", "-cp", str(jar), "ai.dwell.bench.LoadGenerator", "-n", str(clients), "-c", "0",
                             "-s", str(seconds), "-q", str(queries), "-i", str(clients * 5), "--slo", "10,50",
                             "localhost", "8080"], capture_output=True, text=True, check=True)
    row = json.loads(result.stdout.strip().splitlines()[-1])
    row["clients"] = clients
    return row


def run(jar: Path, application: Path, queries: Path, work: Path, seconds: int, clients: tuple[int, ...] = CLIENTS) -> dict:
    results = {}
    for threads in (1, 2):
        package = variant(application, threads, work / f"application-intraop-{threads}")
        vespa("deploy", "--wait", "600", str(package), timeout=900)
        wait_for_container()
        closed_loop(jar, queries, 4, max(2, seconds // 2))  # warm-up after the redeploy
        rows = []
        for n in clients:
            row = closed_loop(jar, queries, n, seconds)
            rows.append(row)
            print(f"neural_onnx, {threads} intra-op thread(s), {n} clients: {row['achieved']:.0f} q/s, "
                  f"p50 {row['p50']:.2f} ms, p99 {row['p99']:.2f} ms", flush=True)
        results[threads] = rows
    vespa("deploy", "--wait", "600", str(application), timeout=900)  # the package as built, again
    wait_for_container()
    return results


def plot(results: dict, out: Path) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 3, figsize=(15, 4))
    for threads, rows in results.items():
        label = f"{threads} intra-op thread{'s' if threads > 1 else ''}"
        clients = [r["clients"] for r in rows]
        axes[0].plot(clients, [r["achieved"] for r in rows], marker="o", label=label)
        axes[1].plot(clients, [r["p99"] for r in rows], marker="o", label=label)
        axes[2].plot([r["achieved"] for r in rows], [r["p50"] for r in rows], marker="o", label=label)
    axes[0].set(xlabel="concurrent clients", ylabel="queries/s", xscale="log", title="throughput")
    axes[1].set(xlabel="concurrent clients", ylabel="p99 ms", xscale="log", yscale="log", title="p99 latency")
    axes[2].set(xlabel="queries/s", ylabel="p50 ms", yscale="log", title="latency vs throughput")
    for ax in axes:
        ax.grid(True, alpha=0.3)
        ax.legend()
    fig.tight_layout()
    fig.savefig(out, dpi=120)


def report(results: dict, seconds: int) -> str:
    lines = ["# Intra-op threads for neural_onnx", "",
             f"Closed loop (fbench style: each client sends its next query when the last is answered), {seconds} s per point, "
             "the same popularity-drawn article views, the package deployed with `intraop-threads: 1` and then `2` in "
             "neural_onnx's onnx-model (a copy of the built package; application/ is unchanged). One ONNX Runtime call "
             "ranks a node's whole rerank window. Same run, same machine (2 cores, shared with other work): compare the "
             "two settings point by point, as ratios.", "",
             "| clients | 1 thread q/s | 2 threads q/s | q/s ratio 2/1 | 1 thread p50 ms | 2 threads p50 ms | 1 thread p99 ms | 2 threads p99 ms | p99 ratio 2/1 |",
             "|---|---|---|---|---|---|---|---|---|"]
    for one, two in zip(results[1], results[2]):
        lines.append(f"| {one['clients']} | {one['achieved']:.0f} | {two['achieved']:.0f} | {two['achieved'] / max(one['achieved'], 1e-9):.2f} | "
                     f"{one['p50']:.2f} | {two['p50']:.2f} | {one['p99']:.2f} | {two['p99']:.2f} | {two['p99'] / max(one['p99'], 1e-9):.2f} |")
    lines += ["", "![throughput and latency vs clients, 1 and 2 intra-op threads](onnx_threads.png)", ""]
    return "\n".join(lines)
