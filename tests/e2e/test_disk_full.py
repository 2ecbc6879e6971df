"""A disk that fills up (issue 20): the runtime's data directory on a small tmpfs of its own, filled by
another writer, as a log or a backup would fill a real disk.

Above the content cluster's disk limit (resource-limits, 0.75 by default) feed is blocked as in Vespa: puts and
updates answer 507 naming the node and the limit, numeric assigns and removes go through, reads and queries go on.
When the disk is completely full, what still reaches the transaction log (numeric assigns, removes) answers 507
too, and changes nothing. Once the other writer frees its space, writes succeed again without a restart, and a restart shows every
acknowledged write and none of the refused ones. Needs root (mount); skipped elsewhere."""
from __future__ import annotations

import os
import shutil
import subprocess
import time
from pathlib import Path
from typing import Iterator

import pytest
from dwell_client import CONTAINER, ROOT, Runtime, http, search, wait_for_container
from dwell_client.application import deployed_runtime

APP = ROOT / "tests" / "apps" / "music"
DOC = f"{CONTAINER}/document/v1/music/album/docid"
SIZE_MB = 128


@pytest.fixture(scope="module")
def disk(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    mount = tmp_path_factory.mktemp("small-disk")
    if os.geteuid() != 0 or shutil.which("mount") is None:
        pytest.skip("mounting a tmpfs needs root")
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={SIZE_MB}m", "tmpfs", str(mount)], capture_output=True, text=True)
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {mounted.stderr.strip()}")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


@pytest.fixture(scope="module")
def runtime(disk: Path) -> Iterator[Runtime]:
    yield from deployed_runtime(disk / "data", APP, APP / "feed.jsonl")


def usage(path: Path) -> float:
    stats = os.statvfs(path)
    return 1.0 - stats.f_bavail / stats.f_blocks


def fill(disk: Path, to: float | None) -> Path:
    """Another writer's file, making the disk `to` full (None: to the last byte it takes)."""
    filler = disk / "filler"
    filler.unlink(missing_ok=True)
    stats = os.statvfs(disk)
    size = stats.f_bavail * stats.f_frsize if to is None else int((to - usage(disk)) * stats.f_blocks * stats.f_frsize)
    chunk = b"\0" * (1 << 20)
    # unbuffered: a buffered writer keeps the bytes a full disk refused and fails again on close (ENOSPC out of
    # the with statement, seen once under load, when the runtime's own writes moved the last free page)
    with open(filler, "wb", buffering=0) as out:
        try:
            while size > 0:
                size -= out.write(chunk[: min(size, len(chunk))])
        except OSError:  # the last bytes: the disk is full
            pass
    return filler


def album(title: str, year: int) -> dict:
    return {"fields": {"artist": "Test", "title": title, "year": year}}


def after_a_sample() -> None:
    """Waits until a write samples the disk's usage again (at most every 200 ms: FeedBlocks.SAMPLE_NANOS)."""
    time.sleep(0.3)


def test_a_full_disk_refuses_writes_with_507_and_keeps_every_acknowledged_one(runtime: Runtime, disk: Path) -> None:
    data = disk / "data"
    before = {doc["id"]: doc["fields"] for doc in search(yql="select * from album where true", hits=100)["root"]["children"]}
    assert len(before) >= 3

    status, reply = http("POST", f"{DOC}/acked-1", album("Written before", 2001))
    assert status == 200, reply

    # over the limit: feed blocked, as Vespa's distributors block it
    filler = fill(disk, 0.85)
    after_a_sample()
    status, reply = http("POST", f"{DOC}/refused-1", album("Refused", 2002))
    assert status == 507, reply
    assert "External feed is blocked due to resource exhaustion" in reply["message"], reply
    assert "disk on node 0" in reply["message"] and "the configured limit is 75.0%" in reply["message"], reply
    status, reply = http("PUT", f"{DOC}/acked-1", {"fields": {"title": {"assign": "Refused title"}}})
    assert status == 507, reply
    status, reply = http("PUT", f"{DOC}/acked-1", {"fields": {"year": {"increment": 1}}})
    assert status == 507, reply
    status, reply = http("PUT", f"{DOC}/acked-1", {"fields": {"year": {"assign": 2010}}})
    assert status == 200, reply  # a numeric assign is let through
    status, reply = http("DELETE", f"{DOC}/blue-train")
    assert status == 200, reply  # removes free space: let through
    status, reply = http("GET", f"{DOC}/kind-of-blue")
    assert status == 200 and reply["fields"]["title"] == before["id:music:album::kind-of-blue"]["title"], reply
    assert search(yql='select * from album where artist contains "Miles Davis"')["root"]["fields"]["totalCount"] == 1

    # full to the last byte: what gets past the block finds no room in the log once the log's last page is used up
    filler = fill(disk, None)
    year, refused = 2010, None
    for attempt in range(2000):
        status, reply = http("PUT", f"{DOC}/acked-1", {"fields": {"year": {"assign": 3000 + attempt}}})
        if status == 507:
            refused = reply
            break
        assert status == 200, reply
        year = 3000 + attempt
    assert refused is not None, "the disk never ran out of room"
    assert "No space left" in refused["message"], refused
    status, reply = http("GET", f"{DOC}/acked-1")
    assert status == 200 and reply["fields"]["year"] == year, "the refused assign changed nothing"
    status, reply = http("DELETE", f"{DOC}/kind-of-blue")
    assert status == 507, reply
    status, reply = http("GET", f"{DOC}/kind-of-blue")
    assert status == 200, "a refused remove removed nothing"

    # the other writer frees its space: writes succeed again, without a restart
    filler.unlink()
    after_a_sample()
    status, reply = http("POST", f"{DOC}/acked-2", album("Written after", 2003))
    assert status == 200, reply
    status, reply = http("DELETE", f"{DOC}/kind-of-blue")
    assert status == 200, reply

    expected = dict(before)
    expected.pop("id:music:album::blue-train")
    expected.pop("id:music:album::kind-of-blue")
    expected["id:music:album::acked-1"] = {"title": "Written before", "year": year}
    expected["id:music:album::acked-2"] = {"title": "Written after", "year": 2003}

    runtime.stop()
    runtime.start()
    assert runtime.owns_ports()
    wait_for_container()
    hits = search(yql="select * from album where true", hits=100)["root"]["children"]
    after = {doc["id"]: doc["fields"] for doc in hits}
    assert sorted(after) == sorted(expected), (sorted(after), sorted(expected))
    for doc, fields in expected.items():
        assert after[doc]["title"] == fields["title"] and after[doc]["year"] == fields["year"], doc
    assert usage(data) < 0.75
