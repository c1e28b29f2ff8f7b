"""The probe and authoring commands stopped by SIGINT (Ctrl-C) or SIGTERM while a server hangs: what was found
so far is reported and the reports asked for are written, every server is stopped, and the exit status is
128 + the signal (as `run` does, tests/integration/cli/test_run_signals.py)."""

from __future__ import annotations

import json
import shlex
import signal
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from tests.integration.cli.test_run_hostile import alive

ROOT = Path(__file__).resolve().parents[3]

# A stdio server (standard library only) that notes its pid in PIDS and then, by tool: `boom` exits (a
# crash), `ok` answers, `slow` never answers. An unknown method, and tools/list under `hang-list`, never
# answer either. Whatever never answers first creates HUNG, so the test knows when to send the signal.
SERVER = """
import json, os, sys, time
pids, hung = sys.argv[1], sys.argv[2]
with open(pids, "a") as handle:
    handle.write(f"{os.getpid()}\\n")
hang_list = "hang-list" in sys.argv[3:]
SCHEMA = {"type": "object", "properties": {"text": {"type": "string", "description": "any text"}}}
TOOLS = [{"name": name, "description": f"The {name} tool: returns a short text.", "inputSchema": SCHEMA}
         for name in ("boom", "ok", "slow")]

def hang():
    open(hung, "w").close()
    time.sleep(3600)

def say(message):
    sys.stdout.write(json.dumps(message) + "\\n")
    sys.stdout.flush()

for line in sys.stdin:
    message = json.loads(line)
    if "id" not in message or "method" not in message:
        continue
    method, params = message["method"], message.get("params") or {}
    if method == "initialize":
        result = {"protocolVersion": params.get("protocolVersion", "2025-06-18"),
                  "capabilities": {"tools": {}}, "serverInfo": {"name": "slow", "version": "1"}}
    elif method == "tools/list":
        if hang_list:
            hang()
        result = {"tools": TOOLS}
    elif method == "ping":
        result = {}
    elif method == "tools/call":
        name = params.get("name")
        if name == "boom":
            sys.stderr.write("fatal: boom\\n")
            sys.exit(3)
        if name == "slow":
            hang()
        result = {"content": [{"type": "text", "text": "ok"}]}
    else:
        hang()
    say({"jsonrpc": "2.0", "id": message["id"], "result": result})
"""


class Scene:
    """A temporary directory with the server, its pid file and its hang marker."""

    def __init__(self, tmp_path: Path) -> None:
        self.dir = tmp_path
        self.server = tmp_path / "slow_server.py"
        self.server.write_text(SERVER)
        self.pids = tmp_path / "pids"
        self.hung = tmp_path / "hung"

    def command(self, *flags: str) -> list[str]:
        return [sys.executable, str(self.server), str(self.pids), str(self.hung), *flags]

    def server_option(self, *flags: str) -> str:
        return shlex.join(self.command(*flags))

    def suite(self) -> Path:
        """A suite of a case that passes and a case that hangs, in that order."""
        suite = self.dir / "suite"
        suite.mkdir()
        command = self.command()
        server = json.dumps({"command": command[0], "args": command[1:]})
        (suite / "cases.yaml").write_text(
            f"name: answers\nserver: {server}\nassert: {{tool: ok, expect: {{equals: ok}}}}\n---\n"
            f"name: hangs\nserver: {server}\nassert: {{tool: slow, expect: {{equals: ok}}}}\n"
        )
        return suite

    def stop(self, argv: list[str], sig: signal.Signals) -> tuple[int, str, str]:
        """Run `toolproof ARGV` until the server hangs, send `sig`; the exit status, stdout and stderr."""
        with subprocess.Popen(
            [sys.executable, "-m", "toolproof", *argv],
            cwd=self.dir,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        ) as command:
            deadline = time.monotonic() + 60
            while not self.hung.exists():
                assert command.poll() is None, command.communicate()
                assert time.monotonic() < deadline, "the server never hung"
                time.sleep(0.05)
            command.send_signal(sig)
            out, err = command.communicate(timeout=30)
        pids = [int(line) for line in self.pids.read_text().split()]
        assert pids and not [pid for pid in pids if alive(pid)], "a server outlived the command"
        return command.returncode, out, err


def verdicts(report: Path) -> dict[str, str]:
    return {result["name"]: result["status"] for result in json.loads(report.read_text())["results"]}


def junit_names(report: Path) -> list[str]:
    return [case.get("name", "") for case in ET.parse(report).getroot().iter("testcase")]


STOPS = [(signal.SIGINT, 130), (signal.SIGTERM, 143)]
IDS = ["SIGINT", "SIGTERM"]


