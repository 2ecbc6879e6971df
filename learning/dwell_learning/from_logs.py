"""One step of the loop on logs collected from a cluster, not from the simulator: the impression files of
every container (ExplorationSearcher's JSON lines, docs/deploy.md says how to collect them), the readers'
signals from the site's front end, and the live rankingmodel document. It joins them by query id, trains
a candidate warm-started from the live model on one half of the views, estimates both policies off-policy
on the other half (Cascade-DR with its reader model fitted on the training half, and SNIPS), gates the
candidate on the paired gain, and when it passes writes it as a rankingmodel document (and constants and
ONNX) to feed to the cluster.

    python -m dwell_learning.from_logs --impressions logs/ --signals signals.jsonl \\
        --live rankingmodel.json --out data/from-logs

--impressions takes files and directories (every *.jsonl* in them), concatenated in any order: each line is
a whole impression. A last line that does not parse is a copy taken mid-write and is skipped and counted;
any other line that does not parse is an error naming its file and line. A signal is one JSON line per view:
{"query_id": "...", "reads": [{"position": 0, "seconds": 12.5}, ...]}, positions 0-based in the shown order
(what the simulator's Readers.read writes). Views without a signal are counted, never silently dropped.
"""
from __future__ import annotations

import argparse
import json
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Sequence

import numpy as np

from .doubly_robust import fit_readers
from .estimators import Logged, join
from .network import Weights
from .service import parse_impression


@dataclass
class Read:
    impressions: list[dict[str, Any]]
    files: int
    torn: int            # last lines of files that did not parse (copied mid-write), skipped


def impression_files(paths: Sequence[Path]) -> list[Path]:
    files: list[Path] = []
    for path in paths:
        if path.is_dir():
            files.extend(sorted(p for p in path.rglob("*.jsonl*") if p.is_file()))
        elif path.is_file():
            files.append(path)
        else:
            raise FileNotFoundError(f"no impression file or directory {path}")
    if not files:
        raise FileNotFoundError(f"no impression files in {', '.join(map(str, paths))}")
    return files


def read_impressions(paths: Sequence[Path]) -> Read:
    impressions, torn, files = [], 0, impression_files(paths)
    seen: set[str] = set()
    for file in files:
        lines = file.read_text(encoding="utf-8").splitlines()
        for n, line in enumerate(lines, start=1):
            if not line.strip():
                continue
            try:
                parsed = parse_impression(json.loads(line))
            except (ValueError, KeyError, TypeError) as e:
                if n == len(lines):
                    torn += 1
                    continue
                raise ValueError(f"{file}:{n}: not an impression: {e}") from e
            if parsed["query_id"] in seen:
                raise ValueError(f"{file}:{n}: query id {parsed['query_id']} appears twice (a file given twice?)")
            seen.add(parsed["query_id"])
            impressions.append(parsed)
    return Read(impressions, len(files), torn)


def read_signals(paths: Iterable[Path]) -> dict[str, dict[str, Any]]:
    signals: dict[str, dict[str, Any]] = {}
    for file in paths:
        for n, line in enumerate(file.read_text(encoding="utf-8").splitlines(), start=1):
            if not line.strip():
                continue
            try:
                signal = json.loads(line)
                reads = [{"position": int(r["position"]), "seconds": float(r["seconds"])} for r in signal["reads"]]
                signals[str(signal["query_id"])] = {"reads": reads}
            except (ValueError, KeyError, TypeError) as e:
                raise ValueError(f"{file}:{n}: not a signal: {e}") from e
    return signals


def split(impressions: Sequence[dict[str, Any]], share: float) -> tuple[list[dict], list[dict]]:
    """Training and evaluation views, by a hash of the query id: the same split on every run."""
    train, evaluate = [], []
    for imp in impressions:
        (train if zlib.crc32(imp["query_id"].encode()) % 1000 < share * 1000 else evaluate).append(imp)
    return train, evaluate


