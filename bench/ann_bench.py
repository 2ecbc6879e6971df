"""ANN benchmark (issue 8): dwell's nearestNeighbor against FAISS and hnswlib at equal recall, on
the corpus's comment texts embedded by the package's model (all-MiniLM-L6-v2 int8, embedder/).

    .venv/bin/python bench/ann_bench.py                 # 20k comments, 300 queries, with /search/
    .venv/bin/python bench/ann_bench.py --smoke         # seconds: 1k comments, engine and FAISS only

Contenders, single-threaded, in the same run: FAISS Flat (the truth, and exact search), FAISS
HNSW32, FAISS IVF-Flat, hnswlib (M16), dwell's engine directly (runtime AnnHarness: the
NearestNeighborIndex a content node uses) and, unless --no-search, dwell's nearestNeighbor
through /search/ of a runtime fed the same comments (which also measures the feed rate with
embedding). Each is swept over its search-time knob (efSearch, nprobe, ef,
hnsw.exploreAdditionalHits); QPS at recall@10 = 0.95 is interpolated on each curve. The
filtered case searches within one article (articles drawn by popularity): FAISS by
post-filtering (the k' nearest, then the article's) and with an ID selector, hnswlib with its
filter function, dwell filtering during the search with its exact fallback. Recall counts a
hit as correct when it is as close as the 10th true neighbour (comments repeat texts: ties).
Writes bench/results/ann.md and ann.png (--out to change).
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
for path in ("", "feed", "learning"):
    sys.path.insert(0, str(ROOT / path))

K = 10
TARGET_RECALL = 0.95


def log(message: str) -> None:
    print(f"[ann] {message}", file=sys.stderr, flush=True)


# ---------------------------------------------------------------- data

def load_comments(preset: str, seed: int, count: int, queries: int, cache: Path) -> tuple[list[dict], list[dict]]:
    """A random sample of the corpus's comments (the file is ordered by article), and held-out
    comments whose texts are not in the sample, as queries."""
    from dwell_feed.feed import ensure_corpus

    corpus = ensure_corpus(preset, seed, cache / "corpus" / preset)
    with open(corpus / "comments.jsonl") as f:
        rows = [json.loads(line) for line in f]
    order = np.random.default_rng(seed).permutation(len(rows))
    indexed = [rows[i] for i in order[:count]]
    seen = {r["fields"]["text"] for r in indexed}
    held_out = [rows[i] for i in order[count:] if rows[i]["fields"]["text"] not in seen][:queries]
    return indexed, held_out


def embed(texts: list[str], cache: Path, name: str) -> np.ndarray:
    from embedder.reference import embed_corpus

    path = cache / f"{name}.npy"
    if path.exists():
        vectors = np.load(path)
        if len(vectors) == len(texts):
            return vectors
    unique = sorted(set(texts))
    start = time.time()
    vectors = embed_corpus(unique, threads=2)
    log(f"embedded {len(unique):,} distinct texts in {time.time() - start:.0f} s (reference embedding, 2 threads)")
    row = {t: i for i, t in enumerate(unique)}
    out = vectors[[row[t] for t in texts]]
    np.save(path, out)
    return out


def article_filters(articles: list[str], count: int, rng: np.random.Generator) -> tuple[list[str], list[np.ndarray]]:
    """Articles drawn by popularity (the article of a random comment), with their comments' indexes."""
    by_article: dict[str, list[int]] = {}
    for i, a in enumerate(articles):
        by_article.setdefault(a, []).append(i)
    chosen = [articles[i] for i in rng.integers(0, len(articles), count)]
    return chosen, [np.array(by_article[a], dtype=np.int64) for a in chosen]


# ---------------------------------------------------------------- truth and recall

def exact_neighbours(vectors: np.ndarray, queries: np.ndarray, filters: list[np.ndarray] | None) -> np.ndarray:
    """The similarity of the K-th true neighbour of each query (ties count as found)."""
    kth = np.zeros(len(queries), dtype=np.float32)
    for q, query in enumerate(queries):
        candidates = vectors if filters is None else vectors[filters[q]]
        sims = candidates @ query
        k = min(K, len(sims))
        kth[q] = np.sort(sims)[-k]
    return kth


