"""Who may use the runtime: by default it serves this machine only (loopback); bound to every
interface (--bind 0.0.0.0) it serves search to all, and writes from other machines only with the
bearer token of --token-file. Requests "from another machine" are sent to this machine's own
non-loopback address, so the runtime sees a non-loopback client."""
from __future__ import annotations

import json
import socket
import subprocess
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from dwell_client import ROOT, deployed_runtime


APPLICATION = ROOT / "target" / "application"
MUSIC = ROOT / "tests" / "apps" / "music"
TOKEN = "dwell-test-token-0123456789abcdef"


def own_address() -> str | None:
    """This machine's address on a non-loopback interface, if it has one."""
    try:
        out = subprocess.run(["hostname", "-I"], capture_output=True, text=True, timeout=10).stdout.split()
    except (OSError, subprocess.SubprocessError):
        out = []
    for address in out:
        if ":" not in address and not address.startswith("127."):
            return address
    return None


ADDRESS = own_address()
pytestmark = pytest.mark.skipif(ADDRESS is None, reason="this machine has no non-loopback IPv4 address to call itself on")


def call(method: str, url: str, body: dict | bytes | None = None, token: str | None = None,
         content_type: str = "application/json") -> int | str:
    """The HTTP status, or 'refused' when no connection could be made."""
    data = json.dumps(body).encode() if isinstance(body, dict) else body
    request = urllib.request.Request(url, data=data, method=method)
    if data is not None:
        request.add_header("Content-Type", content_type)
    if token is not None:
        request.add_header("Authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(request, timeout=120) as response:
            return response.status
    except urllib.error.HTTPError as e:
        return e.code
    except (urllib.error.URLError, ConnectionError) as e:
        if isinstance(getattr(e, "reason", e), (ConnectionRefusedError, socket.timeout)) or isinstance(e, ConnectionRefusedError):
            return "refused"
        raise


def application_zip() -> bytes:
    return (ROOT / "target" / "application.zip").read_bytes()


@pytest.fixture()
def bound_to_all(tmp_path_factory: pytest.TempPathFactory):
    data = tmp_path_factory.mktemp("dwell-access")
    token_file = data / "token"
    token_file.write_text(TOKEN + "\n")
    yield from deployed_runtime(data, APPLICATION, start_args=("--bind", "0.0.0.0", "--token-file", str(token_file)))


@pytest.fixture()
def loopback_only(tmp_path_factory: pytest.TempPathFactory):
    yield from deployed_runtime(tmp_path_factory.mktemp("dwell-loopback"), APPLICATION)


def test_bound_to_every_interface_writes_from_other_machines_need_the_token(bound_to_all) -> None:
    remote, local = f"http://{ADDRESS}:8080", "http://localhost:8080"
    doc = "/document/v1/dwell/comment/docid/access1"
    comment = {"fields": {"article_id": "access", "text": "Written from afar."}}
    # search and reads are open
    assert call("GET", f"{remote}/search/?yql=select%20*%20from%20comment%20where%20true") == 200
    assert call("GET", f"{remote}{doc}") == 404
    # writes: no token 401, a wrong one 403, nothing written; the right one 200
    assert call("POST", f"{remote}{doc}", comment) == 401
    assert call("POST", f"{remote}{doc}", comment, token="not-the-token-at-all") == 403
    assert call("DELETE", f"{remote}{doc}") == 401
    assert call("GET", f"{local}{doc}") == 404
    assert call("POST", f"{remote}{doc}", comment, token=TOKEN) == 200
    assert call("GET", f"{remote}{doc}") == 200
    assert call("DELETE", f"{remote}{doc}", token=TOKEN) == 200
    # this machine needs no token
    assert call("POST", f"{local}{doc}", comment) == 200
    # the deploy API: remote deploys need the token; status is open
    deploy = "/application/v2/tenant/default/prepareandactivate"
    assert call("POST", f"http://{ADDRESS}:19071{deploy}", application_zip(), content_type="application/zip") == 401
    assert call("GET", f"http://{ADDRESS}:19071/status.html") == 200
    assert call("POST", f"http://{ADDRESS}:19071{deploy}", application_zip(), token=TOKEN, content_type="application/zip") == 200


def test_by_default_the_runtime_serves_this_machine_only(loopback_only) -> None:
    assert call("GET", "http://localhost:8080/search/?yql=select%20*%20from%20comment%20where%20true") == 200
    assert call("GET", f"http://{ADDRESS}:8080/search/?yql=select%20*%20from%20comment%20where%20true") == 403
    assert call("POST", f"http://{ADDRESS}:8080/document/v1/dwell/comment/docid/x", {"fields": {"article_id": "a", "text": "b"}},
                token=TOKEN) == 403
    # the config server listens on loopback only
    assert call("GET", f"http://{ADDRESS}:19071/status.html") == "refused"
    assert call("GET", "http://localhost:19071/status.html") == 200


@pytest.fixture()
def music_bound_to_all(tmp_path_factory: pytest.TempPathFactory):
    data = tmp_path_factory.mktemp("dwell-music-access")
    token_file = data / "token"
    token_file.write_text(TOKEN + "\n")
    yield from deployed_runtime(data, MUSIC, MUSIC / "feed.jsonl", start_args=("--bind", "0.0.0.0", "--token-file", str(token_file)))


def test_a_package_on_one_host_gets_the_same_protection(music_bound_to_all) -> None:
    """tests/apps/music has no hosts.xml: its container and content node share one host."""
    remote = f"http://{ADDRESS}:8080"
    doc = "/document/v1/music/album/docid/remote"
    album = {"fields": {"artist": "Far Away", "title": "Remote"}}
    assert call("GET", f"{remote}/search/?yql=select%20*%20from%20album%20where%20true") == 200
    assert call("POST", f"{remote}{doc}", album) == 401
    assert call("POST", f"{remote}{doc}", album, token="not-the-token-at-all") == 403
    assert call("DELETE", f"{remote}/document/v1/music/album/docid/kind-of-blue") == 401
    assert call("GET", f"{remote}{doc}") == 404
    assert call("GET", f"{remote}/document/v1/music/album/docid/kind-of-blue") == 200
    assert call("POST", f"{remote}{doc}", album, token=TOKEN) == 200
    assert call("GET", f"{remote}{doc}") == 200
