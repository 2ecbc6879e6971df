"""The comments page (/page/, page/ in the package) in a real headless browser: Debian's chromium and
chromium-driver, driven with Selenium, against a runtime serving the package.

The page must show an article's comments in the order /search/ ranks them, explain each with the
ranking's own numbers (checked against numpy), switch rank profiles, collapse near-duplicates, find
similar comments, and send votes and replies through /document/v1/ so that the next view shows the
new order. It writes a screenshot: DWELL_PAGE_SCREENSHOT=docs/page.png keeps it in the docs.
"""
from __future__ import annotations

import json
import math
import os
import shutil
import time
from pathlib import Path

import numpy as np
import pytest
from dwell_client import CONTAINER, ROOT, deployed_runtime, get, search

from dwell_learning.export import rankingmodel_put
from dwell_learning.features import CommentSignals, baseline_score, feature_vector
from dwell_learning.network import forward
from nn_cases import read_constants

APPLICATION = ROOT / "target" / "application"
ARTICLE = "harbour-bridge-vote"
OTHER = "weekend-weather"
# The live model: version 2 of the committed runtime run of the learning loop (learning/results/medium-runtime),
# with the learning curve of that run up to the iteration that shipped it.
RUN = ROOT / "learning" / "results" / "medium-runtime"
MODEL_VERSION = 2
MODEL_WEIGHTS = read_constants(RUN / "models" / "v2" / "constants")
_ROWS = [json.loads(line) for line in (RUN / "iterations.jsonl").read_text().splitlines()]
_SHIPPED = next(i for i, r in enumerate(_ROWS) if r["shipped"] and r["model_version"] == MODEL_VERSION - 1)
CURVE = {"learned": [r["dwell_learned"] for r in _ROWS[:_SHIPPED + 1]],
         "freshness": [r["dwell_freshness"] for r in _ROWS[:_SHIPPED + 1]]}

AUTHORS = {"maria": 0.92, "tom": 0.55, "lee": 0.31, "sam": 0.08, "ines": 0.74}

# id: (author, hours old, upvotes, downvotes, reply_count, text). Replies are below.
COMMENTS = {
    "c1": ("maria", 2, 41, 3, 2, "The council finally listened. The toll-free option was the only fair one for people "
                                 "who cross every day for work."),
    "c2": ("tom", 1, 12, 1, 0, "Has anyone seen the actual cost estimate? The article does not link to it."),
    "c3": ("lee", 9, 30, 22, 0, "Another decade of roadworks. I will believe it when I see it."),
    "c4": ("sam", 0.5, 9, 1, 0, "Please fix the potholes on the bridge road first."),
    "c5": ("sam", 0.6, 7, 0, 0, "please fix the potholes on the bridge road first!!"),
    "c6": ("ines", 5, 18, 0, 0, "My grandfather helped build the old bridge in 1961. Glad it is being repaired, "
                                "not torn down."),
    "c7": ("maria", 30, 55, 5, 0, "The ferry service should run during the closure, otherwise the east side is cut off."),
    "c8": ("tom", 3, 4, 0, 0, "Cycling lanes on both sides would be a start."),
    "c9": ("lee", 14, 7, 9, 0, "Nobody asked the people who actually live under the bridge."),
    "c10": ("ines", 0.2, 2, 0, 0, "Will the night buses still cross during the works?"),
    "c11": ("tom", 48, 3, 1, 0, "Old news, this was decided last year."),
    "c12": ("sam", 6, 2, 2, 0, "First!"),
}
REPLIES = {
    "r1": ("tom", 1.5, "c1", "Agreed, and the toll would have hit nurses on night shifts hardest."),
    "r2": ("lee", 1.0, "c1", "Fair for whom? Someone still pays for the bridge."),
}
OTHERS = {f"w{i}": ("ines", i, i, 0, 0, f"Rain again on day {i} of the festival.") for i in range(1, 4)}

VIEW_HITS = 10


def feed_lines(now: int) -> list[dict]:
    lines = [{"put": f"id:dwell:author::{a}", "fields": {"author_id": a, "reputation": r}} for a, r in AUTHORS.items()]
    for article, comments in ((ARTICLE, COMMENTS), (OTHER, OTHERS)):
        for cid, (author, hours, up, down, replies, text) in comments.items():
            lines.append({"put": f"id:dwell:comment::{cid}", "fields": {
                "article_id": article, "author_id": author, "text": text, "created_at": int(now - hours * 3600),
                "upvotes": up, "downvotes": down, "reply_count": replies}})
    for cid, (author, hours, parent, text) in REPLIES.items():
        lines.append({"put": f"id:dwell:comment::{cid}", "fields": {
            "article_id": ARTICLE, "author_id": author, "text": text, "created_at": int(now - hours * 3600),
            "parent_id": parent}})
    lines.append(rankingmodel_put(MODEL_WEIGHTS, "neural", MODEL_VERSION, curve=CURVE))
    return lines


