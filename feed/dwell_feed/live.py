"""Live traffic on a fed corpus: new comments, votes, replies and reputation changes at a
fixed rate (open loop), every operation recorded.

Exactly once, with retries. Vespa's `increment` is not idempotent: a retry of an increment
whose reply was lost (timeout, reset connection, 5xx) may count twice. So every increment
here is a test-and-set: `PUT ...?condition=comment.upvotes==41` with `{"increment": 1}`, and
the stream serializes operations per document, knowing each counter's value (read once, on
first touch, and recorded as a `base` line). A retry of an increment that was applied fails
its condition (412); the stream then reads the document, sees the counter at expected+delta
and counts the operation as applied once. Puts and assigns are idempotent and are simply
retried. The record therefore holds, per counter, a base value and the acknowledged deltas,
and base + sum(deltas) is what the document must hold afterwards (see `expected_values`).
This assumes the stream is the only writer of the counters it touches while it runs; a
concurrent writer shows up as a 412 with some other value, which the stream adopts as its
new base (recorded as `rebase`) before retrying.
"""
from __future__ import annotations

import http.client
import json
import random
import threading
import time
import urllib.parse
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import numpy as np

from .generate import sigmoid

RETRYABLE_PAUSE = 0.05
MAX_ATTEMPTS = 20


class Client:
    """HTTP/1.1 to /document/v1, one keep-alive connection per thread."""

    def __init__(self, endpoint: str, timeout: float = 10.0):
        url = urllib.parse.urlparse(endpoint)
        self.host, self.port = url.hostname or "localhost", url.port or 8080
        self.timeout = timeout
        self.local = threading.local()

    def request(self, method: str, path: str, body: Any = None) -> tuple[int | None, dict]:
        """(HTTP status, JSON body); status None when the transport failed, so the outcome is unknown."""
        data = None if body is None else json.dumps(body).encode()
        for fresh in (False, True):
            connection = getattr(self.local, "connection", None)
            if connection is None or fresh:
                if connection is not None:
                    connection.close()
                connection = self.local.connection = http.client.HTTPConnection(self.host, self.port,
                                                                                 timeout=self.timeout)
            try:
                connection.request(method, path, body=data, headers={"Content-Type": "application/json"})
                response = connection.getresponse()
                raw = response.read()
                try:
                    return response.status, json.loads(raw or b"{}")
                except json.JSONDecodeError:
                    return response.status, {"raw": raw.decode(errors="replace")}
            except (ConnectionError, http.client.HTTPException, OSError):
                connection.close()
                self.local.connection = None
                if fresh:
                    return None, {}
                # A kept-alive connection the server closed: try once on a fresh one. The request
                # may have been sent, so this is only safe because every operation is idempotent
                # or conditional.
        return None, {}


def doc_path(doctype: str, doc_id: str, **params: str) -> str:
    path = f"/document/v1/dwell/{doctype}/docid/{urllib.parse.quote(doc_id)}"
    return path + ("?" + urllib.parse.urlencode(params) if params else "")


class Recorder:
    def __init__(self, path: Path):
        path.parent.mkdir(parents=True, exist_ok=True)
        self.file = path.open("a")
        self.lock = threading.Lock()

    def write(self, line: dict[str, Any]) -> None:
        line = {"t": round(time.time(), 3), **line}
        with self.lock:
            self.file.write(json.dumps(line, separators=(",", ":")) + "\n")
            self.file.flush()

    def close(self) -> None:
        self.file.close()


@dataclass
class Outcome:
    ok: bool
    attempts: list[Any] = field(default_factory=list)


