"""Predicate fields (tests/apps/predicates, issue 18): ads whose predicate field says which users may see them, fed
with the vespa CLI, matched by YQL's predicate operator (features, range features, subqueries in both the "0x.." and
the "[i,j]" forms) and by the container's boolean.* query properties, alone and under AND, OR and NOT with other items,
with subqueries(target) and its lsb and msb as match and summary features; rewritten and removed through /document/v1,
and again after a restart. Every answer against each ad's boolean expression evaluated here, once per subquery, from
what was fed.

The predicates are drawn so that a negation is only over a flat and/or of leaves: Vespa's optimize_predicate (which the
indexing script runs before proton, or this runtime, indexes a predicate) rewrites not (a and (b or c)) into a predicate
that does not hold where the written one does (runtime/README.md, "Predicate search"), and this test evaluates what is
written."""
from __future__ import annotations

import json
import random
import time
import urllib.parse

import pytest
from dwell_client import CONTAINER, ROOT, Runtime, http, search, vespa, wait_for_container

from clients import deployed_runtime

APP = ROOT / "tests" / "apps" / "predicates"
DOC = f"{CONTAINER}/document/v1/test/ad/docid"
ALL = (1 << 64) - 1
FEATURES = {"gender": ["male", "female"], "hobby": ["chess", "climbing", "sports", "music"], "country": ["no", "se", "dk"]}
RANGES = ["age", "income"]  # the field's bounds: 0 to 120
KINDS = ["banner", "video"]


# ---- predicates: drawn, written in Vespa's syntax, evaluated ----

def leaf(rng: random.Random) -> tuple:
    if rng.random() < 0.6:
        key = rng.choice(list(FEATURES))
        return ("in", key, rng.sample(FEATURES[key], rng.randint(1, 2)), rng.random() < 0.2)
    key = rng.choice(RANGES)
    low = rng.randint(0, 100)
    high = min(120, low + rng.randint(0, 50))
    draw = rng.random()
    return ("range", key, None if draw < 0.15 else low, None if 0.15 <= draw < 0.3 else high)


def composite(rng: random.Random, depth: int) -> tuple:
    if depth == 0 or rng.random() < 0.3:
        return leaf(rng)
    return (rng.choice(["and", "or"]), [composite(rng, depth - 1) for _ in range(rng.randint(2, 3))])


def draw_predicate(rng: random.Random) -> tuple | None:
    draw = rng.random()
    if draw < 0.05:
        return None  # no predicate: matches nothing
    if draw < 0.1:
        return ("true",)
    if draw < 0.13:
        return ("false",)
    tree = composite(rng, 2)
    if rng.random() < 0.3:  # a negation, over a flat and/or of leaves
        tree = (rng.choice(["and", "or"]), [tree, ("not", (rng.choice(["and", "or"]), [leaf(rng), leaf(rng)]))])
    return tree


def written(node: tuple) -> str:
    kind = node[0]
    if kind in ("true", "false"):
        return kind
    if kind == "in":
        _, key, values, negated = node
        return f"{key} {'not in' if negated else 'in'} [{', '.join(repr(v) for v in values)}]"
    if kind == "range":
        _, key, low, high = node
        return f"{key} in [{'' if low is None else low}..{'' if high is None else high}]"
    if kind == "not":
        return f"not ({written(node[1])})"
    return "(" + f" {kind} ".join(written(child) for child in node[1]) + ")"


def holds(node: tuple, features: set[tuple[str, str]], ranges: list[tuple[str, int]]) -> bool:
    kind = node[0]
    if kind in ("true", "false"):
        return kind == "true"
    if kind == "in":
        _, key, values, negated = node
        return any((key, v) in features for v in values) != negated
    if kind == "range":
        _, key, low, high = node
        return any(k == key and (low is None or n >= low) and (high is None or n <= high) for k, n in ranges)
    if kind == "not":
        return not holds(node[1], features, ranges)
    results = [holds(child, features, ranges) for child in node[1]]
    return all(results) if kind == "and" else any(results)


def subqueries(node: tuple | None, query: "Query") -> int:
    """The bitmap of the subqueries whose features alone satisfy the predicate (0 without one)."""
    if node is None:
        return 0
    bits = 0
    for i in range(64):
        features = {(k, v) for k, v, b in query.features if b >> i & 1}
        ranges = [(k, n) for k, n, b in query.ranges if b >> i & 1]
        if holds(node, features, ranges):
            bits |= 1 << i
    return bits


# ---- queries ----

