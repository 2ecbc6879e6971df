"""Vespa's sample applications that runtime/README.md listed as "Deployed only" (their data is downloaded, or their
READMEs show no feed), each deployed unchanged with the vespa CLI on dwell's runtime, fed documents written to its
schema as its own scripts shape them, and asked the queries its README (or the tutorial it links to) shows, with the
vespa CLI where the README uses it. Answers are checked against an independent computation: the matching documents
by the terms in Python, sort orders, group counts, and scores in numpy where the ranking is computable (a dot
product, bm25, a tensor product; nativeRank's part is checked as the difference two profiles make).

news/app-1..5: the MIND data set (bin/download-mind.sh, from Azure blob storage) is not reachable here; six articles
of ours are shaped as src/python/convert_to_vespa_format.py writes MIND's news.tsv lines, users and embeddings as
convert_embeddings_to_vespa_format.py writes them. visual-retrieval-colpali and text-video-search need
huggingface.co/GitHub for their models and data: random vectors of ours stand in for ColPali's and CLIP's embeddings.
Each app is its own class, so one runtime runs at a time.
Runs when DWELL_SAMPLE_APPS points at a sample-apps checkout; skipped otherwise (CI cannot reach GitHub)."""
from __future__ import annotations

import csv
import json
import math
import re
import shutil
import subprocess
import urllib.parse
from pathlib import Path

import numpy as np
import pytest
from dwell_client import CONTAINER, http, vespa
from dwell_client.application import deployed_runtime

from late_interaction import max_sim, pack_bits, unpack_bits
from clients import vespa_query
from sample_standins import SAMPLE_APPS

pytestmark = pytest.mark.skipif(SAMPLE_APPS is None or not (SAMPLE_APPS / "news" / "app-1-getting-started").exists(),
                                reason="DWELL_SAMPLE_APPS does not point at a vespa-engine/sample-apps checkout")

# (news_id, category, subcategory, title, abstract, date, clicks, impressions): MIND's columns, and the date,
# clicks and impressions convert_to_vespa_format.py adds
ARTICLES = [
    ("N10864", "news", "newsus", "Music festival returns to the city park",
     "The annual music festival brings local bands and food trucks downtown.", 20191110, 12, 100),
    ("N20001", "music", "musicnews", "Festival lineup announced for the summer",
     "Headliners include three rock bands and a beer garden.", 20191108, 3, 50),
    ("N20002", "foodanddrink", "drinks", "Ten drinks to try this fall",
     "Cocktails and beer for cold weather evenings.", 20191109, 0, 0),
    ("N20003", "weather", "weathertopstories", "Snow and cold weather expected this weekend",
     "Forecasters warn drivers about icy roads.", 20191110, 5, 10),
    ("N20004", "sports", "football_nfl", "Quarterback sets a passing record",
     "The team celebrated with music after the game.", 20191111, 7, 7),
    ("N20005", "music", "musicnews", "Music festival canceled over beer permit",
     "Organizers of the music festival blame the city for drinks rules.", 20191107, 1, 20),
]
USERS = ["U33527", "U1000"]
_RNG = np.random.default_rng(5)
USER_VECTORS = {u: np.round(_RNG.normal(size=50), 6) for u in USERS}
NEWS_VECTORS = {a[0]: np.round(_RNG.normal(size=50), 6) for a in ARTICLES}



def post_search(body: dict) -> dict:
    status, reply = http("POST", f"{CONTAINER}/search/", {"timeout": "20s", **body})
    assert status == 200, json.dumps(reply)[:3000]
    assert "errors" not in reply["root"], reply["root"]["errors"]
    return reply["root"]


BY_TITLE = {a[3]: a[0] for a in ARTICLES}


def ids(root: dict) -> list[str]:
    """The hits' ids; by their titles where the summary has no documentid (`select title`: Vespa then gives each hit
    an index:... id)."""
    return [h["id"].split("::")[1] if "::" in h["id"] else BY_TITLE[h["fields"]["title"]]
            for h in root.get("children", [])]


def words(text: str) -> list[str]:
    return re.findall(r"[a-z0-9]+", text.lower())


def news_feed(work: Path) -> Path:
    feed = work / "vespa.jsonl"
    with feed.open("w") as out:
        for news_id, category, subcategory, title, abstract, date, clicks, impressions in ARTICLES:
            fields = {"news_id": news_id, "category": category, "subcategory": subcategory, "title": title,
                      "abstract": abstract, "url": f"https://www.msn.com/en-us/{category}/{news_id.lower()}",
                      "date": date, "clicks": clicks, "impressions": impressions}
            out.write(json.dumps({"put": f"id:news:news::{news_id}", "fields": fields}) + "\n")
    return feed