@pytest.fixture(scope="module")
def runtime(tmp_path_factory: pytest.TempPathFactory):
    if not (ROOT / "runtime" / "target" / "classpath.txt").exists() or not APPLICATION.exists():
        pytest.fail("build first: ./dwell build")
    data = tmp_path_factory.mktemp("page") / "data"
    corpus = data.parent / "corpus.jsonl"
    corpus.write_text("\n".join(json.dumps(line) for line in feed_lines(int(time.time()))) + "\n")
    yield from deployed_runtime(data, APPLICATION, feed=corpus)


@pytest.fixture(scope="module")
def browser(runtime):
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    chromium, driver = shutil.which("chromium"), shutil.which("chromedriver")
    if not chromium or not driver:
        pytest.fail("the page test needs Debian's chromium and chromium-driver: ./dwell test installs them "
                    "(apt-get install chromium chromium-driver)")
    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1280,1100",
                     "--disable-gpu"):
        options.add_argument(argument)
    browser = webdriver.Chrome(service=Service(executable_path=driver), options=options)
    browser.set_script_timeout(30)
    try:
        yield browser
    finally:
        browser.quit()


# ---------------------------------------------------------------------------------------------
# What the page shows, read from the DOM

def open_page(browser, **parameters: str) -> None:
    query = "&".join(f"{k}={v}" for k, v in parameters.items())
    browser.get(f"{CONTAINER}/page/?{query}")
    wait_ready(browser, 0)


def loads(browser) -> int:
    return int(browser.execute_script("return Number(document.body.dataset.loads || 0)"))