class Live:
    """The state the stream keeps: known counter values and per-document locks."""

    def __init__(self, client: Client, recorder: Recorder):
        self.client = client
        self.recorder = recorder
        self.known: dict[tuple[str, str], int | float] = {}
        self.locks: dict[str, threading.Lock] = defaultdict(threading.Lock)
        self.locks_lock = threading.Lock()
        self.counts: dict[str, int] = defaultdict(int)
        self.counts_lock = threading.Lock()

    def lock(self, doc_id: str) -> threading.Lock:
        with self.locks_lock:
            return self.locks[doc_id]

    def count(self, key: str) -> None:
        with self.counts_lock:
            self.counts[key] += 1

    def read(self, doctype: str, doc_id: str) -> dict[str, Any] | None:
        for _ in range(MAX_ATTEMPTS):
            status, body = self.client.request("GET", doc_path(doctype, doc_id))
            if status == 200:
                return body.get("fields", {})
            if status == 404:
                return None
            time.sleep(RETRYABLE_PAUSE)
        return None

    def value(self, doctype: str, doc_id: str, name: str) -> int | float | None:
        """The counter's value as this stream knows it; read and recorded as a base on first touch."""
        key = (f"id:dwell:{doctype}::{doc_id}", name)
        if key not in self.known:
            fields = self.read(doctype, doc_id)
            if fields is None:
                return None
            self.known[key] = fields.get(name, 0)
            self.recorder.write({"op": "base", "doc": key[0], "field": name, "value": self.known[key]})
        return self.known[key]

    def put(self, doctype: str, doc_id: str, fields: dict[str, Any], extra: dict[str, Any]) -> Outcome:
        """An idempotent put, retried until acknowledged or refused."""
        outcome = Outcome(False)
        for _ in range(MAX_ATTEMPTS):
            status, _ = self.client.request("POST", doc_path(doctype, doc_id), {"fields": fields})
            outcome.attempts.append(status)
            if status == 200:
                outcome.ok = True
                break
            if status in (400, 404, 412, 413):
                break
            time.sleep(RETRYABLE_PAUSE)
        self.recorder.write({"op": "put", "doc": f"id:dwell:{doctype}::{doc_id}", "fields": fields,
                             "status": "ok" if outcome.ok else "failed", "attempts": outcome.attempts, **extra})
        self.count(f"put {'ok' if outcome.ok else 'failed'}")
        return outcome

    def increment(self, doctype: str, doc_id: str, name: str, delta: int, kind: str) -> Outcome:
        """A conditional increment, applied exactly once or not at all (see the module doc)."""
        doc = f"id:dwell:{doctype}::{doc_id}"
        outcome = Outcome(False)
        with self.lock(doc_id):
            expected = self.value(doctype, doc_id, name)
            if expected is None:
                self.recorder.write({"op": kind, "doc": doc, "field": name, "delta": delta,
                                     "status": "missing", "attempts": []})
                self.count(f"{kind} missing")
                return outcome
            for attempt in range(MAX_ATTEMPTS):
                condition = f"{doctype}.{name}=={expected}"
                status, _ = self.client.request("PUT", doc_path(doctype, doc_id, condition=condition),
                                                {"fields": {name: {"increment": delta}}})
                outcome.attempts.append(status)
                if status == 200:
                    outcome.ok = True
                    break
                if status == 412:
                    fields = self.read(doctype, doc_id)
                    current = None if fields is None else fields.get(name, 0)
                    if current is None:
                        break
                    if attempt > 0 and current == expected + delta:
                        outcome.ok = True  # an earlier attempt was applied; its reply was lost
                        outcome.attempts.append("applied-earlier")
                        break
                    if current != expected:
                        self.recorder.write({"op": "rebase", "doc": doc, "field": name, "from": expected,
                                             "value": current})
                        expected = current
                    continue
                if status in (400, 404, 413):
                    break
                time.sleep(RETRYABLE_PAUSE * (1 + attempt))  # None, 429, 5xx: retry, safely conditional
            if outcome.ok:
                self.known[(doc, name)] = expected + delta
        self.recorder.write({"op": kind, "doc": doc, "field": name, "delta": delta,
                             "status": "ok" if outcome.ok else "failed", "attempts": outcome.attempts})
        self.count(f"{kind} {'ok' if outcome.ok else 'failed'}")
        return outcome

    def assign(self, doctype: str, doc_id: str, name: str, value: float, kind: str) -> Outcome:
        doc = f"id:dwell:{doctype}::{doc_id}"
        outcome = Outcome(False)
        with self.lock(doc_id):
            for attempt in range(MAX_ATTEMPTS):
                status, _ = self.client.request("PUT", doc_path(doctype, doc_id), {"fields": {name: {"assign": value}}})
                outcome.attempts.append(status)
                if status == 200:
                    outcome.ok = True
                    self.known[(doc, name)] = value
                    break
                if status in (400, 404, 412, 413):
                    break
                time.sleep(RETRYABLE_PAUSE * (1 + attempt))
            # Recorded under the lock, so the record's order of assigns to one field is their order.
            self.recorder.write({"op": kind, "doc": doc, "field": name, "value": value,
                                 "status": "ok" if outcome.ok else "failed", "attempts": outcome.attempts})
        self.count(f"{kind} {'ok' if outcome.ok else 'failed'}")
        return outcome


