"""The experiment over several seeds, each with its own corpus draw and reader draws, and its headline figures with
95% intervals over the seeds (Student t).

    PYTHONPATH=learning .venv/bin/python -m dwell_learning.seeds --seeds 1-5 --out learning/results/seeds -- \\
        --iterations 12 --views 1600 --batch 400 --rate 0.15

Each seed s gets the corpus `python -m dwell_feed generate --preset <preset> --seed s` (in <out>/corpus-s, made
once) and runs `dwell learn` with --seed s (offline: the replica serves every view; arguments after -- go to each
run). The runs are in <out>/seed-s; summary.json and report.md hold the aggregate, learning_curves.png the mean
share of the true ceiling by iteration, with its 95% band.
"""
from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path
from typing import Any, Sequence

import numpy as np

# The headline figures of each run's summary.json, and how to read them from it.
FIGURES: dict[str, tuple[str, Any]] = {
    "share of the true ceiling (expected, greedy)": ("%", lambda s: s["expected_share_of_ceiling"]),
    "lift over freshness (expected, greedy)": ("%+", lambda s: s["expected_lift_over_freshness"]),
    "lift over freshness (online, as served)": ("%+", lambda s: s["lift_over_freshness"]),
    "the ceiling's lift over freshness (expected)": ("%+", lambda s: s["expected_ceiling_over_freshness"]),
    "q oracle's share of the ceiling (expected)": ("%", lambda s: s["expected_oracle_share_of_ceiling"]),
    "read-informed bound's share of the ceiling (expected)": ("%", lambda s: s.get("expected_informed_share_of_ceiling")),
    "Bayes ranker of the logged reads, share of the ceiling (expected)":
        ("%", lambda s: s.get("expected_posterior_share_of_ceiling")),
    "fair Bayes ranker (q not known), share of the ceiling (expected)":
        ("%", lambda s: s.get("expected_observable_share_of_ceiling")),
    "exploration cost, learned arm (over all iterations)": ("%+", lambda s: s["exploration_cost_learned"]),
}


def parse_seeds(text: str) -> list[int]:
    if "-" in text:
        first, last = text.split("-", 1)
        return list(range(int(first), int(last) + 1))
    return [int(s) for s in text.split(",")]


# Student t's 97.5% quantile by degrees of freedom (1..30); the normal's 1.96 beyond.
T975 = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145, 2.131,
        2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042]


def interval(values: Sequence[float]) -> dict[str, float]:
    """Mean and 95% t-interval of the mean."""
    v = np.asarray(values, dtype=float)
    mean = float(v.mean())
    if len(v) < 2:
        return {"mean": mean, "lo": math.nan, "hi": math.nan, "n": len(v)}
    t = T975[len(v) - 2] if len(v) - 1 <= len(T975) else 1.96
    half = float(t * v.std(ddof=1) / math.sqrt(len(v)))
    return {"mean": mean, "lo": mean - half, "hi": mean + half, "n": len(v)}


def candidate_share(run: Path, last: int = 3) -> float:
    """The trained candidates' share of the true ceiling (expected, greedy), mean over the run's last `last` iterations:
    what the learner produced whether or not the gate shipped it (rows' true_candidate / true_ceiling)."""
    rows = [json.loads(line) for line in (run / "iterations.jsonl").read_text().splitlines()][-last:]
    return float(np.mean([r["true_candidate"] / r["true_ceiling"] for r in rows]))


def paired(runs: dict[int, Path], against: dict[int, Path]) -> dict[str, Any]:
    """Each figure of FIGURES (and the candidates' share) of `runs` minus that of `against`, seed by seed (the seeds
    both have), with the 95% t-interval of the per-seed differences."""
    seeds = sorted(set(runs) & set(against))
    a = {s: json.loads((runs[s] / "summary.json").read_text()) for s in seeds}
    b = {s: json.loads((against[s] / "summary.json").read_text()) for s in seeds}
    out: dict[str, Any] = {}
    for name, (_, read) in FIGURES.items():
        diffs = [read(a[s]) - read(b[s]) for s in seeds if read(a[s]) is not None and read(b[s]) is not None]
        if len(diffs) == len(seeds) and seeds:
            out[name] = interval(diffs) | {"per_seed": diffs}
    diffs = [candidate_share(runs[s]) - candidate_share(against[s]) for s in seeds]
    if seeds:
        out[CANDIDATES] = interval(diffs) | {"per_seed": diffs}
    return {"seeds": seeds, "figures": out}


CANDIDATES = "trained candidates' share of the true ceiling (shipped or not)"


