"""The figures of arms.py's experiments, from each run's iterations.jsonl: per run, per arm over seeds (mean and
95% t-interval), paired differences between arms of the same seed, the report, summary.json and the PNGs.

Every figure is a share of the true ceiling (the expected greedy dwell of the order by what readers respond to,
loop.true_value(..., "ceiling")) or a ratio of expected dwells, computed by the loop on the offline replica's state
of that iteration: noise-free, unlike the online dwell (which is reported beside it).
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from .seeds import interval

LAST = 3   # the "converged" figures: the last three iterations of a run


def rows_of(run: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (run / "iterations.jsonl").read_text().splitlines() if line.strip()]


def _tail_ratio(rows: list[dict], a: str, b: str, last: int = LAST) -> float:
    tail = rows[-last:]
    return float(np.mean([r[a] for r in tail]) / np.mean([r[b] for r in tail]))


def run_figures(rows: list[dict[str, Any]], last: int = LAST) -> dict[str, Any]:
    """One run's figures."""
    tail = rows[-last:]
    curve = [r["true_live"] / r["true_ceiling"] for r in rows]
    pl = [r for r in tail if r.get("true_live_pl") is not None]
    rate = float(rows[0].get("rate", np.nan))
    served = [r["learned_served"] for r in tail if r.get("learned_served") is not None]
    held = [r["learned_holdout"] for r in tail if r.get("learned_holdout") is not None]
    return {
        "share": _tail_ratio(rows, "true_live", "true_ceiling", last),
        "freshness_share": _tail_ratio(rows, "true_freshness", "true_ceiling", last),
        "oracle_share": _tail_ratio(rows, "true_oracle", "true_ceiling", last),
        "linear_share": _tail_ratio(rows, "true_linear", "true_ceiling", last),
        "lift_expected": _tail_ratio(rows, "true_live", "true_freshness", last) - 1,
        "ceiling_lift": _tail_ratio(rows, "true_ceiling", "true_freshness", last) - 1,
        "lift_online": _tail_ratio(rows, "dwell_learned", "dwell_freshness", last) - 1,
        "curve": curve,
        # learning speed: the share of the ceiling averaged over every iteration (the area under the curve), and
        # at the middle iteration
        "mean_share_all": float(np.mean(curve)),
        "share_mid": curve[len(curve) // 2],
        # the exact cost of exploring at the arm's rate on the converged (live) model: rate * (E[PL part] / E[greedy] - 1)
        "cost_exact": (rate * (np.mean([r["true_live_pl"] for r in pl]) / np.mean([r["true_live"] for r in pl]) - 1)
                       if pl else None),
        "pl_deficit": (float(np.mean([r["true_live_pl"] for r in pl]) / np.mean([r["true_live"] for r in pl]) - 1)
                       if pl else None),
        # online: the explored views (1 - holdout of the learned arm, at the rate) against the held-out greedy share
        "cost_online": float(np.mean(served) / np.mean(held) - 1) if served and held and np.mean(held) > 0 else None,
        "holdout_views": int(sum(r.get("holdout_views", 0) for r in tail)),
        "ships": int(sum(r["shipped"] for r in rows)),
        "gate": {f"{'shipped' if s else 'kept'}_{'better' if b else 'worse'}": int(sum(
            1 for r in rows[1:] if r["shipped"] == s and r["true_candidate"] != r["true_live"]
            and (r["true_candidate"] > r["true_live"]) == b)) for s in (True, False) for b in (True, False)},
        "rate": rate,
        # a living world (rows with "living"): new comments over the run, the process's expectation, and the share of
        # new comments among the candidates served and among the true ceiling's shown comments (last iterations)
        **({"arrivals": float(sum(r["living"]["arrivals"] for r in rows)),
            "arrivals_expected": float(sum(r["living"]["arrivals_expected"] for r in rows)),
            "new_share_candidates": float(np.mean([r["living"]["new_share_candidates"] for r in tail])),
            "new_share_ceiling": float(np.mean([r["living"]["new_share_ceiling"] for r in tail])),
            "viewed_articles": float(np.mean([r["living"]["viewed_articles"] for r in tail]))}
           if all("living" in r for r in rows) else {}),
    }


FIGURES = {   # name in the report: (key, format)
    "share of the true ceiling (expected, greedy; last 3 iterations)": ("share", "%"),
    "lift over freshness (expected, greedy)": ("lift_expected", "%+"),
    "lift over freshness (online, as served)": ("lift_online", "%+"),
    "learning speed: share of the ceiling averaged over all iterations": ("mean_share_all", "%"),
    "share of the ceiling at the middle iteration": ("share_mid", "%"),
    "exploration cost on the converged model (exact: rate x PL deficit)": ("cost_exact", "%+"),
    "exploration cost, online (explored views vs held-out greedy 10%)": ("cost_online", "%+"),
    "freshness' share of the ceiling (same run)": ("freshness_share", "%"),
    "the true ceiling's lift over freshness (expected, greedy; same run)": ("ceiling_lift", "%+"),
    "a living world: new comments over the run": ("arrivals", "n"),
    "a living world: the process's expected new comments over the run": ("arrivals_expected", "n"),
    "a living world: share of new comments among the candidates served (last 3 iterations)": ("new_share_candidates", "%"),
    "a living world: share of new comments among the true ceiling's shown comments (last 3 iterations)":
        ("new_share_ceiling", "%"),
    "a living world: articles with views (mean, last 3 iterations)": ("viewed_articles", "n"),
}


def _fmt(x: float | None, kind: str) -> str:
    if x is None or not np.isfinite(x):
        return "-"
    if kind == "n":
        return f"{x:,.1f}"
    return f"{x:+.1%}" if kind == "%+" else f"{x:.1%}"


def _pp(x: float) -> str:
    return "-" if not np.isfinite(x) else f"{100 * x:+.1f} pp"


def aggregate(arms: Sequence[str], seeds: Sequence[int], runs: dict[tuple[str, int], Path]) -> dict[str, Any]:
    per = {arm: {s: run_figures(rows_of(runs[(arm, s)])) for s in seeds} for arm in arms}
    out: dict[str, Any] = {"seeds": list(seeds), "arms": {}, "paired": {}}
    for arm in arms:
        figs = {}
        for name, (key, _) in FIGURES.items():
            values = [per[arm][s].get(key) for s in seeds]
            if any(v is None for v in values):
                continue
            figs[key] = interval(values) | {"per_seed": values}
        n = min(len(per[arm][s]["curve"]) for s in seeds)
        curves = np.array([per[arm][s]["curve"][:n] for s in seeds])
        figs["curve"] = [interval(curves[:, i]) for i in range(n)]
        gate: dict[str, int] = {}
        for s in seeds:
            for k, v in per[arm][s]["gate"].items():
                gate[k] = gate.get(k, 0) + v
        figs["gate"] = gate
        figs["ships"] = [per[arm][s]["ships"] for s in seeds]
        figs["pl_deficit"] = [per[arm][s]["pl_deficit"] for s in seeds]
        out["arms"][arm] = figs
    reference = arms[0]
    for arm in arms[1:]:
        pair = {}
        for key in ("share", "lift_expected", "ceiling_lift", "mean_share_all", "share_mid", "cost_exact"):
            a = [per[arm][s][key] for s in seeds]
            b = [per[reference][s][key] for s in seeds]
            if any(v is None for v in a + b):
                continue
            d = [x - y for x, y in zip(a, b)]
            pair[key] = interval(d) | {"per_seed": d}
        out["paired"][f"{arm} - {reference}"] = pair
    # within each run: the arm's share against the freshness arm of the same run (the lift in points of the ceiling)
    out["over_freshness_pp"] = {arm: interval([per[arm][s]["share"] - per[arm][s]["freshness_share"] for s in seeds])
                                | {"per_seed": [per[arm][s]["share"] - per[arm][s]["freshness_share"] for s in seeds]}
                                for arm in arms}
    return out


def report(experiment: str, result: dict[str, Any], common: dict[str, str]) -> str:
    seeds = ", ".join(map(str, result["seeds"]))
    settings = " ".join(f"{k} {v}" for k, v in common.items())
    lines = [f"# {experiment}: seeds {seeds}", "",
             f"Mean over seeds with its 95% t-interval; per seed in seed order. Settings of every arm: `{settings}` "
             "(plus the arm's own flags, arms.py ARMS). Shares are of the true ceiling, expected greedy dwell, "
             f"last {LAST} iterations.", ""]
    for name, (key, kind) in FIGURES.items():
        rows = [(arm, f[key]) for arm, f in result["arms"].items() if key in f]
        if not rows:
            continue
        lines += [f"## {name}", "", "| arm | mean | 95% interval | per seed |", "|---|---|---|---|"]
        for arm, f in rows:
            lines.append(f"| {arm} | {_fmt(f['mean'], kind)} | [{_fmt(f['lo'], kind)}, {_fmt(f['hi'], kind)}] | "
                         f"{', '.join(_fmt(v, kind) for v in f['per_seed'])} |")
        lines.append("")
    lines += ["## Paired differences (same seed: same corpus, same readers), in points", "",
              "| difference | figure | mean | 95% interval | per seed |", "|---|---|---|---|---|"]
    for pair, figs in result["paired"].items():
        for key, f in figs.items():
            lines.append(f"| {pair} | {key} | {_pp(f['mean'])} | [{_pp(f['lo'])}, {_pp(f['hi'])}] | "
                         f"{', '.join(_pp(v) for v in f['per_seed'])} |")
    lines += ["", "## Each arm over the freshness arm of its own runs (share of the ceiling, points)", "",
              "| arm | mean | 95% interval | per seed |", "|---|---|---|---|"]
    for arm, f in result["over_freshness_pp"].items():
        lines.append(f"| {arm} | {_pp(f['mean'])} | [{_pp(f['lo'])}, {_pp(f['hi'])}] | {', '.join(_pp(v) for v in f['per_seed'])} |")
    lines += ["", "## Gate (candidate against the live model in expectation), summed over seeds; ships per seed", ""]
    for arm, f in result["arms"].items():
        g = f["gate"]
        lines.append(f"- {arm}: shipped {g['shipped_better']} better, {g['shipped_worse']} worse; kept back "
                     f"{g['kept_better']} better, {g['kept_worse']} worse; ships {f['ships']}")
    return "\n".join(lines) + "\n"


def plot(experiment: str, result: dict[str, Any], path: Path) -> Path:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    arms = list(result["arms"])
    fig, (a, b) = plt.subplots(1, 2, figsize=(12, 4.5))
    # left: bars of the converged share with intervals and the seeds as dots (freshness and the q oracle beside them)
    first = result["arms"][arms[0]]
    names = ["freshness"] + arms
    means = [first["freshness_share"]["mean"]] + [result["arms"][x]["share"]["mean"] for x in arms]
    los = [first["freshness_share"]["lo"]] + [result["arms"][x]["share"]["lo"] for x in arms]
    his = [first["freshness_share"]["hi"]] + [result["arms"][x]["share"]["hi"] for x in arms]
    los = [lo if np.isfinite(lo) else m for lo, m in zip(los, means)]   # one seed: no interval
    his = [hi if np.isfinite(hi) else m for hi, m in zip(his, means)]
    dots = [first["freshness_share"]["per_seed"]] + [result["arms"][x]["share"]["per_seed"] for x in arms]
    xs = np.arange(len(names))
    a.bar(xs, means, color=["0.6"] + [f"C{i}" for i in range(len(arms))], alpha=0.6)
    a.errorbar(xs, means, yerr=[np.subtract(means, los), np.subtract(his, means)], fmt="none", ecolor="k", capsize=4)
    for x, d in zip(xs, dots):
        a.plot([x] * len(d), d, "k.", ms=4)
    a.axhline(1.0, color="k", lw=1)
    a.set_xticks(xs, names, rotation=15, fontsize=8)
    a.set_ylim(min(los) - 0.05, 1.01)
    a.set_ylabel(f"expected greedy dwell, share of the true ceiling\n(last {LAST} iterations; 95% interval over seeds)")
    a.set_title(f"{experiment}: converged share")
    # right: share of the ceiling by iteration, mean and 95% band
    for i, arm in enumerate(arms):
        curve = result["arms"][arm]["curve"]
        it = np.arange(len(curve))
        m = np.array([c["mean"] for c in curve])
        lo = np.array([c["lo"] for c in curve])
        hi = np.array([c["hi"] for c in curve])
        b.plot(it, m, "-", color=f"C{i}", label=arm)
        b.fill_between(it, lo, hi, color=f"C{i}", alpha=0.15)
    b.axhline(1.0, color="k", lw=1)
    b.set_xlabel("iteration")
    b.set_ylabel("share of the true ceiling (expected, greedy)")
    b.set_title(f"learning curves, {len(result['seeds'])} seeds, 95% bands")
    b.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path


def plot_sweep(result: dict[str, Any], path: Path) -> Path:
    """Exploration: cost on the converged model and learning speed against the rate, with 95% intervals."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    arms = sorted(result["arms"], key=lambda x: float(x.split("-")[1]))
    rates = [float(x.split("-")[1]) for x in arms]
    fig, axes = plt.subplots(1, 3, figsize=(14, 4.2))
    for ax, key, label in ((axes[0], "cost_exact", "exploration cost on the converged model (exact)"),
                           (axes[1], "mean_share_all", "share of the ceiling, mean over all iterations"),
                           (axes[2], "share", f"share of the ceiling, last {LAST} iterations")):
        got = [(r, result["arms"][x][key]) for r, x in zip(rates, arms) if key in result["arms"][x]]
        r = np.array([g[0] for g in got])
        m = np.array([g[1]["mean"] for g in got])
        lo = np.array([g[1]["lo"] if np.isfinite(g[1]["lo"]) else g[1]["mean"] for g in got])
        hi = np.array([g[1]["hi"] if np.isfinite(g[1]["hi"]) else g[1]["mean"] for g in got])
        ax.plot(r, m, "o-", color="C0")
        ax.fill_between(r, lo, hi, color="C0", alpha=0.2)
        if key == "cost_exact":
            ax.axhline(-0.03, color="r", lw=1, ls="--", label="goal: cost within 3%")
            ax.legend(fontsize=8)
        ax.set_xlabel("exploration rate")
        ax.set_title(label, fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path


def write(experiment: str, arms: Sequence[str], seeds: Sequence[int], runs: dict[tuple[str, int], Path], out: Path,
          common: dict[str, str]) -> str:
    out.mkdir(parents=True, exist_ok=True)
    result = aggregate(arms, seeds, runs)
    result["settings"] = common
    from .loop import ROOT

    def shown(path: Path) -> str:   # relative to the repository where it is inside it
        try:
            return str(path.resolve().relative_to(ROOT))
        except ValueError:
            return str(path)

    result["runs"] = {f"{arm} seed {s}": shown(runs[(arm, s)]) for arm in arms for s in seeds}
    (out / "summary.json").write_text(json.dumps(result, indent=1) + "\n")
    text = report(experiment, result, common)
    (out / "report.md").write_text(text)
    plot(experiment, result, out / f"{experiment}.png")
    if experiment == "exploration":
        plot_sweep(result, out / "sweep.png")
    return text