# ---------------------------------------------------------------------------------------------
# The traffic model


@dataclass
class Pool:
    """What the stream may act on: comments (with article, author and hidden quality), authors."""
    comments: list[str]
    article_of: list[str]
    quality: list[float]
    articles: list[str]
    article_weights: np.ndarray
    by_article: dict[str, list[int]]
    authors: list[str]
    texts: list[str]
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, comment_id: str, article: str, quality: float) -> None:
        with self.lock:
            self.by_article[article].append(len(self.comments))
            self.comments.append(comment_id)
            self.article_of.append(article)
            self.quality.append(quality)

    def pick_comment(self, rng: random.Random) -> int | None:
        article = self.articles[int(np.searchsorted(self.article_weights, rng.random()))]
        with self.lock:
            members = self.by_article.get(article)
            if not members:
                return None
            # Readers see the newest comments more: half the picks from the newest 50.
            if rng.random() < 0.5:
                return members[-1 - int(rng.random() * min(50, len(members)))]
            return members[int(rng.random() * len(members))]


def load_pool(directory: Path) -> Pool:
    comments, article_of, quality, texts = [], [], [], []
    by_article: dict[str, list[int]] = defaultdict(list)
    for line in (directory / "comments.jsonl").open():
        op = json.loads(line)
        fields = op["fields"]
        by_article[fields["article_id"]].append(len(comments))
        comments.append(op["put"].rsplit("::", 1)[1])
        article_of.append(fields["article_id"])
        texts.append(fields["text"])
    q = {}
    for line in (directory / "truth.jsonl").open():
        row = json.loads(line)
        if "comment_id" in row:
            q[row["comment_id"]] = row["quality"]
    quality = [q.get(c, 0.5) for c in comments]
    authors = [json.loads(line)["fields"]["author_id"] for line in (directory / "authors.jsonl").open()]
    articles = sorted(by_article, key=lambda a: -len(by_article[a]))
    sizes = np.array([len(by_article[a]) for a in articles], dtype=np.float64)
    return Pool(comments, article_of, quality, articles, np.cumsum(sizes) / sizes.sum(), by_article, authors, texts)


MIX = (("vote", 0.70), ("comment", 0.10), ("reply", 0.12), ("reputation", 0.08))