def recall(found: np.ndarray, vectors: np.ndarray, queries: np.ndarray, kth: np.ndarray,
           filters: list[np.ndarray] | None) -> float:
    total = 0.0
    for q in range(len(queries)):
        ids = found[q][found[q] >= 0]
        if filters is not None:
            ids = ids[np.isin(ids, filters[q])]  # a hit outside the article is wrong
        wanted = min(K, len(vectors) if filters is None else len(filters[q]))
        total += min(wanted, int(np.sum(vectors[ids] @ queries[q] >= kth[q] - 1e-5))) / wanted
    return total / len(queries)


def qps_at(curve: list[dict], target: float = TARGET_RECALL) -> float:
    """QPS at the target recall, interpolated (log QPS, linear in recall) between the bracketing settings."""
    points = sorted(curve, key=lambda p: p["recall"])
    for a, b in zip(points, points[1:]):
        if a["recall"] <= target <= b["recall"]:
            if b["recall"] == a["recall"]:
                return max(a["qps"], b["qps"])
            t = (target - a["recall"]) / (b["recall"] - a["recall"])
            return float(np.exp(np.log(a["qps"]) * (1 - t) + np.log(b["qps"]) * t))
    best = [p["qps"] for p in points if p["recall"] >= target]
    return max(best) if best else float("nan")


def timed(search, queries: np.ndarray, repeats: int = 3, clock=time.thread_time) -> tuple[np.ndarray, float]:
    """The results, and queries per second of the searching thread's CPU time, the best of a few
    passes: the machine is shared, and CPU time is what other processes disturb least."""
    search(queries[: min(20, len(queries))])  # warm up
    best = 0.0
    for _ in range(repeats):
        start = clock()
        found = search(queries)
        best = max(best, len(queries) / max(clock() - start, 1e-9))
    return found, best


# ---------------------------------------------------------------- FAISS and hnswlib

def faiss_contenders(vectors: np.ndarray, queries: np.ndarray, filters: list[np.ndarray], smoke: bool) -> dict:
    import faiss

    faiss.omp_set_num_threads(1)
    d = vectors.shape[1]
    results: dict = {}

    def one_by_one(index, params_for):
        def search(qs):
            out = np.full((len(qs), K), -1, dtype=np.int64)
            for i, q in enumerate(qs):
                _, ids = index.search(q[None, :], K, params=params_for(i))
                out[i] = ids[0]
            return out
        return search

    flat = faiss.IndexFlatIP(d)
    flat.add(vectors)
    results["FAISS Flat"] = {"index": flat, "memory": vectors.nbytes, "settings": [("exact", lambda i: None)]}

    start = time.time()
    hnsw = faiss.IndexHNSWFlat(d, 32, faiss.METRIC_INNER_PRODUCT)
    hnsw.hnsw.efConstruction = 200
    hnsw.add(vectors)
    log(f"FAISS HNSW32 built in {time.time() - start:.1f} s")
    efs = [10, 16, 32, 64] if smoke else [10, 16, 24, 32, 48, 64, 96, 128, 256]
    results["FAISS HNSW32"] = {"index": hnsw, "memory": len(faiss.serialize_index(hnsw)),
                               "settings": [(f"efSearch={ef}", (lambda ef: lambda i: faiss.SearchParametersHNSW(efSearch=ef))(ef)) for ef in efs]}

    nlist = max(8, int(4 * np.sqrt(len(vectors))))
    quantizer = faiss.IndexFlatIP(d)
    ivf = faiss.IndexIVFFlat(quantizer, d, nlist, faiss.METRIC_INNER_PRODUCT)
    ivf.train(vectors)
    ivf.add(vectors)
    probes = [1, 4, 16] if smoke else [1, 2, 4, 8, 16, 32, 64, 128]
    results[f"FAISS IVF-Flat ({nlist} lists)"] = {"index": ivf, "memory": len(faiss.serialize_index(ivf)),
                                                 "settings": [(f"nprobe={p}", (lambda p: lambda i: faiss.SearchParametersIVF(nprobe=p))(p)) for p in probes]}

    curves: dict = {}
    for name, c in results.items():
        curves[name] = {"memory": c["memory"], "unfiltered": [], "filtered": []}
        for label, params in c["settings"]:
            found, qps = timed(one_by_one(c["index"], params), queries)
            curves[name]["unfiltered"].append({"setting": label, "found": found, "qps": qps})
    # filtered: an IDSelector of the article's comments (FAISS skips the others in its results)
    selectors = [faiss.IDSelectorBatch(f) for f in filters]
    for name, c in results.items():
        if "IVF" in name:
            make = lambda p, i: faiss.SearchParametersIVF(nprobe=p, sel=selectors[i])
            knobs = probes
        elif "HNSW" in name:
            make = lambda ef, i: faiss.SearchParametersHNSW(efSearch=ef, sel=selectors[i])
            knobs = efs
        else:
            make = lambda _, i: faiss.SearchParameters(sel=selectors[i])
            knobs = ["exact"]
        for knob in knobs:
            offset = [0]

            def search(qs, knob=knob):
                out = np.full((len(qs), K), -1, dtype=np.int64)
                base = 0 if len(qs) == len(queries) else 0
                for i, q in enumerate(qs):
                    _, ids = c["index"].search(q[None, :], K, params=make(knob, base + i))
                    out[i] = ids[0]
                return out
            found, qps = timed(search, queries)
            curves[name]["filtered"].append({"setting": str(knob) if knob != "exact" else "exact", "found": found, "qps": qps})
    # post-filtering, the usual way with an index that cannot filter: the k' nearest, then the article's among them
    hnsw_index = results["FAISS HNSW32"]["index"]
    curves["FAISS HNSW32 post-filter"] = {"memory": results["FAISS HNSW32"]["memory"], "unfiltered": [], "filtered": []}
    for fetch in ([10, 100, 1000] if smoke else [10, 40, 160, 640, 2560]):
        def post_filtered(qs, fetch=fetch):
            out = np.full((len(qs), K), -1, dtype=np.int64)
            for i, q in enumerate(qs):
                _, ids = hnsw_index.search(q[None, :], fetch, params=faiss.SearchParametersHNSW(efSearch=max(fetch, 16)))
                kept = ids[0][np.isin(ids[0], filters[i])][:K]
                out[i, :len(kept)] = kept
            return out
        found, qps = timed(post_filtered, queries)
        curves["FAISS HNSW32 post-filter"]["filtered"].append({"setting": f"k'={fetch}", "found": found, "qps": qps})
    return curves


