"""The learning experiment: runs the loop (optionally its first iterations through a running
dwell runtime), prints the table of dwell per iteration and writes PNG learning curves.

    ./dwell learn --corpus /tmp/corpus/tiny --iterations 12 --runtime-iterations 3 --out /tmp/learn
"""
from __future__ import annotations

import argparse
import json
import shutil
import sys
import time
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any, Callable

import numpy as np

from dwell_client import OwnRuntime, deploy, feed

from .loop import ROOT, LoopConfig, run
from .service import OfflineService, RuntimeService, load_corpus, read_jsonl


# ---------------------------------------------------------------------------------------------
# A runtime of our own: started, deployed, fed, always stopped.


def shifted(src: Path, dst: Path, shift: int) -> Path:
    with src.open() as f, dst.open("w") as out:
        for line in f:
            op = json.loads(line)
            for name in ("created_at", "joined_at"):
                if name in op.get("fields", {}):
                    op["fields"][name] += shift
            out.write(json.dumps(op) + "\n")
    return dst


def _announce_waiting() -> None:
    print("[learn] another runtime is serving on :19071; waiting", file=sys.stderr, flush=True)


@dataclass
class LoopRuntime(OwnRuntime):
    """The loop's own runtime (dwell_client.OwnRuntime: held from start to stop, the machine's
    ports made sure of), with the built package deployed and a corpus fed shifted to now."""

    waiting: Callable[[], None] | None = _announce_waiting
    shift: int = 0     # runtime time - corpus time: what the feed added to every timestamp

    def service(self) -> RuntimeService:
        """The loop's client of this runtime (its clock shift known, for a living world's vespa.now and new comments)."""
        return RuntimeService("http://localhost:8080", self.data / "logs" / "dwell" / "impressions.jsonl", shift=self.shift)

    def deploy_and_feed(self, corpus_dir: Path, now: int) -> float:
        """Deploys target/application, feeds the corpus's authors and comments with their times
        moved so that the corpus's `now` is now; returns the seconds the feeding took."""
        deploy(ROOT / "target" / "application", timeout=300)
        shift = self.shift = int(time.time()) - now
        started = time.time()
        for name in ("authors", "comments"):
            feed(shifted(corpus_dir / f"{name}.jsonl", self.data / f"{name}.jsonl", shift))
        return time.time() - started


# ---------------------------------------------------------------------------------------------
# The table and the curves


def table(rows: list[dict[str, Any]]) -> str:
    head = (f"{'it':>3} {'mode':8} {'ver':>3} {'freshness':>9} {'alone':>6} {'learned':>8} {'oracle':>7} {'lift':>7} "
            f"{'%oracle':>7} {'SNIPS pred':>10} {'95% CI':>15} {'pred/online':>11} {'ship':>4}")
    lines = [head, "-" * len(head)]
    for r in rows:
        lift = r["dwell_learned"] / r["dwell_freshness"] - 1
        frac = r["dwell_learned"] / r["dwell_oracle"]
        pred = r["predicted_snips"]
        ci = f"[{r['predicted_snips_lo']:.2f},{r['predicted_snips_hi']:.2f}]" if pred is not None else "-"
        ratio = f"{pred / r['dwell_learned'] - 1:+.1%}" if pred is not None else "-"
        alone = r.get("dwell_freshness_alone")
        lines.append(f"{r['iteration']:>3} {r['mode']:8} {r['model_version']:>3} {r['dwell_freshness']:>9.2f} "
                     f"{(f'{alone:.2f}' if alone is not None else '-'):>6} "
                     f"{r['dwell_learned']:>8.2f} {r['dwell_oracle']:>7.2f} {lift:>+7.1%} {frac:>7.1%} "
                     f"{(f'{pred:.2f}' if pred is not None else '-'):>10} {ci:>15} {ratio:>11} "
                     f"{'yes' if r['shipped'] else 'no':>4}")
    return "\n".join(lines)


