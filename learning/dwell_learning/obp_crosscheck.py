"""Cross-check of the slate estimators with Open Bandit Pipeline (obp 0.5.7) on obp's own synthetic slate data.

    PYTHONPATH=learning .venv/bin/python -m dwell_learning.obp_crosscheck --out learning/results/estimators/obp_crosscheck.md

obp's SyntheticSlateBanditDataset draws contexts, slates from a Plackett-Luce behaviour policy (no duplicates) and
slot rewards, with obp's propensities. Its logged data are mapped into our Logged (every action a candidate, the
behaviour logits as the logging scores of a mixture with rate 1 and temperature 1; the evaluation policy a
Plackett-Luce policy over other logits, the same way), and each pair of estimators that has the same formula is run
on the same data:

- our slate IPS / SNIPS (estimators.estimate, kind "slate")      vs SlateStandardIPS / SelfNormalizedSlateStandardIPS
- our cascade IPS / SNIPS (kind "cascade")                       vs SlateRewardInteractionIPS / SelfNormalized...
- our position IPS / SNIPS (estimators.from_weights on item-position weights from our exact marginals)
                                                                 vs SlateIndependentIPS / SelfNormalized...
- our Cascade-DR terms (estimator_bench.cascade_dr_terms) with one arbitrary Q for both
                                                                 vs SlateCascadeDoublyRobust
- our propensities (policy.prefix_propensities, and position marginals by enumeration) vs obp's pscore_cascade and
  pscore_item_position, for the behaviour and the evaluation policy.

obp declares Python < 3.11 and torch == 1.12 (its obp.utils imports torch at the top, for its neural policies; the
slate estimators and the dataset never call it), and PyPI's torch wheels are gigabytes. So obp is installed with
`pip install --no-deps --ignore-requires-python obp==0.5.7` next to what these modules import (scipy, scikit-learn,
pandas: requirements/crosscheck.txt), and an empty stand-in module `torch` is put in sys.modules when torch is absent.
Only obp's API is called; none of its code is copied.
"""
from __future__ import annotations

import argparse
import os
import sys
import types
from pathlib import Path
from typing import Any

import numpy as np

from . import estimator_bench as eb
from .estimators import Logged, estimate, from_weights
from .policy import prefix_propensities


def import_obp() -> Any:
    """obp's slate dataset and slate estimators, imported without obp/__init__.py (which imports its torch policies
    and seaborn plots), with an empty stand-in `torch` module when torch is not installed (obp.utils imports it at
    the top; nothing used here calls it)."""
    import importlib
    import importlib.util

    if "torch" not in sys.modules and importlib.util.find_spec("torch") is None:
        stub = types.ModuleType("torch")
        stub.Tensor = type("Tensor", (), {})
        stub.tensor = stub.Tensor
        sys.modules["torch"] = stub
    os.environ.setdefault("TQDM_DISABLE", "1")       # obp's progress bars
    if "obp" in sys.modules:
        root = Path(list(sys.modules["obp"].__path__)[0])
    else:
        spec = importlib.util.find_spec("obp")
        if spec is None or spec.submodule_search_locations is None:
            raise ImportError("obp is not installed (see requirements/crosscheck.txt)")
        root = Path(list(spec.submodule_search_locations)[0])
    for name, path in (("obp", root), ("obp.ope", root / "ope"), ("obp.dataset", root / "dataset")):
        if name not in sys.modules:
            module = types.ModuleType(name)
            module.__path__ = [str(path)]
            sys.modules[name] = module
    return types.SimpleNamespace(
        slate=importlib.import_module("obp.ope.estimators_slate"),
        synthetic_slate=importlib.import_module("obp.dataset.synthetic_slate"),
        synthetic=importlib.import_module("obp.dataset.synthetic"),
        version=importlib.import_module("obp.version").__version__)


def _marginals_exact(logits: np.ndarray, k: int) -> np.ndarray:
    """P(candidate c at position k) of Plackett-Luce over softmax(logits), by enumerating every ordered slate."""
    _, slates, p = eb.gamma_exact(logits, k, 1.0, 1.0)
    m = np.zeros((len(logits), k))
    for s, ps in zip(slates, p):
        m[s, np.arange(k)] += ps
    return m


