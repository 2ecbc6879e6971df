from pathlib import Path

import nn_cases


def test_fixture_matches_the_package_constants() -> None:
    committed = (Path(__file__).parent / "nn_cases.json").read_text()
    assert committed == nn_cases.render(), "regenerate: python tests/package/nn_cases.py > tests/package/nn_cases.json"


def test_package_network_ranks_like_the_baseline() -> None:
    # The initial weights mimic the hand-written baseline: same order on the hand-made cases.
    data = nn_cases.cases()["cases"]
    by_baseline = sorted(range(len(data)), key=lambda i: -data[i]["baseline"])
    by_network = sorted(range(len(data)), key=lambda i: -data[i]["neural_package"])
    assert by_baseline == by_network