def summary(rows: list[dict[str, Any]], last: int = 3) -> dict[str, Any]:
    tail = rows[-last:]
    fresh = np.mean([r["dwell_freshness"] for r in tail])
    learned = np.mean([r["dwell_learned"] for r in tail])
    oracle = np.mean([r["dwell_oracle"] for r in tail])
    alone = [r["dwell_freshness_alone"] for r in tail if r.get("dwell_freshness_alone") is not None]

    def cost(arm: str) -> float | None:
        """Dwell of the arm as served (with exploration) relative to its greedy views (a random
        1 - rate share of the same views): the exploration's cost. Over all iterations."""
        g = [r[f"{arm}_greedy"] for r in rows if r[f"{arm}_greedy"] is not None]
        if not g:
            return None
        return float(np.mean([r[f"dwell_{arm}"] for r in rows]) / np.mean(g) - 1)

    true = {k: float(np.mean([r[f"true_{k}"] for r in tail])) for k in ("freshness", "live", "oracle", "ceiling", "linear")}
    if all("true_informed" in r for r in tail):  # runs made before the read-informed bound have none
        true["informed"] = float(np.mean([r["true_informed"] for r in tail]))
    if all("true_posterior" in r for r in tail):  # nor the Bayes ranker of the logged reads (and a living world never)
        true["posterior"] = float(np.mean([r["true_posterior"] for r in tail]))
    if all("true_observable" in r for r in tail):  # nor the fair Bayes ranker (observable.py)
        true["observable"] = float(np.mean([r["true_observable"] for r in tail]))
    errors = [r["predicted_snips"] / r["dwell_learned"] - 1 for r in rows if r["predicted_snips"] is not None]
    covered = [r["predicted_snips_lo"] <= r["dwell_learned"] <= r["predicted_snips_hi"] for r in rows
               if r["predicted_snips"] is not None]
    dr_errors = [r["predicted_dr"] / r["dwell_learned"] - 1 for r in rows if r.get("predicted_dr") is not None]
    return {
        "last_iterations": len(tail),
        "freshness": float(fresh), "learned": float(learned), "oracle": float(oracle),
        "lift_over_freshness": float(learned / fresh - 1), "share_of_oracle": float(learned / oracle),
        "freshness_alone": float(np.mean(alone)) if alone else None,
        "lift_over_freshness_alone": float(learned / np.mean(alone) - 1) if alone else None,
        "oracle_over_freshness": float(oracle / fresh - 1),
        "oracle_over_freshness_alone": float(oracle / np.mean(alone) - 1) if alone else None,
        "exploration_cost_learned": cost("learned"), "exploration_cost_freshness": cost("freshness"),
        "snips_error_mean_abs": float(np.mean(np.abs(errors))) if errors else None,
        "snips_error_max_abs": float(np.max(np.abs(errors))) if errors else None,
        "snips_within_5pct": int(sum(abs(e) <= 0.05 for e in errors)), "snips_predictions": len(errors),
        "ci_covers_online": int(sum(covered)),
        "dr_error_mean_abs": float(np.mean(np.abs(dr_errors))) if dr_errors else None,
        "dr_within_5pct": int(sum(abs(e) <= 0.05 for e in dr_errors)), "dr_predictions": len(dr_errors),
        "ships": int(sum(r["shipped"] for r in rows)),
        # The gate against the truth (expected greedy dwell of candidate vs live, diagnostics only):
        "gate": {f"{'shipped' if r_ else 'kept'}_{'better' if b else 'worse'}": int(sum(
            1 for r in rows[1:] if r["shipped"] == r_ and (r["true_candidate"] > r["true_live"]) == b))
            for r_ in (True, False) for b in (True, False)},
        "expected_greedy_dwell": true,
        "expected_lift_over_freshness": true["live"] / true["freshness"] - 1,
        "expected_share_of_oracle": true["live"] / true["oracle"],
        "expected_ceiling_over_freshness": true["ceiling"] / true["freshness"] - 1,
        # shares of the true ceiling (the order by what readers respond to), the q oracle and the linear ranker beside it
        "expected_share_of_ceiling": true["live"] / true["ceiling"],
        "expected_freshness_share_of_ceiling": true["freshness"] / true["ceiling"],
        "expected_oracle_share_of_ceiling": true["oracle"] / true["ceiling"],
        "expected_linear_share_of_ceiling": true["linear"] / true["ceiling"],
        "expected_informed_share_of_ceiling": true["informed"] / true["ceiling"] if "informed" in true else None,
        "expected_posterior_share_of_ceiling": true["posterior"] / true["ceiling"] if "posterior" in true else None,
        "expected_observable_share_of_ceiling": true["observable"] / true["ceiling"] if "observable" in true else None,
        "expected_oracle_over_freshness": true["oracle"] / true["freshness"] - 1,
    }


