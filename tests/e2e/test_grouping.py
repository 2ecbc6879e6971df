"""Grouping aggregators (tests/apps/grouping, issue 18): purchases on a content cluster of three nodes, grouped by
customer, item, time parts and price buckets, with sum, avg, min, max, xor, stddev and count of attributes and of
expressions over them, ordered by aggregates with max(N), nested, filtered; count() of groups; one group per element of
arrays, weighted sets and maps (keys with their values), map lookups, the istrue filter, xor of md5 of cat, normalizesubject, uca,
quantiles; every answer against numpy over
what was fed. The
container merges the three nodes' partial results, so a sum that was not a sum of partial sums, an average merged
as an average of averages, or a node pruning groups it should keep would show here."""
from __future__ import annotations

import datetime
import functools
import hashlib
import json
import random
import struct

import numpy as np
import pytest
from dwell_client import ROOT, Runtime, search, vespa

from clients import deployed_runtime

APP = ROOT / "tests" / "apps" / "grouping"
CUSTOMERS = ["Ada", "Bo", "Cy", "Di", "Ed"]
ITEMS = ["bolt", "nut", "gear", "valve", "spring", "belt"]
TAXES = [0.12, 0.24, 0.25]
START = 1157526000  # 2006-09-06 07:00 UTC


def purchases(seed: int = 5, count: int = 40) -> list[dict]:
    rng = random.Random(seed)
    return [{"customer": rng.choice(CUSTOMERS), "item": rng.choice(ITEMS), "price": rng.randrange(100, 10000),
             "quantity": rng.randrange(1, 10), "tax": rng.choice(TAXES), "weight": rng.randrange(1, 80) / 8,
             "date": START + rng.randrange(0, 40 * 86400)} for _ in range(count)]


TAGS = ["red", "blue", "green", "gold"]
REPS = ["Bonnie", "Bonita", "Kathy", "Al"]


def with_multi_values(fed: list[dict], seed: int = 11) -> list[dict]:
    """Adds the multi-value fields, from their own random sequence: tags (an array, an element may repeat), codes
    (a weighted set of ints), attributes (a map, as part-purchases-demo's; a sales_rep in most) and paid (a bool)."""
    rng = random.Random(seed)
    for p in fed:
        p["tags"] = rng.choices(TAGS, k=rng.randrange(0, 4))
        p["codes"] = {str(c): rng.randrange(1, 10) for c in rng.sample([1, 2, 3, 5, 8], rng.randrange(0, 3))}
        p["attributes"] = {"coupon": rng.choice(["SAVE10", "VIP25", "SPRING5"])}
        if rng.random() < 0.8:
            p["attributes"]["sales_rep"] = rng.choice(REPS)
        p["paid"] = rng.random() < 0.6
    return fed


def with_lookups(fed: list[dict], seed: int = 13) -> list[dict]:
    """Adds the fields of the lookup functions, from their own random sequence: store (a position as x and y in
    microdegrees; none in some), thresholds (ascending, distinct; 0-4 of them) and deliveries (0-4 ints)."""
    rng = random.Random(seed)
    for p in fed:
        if rng.random() < 0.85:
            p["store"] = {"x": rng.randrange(-180_000_000, 180_000_001), "y": rng.randrange(-90_000_000, 90_000_001)}
        p["thresholds"] = sorted(float(t) for t in rng.sample(range(0, 10_001, 500), rng.randrange(0, 5)))
        p["deliveries"] = [rng.randrange(1, 20) for _ in range(rng.randrange(0, 5))]
    return fed


FED = with_lookups(with_multi_values(purchases()))


@pytest.fixture(scope="module")
def runtime(tmp_path_factory: pytest.TempPathFactory):
    tmp = tmp_path_factory.mktemp("dwell-grouping")
    feed = tmp / "feed.jsonl"
    feed.write_text("".join(json.dumps({"put": f"id:test:purchase::{n}", "fields": p}) + "\n" for n, p in enumerate(FED)))
    yield from deployed_runtime(tmp / "data", APP, feed)


