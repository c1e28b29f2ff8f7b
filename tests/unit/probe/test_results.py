"""Probe verdicts in the project's result model, and the cases probes write."""

from __future__ import annotations

from pathlib import Path

from toolproof.mcp.spec import ConnectSpec
from toolproof.model.result import Status
from toolproof.model.server_config import Transport
from toolproof.probe.cases import render, server_block
from toolproof.probe.lint import lint_results
from toolproof.probe.lint_rules import Finding, Severity

ERROR = Finding("a", "E101", Severity.ERROR, "no description", "description", "empty-description")
WARNING = Finding("b", "W116", Severity.WARNING, "no returns", "description", "undescribed-output")
TOOLS = [{"name": "a"}, {"name": "b"}, {"name": "c"}]


def test_errors_fail_warnings_are_skipped_clean_tools_pass() -> None:
    results = lint_results(TOOLS, [ERROR, WARNING], Path("srv"), threshold=0)
    assert [(r.name.split(":")[0], r.status) for r in results] == [
        ("a E101", Status.FAIL),
        ("b W116", Status.SKIP),
        ("c", Status.PASS),
    ]
    assert results[0].failure is not None and results[0].failure.check == "E101"


def test_over_the_threshold_every_finding_fails() -> None:
    results = lint_results(TOOLS, [WARNING, WARNING], Path("srv"), threshold=1)
    assert {r.status for r in results if r.name.startswith("b ")} == {Status.FAIL}
    assert "over --threshold 1" in (results[0].failure.message if results[0].failure else "")


def test_server_blocks_never_hold_header_values() -> None:
    stdio = ConnectSpec(transport=Transport.STDIO, command="python", args=("s.py", "--x"))
    assert server_block(stdio) == {"command": "python", "args": ["s.py", "--x"]}
    http = ConnectSpec(transport=Transport.HTTP, url="http://h/mcp", headers={"X-Api-Key": "secret-value"})
    block = server_block(http)
    assert block == {"transport": "http", "url": "http://h/mcp", "headers": {"X-Api-Key": "${X_API_KEY}"}}
    assert "secret-value" not in render({"server": block})
