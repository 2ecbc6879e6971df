"""Vespa's sample application examples/linguistics-asia (vespa-engine/sample-apps) on dwell's runtime: its
sub-applications 01-opennlp-cjk (Vespa's OpenNLP with `cjk`), 02-lucene-per-variant (LuceneLinguistics: SmartCN for
zh-CN, CJK bigrams for zh-TW), 03-lucene-icu (ICU words folded Traditional to Simplified, synonyms), 06-opennlp-icu and
07-opennlp-opencc (a Linguistics of the app's own bundle extending OpenNlpLinguistics: ICU4J or OpenCC4j folds each
token) and 08-lucene-phrase-dict (ICU words and a TokenFilterFactory of the app's bundle merging dictionary phrases),
deployed unchanged with the vespa CLI (the Maven ones built with cloud-tenant-base 8.700.24 and lucene-linguistics
8.668.5, Maven Central's newest, as the runtime has it), fed ext/documents.jsonl, and queried as the README's
`data-test` blocks and ext/queries.md do: the same five queries, whose hits the READMEs give per app (a Simplified query
finds the Traditional document only where the app folds the variants), and the `debug-tokens` summary holding the token
each README asserts. For 08, every dictionary phrase a Simplified title holds is one of its tokens, as computed here from
dictionary.txt. Runs when DWELL_SAMPLE_APPS points at a sample-apps checkout; skipped otherwise (CI cannot reach GitHub).
04-jieba and examples/vespa-chinese-linguistics are out of reach: the jieba-analysis 1.0.3 jar is not in git, nor on
Maven Central, and with 1.0.2 the bundle does not compile (runtime/README.md)."""
from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from dwell_client.application import deployed_runtime

from clients import maven_package, vespa_query
from sample_standins import SAMPLE_APPS

ASIA = SAMPLE_APPS / "examples" / "linguistics-asia" if SAMPLE_APPS else None

pytestmark = pytest.mark.skipif(ASIA is None or not (ASIA / "ext" / "documents.jsonl").exists(),
                                reason="DWELL_SAMPLE_APPS does not point at a sample-apps checkout with examples/linguistics-asia")

# app: (whether it folds Traditional and Simplified, the document and the token its README asserts in debug-tokens)
APPS = {
    "01-opennlp-cjk": (False, "cn-001", "手机"),
    "02-lucene-per-variant": (False, "cn-002", "无线"),
    "03-lucene-icu": (True, "tw-002", "无线"),
    "06-opennlp-icu": (True, "tw-001", "手机壳"),
    "07-opennlp-opencc": (True, "tw-001", "手机壳"),
    "08-lucene-phrase-dict": (True, "cn-009", "空气净化器"),
}
# ext/queries.md's Q1 to Q5: the term, the locale, the hits of an app that keeps the variants apart, of one that folds them
QUERIES = [
    ("手机壳", "zh-CN", {"cn-001"}, {"cn-001", "tw-001"}),
    ("手機殼", "zh-TW", {"tw-001"}, {"cn-001", "tw-001"}),
    ("无线蓝牙耳机", "zh-CN", {"cn-002"}, {"cn-002", "tw-002"}),
    ("蘋果", "zh-TW", {"tw-001"}, {"cn-001", "tw-001"}),
    ("iPhone", "zh-CN", {"cn-001", "tw-001"}, {"cn-001", "tw-001"}),
]


def pinned(app: Path, work: Path) -> Path:
    """The app built with Maven as runtime/README.md pins sample apps: cloud-tenant-base 8.700.24, lucene-linguistics
    8.668.5 (8.700.24's is not on Maven Central); the package it builds."""
    copy = shutil.copytree(app, work / app.name, ignore=shutil.ignore_patterns("target"))
    pom = (copy / "pom.xml").read_text()
    pom, parents = re.subn(r"(<artifactId>cloud-tenant-base</artifactId>\s*<version>)\[8,9\)", r"\g<1>8.700.24", pom)
    assert parents == 1
    pom = re.sub(r"(<artifactId>lucene-linguistics</artifactId>\s*<version>)\$\{vespaversion\}", r"\g<1>8.668.5", pom)
    (copy / "pom.xml").write_text(pom)
    maven_package(copy)
    return copy / "target" / "application"


@pytest.fixture(scope="module", params=list(APPS))
def app(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory):
    name = request.param
    work = tmp_path_factory.mktemp(name)
    package = ASIA / name / "app" if (ASIA / name / "app").is_dir() else pinned(ASIA / name, work)
    for _ in deployed_runtime(work / "data", package, ASIA / "ext" / "documents.jsonl"):
        yield name



def ids(root: dict) -> set[str]:
    assert root["fields"]["totalCount"] == len(root.get("children", []))
    return {hit["fields"]["id"] for hit in root.get("children", [])}


def test_the_compare_queries_hit_what_the_readme_says(app: str) -> None:
    folds = APPS[app][0]
    for term, locale, apart, folded in QUERIES:
        root = vespa_query(f'yql=select id from product where default contains "{term}"', f"model.locale={locale}")
        assert ids(root) == (folded if folds else apart), (app, term)


def test_the_debug_tokens_hold_the_token_the_readme_asserts(app: str) -> None:
    _, document, token = APPS[app]
    root = vespa_query(f'yql=select * from product where id contains "{document}"', "summary=debug-tokens", "hits=1")
    assert ids(root) == {document}
    fields = root["children"][0]["fields"]
    assert token in json.dumps(fields, ensure_ascii=False)
    assert token in fields["title_tokens"] or token in fields["body_tokens"], fields


def test_every_dictionary_phrase_of_a_title_is_one_token(app: str) -> None:
    if app != "08-lucene-phrase-dict":
        pytest.skip("08-lucene-phrase-dict's dictionary")
    dictionary = ASIA / app / "src" / "main" / "application" / "linguistics" / "dictionary.txt"
    phrases = [line.strip() for line in dictionary.read_text().splitlines() if line.strip() and not line.startswith("#")]
    documents = [json.loads(line)["fields"] for line in (ASIA / "ext" / "documents.jsonl").read_text().splitlines() if line.strip()]
    root = vespa_query("yql=select * from product where true", "summary=debug-tokens", "hits=20")
    tokens = {hit["fields"]["id"]: hit["fields"]["title_tokens"] for hit in root["children"]}
    expected = {d["id"]: [p for p in phrases if p in d["title"]] for d in documents if d["language"] == "zh-CN"}
    assert sum(len(found) for found in expected.values()) >= 6  # 智能手表, 笔记本电脑, 保温杯, 运动跑鞋, 电饭煲, 空气净化器
    for document, found in expected.items():
        for phrase in found:
            assert phrase in tokens[document], (document, phrase, tokens[document])
