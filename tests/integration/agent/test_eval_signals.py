"""`toolproof eval` stopped by SIGTERM while an agent's MCP server hangs: the server and its children are
stopped, one line says why, and the status is 128 + the signal."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from tests.integration.cli.test_run_hostile import alive
from tests.integration.cli.test_run_signals import HUNG_SERVER, ROOT, wait_for

pytestmark = pytest.mark.servers

SCRIPT = "scenarios:\n  '*':\n    - steps:\n        - reply: done\n"


def test_sigterm_stops_the_agent_servers_and_exits_143(tmp_path: Path) -> None:
    (tmp_path / "hung_server.py").write_text(textwrap.dedent(HUNG_SERVER))
    (tmp_path / "script.yaml").write_text(SCRIPT)
    server = {"command": sys.executable, "args": [str(tmp_path / "hung_server.py"), str(tmp_path / "pids")]}
    expect = [{"reply": {"contains": "done"}}]
    case = {"name": "hangs", "servers": {"hung": server}, "prompt": "hi", "expect": expect}
    (tmp_path / "case.yaml").write_text(json.dumps(case))
    argv = [sys.executable, "-m", "toolproof", "eval", str(tmp_path / "case.yaml"), "--provider", "scripted",
            "--script", str(tmp_path / "script.yaml"), "--timeout", "60s"]
    with subprocess.Popen(
        argv, cwd=ROOT, env=dict(os.environ), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    ) as run:
        wait_for(tmp_path / "pids")
        run.send_signal(signal.SIGTERM)
        _, err = run.communicate(timeout=30)
    assert run.returncode == 143
    assert err.endswith("toolproof eval: stopped by SIGTERM (exit status 143)\n")
    pid, child = (int(pid) for pid in (tmp_path / "pids").read_text().split())
    assert not alive(pid) and not alive(child)