def hnswlib_contender(vectors: np.ndarray, queries: np.ndarray, filters: list[np.ndarray], smoke: bool) -> dict:
    import hnswlib

    index = hnswlib.Index(space="ip", dim=vectors.shape[1])
    index.init_index(max_elements=len(vectors), M=16, ef_construction=200, random_seed=1)
    index.set_num_threads(1)
    start = time.time()
    index.add_items(vectors, np.arange(len(vectors)))
    log(f"hnswlib built in {time.time() - start:.1f} s")
    with tempfile.NamedTemporaryFile() as f:
        index.save_index(f.name)
        memory = os.path.getsize(f.name)
    curve = {"memory": memory, "unfiltered": [], "filtered": []}
    efs = [10, 16, 32, 64] if smoke else [10, 16, 24, 32, 48, 64, 96, 128, 256]
    for ef in efs:
        index.set_ef(ef)

        def search(qs):
            out = np.full((len(qs), K), -1, dtype=np.int64)
            for i, q in enumerate(qs):
                labels, _ = index.knn_query(q[None, :], k=K, num_threads=1)
                out[i] = labels[0]
            return out
        found, qps = timed(search, queries)
        curve["unfiltered"].append({"setting": f"ef={ef}", "found": found, "qps": qps})
        sets = [set(f.tolist()) for f in filters]

        def filtered(qs):
            out = np.full((len(qs), K), -1, dtype=np.int64)
            for i, q in enumerate(qs):
                allowed = sets[i]
                try:
                    labels, _ = index.knn_query(q[None, :], k=min(K, len(allowed)), num_threads=1, filter=lambda x: x in allowed)
                    out[i, :labels.shape[1]] = labels[0]
                except RuntimeError:  # hnswlib gives up when it finds fewer than k
                    pass
            return out
        found, qps = timed(filtered, queries)
        curve["filtered"].append({"setting": f"ef={ef}", "found": found, "qps": qps})
    return curve


# ---------------------------------------------------------------- dwell: engine and /search/

