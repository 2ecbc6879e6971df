"""Issue 19, items 3, 7 and 4: arms of the loop on the same traffic, over seeds, with paired comparisons.

    PYTHONPATH=learning .venv/bin/python -m dwell_learning.arms ablation    --seeds 1-5 --out learning/results/arms
    PYTHONPATH=learning .venv/bin/python -m dwell_learning.arms exploration --seeds 1-5 --out learning/results/arms
    PYTHONPATH=learning .venv/bin/python -m dwell_learning.arms vw          --seeds 1-5 --out learning/results/arms

An arm is a set of `dwell learn` flags on top of COMMON; each (arm, seed) is one run of the loop, offline, in
<out>/runs/<arm>/seed-<s> (kept and reused while its config.json matches, so arms that two experiments share, the
network arm above all, run once). Seed s means the corpus `dwell_feed generate --preset <preset> --seed s` (made once
in --corpora) and readers with seed s: every arm of a seed ranks the same comments for the same readers, so arms are
compared per seed (paired) and the differences get the 95% t-interval over seeds. Each experiment writes
<out>/<experiment>/report.md, summary.json and its PNGs. Arguments after -- replace COMMON's values.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np

from .seeds import interval, parse_seeds

# The settings of every arm (the five-seed experiment's, with fewer iterations and views to fit the CPU budget, no
# "freshness alone" arm, no export of shipped models, and a held-out 10% of the learned arm's views served greedily).
COMMON: dict[str, str] = {"--iterations": "8", "--views": "800", "--batch": "200", "--rate": "0.15",
                          "--temperature": "0.3", "--candidates": "40", "--hits": "10", "--epochs": "20",
                          "--window": "4", "--freshness-alone": "0", "--export-every-ship": "0", "--holdout": "0.1"}

ARMS: dict[str, dict[str, str]] = {
    "network": {},                                                     # the network with all nine features
    "no-read-features": {"--drop-features": "reads,read_time"},        # the network without the two read features
    "baseline+read-time": {"--init": "readtime", "--learner": "fixed"},  # hand-tuned linear, never retrained
    # the read-time weight of the hand-tuned ranker, set on a seed of its own (experiment readtime-weight, seed 6)
    "baseline+read-time-0.05": {"--init": "readtime", "--learner": "fixed", "--readtime-weight": "0.05"},
    "baseline+read-time-0.2": {"--init": "readtime", "--learner": "fixed", "--readtime-weight": "0.2"},
    "baseline+read-time-0.4": {"--init": "readtime", "--learner": "fixed", "--readtime-weight": "0.4"},
    "baseline+read-time-0.8": {"--init": "readtime", "--learner": "fixed", "--readtime-weight": "0.8"},
    "baseline+read-time-1.6": {"--init": "readtime", "--learner": "fixed", "--readtime-weight": "1.6"},
    "baseline+read-time-3.2": {"--init": "readtime", "--learner": "fixed", "--readtime-weight": "3.2"},
    "baseline+read-time-6.4": {"--init": "readtime", "--learner": "fixed", "--readtime-weight": "6.4"},
    "rate-0": {"--rate": "0"},
    "rate-0.05": {"--rate": "0.05"},
    "rate-0.1": {"--rate": "0.1"},
    "rate-0.3": {"--rate": "0.3"},
    "vw-mtr": {"--learner": "vw", "--vw-cb-type": "mtr"},
    "vw-dr": {"--learner": "vw", "--vw-cb-type": "dr"},
    "vw-ips": {"--learner": "vw", "--vw-cb-type": "ips"},
    # issue 19 item 6, a living world (README, "A living world"): comments arrive at the medium corpus's own rate
    # (20,000 comments in 7 days: 119 an hour), one simulated hour per iteration, readers who prefer newer comments
    "living": {"--arrivals": "119", "--recency": "1"},
    "living-no-recency": {"--arrivals": "119"},   # the same arrivals, readers indifferent to a comment's age
}

# Each experiment: its arms (the first is the reference of the paired differences) and what "network" is called.
EXPERIMENTS: dict[str, dict[str, Any]] = {
    # baseline+read-time: weight 0.1 per second, set by hand before any run; baseline+read-time-1.6: the smallest weight
    # at the plateau of the readtime-weight experiment (seed 6, not one of the seeds compared)
    "ablation": {"arms": ["network", "no-read-features", "baseline+read-time", "baseline+read-time-1.6"]},
    "exploration": {"arms": ["rate-0.15", "rate-0", "rate-0.05", "rate-0.1", "rate-0.3"]},
    "vw": {"arms": ["network", "vw-mtr", "vw-dr", "vw-ips"]},
    # the tuned hand ranker at the five-seed experiment's settings (12 iterations of 1,600 views), against that
    # experiment's own network runs (learning/results/seeds, same seeds: same corpora and readers); run with
    # --out learning/results/arms-long -- --iterations 12 --views 1600 --batch 400 --holdout 0
    "readtime-long": {"arms": ["network (results/seeds)", "baseline+read-time-1.6"],
                      "external": {"network (results/seeds)": "learning/results/seeds"}},
    # the network in the living world, the same world with readers indifferent to age, and the static world's network
    # runs at the same settings (results/arms, same seeds: the same corpora and readers)
    "living": {"arms": ["living", "living-no-recency", "network, static world (results/arms)"],
               "external": {"network, static world (results/arms)": "learning/results/arms/runs/network"}},
    "readtime-weight": {"arms": ["baseline+read-time", "baseline+read-time-0.05", "baseline+read-time-0.2",
                                 "baseline+read-time-0.4", "baseline+read-time-0.8", "baseline+read-time-1.6",
                                 "baseline+read-time-3.2", "baseline+read-time-6.4"]},
}
ALIAS = {"rate-0.15": "network"}   # the network arm runs at rate 0.15


def arm_args(arm: str, common: dict[str, str]) -> list[str]:
    flags = dict(common) | ARMS[ALIAS.get(arm, arm)]
    return [x for k, v in flags.items() for x in (k, v)]


def run_dir(out: Path, arm: str, seed: int) -> Path:
    return out / "runs" / ALIAS.get(arm, arm) / f"seed-{seed}"


def corpus_dir(corpora: Path, preset: str, seed: int) -> Path:
    path = corpora / f"{preset}-{seed}"
    if not (path / "manifest.json").exists():
        from .loop import ROOT

        for extra in (ROOT / "feed", ROOT / "learning"):
            if str(extra) not in sys.path:
                sys.path.insert(0, str(extra))
        from dwell_feed.generate import generate_to

        generate_to(preset, seed, path)
    return path


def expected_config(args: list[str], seed: int) -> dict[str, Any]:
    """The config.json that `dwell learn` writes for these flags."""
    from dataclasses import asdict, fields

    from .loop import LoopConfig

    parser = argparse.ArgumentParser()
    for f in fields(LoopConfig):
        parser.add_argument("--" + f.name.replace("_", "-"), type=type(f.default) if not isinstance(f.default, bool) else int,
                            default=f.default)
    ns = parser.parse_args(args + ["--seed", str(seed), "--runtime-iterations", "0"])
    return asdict(LoopConfig(**{f.name: getattr(ns, f.name) for f in fields(LoopConfig)}))


# Options whose default changed after runs were made without them: such a run was made with the old value.
LEGACY = {"gate_interval": "normal", "gate_support": 0.0}


def done(run: Path, args: list[str], seed: int) -> bool:
    """The run is there with these flags (a config.json written before an option existed counts as that option's
    default)."""
    try:
        expected = expected_config(args, seed)
        stored = json.loads((run / "config.json").read_text())
        defaults = expected_config([], seed) | LEGACY
        stored = {k: stored.get(k, defaults[k]) for k in expected}
        return (run / "summary.json").exists() and stored == expected
    except (OSError, ValueError):
        return False


def run_arms(arms: Sequence[str], seeds: Sequence[int], out: Path, corpora: Path, preset: str, common: dict[str, str],
             jobs: int = 1, log: Callable[[str], None] = print) -> dict[tuple[str, int], Path]:
    """Runs every (arm, seed) that is not there yet, `jobs` at a time, each in its own process (`dwell learn`)."""
    todo, runs = [], {}
    for seed in seeds:
        corpus = corpus_dir(corpora, preset, seed)
        for arm in arms:
            run, args = run_dir(out, arm, seed), arm_args(arm, common)
            runs[(arm, seed)] = run
            if not done(run, args, seed) and (ALIAS.get(arm, arm), seed) not in {(ALIAS.get(a, a), s) for a, s, *_ in todo}:
                todo.append((arm, seed, run, args, corpus))
    env = os.environ | {"PYTHONPATH": str(Path(__file__).resolve().parents[1]), "OMP_NUM_THREADS": "1",
                        "TF_NUM_INTRAOP_THREADS": "1", "TF_NUM_INTEROP_THREADS": "1"}

    def one(item: tuple) -> None:
        arm, seed, run, args, corpus = item
        run.mkdir(parents=True, exist_ok=True)
        log(f"[arms] {arm} seed {seed}: started")
        if jobs <= 1:   # in this process (the smoke tests: no TensorFlow start per run)
            from .experiment import main as experiment

            experiment(["--corpus", str(corpus), "--out", str(run), "--seed", str(seed), "--runtime-iterations", "0", *args])
            return
        with (run / "log.txt").open("w") as f:
            rc = subprocess.call([sys.executable, "-m", "dwell_learning.experiment", "--corpus", str(corpus), "--out",
                                  str(run), "--seed", str(seed), "--runtime-iterations", "0", *args],
                                 stdout=f, stderr=subprocess.STDOUT, env=env)
        if rc != 0:
            raise RuntimeError(f"{arm} seed {seed} failed ({rc}): see {run / 'log.txt'}")
        log(f"[arms] {arm} seed {seed}: done")

    with ThreadPoolExecutor(max(1, jobs)) as pool:
        list(pool.map(one, todo))
    return runs


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    passed = argv[argv.index("--") + 1:] if "--" in argv else []
    own = argv[: argv.index("--")] if "--" in argv else argv
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("experiment", choices=sorted(EXPERIMENTS))
    parser.add_argument("--seeds", default="1-5")
    parser.add_argument("--preset", default="medium")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--corpora", type=Path, default=Path("/tmp/dwell-corpora"), help="where each seed's corpus is made")
    parser.add_argument("--jobs", type=int, default=1, help="runs at a time")
    parser.add_argument("--run-only", action="store_true", help="run the missing runs, do not aggregate")
    parser.add_argument("--report", type=Path, help="where the report goes (default: <out>/<experiment>)")
    parser.add_argument("--arms", help="a comma-separated subset of the experiment's arms (default: all of them)")
    args = parser.parse_args(own)
    common = dict(COMMON)
    for i in range(0, len(passed), 2):
        common[passed[i]] = passed[i + 1]
    seeds = parse_seeds(args.seeds)
    arms = EXPERIMENTS[args.experiment]["arms"]
    if args.arms:
        chosen = args.arms.split(",")
        if not set(chosen) <= set(arms):
            raise SystemExit(f"{args.experiment} has the arms {arms}, not {sorted(set(chosen) - set(arms))}")
        arms = [a for a in arms if a in chosen]
    external = {a: w for a, w in EXPERIMENTS[args.experiment].get("external", {}).items() if a in arms}
    runs = run_arms([a for a in arms if a not in external], seeds, args.out, args.corpora, args.preset, common, args.jobs)
    from .loop import ROOT

    for arm, where in external.items():   # runs made elsewhere, read as they are
        for s in seeds:
            runs[(arm, s)] = ROOT / where / f"seed-{s}"
    if args.run_only:
        return 0
    from .arms_report import write

    print(write(args.experiment, arms, seeds, runs, args.report or args.out / args.experiment, common))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