def in_default(term: str) -> set[str]:
    return {a[0] for a in ARTICLES if term in words(a[3]) or term in words(a[4])}


def in_title(term: str) -> set[str]:
    return {a[0] for a in ARTICLES if term in words(a[3])}


def package(app: str, work: Path) -> Path:
    return shutil.copytree(SAMPLE_APPS / app, work / "application")


class TestNewsGettingStarted:
    """news-1-getting-started: doc.json fed with `vespa document`, the three queries, the remove."""

    @pytest.fixture(scope="class")
    @classmethod
    def app(cls, tmp_path_factory: pytest.TempPathFactory):
        work = tmp_path_factory.mktemp("news-1")
        for _ in deployed_runtime(work / "data", package("news/app-1-getting-started", work)):
            yield

    def test_the_tutorials_document_and_queries(self, app) -> None:
        put = vespa("document", "-v", str(SAMPLE_APPS / "news" / "doc.json"), check=False)
        assert put.returncode == 0, put.stdout + put.stderr
        for parameters in (["yql=select * from news where true"],
                           ["yql=select * from news where userQuery()", "query=hello world", "default-index=title"],
                           ['yql=select * from news where title contains phrase("hello","world")']):
            root = vespa_query(*parameters)
            assert ids(root) == ["1"] and root["children"][0]["fields"]["title"] == "Hello world!"
        removed = vespa("document", "-v", "remove", "id:news:news::1", check=False)
        assert removed.returncode == 0 and "id:news:news::1" in removed.stdout + removed.stderr
        assert vespa_query("yql=select * from news where true")["fields"]["totalCount"] == 0


@pytest.fixture(scope="class")
def news(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory):
    work = tmp_path_factory.mktemp("news")
    for _ in deployed_runtime(work / "data", package(request.cls.APP, work), news_feed(work)):
        yield


class TestNewsFeedAndQuery:
    """news-2-basic-feeding-and-query's queries."""
    APP = "news/app-2-feed-and-query"

    def test_count_and_get(self, news) -> None:
        assert vespa_query("yql=select * from news where true", "hits=0")["fields"]["totalCount"] == len(ARTICLES)
        got = vespa("document", "-v", "get", "id:news:news::N10864", check=False)
        assert got.returncode == 0 and "id:news:news::N10864" in got.stdout

    @pytest.mark.parametrize("parameters, want", [
        (['yql=select * from news where default contains "music"'], in_default("music")),
        (['yql=select title from news where title contains "music"'], in_title("music")),
        (['yql=select title from news where default contains "music" and default contains "festival"'],
         in_default("music") & in_default("festival")),
        (["yql=select title from news where userQuery()", "query=music festival", "type=all"],
         in_default("music") & in_default("festival")),
        (["yql=select title from news where userQuery()", "query=music festival -beer", "type=any"],
         (in_default("music") | in_default("festival")) - in_default("beer")),
        (["yql=select title from news where userQuery()", "query=music festival", "type=phrase",
          "default-index=title"], {a[0] for a in ARTICLES if "music festival" in " ".join(words(a[3]))}),
        (['yql=select title from news where rank(userQuery(), title contains "festival")', "query=music"],
         in_default("music")),
    ])
    def test_the_tutorials_queries(self, news, parameters: list[str], want: set[str]) -> None:
        root = vespa_query(*parameters)
        assert root["coverage"]["coverage"] == 100
        assert set(ids(root)) == want and root["fields"]["totalCount"] == len(want)
        relevance = [h["relevance"] for h in root["children"]]
        assert relevance == sorted(relevance, reverse=True)