def write_matrix(path: Path, m: np.ndarray) -> None:
    with open(path, "wb") as f:
        f.write(np.array(m.shape, dtype="<i4").tobytes())
        f.write(np.ascontiguousarray(m, dtype="<f4").tobytes())


def dwell_engine(vectors: np.ndarray, queries: np.ndarray, filters: list[np.ndarray], explores: list[int], work: Path) -> dict:
    write_matrix(work / "vectors.f32", vectors)
    write_matrix(work / "queries.f32", queries)
    with open(work / "filters.i32", "wb") as f:
        for ids in filters:
            f.write(np.array([len(ids)], dtype="<i4").tobytes() + ids.astype("<i4").tobytes())
    runtime = ROOT / "runtime" / "target"
    classpath = f"{runtime / 'classes'}:{runtime / 'test-classes'}:{(runtime / 'test-classpath.txt').read_text().strip()}"
    out = subprocess.run(["java", "-Xmx3g", "-XX:+UseParallelGC", "--add-modules", "jdk.incubator.vector", "-cp", classpath,
                          "ai.dwell.runtime.index.AnnHarness", str(work), str(K), ",".join(map(str, explores))],
                         check=True, capture_output=True, text=True).stdout
    curve = {"unfiltered": [], "filtered": []}
    for line in out.splitlines():
        run = json.loads(line)
        if run["kind"] == "build":
            curve["memory"] = run["bytes"]
            log(f"dwell engine (Lucene HNSW M16, 200 at insert) built in {run['seconds']:.1f} s")
            curve["build_seconds"] = run["seconds"]
            continue
        found = np.fromfile(work / f"dwell-{run['kind']}-{run['explore']}.i32", dtype="<i4").reshape(-1, K).astype(np.int64)
        curve[run["kind"]].append({"setting": f"explore={run['explore']}", "found": found,
                                   "qps": run["queries"] / run["seconds"], "exact": run["exact"]})
    return curve


def dwell_search(indexed: list[dict], queries: np.ndarray, articles: list[str], explores: list[int], work: Path) -> dict:
    from dwell_client import Runtime, vespa, wait_for_container

    feed = work / "comments.jsonl"
    feed.write_text("\n".join(json.dumps(r) for r in indexed) + "\n")
    row_of = {r["put"].split("::")[1]: i for i, r in enumerate(indexed)}
    import fcntl

    lock = open("/tmp/dwell-runtime.lock", "a")  # one runtime per machine: wait for others (see the helper brief)
    fcntl.flock(lock, fcntl.LOCK_EX)
    rt = Runtime(work / "data")
    rt.start()
    curve: dict = {"unfiltered": [], "filtered": []}
    try:
        deployed = vespa("deploy", "--wait", "300", str(ROOT / "target" / "application"), check=False)
        assert deployed.returncode == 0, deployed.stderr + rt.log()
        wait_for_container()
        start = time.time()
        fed = vespa("feed", str(feed), check=False, timeout=3600)
        seconds = time.time() - start
        assert fed.returncode == 0, fed.stderr + rt.log()
        distinct = len({r["fields"]["text"] for r in indexed})
        curve["feed"] = {"documents": len(indexed), "distinct_texts": distinct, "seconds": seconds}
        log(f"fed {len(indexed):,} comments ({distinct:,} distinct texts) with embedding in {seconds:.0f} s")

        def run(qs, explore, filtered):
            out = np.full((len(qs), K), -1, dtype=np.int64)
            for i, q in enumerate(qs):
                nn = f"({{targetHits:{K},hnsw.exploreAdditionalHits:{explore}}}nearestNeighbor(embedding,q))"
                where = f'article_id contains "{articles[i]}" and {nn}' if filtered else nn
                params = {"yql": f"select comment_id from comment where {where}", "ranking": "similar", "hits": K,
                          "summary": "short", "input.query(q)": "[" + ",".join(f"{x:.7g}" for x in q) + "]", "timeout": "10s"}
                with urllib.request.urlopen("http://localhost:8080/search/?" + urllib.parse.urlencode(params)) as r:
                    root = json.load(r)["root"]
                assert "errors" not in root, root
                ids = [row_of[h["fields"]["comment_id"]] for h in root.get("children", [])]
                out[i, :len(ids)] = ids
            return out
        for kind in ("unfiltered", "filtered"):
            for explore in explores:
                found, qps = timed(lambda qs: run(qs, explore, kind == "filtered"), queries, repeats=1, clock=time.perf_counter)
                curve[kind].append({"setting": f"explore={explore}", "found": found, "qps": qps})
    finally:
        rt.stop()
        fcntl.flock(lock, fcntl.LOCK_UN)
        lock.close()
    return curve