def grouping(operation: str, **parameters) -> dict:
    """The root of a grouping request's answer. Levels with more groups than the container's default max (10) say
    max(100); those ordered by an aggregate with max(N) say precision(10), more groups than there are, so that no
    node prunes a group by its partial aggregate (Vespa's approximation: the test checks exact answers)."""
    result = search(yql=f"select * from purchase where true limit 0 | {operation}", timeout="10s", **parameters)
    assert "errors" not in result["root"], result["root"]["errors"]
    assert result["root"]["fields"]["totalCount"] == len(FED)
    return result["root"]


def groups(node: dict) -> list[dict]:
    """The groups of the first group list below a node (the root, or a group), in the order rendered."""
    for child in node.get("children", []):
        if child["id"].startswith("group:root"):
            return groups(child)
        if child["id"].startswith("grouplist:"):
            return child.get("children", [])
    return []


def by(key: str) -> dict[str, list[dict]]:
    result: dict[str, list[dict]] = {}
    for p in FED:
        result.setdefault(p[key], []).append(p)
    return result


def utc(p: dict) -> datetime.datetime:
    return datetime.datetime.fromtimestamp(p["date"], datetime.timezone.utc)


def test_its_own_system_test_passes(runtime: Runtime) -> None:
    result = vespa("test", str(APP / "tests" / "system-test"), check=False)
    assert result.returncode == 0, result.stdout + result.stderr


def test_sum_avg_min_max_xor_stddev_count_per_customer(runtime: Runtime) -> None:
    root = grouping("all(group(customer) each(output(count(), sum(price), avg(price), min(price), max(price), xor(price), "
                    "stddev(price), avg(tax), max(weight), min(item))))")
    expected = by("customer")
    assert [g["value"] for g in groups(root)] == sorted(expected)
    for g in groups(root):
        own = expected[g["value"]]
        price = np.array([p["price"] for p in own], dtype=np.int64)
        f = g["fields"]
        assert f["count()"] == len(own)
        assert f["sum(price)"] == int(price.sum()) and isinstance(f["sum(price)"], int)
        assert f["avg(price)"] == pytest.approx(price.mean(), rel=1e-12)
        assert (f["min(price)"], f["max(price)"]) == (int(price.min()), int(price.max()))
        assert f["xor(price)"] == functools.reduce(lambda a, b: a ^ b, price.tolist())
        assert f["stddev(price)"] == pytest.approx(price.std(), rel=1e-9)  # the population's
        assert f["avg(tax)"] == pytest.approx(np.mean([p["tax"] for p in own]), rel=1e-12)
        assert f["max(weight)"] == max(p["weight"] for p in own)
        assert f["min(item)"] == min(p["item"] for p in own)