class TestNewsSearching:
    """news-3-searching's queries: attributes, ranges, sorting, grouping and the popularity profile."""
    APP = "news/app-3-searching"

    @pytest.mark.parametrize("yql, want", [
        ('select * from news where default contains "20191110"', set()),
        ("select * from news where date=20191110", {a[0] for a in ARTICLES if a[5] == 20191110}),
        ('select * from news where date=20191110 and default contains "weather"',
         {a[0] for a in ARTICLES if a[5] == 20191110} & in_default("weather")),
        ("select * from news where date < 20191110", {a[0] for a in ARTICLES if a[5] < 20191110}),
        ("select * from news where date <= 20191110 AND date >= 20191108",
         {a[0] for a in ARTICLES if 20191108 <= a[5] <= 20191110}),
    ])
    def test_attribute_queries(self, news, yql: str, want: set[str]) -> None:
        root = vespa_query(f"yql={yql}")
        assert set(ids(root)) == want and root["fields"]["totalCount"] == len(want)

    @pytest.mark.parametrize("order", ["", " desc"])
    def test_sorting(self, news, order: str) -> None:
        root = vespa_query(f'yql=select date from news where default contains phrase("music","festival") order by date{order}')
        dates = [h["fields"]["date"] for h in root["children"]]
        matching = [a[5] for a in ARTICLES if "music festival" in " ".join(words(a[3] + " " + a[4]))]
        assert dates == sorted(matching, reverse=order == " desc")

    def test_grouping_by_category(self, news) -> None:
        root = vespa_query("yql=select * from news where true limit 0 | "
                     "all(group(category) max(3) order(-count())each(output(count())))")
        groups = root["children"][0]["children"][0]["children"]
        counts: dict[str, int] = {}
        for a in ARTICLES:
            counts[a[1]] = counts.get(a[1], 0) + 1
        got = [(g["value"], g["fields"]["count()"]) for g in groups]
        assert len(got) == 3 and got[0] == ("music", 2)
        assert all(counts[v] == c for v, c in got) and [c for _, c in got] == sorted(counts.values(), reverse=True)[:3]

    def test_top_hits_per_category(self, news) -> None:
        root = vespa_query("yql=select * from news where userQuery() limit 0",
                     "select=all(group(category) max(2) each(max(2)each(output(summary()))))", "query=drinks")
        groups = root["children"][0]["children"][0]["children"]
        want = {a[1]: {a[0]} for a in ARTICLES if a[0] in in_default("drinks")}
        for a in ARTICLES:
            if a[0] in in_default("drinks"):
                want[a[1]].add(a[0])
        got = {g["value"]: {h["fields"]["news_id"] for h in g["children"][0]["children"]} for g in groups}
        assert got == want

    def test_popularity(self, news) -> None:
        """nativeRank + 100 * clicks / impressions: the popularity profile's score less the default profile's
        (nativeRank) is 100 times the click rate, 0 without impressions."""
        yql = 'yql=select * from news where default contains "music"'
        native = {h["fields"]["news_id"]: h["relevance"] for h in vespa_query(yql)["children"]}
        popular = vespa_query(yql, "ranking=popularity")
        assert set(native) == in_default("music")
        rate = {a[0]: a[6] / a[7] if a[7] > 0 else 0.0 for a in ARTICLES}
        for hit in popular["children"]:
            n = hit["fields"]["news_id"]
            assert hit["relevance"] - native[n] == pytest.approx(100 * rate[n], abs=1e-9)
        assert [h["relevance"] for h in popular["children"]] == sorted(
            (h["relevance"] for h in popular["children"]), reverse=True)


class TestNewsRecommendation:
    """news-5-recommendation: user and news embeddings as convert_embeddings_to_vespa_format.py writes them (a put
    per user, an assign update per article), then src/python/user_search.py's two requests (vespa_client.py): the
    user's embedding by user_id, the articles by nearestNeighbor with the recommendation profile."""
    APP = "news/app-5-recommendation"
    USER_VECTORS = USER_VECTORS
    NEWS_VECTORS = NEWS_VECTORS

    @pytest.fixture(scope="class")
    @classmethod
    def embedded(cls, news, tmp_path_factory: pytest.TempPathFactory):
        feed = tmp_path_factory.mktemp("news-5-embeddings") / "embeddings.json"
        operations = [{"put": f"id:user:user::{u}", "fields": {"user_id": u, "embedding": {"values": list(v)}}}
                      for u, v in USER_VECTORS.items()]
        operations += [{"update": f"id:news:news::{n}", "fields": {"embedding": {"assign": {"values": list(v)}}}}
                       for n, v in NEWS_VECTORS.items()]
        feed.write_text(json.dumps(operations))
        fed = vespa("feed", str(feed), check=False)
        assert fed.returncode == 0, fed.stdout + fed.stderr

    @pytest.mark.parametrize("hits, filter", [(10, ""), (3, ""), (10, 'and !(category contains "music")')])
    def test_user_search(self, embedded, hits: int, filter: str) -> None:
        status, reply = http("GET", f"{CONTAINER}/search/?yql=" + urllib.parse.quote_plus(
            'select * from sources user where user_id contains "U33527"') + "&hits=1")
        assert status == 200
        user_vector = reply["root"]["children"][0]["fields"]["embedding"]["values"]  # vespa_client.parse_embedding
        assert np.allclose(user_vector, self.USER_VECTORS["U33527"], atol=1e-6)
        root = post_search({"hits": hits, "ranking.profile": "recommendation",
                            "yql": f"select * from sources news where ({{targetHits:{hits}}}"
                                   f"nearestNeighbor(embedding, user_embedding)) {filter}",
                            "ranking.features.query(user_embedding)": str(user_vector)})
        u = np.array(user_vector, dtype=np.float32)
        allowed = [a[0] for a in ARTICLES if not (filter and a[1] == "music")]
        dot = {n: float(np.dot(u, self.NEWS_VECTORS[n].astype(np.float32))) for n in allowed}
        want = sorted(dot, key=lambda n: -dot[n])[:hits]
        assert ids(root) == want
        for hit in root["children"]:
            assert hit["relevance"] == pytest.approx(dot[hit["fields"]["news_id"]], rel=1e-5)  # closeness: the dot product

    def test_popularity_still_ranks(self, embedded) -> None:
        root = vespa_query('yql=select * from news where default contains "festival"', "ranking=popularity")
        assert set(ids(root)) == in_default("festival")


