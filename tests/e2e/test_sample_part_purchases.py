"""Vespa's sample application examples/part-purchases-demo (vespa-engine/sample-apps), unchanged, on dwell's runtime:
it deploys, its 20 purchases go in, and the queries Vespa's grouping guide runs on this data answer as Python computes
them from ext/feed.jsonl: sums per customer and per date, ordering by aggregates with max, hits per group, buckets,
arithmetic and time expressions, filters, count() of groups, map keys with their values and the filter on
attributes{"sales_rep"}, xor(md5(cat(...))); avg, min, max, xor and stddev besides. Skipped unless DWELL_SAMPLE_APPS
names a sample-apps checkout (see test_sample_apps.py)."""
from __future__ import annotations

import datetime
import functools
import hashlib
import json
import os
import struct
from pathlib import Path

import numpy as np
import pytest
from dwell_client import search
from dwell_client.application import deployed_runtime

SAMPLE_APPS = Path(os.environ["DWELL_SAMPLE_APPS"]) if os.environ.get("DWELL_SAMPLE_APPS") else None
APP = SAMPLE_APPS / "examples" / "part-purchases-demo" if SAMPLE_APPS else None

pytestmark = pytest.mark.skipif(SAMPLE_APPS is None or not (APP / "services.xml").exists(),
                                reason="DWELL_SAMPLE_APPS does not point at a sample-apps checkout with examples/part-purchases-demo")


@pytest.fixture(scope="module")
def purchases(tmp_path_factory: pytest.TempPathFactory):
    yield from deployed_runtime(tmp_path_factory.mktemp("part-purchases") / "data", APP, APP / "ext" / "feed.jsonl")


def feed() -> list[dict]:
    result = []
    for line in (APP / "ext" / "feed.jsonl").read_text().splitlines():
        if line.strip():
            p = json.loads(line)["fields"]
            result.append({**p, "price": int(p["price"]), "tax": float(p["tax"]), "date": int(p["date"])})
    return result


def by(key) -> dict:
    result: dict = {}
    for p in feed():
        result.setdefault(key(p), []).append(p)
    return result


def day(p: dict) -> str:
    t = datetime.datetime.fromtimestamp(p["date"], datetime.timezone.utc)
    return f"{t.year}-{t.month}-{t.day}"


def grouping(operation: str) -> list[dict]:
    """The groups of the first group list of each top-level grouping of the answer."""
    result = search(yql=f"select * from purchase where true limit 0 | {operation}", timeout="10s")
    assert "errors" not in result["root"], result["root"]["errors"]
    return [next((c.get("children", []) for c in root.get("children", []) if c["id"].startswith("grouplist:")), [])
            for root in result["root"]["children"]]


def test_sum_per_customer_and_per_date(purchases) -> None:
    [customers] = grouping("all( group(customer) each(output(sum(price))) )")
    assert {g["value"]: g["fields"]["sum(price)"] for g in customers} == {"Brown": 20537, "Jones": 39816, "Smith": 19484}
    [dates] = grouping("all(group(time.date(date)) each(output(sum(price))))")
    assert {g["value"]: g["fields"]["sum(price)"] for g in dates} == {d: sum(p["price"] for p in v) for d, v in by(day).items()}
    [nested] = grouping("all(group(customer) each(group(time.date(date)) each(output(sum(price)))))")
    found = {(c["value"], d["value"]): d["fields"]["sum(price)"] for c in nested for d in c["children"][0]["children"]}
    assert found == {k: sum(p["price"] for p in v) for k, v in by(lambda p: (p["customer"], day(p))).items()}


def test_ordering_with_max(purchases) -> None:
    [top] = grouping("all(group(customer) max(2) precision(12) order(-count()) each(output(sum(price))))")
    assert sorted(g["value"] for g in top) == ["Jones", "Smith"]  # 7 purchases each, Brown 6
    [ordered] = grouping("all(group(customer) order(max(price) * count()) each(output(count())))")
    customers = by(lambda p: p["customer"])
    assert [g["value"] for g in ordered] == sorted(customers, key=lambda c: max(p["price"] for p in customers[c]) * len(customers[c]))
    [remainders] = grouping("all(group(price % 5) order(sum(tax)) each(output(count())))")
    fives = by(lambda p: p["price"] % 5)
    assert [int(g["value"]) for g in remainders] == sorted(fives, key=lambda k: (sum(p["tax"] for p in fives[k]), k))


