"""What `toolproof run` prints: nothing the MCP SDK logs, and, when the reader of its stdout goes away early
(`| head -1`), nothing more, quietly, while the run goes on to complete reports and the verdicts' own exit
status."""

from __future__ import annotations

import json
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

from tests.integration.cli.test_run_hostile import MISBEHAVING, TINY
from tests.integration.mcp.helpers import listening

CASES = 12


def suite_of(tmp_path: Path) -> Path:
    """CASES quick cases against the tiny server; the last one fails."""
    suite = tmp_path / "suite"
    suite.mkdir()
    server = f"server: {{command: {sys.executable}, args: [{TINY}]}}\n"
    for number in range(CASES):
        expected = "fine" if number < CASES - 1 else "not what it says"
        (suite / f"{number:02d}.yaml").write_text(
            f"name: case {number}\n{server}"
            f"assert: {{tool: echo, args: {{text: fine}}, expect: {{equals: {expected}}}}}\n"
        )
    return suite


def test_a_reader_that_stops_early_neither_crashes_the_run_nor_cuts_the_reports(tmp_path: Path) -> None:
    report, junit = tmp_path / "a.json", tmp_path / "a.xml"
    command = [sys.executable, "-m", "toolproof", "run", str(suite_of(tmp_path)), "-j", "1"]
    command += ["--json", str(report), "--junit", str(junit)]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert process.stdout is not None and process.stderr is not None
    assert process.stdout.readline().startswith(b"PASS  case 0")
    process.stdout.close()  # as `head -1` does
    stderr = process.stderr.read().decode()
    assert process.wait(timeout=60) == 1
    assert "Traceback" not in stderr and "Broken" not in stderr, stderr
    assert json.loads(report.read_text())["summary"]["total"] == CASES
    assert ET.parse(junit).getroot().attrib["tests"] == str(CASES)


def test_what_the_sdk_logs_never_reaches_the_terminal(tmp_path: Path) -> None:
    """An invalid notification and a reply that is not JSON-RPC make the SDK log tracebacks; none is shown."""
    suite = tmp_path / "suite"
    suite.mkdir()
    (suite / "a.yaml").write_text(
        "name: odd notifications\n"
        f"server: {{command: {sys.executable}, args: [{MISBEHAVING}, odd_notifications]}}\n"
        "assert: {tool: t, expect: {equals: ok}}\n"
    )
    report = tmp_path / "a.json"
    with listening([sys.executable, str(MISBEHAVING), "not_mcp_http"]) as port:
        (suite / "b.yaml").write_text(
            f"name: not mcp\nserver: {{transport: http, url: 'http://127.0.0.1:{port}/json'}}\n"
            "assert: {tool: t, expect: {equals: ok}}\n"
        )
        command = [sys.executable, "-m", "toolproof", "run", str(suite), "--json", str(report)]
        done = subprocess.run(command, capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 1
    assert done.stderr == ""
    assert "Traceback" not in done.stdout
    results = json.loads(report.read_text())["results"]
    verdicts = {r["name"]: (r["status"], (r["failure"] or {}).get("kind")) for r in results}
    assert verdicts == {"odd notifications": ("PASS", None), "not mcp": ("FAIL", "protocol")}
