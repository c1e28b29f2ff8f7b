"""A stdio server that writes lines to stdout that are not MCP (a banner, a `print()` in a tool): the case
still passes, with a warning quoting the first line (escapes stripped) in every report; `audit` and `lint`
show it too (the `conformance` check is in tests/integration/conformance)."""

from __future__ import annotations

import json
import shlex
import sys
import xml.etree.ElementTree as ET
from collections.abc import Callable
from pathlib import Path

import pytest
from tests.integration.cli.conftest import Outcome

from toolproof.cli import main

STRAY = Path(__file__).resolve().parents[3] / "tests" / "servers" / "stray_stdout_server.py"
BANNER_TWICE = (
    "the server wrote 2 lines to stdout that are not MCP messages; the first: chatty server v1.0 ready"
)
PRINT_ONCE = "the server wrote a line to stdout that is not an MCP message: DEBUG chatty called with Ada"

SUITE = f"""\
name: banner and print
server: {{command: {sys.executable}, args: [{STRAY}]}}
assert:
  tool: chatty
  args: {{name: Ada}}
  expect: {{contains: ["Hello, Ada!"]}}
---
name: print only
server: {{command: {sys.executable}, args: [{STRAY}, --quiet-start]}}
assert:
  tool: chatty
  args: {{name: Ada}}
  expect: {{contains: ["Hello, Ada!"]}}
---
name: nothing stray
server: {{command: {sys.executable}, args: [{STRAY}, --quiet-start]}}
assert:
  tool: quiet
  args: {{name: Ada}}
  expect: {{contains: ["Goodbye"]}}
"""


def test_run_warns_on_the_case_in_every_report_without_failing_it(
    write_suite: Callable[[dict[str, str]], Path], toolproof: Callable[..., Outcome], tmp_path: Path
) -> None:
    suite = write_suite({"stray.yaml": SUITE})
    junit, html, markdown = tmp_path / "j.xml", tmp_path / "r.html", tmp_path / "s.md"
    done = toolproof(str(suite), "--junit", str(junit), "--html", str(html), "--markdown", str(markdown))
    assert done.verdicts() == {"banner and print": "PASS", "print only": "PASS", "nothing stray": "FAIL"}
    assert [r["warnings"] for r in done.report["results"]] == [[BANNER_TWICE], [PRINT_ONCE], []]
    assert done.status == 1  # only the failing expectation counts
    assert "WARN  banner and print" in done.out and f"warning: {BANNER_TWICE}" in done.out
    assert "\x1b" not in done.out
    outs = [case.findtext("system-out") for case in ET.parse(junit).getroot().iter("testcase")]
    assert outs == [f"warning: {BANNER_TWICE}", f"warning: {PRINT_ONCE}", None]
    assert BANNER_TWICE in html.read_text() and PRINT_ONCE in markdown.read_text()


def test_audit_puts_the_warning_on_the_tool_that_printed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report = tmp_path / "audit.json"
    server = shlex.join([sys.executable, str(STRAY), "--quiet-start"])
    assert main(["audit", "--server", server, "--json", str(report)]) == 0
    results = {r["name"]: r for r in json.loads(report.read_text())["results"]}
    assert results["chatty"]["status"] == "PASS"
    assert results["chatty"]["warnings"][0].startswith(
        "the server wrote a line to stdout that is not an MCP message: DEBUG"
    )
    assert results["quiet"]["warnings"] == []
    assert "WARN  chatty" in capsys.readouterr().out


def test_lint_warns_of_the_banner(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    report = tmp_path / "lint.json"
    assert main(["lint", "--server", shlex.join([sys.executable, str(STRAY)]), "--json", str(report)]) == 0
    results = {r["name"]: r for r in json.loads(report.read_text())["results"]}
    stdout = results["stdout holds only MCP messages"]
    assert stdout["status"] == "PASS"
    assert stdout["warnings"] == [
        "the server wrote a line to stdout that is not an MCP message: chatty server v1.0 ready"
    ]
    assert "warning: the server wrote a line to stdout" in capsys.readouterr().out