def test_buckets_and_expressions(purchases) -> None:
    [fixed] = grouping("all(group(fixedwidth(price,1000)) each(output(count())))")
    assert {int(g["limits"]["from"]): g["fields"]["count()"] for g in fixed} == {k * 1000: len(v) for k, v in by(lambda p: p["price"] // 1000).items()}
    [predefined] = grouping("all(group(predefined(price, bucket(0,1000), bucket(1000,2000), bucket(2000,5000), bucket(5000,inf))) each(output(count())))")
    assert [g["fields"]["count()"] for g in predefined] == [n for lo, hi in [(0, 1000), (1000, 2000), (2000, 5000), (5000, 1 << 62)]
                                                            if (n := sum(1 for p in feed() if lo <= p["price"] < hi))]
    [hours] = grouping("all(group(mod(div(date,mul(60,60)),24)) each(output(sum(price))))")
    assert {int(g["value"]): g["fields"]["sum(price)"] for g in hours} == {h: sum(p["price"] for p in v) for h, v in by(lambda p: p["date"] // 3600 % 24).items()}
    [taxed] = grouping("all(group(customer) each(output(sum(mul(price,sub(1,tax))))))")
    for g in taxed:
        assert g["fields"]["sum(mul(price, sub(1, tax)))"] == pytest.approx(sum(p["price"] * (1 - p["tax"]) for p in feed() if p["customer"] == g["value"]), rel=1e-12)


def test_statistics_per_customer(purchases) -> None:
    [customers] = grouping("all(group(customer) each(output(count(), avg(price), min(price), max(price), xor(price), stddev(price))))")
    for g in customers:
        price = np.array([p["price"] for p in feed() if p["customer"] == g["value"]])
        f = g["fields"]
        assert (f["count()"], f["min(price)"], f["max(price)"]) == (len(price), price.min(), price.max())
        assert f["avg(price)"] == pytest.approx(price.mean(), rel=1e-12)
        assert f["xor(price)"] == functools.reduce(lambda a, b: a ^ b, price.tolist())
        assert f["stddev(price)"] == pytest.approx(price.std(), rel=1e-9)


def test_the_guides_filters(purchases) -> None:
    one, customers, items = grouping("all( group(1) filter(regex('Brown',customer) and regex('Rocker arm',item)) each(output(count())) ) | "
                                     "all( group(customer) filter(regex('Rocker arm',item)) each(output(count()) ) ) | "
                                     "all( group(item) filter(regex('Brown',customer)) each(output(count()) ) )")
    assert [g["fields"]["count()"] for g in one] == [1]
    assert {g["value"]: g["fields"]["count()"] for g in customers} == {"Brown": 1, "Smith": 1}
    assert {g["value"]: g["fields"]["count()"] for g in items} == {p["item"]: 1 for p in feed() if p["customer"] == "Brown"}


def test_count_of_groups_maps_and_the_sales_rep_filter(purchases) -> None:
    result = search(yql="select * from purchase where true limit 0 | all(group(customer) output(count()) each(output(sum(price))))", timeout="10s")
    assert "errors" not in result["root"], result["root"]["errors"]
    assert result["root"]["children"][0]["fields"]["count()"] == 3  # Brown, Jones, Smith
    [keys] = grouping("all( group(attributes.key) each( group(attributes.value) each(output(count()))) )")
    pairs: dict = {}
    for p in feed():
        for k, v in p["attributes"].items():
            pairs[(k, v)] = pairs.get((k, v), 0) + 1
    assert {(k["value"], v["value"]): v["fields"]["count()"] for k in keys for v in k["children"][0]["children"]} == pairs
    [reps] = grouping('all(group(customer) filter(regex("Bonn.*", attributes{"sales_rep"}) and not range(0, 1000, price)) '
                      'each(output(sum(price)) each(output(summary()))))')
    kept: dict = {}
    for p in feed():
        if p["attributes"].get("sales_rep", "").startswith("Bonn") and not 0 <= p["price"] < 1000:
            kept[p["customer"]] = kept.get(p["customer"], 0) + p["price"]
    assert kept and {g["value"]: g["fields"]["sum(price)"] for g in reps} == kept
    [methods] = grouping('all(group(attributes.value) filter(regex("delivery_method",attributes.key)) each(output(sum(price)) each(output(summary()))))')
    by_method: dict = {}
    for p in feed():
        by_method[p["attributes"]["delivery_method"]] = by_method.get(p["attributes"]["delivery_method"], 0) + p["price"]
    assert {g["value"]: g["fields"]["sum(price)"] for g in methods} == by_method


def test_the_guides_xor_of_md5(purchases) -> None:
    [customers] = grouping("all(group(customer) each(max(1) output(count(), sum(price), xor(md5(cat(customer, price, tax), 64))) "
                           "each(output(summary()))))")
    expected: dict = {}
    for p in feed():  # price is an int attribute: 4 bytes; tax a double: 8, big-endian
        digest = hashlib.md5(p["customer"].encode() + struct.pack(">id", p["price"], p["tax"])).digest()
        expected[p["customer"]] = expected.get(p["customer"], 0) ^ struct.unpack(">q", digest[:8])[0]
    assert {g["value"]: g["fields"]["xor(md5(cat(customer, price, tax), 64))"] for g in customers} == expected