def run_live(directory: Path, record: Path, endpoint: str = "http://localhost:8080", rate: float = 200,
             seconds: float = 20, seed: int | None = None, workers: int = 16,
             progress: Callable[[str], None] | None = None) -> dict[str, Any]:
    """Streams operations at `rate` per second for `seconds`; returns the counts by outcome."""
    pool = load_pool(directory)
    rng = random.Random(seed)
    run_id = f"{int(time.time())}{rng.randrange(1000):03d}"
    recorder = Recorder(record)
    live = Live(Client(endpoint), recorder)
    recorder.write({"op": "start", "run": run_id, "endpoint": endpoint, "rate": rate, "seconds": seconds,
                    "corpus": str(directory)})
    serial = iter(range(10**9))
    serial_lock = threading.Lock()

    def new_comment(op_rng: random.Random, parent: int | None) -> None:
        with serial_lock:
            n = next(serial)
        comment_id = f"live{run_id}-{n}"
        article = pool.article_of[parent] if parent is not None else pool.articles[
            int(np.searchsorted(pool.article_weights, op_rng.random()))]
        author = pool.authors[int(op_rng.random() * len(pool.authors))]
        text = pool.texts[int(op_rng.random() * len(pool.texts))]
        quality = float(sigmoid(np.array(op_rng.gauss(0.3, 1.0))))
        fields = {"article_id": article, "author_id": author, "text": text, "created_at": int(time.time()),
                  "parent_id": pool.comments[parent] if parent is not None else "",
                  "upvotes": 0, "downvotes": 0, "reply_count": 0, "report_count": 0}
        if not live.put("comment", comment_id, fields, {"quality": round(quality, 6)}).ok:
            return
        live.known[(f"id:dwell:comment::{comment_id}", "upvotes")] = 0
        live.known[(f"id:dwell:comment::{comment_id}", "downvotes")] = 0
        live.known[(f"id:dwell:comment::{comment_id}", "reply_count")] = 0
        pool.add(comment_id, article, quality)
        if parent is not None:
            live.increment("comment", pool.comments[parent], "reply_count", 1, "reply")
        live.increment("author", author, "comment_count", 1, "author_comment")

    def operation(op_seed: int) -> None:
        op_rng = random.Random(op_seed)
        kind = op_rng.choices([k for k, _ in MIX], weights=[w for _, w in MIX])[0]
        try:
            if kind == "vote":
                i = pool.pick_comment(op_rng)
                if i is None:
                    return
                p_up = 0.1 + 0.85 * pool.quality[i]
                name = "upvotes" if op_rng.random() < p_up else "downvotes"
                live.increment("comment", pool.comments[i], name, 1, "vote")
            elif kind == "comment":
                new_comment(op_rng, None)
            elif kind == "reply":
                new_comment(op_rng, pool.pick_comment(op_rng))
            else:
                author = pool.authors[int(op_rng.random() * len(pool.authors))]
                live.assign("author", author, "reputation", round(op_rng.random(), 4), "reputation")
        except Exception as e:  # noqa: BLE001 - one failed operation must not stop the stream
            recorder.write({"op": "error", "kind": kind, "error": repr(e)})
            live.count("error")

    started = time.time()
    sent = 0
    with ThreadPoolExecutor(max_workers=workers) as executor:
        next_report = started + 2
        while True:
            now = time.time()
            due = min(int((now - started) * rate), int(seconds * rate))
            while sent < due:
                executor.submit(operation, rng.randrange(1 << 62))
                sent += 1
            if sent >= int(seconds * rate):
                break
            if progress and now >= next_report:
                progress(f"{now - started:5.1f} s: {sent:,} operations sent; {dict(live.counts)}")
                next_report += 2
            time.sleep(min(0.01, 1 / rate))
    elapsed = time.time() - started
    result = {"run": run_id, "operations": sent, "seconds": round(elapsed, 2),
              "rate": round(sent / elapsed, 1), "outcomes": dict(sorted(live.counts.items()))}
    recorder.write({"op": "end", **result})
    recorder.close()
    return result


# ---------------------------------------------------------------------------------------------
# Checking a record against the documents


def expected_values(record: Path) -> dict[tuple[str, str], Any]:
    """Per (document id, field): what the documents must hold after the recorded runs."""
    values: dict[tuple[str, str], Any] = {}
    for line in record.open():
        row = json.loads(line)
        op = row["op"]
        if op in ("base", "rebase"):
            values[(row["doc"], row["field"])] = row["value"]
        elif op == "put" and row["status"] == "ok":
            for name in ("upvotes", "downvotes", "reply_count", "report_count"):
                values.setdefault((row["doc"], name), row["fields"][name])
        elif "delta" in row and row["status"] == "ok":
            values[(row["doc"], row["field"])] += row["delta"]
        elif op == "reputation" and row["status"] == "ok":
            values[(row["doc"], row["field"])] = row["value"]
    return values


def check(record: Path, endpoint: str = "http://localhost:8080") -> list[str]:
    """The differences between the record's expected values and the documents; empty if none."""
    client = Client(endpoint)
    expected = expected_values(record)
    docs: dict[str, dict[str, Any]] = {}
    problems = []
    for (doc, name), value in sorted(expected.items()):
        if doc not in docs:
            _, _, doctype, _, doc_id = doc.split(":", 4)
            status, body = client.request("GET", doc_path(doctype, doc_id.lstrip(":")))
            docs[doc] = body.get("fields", {}) if status == 200 else {"__status": status}
        actual = docs[doc].get(name, 0)
        if isinstance(value, float) or isinstance(actual, float):
            same = abs(float(actual) - float(value)) < 1e-4
        else:
            same = actual == value
        if not same:
            problems.append(f"{doc} {name}: expected {value}, found {actual}")
    return problems