# ---------------------------------------------------------------- report

def plot(curves: dict, path: Path) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(13, 5))
    for ax, kind in zip(axes, ("unfiltered", "filtered")):
        for name, c in curves.items():
            pts = sorted(c[kind], key=lambda p: p["recall"])
            if pts:
                ax.plot([p["recall"] for p in pts], [p["qps"] for p in pts], marker="o", label=name)
        ax.axvline(TARGET_RECALL, color="grey", linestyle=":")
        ax.set_yscale("log")
        ax.set_xlabel("recall@10")
        ax.set_ylabel("queries per CPU-second (1 thread)")
        ax.set_title(f"{kind}" + (" (within one article)" if kind == "filtered" else ""))
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def number(value: float, spec: str, unit: str = "") -> str:
    """A figure for the report; a dash where the curve does not reach it (e.g. never recall 0.95)."""
    return "—" if np.isnan(value) else f"{value:{spec}}{unit}"


def report(curves: dict, meta: dict, out: Path) -> str:
    lines = [f"# ANN: dwell's nearestNeighbor vs FAISS and hnswlib at equal recall", "",
             f"{meta['documents']:,} comments of the `{meta['preset']}` corpus ({meta['distinct']:,} distinct texts), "
             f"embedded by all-MiniLM-L6-v2 int8 (384-d, normalized; the package's embedder, reference "
             f"embedding in Python); {meta['queries']} held-out comment texts as queries; recall@10 against exact "
             f"search (ties count). One thread per contender; QPS is queries per second of that thread's CPU time (best of 3 passes; the /search/ figures are wall-clock of one sequential client); the filtered case searches within the article of a "
             f"random comment (median article {meta['median_article']} comments, {meta['small_share']:.0%} of "
             f"queries under 5% of the corpus). Measured {meta['date']} on a shared 2-core machine (other builds "
             f"running): compare ratios within this run, not absolute figures across runs.", "",
             f"![recall vs QPS]({out.with_suffix('.png').name})", "",
             "## QPS at recall@10 = 0.95 (interpolated on each curve)", "",
             "| contender | unfiltered QPS @0.95 | ratio to FAISS HNSW32 | best unfiltered recall | filtered recall (best) | filtered QPS @0.95 | memory |",
             "|---|---|---|---|---|---|---|"]
    base = qps_at(curves["FAISS HNSW32"]["unfiltered"])
    for name, c in curves.items():
        u = qps_at(c["unfiltered"])
        f = qps_at(c["filtered"]) if c["filtered"] else float("nan")
        best_u = max((p["recall"] for p in c["unfiltered"]), default=float("nan"))
        best_f = max((p["recall"] for p in c["filtered"]), default=float("nan"))
        mem = f"{c['memory'] / 2**20:.1f} MiB" if c.get("memory") else "(as the engine, per content node)"
        lines.append(f"| {name} | {number(u, ',.0f')} | {number(u / base, '.2f', '×')} | {number(best_u, '.3f')} | "
                     f"{number(best_f, '.3f')} | {number(f, ',.0f')} | {mem} |")
    lines += ["", "## Every setting", "", "| contender | case | setting | recall@10 | QPS |", "|---|---|---|---|---|"]
    for name, c in curves.items():
        for kind in ("unfiltered", "filtered"):
            for p in c[kind]:
                extra = f" ({p['exact']} of {meta['queries']} exact)" if "exact" in p else ""
                lines.append(f"| {name} | {kind} | {p['setting']}{extra} | {p['recall']:.3f} | {p['qps']:,.0f} |")
    if "feed" in meta:
        fd = meta["feed"]
        lines += ["", "## Feed with embedding (through /document/v1, `vespa feed`)", "",
                  f"{fd['documents']:,} comments, {fd['distinct_texts']:,} distinct texts: {fd['seconds']:.0f} s, "
                  f"{fd['documents'] / fd['seconds']:,.0f} documents/s; each distinct text is embedded once "
                  f"(indexing's embedding cache), so without the cache the rate would be about "
                  f"{fd['distinct_texts'] / fd['seconds']:,.0f} embeddings/s of feed time."]
    lines += ["", "## Notes", "",
              "- dwell engine: the content node's NearestNeighborIndex (Lucene 9 HNSW, max-links-per-node 16, "
              "neighbors-to-explore-at-insert 200, prenormalized-angular) called in-process by runtime's AnnHarness; "
              "targetHits 10, swept over hnsw.exploreAdditionalHits. Filtered: the article's documents are the "
              "accepted set during the graph walk; below approximate-threshold 0.05 of the corpus, or when the walk "
              "would visit more vectors than the filter passes, it searches exactly.",
              "- dwell /search/: the whole query path (HTTP, YQL, dispatch over 3 content nodes, ranking with "
              "closeness, summaries), one client, sequential; each node searches its third of the corpus.",
              "- FAISS HNSW32: M 32, efConstruction 200; hnswlib: M 16, ef_construction 200; IVF-Flat: 4·√n lists. "
              "Filtered: FAISS HNSW32 and IVF-Flat with FAISS's IDSelector (a result outside the article is skipped "
              "during the search, but the walk is bounded by efSearch/nprobe as if unfiltered), hnswlib with its filter "
              "function; `FAISS HNSW32 post-filter` fetches the k' nearest (efSearch = k') and keeps the article's among them.",
              ""]
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--smoke", action="store_true", help="seconds: small data, no /search/")
    parser.add_argument("--documents", type=int)
    parser.add_argument("--queries", type=int)
    parser.add_argument("--preset", default="small")
    parser.add_argument("--no-search", action="store_true", help="leave out dwell through /search/ (no runtime)")
    parser.add_argument("--cache", type=Path, default=ROOT / "data" / "ann")
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "ann.md")
    args = parser.parse_args()
    documents = args.documents or (1000 if args.smoke else 20000)
    nq = args.queries or (40 if args.smoke else 300)
    args.cache.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(8)

    indexed, held_out = load_comments(args.preset, 1, documents, nq, args.cache)
    vectors = embed([r["fields"]["text"] for r in indexed], args.cache, f"{args.preset}-{documents}")
    queries = embed([r["fields"]["text"] for r in held_out], args.cache, f"{args.preset}-{documents}-queries-{nq}")
    articles = [r["fields"]["article_id"] for r in indexed]
    chosen, filters = article_filters(articles, len(queries), rng)
    sizes = np.array([len(f) for f in filters])
    meta = {"documents": len(vectors), "distinct": len({r["fields"]["text"] for r in indexed}), "queries": len(queries),
            "preset": args.preset, "median_article": int(np.median(sizes)), "small_share": float(np.mean(sizes < 0.05 * len(vectors))),
            "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}

    truth = {"unfiltered": exact_neighbours(vectors, queries, None), "filtered": exact_neighbours(vectors, queries, filters)}
    log("FAISS and hnswlib")
    curves = faiss_contenders(vectors, queries, filters, args.smoke)
    curves["hnswlib M16"] = hnswlib_contender(vectors, queries, filters, args.smoke)
    explores = [0, 10, 30] if args.smoke else [0, 10, 20, 40, 80, 160, 300]
    with tempfile.TemporaryDirectory(prefix="dwell-ann-") as work:
        log("dwell engine (AnnHarness)")
        curves["dwell engine"] = dwell_engine(vectors, queries, filters, explores, Path(work))
        if not (args.smoke or args.no_search):
            log("dwell through /search/ (starts a runtime, feeds, queries)")
            search_curve = dwell_search(indexed, queries, chosen, [0, 20, 80, 300], Path(work))
            meta["feed"] = search_curve.pop("feed")
            curves["dwell /search/"] = search_curve
    for name, c in curves.items():
        for kind in ("unfiltered", "filtered"):
            for p in c[kind]:
                p["recall"] = recall(p.pop("found"), vectors, queries, truth[kind], None if kind == "unfiltered" else filters)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    plot(curves, args.out.with_suffix(".png"))
    text = report(curves, meta, args.out)
    args.out.write_text(text)
    (args.out.with_suffix(".json")).write_text(json.dumps({"meta": meta, "curves": curves}, indent=1, default=float))
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