def uniform(logged: Logged, name: str) -> float:
    values = np.unique(getattr(logged, name))
    if len(values) != 1:
        raise ValueError(f"the evaluated views were logged with several exploration {name}s {list(values)}: "
                         "estimate them separately")
    return float(values[0])


def run(impressions: Sequence[Path], signals: Sequence[Path], live: dict[str, Any], out: Path, profile: str = "neural",
        train_share: float = 0.5, epochs: int = 40, seed: int = 1) -> dict[str, Any]:
    from .loop import LoopConfig, judge
    from .tf_export import document_weights
    from .train import TrainConfig, train

    read = read_impressions(impressions)
    served = [i for i in read.impressions if i["profile"] == profile]
    if not served:
        raise ValueError(f"no impressions of rank profile {profile} among {len(read.impressions)}")
    live_weights: Weights = document_weights(live)
    live_version = int(live["fields"]["version"])
    signal = read_signals(signals)
    train_views, eval_views = split(served, train_share)
    train_logs, eval_logs = join(train_views, signal), join(eval_views, signal)
    if len(train_logs) == 0 or len(eval_logs) == 0:
        raise ValueError(f"too few joined views to train and evaluate: {len(train_logs)} and {len(eval_logs)}")
    rate, temperature = uniform(eval_logs, "rate"), uniform(eval_logs, "temperature")

    candidate = train(train_logs, live_weights, TrainConfig(epochs=epochs, seed=seed, temperature=temperature))
    judged = judge(eval_logs, live_weights, candidate, rate, temperature, fit_readers(train_logs), "dr",
                   LoopConfig.gate_interval, seed=seed)
    ship = judged.ships
    report: dict[str, Any] = {
        "impressions": {"files": read.files, "read": len(read.impressions), "torn_last_lines": read.torn,
                        f"of_{profile}": len(served)},
        "join": {"train": {"joined": len(train_logs), "unjoined": train_logs.unjoined},
                 "evaluate": {"joined": len(eval_logs), "unjoined": eval_logs.unjoined}},
        "rate": rate, "temperature": temperature, "live_version": live_version,
        "logged_mean_dwell": float(eval_logs.dwell.mean()),
        "live": {"dr": judged.live["dr"].row(), "snips": judged.live["cascade"].row()},
        "candidate": {"dr": judged.candidate["dr"].row(), "snips": judged.candidate["cascade"].row()},
        "gain": judged.gain, "gain_ci": list(judged.gain_ci), "shipped": bool(ship),
        "gain_interval": LoopConfig.gate_interval, "gain_intervals": {k: list(v) for k, v in judged.gain_intervals.items()},
    }
    out.mkdir(parents=True, exist_ok=True)
    if ship:
        from .tf_export import export_all

        version = live_version + 1
        export_all(candidate, out / "models" / f"v{version}", profile, version)
        report["exported"] = str(out / "models" / f"v{version}" / "rankingmodel.json")
    (out / "report.json").write_text(json.dumps(report, indent=1) + "\n")
    return report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--impressions", type=Path, nargs="+", required=True, help="impression files or directories")
    parser.add_argument("--signals", type=Path, nargs="+", required=True, help="signal files (JSON lines)")
    parser.add_argument("--live", type=Path, required=True, help="the live rankingmodel document (a Vespa JSON put, or GET reply)")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--profile", default="neural")
    parser.add_argument("--train-share", type=float, default=0.5)
    parser.add_argument("--epochs", type=int, default=40)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    report = run(args.impressions, args.signals, json.loads(args.live.read_text()), args.out, args.profile,
                 args.train_share, args.epochs, args.seed)
    print(json.dumps({k: report[k] for k in ("impressions", "join", "gain", "gain_ci", "shipped")}, indent=1))
    if report["shipped"]:
        print(f"feed it: vespa feed {report['exported']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
