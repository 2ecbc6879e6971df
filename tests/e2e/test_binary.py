"""Binary quantization and geo points (tests/apps/binary, issue 18): int8 tensors of packed bits searched with
distance-metric hamming, fed as bytes (tensor<int8>(x[8]) with an hnsw index) and packed from 0/1 values by the
indexing expression pack_bits (tensor<int8>(x[8]), and the multi-vector tensor<int8>(chunk{},x[8])); hamming of float
cells (the number of cells that differ); geodegrees over tensor<double>(x[2]) latitude/longitude points. nearestNeighbor
with targetHits, approximate:false, a filter and distanceThreshold; distance and closeness of the field and of the
label in match-features; summaries. Every answer against numpy: hamming is np.unpackbits of the xor of the bytes,
summed; geodegrees the great-circle distance in km by the spherical law of cosines on a sphere of 6371.0088 km."""
from __future__ import annotations

import json
import random

import numpy as np
import pytest
from dwell_client import ROOT, Runtime, search

from clients import deployed_runtime

APP = ROOT / "tests" / "apps" / "binary"
TOPICS = ["a", "b"]
EARTH_KM = 6371.0088


def items(seed: int = 18, count: int = 60) -> dict[str, dict]:
    """The fed items: codes near a few cluster codes (so that nearest neighbors are meaningful), 0/1 bit vectors, chunks
    of bits, float levels from three values (so that cells often agree) and points on the globe."""
    rng = random.Random(seed)
    centers = [[rng.randrange(256) for _ in range(8)] for _ in range(4)]

    def near(center: list[int], flips: int) -> list[int]:
        code = list(center)
        for _ in range(flips):
            bit = rng.randrange(64)
            code[bit // 8] ^= 1 << (bit % 8)
        return code

    result = {}
    for i in range(count):
        code = near(rng.choice(centers), rng.randrange(12))
        bits = [float(b) for b in np.unpackbits(np.asarray(near(rng.choice(centers), rng.randrange(12)), dtype=np.uint8))]
        bits = [b if b else rng.choice([0.0, -0.5, -3.0]) for b in bits]  # pack_bits makes a 1 of what is above 0
        chunks = {f"c{c}": [float(b) for b in np.unpackbits(np.asarray(near(rng.choice(centers), rng.randrange(20)), dtype=np.uint8))]
                  for c in range(rng.randrange(4))}
        result[f"d{i}"] = {
            "topic": TOPICS[i % 2],
            "code": [b - 256 if b > 127 else b for b in code],  # int8 cells
            "bits": bits,
            "chunks": chunks,
            "levels": [rng.randrange(3) * 0.5 for _ in range(6)],
            "location": [round(rng.uniform(-80, 80), 4), round(rng.uniform(-180, 180), 4)],
        }
    return result


ITEMS = items()


def fields_of(name: str, item: dict) -> dict:
    fields = {"name": name, "topic": item["topic"], "code": {"values": item["code"]}, "bits": {"values": item["bits"]},
              "levels": {"values": item["levels"]}, "location": {"values": item["location"]}}
    if item["chunks"]:
        fields["chunk_bits"] = {"blocks": item["chunks"]}
    return fields


@pytest.fixture(scope="module")
def runtime(tmp_path_factory: pytest.TempPathFactory):
    tmp = tmp_path_factory.mktemp("dwell-binary")
    feed = tmp / "feed.jsonl"
    feed.write_text("".join(json.dumps({"put": f"id:test:item::{name}", "fields": fields_of(name, item)}) + "\n"
                            for name, item in ITEMS.items()))
    yield from deployed_runtime(tmp / "data", APP, feed)


def packed(values: list[float]) -> np.ndarray:
    """pack_bits by numpy: a 1 bit for a value above 0, the first value the highest bit; int8 cells."""
    return np.packbits(np.asarray(values) > 0).view(np.int8)


def hamming(a, b) -> int:
    return int(np.unpackbits(np.bitwise_xor(np.asarray(a, dtype=np.int8).view(np.uint8),
                                            np.asarray(b, dtype=np.int8).view(np.uint8))).sum())


def great_circle_km(a: list[float], b: list[float]) -> float:
    """On the coordinates rounded to float32, as the runtime keeps a vector's cells (within 0.5 m of the exact distance)."""
    lat_a, lon_a, lat_b, lon_b = np.radians(np.asarray([a[0], a[1], b[0], b[1]], dtype=np.float32).astype(np.float64))
    cos = np.sin(lat_a) * np.sin(lat_b) + np.cos(lat_a) * np.cos(lat_b) * np.cos(lon_a - lon_b)
    return float(EARTH_KM * np.arccos(np.clip(cos, -1, 1)))


def great_circle_km_float64(a: list[float], b: list[float]) -> float:
    lat_a, lon_a, lat_b, lon_b = np.radians([a[0], a[1], b[0], b[1]])
    cos = np.sin(lat_a) * np.sin(lat_b) + np.cos(lat_a) * np.cos(lat_b) * np.cos(lon_a - lon_b)
    return float(EARTH_KM * np.arccos(np.clip(cos, -1, 1)))


def vectors_of(profile: str, item: dict) -> list:
    """The vectors a document holds in the profile's field (several for chunks)."""
    if profile == "code":
        return [item["code"]]
    if profile == "packed":
        return [packed(item["bits"])]
    if profile == "chunks":
        return [packed(v) for v in item["chunks"].values()]
    if profile == "levels":
        return [item["levels"]]
    return [item["location"]]


def distance(profile: str, q, v) -> float:
    if profile == "levels":
        return float((np.asarray(q, dtype=np.float32) != np.asarray(v, dtype=np.float32)).sum())
    if profile == "location":
        return great_circle_km(q, v)
    return float(hamming(q, v))


def expected(profile: str, q, topic: str | None = None) -> list[tuple[str, float]]:
    """(id, distance) of every item with a vector in the field (of the topic), closest first, by numpy."""
    out = []
    for name, item in ITEMS.items():
        vectors = vectors_of(profile, item)
        if vectors and (topic is None or item["topic"] == topic):
            out.append((name, min(distance(profile, q, v) for v in vectors)))
    return sorted(out, key=lambda e: e[1])


def nn_search(profile: str, q, target_hits: int, where: str = "", annotations: str = "") -> dict:
    yql = (f'select * from item where {where}({{label:"nn", targetHits:{target_hits}{annotations}}}'
           f'nearestNeighbor({profile}, q))')
    return search(yql=yql, ranking=profile, hits=100, **{"input.query(q)": json.dumps([float(x) for x in q])},
                  presentation__format__tensors="short-value")


def check_hits(result: dict, profile: str, q, want: list[tuple[str, float]]) -> None:
    """The hits are want's, in its order but for items at the same distance, with numpy's distance and closeness."""
    assert "errors" not in result["root"], result["root"]["errors"]
    hits = result["root"].get("children", [])
    assert len(hits) == len(want), ([h["fields"]["name"] for h in hits], want)
    tolerance = 1e-6 if profile == "location" else 0
    for hit, (_, d) in zip(hits, want):
        name = hit["fields"]["name"]
        own = min(distance(profile, q, v) for v in vectors_of(profile, ITEMS[name]))
        assert own == pytest.approx(d, abs=tolerance), (profile, name, own, d)  # the true k nearest, in order
        features = hit["fields"]["matchfeatures"]
        assert features[f"distance(field,{profile})"] == pytest.approx(d, abs=tolerance), (profile, name)
        assert features[f"closeness(field,{profile})"] == pytest.approx(1 / (1 + d), abs=1e-12)
        assert features["distance(label,nn)"] == pytest.approx(d, abs=tolerance)
        assert features["closeness(label,nn)"] == pytest.approx(1 / (1 + d), abs=1e-12)
        assert hit["relevance"] == pytest.approx(1 / (1 + d), abs=1e-12)
        if profile == "code":  # the nearestNeighbor item matched it: its raw score is the closeness
            assert features["rawScore(code)"] == pytest.approx(1 / (1 + d), abs=1e-12)
            assert features["itemRawScore(nn)"] == pytest.approx(1 / (1 + d), abs=1e-12)
        if profile == "location":  # against the coordinates as fed, in float64: within a meter
            exact = great_circle_km_float64(q, ITEMS[name]["location"])
            assert features["distance(field,location)"] == pytest.approx(exact, abs=1e-3)
    strictly_closer = {name for name, d in want if d < want[-1][1]}
    assert strictly_closer <= {h["fields"]["name"] for h in hits}


def query_vector(profile: str, rng: random.Random):
    if profile in ("code", "packed", "chunks"):
        return [rng.randrange(-128, 128) for _ in range(8)] if rng.random() < 0.3 else \
            [int(x) for x in np.asarray(ITEMS[rng.choice(list(ITEMS))]["code"], dtype=np.int8)]
    if profile == "levels":
        return [rng.randrange(3) * 0.5 for _ in range(6)]
    return [round(rng.uniform(-80, 80), 4), round(rng.uniform(-180, 180), 4)]


@pytest.mark.parametrize("profile", ["code", "packed", "chunks", "levels", "location"])
def test_nearest_neighbors_by_hamming_and_geodegrees(runtime: Runtime, profile: str) -> None:
    rng = random.Random(profile)
    for _ in range(5):
        q = query_vector(profile, rng)
        target_hits = rng.randrange(1, 12)
        check_hits(nn_search(profile, q, target_hits, annotations=", approximate:false"), profile, q, expected(profile, q)[:target_hits])
        check_approximate(nn_search(profile, q, target_hits), profile, q, target_hits)


def check_approximate(result: dict, profile: str, q, target_hits: int) -> None:
    """An HNSW search may miss a true nearest neighbor: its hits are targetHits documents, closest first, each with
    numpy's distance and closeness for that document."""
    assert "errors" not in result["root"], result["root"]["errors"]
    hits = result["root"].get("children", [])
    assert len(hits) == target_hits
    tolerance = 1e-6 if profile == "location" else 0
    distances = []
    for hit in hits:
        d = min(distance(profile, q, v) for v in vectors_of(profile, ITEMS[hit["fields"]["name"]]))
        assert hit["fields"]["matchfeatures"][f"distance(field,{profile})"] == pytest.approx(d, abs=tolerance)
        assert hit["relevance"] == pytest.approx(1 / (1 + d), abs=1e-12)
        distances.append(d)
    assert distances == sorted(distances)


def test_a_filter_and_a_distance_threshold(runtime: Runtime) -> None:
    q = [int(x) for x in ITEMS["d7"]["code"]]
    check_hits(nn_search("code", q, 6, where='topic contains "a" and '), "code", q, expected("code", q, topic="a")[:6])
    everything = expected("code", q)
    threshold = next(d for _, d in everything[3:] if d > everything[2][1]) - 0.5  # between two distances
    within = [e for e in everything if e[1] <= threshold]
    check_hits(nn_search("code", q, 30, annotations=f", distanceThreshold:{threshold}"), "code", q, within[:30])
    # geodegrees' threshold is in kilometers, as its distance
    p = [48.8566, 2.3522]
    around = expected("location", p)
    km = (around[4][1] + around[5][1]) / 2
    check_hits(nn_search("location", p, 20, annotations=f", distanceThreshold:{km}"), "location", p, around[:5])


def test_raw_score_only_where_the_nearest_neighbor_item_matched(runtime: Runtime) -> None:
    q = [int(x) for x in ITEMS["d4"]["code"]]
    yql = ('select * from item where ({label:"nn", targetHits:3, approximate:false}nearestNeighbor(code, q)) '
           'or topic contains "b"')
    result = search(yql=yql, ranking="code", hits=100, **{"input.query(q)": json.dumps(q)})
    hits = result["root"]["children"]
    scored = [h for h in hits if h["fields"]["matchfeatures"]["rawScore(code)"] > 0]
    assert len(scored) == 3, "targetHits documents get the item's raw score"
    # the hits: topic b's, and the three the item matched (which of several at the third distance is the engine's choice)
    in_b = {n for n, item in ITEMS.items() if item["topic"] == "b"}
    assert {h["fields"]["name"] for h in hits} == in_b | {h["fields"]["name"] for h in scored}
    assert sorted(hamming(q, ITEMS[h["fields"]["name"]]["code"]) for h in scored) == [d for _, d in expected("code", q)[:3]]
    for hit in hits:
        features = hit["fields"]["matchfeatures"]
        d = hamming(q, ITEMS[hit["fields"]["name"]]["code"])
        assert features["closeness(field,code)"] == pytest.approx(1 / (1 + d), abs=1e-12), "closeness of every ranked document"
        assert features["rawScore(code)"] in (0, pytest.approx(1 / (1 + d), abs=1e-12))
        assert features["itemRawScore(nn)"] == features["rawScore(code)"]


def test_pack_bits_packs_as_numpy_and_summaries_show_the_cells(runtime: Runtime) -> None:
    name = next(n for n, item in ITEMS.items() if len(item["chunks"]) >= 2)
    result = search(yql=f'select * from item where name contains "{name}"', presentation__format__tensors="short-value")
    fields = result["root"]["children"][0]["fields"]
    item = ITEMS[name]
    assert fields["code"] == item["code"]
    assert fields["packed"] == packed(item["bits"]).tolist()
    assert fields["chunks"] == {label: packed(v).tolist() for label, v in item["chunks"].items()}
    assert fields["location"] == item["location"]