def aggregate(runs: dict[int, Path], out: Path, against: Path | None = None) -> dict[str, Any]:
    summaries = {s: json.loads((d / "summary.json").read_text()) for s, d in runs.items()}
    result: dict[str, Any] = {"seeds": sorted(summaries), "figures": {}, "gate": {}}
    for name, (_, read) in FIGURES.items():
        values = [read(summaries[s]) for s in sorted(summaries)]
        if any(v is None for v in values):  # a figure older runs did not record
            continue
        result["figures"][name] = interval(values) | {"per_seed": values}
    shares = [candidate_share(runs[s]) for s in sorted(runs)]
    result["figures"][CANDIDATES] = interval(shares) | {"per_seed": shares}
    for key in ("shipped_better", "shipped_worse", "kept_better", "kept_worse"):
        result["gate"][key] = int(sum(s["gate"][key] for s in summaries.values()))
    rows = [json.loads(line) for s in sorted(runs) for line in (runs[s] / "iterations.jsonl").read_text().splitlines()]
    result["gate_by_interval"] = gate_by_interval(rows)
    if against is not None:
        result["paired"] = paired(runs, {s: against / f"seed-{s}" for s in runs if (against / f"seed-{s}").is_dir()})
        result["paired"]["against"] = str(against)
    (out / "summary.json").write_text(json.dumps(result, indent=1) + "\n")
    (out / "report.md").write_text(report(result))
    others = ({s: against / f"seed-{s}" for s in runs if (against / f"seed-{s}").is_dir()} if against is not None
              else None)
    plot(runs, out / "learning_curves.png", others, against.name if against is not None else "")
    return result


CONFUSION = ("shipped_better", "shipped_worse", "kept_better", "kept_worse")


def gate_by_interval(rows: Sequence[dict[str, Any]], margin: float = 1.0,
                     supports: Sequence[float] = (0.8, 0.9)) -> dict[str, Any]:
    """What each interval construction of the gain (rows' gain_intervals) would have decided on the runs' candidates
    (ship when its lower bound is above 0), against the truth: the greedy expected dwell of candidate against live
    (the gate figure of each run), and, where the rows carry them, the mixtures as served; each also counting only
    the candidates whose true gain is at least `margin` seconds either way ("greedy >= 1 s"). Counterfactual: the
    candidates are those of the runs' own trajectory, which the construction the runs used decided. Where rows carry
    the candidate's support share (loop.support_share), each construction is also counted with the support rule
    ("+ support 0.9": ship only if the share is at least 0.9), for each threshold of `supports`."""
    out: dict[str, Any] = {}
    judged = [r for r in rows if r.get("gain_intervals")]
    truths = {"greedy": ("true_candidate", "true_live", 0.0),
              f"greedy >= {margin:g} s": ("true_candidate", "true_live", margin),
              "mixture": ("true_candidate_mixture", "true_live_mixture", 0.0),
              f"mixture >= {margin:g} s": ("true_candidate_mixture", "true_live_mixture", margin)}
    for truth, (cand, live, m_) in truths.items():
        with_truth = [r for r in judged if cand in r and live in r and abs(r[cand] - r[live]) >= m_]
        if not with_truth:
            continue
        methods = sorted({m for r in with_truth for m in r["gain_intervals"]})
        rules = [(m, None) for m in methods]
        if all(r.get("candidate_support") is not None for r in with_truth):
            rules += [(m, thr) for thr in supports for m in methods]
        table = {}
        for m, thr in rules:
            conf = dict.fromkeys(CONFUSION, 0)
            for r in with_truth:
                if m not in r["gain_intervals"]:
                    continue
                shipped = r["gain_intervals"][m][0] > 0 and (thr is None or r["candidate_support"] >= thr)
                better = r[cand] > r[live]
                conf[f"{'shipped' if shipped else 'kept'}_{'better' if better else 'worse'}"] += 1
            table[m if thr is None else f"{m} + support {thr:g}"] = conf
        out[truth] = {"candidates": len(with_truth), "by_interval": table}
    return out


def report(result: dict[str, Any]) -> str:
    lines = [f"Seeds {', '.join(map(str, result['seeds']))}: mean over seeds and its 95% t-interval (last three iterations of each run).",
             "", "| figure | mean | 95% interval | per seed |", "|---|---|---|---|"]
    for name, f in result["figures"].items():
        signed = name in FIGURES and FIGURES[name][0] == "%+"
        fmt = (lambda x: f"{x:+.1%}") if signed else (lambda x: f"{x:.1%}")
        lines.append(f"| {name} | {fmt(f['mean'])} | [{fmt(f['lo'])}, {fmt(f['hi'])}] | {', '.join(fmt(x) for x in f['per_seed'])} |")
    if "paired" in result:
        p = result["paired"]
        lines += ["", f"Paired by seed against {p['against']} (seeds {', '.join(map(str, p['seeds']))}): this run's figure minus "
                  "that one's, in points, with the 95% t-interval of the per-seed differences.", "",
                  "| figure | mean difference | 95% interval | per seed |", "|---|---|---|---|"]
        pts = lambda x: f"{100 * x:+.1f}"   # noqa: E731
        for name, f in p["figures"].items():
            lines.append(f"| {name} | {pts(f['mean'])} | [{pts(f['lo'])}, {pts(f['hi'])}] | {', '.join(pts(x) for x in f['per_seed'])} |")
    g = result["gate"]
    lines += ["", f"Gate, over all seeds (candidate against the live model in expectation): shipped {g['shipped_better']} better "
              f"and {g['shipped_worse']} worse; kept back {g['kept_better']} better and {g['kept_worse']} worse.", ""]
    for truth, t in result.get("gate_by_interval", {}).items():
        lines += [f"Every interval construction on the same {t['candidates']} candidates (counterfactual but for the one "
                  f"the runs used), against the {truth} truth: shipped better / shipped worse / kept better / kept worse",
                  "", "| interval | shipped better | shipped worse | kept better | kept worse |", "|---|---|---|---|---|"]
        for m, c in t["by_interval"].items():
            lines.append(f"| {m} | " + " | ".join(str(c[k]) for k in CONFUSION) + " |")
        lines.append("")
    return "\n".join(lines)


