"""A toolproof killed without a chance to clean up (SIGKILL, the OOM killer) still leaves no server running:
its watchdog (`mcp/watchdog.py`) stops the servers, their children and what left their session."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

from tests.integration.cli.test_run_hostile import alive

ROOT = Path(__file__).resolve().parents[3]
GONE_WITHIN_S = 15.0

SPAWNING_SERVER = """
import os, subprocess, sys, time
child = subprocess.Popen(["sleep", "300"])
runaway = subprocess.Popen(["sleep", "301"], start_new_session=True)
with open(sys.argv[1] + ".tmp", "w") as handle:
    handle.write(f"{os.getpid()} {child.pid} {runaway.pid}\\n")
os.rename(sys.argv[1] + ".tmp", sys.argv[1])
time.sleep(3600)  # never answers initialize
"""


def test_a_killed_toolproof_leaves_neither_its_server_nor_the_server_s_children(tmp_path: Path) -> None:
    (tmp_path / "server.py").write_text(textwrap.dedent(SPAWNING_SERVER))
    pids_file = tmp_path / "pids"
    suite = tmp_path / "case.yaml"
    suite.write_text(
        f"name: hung\nserver: {{command: {sys.executable}, args: [{tmp_path / 'server.py'}, {pids_file}]}}\n"
        "assert: {tool: t}\n"
    )
    argv = [sys.executable, "-m", "toolproof", "run", str(suite), "--timeout", "120s"]
    with subprocess.Popen(argv, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) as run:
        deadline = time.monotonic() + 60
        while not pids_file.exists():
            assert time.monotonic() < deadline, "the server never started"
            assert run.poll() is None, "toolproof ended before its server started"
            time.sleep(0.05)
        pids = [int(pid) for pid in pids_file.read_text().split()]
        assert all(alive(pid) for pid in pids)
        run.send_signal(signal.SIGKILL)
        run.wait()
    deadline = time.monotonic() + GONE_WITHIN_S
    while (left := [pid for pid in pids if alive(pid)]) and time.monotonic() < deadline:
        time.sleep(0.1)
    for pid in left:  # leave nothing behind whatever the verdict
        os.kill(pid, signal.SIGKILL)
    assert left == []
