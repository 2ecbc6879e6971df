"""Search admission under a surge, end to end: more concurrent queries than the runtime's search
threads take. A query that waited in the search queue longer than DWELL_SEARCH_MAX_WAIT_MS is
refused as Vespa's container refuses a query when its search thread pool is full (503, empty
body), the others are answered, and when the surge ends every query is answered again. It runs
tests/apps/music (one host, so this also shows a one-host package gets the admission) with one
search thread per two cores, a queue long enough for every client, and a wait bound of 10 ms, so
that what refuses is the wait bound, not the queue's length. No latency is asserted (bench/ has
the figures: bench/overload_bench.py)."""
from __future__ import annotations

import http.client
import json
import os
import threading
import urllib.parse
from dataclasses import dataclass

import pytest
from dwell_client import ROOT, deployed_runtime


APP = ROOT / "tests" / "apps" / "music"
ADMISSION = {"DWELL_SEARCH_THREADS": "0.5", "DWELL_SEARCH_QUEUE": "128", "DWELL_SEARCH_MAX_WAIT_MS": "10"}
CLIENTS = 96
QUERIES_PER_CLIENT = 40
QUERY = "/search/?" + urllib.parse.urlencode({"yql": "select * from album where true", "ranking": "text", "hits": 10})


@pytest.fixture(scope="module")
def small_admission(tmp_path_factory: pytest.TempPathFactory):
    saved = {name: os.environ.get(name) for name in ADMISSION}
    os.environ.update(ADMISSION)  # the runtime started below reads them
    try:
        yield from deployed_runtime(tmp_path_factory.mktemp("dwell-overload"), APP, APP / "feed.jsonl")
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


@dataclass
class Answer:
    status: int
    content_type: str
    reason: str | None
    body: bytes


def query(connection: http.client.HTTPConnection) -> Answer:
    connection.request("GET", QUERY)
    response = connection.getresponse()
    return Answer(response.status, response.getheader("Content-Type", ""), response.getheader("X-Dwell-Overload"),
                  response.read())


def surge() -> list[Answer]:
    """CLIENTS clients, each sending its queries one after the other on its own connection."""
    answers: list[Answer] = []
    lock = threading.Lock()

    def client() -> None:
        connection = http.client.HTTPConnection("localhost", 8080, timeout=60)
        mine = [query(connection) for _ in range(QUERIES_PER_CLIENT)]
        connection.close()
        with lock:
            answers.extend(mine)

    threads = [threading.Thread(target=client) for _ in range(CLIENTS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return answers


def total_count(answer: Answer) -> int:
    return json.loads(answer.body)["root"]["fields"]["totalCount"]


def test_queries_that_waited_too_long_are_refused_as_vespa_refuses_and_the_rest_answered(small_admission) -> None:
    connection = http.client.HTTPConnection("localhost", 8080, timeout=60)
    calm = query(connection)
    assert calm.status == 200, calm
    albums = total_count(calm)
    assert albums > 0

    answers = surge()
    assert len(answers) == CLIENTS * QUERIES_PER_CLIENT
    assert {a.status for a in answers} <= {200, 503}, {a.status for a in answers}
    admitted = [a for a in answers if a.status == 200]
    refused = [a for a in answers if a.status == 503]
    assert admitted, "the surge got no query answered"
    assert all(total_count(a) == albums for a in admitted)
    # refused by the wait bound (the queue holds every client), as Vespa's full pool refuses: 503, no body
    assert refused, "no query was refused by the wait bound"
    for answer in refused:
        assert answer.body == b"" and answer.content_type.startswith("text/plain"), answer
        assert answer.reason is not None and "DWELL_SEARCH_MAX_WAIT_MS" in answer.reason, answer
        assert "over the bound of 10 ms" in answer.reason, answer

    # the surge is over: every query is answered again
    after = [query(connection) for _ in range(30)]
    connection.close()
    assert [a.status for a in after] == [200] * 30
    assert all(total_count(a) == albums for a in after)