def bm25_scores(texts: dict[str, str], terms: list[str]) -> dict[str, float]:
    """bm25(text) of each text for the terms, the forms the English stemmer folds into them ("records", "recorded"
    are "record") folded."""
    stems = {f"{t}{ending}": t for t in terms for ending in ("", "s", "ed")}
    tokens = {k: [stems.get(w, w) for w in words(t)] for k, t in texts.items()}
    n, average = len(tokens), sum(len(t) for t in tokens.values()) / len(tokens)
    scores = {}
    for k, t in tokens.items():
        score = 0.0
        for term in terms:
            df = sum(1 for other in tokens.values() if term in other)
            tf = t.count(term)
            if tf:
                idf = math.log(1 + (n - df + 0.5) / (df + 0.5))
                score += idf * tf * 2.2 / (tf + 1.2 * (0.25 + 0.75 * len(t) / average))
        scores[k] = score
    return scores


class TestClients:
    """examples/clients: app/ deployed, dataset/docs.jsonl (1000 MS MARCO passages) fed, and the query
    client-java's VespaClient sends (`userQuery()` with "guinness world record"), ranked by bm25(text)."""

    @pytest.fixture(scope="class")
    @classmethod
    def app(cls, tmp_path_factory: pytest.TempPathFactory):
        work = tmp_path_factory.mktemp("clients")
        for _ in deployed_runtime(work / "data", package("examples/clients/app", work),
                                  SAMPLE_APPS / "examples" / "clients" / "dataset" / "docs.jsonl"):
            yield

    def test_the_clients_query(self, app) -> None:
        root = vespa_query("yql=select * from sources * where userQuery()", "query=guinness world record", "hits=10")
        passages = [json.loads(line) for line in
                    (SAMPLE_APPS / "examples" / "clients" / "dataset" / "docs.jsonl").read_text().splitlines()]
        texts = {p["put"].split("::")[1]: p["fields"]["text"] for p in passages}
        want = bm25_scores(texts, ["guinness", "world", "record"])
        assert root["coverage"]["documents"] == 1000
        for hit in root["children"]:  # a few passages' non-ASCII characters make the average length 2 tokens in 53273 off
            assert hit["relevance"] == pytest.approx(want[hit["id"].split("::")[1]], rel=1e-4)
        assert ids(root) == sorted((k for k in want if want[k] > 0), key=lambda k: -want[k])[:10]


COLUMNS = ["model", "year", "price", "transmission", "mileage", "fuelType", "tax", "mpg", "engineSize"]


def cars(dataset: Path, rows: int) -> list[dict]:
    """The first rows of each CSV as logstash.conf's filters make them: model stripped and lowercased,
    transmission and fuelType lowercased, make from the file name, car_features with the scores its ruby code
    computes (only those above 0) and 1.0 for the transmission, fuel type, make and model."""
    out = []
    for path in sorted(dataset.glob("*.csv")):
        with path.open() as f:
            lines = csv.reader(f)
            next(lines)  # skip_header; the columns by position, as logstash.conf names them (hyundai's says tax(£))
            for i, values in enumerate(lines):
                row = dict(zip(COLUMNS, values))
                if i == rows:
                    break
                year, price, mileage, tax = (int(row[k]) for k in ("year", "price", "mileage", "tax"))
                mpg, engine = float(row["mpg"]), float(row["engineSize"])
                make = re.split(r"\d+", path.stem)[0].lower()
                model = row["model"].strip().lower()
                features = {row["transmission"].lower(): 1.0, row["fuelType"].lower(): 1.0}
                scores = {"age": 1.0 - (2025 - year) / 25.0 if year >= 2000 else 0.0,
                          "price": (100000 - price) / 100000.0 if price <= 100000 else 0.0,
                          "mileage": (200000 - mileage) / 200000.0 if mileage <= 200000 else 0.0,
                          "tax": (500 - tax) / 500.0 if tax <= 500 else 0.0,
                          "mpg": 1.0 if mpg >= 100 else mpg / 100.0}
                features.update({k: v for k, v in scores.items() if v > 0})
                features[make] = 1.0
                features[model] = 1.0
                out.append({"put": f"id:product:product::{make}-{i}", "fields": {
                    "model": model, "year": year, "price": price, "transmission": row["transmission"].lower(),
                    "mileage": mileage, "fuelType": row["fuelType"].lower(), "tax": tax, "mpg": mpg,
                    "engineSize": engine, "make": make, "car_features": features}})
    return out