class Query:
    """A user's features and numbers, each in the subqueries of its bitmap."""

    def __init__(self, features: list[tuple[str, str, int]], ranges: list[tuple[str, int, int]]):
        self.features = features
        self.ranges = ranges

    def yql(self, also: str = "") -> str:
        return f"select * from ad where predicate(target, {self._map(self.features)}, {self._map(self.ranges)}){also}"

    @staticmethod
    def _map(entries: list[tuple]) -> str:
        """YQL's map: plain keys for all subqueries, "0x.."- or "[i,j]"-keyed inner maps for others (both forms used)."""
        plain: dict[str, list] = {}
        grouped: dict[int, dict[str, list]] = {}
        for key, value, bits in entries:
            (plain if bits == ALL else grouped.setdefault(bits, {})).setdefault(key, []).append(value)
        parts = [f"{json.dumps(k)}: {json.dumps(v)}" for k, v in plain.items()]
        for bits, inner in grouped.items():
            label = f"0x{bits:x}" if bits.bit_count() > 2 else "[" + ",".join(str(i) for i in range(64) if bits >> i & 1) + "]"
            parts.append(f"{json.dumps(label)}: {{{', '.join(f'{json.dumps(k)}: {json.dumps(v)}' for k, v in inner.items())}}}")
        return "{" + ", ".join(parts) + "}"


def draw_bits(rng: random.Random) -> int:
    if rng.random() < 0.4:
        return ALL
    bits = 0
    for _ in range(rng.randint(1, 3)):
        bits |= 1 << (rng.randrange(4) if rng.random() < 0.6 else rng.randrange(64))
    return bits


def draw_query(rng: random.Random) -> Query:
    features, ranges = [], []
    for _ in range(rng.randint(0, 4)):
        key = rng.choice(list(FEATURES))
        features.append((key, rng.choice(FEATURES[key]), draw_bits(rng)))
    for key in RANGES:  # one number per key and subquery group
        if rng.random() < 0.7:
            ranges.append((key, rng.randint(0, 120), draw_bits(rng)))
    return Query(features, ranges)


def draw_ads(seed: int = 18, count: int = 80) -> dict[str, dict]:
    rng = random.Random(seed)
    ads = {}
    for i in range(count):
        ads[f"a{i}"] = {"name": f"a{i}", "kind": rng.choice(KINDS), "bid": round(rng.uniform(0.1, 9.9), 2), "tree": draw_predicate(rng)}
    return ads


ADS = draw_ads()
QUERIES = [draw_query(random.Random(1000 + q)) for q in range(60)]


def fields(ad: dict) -> dict:
    result = {k: ad[k] for k in ("name", "kind", "bid")}
    if ad["tree"] is not None:
        result["target"] = written(ad["tree"])
    return result


@pytest.fixture(scope="module")
def runtime(tmp_path_factory: pytest.TempPathFactory):
    tmp = tmp_path_factory.mktemp("dwell-predicates")
    feed = tmp / "feed.jsonl"
    feed.write_text("".join(json.dumps({"put": f"id:test:ad::{name}", "fields": fields(ad)}) + "\n" for name, ad in ADS.items()))
    yield from deployed_runtime(tmp / "data", APP, feed)


# ---- checks ----

def answer(yql: str, **parameters) -> list[dict]:
    result = search(yql=yql, hits=400, **parameters)
    assert "errors" not in result["root"], result["root"]["errors"]
    hits = result["root"].get("children", [])
    assert result["root"]["fields"]["totalCount"] == len(hits)
    return hits


def check(query: Query, ads: dict[str, dict], also: str = "", accepts=lambda ad: True) -> int:
    """The query's hits are the ads whose predicate holds for some subquery (and that accepts takes), ranked by bid, each
    with its bitmap as subqueries(target), .lsb and .msb. Returns how many matched."""
    expected = {name: bits for name, ad in ads.items() if accepts(ad) and (bits := subqueries(ad["tree"], query))}
    hits = answer(query.yql(also))
    assert sorted(hit["fields"]["name"] for hit in hits) == sorted(expected), query.yql(also)
    for hit in hits:
        bits = expected[hit["fields"]["name"]]
        features = hit["fields"]["matchfeatures"]
        assert features["subqueries(target).lsb"] == bits & 0xFFFFFFFF, (query.yql(also), hit)
        assert features["subqueries(target).msb"] == bits >> 32, (query.yql(also), hit)
        assert features["subqueries(target)"] == bits & 0xFFFFFFFF, (query.yql(also), hit)
    bids = [hit["relevance"] for hit in hits]
    assert bids == sorted(bids, reverse=True)
    assert bids == pytest.approx(sorted((ads[name]["bid"] for name in expected), reverse=True))
    return len(expected)


def check_all(ads: dict[str, dict]) -> None:
    matched = [check(query, ads) for query in QUERIES]
    assert 0 < sum(matched) < len(QUERIES) * len(ads), "the queries should match some ads, not all"
    assert sum(1 for m in matched if m) > len(QUERIES) // 2


def test_its_own_system_test_passes(runtime: Runtime) -> None:
    result = vespa("test", str(APP / "tests" / "system-test"), check=False)
    assert result.returncode == 0, result.stdout + result.stderr


def test_each_query_finds_the_ads_whose_predicate_holds_with_its_subqueries(runtime: Runtime) -> None:
    check_all(ADS)


