"""The restart benchmark in its seconds-long version (--smoke, tiny corpus), so that ./dwell bench --restart
keeps working: it checks the tool and that its figures are sane (every document seen after the start, a
floor and a ratio measured, no acknowledged write lost after kill -9), not the figures themselves."""
from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path

from dwell_client import ROOT, wait_for_free_ports


def test_restart_bench_smoke_writes_its_report(tmp_path: Path) -> None:
    wait_for_free_ports()
    subprocess.run(["mvn", "-B", "-q", "-f", str(ROOT / "bench" / "pom.xml"), "package"], check=True, cwd=ROOT)
    out = tmp_path / "results"
    # --no-lock: the test suite runs under the runtime lock when it is shared (./dwell test under flock)
    done = subprocess.run([sys.executable, str(ROOT / "bench" / "restart_bench.py"), "--presets", "tiny", "--smoke", "--no-build",
                           "--no-lock", "--out", str(out)], capture_output=True, text=True, timeout=900, cwd=ROOT,
                          env={**os.environ, "PYTHONPATH": f"{ROOT / 'feed'}:{ROOT / 'learning'}"})
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    run = json.loads((out / "restart.json").read_text())
    [tiny] = run["presets"]
    assert tiny["comments"] == 1000
    start, floor = tiny["start"], tiny["floor"]
    assert 0 < start["config_server_s"] <= start["full_coverage_s"]
    assert start["counts"]["select * from comment where true"] == 1000, "every document seen"
    assert start["counts"]["select * from author where true"] % tiny["authors"] == 0
    assert floor["seconds"] > 0 and floor["files"] > 0 and floor["bytes"] > 0
    assert math.isclose(tiny["ratio"], start["full_coverage_s"] / floor["seconds"])
    assert tiny["bytes_per_comment"] > 0
    kill9 = run["kill9"]
    assert kill9["acknowledged"] > 0 and kill9["full_coverage_s"] > 0
    assert kill9["lost"] == [] and kill9["half_applied"] == []
    cost = run["flush_cost"]
    assert cost["on"]["queries_ok"] > 0 and cost["off"]["queries_ok"] > 0
    assert cost["on"]["update_rate"] > 0 and cost["off"]["update_rate"] > 0
    report = (out / "restart.md").read_text()
    assert "| tiny | 1,000 |" in report, report
    assert "## kill -9 in the middle of a feed" in report and "## The cost of index flushes while serving" in report
    if not cost["switch_present"]:
        assert "does not read `DWELL_INDEX_FLUSH`" in report
    assert (out / "restart.png").stat().st_size > 0