class TestEcommerceUserPreferences:
    """examples/ecommerce-user-preferences: dataset/*.csv (its first 20 rows each) through logstash.conf's
    conversion, and queries.http's searches."""
    PREFERENCES = "{{features:manual}:1,{features:diesel}:1.2,{features:audi}:1.7,{features:a4}:1.9}"
    WEIGHTS = {"manual": 1.0, "diesel": 1.2, "audi": 1.7, "a4": 1.9}

    @pytest.fixture(scope="class")
    @classmethod
    def app(cls, tmp_path_factory: pytest.TempPathFactory):
        work = tmp_path_factory.mktemp("ecommerce")
        cls.CARS = cars(SAMPLE_APPS / "examples" / "ecommerce-user-preferences" / "dataset", 20)
        feed = work / "cars.jsonl"
        feed.write_text("".join(json.dumps(c) + "\n" for c in cls.CARS))
        for _ in deployed_runtime(work / "data", package("examples/ecommerce-user-preferences/app", work), feed):
            yield

    def score(self, car: dict) -> float:
        f = car["fields"]["car_features"]
        return float(sum(np.float32(w) * np.float32(f[k]) for k, w in self.WEIGHTS.items() if k in f))

    def test_all(self, app) -> None:
        root = post_search({"yql": "select * from product where true", "hits": 10})
        assert root["fields"]["totalCount"] == len(self.CARS) and len(root["children"]) == 10

    def test_preferences(self, app) -> None:
        root = post_search({"yql": "select * from product where true", "hits": 10, "ranking": "rank_cars",
                            "presentation.summary": "attributes",
                            "ranking.features.query(user_preferences)": self.PREFERENCES, "trace.level": 0})
        def key(fields: dict) -> tuple:  # the attributes summary has no documentid: a car by its values
            return tuple(fields[k] for k in ("make", "model", "year", "price", "mileage"))
        want: dict[tuple, list[float]] = {}
        for c in self.CARS:
            want.setdefault(key(c["fields"]), []).append(self.score(c))
        relevance = [h["relevance"] for h in root["children"]]
        assert relevance == pytest.approx(sorted((s for v in want.values() for s in v), reverse=True)[:10], rel=1e-6)
        for hit in root["children"]:
            assert any(hit["relevance"] == pytest.approx(s, rel=1e-6) for s in want[key(hit["fields"])])
            assert set(hit["fields"]) <= {"make", "model", "year", "price", "transmission", "mileage", "fuelType",
                                          "tax", "mpg", "engineSize", "sddocname", "documentid"}

    @pytest.mark.parametrize("where", ["true", {"and": [{"contains": ["transmission", "manual"]}]}])
    def test_select_grouping(self, app, where) -> None:
        grouping = [{"all": {"group": g, "order": "-count()", "max": 10, "each": {"output": "count()"}}}
                    for g in ("make", "transmission", "fuelType")]
        root = post_search({"select": {"where": where, "grouping": grouping}, "hits": 10, "ranking": "rank_cars",
                            "presentation.summary": "attributes",
                            "ranking.features.query(user_preferences)": self.PREFERENCES, "trace.level": 0})
        matching = [c["fields"] for c in self.CARS if where == "true" or c["fields"]["transmission"] == "manual"]
        assert root["fields"]["totalCount"] == len(matching)
        lists = [g for g in root["children"] if g["id"].startswith("group:root")]
        got = {}
        for group_root in lists:
            for grouplist in group_root["children"]:
                got[grouplist["label"]] = {g["value"]: g["fields"]["count()"] for g in grouplist["children"]}
        for g in ("make", "transmission", "fuelType"):
            counts: dict[str, int] = {}
            for m in matching:
                counts[m[g]] = counts.get(m[g], 0) + 1
            assert got[g] == dict(sorted(counts.items(), key=lambda kv: -kv[1])[:10])