def test_an_ad_without_features_in_the_query_matches_if_its_predicate_holds_without_any(runtime: Runtime) -> None:
    empty = Query([], [])
    check(empty, ADS)
    always = {name for name, ad in ADS.items() if ad["tree"] == ("true",)}
    never = {name for name, ad in ADS.items() if ad["tree"] in (None, ("false",))}
    assert always and never
    found = {hit["fields"]["name"] for hit in answer(empty.yql())}
    assert always <= found and not never & found


def test_predicate_combines_with_other_items(runtime: Runtime) -> None:
    for query in QUERIES[:20]:
        check(query, ADS, ' and kind contains "video"', lambda ad: ad["kind"] == "video")
        check(query, ADS, ' and !(kind contains "video")', lambda ad: ad["kind"] != "video")
        check(query, ADS, " and bid > 5", lambda ad: ad["bid"] > 5)


def test_predicate_under_or(runtime: Runtime) -> None:
    for query in QUERIES[:15]:
        bits = {name: subqueries(ad["tree"], query) for name, ad in ADS.items()}
        hits = answer(query.yql(' or kind contains "video"'))
        assert sorted(hit["fields"]["name"] for hit in hits) == sorted(
            name for name, ad in ADS.items() if bits[name] or ad["kind"] == "video"), query.yql()
        for hit in hits:  # an ad only the other branch matched has no subqueries, as proton sets them only where the item matched
            assert hit["fields"]["matchfeatures"]["subqueries(target).lsb"] == bits[hit["fields"]["name"]] & 0xFFFFFFFF, hit


def test_subqueries_as_rank_and_summary_features(runtime: Runtime) -> None:
    for query in QUERIES[:15]:
        expected = {name: bits for name, ad in ADS.items() if (bits := subqueries(ad["tree"], query))}
        hits = answer(query.yql(), ranking="subquery_bits")
        assert sorted(hit["fields"]["name"] for hit in hits) == sorted(expected)
        for hit in hits:
            bits = expected[hit["fields"]["name"]]
            assert hit["relevance"] == bits & 0xFFFFFFFF
            assert hit["fields"]["summaryfeatures"]["subqueries(target).msb"] == bits >> 32


def test_the_boolean_query_properties_ask_the_same(runtime: Runtime) -> None:
    # the container's BooleanSearcher: boolean.field, boolean.attributes and boolean.rangeAttributes, ANDed to the query
    for query in QUERIES[:10]:
        features = [(k, v, b) for k, v, b in query.features if b == ALL]
        ranges = [(k, n, b) for k, n, b in query.ranges if b == ALL]
        plain = Query(features, ranges)
        expected = sorted(name for name, ad in ADS.items() if subqueries(ad["tree"], plain))
        hits = answer("select * from ad where true", **{
            "boolean.field": "target",
            "boolean.attributes": "{" + ",".join(f"{k}:{v}" for k, v, _ in features) + "}",
            "boolean.rangeAttributes": "{" + ",".join(f"{k}:{n}" for k, n, _ in ranges) + "}"})
        assert sorted(hit["fields"]["name"] for hit in hits) == expected, (features, ranges)


def test_a_number_outside_the_fields_bounds_is_refused_by_the_container(runtime: Runtime) -> None:
    yql = 'select * from ad where predicate(target, {"gender": "male"}, {"age": 121})'
    status, body = http("GET", f"{CONTAINER}/search/?{urllib.parse.urlencode({'yql': yql})}")
    assert status == 400, body
    assert "age=121 outside configured predicate bounds" in json.dumps(body), body


def wait_for_ads(count: int, timeout: float = 300) -> None:
    """Waits until the container answers with full coverage of count ads, and with their summaries (the first summary
    requests of a fresh start can time out while the JVM warms up)."""
    wait_for_container()
    deadline = time.monotonic() + timeout
    while True:
        status, body = http("GET", f"{CONTAINER}/search/?{urllib.parse.urlencode({'yql': 'select * from ad where true', 'hits': 400})}")
        if (status == 200 and "errors" not in body["root"] and body["root"]["fields"]["totalCount"] == count
                and body["root"].get("coverage", {}).get("full")):
            return
        assert time.monotonic() < deadline, body
        time.sleep(1)


def test_rewrites_and_removes_then_a_restart(runtime: Runtime) -> None:
    ads = {name: dict(ad) for name, ad in ADS.items()}
    rng = random.Random(99)
    for name in rng.sample(sorted(ads), 15):  # a new predicate, or none
        ads[name]["tree"] = None if rng.random() < 0.2 else draw_predicate(rng)
        target = {"assign": written(ads[name]["tree"])} if ads[name]["tree"] is not None else {"assign": None}
        status, body = http("PUT", f"{DOC}/{name}", {"fields": {"target": target}})
        assert status == 200, body
    for name in rng.sample(sorted(ads), 8):
        status, body = http("DELETE", f"{DOC}/{name}")
        assert status == 200, body
        del ads[name]
    check_all(ads)
    runtime.stop()
    runtime.start()
    wait_for_ads(len(ads))
    check_all(ads)