def plot(rows: list[dict[str, Any]], path: Path, title: str) -> Path:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    it = [r["iteration"] for r in rows]
    fig, (a, b) = plt.subplots(1, 2, figsize=(12, 4.5))
    a.plot(it, [r["dwell_oracle"] for r in rows], "k--", label="oracle (hidden quality)")
    a.plot(it, [r["dwell_learned"] for r in rows], "o-", label="learned network (neural)")
    a.plot(it, [r["dwell_freshness"] for r in rows], "s-", label="freshness baseline")
    if all(r.get("dwell_freshness_alone") is not None for r in rows):
        a.plot(it, [r["dwell_freshness_alone"] for r in rows], "^--", color="C1", alpha=0.6,
               label="freshness alone (no learned arm's readers)")
    if all("true_live" in r for r in rows):
        a.plot(it, [r["true_oracle"] for r in rows], "k:", lw=1, label="expected (noise-free), same colours")
        a.plot(it, [r["true_live"] for r in rows], ":", color="C0", lw=1)
        a.plot(it, [r["true_freshness"] for r in rows], ":", color="C1", lw=1)
        a.plot(it, [r["true_linear"] for r in rows], ":", color="C2", lw=1, label="expected: best linear ranker of the 9 features")
        a.plot(it, [r["true_ceiling"] for r in rows], "-", color="k", lw=1.5, label="expected: true ceiling (by what readers respond to)")
    runtime = [r["iteration"] for r in rows if r["mode"] == "runtime"]
    if runtime:
        a.axvspan(min(runtime) - 0.5, max(runtime) + 0.5, color="0.9", label="served by the runtime")
    a.set_xlabel("iteration")
    a.set_ylabel("mean simulated dwell per view (s)")
    a.set_title(title)
    a.legend(fontsize=7, framealpha=0.8)
    pred = [(r["iteration"], r["predicted_snips"], r["predicted_snips_lo"], r["predicted_snips_hi"], r["dwell_learned"])
            for r in rows if r["predicted_snips"] is not None]
    if pred:
        x = [p[0] for p in pred]
        b.errorbar(x, [p[1] for p in pred], yerr=[[p[1] - p[2] for p in pred], [p[3] - p[1] for p in pred]],
                   fmt="o", capsize=3, label="SNIPS estimate (previous iteration's logs)")
        b.plot(x, [p[4] for p in pred], "x-", label="online (simulated) dwell")
    b.set_xlabel("iteration")
    b.set_ylabel("dwell of the live learned policy (s)")
    b.set_title("off-policy estimate vs online")
    b.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="dwell learn", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", type=Path, required=True, help="a corpus directory (python -m dwell_feed generate)")
    parser.add_argument("--out", type=Path, default=ROOT / "data" / "learn")
    parser.add_argument("--runtime-data", type=Path, help="an empty or new directory for the runtime's data "
                        "(default: a new one under /tmp, removed at the end)")
    for f in fields(LoopConfig):
        parser.add_argument("--" + f.name.replace("_", "-"), type=type(f.default) if not isinstance(f.default, bool) else int,
                            default=f.default)
    args = parser.parse_args(argv)
    config = LoopConfig(**{f.name: getattr(args, f.name) for f in fields(LoopConfig)})
    corpus = load_corpus(args.corpus)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "iterations.jsonl").unlink(missing_ok=True)
    (args.out / "config.json").write_text(json.dumps(asdict(config), indent=1) + "\n")
    offline = OfflineService(corpus)
    started = time.time()
    if config.runtime_iterations > 0:
        if not (ROOT / "runtime" / "target" / "classpath.txt").exists():
            raise SystemExit("build first: ./dwell build")
        import tempfile

        made = args.runtime_data is None  # a directory of our own is removed at the end; one given is kept
        data = args.runtime_data or Path(tempfile.mkdtemp(prefix="dwell-learn-"))
        if data.exists() and any(data.iterdir()):
            raise SystemExit(f"{data} is not empty: the loop needs a runtime of its own")
        args.runtime_data = data
        try:
            with LoopRuntime(args.runtime_data) as rt:
                fed_s = rt.deploy_and_feed(args.corpus, corpus.now)
                print(f"[learn] runtime up, corpus fed in {fed_s:.1f} s", file=sys.stderr, flush=True)
                offline.now = corpus.now + 0.0
                remote = rt.service()
                rows = run(corpus, offline, config, args.out, runtime_service=remote, after_runtime=rt.stop)
        finally:
            if made:
                shutil.rmtree(data, ignore_errors=True)
    else:
        rows = run(corpus, offline, config, args.out)
    elapsed = time.time() - started
    print()
    print(table(rows))
    s = summary(rows)
    s["config"] = asdict(config)
    s["seconds"] = round(elapsed, 1)
    s["seconds_per_iteration"] = {m: round(float(np.mean([r["seconds"]["total"] for r in rows if r["mode"] == m])), 2)
                                  for m in ("runtime", "offline") if any(r["mode"] == m for r in rows)}
    (args.out / "summary.json").write_text(json.dumps(s, indent=1) + "\n")
    png = plot(rows, args.out / "learning_curves.png", f"dwell per view, {config.init} start, {config.objective} objective")
    print()
    print(json.dumps({k: v for k, v in s.items() if k != "config"}, indent=1))
    print(f"\nwrote {args.out / 'iterations.jsonl'}, {args.out / 'summary.json'}, {png}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
