"""A crash during a deploy (issue 20): the runtime is killed with kill -9 at points from the start of a deploy to
its end, a package that adds a field and a rank profile replacing the one serving (tests/apps/music). Each time the
runtime starts again serving one whole package, the one before or the new one, never a mix, with every document;
the deploy that was cut is not reported as active unless it is; and the package deploys fine afterwards."""
from __future__ import annotations

import shutil
import subprocess
import time
from pathlib import Path
from typing import Iterator

import pytest
from dwell_client import CONFIG_SERVER, CONTAINER, ROOT, Runtime, http, search, vespa, wait_for_container
from dwell_client.cli import vespa_binary
from dwell_client.application import deployed_runtime

APP = ROOT / "tests" / "apps" / "music"
DELAYS = (0.0, 1.0, 3.0, 5.0, 7.0, 12.0)  # seconds after the deploy starts; activating the package takes ~8 s


@pytest.fixture(scope="module")
def runtime(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Runtime]:
    yield from deployed_runtime(tmp_path_factory.mktemp("deploy-crash") / "data", APP, APP / "feed.jsonl")


@pytest.fixture(scope="module")
def changed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The music package with a new attribute field and a rank profile that reads it."""
    package = tmp_path_factory.mktemp("music-changed") / "app"
    shutil.copytree(APP, package)
    schema = package / "schemas" / "album.sd"
    text = schema.read_text()
    document_end = text.index("    }\n    fieldset default")  # the field at the end of the document, the profile at the end of the schema
    text = text[:document_end] + "        field label type string {\n            indexing: summary | attribute\n        }\n" + text[document_end:]
    text = text.rstrip().removesuffix("}") + "    rank-profile by_year inherits default {\n        first-phase {\n            expression: attribute(year)\n        }\n    }\n}\n"
    schema.write_text(text)
    return package


def active_session() -> int:
    status, body = http("GET", f"{CONFIG_SERVER}/application/v2/tenant/default/application/default/environment/prod/region/default/instance/default/serviceconverge")
    assert status == 200, body
    return int(body["currentGeneration"])


def serves_changed_package() -> bool:
    """Whether the rank profile of the changed package is served (else the container refuses it by name)."""
    status, body = http("GET", f"{CONTAINER}/search/?yql=select%20*%20from%20album%20where%20true&ranking=by_year")
    assert status in (200, 400), body
    return status == 200


def test_a_deploy_cut_by_kill_9_leaves_one_whole_package_serving(runtime: Runtime, changed: Path) -> None:
    documents = search(yql="select * from album where true", hits=100)["root"]["fields"]["totalCount"]
    assert documents >= 3
    assert not serves_changed_package()
    outcomes = []
    for delay in DELAYS:
        before = active_session()
        deploy = subprocess.Popen([vespa_binary(), "deploy", "--wait", "300", str(changed), "--target", "local"],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=ROOT)
        try:
            time.sleep(delay)
            runtime.kill9()
        finally:
            deploy.kill()  # the CLI would wait for the config server to come back, and deploy to the next runtime
            deploy.wait()
        runtime.start()
        wait_for_container()
        session = active_session()
        changed_serves = serves_changed_package()
        # one whole package: the one before (same session) or the new one (a newer session, and its profile served)
        assert (session == before and not changed_serves) or (session > before and changed_serves), (delay, before, session, changed_serves)
        assert search(yql="select * from album where true", hits=100)["root"]["fields"]["totalCount"] == documents, delay
        outcomes.append("new" if changed_serves else "before")
        if changed_serves:  # back to the package before, for the next cut
            reverted = vespa("deploy", "--wait", "300", str(APP), check=False)
            assert reverted.returncode == 0, reverted.stdout + reverted.stderr + runtime.log()
            wait_for_container()
            assert not serves_changed_package()
    print(f"\ndeploys cut at {DELAYS} s: {outcomes}")
    deployed = vespa("deploy", "--wait", "300", str(changed), check=False)
    assert deployed.returncode == 0, deployed.stdout + deployed.stderr + runtime.log()
    wait_for_container()
    assert serves_changed_package()
    assert search(yql="select * from album where true", hits=100)["root"]["fields"]["totalCount"] == documents