def crosscheck(n_rounds: int = 2000, n_actions: int = 6, len_list: int = 3, seed: int = 12345,
               reward_structure: str = "cascade_additive") -> list[dict[str, Any]]:
    """Rows of (what, ours, obp's, |difference|) on one draw of obp's synthetic slate data."""
    obp = import_obp()
    ds = obp.synthetic_slate.SyntheticSlateBanditDataset(
        n_unique_action=n_actions, len_list=len_list, dim_context=2, reward_type="continuous",
        reward_structure=reward_structure, base_reward_function=obp.synthetic.linear_reward_function,
        behavior_policy_function=obp.synthetic_slate.linear_behavior_policy_logit, random_state=seed)
    fb = ds.obtain_batch_bandit_feedback(n_rounds=n_rounds, return_pscore_item_position=True)
    behaviour = obp.synthetic_slate.linear_behavior_policy_logit(context=fb["context"], action_context=ds.action_context,
                                                         random_state=ds.random_state)
    rng = np.random.default_rng(seed)
    evaluation = behaviour + rng.normal(0.0, 1.0, size=(1, n_actions)) + rng.normal(0.0, 0.3, size=behaviour.shape)
    e_pscore, e_item_position, e_cascade = ds.obtain_pscore_given_evaluation_policy_logit(
        action=fb["action"], evaluation_policy_logit_=evaluation, return_pscore_item_position=True)
    action_dist = ds.calc_evaluation_policy_action_dist(action=fb["action"], evaluation_policy_logit_=evaluation)

    order = fb["action"].reshape(n_rounds, len_list).astype(np.int64)
    rewards = fb["reward"].reshape(n_rounds, len_list).astype(np.float64)
    # Features: column 0 the action, column 1 the round, so that a score function can look the round's logits up.
    features = [np.c_[np.arange(n_actions), np.full(n_actions, i), np.zeros((n_actions, 7))] for i in range(n_rounds)]
    mu_prefix = np.stack([prefix_propensities(behaviour[i], order[i], 1.0, 1.0) for i in range(n_rounds)])
    logged = Logged(features, [behaviour[i] for i in range(n_rounds)], list(order), rewards, np.ones(n_rounds),
                    np.ones(n_rounds), mu_prefix[:, -1].copy(), np.ones(n_rounds, dtype=bool))

    def target(x: np.ndarray) -> np.ndarray:
        return evaluation[int(x[0, 1]), x[:, 0].astype(np.int64)]

    pi_prefix = np.stack([prefix_propensities(evaluation[i], order[i], 1.0, 1.0) for i in range(n_rounds)])
    mu_marg = np.stack([_marginals_exact(behaviour[i], len_list) for i in range(n_rounds)])
    pi_marg = np.stack([_marginals_exact(evaluation[i], len_list) for i in range(n_rounds)])
    k = np.arange(len_list)[None, :]
    rows_idx = np.arange(n_rounds)[:, None]
    mu_pos = mu_marg[rows_idx, order, k]
    pi_pos = pi_marg[rows_idx, order, k]

    common = dict(slate_id=fb["slate_id"], reward=fb["reward"], position=fb["position"])
    rows: list[dict[str, Any]] = []

    def add(what: str, ours: float, theirs: float) -> None:
        rows.append({"what": what, "ours": float(ours), "obp": float(theirs), "abs_diff": abs(float(ours) - float(theirs))})

    # propensities
    add("behaviour prefix propensities (largest abs. difference)", 0.0,
        np.abs(mu_prefix.ravel() - fb["pscore_cascade"]).max())
    add("evaluation prefix propensities (largest abs. difference)", 0.0, np.abs(pi_prefix.ravel() - e_cascade).max())
    add("behaviour item-position marginals (largest abs. difference)", 0.0, np.abs(mu_pos.ravel() - fb["pscore_item_position"]).max())
    add("evaluation item-position marginals (largest abs. difference)", 0.0, np.abs(pi_pos.ravel() - e_item_position).max())
    # slate
    ours = estimate(logged, target, 1.0, 1.0, "slate", n_boot=50)
    add("slate IPS vs SlateStandardIPS", ours.ips, obp.slate.SlateStandardIPS(len_list=len_list).estimate_policy_value(
        pscore=fb["pscore"], evaluation_policy_pscore=e_pscore, **common))
    add("slate SNIPS vs SelfNormalizedSlateStandardIPS", ours.snips,
        obp.slate.SelfNormalizedSlateStandardIPS(len_list=len_list).estimate_policy_value(
            pscore=fb["pscore"], evaluation_policy_pscore=e_pscore, **common))
    # cascade
    ours = estimate(logged, target, 1.0, 1.0, "cascade", n_boot=50)
    add("cascade IPS vs SlateRewardInteractionIPS", ours.ips,
        obp.slate.SlateRewardInteractionIPS(len_list=len_list).estimate_policy_value(
            pscore_cascade=fb["pscore_cascade"], evaluation_policy_pscore_cascade=e_cascade, **common))
    add("cascade SNIPS vs SelfNormalizedSlateRewardInteractionIPS", ours.snips,
        obp.slate.SelfNormalizedSlateRewardInteractionIPS(len_list=len_list).estimate_policy_value(
            pscore_cascade=fb["pscore_cascade"], evaluation_policy_pscore_cascade=e_cascade, **common))
    # position (item-position weights from our exact marginals)
    ours = from_weights(pi_pos / mu_pos, rewards, "position", n_boot=50)
    add("position IPS vs SlateIndependentIPS", ours.ips, obp.slate.SlateIndependentIPS(len_list=len_list).estimate_policy_value(
        pscore_item_position=fb["pscore_item_position"], evaluation_policy_pscore_item_position=e_item_position,
        **common))
    add("position SNIPS vs SelfNormalizedSlateIndependentIPS", ours.snips,
        obp.slate.SelfNormalizedSlateIndependentIPS(len_list=len_list).estimate_policy_value(
            pscore_item_position=fb["pscore_item_position"], evaluation_policy_pscore_item_position=e_item_position,
            **common))
    # Cascade-DR with one arbitrary Q-hat (any Q; the formula is what is compared)
    q = rng.uniform(0.0, 2.0, size=(n_rounds, len_list, n_actions))
    joint = eb.target_joint(evaluation, order, 1.0, 1.0)
    w = pi_prefix / mu_prefix
    baseline, correction = eb.cascade_dr_terms(q, joint, mu_prefix, w, rewards, order)
    add("Cascade-DR (cascade_dr_terms) vs SlateCascadeDoublyRobust", eb.dr_terms(baseline, correction).mean(),
        obp.slate.SlateCascadeDoublyRobust(len_list=len_list, n_unique_action=n_actions).estimate_policy_value(
            slate_id=fb["slate_id"], action=fb["action"], reward=fb["reward"], position=fb["position"],
            pscore_cascade=fb["pscore_cascade"], evaluation_policy_pscore_cascade=e_cascade, q_hat=q.ravel(),
            evaluation_policy_action_dist=action_dist))
    # obp's step distribution against ours: pi(c | logged prefix) = joint / pi(prefix)
    before = np.concatenate([np.ones((n_rounds, 1)), pi_prefix[:, :-1]], axis=1)
    add("evaluation step distribution (largest abs. difference)", 0.0, np.abs((joint / before[:, :, None]).ravel() - action_dist).max())
    return rows