def wait_ready(browser, after: int, timeout: float = 20) -> None:
    """Waits until the page has shown more than `after` views and is not loading."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        state = browser.execute_script("return document.body.dataset.state")
        if state == "error":
            raise AssertionError("the page shows an error: " + browser.find_element("id", "error").text)
        if state == "ready" and loads(browser) > after:
            return
        time.sleep(0.05)
    raise AssertionError(f"the page did not become ready (state {state}, {loads(browser)} views)")


def shown(browser) -> list[dict]:
    """The ranked comments on the page, in page order, with what each says."""
    return browser.execute_script("""
        return [...document.querySelectorAll('#comments > li.ranked')].map(li => ({
            docid: li.dataset.docid,
            score: li.querySelector('.score').textContent,
            firstPhase: li.querySelector('.first-phase').textContent,
            version: li.querySelector('.version').textContent,
            duplicates: li.querySelector('.duplicates').textContent,
            change: li.querySelector('.change').textContent,
            moved: li.querySelector('.moved').textContent,
            inputs: [...li.querySelectorAll('.inputs td:last-child')].map(td => td.textContent),
            replies: [...li.querySelectorAll('.replies > li')].map(r => r.querySelector('p').textContent),
        }));""")


def search_order(ranking: str, **more) -> list[dict]:
    result = search(article=ARTICLE, ranking=ranking, hits=VIEW_HITS, cache="false", **more)
    return [h for h in result["root"].get("children", []) if "documentid" in h.get("fields", {})]


def click_and_wait(browser, element) -> None:
    before = loads(browser)
    element.click()
    wait_ready(browser, before)


def ranked_item(browser, docid: str):
    return browser.find_element("css selector", f'#comments > li.ranked[data-docid="{docid}"]')


# ---------------------------------------------------------------------------------------------
# The independent computation

def signals(cid: str) -> CommentSignals:
    status, doc = get("comment", cid)
    assert status == 200, doc
    f = doc["fields"]
    author = f["author_id"]
    return CommentSignals(created_at=f["created_at"], upvotes=f.get("upvotes", 0), downvotes=f.get("downvotes", 0),
                          reply_count=f.get("reply_count", 0), report_count=f.get("report_count", 0),
                          text_length=f.get("text_length", 0), author_reputation=AUTHORS.get(author, math.nan),
                          reads=f.get("reads", 0), read_ms=f.get("read_ms", 0))


def numpy_features() -> dict[str, np.ndarray]:
    now = time.time()
    return {f"id:dwell:comment::{c}": feature_vector(signals(c), now) for c in list(COMMENTS) + list(REPLIES)}


def numpy_baselines() -> dict[str, float]:
    return {d: float(baseline_score(x)) for d, x in numpy_features().items()}


def value(text: str) -> float:
    return float(text.split()[-1])


# ---------------------------------------------------------------------------------------------

def test_the_package_serves_the_page_files(runtime):
    import urllib.error
    import urllib.request

    for path, content_type in (("/page/", "text/html; charset=UTF-8"), ("/page/page.js", "text/javascript; charset=UTF-8"),
                               ("/page/page.css", "text/css; charset=UTF-8")):
        with urllib.request.urlopen(CONTAINER + path) as response:
            assert response.status == 200 and response.headers["Content-Type"] == content_type, path
    with pytest.raises(urllib.error.HTTPError) as missing:
        urllib.request.urlopen(CONTAINER + "/page/services.xml")
    assert missing.value.code == 404


@pytest.mark.parametrize("ranking", ["freshness", "neural", "neural_onnx"])
def test_the_page_shows_the_search_order_and_explains_it(browser, ranking):
    open_page(browser, article=ARTICLE, ranking=ranking, hits=VIEW_HITS)
    page = shown(browser)
    hits = search_order(ranking)
    assert [c["docid"] for c in page] == [h["fields"]["documentid"] for h in hits]
    assert len(page) == VIEW_HITS

    features = numpy_features()
    baselines = {d: float(baseline_score(x)) for d, x in features.items()}
    for comment, hit in zip(page, hits):
        assert value(comment["score"]) == pytest.approx(hit["relevance"], abs=2e-3, rel=1e-3)
        assert value(comment["firstPhase"]) == pytest.approx(baselines[comment["docid"]], abs=2e-3)
        nn_input = hit["fields"]["matchfeatures"]["nn_input"]["values"]
        assert [float(v) for v in comment["inputs"][:9]] == pytest.approx(nn_input, abs=2e-3, rel=1e-3)
        assert comment["moved"] == "", "exploration is off: nothing moved"
    if ranking == "freshness":
        expected = sorted(baselines, key=lambda d: -baselines[d])[:VIEW_HITS]
        assert [c["docid"] for c in page] == expected
        assert all(c["version"] == "no model" for c in page)
    if ranking == "neural":
        network = {d: float(forward(MODEL_WEIGHTS, x)) for d, x in features.items()}
        for comment in page:
            assert value(comment["score"]) == pytest.approx(network[comment["docid"]], abs=2e-3, rel=1e-3)
        assert [c["docid"] for c in page] == sorted(network, key=lambda d: -network[d])[:VIEW_HITS]
        assert all(c["version"] == f"model v{MODEL_VERSION}" for c in page)
        facts = browser.find_element("id", "model-facts").text
        assert f"version live\n{MODEL_VERSION}" in facts and "shipped" in facts
        assert browser.find_element("id", "curve").get_attribute("data-points") == str(len(CURVE["learned"]))

    first = next(c for c in page if c["docid"] == "id:dwell:comment::c1")
    assert first["replies"] == [REPLIES["r1"][3], REPLIES["r2"][3]], "replies under their parent, oldest first"


def test_the_page_says_which_comments_exploration_moved(browser):
    explore = {"exploration.rate": "1", "exploration.temperature": "5", "exploration.seed": "3"}
    open_page(browser, article=ARTICLE, ranking="freshness", hits=VIEW_HITS, **explore)
    page = shown(browser)
    hits = search_order("freshness", **{k.replace(".", "__"): v for k, v in explore.items()})
    assert [c["docid"] for c in page] == [h["fields"]["documentid"] for h in hits], "the same seed, the same order"
    moved = [(c["moved"], h["fields"]["greedy_position"]) for c, h in zip(page, hits)
             if h["fields"]["greedy_position"] != h["fields"]["position"]]
    assert moved, "temperature 5 at rate 1 moves some comment"
    assert all(text == f"exploration moved it: #{greedy + 1} by score" for text, greedy in moved)
    assert sum(1 for c in page if c["moved"]) == len(moved)


def test_switching_profile_shows_how_the_order_changes(browser):
    open_page(browser, article=ARTICLE, ranking="neural", hits=VIEW_HITS)
    before = [c["docid"] for c in shown(browser)]
    click_and_wait(browser, browser.find_element("css selector", '#profiles input[value="freshness"]'))
    after = shown(browser)
    assert [c["docid"] for c in after] == [h["fields"]["documentid"] for h in search_order("freshness")]
    assert "ranking=freshness" in browser.current_url
    for place, comment in enumerate(after):
        if comment["docid"] not in before:
            assert comment["change"].startswith("new in the top")
        elif before.index(comment["docid"]) == place:
            assert comment["change"] == "same place as in neural"
        else:
            direction = "▲ up" if before.index(comment["docid"]) > place else "▼ down"
            assert comment["change"] == f"{direction} from #{before.index(comment['docid']) + 1} in neural"


def test_near_duplicates_collapse_visibly(browser):
    open_page(browser, article=ARTICLE, ranking="freshness", hits=VIEW_HITS)
    ids = [c["docid"] for c in shown(browser)]
    assert {"id:dwell:comment::c4", "id:dwell:comment::c5"} <= set(ids)
    click_and_wait(browser, browser.find_element("id", "collapse"))
    page = shown(browser)
    expected = search_order("freshness", collapse__threshold="0.9")
    assert [c["docid"] for c in page] == [h["fields"]["documentid"] for h in expected]
    kept = [c for c in page if c["docid"] in ("id:dwell:comment::c4", "id:dwell:comment::c5")]
    assert len(kept) == 1 and kept[0]["duplicates"] == "absorbs 1 near-duplicate"


def test_similar_comments(browser):
    open_page(browser, article=ARTICLE, ranking="freshness", hits=VIEW_HITS)
    ranked_item(browser, "id:dwell:comment::c4").find_element("css selector", ".similar").click()
    expected = [h["fields"]["documentid"] for h in search(similar="c4", hits=5)["root"]["children"]]
    deadline = time.time() + 10
    while time.time() < deadline:
        got = browser.execute_script(
            "return [...document.querySelectorAll('#similar-list li')].map(li => li.dataset.docid)")
        if got:
            break
        time.sleep(0.05)
    assert got == expected
    assert got[0] == "id:dwell:comment::c5", "its near-duplicate is the closest"


def test_a_vote_goes_through_the_document_api_and_changes_the_order(browser):
    open_page(browser, article=ARTICLE, ranking="freshness", hits=VIEW_HITS)
    target = "id:dwell:comment::c8"
    start_place = [c["docid"] for c in shown(browser)].index(target)
    assert start_place > 0
    upvotes = signals("c8").upvotes
    clicks = 0
    while clicks < 30:
        click_and_wait(browser, ranked_item(browser, target).find_element("css selector", ".vote"))
        clicks += 1
        page = [c["docid"] for c in shown(browser)]
        assert page == [h["fields"]["documentid"] for h in search_order("freshness")]
        if page.index(target) < start_place:
            break
    assert signals("c8").upvotes == upvotes + clicks
    baselines = numpy_baselines()
    assert page == sorted(baselines, key=lambda d: -baselines[d])[:VIEW_HITS]
    assert page.index(target) < start_place, f"{clicks} votes did not move it"


def test_a_reply_is_posted_and_shown_under_its_parent(browser):
    open_page(browser, article=ARTICLE, ranking="freshness", hits=VIEW_HITS)
    parent = ranked_item(browser, "id:dwell:comment::c6")
    parent.find_element("css selector", ".reply").click()
    text = "The 1961 photos are in the city archive, worth a visit."
    parent.find_element("css selector", ".reply-form textarea").send_keys(text)
    click_and_wait(browser, parent.find_element("css selector", ".reply-form button"))
    comment = next(c for c in shown(browser) if c["docid"] == "id:dwell:comment::c6")
    assert comment["replies"] == [text]
    assert signals("c6").reply_count == 1
    replies = search(yql='select * from comment where parent_id contains "c6"', hits=5)["root"]["children"]
    assert [h["fields"]["text"] for h in replies] == [text]
    assert replies[0]["fields"]["article_id"] == ARTICLE


def test_without_an_article_it_opens_the_most_commented_one_and_writes_a_screenshot(browser, tmp_path):
    browser.get(f"{CONTAINER}/page/")
    wait_ready(browser, 0)
    assert f"article={ARTICLE}" in browser.current_url
    options = browser.execute_script(
        "return [...document.querySelectorAll('#top-articles option')].map(o => o.value)")
    assert options == [ARTICLE, OTHER]
    open_page(browser, article=ARTICLE, ranking="neural", hits=5)
    browser.find_element("css selector", "#comments > li.ranked .inputs summary").click()
    target = Path(os.environ.get("DWELL_PAGE_SCREENSHOT", tmp_path / "page.png"))
    target.parent.mkdir(parents=True, exist_ok=True)
    assert browser.save_screenshot(str(target))
    assert target.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and target.stat().st_size > 20_000