class TestGramFallback:
    """examples/linguistics-asia/05-gram-fallback: ../ext/documents.jsonl and the README's data-test queries."""

    @pytest.fixture(scope="class")
    @classmethod
    def app(cls, tmp_path_factory: pytest.TempPathFactory):
        work = tmp_path_factory.mktemp("gram")
        asia = SAMPLE_APPS / "examples" / "linguistics-asia"
        for _ in deployed_runtime(work / "data", package("examples/linguistics-asia/05-gram-fallback/app", work),
                                  asia / "ext" / "documents.jsonl"):
            yield

    @pytest.mark.parametrize("term, locale, expected", [("手机壳", "zh-CN", "cn-001"), ("手機殼", "zh-TW", "tw-001")])
    def test_variant_queries(self, app, term: str, locale: str, expected: str) -> None:
        root = vespa_query(f'yql=select id from product where default contains "{term}"', f"model.locale={locale}")
        docs = [json.loads(line)["fields"] for line in
                (SAMPLE_APPS / "examples" / "linguistics-asia" / "ext" / "documents.jsonl").read_text().splitlines()
                if line.strip()]
        grams = [term[i:i + 2] for i in range(len(term) - 1)]
        want = {d["id"] for d in docs if any(all(g in d[f] for g in grams) for f in ("title", "body"))}
        got = {h["fields"]["id"] for h in root["children"]}
        assert expected in got and got == want

    def test_debug_tokens(self, app) -> None:
        root = vespa_query('yql=select * from product where id contains "cn-001"', "summary=debug-tokens", "hits=1")
        tokens = root["children"][0]["fields"]["title_tokens"]
        assert "机壳" in tokens and "手机" in tokens