def test_aggregates_of_expressions(runtime: Runtime) -> None:
    root = grouping("all(group(item) each(output(sum(mul(price, sub(1, tax))), sum(mul(price, quantity)), sum(div(price, 1000)), "
                    "sum(mod(price, 7)), max(neg(quantity)), sum(math.sqrt(price)), sum(math.floor(div(price, 1000.0))))))")
    expected = by("item")
    for g in groups(root):
        own = expected[g["value"]]
        price = np.array([p["price"] for p in own], dtype=np.int64)
        tax = np.array([p["tax"] for p in own])
        quantity = np.array([p["quantity"] for p in own], dtype=np.int64)
        f = g["fields"]
        assert f["sum(mul(price, sub(1, tax)))"] == pytest.approx((price * (1 - tax)).sum(), rel=1e-12)
        assert f["sum(mul(price, quantity))"] == int((price * quantity).sum())
        assert f["sum(div(price, 1000))"] == int((price // 1000).sum())  # integer division
        assert f["sum(mod(price, 7))"] == int((price % 7).sum())
        assert f["max(neg(quantity))"] == -int(quantity.min())
        assert f["sum(math.sqrt(price))"] == pytest.approx(np.sqrt(price).sum(), rel=1e-12)
        assert f["sum(math.floor(div(price, 1000.0)))"] == pytest.approx(np.floor(price / 1000.0).sum())


def test_order_by_aggregates_with_max(runtime: Runtime) -> None:
    sums = {c: sum(p["price"] for p in own) for c, own in by("customer").items()}
    top = groups(grouping("all(group(customer) max(2) precision(10) order(-sum(price)) each(output(sum(price))))"))
    assert [g["value"] for g in top] == sorted(sums, key=lambda c: -sums[c])[:2]
    assert [g["fields"]["sum(price)"] for g in top] == sorted(sums.values(), reverse=True)[:2]
    averages = {c: np.mean([p["price"] for p in own]) for c, own in by("customer").items()}
    low = groups(grouping("all(group(customer) max(3) precision(10) order(avg(price)) each(output(avg(price))))"))
    assert [g["value"] for g in low] == sorted(averages, key=lambda c: averages[c])[:3]
    products = {c: max(p["price"] for p in own) * len(own) for c, own in by("customer").items()}
    ordered = groups(grouping("all(group(customer) order(-max(price) * count()) each(output(count())))"))
    assert [g["value"] for g in ordered] == sorted(products, key=lambda c: -products[c])
    taxed = {i: sum(p["tax"] for p in own) for i, own in by("item").items()}
    by_tax = groups(grouping("all(group(item) max(4) precision(10) order(-sum(tax)) each(output(sum(tax))))"))
    assert [g["value"] for g in by_tax] == sorted(taxed, key=lambda i: -taxed[i])[:4]


def test_nested_groups(runtime: Runtime) -> None:
    root = grouping("all(group(customer) each(output(sum(price)) all(group(item) max(2) precision(10) order(-sum(price)) "
                    "each(max(1) output(sum(price), count()) each(output(summary()))))))")
    for customer in groups(root):
        own = by("customer")[customer["value"]]
        assert customer["fields"]["sum(price)"] == sum(p["price"] for p in own)
        per_item: dict[str, int] = {}
        for p in own:
            per_item[p["item"]] = per_item.get(p["item"], 0) + p["price"]
        items = groups(customer)
        assert [g["value"] for g in items] == sorted(per_item, key=lambda i: -per_item[i])[:2]
        for item in items:
            assert item["fields"]["sum(price)"] == per_item[item["value"]]
            assert item["fields"]["count()"] == sum(1 for p in own if p["item"] == item["value"])
            hits = [c for c in item["children"] if c["id"].startswith("hitlist")][0]["children"]
            assert len(hits) == 1 and hits[0]["fields"]["customer"] == customer["value"]


def test_time_buckets(runtime: Runtime) -> None:
    def expect(key) -> dict:
        result: dict = {}
        for p in FED:
            k = key(utc(p))
            result[k] = result.get(k, 0) + p["price"]
        return result
    dates = groups(grouping("all(group(time.date(date)) max(100) each(output(sum(price))))"))
    assert {g["value"]: g["fields"]["sum(price)"] for g in dates} == expect(lambda t: f"{t.year}-{t.month}-{t.day}")
    for function, key in [("time.year", lambda t: t.year), ("time.monthofyear", lambda t: t.month),
                          ("time.dayofmonth", lambda t: t.day), ("time.hourofday", lambda t: t.hour),
                          ("time.dayofweek", lambda t: t.isoweekday() % 7)]:  # 0 is Sunday
        found = groups(grouping(f"all(group({function}(date)) max(100) each(output(sum(price))))"))
        assert {int(g["value"]): g["fields"]["sum(price)"] for g in found} == expect(key), function
    hours = groups(grouping("all(group(mod(div(date, mul(60, 60)), 24)) max(100) each(output(sum(price))))"))
    assert {int(g["value"]): g["fields"]["sum(price)"] for g in hours} == expect(lambda t: t.hour)
    nested = groups(grouping("all(group(time.year(date)) each(output(count()) all(group(time.monthofyear(date)) each(output(count())))))"))
    months = {}
    for p in FED:
        months[utc(p).month] = months.get(utc(p).month, 0) + 1
    assert {int(g["value"]): g["fields"]["count()"] for g in groups(nested[0])} == months


def test_price_buckets(runtime: Runtime) -> None:
    fixed = groups(grouping("all(group(fixedwidth(price, 1000)) max(100) each(output(count(), sum(price))))"))
    expected: dict[int, list[int]] = {}
    for p in FED:
        expected.setdefault(p["price"] // 1000 * 1000, []).append(p["price"])
    assert {int(g["limits"]["from"]): (int(g["limits"]["to"]), g["fields"]["count()"], g["fields"]["sum(price)"]) for g in fixed} == \
        {low: (low + 1000, len(v), sum(v)) for low, v in expected.items()}
    predefined = groups(grouping("all(group(predefined(price, bucket(0, 1000), bucket(1000, 5000), bucket(5000, inf))) each(output(count())))"))
    counts = [sum(1 for p in FED if lo <= p["price"] < hi) for lo, hi in [(0, 1000), (1000, 5000), (5000, 1 << 62)]]
    assert [g["fields"]["count()"] for g in predefined] == [c for c in counts if c > 0]
    taxes = groups(grouping("all(group(predefined(tax, bucket(0.0, 0.2), bucket(0.2, 0.245), bucket(0.245, inf))) each(output(count())))"))
    assert [g["fields"]["count()"] for g in taxes] == [sum(1 for p in FED if p["tax"] == t) for t in TAXES]
    names = groups(grouping('all(group(predefined(customer, bucket(-inf, "Cy"), bucket["Cy"], bucket<"Cy", inf>)) each(output(count())))'))
    assert [g["fields"]["count()"] for g in names] == [sum(1 for p in FED if p["customer"] < "Cy"),
                                                       sum(1 for p in FED if p["customer"] == "Cy"),
                                                       sum(1 for p in FED if p["customer"] > "Cy")]
    remainders = groups(grouping("all(group(price % 3) each(output(count())))"))
    assert {int(g["value"]): g["fields"]["count()"] for g in remainders} == \
        {r: sum(1 for p in FED if p["price"] % 3 == r) for r in range(3) if any(p["price"] % 3 == r for p in FED)}


def test_level_filters(runtime: Runtime) -> None:
    root = grouping('all(group(customer) each(output(count()) all(group(item) filter(regex("b.*|g.*", item) and not range(0, 5000, price)) '
                    'each(output(count(), sum(price))))))')
    for customer in groups(root):
        own = by("customer")[customer["value"]]
        assert customer["fields"]["count()"] == len(own)  # the filter is on the level below
        kept: dict[str, list[int]] = {}
        for p in own:
            if p["item"][0] in "bg" and not 0 <= p["price"] < 5000:  # a full match; range's upper bound exclusive
                kept.setdefault(p["item"], []).append(p["price"])
        assert {g["value"]: (g["fields"]["count()"], g["fields"]["sum(price)"]) for g in groups(customer)} == \
            {i: (len(v), sum(v)) for i, v in kept.items()}
    both = groups(grouping("all(group(1) filter(regex(\"Cy\", customer) and regex(\"bolt|nut\", item)) each(output(count())))"))
    assert [g["fields"]["count()"] for g in both] == [sum(1 for p in FED if p["customer"] == "Cy" and p["item"] in ("bolt", "nut"))]
    partial = groups(grouping('all(group(customer) filter(regex("C", customer)) each(output(count())))'))
    assert partial == []  # "C" is no full match of "Cy"


def test_count_of_groups(runtime: Runtime) -> None:
    """count() of a level's groups: each node's HyperLogLog sketch of the group ids, merged by the container; exact
    for counts this small (a sparse sketch holds the distinct hashes). Every customer buys on several nodes."""
    root = grouping("all(group(customer) output(count()) each(output(count())))")
    assert root["children"][0]["fields"]["count()"] == len(by("customer")) == len(CUSTOMERS)
    assert len(groups(root)) == len(CUSTOMERS)
    items_per_customer = grouping("all(group(customer) each(all(group(item) output(count()) each(output(count())))))")
    assert {g["value"]: g["fields"]["count()"] for g in groups(items_per_customer)} == \
        {c: len({p["item"] for p in own}) for c, own in by("customer").items()}
    dates = grouping("all(group(time.date(date)) output(count()) each(output(count())))")
    assert dates["children"][0]["fields"]["count()"] == len({(utc(p).year, utc(p).month, utc(p).day) for p in FED})
    buckets = grouping("all(group(fixedwidth(price, 1000)) output(count()) each(output(count())))")
    assert buckets["children"][0]["fields"]["count()"] == len({p["price"] // 1000 for p in FED})


def test_multi_value_attributes_group_per_element(runtime: Runtime) -> None:
    """As proton: a document is in one group per element (twice in a group whose value it holds twice)."""
    tags: dict[str, list[int]] = {}
    for p in FED:
        for t in p["tags"]:
            tags.setdefault(t, []).append(p["price"])
    assert any(len(p["tags"]) != len(set(p["tags"])) for p in FED)  # some purchase repeats a tag
    found = groups(grouping("all(group(tags) each(output(count(), sum(price))))"))
    assert {g["value"]: (g["fields"]["count()"], g["fields"]["sum(price)"]) for g in found} == \
        {t: (len(v), int(np.sum(v))) for t, v in tags.items()}
    codes: dict[int, int] = {}
    for p in FED:
        for c in p["codes"]:
            codes[int(c)] = codes.get(int(c), 0) + 1
    assert {int(g["value"]): g["fields"]["count()"] for g in groups(grouping("all(group(codes) each(output(count())))"))} == codes
    nested = grouping("all(group(customer) each(all(group(tags) each(output(count())))))")
    for customer in groups(nested):
        expected: dict[str, int] = {}
        for p in by("customer")[customer["value"]]:
            for t in p["tags"]:
                expected[t] = expected.get(t, 0) + 1
        assert {g["value"]: g["fields"]["count()"] for g in groups(customer)} == expected


def test_map_keys_values_and_lookups(runtime: Runtime) -> None:
    """attributes.key binds the map to the level's element, so attributes.value below is that key's value;
    attributes{"sales_rep"} is the value of the key ("" where there is none), also in a filter (the guide's)."""
    pairs = grouping("all(group(attributes.key) each(output(count()) all(group(attributes.value) each(output(count())))))")
    expected: dict[tuple[str, str], int] = {}
    for p in FED:
        for k, v in p["attributes"].items():
            expected[(k, v)] = expected.get((k, v), 0) + 1
    assert {(k["value"], v["value"]): v["fields"]["count()"] for k in groups(pairs) for v in groups(k)} == expected
    assert {k["value"]: k["fields"]["count()"] for k in groups(pairs)} == \
        {"coupon": len(FED), "sales_rep": sum(1 for p in FED if "sales_rep" in p["attributes"])}
    reps = groups(grouping('all(group(attributes{"sales_rep"}) each(output(count(), sum(price))))'))
    by_rep: dict[str, list[int]] = {}
    for p in FED:
        by_rep.setdefault(p["attributes"].get("sales_rep", ""), []).append(p["price"])
    assert "" in by_rep
    assert {g["value"]: (g["fields"]["count()"], g["fields"]["sum(price)"]) for g in reps} == \
        {r: (len(v), sum(v)) for r, v in by_rep.items()}
    guide = groups(grouping('all(group(customer) filter(regex("Bonn.*", attributes{"sales_rep"}) and not range(0, 1000, price)) '
                            'each(output(sum(price))))'))
    kept: dict[str, int] = {}
    for p in FED:
        if p["attributes"].get("sales_rep", "").startswith("Bonn") and not 0 <= p["price"] < 1000:
            kept[p["customer"]] = kept.get(p["customer"], 0) + p["price"]
    assert {g["value"]: g["fields"]["sum(price)"] for g in guide} == kept
    # the guide's structured grouping: a level on attributes.value filtered by the key of the same element
    structured = groups(grouping('all(group(attributes.value) filter(regex("sales_rep", attributes.key)) each(output(count(), sum(price))))'))
    assert {g["value"]: (g["fields"]["count()"], g["fields"]["sum(price)"]) for g in structured} == \
        {r: (len(v), sum(v)) for r, v in by_rep.items() if r}


def test_istrue_filter(runtime: Runtime) -> None:
    paid = groups(grouping("all(group(customer) filter(istrue(paid)) each(output(count(), sum(price))))"))
    expected: dict[str, list[int]] = {}
    for p in FED:
        if p["paid"]:
            expected.setdefault(p["customer"], []).append(p["price"])
    assert {g["value"]: (g["fields"]["count()"], g["fields"]["sum(price)"]) for g in paid} == \
        {c: (len(v), sum(v)) for c, v in expected.items()}
    unpaid = groups(grouping("all(group(1) filter(not istrue(paid)) each(output(count())))"))
    assert [g["fields"]["count()"] for g in unpaid] == [sum(1 for p in FED if not p["paid"])]


def test_xor_of_md5_of_cat_and_normalizesubject(runtime: Runtime) -> None:
    """The guide's xor(md5(cat(customer, price, tax), 64)): md5 of the customer's UTF-8 bytes, price (an int
    attribute) as 4 bytes and tax (a double) as 8, big-endian, as proton's CatSerializer writes them; its first 8
    bytes as a big-endian integer, xor-ed per group."""
    root = grouping("all(group(customer) each(output(xor(md5(cat(customer, price, tax), 64)), xor(md5(cat(date, item), 64)))))")
    for g in groups(root):
        first = second = 0
        for p in by("customer")[g["value"]]:
            first ^= struct.unpack(">q", hashlib.md5(p["customer"].encode() + struct.pack(">id", p["price"], p["tax"])).digest()[:8])[0]
            second ^= struct.unpack(">q", hashlib.md5(struct.pack(">q", p["date"]) + p["item"].encode()).digest()[:8])[0]
        assert g["fields"]["xor(md5(cat(customer, price, tax), 64))"] == first
        assert g["fields"]["xor(md5(cat(date, item), 64))"] == second
    subjects = groups(grouping('all(group(normalizesubject(strcat("Re: ", item))) max(100) each(output(count())))'))
    assert {g["value"]: g["fields"]["count()"] for g in subjects} == {i: len(v) for i, v in by("item").items()}
    forwarded = groups(grouping('all(group(normalizesubject(strcat("Fwd: Re: ", item))) max(100) each(output(count())))'))
    assert {g["value"] for g in forwarded} == {"Re: " + i for i in by("item")}  # one prefix only


def test_uca_sort_keys(runtime: Runtime) -> None:
    """uca(x, locale, strength): ICU's sort key of x, grouped by (raw ids) and ordered by (max of the keys)."""
    items = groups(grouping('all(group(uca(item, "en", "PRIMARY")) max(100) each(output(count(), min(item))))'))
    assert {g["fields"]["min(item)"]: g["fields"]["count()"] for g in items} == {i: len(v) for i, v in by("item").items()}
    ordered = groups(grouping('all(group(customer) order(-max(uca(customer, "sv"))) each(output(count())))'))
    assert [g["value"] for g in ordered] == sorted(by("customer"), reverse=True)


def test_quantiles_per_customer(runtime: Runtime) -> None:
    """quantiles([...], x): each node's KLL sketch of the group's values, merged by the container, which reads the
    quantiles from it. The groups here hold fewer values than a sketch keeps (200), so each is exact: the least value
    whose share of the group's values at or below it reaches the quantile (numpy's inverted_cdf)."""
    qs = [0.0, 0.1, 0.25, 0.5, 0.9, 0.99, 1.0]
    root = grouping(f"all(group(customer) each(output(quantiles({json.dumps(qs)}, price), quantiles([0.5], mul(price, tax)))))")
    expected = by("customer")
    assert [g["value"] for g in groups(root)] == sorted(expected)
    for g in groups(root):
        price = np.array([p["price"] for p in expected[g["value"]]], dtype=np.float64)
        answered = g["fields"][f"quantiles({json.dumps(qs).replace(' ', '')},price)"]
        assert [a["quantile"] for a in answered] == qs
        assert [a["value"] for a in answered] == [float(np.quantile(price, q, method="inverted_cdf")) for q in qs], g["value"]
        taxed = np.array([p["price"] * p["tax"] for p in expected[g["value"]]])
        (label,) = [k for k in g["fields"] if k.startswith("quantiles([0.5],")]
        (median,) = g["fields"][label]
        assert median["value"] == pytest.approx(float(np.quantile(taxed, 0.5, method="inverted_cdf")), rel=1e-12)


def store(p: dict, axis: str) -> int:
    """zcurve.x or .y of store_zcurve: the fed coordinate; without a position, the attribute's undefined value
    (the long's minimum: only bit 63, an odd bit, set) decodes to x 0 and y -2**31, as proton's."""
    return p["store"][axis] if "store" in p else (0 if axis == "x" else -2**31)


def test_zcurve_decodes_the_position(runtime: Runtime) -> None:
    assert any("store" not in p for p in FED) and any(p["store"]["x"] < 0 for p in FED if "store" in p)
    for axis in "xy":
        found = groups(grouping(f"all(group(zcurve.{axis}(store_zcurve)) max(100) each(output(count())))"))
        expected: dict[int, int] = {}
        for p in FED:
            expected[store(p, axis)] = expected.get(store(p, axis), 0) + 1
        assert {int(g["value"]): g["fields"]["count()"] for g in found} == expected, axis
    sums = groups(grouping("all(group(customer) each(output(sum(zcurve.y(store_zcurve)), min(zcurve.x(store_zcurve)))))"))
    assert {g["value"]: (g["fields"]["sum(zcurve.y(store_zcurve))"], g["fields"]["min(zcurve.x(store_zcurve))"]) for g in sums} == \
        {c: (int(np.sum([store(p, "y") for p in own], dtype=np.int64)), min(store(p, "x") for p in own)) for c, own in by("customer").items()}


def interpolated(thresholds: list[float], x: float) -> float:
    """Where x falls in the ascending thresholds, by numpy's linear interpolation of their indexes (0 below the
    first, the last index above the last; 0 of none)."""
    return float(np.interp(x, thresholds, np.arange(len(thresholds)))) if thresholds else 0.0


def test_interpolatedlookup_in_an_ascending_array(runtime: Runtime) -> None:
    found = groups(grouping("all(group(interpolatedlookup(thresholds, price)) max(100) each(output(count())))"))
    expected: dict[float, int] = {}
    for p in FED:
        expected[interpolated(p["thresholds"], p["price"])] = expected.get(interpolated(p["thresholds"], p["price"]), 0) + 1
    assert sum(1 for p in FED if 0 < interpolated(p["thresholds"], p["price"]) % 1) > 5  # most between two thresholds
    got = sorted((float(g["value"]), g["fields"]["count()"]) for g in found)
    assert [count for _, count in got] == [count for _, count in sorted(expected.items())]
    assert [value for value, _ in got] == pytest.approx(sorted(expected), rel=1e-12)
    sums = groups(grouping("all(group(customer) each(output(sum(interpolatedlookup(thresholds, mul(price, 0.5))))))"))
    for g in sums:
        own = by("customer")[g["value"]]
        assert g["fields"]["sum(interpolatedlookup(thresholds, mul(price, 0.5)))"] == \
            pytest.approx(np.sum([interpolated(p["thresholds"], p["price"] * 0.5) for p in own]), rel=1e-12)


def at(values: list[int], i: int) -> int:
    """array.at as proton reads it: the element at i; past the end (or at a negative index) the last; 0 of none."""
    return values[i] if 0 <= i < len(values) else (values[-1] if values else 0)


def test_array_at(runtime: Runtime) -> None:
    assert any(not p["deliveries"] for p in FED) and any(p["quantity"] > len(p["deliveries"]) > 0 for p in FED)
    first = groups(grouping("all(group(array.at(deliveries, 0)) max(100) each(output(count(), sum(price))))"))
    expected: dict[int, list[int]] = {}
    for p in FED:
        expected.setdefault(at(p["deliveries"], 0), []).append(p["price"])
    assert {int(g["value"]): (g["fields"]["count()"], g["fields"]["sum(price)"]) for g in first} == \
        {d: (len(v), sum(v)) for d, v in expected.items()}
    per_customer = groups(grouping("all(group(customer) each(output(sum(array.at(deliveries, sub(quantity, 1))), "
                                   "max(array.at(deliveries, -1)))))"))
    assert {g["value"]: (g["fields"]["sum(array.at(deliveries, sub(quantity, 1)))"], g["fields"]["max(array.at(deliveries, neg(1)))"])
            for g in per_customer} == \
        {c: (sum(at(p["deliveries"], p["quantity"] - 1) for p in own), max(at(p["deliveries"], -1) for p in own))
         for c, own in by("customer").items()}
    tags = groups(grouping("all(group(array.at(tags, 1)) max(100) each(output(count())))"))
    expected_tags: dict[str, int] = {}
    for p in FED:
        t = p["tags"][1] if len(p["tags"]) > 1 else (p["tags"][-1] if p["tags"] else "")
        expected_tags[t] = expected_tags.get(t, 0) + 1
    assert {g["value"]: g["fields"]["count()"] for g in tags} == expected_tags


def test_aggregates_of_a_multi_value_attribute_take_every_element(runtime: Runtime) -> None:
    """sum(deliveries) and the rest: every element of every document of the group, as proton flattens the array
    (a group without elements keeps the prepared min and max, the long's extremes)."""
    root = grouping("all(group(customer) each(output(count(), sum(deliveries), avg(deliveries), min(deliveries), max(deliveries), "
                    "xor(deliveries), stddev(deliveries), sum(thresholds), max(thresholds))))")
    for g in groups(root):
        own = by("customer")[g["value"]]
        d = np.array([x for p in own for x in p["deliveries"]], dtype=np.int64)
        t = np.array([x for p in own for x in p["thresholds"]])
        f = g["fields"]
        assert len(d) > len(own) / 2 and len(t) > 0
        assert f["count()"] == len(own)  # documents, not elements
        assert f["sum(deliveries)"] == int(d.sum()) and isinstance(f["sum(deliveries)"], int)
        assert f["avg(deliveries)"] == pytest.approx(d.mean(), rel=1e-12)
        assert (f["min(deliveries)"], f["max(deliveries)"]) == (int(d.min()), int(d.max()))
        assert f["xor(deliveries)"] == functools.reduce(lambda a, b: a ^ b, d.tolist())
        assert f["stddev(deliveries)"] == pytest.approx(d.std(), rel=1e-9)
        assert f["sum(thresholds)"] == pytest.approx(t.sum(), rel=1e-12) and f["max(thresholds)"] == t.max()


def test_unsupported_grouping_fails_naming_it(runtime: Runtime) -> None:
    for operation, name in [("all(group(interpolatedlookup(tags, price)) each(output(count())))", "interpolatedlookup of STRING attribute 'tags'"),
                            ("all(group(array.at(codes, 0)) each(output(count())))", "array.at of WEIGHTEDSET attribute 'codes'"),
                            ("all(group(customer) each(output(sum(md5(customer, 64)))))", "SumAggregationResult of a raw value"),
                            ("all(group(customer) each(output(xor(md5(cat(customer, add(price, 1)), 64)))))", "AddFunctionNode"),
                            ("all(group(customer) filter(istrue(price)) each(output(count())))", "istrue() requires input to be type bool"),
                            ("all(group(customer) each(output(sum(tags))))", "multi-value attribute 'tags'"),
                            ("all(group(tags) output(count()) each(output(count())))", "count() of groups by")]:
        result = search(yql=f"select * from purchase where true limit 0 | {operation}", timeout="10s")
        messages = " ".join(e.get("message", "") for e in result["root"].get("errors", []))
        assert name in messages, (operation, result["root"])