def plot(runs: dict[int, Path], path: Path, against: dict[int, Path] | None = None, against_label: str = "") -> None:
    """The mean share of the true ceiling by iteration with its 95% band; with `against` (another seeds directory's
    runs, the same seeds), its learned network's curve dashed, labelled `against_label`."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = {s: [json.loads(line) for line in (d / "iterations.jsonl").read_text().splitlines()] for s, d in runs.items()}
    n = min(len(r) for r in rows.values())
    it = np.arange(n)
    fig, ax = plt.subplots(figsize=(7, 4.5))
    ceiling = np.array([[r[i]["true_ceiling"] for i in range(n)] for r in rows.values()])
    curves = [("true_live", "learned network", "C0"), ("true_oracle", "q oracle", "0.5"),
              ("true_freshness", "freshness", "C1")]
    if all("true_informed" in row for r in rows.values() for row in r[:n]):
        curves.append(("true_informed", "read-informed bound", "C2"))
    if all("true_posterior" in row for r in rows.values() for row in r[:n]):
        curves.append(("true_posterior", "Bayes ranker of the logged reads", "C3"))
    if all("true_observable" in row for r in rows.values() for row in r[:n]):
        curves.append(("true_observable", "fair Bayes ranker (q not known)", "C4"))
    for key, label, colour in curves:
        share = np.array([[r[i][key] for i in range(n)] for r in rows.values()]) / ceiling
        mean = share.mean(axis=0)
        half = np.array([interval(share[:, i])["hi"] - mean[i] for i in range(n)]) if len(rows) > 1 else np.zeros(n)
        ax.plot(it, mean, "-", color=colour, label=label)
        ax.fill_between(it, mean - half, mean + half, color=colour, alpha=0.2)
    if against:
        other = {s: [json.loads(line) for line in (d / "iterations.jsonl").read_text().splitlines()]
                 for s, d in against.items()}
        m = min(n, min(len(r) for r in other.values()))
        share = np.array([[r[i]["true_live"] / r[i]["true_ceiling"] for i in range(m)] for r in other.values()])
        ax.plot(it[:m], share.mean(axis=0), "--", color="C0", label=f"learned network, {against_label}")
    ax.axhline(1.0, color="k", lw=1, label="true ceiling")
    ax.set_xlabel("iteration")
    ax.set_ylabel("expected greedy dwell, share of the true ceiling")
    ax.set_title(f"{len(rows)} seeds: mean and 95% band")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    passed = argv[argv.index("--") + 1:] if "--" in argv else []
    own = argv[: argv.index("--")] if "--" in argv else argv
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", default="1-5", help="e.g. 1-5 or 1,3,7")
    parser.add_argument("--preset", default="medium", help="the corpus preset each seed draws")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--aggregate-only", action="store_true", help="only aggregate the runs already in --out")
    parser.add_argument("--against", type=Path, help="another seeds directory: the figures paired by seed against it")
    args = parser.parse_args(own)
    from .experiment import main as experiment

    args.out.mkdir(parents=True, exist_ok=True)
    runs: dict[int, Path] = {}
    for seed in parse_seeds(args.seeds):
        run = args.out / f"seed-{seed}"
        if not args.aggregate_only:
            corpus = args.out / f"corpus-{seed}"
            if not (corpus / "manifest.json").exists():
                from .loop import ROOT

                if str(ROOT / "feed") not in sys.path:
                    sys.path.insert(0, str(ROOT / "feed"))
                from dwell_feed.generate import generate_to

                generate_to(args.preset, seed, corpus)
            print(f"[seeds] seed {seed}", file=sys.stderr, flush=True)
            experiment(["--corpus", str(corpus), "--out", str(run), "--seed", str(seed), "--runtime-iterations", "0", *passed])
        runs[seed] = run
    result = aggregate(runs, args.out, args.against)
    print(report(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