def joins_built(work: Path) -> Path:
    """examples/joins built as its pom says (`mvn package`, its unit tests run), cloud-tenant-base pinned to 8.700.24."""
    copy = shutil.copytree(SAMPLE_APPS / "examples" / "joins", work / "joins")
    pom = copy / "pom.xml"
    pom.write_text(pom.read_text().replace("<version>[8,9)</version>", "<version>8.700.24</version>"))
    done = subprocess.run(["mvn", "-q", "-o", "package"], cwd=copy, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout[-5000:] + done.stderr[-5000:]
    return copy


# (id, start, end, text) titles of ours; the tags are its own DataGenerator's
TITLES = [("0", 0, 1500, "Generic title one"), ("0", 2000, 3500, "Generic title two"),
          ("1", 500, 2500, "Generic title three"), ("1", 3000, 3900, "Another show")]


@pytest.mark.skipif(shutil.which("mvn") is None or shutil.which("java") is None, reason="needs Maven and Java")
class TestJoins:
    """examples/joins: its README shows no queries. Its FeedAndSearchSystemTest's steps (a Vespa Cloud system test,
    run here by hand), then its JoinSearcher's three variants joining titles (ours) with the tags its
    DataGenerator writes (`java DataGenerator.java 3 2 4 7`), each join checked against the interval overlaps."""

    @pytest.fixture(scope="class")
    @classmethod
    def app(cls, tmp_path_factory: pytest.TempPathFactory):
        work = tmp_path_factory.mktemp("joins")
        copy = joins_built(work)
        generated = subprocess.run(["java", str(copy / "src/main/java/ai/vespa/example/joins/DataGenerator.java"),
                                    "3", "2", "4", "7"], capture_output=True, text=True, check=True).stdout
        decoder, tags, at = json.JSONDecoder(), [], 0
        while generated[at:].strip():
            doc, end = decoder.raw_decode(generated, generated.index("{", at))
            tags.append(doc)
            at = end
        cls.TAGS = [t["fields"] for t in tags]
        feed = work / "feed.json"
        titles = [{"put": f"id:joins:title::{i}-{s}-{e}", "fields": {"id": i, "start": s, "end": e, "text": t}}
                  for i, s, e, t in TITLES]
        feed.write_text(json.dumps(tags + titles))
        for _ in deployed_runtime(work / "data", copy / "target" / "application", feed):
            yield

    def test_the_system_tests_steps(self, app) -> None:
        """As FeedAndSearchSystemTest, but its query `title CONTAINS 'text'` names the document type, not a field:
        Vespa's container (8.700.24's, here as on Vespa) answers 400 "Field 'title' does not exist", so the steps
        are run with the title's field, `text`."""
        url = f"{CONTAINER}/document/v1/joins/title/docid/test1"
        status, reply = http("POST", f"{CONTAINER}/search/", {"yql": "SELECT * FROM SOURCES * WHERE title CONTAINS 'text'"})
        assert status == 400 and "Field 'title' does not exist" in json.dumps(reply)
        yql = "SELECT * FROM SOURCES * WHERE text CONTAINS 'text'"
        assert http("DELETE", url)[0] == 200
        assert post_search({"yql": yql, "timeout": "5s"})["fields"]["totalCount"] == 0
        assert http("POST", url, {"fields": {"text": "Sample text"}})[0] == 200
        assert post_search({"yql": yql})["fields"]["totalCount"] == 1
        assert http("DELETE", url)[0] == 200

    @pytest.mark.parametrize("variant", ["queryPerHit", "rangeItemPerHit", "containerIntersect"])
    @pytest.mark.parametrize("tag", [0, 2])
    def test_join(self, app, variant: str, tag: int) -> None:
        """The request as JoinSearcherTest builds it: the join's properties and no query of its own. (With a `yql`
        the searcher's terms are lost: it is not ordered after MinimalQueryInserter, which parses the YQL after it
        and replaces the query tree and sources, in Vespa's own chain as here.)"""
        a_start, a_end = 1000, 3200
        status, reply = http("GET", f"{CONTAINER}/search/?" + urllib.parse.urlencode({
            "variant": variant, "a.type": "title", "a.field": "text", "a.value": "generic", "a.start": a_start,
            "a.end": a_end, "b.type": "tag", "b.field": "tagid", "b.value": str(tag), "hits": 100}))
        assert status == 200 and "errors" not in reply["root"], reply
        hits = reply["root"].get("children", [])
        titles = [t for t in TITLES if "generic" in words(t[3]) and t[1] <= a_end and t[2] >= a_start]
        tags = [t for t in self.TAGS if t["tagid"] == tag]
        if variant == "rangeItemPerHit":  # the tags overlapping any title hit, as tag hits
            want = sorted((t["id"], t["start"], t["end"]) for t in tags
                          if any(t["id"] == i and t["start"] <= e and t["end"] >= s for i, s, e, _ in titles))
            got = sorted((h["fields"]["id"], h["fields"]["start"], h["fields"]["end"]) for h in hits)
        else:  # a title hit per overlapping tag, with the tag's interval (its tagid is not in attribute-only: null)
            want = sorted((i, s, e, t["start"], t["end"]) for i, s, e, _ in titles for t in tags
                          if t["id"] == i and t["start"] <= e and t["end"] >= s)
            got = sorted((h["fields"]["id"], h["fields"]["start"], h["fields"]["end"], h["fields"]["tagStart"],
                          h["fields"]["tagEnd"]) for h in hits)
        assert got == want and want


# (title, text) of pages of ours; the page images and ColPali's embeddings of them are made in Python by
# prepare_feed_deploy.py with vidore/colpali-v1.2 from huggingface.co (not reachable): random 128-dimension patch
# vectors stand in for them, binarized as its float_to_binary_embedding does
PAGES = [("Annual report 2023", "The pension fund returns were strong this year."),
         ("Responsible investment", "Climate risk and ownership of companies in the fund."),
         ("Quarterly report", "Equity investments and real estate returns in the quarter.")]


class TestVisualRetrievalColpali:
    """visual-retrieval-colpali's application/ unchanged, pages fed as prepare_feed_deploy.py shapes them
    (`embedding` {patch: 16 int8 of packed bits}), and src/backend/vespa_app.py's two requests: bm25 (`userQuery()`,
    `input.query(qt)`) and colpali (a nearestNeighbor per query token on rq{i} or `userQuery()`, qt and qtb), with
    random query token vectors standing in for ColPali's query encoder."""
    PATCHES = [np.random.default_rng(11 + n).normal(size=(6, 128)) for n in range(len(PAGES))]
    QUERY = np.random.default_rng(10).normal(size=(3, 128)).astype(np.float32)

    @pytest.fixture(scope="class")
    @classmethod
    def app(cls, tmp_path_factory: pytest.TempPathFactory):
        work = tmp_path_factory.mktemp("colpali")
        feed = work / "vespa_feed.json"
        pages = []
        for n, ((title, text), patches) in enumerate(zip(PAGES, cls.PATCHES)):
            embedding = {str(k): v.tolist() for k, v in enumerate(pack_bits(patches, 16))}
            pages.append({"put": f"id:pdf_page:pdf_page::page{n}", "fields": {
                "id": f"page{n}", "url": f"https://example.com/report{n}.pdf", "title": title, "year": 2023,
                "page_number": n, "blur_image": "", "full_image": "", "text": text, "embedding": embedding,
                "queries": [], "questions": []}})
        feed.write_text(json.dumps(pages))
        for _ in deployed_runtime(work / "data", package("visual-retrieval-colpali/application", work), feed):
            yield

    def test_bm25(self, app) -> None:
        root = post_search({"yql": "select id,title,url,blur_image,page_number,snippet,text from pdf_page "
                                   "where userQuery();", "ranking": "bm25", "query": "fund returns", "hits": 3,
                            "input.query(qt)": {str(i): v.tolist() for i, v in enumerate(self.QUERY)}})
        want = {f"page{n}" for n, (t, x) in enumerate(PAGES) if {"fund", "returns"} & set(words(t + " " + x))}
        assert {h["fields"]["id"] for h in root["children"]} == want

    def test_colpali(self, app) -> None:
        binary = pack_bits(self.QUERY, 16)
        nn = " OR ".join(f"({{targetHits:100}}nearestNeighbor(embedding,rq{i}))" for i in range(len(binary)))
        root = post_search({"yql": f"select id,title,url,blur_image,page_number,snippet,text from pdf_page "
                                   f"where {nn} or userQuery()", "ranking.profile": "colpali", "query": "fund",
                            "hits": 3, "hnsw.exploreAdditionalHits": 300, "ranking.rerankCount": 100,
                            "input.query(qt)": {str(i): v.tolist() for i, v in enumerate(self.QUERY)},
                            "input.query(qtb)": {str(i): v.tolist() for i, v in enumerate(binary)},
                            **{f"input.query(rq{i})": v.tolist() for i, v in enumerate(binary)}})
        want = {f"page{n}": max_sim(self.QUERY, unpack_bits(pack_bits(p, 16))) for n, p in enumerate(self.PATCHES)}
        assert [h["fields"]["id"] for h in root["children"]] == sorted(want, key=lambda n: -want[n])
        for hit in root["children"]:  # second phase (rerank-count 10): max_sim over the unpacked bits
            assert hit["relevance"] == pytest.approx(want[hit["fields"]["id"]], rel=1e-5)


def text_video_package(work: Path) -> tuple[Path, dict]:
    """text-video-search has no package in git: src/python/embedding.py's create_text_video_app makes it with pyvespa.
    That module imports OpenAI's clip (installed from GitHub, its weights from openaipublic.azureedge.net: neither
    reachable), so the function and create_vespa_query are taken from its source and run with pyvespa alone, for
    ViT-B/32's 512 dimensions."""
    import ast
    from vespa.package import HNSW, ApplicationPackage, Field, QueryTypeField, RankProfile
    source = (SAMPLE_APPS / "text-video-search" / "src" / "python" / "embedding.py").read_text()
    tree = ast.parse(source)
    wanted = {"translate_model_names_to_valid_vespa_field_names", "create_text_video_app", "create_vespa_query"}
    module = ast.Module([n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name in wanted], [])
    scope = {"ApplicationPackage": ApplicationPackage, "Field": Field, "HNSW": HNSW, "RankProfile": RankProfile,
             "QueryTypeField": QueryTypeField}
    exec(compile(module, "embedding.py", "exec"), scope)
    directory = work / "videosearch"
    scope["create_text_video_app"]({"ViT-B/32": 512}).to_files(directory)
    return directory, scope


class TestTextVideoSearch:
    """text-video-search: its pyvespa package deployed; frames fed as its VideoFeedDataset writes them (`create`,
    `vit_b_32_image` values, video_file_name); create_vespa_query's request (nearestNeighbor with `targetNumHits`,
    grouping by video, the best frame of each) with a random vector standing in for CLIP's text embedding."""
    FRAMES = {f"v_{name}_g01_c01": np.random.default_rng(n).normal(size=(3, 512)).astype(np.float32)
              for n, name in enumerate(("ApplyEyeMakeup", "Basketball", "Surfing"))}
    TEXT = np.random.default_rng(13).normal(size=512).astype(np.float32)

    @pytest.fixture(scope="class")
    @classmethod
    def app(cls, tmp_path_factory: pytest.TempPathFactory):
        work = tmp_path_factory.mktemp("video")
        directory, scope = text_video_package(work)
        cls.SCOPE = scope
        feed = work / "frames.jsonl"
        feed.write_text("".join(json.dumps({
            "put": f"id:videosearch:videosearch::{video}_{i}", "create": True,
            "fields": {"video_file_name": f"{video}.mp4", "vit_b_32_image": {"values": frame.tolist()}}}) + "\n"
            for video, frames in cls.FRAMES.items() for i, frame in enumerate(frames)))
        for _ in deployed_runtime(work / "data", directory, feed):
            yield

    def test_the_search(self, app) -> None:
        class TextProcessor:  # stands in for its CLIP TextProcessor: the model's name and a text's embedding
            model_name = "ViT-B/32"

            def embed(self, text: str) -> list[float]:
                return TestTextVideoSearch.TEXT.tolist()
        body = self.SCOPE["create_vespa_query"]("a person surfing", TextProcessor(), 2)
        status, reply = http("POST", f"{CONTAINER}/search/", body)
        assert status == 200 and "errors" not in reply["root"], reply
        closeness = {v: 1 / (1 + np.linalg.norm(f.astype(np.float64) - self.TEXT, axis=1)) for v, f in self.FRAMES.items()}
        best = sorted(closeness, key=lambda v: -closeness[v].max())[:2]
        videos = reply["root"]["children"][0]["children"][0]["children"]
        assert [g["value"] for g in videos] == [f"{v}.mp4" for v in best]
        for group, video in zip(videos, best):
            frame = group["children"][0]["children"][0]
            assert frame["relevance"] == pytest.approx(closeness[video].max(), rel=1e-5)
            assert frame["id"] == f"id:videosearch:videosearch::{video}_{int(np.argmax(closeness[video]))}"