def report(rows: list[dict[str, Any]], n_rounds: int, n_actions: int, len_list: int) -> str:
    lines = [f"# Cross-check with Open Bandit Pipeline {import_obp().version}", "",
             f"obp's SyntheticSlateBanditDataset: {n_rounds} rounds, {n_actions} actions, slates of {len_list}, "
             "continuous rewards, reward structure cascade_additive, linear behaviour logits (Plackett-Luce, no "
             "duplicates); evaluation policy: Plackett-Luce over the behaviour logits plus noise. "
             "`python -m dwell_learning.obp_crosscheck`.", "",
             "| what | ours | obp | abs. difference |", "|---|---|---|---|"]
    for r in rows:
        if "largest abs. difference" in r["what"]:
            lines.append(f"| {r['what']} | | | {r['abs_diff']:.2e} |")
        else:
            lines.append(f"| {r['what']} | {r['ours']:.10f} | {r['obp']:.10f} | {r['abs_diff']:.2e} |")
    worst = max(r["abs_diff"] for r in rows)
    lines += ["", f"Largest difference: {worst:.1e}.", ""]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path)
    parser.add_argument("--rounds", type=int, default=2000)
    args = parser.parse_args(argv)
    rows = crosscheck(n_rounds=args.rounds)
    text = report(rows, args.rounds, 6, 3)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(text)
    print(text)
    return 0 if max(r["abs_diff"] for r in rows) < 1e-9 else 1


if __name__ == "__main__":
    raise SystemExit(main())
