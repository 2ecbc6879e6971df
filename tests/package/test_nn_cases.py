import json
import math
from pathlib import Path
from typing import Any

import nn_cases


def differences(committed: Any, computed: Any, where: str = "") -> list[str]:
    """Where two JSON values differ. Floats agree to 1e-9 relative: numpy's sums may round
    differently on another CPU (SIMD width), and the Java test allows far more than that."""
    if isinstance(committed, dict) and isinstance(computed, dict):
        if committed.keys() != computed.keys():
            return [f"{where}: keys {sorted(committed)} != {sorted(computed)}"]
        return [d for k in committed for d in differences(committed[k], computed[k], f"{where}.{k}")]
    if isinstance(committed, list) and isinstance(computed, list):
        if len(committed) != len(computed):
            return [f"{where}: {len(committed)} items != {len(computed)}"]
        return [d for i, (a, b) in enumerate(zip(committed, computed)) for d in differences(a, b, f"{where}[{i}]")]
    if isinstance(committed, float) or isinstance(computed, float):
        a, b = float(committed), float(computed)
        if (math.isnan(a) and math.isnan(b)) or math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12):
            return []
    elif committed == computed:
        return []
    return [f"{where}: {committed!r} != {computed!r}"]


def test_fixture_matches_the_package_constants() -> None:
    committed = json.loads((Path(__file__).parent / "nn_cases.json").read_text())
    computed = json.loads(nn_cases.render())
    assert differences(committed, computed) == [], \
        "regenerate: python tests/package/nn_cases.py > tests/package/nn_cases.json"


def test_a_changed_constant_is_a_difference() -> None:
    computed = json.loads(nn_cases.render())
    changed = json.loads(nn_cases.render())
    changed["cases"][0]["neural_package"] *= 1 + 1e-6
    assert differences(changed, computed) == [".cases[0].neural_package: "
                                              f"{changed['cases'][0]['neural_package']!r} != "
                                              f"{computed['cases'][0]['neural_package']!r}"]


def test_package_network_ranks_like_the_baseline() -> None:
    # The initial weights mimic the hand-written baseline: same order on the hand-made cases.
    data = nn_cases.cases()["cases"]
    by_baseline = sorted(range(len(data)), key=lambda i: -data[i]["baseline"])
    by_network = sorted(range(len(data)), key=lambda i: -data[i]["neural_package"])
    assert by_baseline == by_network
