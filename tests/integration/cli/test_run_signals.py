"""`toolproof run` stopped by SIGTERM, SIGINT (Ctrl-C) or SIGHUP: the run is cancelled, every server and its
children are stopped, fixture copies removed, the finished cases reported, and the status is 128 + signal."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from tests.integration.cli.test_run_hostile import TINY, alive

ROOT = Path(__file__).resolve().parents[3]

HUNG_SERVER = """
import os, subprocess, sys, time
child = subprocess.Popen(["sleep", "300"], start_new_session=True)
with open(sys.argv[1] + ".tmp", "w") as handle:
    handle.write(f"{os.getpid()}\\n{child.pid}\\n")
os.rename(sys.argv[1] + ".tmp", sys.argv[1])
time.sleep(3600)  # never answers initialize
"""


def write_suite(tmp_path: Path) -> Path:
    suite = tmp_path / "suite"
    suite.mkdir()
    (tmp_path / "hung_server.py").write_text(textwrap.dedent(HUNG_SERVER))
    (suite / "a_quick.yaml").write_text(
        f"name: quick\nserver: {{command: {sys.executable}, args: [{TINY}]}}\n"
        "assert: {tool: echo, args: {text: fine}, expect: {equals: fine}}\n"
    )
    (suite / "b_hung.yaml").write_text(
        f"name: hung\nserver: {{command: {sys.executable}, args: [{tmp_path / 'hung_server.py'},"
        f" {tmp_path / 'pids'}]}}\nassert: {{tool: t, expect: {{contains: [ok]}}}}\n"
    )
    return suite


def wait_for(path: Path, limit: float = 30.0) -> None:
    deadline = time.monotonic() + limit
    while not path.exists():
        assert time.monotonic() < deadline, f"{path} never appeared"
        time.sleep(0.05)


STOPS = [(signal.SIGTERM, 143), (signal.SIGINT, 130), (signal.SIGHUP, 129)]


@pytest.mark.parametrize(("sig", "status"), STOPS)
def test_a_stop_signal_cleans_up_and_reports_what_finished(
    tmp_path: Path, sig: signal.Signals, status: int
) -> None:
    suite = write_suite(tmp_path)
    fixture = tmp_path / "fixture"
    fixture.mkdir()
    (fixture / "data.txt").write_text("data")
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    report = tmp_path / "report.json"
    argv = [sys.executable, "-m", "toolproof", "run", str(suite), "--fixture", str(fixture), "-j", "2",
            "--timeout", "60s", "--json", str(report)]
    env = {**os.environ, "TMPDIR": str(scratch)}
    with subprocess.Popen(
        argv, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    ) as run:
        assert run.stdout is not None and run.stderr is not None
        first = run.stdout.readline()  # cases are printed in file order: the quick one comes first
        wait_for(tmp_path / "pids")
        assert list(scratch.glob("toolproof-fixture-*")), "the hung case works on its own fixture copy"
        run.send_signal(sig)
        out, err = run.communicate(timeout=30)
    assert first.startswith("PASS  quick")
    assert run.returncode == status
    assert err == f"toolproof run: stopped by {sig.name} (exit status {status})\n"
    assert "1 passed" in out
    assert [r["name"] for r in json.loads(report.read_text())["results"]] == ["quick"]
    server, child = (int(pid) for pid in (tmp_path / "pids").read_text().split())
    assert not alive(server) and not alive(child)
    assert list(scratch.iterdir()) == []