@pytest.mark.parametrize(("sig", "status"), STOPS, ids=IDS)
def test_fuzz_reports_the_crash_found_before_the_stop(
    tmp_path: Path, sig: signal.Signals, status: int
) -> None:
    scene = Scene(tmp_path)
    argv = ["fuzz", "--server", scene.server_option(), "--runs", "3", "--seed", "1", "--timeout", "60s",
            "--json", "fuzz.json", "--junit", "fuzz.xml"]
    code, out, err = scene.stop(argv, sig)
    assert code == status
    assert err.endswith(f"toolproof fuzz: stopped by {sig.name} (exit status {status})\n")
    found = verdicts(tmp_path / "fuzz.json")
    assert [name for name, verdict in found.items() if verdict == "FAIL" and name.startswith("boom")]
    assert found["ok: 3 inputs (3 passed, 0 rejected, 0 skipped)"] == "PASS"
    assert any(name.startswith("boom") for name in junit_names(tmp_path / "fuzz.xml"))
    assert "fuzz: seed 1;" in out


@pytest.mark.parametrize(("sig", "status"), STOPS, ids=IDS)
def test_audit_reports_the_tools_audited_before_the_stop(
    tmp_path: Path, sig: signal.Signals, status: int
) -> None:
    scene = Scene(tmp_path)
    argv = ["audit", "--server", scene.server_option(), "--timeout", "60s", "--json", "a.json"]
    argv += ["--junit", "a.xml"]
    code, out, err = scene.stop(argv, sig)
    assert code == status
    assert err.endswith(f"toolproof audit: stopped by {sig.name} (exit status {status})\n")
    assert verdicts(tmp_path / "a.json") == {"boom": "FAIL", "ok": "PASS"}
    assert junit_names(tmp_path / "a.xml") == ["boom", "ok"]
    assert "audit score: 50% (1/2 tested tools healthy" in out


def test_lint_reports_its_findings_when_a_called_tool_hangs(tmp_path: Path) -> None:
    scene = Scene(tmp_path)
    argv = ["lint", "--server", scene.server_option(), "--call-tools", "--timeout", "60s", "--json", "l.json"]
    code, out, err = scene.stop(argv, signal.SIGTERM)
    assert code == 143
    assert err.endswith("toolproof lint: stopped by SIGTERM (exit status 143)\n")
    assert verdicts(tmp_path / "l.json")  # the schema findings, made before any call
    assert "lint: 3 tools" in out


def test_conformance_reports_the_checks_made_before_the_stop(tmp_path: Path) -> None:
    scene = Scene(tmp_path)
    argv = ["conformance", "--server", scene.server_option(), "--timeout", "60s", "--json", "c.json"]
    code, _, err = scene.stop(argv, signal.SIGINT)
    assert code == 130
    assert err.endswith("toolproof conformance: stopped by SIGINT (exit status 130)\n")
    made = verdicts(tmp_path / "c.json")
    assert made["ping [basic/utilities/ping]"] == "PASS"
    assert "unknown method is -32601 [basic#responses]" not in made  # the check the server hung in


def test_snapshot_reports_the_cases_that_finished(tmp_path: Path) -> None:
    scene = Scene(tmp_path)
    suite = scene.suite()
    argv = ["snapshot", str(suite), "--update", "-j", "1", "--timeout", "60s", "--json", "s.json"]
    code, _, err = scene.stop(argv, signal.SIGINT)
    assert code == 130
    assert err.endswith("toolproof snapshot: stopped by SIGINT (exit status 130)\n")
    assert verdicts(tmp_path / "s.json")["answers"] == "PASS"
    assert not (suite / ".snapshots.json").exists()  # a stopped --update records nothing


def test_matrix_prints_and_writes_the_table_of_what_ran(tmp_path: Path) -> None:
    scene = Scene(tmp_path)
    suite = scene.suite()
    argv = ["matrix", str(suite), "--server", f"one={scene.server_option()}", "-j", "1", "--timeout", "60s",
            "--json", "m.json", "--output", "m.md"]
    code, out, err = scene.stop(argv, signal.SIGTERM)
    assert code == 143
    assert err.endswith("toolproof matrix: stopped by SIGTERM (exit status 143)\n")
    assert verdicts(tmp_path / "m.json") == {"answers [one]": "PASS"}
    table = (tmp_path / "m.md").read_text()
    assert "| answers | PASS |" in table and "| hangs   | -    |" in table
    assert "| answers | PASS |" in out


def test_coverage_stops_its_server(tmp_path: Path) -> None:
    scene = Scene(tmp_path)
    suite = scene.suite()
    argv = ["coverage", str(suite), "--server", scene.server_option("hang-list"), "--timeout", "60s"]
    code, _, err = scene.stop(argv, signal.SIGTERM)
    assert code == 143
    assert err.endswith("toolproof coverage: stopped by SIGTERM (exit status 143)\n")
